package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/element/markdown"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
	"github.com/quarrydocs/quarry/lang"
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
	if f.isBool {
		// On a command line --coordinates=1 means true: every boolean flag takes pydantic's truth
		// values and passes the API a canonical one, so a lenient field's "anything but true is
		// false" cannot silently turn a yes into a no.
		b, ok := schema.ParseBool(v, schema.PydanticTrimmed)
		if !ok {
			return errors.New("want true or false (1/0, yes/no, on/off also work)")
		}
		v = strconv.FormatBool(b)
	}
	f.form[f.name] = append(f.form[f.name], v)
	return nil
}

func (f *formValue) IsBoolFlag() bool { return f.isBool }

// partitionCmd is one `quarry partition` invocation once its command line is read.
type partitionCmd struct {
	form      map[string][]string
	outFile   string
	outDir    string
	recursive bool
	quiet     bool
	verbose   bool
	csvEscape bool   // element.CSVOptions.EscapeFormulas
	format    string // json, jsonl, csv or text
	inputs    []input
	opts      engine.Options
	stdout    io.Writer
	stderr    io.Writer
	stdin     io.Reader
}

// input is one document to partition.
type input struct {
	path  string // as given or found in a folder; "-" for stdin
	name  string // output name relative to --output-dir, without the format's extension
	data  []byte // stdin's or a pipe's content
	piped bool   // a named pipe or device read whole into data
}

// readStream reads a pipe or device given by name.
func readStream(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, fileError(err))
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", p, fileError(err))
	}
	return data, nil
}

