package layout

import (
	"os"
	"testing"
)

func TestScratchFile(t *testing.T) {
	f := os.Getenv("SCRATCH_PDF")
	if f == "" {
		t.Skip()
	}
	for _, e := range layoutFile(t, f, Options{}) {
		c := e.Metadata.Coordinates.Points
		t.Logf("p%d %s [%.0f %.0f %.0f %.0f] %q", *e.Metadata.PageNumber, e.Type, c[0][0], c[0][1], c[2][0], c[2][1], e.Text)
	}
}
