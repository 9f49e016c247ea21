package sdk

import (
	"os/exec"
	"strings"
	"testing"
)

// A plugin built with the SDK links the contract, not the engine: no engine, language profiles
// or chunking in a third-party binary (the example plugin is the witness).
func TestPluginDoesNotLinkEngine(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	for _, pkg := range []string{".", "../examples/pdftotext"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			switch strings.TrimPrefix(dep, "github.com/quarrydocs/quarry/") {
			case "engine", "lang", "chunking", "plugins/host", "plugins/sdk/engineplugin":
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}
