package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCorpusScript is corpus.sh's smoke run: the real CLI over a few documents (ok, empty,
// clear errors), then a stand-in CLI that crashes and hangs, each file classified as it
// should be, with the per-format table and the exit status.
func TestCorpusScript(t *testing.T) {
	if _, err := exec.LookPath("timeout"); err != nil {
		t.Skip("coreutils timeout not found")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "quarry")
	build := exec.Command("go", "build", "-o", bin, "../cmd/quarry")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	docs := filepath.Join(dir, "docs")
	os.MkdirAll(filepath.Join(docs, "sub"), 0o755)
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(docs, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "The quarterly report is ready.\n\nIt covers all three regions.\n")
	write("sub/table.csv", "a,b\n1,2\n")
	write("blank.txt", "   \n\n")
	write("empty.txt", "")
	write("report.pdf", "This is not a PDF at all.\n")
	out, code := runCorpus(t, "-q", bin, "-t", "60", "-o", filepath.Join(dir, "r1"), docs)
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"csv             1      1      0      0      0        0",
		"pdf             1      0      1      0      0        0",
		"txt             3      1      1      1      0        0",
		"all             5      2      2      1      0        0",
		"File does not appear to be a valid PDF",
		"File type inode/x-empty is not supported.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}

	// A stand-in CLI: crashes on crash.*, hangs on hang.*, panics on panic.*.
	fake := filepath.Join(dir, "fake-quarry")
	script := "#!/bin/sh\nfor a; do f=$a; done\ncase \"$f\" in\n" +
		"*crash*) kill -SEGV $$ ;;\n*hang*) sleep 30 ;;\n" +
		"*panic*) echo 'panic: runtime error: index out of range' >&2; echo 'goroutine 1 [running]:' >&2; exit 2 ;;\n" +
		"*) echo '[{\"type\":\"Title\",\"text\":\"x\"}]' ;;\nesac\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	os.MkdirAll(bad, 0o755)
	for _, n := range []string{"crash.docx", "hang.docx", "panic.xlsx", "fine.xlsx"} {
		os.WriteFile(filepath.Join(bad, n), []byte("x"), 0o644)
	}
	out, code = runCorpus(t, "-q", fake, "-t", "1", "-j", "2", "-o", filepath.Join(dir, "r2"), bad)
	if code != 1 {
		t.Errorf("exit %d with a crash and a timeout, want 1", code)
	}
	for _, want := range []string{
		"docx            2      0      0      0      1        1",
		"xlsx            2      1      0      0      1        0",
		"panic: runtime error",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func runCorpus(t *testing.T, args ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("./corpus.sh", args...)
	b, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(b), ee.ExitCode()
	} else if err != nil {
		t.Fatalf("corpus.sh: %v\n%s", err, b)
	}
	return string(b), 0
}
