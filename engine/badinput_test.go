package engine_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
)

func partition(t *testing.T, name string, data []byte, form map[string][]string) ([]element.Element, error) {
	t.Helper()
	opts, err := partitionapi.OptionsFromForm(form)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return engine.Partition(ctx, engine.NewDocument(name, data), opts)
}

func wantError(t *testing.T, err error, kind engine.Kind, msg string) {
	t.Helper()
	var e *engine.Error
	if !errors.As(err, &e) {
		t.Fatalf("want *engine.Error %q, got %v", msg, err)
	}
	if e.Kind != kind || e.Msg != msg {
		t.Errorf("got kind %d %q, want kind %d %q", e.Kind, e.Msg, kind, msg)
	}
}

func TestUnsupportedInputs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	random := make([]byte, 4096)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	random[0] = 0 // not text
	_, err := partition(t, "blob.bin", random, nil)
	wantError(t, err, engine.KindUnsupported, "File type application/octet-stream is not supported.")

	_, err = partition(t, "empty", nil, nil)
	wantError(t, err, engine.KindUnsupported, "File type inode/x-empty is not supported.")

	_, err = partition(t, "archive.zip", zipWith(t, map[string]string{"a.txt": "x"}), nil)
	wantError(t, err, engine.KindUnsupported, "File type application/zip is not supported.")

	// With a usable text hint an empty upload is an empty result, as the reference answers.
	elems, err := partition(t, "empty.txt", nil, map[string][]string{"content_type": {"text/plain"}})
	if err != nil || len(elems) != 0 {
		t.Errorf("empty text/plain: %v, %d elements", err, len(elems))
	}
}

func TestEncodingErrors(t *testing.T) {
	_, err := partition(t, "a.txt", []byte("caf\xe9 au lait"), map[string][]string{"encoding": {"utf-8"}})
	if err == nil || !strings.Contains(err.Error(), "'utf-8' codec can't decode byte 0xe9 in position 3") {
		t.Errorf("invalid UTF-8 under a declared utf-8: %v", err)
	}
	_, err = partition(t, "a.txt", []byte("hello"), map[string][]string{"encoding": {"not_an_encoding"}})
	if err == nil || err.Error() != "unknown encoding: not_an_encoding" {
		t.Errorf("unknown encoding: %v", err)
	}
	elems, err := partition(t, "a.txt", []byte("caf\xe9 au lait is served here every morning."), map[string][]string{"encoding": {"cp1252"}})
	if err != nil || len(elems) != 1 || elems[0].Text != "café au lait is served here every morning." {
		t.Errorf("cp1252: %v %v", err, elems)
	}
}

func TestDeeplyNestedHTML(t *testing.T) {
	const depth = 100_000
	html := strings.Repeat("<div>", depth) + "<p>deep text at the bottom of the document</p>" + strings.Repeat("</div>", depth)
	start := time.Now()
	elems, err := partition(t, "deep.html", []byte(html), nil)
	if err == nil && len(elems) == 0 {
		t.Error("deep HTML gave neither elements nor an error")
	}
	if d := time.Since(start); d > time.Minute {
		t.Errorf("deep HTML took %v", d)
	}
}

func TestBillionLaughsXML(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">`)
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, `<!ENTITY lol%d "%s">`, i, strings.Repeat(fmt.Sprintf("&lol%d;", i-1), 10))
	}
	b.WriteString(`]><lolz><a>&lol9;</a><b>Plain text survives</b></lolz>`)
	elems, err := partition(t, "lol.xml", []byte(strings.Replace(b.String(), "&lol0;", "&lol;", -1)), nil)
	if err != nil {
		t.Fatalf("billion laughs: %v", err)
	}
	total := 0
	for _, e := range elems {
		total += len(e.Text)
	}
	if total > 1000 {
		t.Errorf("entities were expanded: %d bytes of text", total)
	}
}

// A 100 MB text file is streamed: elements flow out while memory stays far below the file size.
func TestLargeTextStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	path := filepath.Join(t.TempDir(), "big.txt")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	size := 0
	for i := 0; size < 100<<20; i++ {
		n, _ := fmt.Fprintf(w, "Line %d of a very large document is written here so that it has a verb.\n", i)
		size += n
	}
	w.Flush()
	f.Close()
	in, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	st, _ := in.Stat()

	runtime.GC()
	var peak atomic.Uint64
	done := make(chan struct{})
	go func() {
		var ms runtime.MemStats
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				runtime.ReadMemStats(&ms)
				if ms.HeapInuse > peak.Load() {
					peak.Store(ms.HeapInuse)
				}
			}
		}
	}()
	count := 0
	err = engine.PartitionStream(context.Background(), &engine.Document{Filename: path, Content: in, Size: st.Size()},
		engine.DefaultOptions(), func(e element.Element) error { count++; return nil })
	close(done)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("100 MB text: %d elements, peak heap in use %d MB", count, peak.Load()>>20)
	if count < 1_000_000 {
		t.Errorf("only %d elements", count)
	}
	if peak.Load() > 500<<20 {
		t.Errorf("peak heap %d MB exceeds 500 MB", peak.Load()>>20)
	}
}
