package childproc

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

func TestLimited(t *testing.T) {
	if name, args := Limited(0, 1<<30, "pandoc", "-v"); name != "pandoc" || len(args) != 1 {
		t.Errorf("no limit: %s %v", name, args)
	}
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit not installed")
	}
	hd, ha := HardLimits()
	name, args := Limited(1<<40, 1<<40, "soffice", "--headless")
	if !strings.HasSuffix(name, "prlimit") || len(args) != 5 || args[2] != "--" || args[3] != "soffice" || args[4] != "--headless" {
		t.Fatalf("limited: %s %v", name, args)
	}
	data, _ := strconv.ParseUint(strings.TrimPrefix(args[0], "--data="), 10, 64)
	as, _ := strconv.ParseUint(strings.TrimPrefix(args[1], "--as="), 10, 64)
	if data != min(1<<40, hd) || as != min(2<<40, ha) {
		t.Errorf("limits %d/%d, hard %d/%d", data, as, hd, ha)
	}
}
