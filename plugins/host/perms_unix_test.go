//go:build unix

package host

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A plugin runs as the server with its credentials and documents. A directory or binary that
// another local user may write let that user install or replace a plugin (the checksum file
// sits beside it, so it checks integrity, not origin): a plugin directory of mode 0777, or
// a binary of 0777 in a safe one, was discovered and launched. They are refused now, with the
// reason, as sshd's StrictModes refuses keys others can write.
func TestAttackPluginWritableByOthersRefused(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(pluginDir, Prefix+"misbehave"))
	if err != nil {
		t.Fatal(err)
	}
	install := func(dir, name string, mode os.FileMode) {
		t.Helper()
		p := filepath.Join(dir, Prefix+name)
		if err := os.WriteFile(p, src, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // not subject to the umask
			t.Fatal(err)
		}
		if _, err := WriteChecksum(p); err != nil {
			t.Fatal(err)
		}
	}
	safe := t.TempDir()
	install(safe, "good", 0o755)
	install(safe, "worldwritable", 0o777)
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	install(open, "inopendir", 0o755)
	if err := os.Chmod(open, 0o777|os.ModeSticky); err != nil {
		t.Fatal(err)
	}
	specs, err := New(Config{Dirs: []string{safe, open}}).Discover()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if len(names) != 1 || names[0] != "good" {
		t.Errorf("discovered %v, want only the plugin no other user can write", names)
	}
	if err == nil || !strings.Contains(err.Error(), "plugin worldwritable: "+filepath.Join(safe, Prefix+"worldwritable")+" is writable by other users") ||
		!strings.Contains(err.Error(), "plugin dir "+open+" is writable by other users") {
		t.Errorf("err = %v", err)
	}
	// Group-writable by the server's own group (umask 002 with per-user groups) stays accepted;
	// by another group it is refused.
	grp := t.TempDir()
	install(grp, "owngroup", 0o775)
	specs, err = New(Config{Dirs: []string{grp}}).Discover()
	if len(specs) != 1 || err != nil {
		t.Errorf("group-writable by the server's own group: %v, %v", specs, err)
	}
	if others := otherGroup(); others >= 0 {
		if err := os.Chown(filepath.Join(grp, Prefix+"owngroup"), -1, others); err != nil {
			t.Errorf("chown to group %d: %v", others, err)
		} else {
			specs, err = New(Config{Dirs: []string{grp}}).Discover()
			if len(specs) != 0 || err == nil || !strings.Contains(err.Error(), "writable by other users") {
				t.Errorf("group-writable by group %d: %v, %v", others, specs, err)
			}
		}
	}
	// A binary another user owns may be rewritten by them whatever its mode (tested as root,
	// the only user that can give a file away).
	if os.Geteuid() == 0 {
		own := t.TempDir()
		install(own, "theirs", 0o755)
		if err := os.Chown(filepath.Join(own, Prefix+"theirs"), 4242, -1); err != nil {
			t.Fatal(err)
		}
		specs, err = New(Config{Dirs: []string{own}}).Discover()
		if len(specs) != 0 || err == nil || !strings.Contains(err.Error(), "is owned by another user (uid 4242)") {
			t.Errorf("binary owned by uid 4242: %v, %v", specs, err)
		}
	}
}

// otherGroup is a group other than this process's own that it may give a file to (any, as
// root; else a supplementary group), or -1.
func otherGroup() int {
	if os.Geteuid() == 0 {
		return os.Getegid() + 4242
	}
	gs, _ := syscall.Getgroups()
	for _, g := range gs {
		if g != os.Getegid() {
			return g
		}
	}
	return -1
}

// A plugin process got the host's whole environment (go-plugin appends it to the command's):
// a format plugin parsing a hostile document, or a third-party plugin, held the API key, the
// key sealing every stored connector credential and the database URL. It now gets the
// environment without Quarry's own secrets (childproc.Environ); a provider's key stays, the
// VLM strategy needs it.
func TestAttackPluginDoesNotInheritSecrets(t *testing.T) {
	t.Setenv("UNSTRUCTURED_API_KEY", "api-key-value")
	t.Setenv("QUARRY_SECRET_KEY", "sealing-key-value")
	t.Setenv("QUARRY_DATABASE", "postgres://quarry:pw@db/quarry")
	t.Setenv("ANTHROPIC_API_KEY", "provider-key")
	h := newHost(t, Config{Workers: 1})
	got, err := run(t, h, "env", textDoc(10))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Text != "ANTHROPIC_API_KEY PATH" {
		t.Errorf("the plugin's environment holds %q, want only ANTHROPIC_API_KEY PATH of the listed", got[0].Text)
	}
}
