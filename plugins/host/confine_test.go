package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/internal/childproc"
)

// A plugin taken over by a hostile document runs as the server's user: unconfined, it (and
// any converter it runs) reads the data directory's secret key and another request's upload,
// and plants files there. Confined (the default where the kernel has Landlock) it reads none
// of them and plants nothing, while its own document — a spooled upload passed by path —
// still reaches it, hard-linked into its own temporary directory.
func TestAttackPluginCannotReadOutside(t *testing.T) {
	if childproc.LandlockABI() == 0 {
		t.Skip(childproc.ErrNoLandlock)
	}
	base := t.TempDir()
	data, other, req := filepath.Join(base, "data"), filepath.Join(base, "other"), filepath.Join(base, "request")
	for _, d := range []string{data, other, req} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	secret, upload := filepath.Join(data, "secret.key"), filepath.Join(other, "upload.docx")
	os.WriteFile(secret, []byte("TOPSECRET"), 0o600)
	os.WriteFile(upload, []byte("OTHERS"), 0o600)
	docPath := filepath.Join(req, "spooled")
	if err := os.WriteFile(docPath, []byte(secret+"\n"+upload+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, unconfined := range []bool{true, false} {
		t.Run(map[bool]string{true: "unconfined", false: "confined"}[unconfined], func(t *testing.T) { steal(t, unconfined, docPath, secret, upload) })
	}
	// A file outside the temporary directory (a user's own document given to quarry
	// partition) is not linked, which would let the plugin write to it: its bytes are sent.
	t.Run("confined, own file", func(t *testing.T) {
		t.Setenv("TMPDIR", filepath.Join(base, "tmp"))
		os.Mkdir(filepath.Join(base, "tmp"), 0o700)
		steal(t, false, docPath, secret, upload)
	})
	if entries, _ := os.ReadDir(req); len(entries) != 1 {
		t.Errorf("request directory holds %d files, want the document alone", len(entries))
	}
}

func steal(t *testing.T, unconfined bool, docPath, secret, upload string) {
	{
		f, err := os.Open(docPath)
		if err != nil {
			t.Fatal(err)
		}
		fi, _ := f.Stat()
		doc := &engine.Document{Filename: "evil.txt", MIMEType: "text/plain", Content: f, Size: fi.Size()}
		h := newHost(t, Config{Workers: 1, Unconfined: unconfined})
		got, err := run(t, h, "steal", doc)
		f.Close()
		if err != nil {
			t.Fatalf("unconfined=%v: %v", unconfined, err)
		}
		linked := unconfined || strings.HasPrefix(docPath, os.TempDir())
		if want := map[bool]int{true: 3, false: 2}[linked]; len(got) != want {
			t.Fatalf("unconfined=%v: %d elements, want %d: %v", unconfined, len(got), want, got)
		}
		for i, want := range []string{secret + " read:TOPSECRET cat:TOPSECRET planted", upload + " read:OTHERS cat:OTHERS planted"} {
			if !unconfined {
				want = strings.Fields(want)[0] + " "
			}
			if got[i].Text != want {
				t.Errorf("unconfined=%v: %q, want %q", unconfined, got[i].Text, want)
			}
		}
		// Confined, the plugin reads its document through a link in its own directory, not
		// by the host's path.
		if linked {
			if name := strings.TrimPrefix(got[2].Text, "document file "); unconfined != (name == docPath) {
				t.Errorf("unconfined=%v: plugin read its document as %q", unconfined, name)
			}
		}
		os.Remove(secret + ".planted")
		os.Remove(upload + ".planted")
	}
}
