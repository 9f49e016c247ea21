package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const docs = "../../testdata/reference/docs/"

func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	return out.String(), errOut.String(), err
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

func TestPartitionJSON(t *testing.T) {
	out, _, err := runCLI(t, "partition", docs+"fake-text.txt")
	if err != nil {
		t.Fatal(err)
	}
	var elems []map[string]any
	if err := json.Unmarshal([]byte(out), &elems); err != nil {
		t.Fatalf("not a JSON list: %v\n%s", err, out)
	}
	if len(elems) != 6 || elems[0]["element_id"] != "fc01503614e0f12f585427cccf81cf86" {
		t.Errorf("unexpected output: %v", elems[0])
	}
	if md := elems[0]["metadata"].(map[string]any); md["filename"] != "fake-text.txt" {
		t.Errorf("filename is not the base name: %v", md["filename"])
	}
}

func TestPartitionFlags(t *testing.T) {
	out, _, err := runCLI(t, "partition", "--encoding=cp1252", "--languages=ind,est", "--output_format", "text/csv", "--unique_element_ids", docs+"fake-text.txt")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if !strings.HasPrefix(lines[0], "type,element_id,text,") || len(lines) != 7 {
		t.Errorf("CSV output:\n%s", out)
	}
	if strings.Contains(out, "fc01503614e0f12f585427cccf81cf86") {
		t.Error("--unique_element_ids ignored")
	}
}