func newPartitionFlags(c *partitionCmd) *flag.FlagSet {
	fs := flag.NewFlagSet("partition", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are phrased by parseError, help by partitionHelp
	for _, p := range partitionapi.All() {
		fv := &formValue{form: c.form, name: p.Name, isList: p.Kind == partitionapi.List, isBool: p.Kind.Bool()}
		fs.Var(fv, p.Name, p.Help)
	}
	fs.Func("param", "", func(v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok || name == "" {
			return fmt.Errorf("want name=value, got %q", v)
		}
		c.form[name] = append(c.form[name], value)
		return nil
	})
	fs.StringVar(&c.outFile, "o", "", "")
	fs.StringVar(&c.outFile, "output", "", "")
	fs.StringVar(&c.outDir, "output-dir", "", "")
	fs.BoolVar(&c.recursive, "r", false, "")
	fs.BoolVar(&c.recursive, "recursive", false, "")
	fs.BoolVar(&c.quiet, "q", false, "")
	fs.BoolVar(&c.quiet, "quiet", false, "")
	fs.BoolVar(&c.verbose, "v", false, "")
	fs.BoolVar(&c.verbose, "verbose", false, "")
	fs.BoolVar(&c.csvEscape, "csv-escape-formulas", false, "")
	return fs
}

func runPartition(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runPartitionIn(ctx, args, os.Stdin, stdout, stderr)
}

func runPartitionIn(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	c := &partitionCmd{form: map[string][]string{}, stdout: stdout, stderr: stderr, stdin: stdin}
	fs := newPartitionFlags(c)
	paths, err := parseInterleaved(fs, args)
	if err != nil && (errors.Is(err, flag.ErrHelp) || strings.Contains(err.Error(), "flag provided but not defined")) {
		// The installed plugins' own keys are flags too (partitionapi.Declared once their
		// strategies are registered): load the plugins (from their cached Describe answers,
		// without starting them) and read the command line again.
		startPlugins(false)
		c.form = map[string][]string{}
		fs = newPartitionFlags(c)
		paths, err = parseInterleaved(fs, args)
	}
	if errors.Is(err, flag.ErrHelp) {
		partitionHelp(stdout)
		return errHelpShown
	}
	if err != nil {
		return usageError("partition: %s", flagError(fs, err, "partition"))
	}
	if len(paths) == 0 {
		return usageError("partition: no input files; give one or more files or folders, or - for standard input (quarry partition --help shows examples)")
	}
	if err := c.setFormat(); err != nil {
		return err
	}
	if c.outFile != "" && c.outDir != "" {
		return usageError("partition: -o and --output-dir cannot be used together; -o writes one file, --output-dir one file per input")
	}
	if c.opts, err = partitionapi.OptionsFromForm(c.form); err != nil {
		// A plugin's strategy names and option keys are known once the plugins are loaded
		// (from their cached Describe answers, without starting them): load them and read the
		// form again (strategy=pdftotext, a plugin's boolean key checked by its kind).
		startPlugins(false)
		if c.opts, err = partitionapi.OptionsFromForm(c.form); err != nil {
			return usageError("partition: %v%s", err, valueSuggestion(err))
		}
	}
	if !c.quiet {
		warnUnknownLanguages(c.stderr, c.opts.Languages)
	}
	if c.opts.Chunking.Strategy != "" {
		// The same for every document: a bad value is the command line's fault (exit 2), said
		// once, rather than each document failing with it.
		if err := chunking.Validate(c.opts.Chunking); err != nil {
			return usageError("partition: %v (quarry partition --help lists the chunking flags)", err)
		}
	}
	if c.inputs, err = expandInputs(paths, c.recursive, stdin); err != nil {
		return usageError("partition: %v", err)
	}
	if err := checkOutputPlace(c.outFile, c.outDir); err != nil {
		return usageError("partition: %v", err)
	}
	if c.outDir != "" {
		if err := checkOutputNames(c.inputs, c.ext()); err != nil {
			return usageError("partition: %v", err)
		}
		if err := os.MkdirAll(c.outDir, 0o755); err != nil {
			return fmt.Errorf("partition: cannot create the output folder: %w", err)
		}
	}
	if needsPlugins(c.opts.Strategy, c.inputs) {
		startPlugins(false)
	}
	if c.verbose {
		c.opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	} else if !c.quiet {
		// Warnings (a damaged PDF read in part, …) reach the user without -v: a pipeline must
		// not store a partial result believing it whole.
		c.opts.Logger = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	return c.run(ctx)
}

// parseInterleaved parses flags wherever they stand on the line, as GNU tools do: the standard
// flag package stops at the first file name. "--" ends the flags; "-" is a file (stdin).
// Flags spelled with dashes (--output-format) are accepted for their underscore names.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	args = dashAliases(fs, args)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// dashAliases rewrites --output-format to --output_format when only the underscore spelling is
// a flag: the API's form names use underscores, a command line's habit is dashes.
func dashAliases(fs *flag.FlagSet, args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if a == "--" {
			copy(out[i:], args[i:])
			break
		}
		if !strings.HasPrefix(a, "-") || !strings.Contains(a, "-") {
			continue
		}
		dashes := len(a) - len(strings.TrimLeft(a, "-"))
		name, value, hasValue := strings.Cut(a[dashes:], "=")
		if fs.Lookup(name) != nil || !strings.Contains(name, "-") {
			continue
		}
		if alt := strings.ReplaceAll(name, "-", "_"); fs.Lookup(alt) != nil {
			out[i] = a[:dashes] + alt
			if hasValue {
				out[i] += "=" + value
			}
		}
	}
	return out
}

// flagError turns the flag package's errors into one sentence with a way forward.
func flagError(fs *flag.FlagSet, err error, cmd string) string {
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		name = strings.TrimLeft(name, "-")
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
		if s := suggest(name, names); s != "" {
			return fmt.Sprintf("there is no flag --%s; did you mean --%s? (quarry %s --help lists them all)", name, s, cmd)
		}
		return fmt.Sprintf("there is no flag --%s (quarry %s --help lists them all)", name, cmd)
	}
	if strings.HasPrefix(msg, "invalid ") {
		// The flag package names flags with one dash; the help and README use two.
		msg = strings.Replace(strings.Replace(msg, " for flag -", " for -", 1), " for -", " for --", 1)
		if m, ok := strings.CutSuffix(msg, ": parse error"); ok {
			msg = m + fmt.Sprintf("; quarry %s --help shows what it takes", cmd)
		}
	}
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("%s needs a value, e.g. %s=VALUE", name, name)
	}
	return msg
}

