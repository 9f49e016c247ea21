package childproc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A confined helper reads and writes its own directory and runs system programs, but cannot
// read a file elsewhere — the data directory's secret key, another request's upload — nor
// write outside its directory. Without confinement the same commands succeed (the attack).
func TestAttackConfinedHelperCannotReadOutside(t *testing.T) {
	if LandlockABI() == 0 {
		t.Skip(ErrNoLandlock)
	}
	base := t.TempDir()
	data, own, other := filepath.Join(base, "data"), filepath.Join(base, "own"), filepath.Join(base, "other")
	for _, d := range []string{data, own, other} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(data, "secret.key"), []byte("TOPSECRET"), 0o600)
	os.WriteFile(filepath.Join(other, "upload.docx"), []byte("OTHERS"), 0o600)
	os.WriteFile(filepath.Join(own, "input.docx"), []byte("MINE"), 0o600)
	run := func(confined bool, script string) (string, error) {
		cmd := exec.Command("/bin/sh", "-c", script)
		cmd.Dir = own
		if confined {
			if err := Confine(cmd, Confinement{Read: SystemRead, Write: append([]string{own}, SystemWrite...)}); err != nil {
				t.Fatal(err)
			}
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, steal := range []string{
		"cat " + filepath.Join(data, "secret.key"),
		"cat " + filepath.Join(other, "upload.docx"),
		"ls " + data,
		"echo x > " + filepath.Join(other, "planted"),
	} {
		if _, err := run(false, steal); err != nil {
			t.Fatalf("unconfined %q failed (the attack must work without confinement): %v", steal, err)
		}
		out, err := run(true, steal)
		if err == nil || strings.Contains(out, "SECRET") || strings.Contains(out, "OTHERS") {
			t.Errorf("confined %q: %v %q", steal, err, out)
		}
	}
	out, err := run(true, "cat input.docx && echo made > tmp && cat tmp && rm tmp && mkdir d && tr a-z A-Z < /dev/null")
	if err != nil || out != "MINEmade\n" {
		t.Errorf("confined helper's own work: %v %q", err, out)
	}
}

// A data directory under a system directory every confined helper reads is not hidden: the
// server says so at start-up.
func TestSystemReadable(t *testing.T) {
	for path, want := range map[string]bool{
		"/usr/local/quarry/data": true, "/usr": true, "/etc/fonts/x": true, "/proc/1/environ": true,
		"/var/lib/quarry": false, "/etc/quarry/keys": false, "/usrx/data": false, "/tmp/data": false, "/": false,
	} {
		if got := SystemReadable(path); got != want {
			t.Errorf("SystemReadable(%q) = %v, want %v", path, got, want)
		}
	}
}
