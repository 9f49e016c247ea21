package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/engine"
)

func TestDecisionLine(t *testing.T) {
	cases := []struct {
		req  string
		ev   engine.Progress
		want string
	}{
		{"auto", engine.Progress{Strategy: "ocr_only", Pages: []int{3, 7}, Reason: "no text layer"}, "auto → ocr_only for pages 3, 7: no text layer"},
		{"", engine.Progress{Strategy: "fast", Reason: "the PDF has a text layer"}, "auto → fast: the PDF has a text layer"},
		{"hi_res", engine.Progress{Strategy: "hi_res", Reason: "as asked"}, "strategy hi_res: as asked"},
		{"auto", engine.Progress{Strategy: "ocr_only", Pages: []int{2}}, "auto → ocr_only for page 2"},
	}
	for _, c := range cases {
		if got := decision(c.req, c.ev); got != c.want {
			t.Errorf("decision(%q, %+v) = %q, want %q", c.req, c.ev, got, c.want)
		}
	}
}

// The status line shows documents done, the page, the rate and the time left; it is drawn only
// when live, and cleared before other lines and at the end.
func TestStatusLine(t *testing.T) {
	var buf bytes.Buffer
	p := newProgress(&buf, false, false, 3)
	p.live = true // as on a terminal, without the ticker
	now := time.Unix(1000, 0)
	p.now = func() time.Time { return now }
	task := p.start("big.pdf")
	now = now.Add(2 * time.Second)
	p.report(task, "auto", engine.Progress{Page: 4, Total: 10, Stage: "fast"})
	if got, want := buf.String(), "[0/3] big.pdf: page 4 of 10, 2.0 pages/s, about 3s left"; got != want {
		t.Errorf("status %q, want %q", got, want)
	}
	buf.Reset()
	p.println("quarry: other.pdf: broken")
	if got := buf.String(); !strings.HasPrefix(got, "\r\033[Kquarry: other.pdf: broken\n[0/3] big.pdf") {
		t.Errorf("println did not clear and redraw: %q", got)
	}
	buf.Reset()
	p.finish(task)
	p.stop()
	if got := buf.String(); got != "\r\033[K" {
		t.Errorf("finish left %q", got)
	}
	// Not a terminal: nothing but the strategy lines.
	buf.Reset()
	p = newProgress(&buf, false, false, 1)
	task = p.start("a.pdf")
	p.report(task, "auto", engine.Progress{Strategy: "fast", Reason: "the PDF has a text layer"})
	p.report(task, "auto", engine.Progress{Page: 1, Total: 2})
	p.finish(task)
	p.stop()
	if got := buf.String(); got != "a.pdf: auto → fast: the PDF has a text layer\n" {
		t.Errorf("not a terminal: %q", got)
	}
	// Quiet: nothing at all.
	buf.Reset()
	p = newProgress(&buf, false, true, 1)
	task = p.start("a.pdf")
	p.report(task, "auto", engine.Progress{Strategy: "fast"})
	p.finish(task)
	p.summary(1, 0, 1, nil, false, "")
	if buf.Len() != 0 {
		t.Errorf("quiet wrote %q", buf.String())
	}
}
