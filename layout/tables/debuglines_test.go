package tables

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/pdf"
)

// TestDumpLines prints the text lines and phrases the alignment pass sees on the page named
// by TABLES_LINES (file:page, e.g. testdata/icdar2013-eu/eu-001.pdf:1); it does nothing
// otherwise.
func TestDumpLines(t *testing.T) {
	spec := os.Getenv("TABLES_LINES")
	if spec == "" {
		t.Skip("TABLES_LINES not set")
	}
	file, pg, _ := strings.Cut(spec, ":")
	n, _ := strconv.Atoi(pg)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	p, err := doc.Page(ctx, n, pdf.DefaultLAParams())
	if err != nil {
		t.Fatal(err)
	}
	var gs []Glyph
	for _, g := range p.Glyphs {
		gs = append(gs, Glyph{Text: g.Text, Box: Rect{g.X0, g.Y0, g.X1, g.Y1}, Size: g.Size, Upright: g.Upright, Bold: strings.Contains(strings.ToLower(g.Font), "bold")})
	}
	ws := Words(gs)
	idx := make([]int, len(ws))
	for i := range idx {
		idx[i] = i
	}
	fmt.Printf("body %.1f\n", bodySize(ws))
	for _, l := range groupLines(idx, ws) {
		var parts []string
		for _, ph := range phrasesOf(l, ws) {
			var s []string
			for _, w := range l.words[ph[0]:ph[1]] {
				s = append(s, ws[w].Text)
			}
			b := ws[l.words[ph[0]]].Box
			parts = append(parts, fmt.Sprintf("[%.0f-%.0f %s]", b.X0, ws[l.words[ph[1]-1]].Box.X1, strings.Join(s, " ")))
		}
		fmt.Printf("y %.1f-%.1f sz %.1f: %s\n", l.box.Y0, l.box.Y1, l.size, strings.Join(parts, " "))
	}
}