// Files partitioned concurrently come out exactly as one at a time would write them, in the
// order given; the first failing file in that order is the one reported.
func TestSeveralFilesConcurrently(t *testing.T) {
	var files []string
	for i := 0; i < 4; i++ {
		files = append(files, docs+"fake-text.txt", docs+"fake-xml.xml", docs+"multi-column-2p.pdf")
	}
	args := append([]string{"partition", "--strategy=fast"}, files...)
	prev := runtime.GOMAXPROCS(1)
	serial, _, err := runCLI(t, args...)
	runtime.GOMAXPROCS(max(prev, 3))
	defer runtime.GOMAXPROCS(prev)
	if err != nil {
		t.Fatal(err)
	}
	parallel, _, err := runCLI(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if parallel != serial {
		t.Errorf("concurrent output differs from serial output (%d vs %d bytes)", len(parallel), len(serial))
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	zipPath := filepath.Join(dir, "a.zip")
	os.WriteFile(zipPath, []byte("PK\x05\x06"+strings.Repeat("\x00", 18)), 0o644)
	emptyFile := filepath.Join(dir, "empty.txt")
	os.WriteFile(emptyFile, nil, 0o644)
	junk := filepath.Join(dir, "junk.bin")
	os.WriteFile(junk, []byte{0x00, 0x9f, 0x13, 0xff, 0x00, 0x01}, 0o644)
	cutDocx := filepath.Join(dir, "cut.docx")
	docx, _ := os.ReadFile(docs + "handbook-1p.docx")
	os.WriteFile(cutDocx, docx[:len(docx)/3], 0o644)
	cutPDF := filepath.Join(dir, "cut.pdf")
	os.WriteFile(cutPDF, []byte("%PDF-1.7\n1 0 obj\n<< /Type /Catalog"), 0o644)
	notGzip := filepath.Join(dir, "notes.txt.gz")
	os.WriteFile(notGzip, []byte("plain text, not gzip"), 0o644)
	emptyDir := filepath.Join(dir, "nothing")
	os.Mkdir(emptyDir, 0o755)
	onlySub := filepath.Join(dir, "onlysub")
	os.MkdirAll(filepath.Join(onlySub, "a"), 0o755)
	onlyHidden := filepath.Join(dir, "hidden")
	os.MkdirAll(onlyHidden, 0o755)
	os.WriteFile(filepath.Join(onlyHidden, ".notes.txt"), []byte("hello"), 0o644)
	cases := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"partition"}, 2, "no input files"},
		{[]string{"partition", "--strategy=turbo", docs + "fake-text.txt"}, 2, "strategy"},
		{[]string{"partition", filepath.Join(dir, "missing.txt")}, 1, "no such file"},
		{[]string{"partition", zipPath}, 1, "File type application/zip is not supported. It is a ZIP archive: unpack it"},
		{[]string{"partition", "--encoding=nope", docs + "fake-text.txt"}, 1, "unknown encoding: nope — give --encoding a name such as utf-8"},
		{[]string{"partition", emptyFile}, 1, "inode/x-empty is not supported. The file is empty."},
		{[]string{"partition", junk}, 1, "if you know its type, give it with --content_type"},
		{[]string{"partition", notGzip}, 1, "notes.txt.gz: the file is named .gz but is not gzip data"},
		{[]string{"partition", cutDocx}, 1, "File is not a valid docx — it is damaged, cut short"},
		{[]string{"partition", cutPDF}, 1, "File does not appear to be a valid PDF. Error: "},
		{[]string{"partition", cutPDF}, 1, "qpdf --check names the problem"},
		// A chunking value bad for every document is the command line's fault: exit 2, once.
		{[]string{"partition", "--chunking_strategy=basic", "--max_characters=-5", docs + "fake-text.txt", docs + "fake-email.eml"}, 2, "'max_characters' argument must be > 0, got -5"},
		{[]string{"partition", "--chunking_strategy=basic", "--overlap=600", docs + "fake-text.txt"}, 2, "'overlap' argument must be less than `max_characters`"},
		// An empty folder is said for what it is; --recursive is suggested only where it helps.
		{[]string{"partition", emptyDir}, 2, "folder " + emptyDir + " is empty"},
		{[]string{"partition", onlySub}, 2, "only subfolders; add --recursive"},
		{[]string{"partition", "-r", onlySub}, 2, "and its subfolders hold no files"},
		{[]string{"partition", onlyHidden}, 2, "only hidden files"},
		// A mistyped choice gets the nearest one; flags are named with two dashes.
		{[]string{"partition", "--strategy=hires", docs + "fake-text.txt"}, 2, "did you mean --strategy hi_res?"},
		{[]string{"partition", "--chunking_strategy=bytitle", docs + "fake-text.txt"}, 2, "did you mean --chunking_strategy by_title?"},
		{[]string{"partition", "--include_page_breaks=nope", docs + "fake-text.txt"}, 2, `invalid boolean value "nope" for --include_page_breaks`},
		{[]string{"serve", "--workers=abc"}, 2, `invalid value "abc" for --workers; quarry serve --help shows what it takes`},
		// An output that cannot be written is refused before any document is read.
		{[]string{"partition", "-o", filepath.Join(dir, "no", "such", "out.json"), docs + "fake-text.txt"}, 2, "folder " + filepath.Join(dir, "no", "such") + " does not exist"},
		{[]string{"partition", "-o", emptyDir, docs + "fake-text.txt"}, 2, "is a folder; give a file name, or use --output-dir"},
		{[]string{"partition", "--output-dir", emptyFile, docs + "fake-text.txt"}, 2, "is a file, not a folder"},
		{[]string{"frobnicate"}, 2, "unknown command"},
		{[]string{"eval", "only-one.json"}, 2, "quarry eval OUTPUT.json"},
		{[]string{"eval", filepath.Join(dir, "nope.json"), docs + "fake-text.txt"}, 1, "nope.json: no such file; check the path"},
	}
	for _, c := range cases {
		_, _, err := runCLI(t, c.args...)
		if exitCode(err) != c.code || err == nil || !strings.Contains(err.Error(), c.msg) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: exit %d, error %v; want exit %d containing %q on one line", c.args, exitCode(err), err, c.code, c.msg)
		}
	}
}

