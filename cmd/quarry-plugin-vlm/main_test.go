package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The vlm strategy reaches quarry only through this plugin binary: build both, install the
// plugin with its checksum, and partition through the CLI (a dry run, so no provider is called).
func TestServesVLMThroughTheCLI(t *testing.T) {
	if testing.Short() {
		t.Skip("builds two binaries")
	}
	dir := t.TempDir()
	for bin, pkg := range map[string]string{"quarry": "../quarry", "quarry-plugin-vlm": "."} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, bin), pkg)
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("build %s: %v\n%s", bin, err, out)
		}
	}
	quarry := filepath.Join(dir, "quarry")
	run := func(env []string, args ...string) (string, error) {
		cmd := exec.Command(quarry, args...)
		cmd.Env = append(append(os.Environ(), "QUARRY_PLUGIN_DIR="+dir, "ANTHROPIC_API_KEY=sk-test"), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	pdf := "../../testdata/reference/docs/layout-parser-paper-fast.pdf"

	// Without its checksum the plugin is not launched, and vlm is unknown.
	if out, err := run(nil, "partition", "--strategy=vlm", "--param", "vlm_dry_run=true", pdf); err == nil || !strings.Contains(out, "vlm") {
		t.Fatalf("without the checksum: err %v, output %s", err, out)
	}
	if out, err := run(nil, "plugin", "checksum", filepath.Join(dir, "quarry-plugin-vlm")); err != nil {
		t.Fatalf("checksum: %v\n%s", err, out)
	}
	out, err := run(nil, "partition", "--strategy=vlm", "--param", "vlm_dry_run=true", pdf)
	if err != nil {
		t.Fatalf("partition: %v\n%s", err, out)
	}
	if !strings.Contains(out, "vlm dry run: 2 page(s), 2 request(s) to anthropic") {
		t.Errorf("output %s", out)
	}
	// Missing credentials come back from the plugin as the strategy's own error.
	out, err = run([]string{"ANTHROPIC_API_KEY="}, "partition", "--strategy=vlm", pdf)
	if err == nil || !strings.Contains(out, "missing credentials: set ANTHROPIC_API_KEY") {
		t.Errorf("without credentials: err %v, output %s", err, out)
	}
}
