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
// envOnce makes it a process that converts one document (a .doc) and exits 0 on success.
const (
	envHelper       = "QUARRY_OFFICE_TEST_CONVERT"
	envHelperBinary = "QUARRY_OFFICE_TEST_BINARY"
	envOnce         = "QUARRY_OFFICE_TEST_ONCE"
)

// TestMain lets TestParentKilled re-execute the test binary as the process that launches
// LibreOffice, so that it can SIGKILL it for real.
func TestMain(m *testing.M) {
	if in := os.Getenv(envHelper); in != "" {
		os.Exit(convertUntilKilled(in))
	}
	if in := os.Getenv(envOnce); in != "" {
		os.Exit(convertOnce(in))
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

func convertOnce(in string) int {
	data, err := os.ReadFile(in)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out, err := office.Converter{Binary: os.Getenv(envHelperBinary)}.Convert(context.Background(), data, ".doc", "docx")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "converted to %d bytes\n", len(out))
	return 0
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

// officeWatch follows the LibreOffice processes of one conversion: ready reports, given the
// processes naming the conversion's directory, whether LibreOffice is under way — it has
// restarted after creating its profile (a second soffice.bin) or has been running for 3 s;
// half a second later it is loading or laying out the document. It records the unix sockets
// LibreOffice bound meanwhile (its IPC socket lives in /tmp whatever TMPDIR says).
type officeWatch struct {
	seen    map[int]bool
	sockets map[string]bool
}

func converting() *officeWatch {
	return &officeWatch{seen: map[int]bool{}, sockets: map[string]bool{}}
}

func (w *officeWatch) ready(ps []proc) bool {
	for _, p := range ps {
		f := strings.Fields(p.cmdline)
		if len(f) == 0 || filepath.Base(f[0]) != "soffice.bin" {
			continue
		}
		w.seen[p.pid] = true
		if len(w.seen) >= 2 || p.age > 3*time.Second {
			time.Sleep(500 * time.Millisecond)
			for _, s := range unixSockets(p.pid) {
				w.sockets[s] = true
			}
			return true
		}
	}
	return false
}

func (w *officeWatch) paths() []string {
	var out []string
	for s := range w.sockets {
		out = append(out, s)
	}
	return out
}

// unixSockets returns the file-system paths of the unix sockets pid holds.
func unixSockets(pid int) []string {
	inodes := map[string]bool{}
	fds, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	for _, fd := range fds {
		l, _ := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name()))
		if ino, ok := strings.CutPrefix(l, "socket:["); ok {
			inodes[strings.TrimSuffix(ino, "]")] = true
		}
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/net/unix", pid))
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		// Num RefCount Protocol Flags Type St Inode Path
		if f := strings.Fields(line); len(f) >= 8 && inodes[f[6]] && strings.HasPrefix(f[7], "/") {
			out = append(out, f[7])
		}
	}
	return out
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

// assertNothingLeft waits up to grace for every process naming base to end, for base to be
// empty and for the files in extra to be gone; whatever survives is reported (and killed).
func assertNothingLeft(t *testing.T, base string, grace time.Duration, extra ...string) {
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
		for _, p := range extra {
			if _, err := os.Lstat(p); err == nil {
				files = append(files, p)
			}
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
		t.Errorf("temporary files left (under %s or named by the test): %v", base, files)
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
	w := converting()
	waitFor(t, base, w.ready, done)
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
	t.Logf("LibreOffice's sockets: %v", w.paths())
	assertNothingLeft(t, base, 200*time.Millisecond, w.paths()...)
}

// TestParentKilled: when the process that launched LibreOffice is killed with SIGKILL (the
// plugin host kills a stuck plugin so), LibreOffice dies with it and its temporary directory
// is removed.
func TestParentKilled(t *testing.T) {
	needSlowTests(t)
	w := converting()
	killParent(t, "", slowDocument(t), w.ready, w.paths)
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
	}, nil)
}

// killParent runs a conversion of in with LibreOffice bin ("" for the installed one) in a
// child process, SIGKILLs that process once ready says the conversion is under way, and
// asserts that nothing of the conversion (nor the files extra names then) remains 5 s later.
func killParent(t *testing.T, bin, in string, ready func([]proc) bool, extra func() []string) {
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
	var files []string
	if extra != nil {
		files = extra()
		t.Logf("also expected gone: %v", files)
	}
	assertNothingLeft(t, base, 5*time.Second, files...)
}

// TestUnderLowerHardLimits: where this process's hard memory limits are below the converter's
// (the plugin host runs formats under 768 MiB of data), LibreOffice gets those limits instead
// of a prlimit call that fails. It failed every conversion in `quarry serve` with "prlimit:
// failed to set the DATA resource limit: Operation not permitted".
func TestUnderLowerHardLimits(t *testing.T) {
	pl, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("prlimit (util-linux) not installed")
	}
	const data, as = 700 << 20, 4 << 30
	run := func(bin, in string) (string, error) {
		cmd := exec.Command(pl, "--data="+strconv.Itoa(data), "--as="+strconv.Itoa(as), "--", os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envOnce+"="+in, envHelperBinary+"="+bin)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	dir := t.TempDir()
	limits := filepath.Join(dir, "limits")
	bin := filepath.Join(dir, "soffice")
	fakeOffice(t, bin, "grep -E 'Max (data size|address space)' /proc/self/limits > "+limits+"\nmkdir -p \"$out\" && printf x > \"$out/document.docx\"\n")
	in := filepath.Join(dir, "in.doc")
	if err := os.WriteFile(in, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := run(bin, in); err != nil {
		t.Fatalf("conversion under lower hard limits: %v: %s", err, out)
	}
	b, err := os.ReadFile(limits)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{strconv.Itoa(data), strconv.Itoa(as)}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if f := strings.Fields(line); i >= len(want) || len(f) < 5 || f[3] != want[i] || f[4] != want[i] {
			t.Errorf("child's limit %q, want soft and hard %s", line, want[min(i, len(want)-1)])
		}
	}

	needSoffice(t)
	if out, err := run("", filepath.Join(refDir, "docs", "duplicate-paragraphs.doc")); err != nil {
		t.Errorf("LibreOffice under lower hard limits: %v: %s", err, out)
	}
}