func TestEval(t *testing.T) {
	out, _, err := runCLI(t, "partition", docs+"fake-text.txt")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.json")
	os.WriteFile(path, []byte(out), 0o644)
	res, _, err := runCLI(t, "eval", path, "../../testdata/reference/expected/head/gcs/fake-text.txt.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"cct-accuracy\t1.000", "cct-%missing\t0.000", "element-type-accuracy\t1.000"} {
		if !strings.Contains(res, want) {
			t.Errorf("eval output lacks %q:\n%s", want, res)
		}
	}
}

// A PDF that needs a user password is the reference's 422 message whatever the strategy, never
// an empty list (pdf/testdata/encrypted holds one file per encryption qpdf writes).
func TestEncryptedPDFEveryStrategy(t *testing.T) {
	files, _ := filepath.Glob("../../pdf/testdata/encrypted/*user-*.pdf")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		for _, s := range []string{"fast", "auto", "hi_res", "ocr_only"} {
			out, _, err := runCLI(t, "partition", "--strategy="+s, f)
			if exitCode(err) != 1 || !strings.Contains(fmt.Sprint(err), "File is encrypted. Please decrypt it with password.") {
				t.Errorf("%s %s: exit %d, error %v, output %q", filepath.Base(f), s, exitCode(err), err, out)
			}
		}
	}
}

// A PDF read in part keeps its text on stdout and says so once on stderr, without -v.
func TestDamagedPDFWarnsOnce(t *testing.T) {
	for _, s := range []string{"fast", "auto"} {
		out, errOut, err := runCLI(t, "partition", "--strategy="+s, "../../pdf/testdata/robust/TestDamagedFlateKeepsPrefix_bad_checksum.pdf")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(out, "line number") != 50 || strings.Count(errOut, "partly damaged") != 1 {
			t.Errorf("%s: %d lines on stdout, stderr:\n%s", s, strings.Count(out, "line number"), errOut)
		}
	}
}

// A --languages entry that names no language is dropped as the API drops it, and said on
// standard error; real codes, names and auto are not.
func TestUnknownLanguageWarns(t *testing.T) {
	out, errOut, err := runCLI(t, "partition", "--languages", "xx,eng", "--languages", "german,auto", docs+"fake-text.txt")
	if err != nil || !strings.HasPrefix(out, "[") {
		t.Fatalf("%v %q", err, out)
	}
	if !strings.Contains(errOut, "--languages xx names no language") || strings.Count(errOut, "names no language") != 1 {
		t.Errorf("stderr %q: want one warning, for xx", errOut)
	}
	if _, errOut, _ = runCLI(t, "partition", "-q", "--languages", "xx", docs+"fake-text.txt"); errOut != "" {
		t.Errorf("--quiet still warns: %q", errOut)
	}
}

// A .gz input is decompressed as the API decompresses an upload of that name: the same
// elements, named without .gz; --gz_uncompressed_content_type types content whose inner name
// has no extension.
func TestGzipInput(t *testing.T) {
	dir := t.TempDir()
	text, _ := os.ReadFile(docs + "fake-text.txt")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(text)
	zw.Close()
	os.WriteFile(filepath.Join(dir, "fake-text.txt.gz"), gz.Bytes(), 0o644)
	os.WriteFile(filepath.Join(dir, "blob.gz"), gz.Bytes(), 0o644)
	want, _, err := runCLI(t, "partition", docs+"fake-text.txt")
	if err != nil {
		t.Fatal(err)
	}
	got, errOut, err := runCLI(t, "partition", filepath.Join(dir, "fake-text.txt.gz"))
	if err != nil || got != want {
		t.Errorf("gzip input: %v %s\ngot  %s\nwant %s", err, errOut, got, want)
	}
	got, errOut, err = runCLI(t, "partition", "--gz_uncompressed_content_type", "text/plain", "--output_format", "text", filepath.Join(dir, "blob.gz"))
	if err != nil || !strings.HasPrefix(got, "This is a test document") {
		t.Errorf("typed gzip input: %v %s %q", err, errOut, got)
	}
}
