package auto

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/quarrydocs/quarry/engine"
)

// wholeReads is a document's content that counts the reads covering all of it: the PDF reader
// takes the file whole, once per parse.
type wholeReads struct {
	r     *bytes.Reader
	whole atomic.Int32
}

func (c *wholeReads) ReadAt(p []byte, off int64) (int, error) {
	if off == 0 && int64(len(p)) >= c.r.Size() {
		c.whole.Add(1)
	}
	return c.r.ReadAt(p, off)
}

// TestOneParsePerRequest (issue 15, point 5): whatever the strategy — the API defaults (auto,
// table inference on), hi_res, fast — the precheck, auto's per-page decision and the strategy
// share one parse of the PDF: the file is read whole once per request, in process.
func TestOneParsePerRequest(t *testing.T) {
	for _, name := range []string{"layout-parser-paper-fast.pdf", "multi-column-2p.pdf"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "reference", "docs", name))
		if err != nil {
			t.Fatal(err)
		}
		for _, strategy := range []string{"", "auto", "hi_res", "fast"} {
			content := &wholeReads{r: bytes.NewReader(data)}
			doc := &engine.Document{Filename: name, Content: content, Size: int64(len(data))}
			opts := engine.DefaultOptions()
			if strategy != "" {
				opts.Strategy = strategy
			}
			els, err := engine.Partition(context.Background(), doc, opts)
			if err != nil || len(els) == 0 {
				t.Fatalf("%s, strategy %q: %d elements, err %v", name, strategy, len(els), err)
			}
			if n := content.whole.Load(); n != 1 {
				t.Errorf("%s, strategy %q: the file was read whole %d times, want once", name, strategy, n)
			}
		}
	}
}
