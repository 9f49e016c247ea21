//go:build cgo

package ocr

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/host"
)

// The OCR plugin binary, run by the host out of process, gives the same elements as the
// strategies in process.
func TestPluginMatchesInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the plugin")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, host.Prefix+"ocr")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/quarry-plugin-ocr").CombinedOutput(); err != nil {
		t.Fatalf("build: %v %s", err, out)
	}
	if _, err := host.WriteChecksum(bin); err != nil {
		t.Fatal(err)
	}
	h := host.New(host.Config{Dirs: []string{dir}, Workers: 1, MemoryLimit: 2 << 30})
	defer h.Close()
	specs, err := h.Discover()
	if err != nil || len(specs) != 1 {
		t.Fatalf("discover: %v %v", specs, err)
	}
	p, err := h.Add(specs[0])
	if err != nil {
		t.Fatal(err)
	}
	d, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Strategies) != 2 || d.Strategies[0] != "hi_res" || d.Strategies[1] != "ocr_only" {
		t.Fatalf("strategies %v", d.Strategies)
	}
	o := New(Config{Workers: 1})
	defer o.Close()
	for _, c := range []struct{ doc, strategy string }{
		{"DA-1p.heic", "hi_res"}, {"table-multi-row-column-cells.png", "hi_res"}, {"loremipsum-flat.pdf", "ocr_only"},
	} {
		data, err := os.ReadFile(filepath.Join(refDir, "docs", c.doc))
		if err != nil {
			t.Fatal(err)
		}
		var outs [2][]byte
		for i, part := range []engine.Partitioner{engine.FromContract(contract.Func(o.HiRes)), p.Partitioner(c.strategy)} {
			if c.strategy == "ocr_only" && i == 0 {
				part = engine.FromContract(contract.Func(o.OCROnly))
			}
			doc := engine.NewDocument(c.doc, data)
			doc.MIMEType = engine.Detect(doc, "").MIME
			opts := engine.DefaultOptions()
			opts.Strategy = c.strategy
			var els []element.Element
			if err := part.Partition(context.Background(), doc, &opts, func(e element.Element) error { els = append(els, e); return nil }); err != nil {
				t.Fatalf("%s (%d): %v", c.doc, i, err)
			}
			outs[i] = element.MarshalList(els)
		}
		if !bytes.Equal(outs[0], outs[1]) {
			t.Errorf("%s: plugin and in-process outputs differ:\n%s\n%s", c.doc, outs[0], outs[1])
		}
	}
}
