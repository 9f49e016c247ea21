package office_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/formats/office"
)

// The tests in this file convert a document large enough that LibreOffice is still working on
// it when the conversion is abandoned (about ten seconds of layout on an idle machine), then
// look through /proc for any process whose command line or environment names the
// conversion's temporary directory: none may survive, and the directory must be gone.

// envHelper makes the test binary a parent process that runs one conversion until killed;
// envHelperBinary, when set, is the LibreOffice it runs.
const (
	envHelper       = "QUARRY_OFFICE_TEST_CONVERT"
	envHelperBinary = "QUARRY_OFFICE_TEST_BINARY"
)

// TestMain lets TestParentKilled re-execute the test binary as the process that launches
// LibreOffice, so that it can SIGKILL it for real.
func TestMain(m *testing.M) {
	if in := os.Getenv(envHelper); in != "" {
		os.Exit(convertUntilKilled(in))
	}
	os.Exit(m.Run())
}

func convertUntilKilled(in string) int {
	data, err := os.ReadFile(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, err = office.Converter{Binary: os.Getenv(envHelperBinary), Timeout: 10 * time.Minute}.Convert(context.Background(), data, ".txt", "docx")
	fmt.Fprintln(os.Stderr, "conversion ended before the kill:", err)
	return 2
}

// slowDocument writes a plain-text document of about 6 MB: LibreOffice lays out thousands of
// pages to export it, which takes far longer than the tests wait for survivors.
func slowDocument(t *testing.T) string {
	t.Helper()
	words := []string{"quarry", "stone", "river", "table", "column", "value", "partition", "ledger"}
	var b bytes.Buffer
	for i := 0; b.Len() < 6<<20; i++ {
		for j := range 12 {
			b.WriteString(words[(i*7+j*3+i/5)%len(words)])
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(i))
		b.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "slow.txt")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

type proc struct {
	pid     int
	cmdline string
	age     time.Duration
}

// age converts a process's start time (clock ticks after boot, /proc/PID/stat) to its age.
// USER_HZ is 100 on every Linux architecture Go supports.
func age(startTicks string) time.Duration {
	ticks, err := strconv.ParseFloat(startTicks, 64)
	b, _ := os.ReadFile("/proc/uptime")
	f := strings.Fields(string(b))
	if err != nil || len(f) == 0 {
		return 0
	}
	up, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	return time.Duration((up - ticks/100) * float64(time.Second))
}

// referencing lists the live processes (zombies aside) other than this one whose command line
// or environment contains s.
func referencing(s string) []proc {
	ents, _ := os.ReadDir("/proc")
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if !bytes.Contains(cmd, []byte(s)) && !bytes.Contains(env, []byte(s)) {
			continue
		}
		stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		// After the command name: state, then the 20th field on is starttime in clock ticks.
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 20 || f[0] == "Z" {
			continue
		}
		out = append(out, proc{pid, strings.Join(strings.Fields(strings.ReplaceAll(string(cmd), "\x00", " ")), " "), age(f[19])})
	}
	return out
}

// converting reports, given the processes naming the conversion's directory, whether
// LibreOffice is under way: it has restarted after creating its profile (a second
// soffice.bin) or has been running for 3 s. Half a second later it is loading or laying out
// the document.
func converting() func([]proc) bool {
	seen := map[int]bool{}
	return func(ps []proc) bool {
		for _, p := range ps {
			f := strings.Fields(p.cmdline)
			if len(f) == 0 || filepath.Base(f[0]) != "soffice.bin" {
				continue
			}
			seen[p.pid] = true
			if len(seen) >= 2 || p.age > 3*time.Second {
				time.Sleep(500 * time.Millisecond)
				return true
			}
		}
		return false
	}
}

// waitFor polls the processes naming base until ready says so.
func waitFor(t *testing.T, base string, ready func([]proc) bool, done <-chan struct{}) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-done:
			t.Fatal("the conversion ended before it could be abandoned")
		default:
		}
		if ready(referencing(base)) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("LibreOffice never started under %s", base)
}

// assertNothingLeft waits up to grace for every process naming base to end and for base to be
// empty; whatever survives is reported and killed.
func assertNothingLeft(t *testing.T, base string, grace time.Duration) {
	t.Helper()
	deadline := time.Now().Add(grace)
	var left []proc
	var files []string
	for {
		left = referencing(base)
		files = files[:0]
		ents, _ := os.ReadDir(base)
		for _, e := range ents {
			files = append(files, e.Name())
		}
		if len(left) == 0 && len(files) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, p := range left {
		t.Errorf("process %d survived %s later: %s", p.pid, grace, p.cmdline)
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
	if len(files) > 0 {
		t.Errorf("temporary files left in %s: %v", base, files)
	}
}

func needSlowTests(t *testing.T) {
	needSoffice(t)
	if testing.Short() {
		t.Skip("short")
	}
}

// TestCancelLeavesNothing: a request cancelled while LibreOffice converts returns promptly,
// and by the time it has returned no LibreOffice process and no temporary file remains.
func TestCancelLeavesNothing(t *testing.T) {
	needSlowTests(t)
	in, err := os.ReadFile(slowDocument(t))
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	t.Setenv("TMPDIR", base)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	var convErr error
	go func() {
		defer close(done)
		_, convErr = office.Converter{Timeout: 10 * time.Minute}.Convert(ctx, in, ".txt", "docx")
	}()
	waitFor(t, base, converting(), done)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Convert did not return 10 s after its context was cancelled")
	}
	if !errors.Is(convErr, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", convErr)
	}
	// Convert has returned: the processes are already gone (a killed grandchild may take a
	// scheduler tick to leave /proc).
	assertNothingLeft(t, base, 200*time.Millisecond)
}

// TestParentKilled: when the process that launched LibreOffice is killed with SIGKILL (the
// plugin host kills a stuck plugin so), LibreOffice dies with it and its temporary directory
// is removed.
func TestParentKilled(t *testing.T) {
	needSlowTests(t)
	killParent(t, "", slowDocument(t), converting())
}

// TestParentKilledChildren: the processes LibreOffice forks die with the parent too. The fake
// LibreOffice forks a child that would run for ten minutes, as soffice.bin forks helpers and
// the launcher forks soffice.bin; the parent-death signal does not reach it.
func TestParentKilledChildren(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "soffice")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nsleep 600 &\nwait\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(dir, "in.doc")
	if err := os.WriteFile(in, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	killParent(t, script, in, func(ps []proc) bool {
		for _, p := range ps {
			if p.cmdline == "sleep 600" {
				return true
			}
		}
		return false
	})
}

// killParent runs a conversion of in with LibreOffice bin ("" for the installed one) in a
// child process, SIGKILLs that process once ready says the conversion is under way, and
// asserts that nothing of the conversion remains 5 s later.
func killParent(t *testing.T, bin, in string, ready func([]proc) bool) {
	t.Helper()
	base := t.TempDir()
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), envHelper+"="+in, envHelperBinary+"="+bin, "TMPDIR="+base)
	stderr, err := parent.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var msg strings.Builder
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			msg.WriteString(sc.Text() + "\n")
		}
	}()
	waitFor(t, base, ready, done)
	if err := parent.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-done
	_ = parent.Wait()
	if msg.Len() > 0 {
		t.Logf("parent's stderr: %s", msg.String())
	}
	assertNothingLeft(t, base, 5*time.Second)
}
