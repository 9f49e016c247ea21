package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/formats/office"
)

// TestLegacyOfficeThroughServer: a .doc partitions through `quarry serve`, where formats run
// in a plugin process under the host's memory limits. LibreOffice once asked prlimit for more
// than those, and every .doc, .ppt and .xls sent to the server failed with 422.
func TestLegacyOfficeThroughServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and LibreOffice")
	}
	if _, err := exec.LookPath("soffice"); err != nil {
		t.Skip("LibreOffice (soffice) is not installed")
	}
	f, err := os.Open("../../testdata/reference/docs/duplicate-paragraphs.doc")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s := startServer(t)
	code, body := s.post(t, "duplicate-paragraphs.doc", f, "application/msword")
	if code != 200 || !strings.HasPrefix(body, `[{"type":`) {
		t.Fatalf("%d %s", code, body)
	}
}

// TestOpenDocumentThroughServer: an .ods LibreOffice wrote partitions through `quarry serve`
// (issue 19: every LibreOffice spreadsheet and presentation was refused as application/zip),
// sent as an upload without a useful type.
func TestOpenDocumentThroughServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and LibreOffice")
	}
	if !(office.Converter{}).Available() {
		t.Skip("LibreOffice (soffice) is not installed")
	}
	ods, err := office.Converter{}.Convert(context.Background(), []byte("Pit,Tonnes\nNorth pit,1200\n"), ".csv", "ods")
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t)
	code, body := s.post(t, "output.ods", bytes.NewReader(ods), "application/octet-stream")
	if code != 200 || !strings.Contains(body, "North pit") {
		t.Fatalf("%d %s", code, body)
	}
}
