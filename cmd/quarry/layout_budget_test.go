package main

import (
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// glyphFlood is a one-page PDF whose content stream shows n ten-letter words in 1-pt type:
// millions of glyphs from a few megabytes, what a hostile upload uses to make a PDF parser
// hold gigabytes.
func glyphFlood(n int) []byte {
	var c bytes.Buffer
	c.WriteString("BT /F1 1 Tf\n")
	for i := 0; i < n; i++ {
		if i%600 == 0 {
			c.WriteString("-599 -1 Td (abcdefghij) Tj\n")
		} else {
			c.WriteString("1 0 Td (abcdefghij) Tj\n")
		}
	}
	c.WriteString("ET\n")
	return onePagePDF(c.String())
}

func onePagePDF(content string) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	}
	return pdftest.File(objs...)
}

// vmHWM is a process's own peak resident memory (not its children's), from /proc.
func vmHWM(t *testing.T, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// With the API defaults a PDF goes through hi_res's layout pass, which parses every page. In the
// service that pass runs in a plugin process under a per-document budget: a page of 1.5 million
// glyphs (a 3.5 MB upload that needs over 600 MB to lay out) exhausts the child, not the server;
// the answer is a 422 naming the budget's variable, the server's own memory stays small, and the
// next PDF is laid out by a fresh child.
func TestHostilePDFLayoutOutsideTheServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	s := startServerEnv(t, []string{envLayoutMemory + "=256"})
	code, body := s.post(t, "flood.pdf", bytes.NewReader(glyphFlood(1_500_000)), "application/pdf")
	if peak := vmHWM(t, s.cmd.Process.Pid); peak > 250<<20 {
		t.Errorf("server process peaked at %d MiB on the glyph flood: the layout ran in it", peak>>20)
	}
	if code != 422 || !strings.Contains(body, envLayoutMemory) {
		t.Errorf("glyph flood: %d %s", code, body)
	}
	// auto without table inference probes the text layer in the server before choosing a
	// strategy (in its own process): the probe keeps no glyphs, here 1.5 million invisible ones
	// (an OCR layer's render mode) that it reads to the end. The page then needs OCR, which
	// this test server does not have.
	code, body = s.postFields(t, "flood.pdf", bytes.Replace(glyphFlood(1_500_000), []byte("BT "), []byte("BT 3 Tr "), 1), map[string]string{"pdf_infer_table_structure": "false"})
	if code < 400 || code >= 500 {
		t.Errorf("invisible glyph flood, auto without tables: %d %s", code, body)
	}
	// The probe reads the 35 MB content stream and makes garbage per glyph, collected as it
	// goes; keeping the glyphs, as Page does, would take over 600 MB.
	peak := vmHWM(t, s.cmd.Process.Pid)
	t.Logf("server process peak RSS %d MiB", peak>>20)
	if peak > 400<<20 {
		t.Errorf("server process peaked at %d MiB on the probe: it kept the glyphs", peak>>20)
	}
	small := onePagePDF("BT /F1 12 Tf 72 720 Td (A small born-digital page after the flood.) Tj ET\n")
	if code, body := s.post(t, "small.pdf", bytes.NewReader(small), "application/pdf"); code != 200 || !strings.Contains(body, "after the flood") {
		t.Errorf("next PDF: %d %s", code, body)
	}
}

// postFields sends one file with form fields and returns the status and the start of the answer.
func (s *testServer) postFields(t *testing.T, name string, data []byte, fields map[string]string) (int, string) {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	w, _ := mw.CreateFormFile("files", name)
	w.Write(data)
	mw.Close()
	req, _ := http.NewRequest("POST", s.url+"/general/v0/general", &b)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("unstructured-api-key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	return resp.StatusCode, string(head)
}
