// Command quarry-plugin-pdftotext is an example third-party strategy: it reads a PDF's text
// layer with poppler's pdftotext(1) and classifies each paragraph with Quarry's text rules.
// It shows everything a plugin author needs: one sdk.Serve call, a partition function that
// emits elements with page numbers, typed errors, cancellation and progress.
//
// Build and install:
//
//	go build -o ~/.quarry/plugins/quarry-plugin-pdftotext ./plugins/examples/pdftotext
//	quarry plugin checksum ~/.quarry/plugins/quarry-plugin-pdftotext
//
// Select it with strategy=pdftotext.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/sdk"
)

func main() {
	sdk.Serve(sdk.Strategy{
		Name:      "pdftotext",
		MIMETypes: []string{"application/pdf"},
		Partition: partition,
	})
}

func partition(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	if doc.MIMEType != "application/pdf" {
		return &engine.Error{Kind: engine.KindBadRequest, Msg: "The pdftotext strategy is only available for PDF files"}
	}
	cmd := sdk.Command(ctx, "pdftotext", "-enc", "UTF-8", "-", "-")
	cmd.Stdin = doc.Reader()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &engine.Error{Kind: engine.KindUnprocessable, Msg: "pdftotext: " + strings.TrimSpace(stderr.String()), Err: err}
		}
		return fmt.Errorf("pdftotext: %w", err)
	}
	// pdftotext ends every page with a form feed.
	pages := strings.Split(strings.TrimSuffix(out.String(), "\f"), "\f")
	for i, page := range pages {
		if err := ctx.Err(); err != nil {
			return err
		}
		sdk.ReportProgress(ctx, i+1, len(pages), "text")
		for _, para := range strings.Split(page, "\n\n") {
			text := strings.Join(strings.Fields(para), " ")
			if text == "" {
				continue
			}
			typ, text := classify.Text(text)
			if text == "" {
				continue
			}
			e := element.Element{Type: typ, Text: text, Metadata: element.Metadata{PageNumber: element.Int(i + 1)}}
			if err := emit(e); err != nil {
				return err
			}
		}
		if opts.IncludePageBreaks {
			if err := emit(element.Element{Type: element.PageBreak, Metadata: element.Metadata{PageNumber: element.Int(i + 1)}}); err != nil {
				return err
			}
		}
	}
	return nil
}