// setFormat reads --output_format: the short names json, jsonl, csv, text and markdown, or the
// API's MIME types.
func (c *partitionCmd) setFormat() error {
	v := "json"
	if vs := c.form["output_format"]; len(vs) > 0 {
		v = strings.ToLower(strings.TrimSpace(vs[len(vs)-1]))
	}
	switch v {
	case "json", "application/json":
		c.format = "json"
	case "jsonl", "ndjson", "application/jsonl", "application/x-ndjson":
		c.format = "jsonl"
	case "csv", "text/csv":
		c.format = "csv"
	case "text", "txt", "text/plain":
		c.format = "text"
	case "markdown", "md", "text/markdown":
		c.format = "markdown"
	default:
		return usageError("partition: unknown output format %q; choose json, jsonl, csv, text or markdown", v)
	}
	mime := "application/json"
	if c.format == "csv" {
		mime = "text/csv"
	}
	c.form["output_format"] = []string{mime}
	return nil
}

func (c *partitionCmd) ext() string {
	switch c.format {
	case "jsonl":
		return ".jsonl"
	case "csv":
		return ".csv"
	case "text":
		return ".txt"
	case "markdown":
		return ".md"
	}
	return ".json"
}

// expandInputs turns the command line's paths into documents: files as given, a folder's files
// (its subfolders' too with recursive; hidden files and folders skipped), "-" read from stdin.
// A path that does not exist stays in the list and fails when partitioned, so the batch
// reports it with the others.
func expandInputs(paths []string, recursive bool, stdin io.Reader) ([]input, error) {
	var out []input
	stdinSeen := false
	for _, p := range paths {
		if p == "-" {
			if stdinSeen {
				return nil, errors.New("standard input (-) can be given only once")
			}
			stdinSeen = true
			data, err := io.ReadAll(stdin)
			if err != nil {
				return nil, fmt.Errorf("cannot read standard input: %w", err)
			}
			out = append(out, input{path: "-", name: "stdin", data: data})
			continue
		}
		st, err := os.Stat(p)
		if err == nil && !st.IsDir() && !st.Mode().IsRegular() {
			// A pipe (<(command), /dev/stdin, a FIFO) has no size and can be read once: read
			// it whole now, as standard input is, or it would read as an empty file.
			data, err := readStream(p)
			if err != nil {
				return nil, err
			}
			out = append(out, input{path: p, name: filepath.Base(p), data: data, piped: true})
			continue
		}
		if err != nil || !st.IsDir() {
			out = append(out, input{path: p, name: filepath.Base(p)})
			continue
		}
		n := len(out)
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			hidden := strings.HasPrefix(d.Name(), ".") && path != p
			if d.IsDir() {
				if path != p && (hidden || !recursive) {
					return filepath.SkipDir
				}
				return nil
			}
			if hidden || !d.Type().IsRegular() {
				return nil
			}
			rel, _ := filepath.Rel(p, path)
			out = append(out, input{path: path, name: rel})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("cannot read folder %s: %w", p, err)
		}
		if len(out) == n {
			return nil, emptyFolderError(p, recursive)
		}
	}
	return out, nil
}

// warnUnknownLanguages says which --languages entries name no language: the API drops them
// silently, as the reference does, which left a typist wondering why the output said "eng".
func warnUnknownLanguages(w io.Writer, requested []string) {
	for _, l := range requested {
		for _, one := range strings.FieldsFunc(l, func(r rune) bool { return r == '+' || r == ',' }) {
			one = strings.TrimSpace(one)
			if _, ok := lang.Code(one); !ok && one != "" && one != "auto" {
				fmt.Fprintf(w, "quarry: --languages %s names no language (give ISO 639 codes such as eng or deu, or names such as english); it is ignored\n", one)
			}
		}
	}
}

// maxGunzip bounds what a .gz input may decompress to in memory: a small file can expand a
// thousandfold.
const maxGunzip = 1 << 30

