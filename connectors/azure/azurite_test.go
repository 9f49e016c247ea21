package azure

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Azurite's published development account (Microsoft's docs; not a secret).
const (
	devAccount = "devstoreaccount1"
	devKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// azuriteDir holds the pinned emulator (package.json + package-lock.json; npm ci installs it).
const azuriteDir = "testdata/azurite"

// azurite is one emulator process shared by the package's tests, stopped by TestMain.
type azurite struct {
	endpoint string // http://127.0.0.1:PORT/devstoreaccount1
	cmd      *exec.Cmd
	done     chan struct{}
	workdir  string
}

var shared struct {
	once sync.Once
	az   *azurite
	err  error
	skip string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.az != nil {
		shared.az.stop()
	}
	os.Exit(code)
}

// startAzurite returns the shared emulator, starting it on first use. Without node or the
// emulator the test is skipped with the reason, except under CI=true, where it fails: CI must
// run these tests.
func startAzurite(t *testing.T) *azurite {
	t.Helper()
	shared.once.Do(func() { shared.az, shared.skip, shared.err = launchAzurite() })
	if shared.skip != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Azurite is required under CI=true: %s", shared.skip)
		}
		t.Skipf("SKIP: %s", shared.skip)
	}
	if shared.err != nil {
		t.Fatalf("start Azurite: %v", shared.err)
	}
	return shared.az
}

func launchAzurite() (*azurite, string, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, "node is not installed, so the Azurite tests cannot run (install Node.js ≥ 18, then `npm ci` in connectors/azure/testdata/azurite)", nil
	}
	main := filepath.Join(azuriteDir, "node_modules", "azurite", "dist", "src", "blob", "main.js")
	if _, err := os.Stat(main); err != nil {
		npm, lerr := exec.LookPath("npm")
		if lerr != nil {
			return nil, "Azurite is not installed and npm is missing (run `npm ci` in connectors/azure/testdata/azurite)", nil
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = azuriteDir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Sprintf("npm ci in %s failed: %v\n%s", azuriteDir, err, out), nil
		}
	}
	workdir, err := os.MkdirTemp("", "quarry-azurite-*")
	if err != nil {
		return nil, "", err
	}
	// The port is picked by the kernel, then handed to Azurite; another process could grab it in
	// between, so a failed start is retried on a fresh port.
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, "", err
		}
		az, err := runAzurite(node, main, port, workdir)
		if err == nil {
			return az, "", nil
		}
		lastErr = err
	}
	os.RemoveAll(workdir)
	return nil, "", lastErr
}

func runAzurite(node, main string, port int, workdir string) (*azurite, error) {
	cmd := exec.Command(node, main,
		"--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
		"--location", workdir, "--skipApiVersionCheck", "--silent", "--disableTelemetry")
	logf, err := os.Create(filepath.Join(workdir, fmt.Sprintf("azurite-%d.log", port)))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); logf.Close(); close(done) }()
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			log, _ := os.ReadFile(logf.Name())
			return nil, fmt.Errorf("azurite exited early: %s", log)
		default:
		}
		if conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond); err == nil {
			conn.Close()
			return &azurite{endpoint: "http://" + addr + "/" + devAccount, cmd: cmd, done: done, workdir: workdir}, nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	cmd.Process.Kill()
	<-done
	return nil, fmt.Errorf("azurite did not listen on %s within 30 s", addr)
}

func (a *azurite) stop() {
	a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		a.cmd.Process.Kill()
		<-a.done
	}
	os.RemoveAll(a.workdir)
}

func (a *azurite) connectionString() string {
	return "DefaultEndpointsProtocol=http;AccountName=" + devAccount + ";AccountKey=" + devKey + ";BlobEndpoint=" + a.endpoint + ";"
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
