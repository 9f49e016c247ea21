package server

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpool: an upload up to spoolMemory stays in memory; a larger one is a temporary file
// that reads back byte for byte and is gone after close; a reader over the limit is refused.
func TestSpool(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	small := bytes.Repeat([]byte("a"), spoolMemory)
	s, err := newSpool(bytes.NewReader(small), 0)
	if err != nil || s.file != nil || !bytes.Equal(s.data, small) || s.size != spoolMemory {
		t.Fatalf("small: file %v, %d bytes, err %v", s.file != nil, s.size, err)
	}
	large := make([]byte, 3*spoolMemory+7)
	for i := range large {
		large[i] = byte(i * 7)
	}
	s, err = newSpool(bytes.NewReader(large), 0)
	if err != nil || s.file == nil || s.data != nil {
		t.Fatalf("large: err %v, in memory %v", err, s.data != nil)
	}
	r, n := s.content()
	got, err := io.ReadAll(io.NewSectionReader(r, 0, n))
	if err != nil || !bytes.Equal(got, large) {
		t.Fatalf("large read back: %d bytes of %d, err %v", len(got), len(large), err)
	}
	s.close()
	if left := tempFiles(t, tmp); len(left) != 0 {
		t.Errorf("left after close: %v", left)
	}
	for _, size := range []int{100, 3 * spoolMemory} {
		if _, err := newSpool(bytes.NewReader(make([]byte, size+1)), int64(size)); err != errTooLarge {
			t.Errorf("%d bytes over a limit of %d: err %v, want errTooLarge", size+1, size, err)
		}
	}
	if left := tempFiles(t, tmp); len(left) != 0 {
		t.Errorf("left after refusals: %v", left)
	}
}

// TestLargeUploadSpooled: uploads over spoolMemory (a plain one, and a small gzip that expands
// past it) are partitioned from their temporary files like any other, and no file outlives
// the request, whether it succeeds or the body or the decompressed data is over the limit.
func TestLargeUploadSpooled(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var doc bytes.Buffer
	paras := 0
	for doc.Len() <= 2*spoolMemory {
		paras++
		fmt.Fprintf(&doc, "Paragraph %d of a long plain-text upload says enough words to be narrative text here.\n\n", paras)
	}
	srv := New(Config{MaxBodyBytes: 8 * spoolMemory})
	for _, c := range []struct {
		name string
		p    part
	}{
		{"plain", file("long.txt", doc.Bytes(), "text/plain")},
		{"gzip", file("long.txt.gz", gz(doc.Bytes()), "application/gzip")},
	} {
		rec := post(t, srv, nil, c.p, field("strategy", "fast"))
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %.300s", c.name, rec.Code, rec.Body)
		}
		elems := decodeElems(t, rec.Body.Bytes())
		if len(elems) != paras || !strings.HasPrefix(elems[paras-1].Text, fmt.Sprintf("Paragraph %d ", paras)) {
			t.Errorf("%s: %d elements, want %d, the last one the last paragraph", c.name, len(elems), paras)
		}
		if left := tempFiles(t, tmp); len(left) != 0 {
			t.Errorf("%s: left after the request: %v", c.name, left)
		}
	}

	bomb := gz(bytes.Repeat([]byte("x"), 9*spoolMemory))
	rec := post(t, srv, nil, file("bomb.txt.gz", bomb, "application/gzip"))
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("gzip expanding past the limit: %d %.200s", rec.Code, rec.Body)
	}
	over := New(Config{MaxBodyBytes: 3 * spoolMemory})
	rec = post(t, over, nil, file("long.txt", doc.Bytes(), "text/plain"), file("again.txt", doc.Bytes(), "text/plain"))
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("body over the limit in the second upload: %d %.200s", rec.Code, rec.Body)
	}
	if left := tempFiles(t, tmp); len(left) != 0 {
		t.Errorf("left after refused requests: %v", left)
	}
}

// tempFiles lists dir.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

// TestUploadNotStored: when the temporary file cannot be made (TMPDIR missing, a full disk)
// a large upload is the server's failure, a 500 saying so, not the client's 400; an upload
// small enough to stay in memory is still served.
func TestUploadNotStored(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	srv := New(Config{})
	rec := post(t, srv, nil, file("big.txt", bytes.Repeat([]byte("word "), spoolMemory), "text/plain"))
	if rec.Code != http.StatusInternalServerError || !strings.Contains(rec.Body.String(), "could not be stored") {
		t.Errorf("large upload: %d %.200s", rec.Code, rec.Body)
	}
	rec = post(t, srv, nil, file("small.txt", textDoc, "text/plain"), field("strategy", "fast"))
	if rec.Code != http.StatusOK {
		t.Errorf("small upload: %d %.200s", rec.Code, rec.Body)
	}
}
