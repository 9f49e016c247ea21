package jobs

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/platform/store"
)

// A chunk node with a tiny max_characters multiplies a document: every chunk of a split
// element carries the whole element in orig_elements. A worker once encoded that for the
// destination and again for the stored output without bound (and quadratically); the chunks
// now count against the element cap and the encoded elements against MaxOutputBytes.
func TestAttackChunkExplosionInJob(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "")
	r, err := New(ctx, Config{Store: e.st, Secrets: e.box, Workers: 2, Heartbeat: 100 * time.Millisecond, Lease: e.lease,
		InProcess: true, PollInterval: 100 * time.Millisecond, Env: testEnv, MaxElements: 5000, MaxOutputBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.Stop(sctx)
	})
	in, out := t.TempDir(), t.TempDir()
	// 180 KB in one paragraph: 180,000 chunks of one character.
	os.WriteFile(filepath.Join(in, "huge.txt"), bytes.Repeat([]byte("abcdefgh "), 20_000), 0o644)
	// 12 KB of poorly compressible words: 4,000 chunks, each with the 12 KB in orig_elements.
	var words []byte
	for i := 0; len(words) < 12_000; i++ {
		words = fmt.Appendf(words, "w%x ", i*2654435761%1000003)
	}
	os.WriteFile(filepath.Join(in, "wide.txt"), words, 0o644)
	src := e.connector(store.RoleSource, "local", map[string]any{"path": in})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
	for _, c := range []struct {
		max  float64
		want map[string]string
	}{
		{1, map[string]string{"huge.txt": "more than 5000 chunks"}},
		{3, map[string]string{"wide.txt": "larger than 1048576 bytes"}},
	} {
		chunk := store.Node{ID: uuid.NewString(), Name: "Chunker", Type: "chunk", Subtype: "chunk_by_character", Settings: map[string]any{"max_characters": c.max}}
		w := e.workflow(src, dst, true, partitionNode, chunk)
		j, err := r.Run(ctx, w, "ephemeral")
		if err != nil {
			t.Fatal(err)
		}
		e.wait(j.ID, 60*time.Second)
		failed, _ := e.st.ListFiles(ctx, j.ID, store.FileFailed)
		got := map[string]string{}
		for _, f := range failed {
			got[f.DocID] = *f.Error
		}
		for doc, msg := range c.want {
			if !strings.Contains(got[doc], msg) {
				t.Errorf("max_characters=%v: %s failed with %q, want %q", c.max, doc, got[doc], msg)
			}
			if _, err := os.Stat(filepath.Join(out, doc+".json")); err == nil {
				t.Errorf("max_characters=%v: %s was written to the destination", c.max, doc)
			}
		}
	}
}
