package ui

import (
	"bytes"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/quarrydocs/quarry/internal/childproc"
)

// Renderers run under a memory limit, die with the server and, with Landlock, may write
// only their request's directory.
func TestRenderHelperIsConfined(t *testing.T) {
	h := New(Config{RenderMemory: 256 << 20})
	dir := t.TempDir()
	cmd := h.command(t.Context(), dir, "pdftoppm", "-v")
	if cmd.SysProcAttr == nil || cmd.SysProcAttr.Pdeathsig != syscall.SIGKILL {
		t.Error("renderer does not die with the server")
	}
	args := cmd.Args
	if childproc.LandlockABI() > 0 {
		if args[0] != "quarry-confine" || !strings.Contains(args[1], `"w":["`+dir+`"`) {
			t.Fatalf("renderer not confined to its directory: %q", args)
		}
		args = args[3:] // the program and its arguments, as exec'd once confined
	}
	if _, err := exec.LookPath("prlimit"); err == nil {
		if filepath.Base(args[0]) != "prlimit" || args[1] != "--data=268435456" {
			t.Errorf("renderer not memory-limited: %v", cmd.Args)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil || !strings.Contains(string(out), "pdftoppm version") {
		t.Errorf("confined pdftoppm -v: %v %s", err, out)
	}
}

// TestRenderUnderLowerHardLimits: a server whose own hard limits are below the renderer's
// (a container's ulimit) still renders, its renderer getting those limits; asking prlimit for
// more failed every render with "failed to set the AS resource limit: Operation not permitted".
func TestRenderUnderLowerHardLimits(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("SKIP: pdftoppm (poppler-utils) is not installed")
	}
	const as = 1600 << 20 // below RenderMemory (768 MiB) + 1 GiB
	if os.Getenv("QUARRY_UI_TEST_LOWERED") == "" {
		pl, err := exec.LookPath("prlimit")
		if err != nil {
			t.Skip("prlimit (util-linux) not installed")
		}
		cmd := exec.Command(pl, fmt.Sprintf("--as=%d", as), "--", os.Args[0], "-test.run=^TestRenderUnderLowerHardLimits$", "-test.v")
		cmd.Env = append(os.Environ(), "QUARRY_UI_TEST_LOWERED=1")
		if out, err := cmd.CombinedOutput(); err != nil || !bytes.Contains(out, []byte("--- PASS")) {
			t.Fatalf("under a %d-byte address-space limit: %v\n%s", as, err, out)
		}
		return
	}
	h := New(Config{})
	if cmd := h.command(t.Context(), t.TempDir(), "pdftoppm", "-v"); filepath.Base(cmd.Args[len(cmd.Args)-6]) == "prlimit" && cmd.Args[len(cmd.Args)-4] != fmt.Sprintf("--as=%d", as) {
		t.Errorf("renderer's limits %v, want the server's hard address-space limit", cmd.Args)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, renderRequest(t, hugePagePDF(600), nil))
	if rec.Code != 200 {
		t.Fatalf("render: %d %s", rec.Code, rec.Body)
	}
}
