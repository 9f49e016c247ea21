package layout

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/pdf"
)

// Every PDF the repository holds as a fixture (damaged, encrypted, hand-made oddities, the
// reference corpus) lays out without an error or a panic on every page the reader reads.
func TestLayoutOnEveryFixture(t *testing.T) {
	var files []string
	for _, pat := range []string{"../pdf/testdata/*/*.pdf", "../pdf/testdata/*.pdf", "../testdata/reference/docs/*.pdf", "tables/testdata/*/*.pdf"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("only %d fixtures found", len(files))
	}
	ctx := context.Background()
	pages := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		d, err := pdf.Open(ctx, bytes.NewReader(data), int64(len(data)))
		if err != nil {
			continue // unreadable or encrypted: the precheck's business
		}
		doc := New(Options{TableHTML: true})
		for n := 1; n <= d.NumPages() && n <= 30; n++ {
			p, err := d.Page(ctx, n, Params(pdf.DefaultLAParams()))
			if err != nil {
				continue
			}
			Usable(p)
			if err := doc.Add(ctx, p); err != nil {
				t.Errorf("%s page %d: %v", f, n, err)
			}
			doc.Ready()
			pages++
		}
		doc.Finish()
	}
	t.Logf("%d files, %d pages laid out", len(files), pages)
}