// gunzipDoc decompresses a .gz input as the API does an upload named so: the document is named
// without .gz and typed by gzType (--gz_uncompressed_content_type), else by its extension.
func gunzipDoc(doc *engine.Document, gzType string) (*engine.Document, error) {
	if !strings.HasSuffix(strings.ToLower(doc.Filename), ".gz") {
		return doc, nil
	}
	zr, err := gzip.NewReader(io.NewSectionReader(doc.Content, 0, doc.Size))
	if err != nil {
		return nil, fmt.Errorf("the file is named .gz but is not gzip data (%v); rename it or gunzip it first", err)
	}
	data, err := io.ReadAll(io.LimitReader(zr, maxGunzip+1))
	if err != nil {
		return nil, fmt.Errorf("the gzip data is damaged (%v); gunzip -t names the problem", err)
	}
	if len(data) > maxGunzip {
		return nil, fmt.Errorf("it decompresses to more than %d MiB; gunzip it first and partition the result", maxGunzip>>20)
	}
	name := doc.Filename[:len(doc.Filename)-len(".gz")]
	out := engine.NewDocument(name, data)
	out.ContentType = gzType
	if out.ContentType == "" {
		if t, ok := engine.TypeForExtension(name); ok {
			out.ContentType = t.MIME
		}
	}
	return out, nil
}

// checkOutputPlace refuses, before any document is read, an output that could not be written:
// -o in a folder that does not exist or naming a folder, --output-dir naming a file.
func checkOutputPlace(outFile, outDir string) error {
	if outFile != "" && outFile != "-" {
		if st, err := os.Stat(outFile); err == nil && st.IsDir() {
			return fmt.Errorf("-o %s is a folder; give a file name, or use --output-dir %s for one file per input", outFile, outFile)
		}
		dir := filepath.Dir(outFile)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("cannot write -o %s: folder %s does not exist; create it first (mkdir -p %s)", outFile, dir, dir)
		}
	}
	if outDir != "" {
		if st, err := os.Stat(outDir); err == nil && !st.IsDir() {
			return fmt.Errorf("--output-dir %s is a file, not a folder; name a folder (it is created if missing), or use -o %s for one output file", outDir, outDir)
		}
	}
	return nil
}

// emptyFolderError says why a folder gave no documents and what would: --recursive only when
// it has subfolders, and that hidden files are skipped when those are all it holds.
func emptyFolderError(dir string, recursive bool) error {
	entries, _ := os.ReadDir(dir)
	var subdirs, hidden int
	for _, e := range entries {
		switch {
		case strings.HasPrefix(e.Name(), "."):
			hidden++
		case e.IsDir():
			subdirs++
		}
	}
	switch {
	case !recursive && subdirs > 0:
		return fmt.Errorf("folder %s holds no files, only subfolders; add --recursive to partition the files in them", dir)
	case hidden > 0:
		return fmt.Errorf("folder %s holds only hidden files (names starting with a dot), which are skipped; name the files themselves to partition them", dir)
	case recursive && subdirs > 0:
		return fmt.Errorf("folder %s and its subfolders hold no files", dir)
	}
	return fmt.Errorf("folder %s is empty", dir)
}

// checkOutputNames refuses a batch in which two inputs would write the same output file.
func checkOutputNames(inputs []input, ext string) error {
	seen := map[string]string{}
	for _, in := range inputs {
		name := in.name + ext
		if prev, ok := seen[name]; ok {
			return fmt.Errorf("%s and %s would both be written to %s; give them in separate runs or from one folder", prev, in.path, name)
		}
		seen[name] = in.path
	}
	return nil
}

// needsPlugins reports whether partitioning the inputs may need a plugin's strategy: a PDF or an
// image under a strategy this binary does not serve itself, or under auto, which sends scanned
// pages to OCR. Starting the plugin host launches every plugin once, so a run that cannot use
// one skips it.
func needsPlugins(strategy string, inputs []input) bool {
	if _, inProcess := engine.LookupStrategy(strategy); inProcess && strategy != "auto" {
		return false
	}
	for _, in := range inputs {
		doc, closeDoc, err := in.open()
		if err != nil {
			continue // reported when the file is partitioned
		}
		if doc, err = gunzipDoc(doc, ""); err != nil {
			closeDoc()
			continue
		}
		ft := engine.Detect(doc, doc.ContentType)
		closeDoc()
		if ft.Paged {
			return true
		}
	}
	return false
}

