// Command quarry-plugin-pdftotext is an example third-party strategy: it reads a PDF's text
// layer with poppler's pdftotext(1) and classifies each paragraph with Quarry's text rules.
// It shows everything a plugin author needs: one sdk.ServePlugin call, a partition function that
// emits elements with page numbers, options read as keys (a standard one, include_page_breaks,
// and one of its own, pdftotext_layout), typed errors, cancellation and progress. It imports
// the SDK, contract and element, never the engine, so the binary stays small.
//
// Build and install:
//
//	go build -o ~/.quarry/plugins/quarry-plugin-pdftotext ./plugins/examples/pdftotext
//	quarry plugin checksum ~/.quarry/plugins/quarry-plugin-pdftotext
//
// Select it with strategy=pdftotext; add pdftotext_layout=true to keep pdftotext's physical
// layout (-layout).
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/quarrydocs/quarry/classify"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/plugins/sdk"
)

// keyLayout is this plugin's own option key: a request's pdftotext_layout=true reaches it as
// it is. Declaring it lists it in quarry plugin list.
const keyLayout = "pdftotext_layout"

func main() {
	sdk.ServePlugin(sdk.Plugin{
		Strategies: []sdk.Strategy{{
			Name:      "pdftotext",
			MIMETypes: []string{"application/pdf"},
			Partition: partition,
		}},
		Options: []sdk.Option{{Key: keyLayout, Kind: contract.Bool, Help: "keep pdftotext's physical layout (-layout)"}},
	})
}

func partition(ctx context.Context, doc *sdk.Document, opts sdk.Options, emit sdk.Emit) error {
	if doc.MIMEType != "application/pdf" {
		return &sdk.Error{Kind: contract.KindBadRequest, Msg: "The pdftotext strategy is only available for PDF files"}
	}
	args := []string{"-enc", "UTF-8"}
	if opts.Bool(keyLayout, false) {
		args = append(args, "-layout")
	}
	cmd := sdk.Command(ctx, "pdftotext", append(args, "-", "-")...)
	cmd.Stdin = doc.Reader()
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return &sdk.Error{Kind: contract.KindUnprocessable, Msg: "pdftotext: " + strings.TrimSpace(stderr.String()), Err: err}
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
		if opts.Bool(contract.KeyIncludePageBreaks, false) {
			if err := emit(element.Element{Type: element.PageBreak, Metadata: element.Metadata{PageNumber: element.Int(i + 1)}}); err != nil {
				return err
			}
		}
	}
	return nil
}
