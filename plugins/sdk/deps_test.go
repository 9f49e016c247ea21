package sdk

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// deps lists the packages pkg links.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// A plugin built with the SDK links the contract, not the engine: no engine, language profiles
// or chunking in a third-party binary (the example plugin is the witness).
func TestPluginDoesNotLinkEngine(t *testing.T) {
	for _, pkg := range []string{".", "../examples/pdftotext"} {
		for _, dep := range deps(t, pkg) {
			switch strings.TrimPrefix(dep, "github.com/quarrydocs/quarry/") {
			case "engine", "lang", "chunking", "plugins/host", "plugins/sdk/engineplugin", "plugins/internal/wire":
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}

// The SDK speaks protocol 3 with its own implementation of go-plugin's net/rpc transport, so a
// plugin links none of go-plugin, gRPC, protobuf, net/http (nor net/rpc, which imports it).
func TestSDKLinks(t *testing.T) {
	for _, pkg := range []string{".", "../examples/pdftotext"} {
		for _, dep := range deps(t, pkg) {
			switch {
			case dep == "net/http", dep == "net/rpc", dep == "html/template",
				strings.HasPrefix(dep, "google.golang.org/grpc"), strings.HasPrefix(dep, "google.golang.org/protobuf"),
				strings.HasPrefix(dep, "github.com/hashicorp/go-plugin"):
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}

// maxExampleBytes is the size the example plugin must stay under with a plain go build.
const maxExampleBytes = 12_000_000

// The example plugin, built as a plugin author builds it (no -ldflags), stays under 12 MB.
func TestExampleSize(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	out := filepath.Join(t.TempDir(), "quarry-plugin-pdftotext")
	cmd := exec.Command("go", "build", "-o", out, "../examples/pdftotext")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("build the example: %v", err)
	}
	fi, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("example plugin: %.1f MB", float64(fi.Size())/1e6)
	if fi.Size() > maxExampleBytes {
		t.Errorf("the example plugin is %d bytes, over %d", fi.Size(), maxExampleBytes)
	}
}
