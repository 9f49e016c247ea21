// Command misbehave is a test plugin whose strategies fail in every way a plugin can: panic,
// crash the process, hang, allocate without bound, exit mid-stream, hang with a helper process
// running; "echo" works.
package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/plugins/sdk"
)

// envHelper makes the binary a helper process that sleeps (see "spawnhang").
const envHelper = "MISBEHAVE_HELPER"

func main() {
	if os.Getenv(envHelper) != "" {
		time.Sleep(time.Hour)
		return
	}
	s := func(name string, f func(ctx context.Context, doc *sdk.Document, opts sdk.Options, emit sdk.Emit) error) sdk.Strategy {
		return sdk.Strategy{Name: name, MIMETypes: []string{"application/pdf", "text/plain"}, Partition: f}
	}
	sdk.ServePlugin(sdk.Plugin{Name: "misbehave", Version: "0.0.1", Strategies: []sdk.Strategy{
		s("echo", echo),
		s("panic", func(context.Context, *sdk.Document, sdk.Options, sdk.Emit) error { panic("boom") }),
		s("crash", func(context.Context, *sdk.Document, sdk.Options, sdk.Emit) error {
			go func() { panic("native crash") }()
			time.Sleep(time.Minute)
			return nil
		}),
		s("hang", func(context.Context, *sdk.Document, sdk.Options, sdk.Emit) error {
			time.Sleep(time.Hour) // ignores cancellation on purpose
			return nil
		}),
		s("spawnhang", func(ctx context.Context, _ *sdk.Document, _ sdk.Options, _ sdk.Emit) error {
			// A helper (as the OCR plugin runs pdftoppm), then a hang: when the host kills
			// this process the helper must die too.
			cmd := sdk.Command(ctx, os.Args[0])
			cmd.Env = append(os.Environ(), envHelper+"=1")
			if err := cmd.Start(); err != nil {
				return err
			}
			time.Sleep(time.Hour)
			return nil
		}),
		s("hog", func(context.Context, *sdk.Document, sdk.Options, sdk.Emit) error {
			var keep [][]byte
			for {
				b := make([]byte, 32<<20)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1 // touch every page so it is really allocated
				}
				keep = append(keep, b)
			}
		}),
		s("exitmid", func(ctx context.Context, doc *sdk.Document, opts sdk.Options, emit sdk.Emit) error {
			for p := 1; p <= 2; p++ {
				if err := emit(element.Element{Type: element.NarrativeText, Text: "partial", Metadata: element.Metadata{PageNumber: element.Int(p)}}); err != nil {
					return err
				}
			}
			time.Sleep(50 * time.Millisecond)
			os.Exit(7)
			return nil
		}),
		// A temporary copy of the document (as the OCR strategy writes one), then a hang or an
		// exit: the host must remove the copy when it kills or loses the process.
		s("temphang", func(ctx context.Context, doc *sdk.Document, _ sdk.Options, _ sdk.Emit) error {
			if err := tempCopy(doc); err != nil {
				return err
			}
			time.Sleep(time.Hour)
			return nil
		}),
		s("tempexit", func(ctx context.Context, doc *sdk.Document, _ sdk.Options, _ sdk.Emit) error {
			if err := tempCopy(doc); err != nil {
				return err
			}
			os.Exit(3)
			return nil
		}),
		// The names of the listed variables this process was given, for the tests of what a
		// plugin's environment holds.
		s("env", func(_ context.Context, _ *sdk.Document, _ sdk.Options, emit sdk.Emit) error {
			var have []string
			for _, n := range []string{"UNSTRUCTURED_API_KEY", "QUARRY_SECRET_KEY", "QUARRY_DATABASE", "ANTHROPIC_API_KEY", "PATH"} {
				if _, ok := os.LookupEnv(n); ok {
					have = append(have, n)
				}
			}
			return emit(element.Element{Type: element.NarrativeText, Text: strings.Join(have, " ")})
		}),
		// A plugin taken over by its document: for each path the document lists, what this
		// process and a program it runs (as a converter) can read there, and whether it can
		// plant a file next to it; then the document itself, by the name it was given.
		s("steal", func(ctx context.Context, doc *sdk.Document, _ sdk.Options, emit sdk.Emit) error {
			b, err := doc.Bytes()
			if err != nil {
				return err
			}
			for _, path := range strings.Fields(string(b)) {
				var got []string
				if data, err := os.ReadFile(path); err == nil {
					got = append(got, "read:"+string(data))
				}
				if out, err := sdk.Command(ctx, "cat", path).Output(); err == nil {
					got = append(got, "cat:"+string(out))
				}
				if err := os.WriteFile(path+".planted", []byte("x"), 0o600); err == nil {
					got = append(got, "planted")
				}
				if err := emit(element.Element{Type: element.NarrativeText, Text: path + " " + strings.Join(got, " ")}); err != nil {
					return err
				}
			}
			if f, ok := doc.Content.(*os.File); ok {
				return emit(element.Element{Type: element.NarrativeText, Text: "document file " + f.Name()})
			}
			return nil
		}),
		s("typed", func(context.Context, *sdk.Document, sdk.Options, sdk.Emit) error {
			return &sdk.Error{Kind: contract.KindUnprocessable, Msg: "document refused"}
		}),
	}})
}

func tempCopy(doc *sdk.Document) error {
	f, err := os.CreateTemp("", "misbehave-copy-*")
	if err != nil {
		return err
	}
	buf := make([]byte, doc.Size)
	doc.Content.ReadAt(buf, 0)
	f.Write(buf)
	return f.Close()
}

// echo emits three pages describing the document, so tests can check that bytes, names and
// options crossed the wire intact.
func echo(ctx context.Context, doc *sdk.Document, opts sdk.Options, emit sdk.Emit) error {
	b, err := doc.Bytes()
	if err != nil {
		return err
	}
	sum := sha256.Sum256(b)
	for p := 1; p <= 3; p++ {
		sdk.ReportProgress(ctx, p, 3, "echo")
		e := element.Element{Type: element.Title, Text: fmt.Sprintf("%s %d %x %s", doc.BaseName(), doc.Size, sum[:4], opts.Get("tag")),
			Metadata: element.Metadata{PageNumber: element.Int(p), Coordinates: &element.Coordinates{
				Points: []element.Point{{1.5, 2.25}, {1.5, 10}, {20.125, 10}, {20.125, 2.25}}, System: "PixelSpace", LayoutWidth: 100, LayoutHeight: 200}}}
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}
