package local

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
)

func write(t *testing.T, root, rel, body string) {
	t.Helper()
	p := filepath.Join(root, rel)
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		config map[string]any
		fields []string
	}{
		{map[string]any{"path": "/srv/docs"}, nil},
		{map[string]any{"path": "reports"}, nil},
		{map[string]any{"path": "/srv/docs", "recursive": false, "glob": []any{"*.pdf", "*.txt"}}, nil},
		{map[string]any{}, []string{"path"}},
		{map[string]any{"path": 3, "recursive": "yes", "glob": []any{1}}, []string{"path", "recursive", "glob"}},
		{map[string]any{"path": "/srv/docs", "glob": "[["}, []string{"glob"}},
		{map[string]any{"path": "/etc"}, []string{"path"}},
		{map[string]any{"path": "/srv/docs/../etc"}, []string{"path"}},
		{map[string]any{"path": "../etc"}, []string{"path"}},
		{map[string]any{"path": "/srv/docsx"}, []string{"path"}},
	} {
		err := Validate(tc.config, connectors.Env{LocalRoots: []string{"/srv/docs"}})
		var ve *schema.ValidationError
		if len(tc.fields) == 0 {
			if err != nil {
				t.Errorf("%v: %v", tc.config, err)
			}
			continue
		}
		if !errors.As(err, &ve) || len(ve.Errors) != len(tc.fields) {
			t.Errorf("%v: %v", tc.config, err)
			continue
		}
		for i, f := range tc.fields {
			if loc := ve.Errors[i].Loc; loc[0] != "body" || loc[1] != "config" || loc[2] != f {
				t.Errorf("%v: loc %v, want %s", tc.config, loc, f)
			}
		}
	}
	// No root configured: the connector is refused.
	if err := Validate(map[string]any{"path": "/tmp"}, connectors.Env{}); err == nil {
		t.Error("local connector accepted with no root configured")
	}
}

func TestSourceAndDestination(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	out := t.TempDir()
	env := connectors.Env{LocalRoots: []string{root, out}}
	write(t, root, "a.txt", "alpha")
	write(t, root, "sub/b.pdf", "%PDF")
	write(t, root, "sub/deeper/c.txt", "gamma")
	write(t, root, "empty.txt", "")
	k, ok := connectors.Lookup("local")
	if !ok {
		t.Fatal("local not registered")
	}
	list := func(cfg map[string]any) []string {
		src, err := k.NewSource(cfg, env)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		if err := src.List(ctx, func(d connectors.Document) error { ids = append(ids, d.ID); return nil }); err != nil {
			t.Fatal(err)
		}
		return ids
	}
	for _, tc := range []struct {
		cfg  map[string]any
		want string
	}{
		{map[string]any{"path": root}, "[a.txt sub/b.pdf sub/deeper/c.txt]"},
		{map[string]any{"path": root, "recursive": false}, "[a.txt]"},
		{map[string]any{"path": root, "glob": "*.txt"}, "[a.txt sub/deeper/c.txt]"},
		{map[string]any{"path": root, "glob": []any{"sub/*.pdf"}}, "[sub/b.pdf]"},
	} {
		if got := fmtList(list(tc.cfg)); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.cfg, got, tc.want)
		}
	}
	src, _ := NewSource(map[string]any{"path": root}, env)
	var doc connectors.Document
	src.List(ctx, func(d connectors.Document) error {
		if d.ID == "sub/deeper/c.txt" {
			doc = d
		}
		return nil
	})
	if doc.Filename != "c.txt" || doc.Size != 5 || doc.Version == "" || doc.DataSource["record_locator"] == nil {
		t.Fatalf("doc = %+v", doc)
	}
	rc, err := src.Open(ctx, doc)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(rc)
	rc.Close()
	if string(b) != "gamma" {
		t.Fatalf("content %q", b)
	}
	if err := src.Check(ctx); err != nil {
		t.Fatal(err)
	}
	if bad, _ := NewSource(map[string]any{"path": filepath.Join(root, "missing")}, env); bad.Check(ctx) == nil {
		t.Fatal("check of a missing directory passed")
	}

	dst, err := k.NewDestination(map[string]any{"path": filepath.Join(out, "new")}, env)
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Check(ctx); err != nil {
		t.Fatal(err)
	}
	els := []element.Element{{Type: "Title", ID: "x", Text: "Hello"}}
	if err := dst.Write(ctx, doc, els); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(out, "new", "sub", "deeper", "c.txt.json"))
	if err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal(data, &got); err != nil || len(got) != 1 || got[0]["text"] != "Hello" {
		t.Fatalf("written %s (%v)", data, err)
	}
	// An id that climbs out of the directory stays inside it.
	if err := dst.Write(ctx, connectors.Document{ID: "../../escape.txt"}, els); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "new", "escape.txt.json")); err != nil {
		t.Fatal(err)
	}
}

func fmtList(s []string) string {
	b, _ := json.Marshal(s)
	r := string(b)
	r = "[" + r[1:len(r)-1] + "]"
	out := []byte{}
	for i := 0; i < len(r); i++ {
		switch r[i] {
		case '"':
		case ',':
			out = append(out, ' ')
		default:
			out = append(out, r[i])
		}
	}
	return string(out)
}
