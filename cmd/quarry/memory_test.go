package main

import (
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// envTestAsMain makes this test binary behave as quarry itself, plugins included, so tests can
// measure a real server's process tree.
const envTestAsMain = "QUARRY_TEST_AS_MAIN"

// TestMain lets the test binary run as quarry itself when envTestAsMain is set: the memory
// tests start it as `quarry serve`, and it re-executes itself as its own plugins. Otherwise the
// tests call the commands in process and turn the plugin host off: a re-exec of the test
// binary would run the tests, not `quarry plugin serve`.
func TestMain(m *testing.M) {
	if os.Getenv(envTestAsMain) != "" {
		main()
		os.Exit(0)
	}
	if err := os.Setenv(envPlugins, "off"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// treeRSS is the resident memory of pid and all its descendants, from /proc.
func treeRSS(pid int) int64 {
	children := map[int][]int{}
	rss := map[int]int64{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// Fields after the command name (which may hold spaces) start after the last ')'.
		i := bytes.LastIndexByte(stat, ')')
		f := strings.Fields(string(stat[i+1:]))
		if len(f) < 22 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pages, _ := strconv.ParseInt(f[21], 10, 64)
		children[ppid] = append(children[ppid], p)
		rss[p] = pages * int64(os.Getpagesize())
	}
	var total int64
	var walk func(int)
	walk = func(p int) {
		total += rss[p]
		for _, c := range children[p] {
			walk(c)
		}
	}
	walk(pid)
	return total
}

// server is `quarry serve` run from this test binary.
type testServer struct {
	url  string
	cmd  *exec.Cmd
	peak atomic.Int64
	stop chan struct{}
	done chan struct{}
}

func startServer(t *testing.T) *testServer {
	t.Helper()
	return startServerArgs(t)
}

// startServerArgs starts `quarry serve` with the key "k" and extra flags.
func startServerArgs(t *testing.T, extra ...string) *testServer {
	t.Helper()
	return startServerEnv(t, nil, extra...)
}

// startServerEnv is startServerArgs with environment variables (KEY=VALUE) set on top.
func startServerEnv(t *testing.T, env []string, extra ...string) *testServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	self, _ := os.Executable()
	dir := t.TempDir()
	args := append([]string{"serve", "--addr", addr, "--api-key", "k", "--data-dir", filepath.Join(dir, "data"), "--log-level", "error"}, extra...)
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), envTestAsMain+"=1", envPlugins+"=on", "QUARRY_PLUGIN_CACHE_DIR="+filepath.Join(dir, "cache"), "TMPDIR="+dir)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &testServer{url: "http://" + addr, cmd: cmd, stop: make(chan struct{}), done: make(chan struct{})}
	t.Cleanup(func() {
		close(s.stop)
		<-s.done
		cmd.Process.Signal(os.Interrupt)
		ch := make(chan error, 1)
		go func() { ch <- cmd.Wait() }()
		select {
		case <-ch:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	})
	go func() {
		defer close(s.done)
		for {
			select {
			case <-s.stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			if r := treeRSS(cmd.Process.Pid); r > s.peak.Load() {
				s.peak.Store(r)
			}
		}
	}()
	for i := 0; ; i++ {
		resp, err := http.Get(s.url + "/healthcheck")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 200 {
			t.Fatalf("server did not start: %v\n%s", err, stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// post sends one file and returns the status and the start of the answer.
func (s *testServer) post(t *testing.T, name string, body io.Reader, ctype string) (int, string) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		h := make(map[string][]string)
		h["Content-Disposition"] = []string{`form-data; name="files"; filename="` + name + `"`}
		if ctype != "" {
			h["Content-Type"] = []string{ctype}
		}
		w, _ := mw.CreatePart(h)
		io.Copy(w, body)
		mw.Close()
		pw.Close()
	}()
	req, _ := http.NewRequest("POST", s.url+"/general/v0/general", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("unstructured-api-key", "k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	defer resp.Body.Close()
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
	io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, string(head)
}

// Attack documents, written to dir.

func paragraphsGzip(t *testing.T, dir string) string {
	p := filepath.Join(dir, "paras.txt.gz")
	f, _ := os.Create(p)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	chunk := bytes.Repeat([]byte("Short line here.\n\n"), 1<<16)
	for n := 0; n < 96<<20; n += len(chunk) {
		zw.Write(chunk)
	}
	zw.Close()
	f.Close()
	return p
}

func bigText(t *testing.T, dir string) string {
	p := filepath.Join(dir, "big.txt")
	f, _ := os.Create(p)
	w := bufio.NewWriter(f)
	chunk := bytes.Repeat([]byte("Another short paragraph of text.\n\n"), 1<<15)
	for n := 0; n < 95<<20; n += len(chunk) {
		w.Write(chunk)
	}
	w.Flush()
	f.Close()
	return p
}

func docxBomb(t *testing.T, dir string) string {
	p := filepath.Join(dir, "bomb.docx")
	f, _ := os.Create(p)
	zw := zip.NewWriter(f)
	w, _ := zw.Create("[Content_Types].xml")
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)
	w, _ = zw.Create("_rels/.rels")
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`)
	w, _ = zw.Create("word/document.xml")
	io.WriteString(w, `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`)
	chunk := bytes.Repeat([]byte(`<w:p><w:r><w:t>Hello world paragraph.</w:t></w:r></w:p>`), 1<<14)
	for n := 0; n < 250<<20; n += len(chunk) {
		w.Write(chunk)
	}
	io.WriteString(w, `</w:body></w:document>`)
	zw.Close()
	f.Close()
	return p
}

func deepJSON(t *testing.T, dir string) string {
	p := filepath.Join(dir, "deep.json")
	os.WriteFile(p, append(bytes.Repeat([]byte("["), 100000), bytes.Repeat([]byte("]"), 100000)...), 0o644)
	return p
}

const memoryBudget = 1500 << 20

// The attacks: small uploads that inflate (gzip, DOCX), a large text, a deeply nested JSON. Each
// once took the server to gigabytes. Now the server and its children together stay under
// 1.5 GB, and the server answers other requests (health checks, a small document) meanwhile.
func TestAttackMemoryBombsStayBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server and sends ~200 MB of attack documents")
	}
	dir := t.TempDir()
	s := startServer(t)
	t.Logf("idle server process tree: %d MiB", treeRSS(s.cmd.Process.Pid)>>20)
	var stopProbe atomic.Bool
	var probeFail atomic.Value
	var maxHealth atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stopProbe.Load() {
			start := time.Now()
			resp, err := http.Get(s.url + "/healthcheck")
			if err != nil || resp.StatusCode != 200 {
				probeFail.Store(fmt.Sprintf("healthcheck: %v", err))
				return
			}
			resp.Body.Close()
			if d := time.Since(start).Milliseconds(); d > maxHealth.Load() {
				maxHealth.Store(d)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}()
	type attack struct {
		name, file, ctype string
		deep              bool
	}
	// The deep JSON goes first, on a fresh server: its bound (400 MiB) is tighter than what a
	// server that has just handled a 95 MB upload keeps mapped.
	for _, a := range []attack{
		{"100k-deep JSON", deepJSON(t, dir), "application/json", true},
		{"gzip of short paragraphs (96 MB inflated)", paragraphsGzip(t, dir), "application/gzip", false},
		{"95 MB text", bigText(t, dir), "text/plain", false},
		{"DOCX with a 250 MB document.xml", docxBomb(t, dir), "", false},
	} {
		s.peak.Store(treeRSS(s.cmd.Process.Pid))
		f, _ := os.Open(a.file)
		fi, _ := f.Stat()
		start := time.Now()
		// A small document is answered while the attack runs.
		small := make(chan string, 1)
		go func() {
			time.Sleep(500 * time.Millisecond)
			code, body := s.post(t, "small.txt", strings.NewReader("A small document.\n\nIt has two paragraphs."), "text/plain")
			small <- fmt.Sprintf("%d %s", code, body)
		}()
		code, body := s.post(t, filepath.Base(a.file), f, a.ctype)
		f.Close()
		peak := s.peak.Load()
		t.Logf("%s (%d KB): %d in %s, peak RSS of server+children %d MiB: %.120s", a.name, fi.Size()>>10, code, time.Since(start).Round(time.Millisecond), peak>>20, body)
		if got := <-small; !strings.HasPrefix(got, "200 ") {
			t.Errorf("%s: a small document meanwhile got %s", a.name, got)
		}
		if peak > memoryBudget {
			t.Errorf("%s: peak %d MiB, budget %d MiB", a.name, peak>>20, memoryBudget>>20)
		}
		// Refused as the client's problem (4xx), never a 500.
		if code < 400 || code >= 500 {
			t.Errorf("%s: %d %s", a.name, code, body)
		}
		if a.deep && (code < 400 || peak > 400<<20) {
			t.Errorf("%s: %d with a peak of %d MiB; want refused under 400 MiB", a.name, code, peak>>20)
		}
	}
	stopProbe.Store(true)
	wg.Wait()
	if v := probeFail.Load(); v != nil {
		t.Error(v)
	}
	t.Logf("slowest health check during the attacks: %d ms", maxHealth.Load())
	if maxHealth.Load() > 5000 {
		t.Errorf("health checks took up to %d ms", maxHealth.Load())
	}
}

// descendants lists the live processes below pid (zombies excluded).
func descendants(pid int) []int {
	children := map[int][]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 2 || f[0] == "Z" {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], p)
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for _, c := range children[p] {
			out = append(out, c)
			walk(c)
		}
	}
	walk(pid)
	return out
}

// The server killed with SIGKILL (the OOM killer, a crash): its plugin processes must not
// live on as orphans holding memory.
func TestServerChildrenDieWithIt(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	s := startServer(t)
	if code, body := s.post(t, "a.txt", strings.NewReader("Hello.\n\nA paragraph."), "text/plain"); code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	kids := descendants(s.cmd.Process.Pid)
	if len(kids) == 0 {
		t.Fatal("no plugin process started: formats are not out of process")
	}
	s.cmd.Process.Kill()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range kids {
		for {
			stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
			if err != nil || strings.Contains(string(stat[bytes.LastIndexByte(stat, ')')+1:]), " Z ") {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("process %d outlived the server", pid)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// QUARRY_PLUGINS=off: the server partitions inside its own process and starts no plugin
// process (TestServerChildrenDieWithIt shows the default does start them).
func TestPluginsOff(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	s := startServerEnv(t, []string{envPlugins + "=off"})
	if code, body := s.post(t, "a.txt", strings.NewReader("Hello.\n\nA paragraph."), "text/plain"); code != 200 || !strings.Contains(body, "A paragraph.") {
		t.Fatalf("%d %s", code, body)
	}
	if kids := descendants(s.cmd.Process.Pid); len(kids) != 0 {
		t.Fatalf("plugin processes %v started with %s=off", kids, envPlugins)
	}
}
