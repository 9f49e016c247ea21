package local

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
)

// Each test is an attack by an API user who controls the connector config, or who can drop files
// into a root; each must fail to read or write outside the root.

func readAll(t *testing.T, src *Source) map[string]string {
	t.Helper()
	got := map[string]string{}
	ctx := context.Background()
	err := src.List(ctx, func(d connectors.Document) error {
		rc, err := src.Open(ctx, d)
		if err != nil {
			got[d.ID] = "ERR " + err.Error()
			return nil
		}
		b, _ := io.ReadAll(rc)
		rc.Close()
		got[d.ID] = string(b)
		return nil
	})
	if err != nil {
		got["(list)"] = "ERR " + err.Error()
	}
	return got
}

const secretText = "root:SECRET-HASH"

// outside is a directory next to the root holding a file the attacker wants.
func setup(t *testing.T) (root, outside string, env connectors.Env) {
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	os.MkdirAll(root, 0o755)
	os.MkdirAll(outside, 0o755)
	if err := os.WriteFile(filepath.Join(outside, "shadow"), []byte(secretText), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, outside, connectors.Env{LocalRoots: []string{root}}
}

func TestAttackPathOutsideRoot(t *testing.T) {
	_, outside, env := setup(t)
	for _, p := range []string{outside, "/etc", "../outside", "/", filepath.Join(env.LocalRoots[0], "..", "outside")} {
		if _, err := NewSource(map[string]any{"path": p, "glob": "shadow"}, env); err == nil {
			t.Errorf("source at %s accepted", p)
		} else if !strings.Contains(err.Error(), "--local-root") {
			// The operator is told the way out, not only the refusal.
			t.Errorf("source at %s: %v; want the --local-root flag named", p, err)
		}
		if _, err := NewDestination(map[string]any{"path": p}, env); err == nil {
			t.Errorf("destination at %s accepted", p)
		}
	}
}

func TestAttackSymlinkInPathReads(t *testing.T) {
	root, outside, env := setup(t)
	// ROOT/link → outside: the configured path goes through the link.
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	// ROOT/docs/file → outside/shadow: a link inside the listed directory.
	os.MkdirAll(filepath.Join(root, "docs"), 0o755)
	os.Symlink(filepath.Join(outside, "shadow"), filepath.Join(root, "docs", "shadow"))
	os.Symlink("../../outside", filepath.Join(root, "docs", "rel"))
	for _, p := range []string{filepath.Join(root, "link"), "link", "docs"} {
		src, err := NewSource(map[string]any{"path": p}, env)
		if err != nil {
			continue // refused up front: fine
		}
		for id, body := range readAll(t, src) {
			if strings.Contains(body, secretText) {
				t.Errorf("path %s: read %s outside the root", p, id)
			}
		}
		// Open with a forged id through the links.
		for _, id := range []string{"shadow", "rel/shadow", "../outside/shadow", "../../outside/shadow", filepath.Join(outside, "shadow")} {
			if rc, err := src.Open(context.Background(), connectors.Document{ID: id}); err == nil {
				b, _ := io.ReadAll(rc)
				rc.Close()
				if strings.Contains(string(b), secretText) {
					t.Errorf("path %s, id %s: read outside the root", p, id)
				}
			}
		}
	}
}

func TestAttackSymlinkWrites(t *testing.T) {
	root, outside, env := setup(t)
	os.Symlink(outside, filepath.Join(root, "link"))
	els := []element.Element{{Type: "Title", ID: "x", Text: "pwned"}}
	ctx := context.Background()
	// Through a link as the destination path.
	if dst, err := NewDestination(map[string]any{"path": "link"}, env); err == nil {
		dst.Check(ctx)
		dst.Write(ctx, connectors.Document{ID: "x"}, els)
	}
	// Through a link inside the destination, as a document's sub-directory.
	os.MkdirAll(filepath.Join(root, "out"), 0o755)
	os.Symlink(outside, filepath.Join(root, "out", "sub"))
	dst, err := NewDestination(map[string]any{"path": "out"}, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Write(ctx, connectors.Document{ID: "sub/evil"}, els); err == nil {
		t.Error("write through a symlinked sub-directory succeeded")
	}
	// A link planted at the target name: the rename replaces the link, never writes through it.
	os.Symlink(filepath.Join(outside, "shadow"), filepath.Join(root, "out", "victim.json"))
	if err := dst.Write(ctx, connectors.Document{ID: "victim"}, els); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(outside)
	for _, e := range entries {
		if e.Name() != "shadow" {
			t.Errorf("file %s written outside the root", e.Name())
		}
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "shadow")); string(b) != secretText {
		t.Errorf("file outside the root overwritten: %q", b)
	}
}

func TestAttackHardLinkRefused(t *testing.T) {
	root, outside, env := setup(t)
	if err := os.Link(filepath.Join(outside, "shadow"), filepath.Join(root, "shadow")); err != nil {
		t.Skipf("hard links unavailable: %v", err)
	}
	src, err := NewSource(map[string]any{"path": root}, env)
	if err != nil {
		t.Fatal(err)
	}
	for id, body := range readAll(t, src) {
		if strings.Contains(body, secretText) {
			t.Errorf("read %s through a hard link", id)
		}
	}
	if _, err := src.Open(context.Background(), connectors.Document{ID: "shadow"}); !errors.Is(err, ErrHardLink) {
		t.Errorf("Open of a hard link: %v, want ErrHardLink", err)
	}
}

func TestAttackFIFOIsNotOpened(t *testing.T) {
	root, _, env := setup(t)
	if err := mkfifo(filepath.Join(root, "pipe")); err != nil {
		t.Skip(err)
	}
	src, _ := NewSource(map[string]any{"path": root}, env)
	if _, err := src.Open(context.Background(), connectors.Document{ID: "pipe"}); err == nil {
		t.Error("FIFO opened")
	}
}

// A document's ID named another document's output: ".." was resolved inside the destination,
// so "DEV/11/../../OPS/21.html" replaced OPS/21.html.json. Dot segments are dropped now.
func TestAttackDocumentIDCannotNameAnotherOutput(t *testing.T) {
	root, _, env := setup(t)
	dst, err := NewDestination(map[string]any{"path": "out"}, env)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dst.Write(ctx, connectors.Document{ID: "OPS/21.html"}, []element.Element{{Type: element.NarrativeText, Text: "victim"}}); err != nil {
		t.Fatal(err)
	}
	if err := dst.Write(ctx, connectors.Document{ID: "DEV/11/../../OPS/21.html"}, []element.Element{{Type: element.NarrativeText, Text: "attacker"}}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "out", "OPS", "21.html.json"))
	if err != nil || strings.Contains(string(b), "attacker") {
		t.Fatalf("victim's output replaced: %s %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(root, "out", "DEV", "11", "OPS", "21.html.json")); err != nil {
		t.Errorf("attacker's output not kept under its own ID: %v", err)
	}
}
