package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/childproc"
	"github.com/quarrydocs/quarry/plugins/host"
)

// TestConfinedHelpersThroughServer: with plugins confined by Landlock (the default where the
// kernel has it), every converter still works from inside its plugin — LibreOffice (.doc),
// pandoc (.org, .epub), pdftoppm and Tesseract (ocr_only), the layout plugin (hi_res), a
// born-digital PDF (fast). What the confinement refuses is tested in plugins/host
// (TestAttackPluginCannotReadOutside) and internal/childproc.
func TestConfinedHelpersThroughServer(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server, LibreOffice, pandoc and Tesseract")
	}
	if childproc.LandlockABI() == 0 {
		t.Skip(childproc.ErrNoLandlock)
	}
	for _, bin := range []string{"soffice", "pandoc", "pdftoppm", "tesseract"} {
		if _, err := exec.LookPath(bin); err != nil {
			t.Skipf("%s is not installed", bin)
		}
	}
	s := startServerEnv(t, []string{host.EnvUnconfined + "="})
	docs := "../../testdata/reference/docs/"
	for _, c := range []struct {
		file, strategy, want string
	}{
		{"duplicate-paragraphs.doc", "", `"type":`},
		{"README.org", "", `"type":`},
		{"winter-sports.epub", "", `"type":`},
		{"list-item-example.pdf", "ocr_only", `"text":"`},
		{"list-item-example.pdf", "hi_res", `"text":"`},
		{"list-item-example.pdf", "fast", `"text":"`},
	} {
		data, err := os.ReadFile(docs + c.file)
		if err != nil {
			t.Fatal(err)
		}
		fields := map[string]string{}
		if c.strategy != "" {
			fields["strategy"] = c.strategy
		}
		code, body := s.postFields(t, c.file, data, fields)
		if code != 200 || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %s", c.file, c.strategy, code, body)
		}
	}
	// The plugin processes that did this work are the confined ones (no_new_privs is set with
	// the Landlock domain): all but the host's own sweeper shell.
	confined := 0
	for _, pid := range descendants(s.cmd.Process.Pid) {
		status, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		args := strings.Split(string(cmdline), "\x00")
		switch {
		case strings.Contains(string(status), "NoNewPrivs:\t1"):
			confined++
		case args[0] != "/bin/sh":
			t.Errorf("unconfined child %d: %q", pid, args)
		}
	}
	if confined < 2 {
		t.Errorf("%d confined plugin processes, want the formats, OCR and layout plugins'", confined)
	}
}
