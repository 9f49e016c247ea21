package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/quarrydocs/quarry/api/partitionapi"
)

// jsonLines parses out as JSON Lines of {"source", "elements"} documents.
func jsonLines(t *testing.T, out string) []struct {
	Source   string           `json:"source"`
	Elements []map[string]any `json:"elements"`
} {
	t.Helper()
	var docs []struct {
		Source   string           `json:"source"`
		Elements []map[string]any `json:"elements"`
	}
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var d struct {
			Source   string           `json:"source"`
			Elements []map[string]any `json:"elements"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("line is not a JSON document: %v\n%.200s", err, line)
		}
		docs = append(docs, d)
	}
	return docs
}

// Several inputs on one stream are JSON Lines, one document per line, in the order given.
func TestSeveralFilesAreJSONLines(t *testing.T) {
	out, _, err := runCLI(t, "partition", docs+"fake-text.txt", docs+"fake-xml.xml")
	if err != nil {
		t.Fatal(err)
	}
	got := jsonLines(t, out)
	if len(got) != 2 || got[0].Source != docs+"fake-text.txt" || len(got[0].Elements) != 6 || len(got[1].Elements) != 20 {
		t.Errorf("got %d documents: %+v", len(got), got)
	}
}

// A batch goes on past failing documents, names each on stderr with a summary, exits 1 and
// leaves only whole documents on stdout.
func TestBatchKeepsGoingPastFailures(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "a.zip")
	os.WriteFile(zipPath, []byte("PK\x05\x06"+strings.Repeat("\x00", 18)), 0o644)
	missing := filepath.Join(dir, "missing.txt")
	for _, procs := range []int{1, 4} {
		prev := runtime.GOMAXPROCS(procs)
		out, errOut, err := runCLI(t, "partition", docs+"fake-text.txt", missing, zipPath, docs+"fake-xml.xml")
		runtime.GOMAXPROCS(prev)
		if exitCode(err) != 1 {
			t.Errorf("procs %d: exit %d (%v), want 1", procs, exitCode(err), err)
		}
		got := jsonLines(t, out)
		if len(got) != 2 || got[1].Source != docs+"fake-xml.xml" {
			t.Errorf("procs %d: %d documents on stdout, want the two good ones", procs, len(got))
		}
		for _, want := range []string{"missing.txt: no such file", "a.zip: File type application/zip is not supported.", "2 of 4 documents partitioned; 2 failed"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("procs %d: stderr lacks %q:\n%s", procs, want, errOut)
			}
		}
	}
}

// Flags may follow the files; dashed spellings of the API's names work; short format names.
func TestFlagsAnywhereAndFormats(t *testing.T) {
	for _, args := range [][]string{
		{"partition", docs + "fake-text.txt", "--output_format=text/csv"},
		{"partition", docs + "fake-text.txt", "--output-format", "csv"},
		{"partition", "--output_format", "CSV", docs + "fake-text.txt"},
	} {
		out, _, err := runCLI(t, args...)
		if err != nil || !strings.HasPrefix(out, "type,element_id,text,") || strings.Count(out, "\n") != 7 {
			t.Errorf("%v: %v\n%s", args, err, out)
		}
	}
	out, _, err := runCLI(t, "partition", docs+"fake-text.txt", "--output_format=json")
	var elems []map[string]any
	if err != nil || json.Unmarshal([]byte(out), &elems) != nil || len(elems) != 6 {
		t.Errorf("json: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, "partition", docs+"fake-text.txt", docs+"fake-xml.xml", "--output_format=jsonl")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err != nil || len(lines) != 26 {
		t.Errorf("jsonl: %v, %d lines", err, len(lines))
	}
	for _, l := range lines {
		var e map[string]any
		if json.Unmarshal([]byte(l), &e) != nil || e["type"] == nil {
			t.Errorf("jsonl line is not an element: %.100s", l)
		}
	}
	out, _, err = runCLI(t, "partition", "--output_format=text", docs+"fake-text.txt")
	if err != nil || !strings.HasPrefix(out, "This is a test document to use for unit tests.\n\nDoylestown, PA 18901\n\n") {
		t.Errorf("text: %v\n%s", err, out)
	}
	// Markdown: the DOCX's tables become pipe tables, the one with merged cells included (a
	// DOCX repeats a merged cell's text, so it has no spans).
	out, _, err = runCLI(t, "partition", "--output_format=md", docs+"docx-tables.docx")
	if err != nil || !strings.Contains(out, "| Header Col 1 | Header Col 2 |\n| --- | --- |\n| Lorem ipsum | A link example |\n") {
		t.Errorf("markdown: %v\n%s", err, out)
	}
	// CSV of several documents is one table with one header.
	out, _, err = runCLI(t, "partition", "--output_format=csv", docs+"fake-text.txt", docs+"fake-xml.xml")
	if err != nil || strings.Count(out, "type,element_id,text") != 1 || !strings.Contains(out, "fake-xml.xml") {
		t.Errorf("csv of two documents: %v\n%.300s", err, out)
	}
	_, _, err = runCLI(t, "partition", "--output_format=yaml", docs+"fake-text.txt")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "choose json, jsonl, csv, text or markdown") {
		t.Errorf("unknown format: %v", err)
	}
}

// --output-dir writes one file per input named after it, mirrors subfolders with --recursive,
// and writes nothing for a failed document; -o writes what stdout would get.
func TestOutputDirAndFile(t *testing.T) {
	in := t.TempDir()
	text, _ := os.ReadFile(docs + "fake-text.txt")
	os.WriteFile(filepath.Join(in, "a.txt"), text, 0o644)
	os.WriteFile(filepath.Join(in, ".hidden.txt"), text, 0o644)
	os.WriteFile(filepath.Join(in, "bad.zip"), []byte("PK\x05\x06"+strings.Repeat("\x00", 18)), 0o644)
	os.MkdirAll(filepath.Join(in, "sub"), 0o755)
	os.WriteFile(filepath.Join(in, "sub", "b.txt"), text, 0o644)

	out := t.TempDir()
	_, errOut, err := runCLI(t, "partition", in, "--output-dir", out)
	if exitCode(err) != 1 || !strings.Contains(errOut, "bad.zip") {
		t.Errorf("exit %d, stderr %s", exitCode(err), errOut)
	}
	files := listFiles(t, out)
	if strings.Join(files, " ") != "a.txt.json" {
		t.Errorf("without --recursive: %v", files)
	}
	out = t.TempDir()
	_, _, err = runCLI(t, "partition", "-r", "--output_format", "csv", in, "--output-dir", out)
	if exitCode(err) != 1 {
		t.Errorf("exit %d", exitCode(err))
	}
	files = listFiles(t, out)
	if strings.Join(files, " ") != "a.txt.csv sub/b.txt.csv" {
		t.Errorf("with --recursive: %v", files)
	}
	b, _ := os.ReadFile(filepath.Join(out, "sub", "b.txt.csv"))
	if !strings.HasPrefix(string(b), "type,element_id,text") {
		t.Errorf("b.txt.csv: %s", b)
	}

	file := filepath.Join(t.TempDir(), "one.json")
	stdout, _, err := runCLI(t, "partition", docs+"fake-text.txt", "-o", file)
	b, _ = os.ReadFile(file)
	var elems []map[string]any
	if err != nil || stdout != "" || json.Unmarshal(b, &elems) != nil || len(elems) != 6 {
		t.Errorf("-o: %v, stdout %q, file %.100s", err, stdout, b)
	}
	// A failing single document leaves no file behind.
	file = filepath.Join(t.TempDir(), "none.json")
	runCLI(t, "partition", filepath.Join(in, "bad.zip"), "-o", file)
	if _, err := os.Stat(file); err == nil {
		t.Error("-o left a file for a failed document")
	}
	if left := listFiles(t, filepath.Dir(file)); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Two inputs that would write the same file are refused before any work.
	_, _, err = runCLI(t, "partition", filepath.Join(in, "a.txt"), filepath.Join(in, "sub", "..", "a.txt"), "--output-dir", t.TempDir())
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "would both be written") {
		t.Errorf("clash: %v", err)
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	return out
}

func TestStdin(t *testing.T) {
	text, _ := os.ReadFile(docs + "fake-text.txt")
	var out, errOut bytes.Buffer
	err := runPartitionIn(context.Background(), []string{"-", "--output_format=text"}, bytes.NewReader(text), &out, &errOut)
	if err != nil || !strings.HasPrefix(out.String(), "This is a test document") {
		t.Errorf("%v\n%s", err, out.String())
	}
	err = runPartitionIn(context.Background(), []string{"-", "-"}, bytes.NewReader(text), &out, &errOut)
	if exitCode(err) != 2 {
		t.Errorf("stdin twice: %v", err)
	}
}

// A bad flag is one line with a suggestion, not the whole usage.
func TestBadFlagSuggests(t *testing.T) {
	cases := map[string]string{
		"--output_fromat=csv": "did you mean --output_format?",
		"--stratgy=fast":      "did you mean --strategy?",
		"--recursve":          "did you mean --recursive?",
		"--output-dri=x":      "did you mean --output-dir?",
	}
	for flag, want := range cases {
		out, errOut, err := runCLI(t, "partition", flag, docs+"fake-text.txt")
		if exitCode(err) != 2 || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") || out != "" || errOut != "" {
			t.Errorf("%s: exit %d, %v, stdout %q, stderr %q", flag, exitCode(err), err, out, errOut)
		}
	}
	_, _, err := runCLI(t, "partiton", "x")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "did you mean partition?") {
		t.Errorf("command typo: %v", err)
	}
}

// Help goes to stdout, grouped, with defaults, examples and every parameter.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"partition", "--help"}, {"help", "partition"}, {"partition", "-h"}} {
		out, errOut, err := runCLI(t, args...)
		if err != nil && exitCode(err) != 0 || errOut != "" {
			t.Fatalf("%v: %v, stderr %q", args, err, errOut)
		}
		for _, want := range []string{"Input:", "Strategy (PDFs and images):", "Chunking:", "Output:", "Examples:", "(default auto)", "--output-dir DIR", "--recursive", "JSON Lines"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: help lacks %q", args, want)
			}
		}
		words := map[string]bool{}
		for _, w := range strings.Fields(out) {
			words[w] = true
		}
		for _, p := range partitionapi.Params() {
			if shown := words["--"+p.Name]; shown == (p.Group == partitionapi.Ignored) {
				t.Errorf("help shows --%s: %v (group %q)", p.Name, shown, p.Group)
			}
		}
	}
	// Each line lists a flag's choices once, and says how to turn a default-true boolean off.
	out, _, _ := runCLI(t, "partition", "--help")
	for _, line := range strings.Split(out, "\n") {
		if strings.Count(line, "ocr_only") > 1 || strings.Count(line, "by_title") > 1 {
			t.Errorf("help line repeats its choices: %q", line)
		}
	}
	if !strings.Contains(out, "--name=false") {
		t.Error("help does not say how to turn a boolean flag off")
	}
	out, _, err := runCLI(t, "--version")
	if err != nil || !strings.HasPrefix(out, "quarry ") {
		t.Errorf("--version: %v %q", err, out)
	}
}

// cancelOnNth cancels a context when the nth strategy line reaches stderr, so an interrupt
// lands in the middle of a batch at a known document.
type cancelOnNth struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelOnNth) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if bytes.Contains(p, []byte("→")) || bytes.Contains(p, []byte("strategy ")) {
		if c.n--; c.n == 0 {
			c.cancel()
		}
	}
	return c.buf.Write(p)
}

// An interrupt leaves only whole documents on stdout (never a cut array) and exits 130.
func TestInterruptLeavesValidOutput(t *testing.T) {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	pdf := docs + "multi-column-2p.pdf"
	for _, c := range []struct {
		args     []string
		cancelAt int // the document during which the interrupt comes
		lines    int
	}{
		{[]string{"--strategy=fast", pdf, pdf, pdf}, 2, 1},
		{[]string{"--strategy=fast", pdf}, 1, 0},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		stderr := &cancelOnNth{n: c.cancelAt, cancel: cancel}
		var out bytes.Buffer
		err := runPartitionIn(ctx, append([]string{}, c.args...), nil, &out, stderr)
		cancel()
		if exitCode(err) != 130 {
			t.Errorf("%v: exit %d (%v), want 130; stderr %s", c.args, exitCode(err), err, stderr.buf.String())
		}
		if got := jsonLines(t, out.String()); len(got) != c.lines {
			t.Errorf("%v: %d whole documents, want %d", c.args, len(got), c.lines)
		}
		if !strings.Contains(stderr.buf.String(), "interrupted") {
			t.Errorf("stderr does not say it was interrupted: %s", stderr.buf.String())
		}
	}
}

// Boolean flags take pydantic's truth values whatever the API field's rule: --coordinates=1 is
// true on a command line (the form's lenient rule would read it as false), a bare flag is true,
// and a word that is no truth value is a usage error rather than a silent false.
func TestBoolFlags(t *testing.T) {
	for _, c := range []struct {
		args        []string
		coordinates bool
		pageBreaks  bool
		bad         bool
	}{
		{[]string{"--coordinates"}, true, false, false},
		{[]string{"--coordinates=1", "--include_page_breaks=YES"}, true, true, false},
		{[]string{"--coordinates=TRUE", "--include_page_breaks=off"}, true, false, false},
		{[]string{"--coordinates=0"}, false, false, false},
		{[]string{"--coordinates=maybe"}, false, false, true},
		{[]string{"--include_page_breaks=2"}, false, false, true},
	} {
		cmd := &partitionCmd{form: map[string][]string{}}
		_, err := parseInterleaved(newPartitionFlags(cmd), append(c.args, "a.txt"))
		if c.bad {
			if err == nil || !strings.Contains(err.Error(), "want true or false") {
				t.Errorf("%v: err %v, want a usage error", c.args, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		o, err := partitionapi.OptionsFromForm(cmd.form)
		if err != nil || o.Coordinates != c.coordinates || o.IncludePageBreaks != c.pageBreaks {
			t.Errorf("%v: coordinates %v, include_page_breaks %v (%v); want %v, %v", c.args, o.Coordinates, o.IncludePageBreaks, err, c.coordinates, c.pageBreaks)
		}
	}
}

// A document that gives no elements keeps the reference's empty list on stdout, is a success,
// and is named on stderr (unless --quiet) so an empty result is never silent.
func TestEmptyResultIsSaid(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "blank.xml")
	os.WriteFile(empty, []byte(`<?xml version="1.0"?><a/>`), 0o644)
	for _, args := range [][]string{{empty}, {empty, "--output-format", "jsonl"}} {
		out, errOut, err := runCLI(t, append([]string{"partition"}, args...)...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if strings.TrimSpace(out) != "[]" && strings.TrimSpace(out) != "" {
			t.Errorf("%v: stdout %q, want an empty list", args, out)
		}
		if !strings.Contains(errOut, "blank.xml: no text found") {
			t.Errorf("%v: stderr %q does not say the document gave nothing", args, errOut)
		}
	}
	_, errOut, err := runCLI(t, "partition", "--quiet", empty)
	if err != nil || errOut != "" {
		t.Errorf("--quiet: err %v, stderr %q", err, errOut)
	}
	_, errOut, _ = runCLI(t, "partition", docs+"fake-xml.xml")
	if strings.Contains(errOut, "no text found") {
		t.Errorf("a document with elements is reported empty: %q", errOut)
	}
}
