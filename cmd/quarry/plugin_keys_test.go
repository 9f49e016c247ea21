package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/plugins/host"
)

// installExample builds the example plugin into a plugin directory of its own, with its
// checksum, as quarry plugin install would.
func installExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, host.Prefix+"pdftotext")
	cmd := exec.Command("go", "build", "-o", bin, "../../plugins/examples/pdftotext")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("build the example plugin: %v", err)
	}
	if _, err := host.WriteChecksum(bin); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A plugin's strategy and its own declared key work from the command line like the API's: the
// strategy is accepted, the key is a flag (checked as the boolean it is declared) and is
// listed by --help and by quarry plugin list.
func TestCLIPluginStrategyAndKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a plugin")
	}
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("no pdftotext")
	}
	dir := installExample(t)
	self, _ := os.Executable()
	run := func(args ...string) (string, string, error) {
		cmd := exec.Command(self, args...)
		cmd.Env = append(os.Environ(), envTestAsMain+"=1", envPlugins+"=on", host.EnvPluginDir+"="+dir,
			"QUARRY_PLUGIN_CACHE_DIR="+filepath.Join(dir, "cache"), "TMPDIR="+t.TempDir())
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	pdf := "../../testdata/reference/docs/list-item-example.pdf"
	for _, args := range [][]string{
		{"partition", "--strategy", "pdftotext", pdf},
		{"partition", "--strategy", "pdftotext", "--pdftotext_layout", pdf},
		{"partition", "--strategy", "pdftotext", "--param", "pdftotext_layout=yes", pdf},
	} {
		out, stderr, err := run(args...)
		if err != nil || !strings.Contains(out, `"type":`) {
			t.Errorf("%v: %v\n%s", args, err, stderr)
		}
	}
	if _, stderr, err := run("partition", "--strategy", "pdftotext", "--param", "pdftotext_layout=maybe", pdf); err == nil || !strings.Contains(stderr, "pdftotext_layout: Input should be a valid boolean") {
		t.Errorf("pdftotext_layout=maybe: %v\n%s", err, stderr)
	}
	if out, _, _ := run("partition", "--help"); !strings.Contains(out, "--pdftotext_layout") || !strings.Contains(out, "(plugin pdftotext)") {
		t.Errorf("--help does not list the plugin's key:\n%s", out)
	}
	// quarry plugin list names every strategy's own keys with their kind: the plugin's and the
	// built-in fast's.
	if out, stderr, err := run("plugin", "list"); err != nil || !strings.Contains(out, "option pdftotext_layout (bool): ") ||
		!strings.Contains(out, "option pdfminer_char_margin (float): ") {
		t.Errorf("plugin list does not list the strategies' keys: %v\n%s%s", err, out, stderr)
	}
}

// The server documents a plugin's declared key in its OpenAPI document.
func TestOpenAPIListsPluginKeys(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	dir := installExample(t)
	s := startServerEnv(t, []string{host.EnvPluginDir + "=" + dir})
	resp, err := http.Get(s.url + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if !bytes.Contains(body, []byte(`"pdftotext_layout"`)) {
		t.Errorf("openapi.json does not list pdftotext_layout")
	}
}
