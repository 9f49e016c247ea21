package jobs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
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

// Every on-demand job may upload 1 GiB, kept on disk until the job ends: a client starting
// jobs faster than workers finish them filled the disk. The bytes waiting are capped, all jobs
// together; past the cap RunUploads refuses (the API answers 503 with Retry-After).
func TestAttackPendingUploadsAreBounded(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "")
	uploads := t.TempDir()
	r, err := New(ctx, Config{Store: e.st, Secrets: e.box, Workers: -1, Env: testEnv, UploadDir: uploads, MaxPendingUploadBytes: 1000})
	if err != nil {
		t.Fatal(err)
	}
	up := func(n int) []Upload {
		return []Upload{{Filename: "a.txt", Open: func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(bytes.Repeat([]byte("x"), n))), nil
		}}}
	}
	wf := func() *store.Workflow {
		return &store.Workflow{ID: uuid.NewString(), Name: "on demand", Nodes: []store.Node{partitionNode}}
	}
	if _, err := r.RunUploads(ctx, wf(), "ephemeral", up(600)); err != nil {
		t.Fatal(err)
	}
	// No worker runs: the first job's 600 bytes wait. 600 more would pass the cap.
	if _, err := r.RunUploads(ctx, wf(), "ephemeral", up(600)); !errors.Is(err, ErrUploadsFull) {
		t.Fatalf("600 + 600 bytes under a 1000-byte cap: %v", err)
	}
	entries, _ := os.ReadDir(uploads)
	if len(entries) != 1 {
		t.Errorf("the refused job left its uploads: %d job directories", len(entries))
	}
	if _, err := r.RunUploads(ctx, wf(), "ephemeral", up(300)); err != nil {
		t.Fatalf("300 more bytes: %v", err)
	}
	if _, err := r.RunUploads(ctx, wf(), "ephemeral", up(200)); !errors.Is(err, ErrUploadsFull) {
		t.Fatalf("cap already used up: %v", err)
	}
}
