package layout

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// disc draws a filled circle of radius r centred on (cx, cy) from four Bézier curves, as
// Chromium paints a list's disc marker ("f"), or its circle marker stroked ("S").
func disc(cx, cy, r float64, paint string) string {
	k := 0.5523 * r
	return fmt.Sprintf("%g %g m %g %g %g %g %g %g c %g %g %g %g %g %g c %g %g %g %g %g %g c %g %g %g %g %g %g c %s\n",
		cx+r, cy,
		cx+r, cy+k, cx+k, cy+r, cx, cy+r,
		cx-k, cy+r, cx-r, cy+k, cx-r, cy,
		cx-r, cy-k, cx-k, cy-r, cx, cy-r,
		cx+k, cy-r, cx+r, cy-k, cx+r, cy, paint)
}

// A list whose bullets are drawn as shapes (Chromium's discs, circles and squares) has no
// bullet in its text: each of its one-line items is still a block of its own, where the same
// lines without the shapes read as one paragraph.
func TestDrawnBulletsStartItems(t *testing.T) {
	items := []string{"Consolidate teams on one floor where possible.", "Prefer open plan for small teams.", "Review leases annually.", "Share facilities with neighbours."}
	xs := []float64{86, 104, 86, 86}
	var text, marks strings.Builder
	for i, it := range items {
		y := 700 - 14*float64(i)
		text.WriteString(pdftest.Text("F1", 10, xs[i], y, it))
		switch i {
		case 1:
			marks.WriteString(disc(xs[i]-8, y+3.5, 1.8, "S"))
		case 3:
			fmt.Fprintf(&marks, "%g %g 3.4 3.4 re f\n", xs[i]-9.7, y+1.8)
		default:
			marks.WriteString(disc(xs[i]-8, y+3.5, 1.8, "f"))
		}
	}
	head := paragraph(72, 740, "The recommendations of the survey follow, one per line, with a nested item.")
	with := texts(layoutBytes(t, docOf(head+marks.String()+text.String()).Bytes()))
	for _, it := range items {
		found := false
		for _, e := range with {
			if e == "NarrativeText: "+it {
				found = true
			}
		}
		if !found {
			t.Errorf("item %q not a block of its own: %q", it, with)
		}
	}
	without := texts(layoutBytes(t, docOf(head+text.String()).Bytes()))
	if len(without) >= len(with) {
		t.Errorf("without the drawn bullets %d blocks, with them %d: the fixture no longer tells them apart", len(without), len(with))
	}
}

// Chromium's print to PDF of an HTML list (testdata/chromium-list.html, gen in its comment):
// its disc and circle markers are paths; each item is an element of its own.
func TestChromiumListItems(t *testing.T) {
	data, err := os.ReadFile("testdata/chromium-list.pdf")
	if err != nil {
		t.Fatal(err)
	}
	got := texts(layoutBytes(t, data))
	want := []string{"Consolidate teams on one floor where possible.", "Prefer open plan for teams under ten people.", "Use meeting rooms for larger groups.", "Review leases annually.", "Share facilities with neighbouring firms.", "Check the fire exits."}
	have := map[string]bool{}
	for _, e := range got {
		// Chromium's ToUnicode keeps the font's ligatures (ﬁ, ﬂ), as the reference's text does.
		have[strings.NewReplacer("ﬁ", "fi", "ﬂ", "fl").Replace(strings.TrimPrefix(e, "NarrativeText: "))] = true
	}
	for _, w := range want {
		if !have[w] {
			t.Errorf("item %q not an element of its own: %q", w, got)
		}
	}
}