// open returns the input as a document; metadata.filename is the file's base name (none for
// stdin, as for an upload without a name).
func (in input) open() (*engine.Document, func(), error) {
	if in.path == "-" {
		return engine.NewDocument("", in.data), func() {}, nil
	}
	if in.piped {
		return engine.NewDocument(filepath.Base(in.path), in.data), func() {}, nil
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, nil, fileError(err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fileError(err)
	}
	if st.IsDir() {
		f.Close()
		return nil, nil, errors.New("this is a folder; give --recursive to partition the files in it")
	}
	return &engine.Document{Filename: in.path, Content: f, Size: st.Size()}, func() { f.Close() }, nil
}

// fileError says what went wrong with a file without repeating its path (the caller names it).
func fileError(err error) error {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return errors.New("no such file; check the path")
	case errors.Is(err, fs.ErrPermission):
		return errors.New("permission denied; check that you may read the file")
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// result is one document's outcome: its rendered output, or why there is none.
type result struct {
	out   []byte
	elems []element.Element // kept only for a combined CSV
	empty bool              // the document gave no elements
	err   error
}

// run partitions every input, up to GOMAXPROCS at once, and writes the outputs in input order.
// A failing document is reported and skipped; the others go on. Outputs are rendered whole
// before they are written (JSON Lines of one input streams instead), so neither a failure nor an
// interrupt leaves half a document behind.
func (c *partitionCmd) run(ctx context.Context) error {
	prog := newProgress(c.stderr, isTerminal(c.stderr) && !c.quiet, c.quiet, len(c.inputs))
	defer prog.stop()

	var w *bufio.Writer
	var commit func(ok bool) error
	switch {
	case c.outDir != "":
	case c.outFile != "":
		af, err := createAtomic(c.outFile)
		if err != nil {
			return fmt.Errorf("partition: %w", err)
		}
		w = bufio.NewWriterSize(af, 256<<10)
		commit = func(ok bool) error {
			if err := w.Flush(); err != nil {
				af.abort()
				return err
			}
			if !ok {
				af.abort()
				return nil
			}
			return af.commit()
		}
	default:
		w = bufio.NewWriterSize(c.stdout, 256<<10)
		commit = func(bool) error { return w.Flush() }
	}

	multi := len(c.inputs) > 1
	stream := c.format == "jsonl" && !multi && w != nil
	var allCSV []element.Element
	failed, done := 0, 0
	var failures []string
	var only error // the one input's failure, returned rather than printed
	emitResult := func(in input, r *result) {
		if r.err != nil {
			failed++
			failures = append(failures, in.path)
			if !multi {
				only = fmt.Errorf("%s: %w", displayName(in), sentenceError{r.err})
			} else if !(ctx.Err() != nil && errors.Is(r.err, context.Canceled)) {
				prog.println(fmt.Sprintf("quarry: %s: %s", displayName(in), sentence(r.err)))
			}
			return
		}
		done++
		if r.empty && !c.quiet {
			// The output keeps the reference's shape (an empty list); the person is told why
			// the file gave nothing rather than left to guess at a silent success.
			prog.println(fmt.Sprintf("quarry: %s: no text found (the document gives no elements)", displayName(in)))
		}
		switch {
		case c.outDir != "":
			if err := writeAtomic(filepath.Join(c.outDir, in.name+c.ext()), r.out); err != nil {
				failed, done = failed+1, done-1
				failures = append(failures, in.path)
				prog.println(fmt.Sprintf("quarry: %s: cannot write the output: %s", displayName(in), sentence(err)))
			}
		case c.format == "csv" && multi:
			allCSV = append(allCSV, r.elems...)
		default:
			w.Write(r.out)
		}
	}

	if stream {
		in := c.inputs[0]
		r := &result{empty: true}
		r.err = c.partitionOne(ctx, in, prog, func(e element.Element) error {
			r.empty = false
			b, _ := e.MarshalJSON()
			w.Write(b)
			return w.WriteByte('\n')
		})
		emitResult(in, r)
	} else {
		c.partitionAll(ctx, prog, emitResult)
	}
	if len(allCSV) > 0 {
		b, _ := element.MarshalCSVWith(allCSV, 0, element.CSVOptions{EscapeFormulas: c.csvEscape})
		w.Write(b)
	}
	prog.stop()
	var werr error
	if commit != nil {
		werr = commit(done > 0)
	}
	interrupted := ctx.Err() != nil
	if multi || interrupted {
		prog.summary(done, failed, len(c.inputs), failures, interrupted, c.outDir)
	}
	switch {
	case werr != nil:
		return fmt.Errorf("partition: cannot write the output: %w", werr)
	case interrupted:
		return &exitError{code: 130, err: errors.New("interrupted"), silent: true}
	case only != nil:
		return only
	case failed > 0:
		return errSilentFailure
	}
	return nil
}

// errSilentFailure ends the command with status 1 once every failure has been reported.
var errSilentFailure = &exitError{code: 1, err: errors.New("some documents failed"), silent: true}

// partitionAll partitions the inputs, up to GOMAXPROCS at once, handing each result to emit in
// input order. A document holds its slot until emitted, so at most that many outputs are held.
func (c *partitionCmd) partitionAll(ctx context.Context, prog *progress, emit func(input, *result)) {
	workers := min(runtime.GOMAXPROCS(0), len(c.inputs))
	one := func(in input) *result {
		r := &result{}
		var elems []element.Element
		r.err = c.partitionOne(ctx, in, prog, func(e element.Element) error { elems = append(elems, e); return nil })
		if r.err == nil {
			r.empty = len(elems) == 0
			r.out = c.render(in, elems)
			if c.format == "csv" {
				r.elems = elems
			}
		}
		return r
	}
	if workers <= 1 {
		for _, in := range c.inputs {
			if ctx.Err() != nil {
				return
			}
			emit(in, one(in))
		}
		return
	}
	slots := make(chan struct{}, workers)
	done := make([]chan *result, len(c.inputs))
	for i := range done {
		done[i] = make(chan *result, 1)
	}
	go func() {
		for i, in := range c.inputs {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				for j := i; j < len(done); j++ {
					done[j] <- &result{err: ctx.Err()}
				}
				return
			}
			go func() { done[i] <- one(in) }()
		}
	}()
	for i, in := range c.inputs {
		emit(in, <-done[i])
		// Documents never started after an interrupt hold no slot.
		select {
		case <-slots:
		default:
		}
	}
}

// partitionOne partitions one input, reporting its progress.
func (c *partitionCmd) partitionOne(ctx context.Context, in input, prog *progress, emit engine.Emit) error {
	doc, closeDoc, err := in.open()
	if err != nil {
		return err
	}
	defer closeDoc()
	if doc, err = gunzipDoc(doc, c.opts.GzUncompressedContentType); err != nil {
		return err
	}
	opts := c.opts
	name := displayName(in)
	task := prog.start(name)
	defer prog.finish(task)
	opts.Progress = func(p engine.Progress) { prog.report(task, c.opts.Strategy, p) }
	return engine.PartitionStream(ctx, doc, opts, emit)
}

// render encodes one document's elements in the output format. Several documents written to one
// stream are JSON Lines, one document per line: {"source": PATH, "elements": [...]}.
func (c *partitionCmd) render(in input, elems []element.Element) []byte {
	var b bytes.Buffer
	multiStream := len(c.inputs) > 1 && c.outDir == ""
	switch c.format {
	case "csv":
		if multiStream {
			return nil // combined once every document is done
		}
		b, _ := element.MarshalCSVWith(elems, 0, element.CSVOptions{EscapeFormulas: c.csvEscape})
		return b
	case "jsonl":
		for _, e := range elems {
			j, _ := e.MarshalJSON()
			b.Write(j)
			b.WriteByte('\n')
		}
	case "text":
		for _, e := range elems {
			if e.Text == "" {
				continue
			}
			b.WriteString(e.Text)
			b.WriteString("\n\n")
		}
	case "markdown":
		if md := markdown.Marshal(elems); len(md) > 0 {
			b.Write(md)
			b.WriteByte('\n')
		}
	default:
		if multiStream {
			src, _ := jsonString(in.path)
			b.WriteString(`{"source":`)
			b.Write(src)
			b.WriteString(`,"elements":[`)
			for i, e := range elems {
				if i > 0 {
					b.WriteByte(',')
				}
				j, _ := e.MarshalJSON()
				b.Write(j)
			}
			b.WriteString("]}\n")
			return b.Bytes()
		}
		b.WriteString("[")
		for i, e := range elems {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n")
			j, _ := e.MarshalJSON()
			b.Write(j)
		}
		if len(elems) > 0 {
			b.WriteString("\n")
		}
		b.WriteString("]\n")
	}
	return b.Bytes()
}

func displayName(in input) string {
	if in.path == "-" {
		return "standard input"
	}
	return in.path
}

// sentence turns an error into text a person can act on: the engine's messages already are;
// cancellation and deadlines are said plainly.
func sentence(err error) string {
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted"
	case errors.Is(err, context.DeadlineExceeded):
		return "took too long and was stopped"
	}
	msg := err.Error()
	if h := errorHint(err); h != "" {
		msg += " " + h
	}
	return msg
}

