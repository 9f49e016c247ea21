package engineplugin

import (
	"context"
	"fmt"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

// An engine partitioner served through the SDK reads the keys as the engine.Options the host
// had, and its progress reports reach the SDK's progress hook.
func TestPartitionAdapts(t *testing.T) {
	host := engine.DefaultOptions()
	host.Strategy = "hi_res"
	host.Languages = []string{"deu", "fra"}
	host.IncludePageBreaks = true
	host.Extra = contract.Options{"vlm_dry_run": {"true"}}
	var seen engine.Options
	f := Partition(func(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
		seen = *opts
		opts.ReportPage(2, 3, "ocr")
		opts.Report(engine.Progress{Strategy: "hi_res", Reason: "no text layer"}) // not a page: not sent
		return emit(element.Element{Type: element.Title, Text: doc.BaseName()})
	})
	var progress []string
	ctx := contract.WithProgress(context.Background(), func(page, pages int, stage string) {
		progress = append(progress, fmt.Sprint(page, "/", pages, " ", stage))
	})
	var got []element.Element
	err := f(ctx, contract.NewDocument("x/a.pdf", nil), host.Keys(), func(e element.Element) error { got = append(got, e); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if seen.Strategy != "hi_res" || fmt.Sprint(seen.Languages) != "[deu fra]" || !seen.IncludePageBreaks || seen.Extra.Get("vlm_dry_run") != "true" {
		t.Errorf("options seen %+v", seen)
	}
	if fmt.Sprint(progress) != "[2/3 ocr]" || len(got) != 1 || got[0].Text != "a.pdf" {
		t.Errorf("progress %v, elements %v", progress, got)
	}
}
