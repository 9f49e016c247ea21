package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"strings"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
)

// formValue collects a flag's raw values the way form fields arrive, so the CLI and the HTTP
// API share one parser. List flags also accept comma-separated values.
type formValue struct {
	form   map[string][]string
	name   string
	isList bool
	isBool bool
}

func (f *formValue) String() string { return "" }

func (f *formValue) Set(v string) error {
	if f.isList {
		for _, part := range strings.Split(v, ",") {
			if part = strings.TrimSpace(part); part != "" {
				f.form[f.name] = append(f.form[f.name], part)
			}
		}
		return nil
	}
	f.form[f.name] = append(f.form[f.name], v)
	return nil
}

func (f *formValue) IsBoolFlag() bool { return f.isBool }

func runPartition(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("partition", flag.ContinueOnError)
	fs.SetOutput(stderr)
	form := map[string][]string{}
	for _, p := range engine.Params() {
		fv := &formValue{form: form, name: p.Name, isList: p.Kind == "list", isBool: strings.HasSuffix(p.Kind, "bool")}
		help := p.Help
		if len(p.Choices) > 0 {
			help += " (" + strings.Join(p.Choices, ", ") + ")"
		}
		fs.Var(fv, p.Name, help)
	}
	fs.Func("param", "`name=value` for a strategy's own parameter (repeatable), e.g. vlm_dry_run=true", func(v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("want name=value, got %q", v)
		}
		form[name] = append(form[name], value)
		return nil
	})
	verbose := fs.Bool("v", false, "log progress to stderr")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: quarry partition [flags] FILE…\n\nFlags carry the partition API's form-field names; lists are comma-separated or repeated.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelpShown
		}
		return &exitError{code: 2, err: err}
	}
	files := fs.Args()
	if len(files) == 0 {
		fs.Usage()
		return usageError("partition: no input files")
	}
	opts, err := engine.OptionsFromForm(form)
	if err != nil {
		return usageError("partition: %v", err)
	}
	if needsPlugins(opts.Strategy, files) {
		startPlugins(false)
	}
	if *verbose {
		opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	w := bufio.NewWriterSize(stdout, 256<<10)
	defer w.Flush()
	csvOut := opts.OutputFormat == "text/csv"
	if len(files) > 1 && !csvOut {
		w.WriteString("[")
	}
	if err := partitionFiles(ctx, files, opts, csvOut, w); err != nil {
		return err
	}
	if len(files) > 1 && !csvOut {
		w.WriteString("]\n")
	}
	return w.Flush()
}

// partitionFiles writes the files' elements in the order given, partitioning up to GOMAXPROCS
// of them at once: each into its own buffer, written out when the ones before it are. A file
// holds its slot until it is written, so at most that many outputs are in memory.
func partitionFiles(ctx context.Context, files []string, opts engine.Options, csvOut bool, w *bufio.Writer) error {
	sep := func(i int) {
		if len(files) > 1 && !csvOut && i > 0 {
			w.WriteString(",\n")
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(files))
	if workers <= 1 {
		for i, path := range files {
			sep(i)
			if err := partitionFile(ctx, path, opts, csvOut, w); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		out bytes.Buffer
		err error
	}
	slots := make(chan struct{}, workers)
	done := make([]chan *result, len(files))
	for i := range done {
		done[i] = make(chan *result, 1)
	}
	go func() {
		for i, path := range files {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			go func() {
				r := &result{}
				bw := bufio.NewWriter(&r.out)
				if r.err = partitionFile(ctx, path, opts, csvOut, bw); r.err == nil {
					r.err = bw.Flush()
				}
				done[i] <- r
			}()
		}
	}()
	for i, path := range files {
		r := <-done[i]
		<-slots
		if r.err != nil {
			return fmt.Errorf("%s: %w", path, r.err)
		}
		sep(i)
		if _, err := w.Write(r.out.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// needsPlugins reports whether partitioning paths may need a plugin's strategy: a PDF or an image
// under a strategy this binary does not serve itself, or under auto, which sends scanned pages
// to OCR. Starting the plugin host launches every plugin once, so a run that cannot use one
// skips it.
func needsPlugins(strategy string, paths []string) bool {
	if _, inProcess := engine.LookupStrategy(strategy); inProcess && strategy != "auto" {
		return false
	}
	return hasPDFOrImage(paths)
}

// hasPDFOrImage reports whether any input is a PDF or an image, the documents that go through a
// strategy; text and office files never start the plugin host.
func hasPDFOrImage(paths []string) bool {
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			continue // reported when the file is partitioned
		}
		st, err := f.Stat()
		if err == nil && !st.IsDir() {
			ft := engine.Detect(&engine.Document{Filename: path, Content: f, Size: st.Size()}, "")
			if ft.IsPDF() || ft.Image {
				f.Close()
				return true
			}
		}
		f.Close()
	}
	return false
}

func partitionFile(ctx context.Context, path string, opts engine.Options, csvOut bool, w *bufio.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory")
	}
	doc := &engine.Document{Filename: path, Content: f, Size: st.Size()}
	if csvOut {
		elems, err := engine.Partition(ctx, doc, opts)
		if err != nil {
			return err
		}
		_, err = w.Write(element.MarshalCSV(elems))
		return err
	}
	// Stream: elements are written as they are produced; nothing is written for a document that
	// fails before its first element, so stdout never holds a dangling "[".
	n := 0
	err = engine.PartitionStream(ctx, doc, opts, func(e element.Element) error {
		if n > 0 {
			w.WriteString(",")
		} else {
			w.WriteString("[")
		}
		w.WriteString("\n")
		n++
		b, _ := e.MarshalJSON()
		_, err := w.Write(b)
		return err
	})
	if err != nil {
		return err
	}
	if n == 0 {
		w.WriteString("[")
	} else {
		w.WriteString("\n")
	}
	_, err = w.WriteString("]\n")
	return err
}
