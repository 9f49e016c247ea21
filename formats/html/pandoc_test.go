package html

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

func TestPandocMissing(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := FromPandoc(context.Background(), []byte("x"), "rst")
	if err == nil || !strings.Contains(err.Error(), "pandoc is required") {
		t.Errorf("err = %v", err)
	}
}

// A converter that hangs is killed when the context ends, with no stray process left.
func TestPandocHangs(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho $$ > " + filepath.Join(dir, "pid") + "\nexec sleep 60\n"
	if err := os.WriteFile(filepath.Join(dir, "pandoc"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := FromPandoc(ctx, []byte("x"), "rst")
	if err == nil {
		t.Fatal("no error")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
	pid, _ := os.ReadFile(filepath.Join(dir, "pid"))
	if p := strings.TrimSpace(string(pid)); p != "" {
		if exec.Command("kill", "-0", p).Run() == nil {
			t.Errorf("process %s still running", p)
		}
	}
}

func TestPandocConvert(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed")
	}
	doc := engine.NewDocument("x.rst", []byte("Title\n=====\n\nA paragraph that explains what the tool does.\n\n.. include:: /etc/passwd\n"))
	var got []element.Element
	err := PartitionPandoc(context.Background(), doc, nil, "rst", true, func(e element.Element) error {
		got = append(got, e)
		return nil
	})
	// The sandbox refuses the include: either an error or no file content in the output.
	for _, e := range got {
		if strings.Contains(e.Text, "root:") {
			t.Fatalf("include read a host file: %q", e.Text)
		}
	}
	if err == nil && (len(got) < 2 || got[0].Type != element.Title) {
		t.Errorf("got %+v", got)
	}
}

// TestPandocFailureOneLine: a document pandoc rejects (truncated RTF) fails with one line that
// holds pandoc's whole reason.
func TestPandocFailureOneLine(t *testing.T) {
	if _, err := exec.LookPath("pandoc"); err != nil {
		t.Skip("pandoc not installed")
	}
	_, err := FromPandoc(context.Background(), []byte(`{\rtf1 {\fonttbl`), "rtf")
	if err == nil {
		t.Fatal("truncated RTF accepted")
	}
	if msg := err.Error(); strings.Contains(msg, "\n") || !strings.Contains(msg, "unexpected end of input") {
		t.Errorf("error %q", msg)
	}
	if got := pandocMessage("[WARNING] Could not convert TeX math\nError at (line 3, column 1):\nunexpected end of input\n"); got != "Error at (line 3, column 1): unexpected end of input" {
		t.Errorf("pandocMessage = %q", got)
	}
}
