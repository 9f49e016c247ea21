package server

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSpool: an upload up to spoolMemory stays in memory; a larger one is a temporary file
// that reads back byte for byte and is gone after close; a reader over the limit is refused.
func TestSpool(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	small := bytes.Repeat([]byte("a"), spoolMemory)
	s, err := newSpool(bytes.NewReader(small), 0, nil)
	if err != nil || s.file != nil || !bytes.Equal(s.data, small) || s.size != spoolMemory {
		t.Fatalf("small: file %v, %d bytes, err %v", s.file != nil, s.size, err)
	}
	large := make([]byte, 3*spoolMemory+7)
	for i := range large {
		large[i] = byte(i * 7)
	}
	s, err = newSpool(bytes.NewReader(large), 0, nil)
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
		if _, err := newSpool(bytes.NewReader(make([]byte, size+1)), int64(size), nil); err != errTooLarge {
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
	// Files only, at any depth: a server's (empty) upload directory stays until it stops.
	var names []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			names = append(names, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// TestSpoolDir: a server's upload files are in a directory of its own under $TMPDIR whose name
// holds the process's PID, made at the first spill and removed with what is left in it.
func TestSpoolDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var d spoolDir
	s, err := newSpool(bytes.NewReader(make([]byte, 2*spoolMemory)), 0, &d)
	if err != nil || s.file == nil {
		t.Fatalf("err %v, file %v", err, s != nil && s.file != nil)
	}
	defer s.close()
	dir := filepath.Dir(s.file.Name())
	m := spoolDirName.FindStringSubmatch(filepath.Base(dir))
	if filepath.Dir(dir) != tmp || m == nil || m[1] != strconv.Itoa(os.Getpid()) {
		t.Fatalf("upload file %s, want it in %s/quarry-uploads-%d-N", s.file.Name(), tmp, os.Getpid())
	}
	d.remove()
	if left := tempFiles(t, tmp); len(left) != 0 {
		t.Errorf("left after remove: %v", left)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Errorf("%s still there: %v", dir, err)
	}
}

// TestSweepSpools: a starting server removes the upload directories of dead servers and
// nothing else: not a live process's, not its own, not a symbolic link named like one (nor
// what it points to), not a plain file or a name not quite ours.
func TestSweepSpools(t *testing.T) {
	base, outside := t.TempDir(), t.TempDir()
	// A PID that was just used and is gone.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	dead := strconv.Itoa(cmd.Process.Pid)
	if processAlive(cmd.Process.Pid) {
		t.Skip("PID reused at once")
	}
	mk := func(name string) string {
		p := filepath.Join(base, name)
		if err := os.MkdirAll(p, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(p, "upload-1"), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gone := mk("quarry-uploads-" + dead + "-123")
	// A dead server's directory holding a link out: the link goes, its target stays.
	if err := os.WriteFile(filepath.Join(outside, "keep"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(gone, "link")); err != nil {
		t.Fatal(err)
	}
	kept := []string{
		mk("quarry-uploads-" + strconv.Itoa(os.Getpid()) + "-1"),  // ours
		mk("quarry-uploads-" + strconv.Itoa(os.Getppid()) + "-2"), // alive
		mk("quarry-uploads-" + dead + "-x"),                       // not our pattern
		mk("quarry-uploads-" + dead),                              // nor this
		mk("other-" + dead + "-3"),
	}
	link := filepath.Join(base, "quarry-uploads-"+dead+"-4")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(base, "quarry-uploads-"+dead+"-5")
	if err := os.WriteFile(plain, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	sweepSpools(base, slog.New(slog.DiscardHandler))
	if _, err := os.Lstat(gone); !os.IsNotExist(err) {
		t.Errorf("dead server's directory not removed: %v", err)
	}
	for _, p := range append(kept, link, plain, filepath.Join(outside, "keep")) {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
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