// errorHint adds the way out to an engine message that keeps the reference's wording (the API
// answers it verbatim) but does not say what a person at a terminal can do about it.
func errorHint(err error) string {
	var e *engine.Error
	if !errors.As(err, &e) {
		return ""
	}
	switch {
	case e.Kind == engine.KindUnsupported && strings.Contains(e.Msg, "inode/x-empty"):
		return "The file is empty."
	case e.Kind == engine.KindUnsupported && strings.Contains(e.Msg, "application/zip"):
		return "It is a ZIP archive: unpack it and partition its files."
	case e.Kind == engine.KindUnsupported && strings.Contains(e.Msg, "application/octet-stream"):
		return "Its content matches no supported format; if you know its type, give it with --content_type (e.g. --content_type text/plain)."
	case e.Kind == engine.KindUnsupported:
		return "Quarry reads PDF, images, Office and OpenDocument files, HTML, XML, e-mail, EPUB, Markdown, RTF, CSV/TSV and text."
	case strings.HasPrefix(e.Msg, "File does not appear to be a valid PDF."):
		return "— it is damaged or cut short (qpdf --check names the problem; qpdf in.pdf out.pdf often repairs it)."
	case strings.HasPrefix(e.Msg, "File is not a valid "):
		return "— it is damaged, cut short or not really that kind of file; open it in its application and save it again."
	case strings.HasPrefix(e.Msg, "File is encrypted."):
		return "(qpdf --decrypt --password=PASSWORD in.pdf out.pdf does it.)"
	case strings.HasPrefix(e.Msg, "unknown encoding:"):
		return "— give --encoding a name such as utf-8, latin-1 or cp1252, or leave it out to detect."
	}
	return ""
}

// sentenceError shows an error as sentence does and keeps it for errors.Is and errors.As.
type sentenceError struct{ err error }

func (e sentenceError) Error() string { return sentence(e.err) }
func (e sentenceError) Unwrap() error { return e.err }

// parseFlags parses a command's flags the way every command does: help (from -h) on helpOut,
// a bad flag as one line with a suggestion.
func parseFlags(fs *flag.FlagSet, cmd string, args []string, helpOut io.Writer) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fs.SetOutput(helpOut)
		fs.Usage()
		return errHelpShown
	case err != nil:
		return usageError("%s: %s", cmd, flagError(fs, err, cmd))
	}
	return nil
}
