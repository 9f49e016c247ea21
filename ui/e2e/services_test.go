package e2e

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// missing skips a test for an absent tool, or fails it under CI=true, where every tool must be
// installed.
func missing(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("required under CI=true: %s", msg)
	}
	t.Skip("SKIP: " + msg)
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitListening waits until addr accepts connections or the process exits.
func waitListening(addr string, done <-chan struct{}, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			return fmt.Errorf("the process exited before listening on %s", addr)
		default:
		}
		if c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("nothing listens on %s after %s", addr, timeout)
}

// process runs a child process for the duration of the test, logging to a file that is
// printed when the test fails.
func process(t *testing.T, name string, cmd *exec.Cmd) <-chan struct{} {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			if b, err := os.ReadFile(logPath); err == nil {
				if len(b) > 6000 {
					b = b[len(b)-6000:]
				}
				t.Logf("%s log (tail):\n%s", name, b)
			}
		}
	})
	return done
}

// TestMain removes the quarry binary built for the run.
func TestMain(m *testing.M) {
	code := m.Run()
	if build.bin != "" {
		os.RemoveAll(filepath.Dir(build.bin))
	}
	os.Exit(code)
}

var build struct {
	once sync.Once
	bin  string
	err  error
}

// quarryBinary builds cmd/quarry once per test run, so the platform flow tests exactly what
// `quarry serve` mounts.
func quarryBinary(t *testing.T) string {
	t.Helper()
	build.once.Do(func() {
		dir, err := os.MkdirTemp("", "quarry-e2e-bin-*")
		if err != nil {
			build.err = err
			return
		}
		build.bin = filepath.Join(dir, "quarry")
		pkg := os.Getenv("QUARRY_E2E_SERVE_PKG") // another main with quarry serve's flags, for development
		if pkg == "" {
			pkg = "../../cmd/quarry"
		}
		cmd := exec.Command("go", "build", "-o", build.bin, pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			build.err = fmt.Errorf("go build ./cmd/quarry: %v\n%s", err, out)
		}
	})
	if build.err != nil {
		t.Fatal(build.err)
	}
	return build.bin
}

// quarryServe starts `quarry serve` with the test key in a fresh working directory (its
// SQLite database and secret key live under ./data there) and returns its base URL.
func quarryServe(t *testing.T) string {
	t.Helper()
	base, _ := quarryServeWithRoot(t)
	return base
}

// quarryServeWithRoot is quarryServe that also returns the directory local connectors are
// confined to (--local-root): a local source or destination elsewhere is refused.
func quarryServeWithRoot(t *testing.T) (string, string) {
	t.Helper()
	bin := quarryBinary(t)
	work := t.TempDir()
	root := filepath.Join(work, "files")
	port := freePort(t)
	args := []string{"serve", "--addr", fmt.Sprintf("127.0.0.1:%d", port), "--api-key", testKey, "--in-process", "--log-format", "text"}
	help, _ := exec.Command(bin, "serve", "-h").CombinedOutput()
	if strings.Contains(string(help), "-data-dir") {
		args = append(args, "--data-dir", filepath.Join(work, "data"))
	}
	// The emulators and fakes the tests connect to listen on loopback, which connectors refuse
	// unless the operator allows private networks.
	if strings.Contains(string(help), "-allow-private-network") {
		args = append(args, "--allow-private-network")
	}
	if strings.Contains(string(help), "-local-root") {
		args = append(args, "--local-root", root)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "UNSTRUCTURED_API_KEY=")
	done := process(t, "quarry-serve", cmd)
	if err := waitListening(fmt.Sprintf("127.0.0.1:%d", port), done, 30*time.Second); err != nil {
		t.Fatalf("quarry serve: %v", err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d", port), root
}

// requirePlatform fails (never skips) when the server has no platform API: the UI's
// connector, workflow and job screens cannot work without it.
func requirePlatform(t *testing.T, base string) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v1/sources/", nil)
	req.Header.Set("unstructured-api-key", testKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("platform API: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("quarry serve does not serve the platform API: GET /api/v1/sources/ → %d", res.StatusCode)
	}
}

// Azurite's published development account (Microsoft's docs; not a secret).
const (
	devAccount = "devstoreaccount1"
	devKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// azuriteDir is the connector's pinned emulator (connectors/azure/testdata/azurite).
const azuriteDir = "../../connectors/azure/testdata/azurite"

// startAzurite runs the Azure Blob emulator the Azure connector's tests use and returns a
// connection string for it.
func startAzurite(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		missing(t, "node is not installed, so Azurite cannot run")
	}
	main := filepath.Join(azuriteDir, "node_modules", "azurite", "dist", "src", "blob", "main.js")
	if _, err := os.Stat(main); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			missing(t, "Azurite is not installed (npm ci in connectors/azure/testdata/azurite)")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = azuriteDir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci in %s: %v\n%s", azuriteDir, err, out)
		}
	}
	port := freePort(t)
	cmd := exec.Command(node, main, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
		"--location", t.TempDir(), "--skipApiVersionCheck", "--silent", "--disableTelemetry")
	done := process(t, "azurite", cmd)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if err := waitListening(addr, done, 30*time.Second); err != nil {
		t.Fatalf("azurite: %v", err)
	}
	return "DefaultEndpointsProtocol=http;AccountName=" + devAccount + ";AccountKey=" + devKey + ";BlobEndpoint=http://" + addr + "/" + devAccount + ";"
}
