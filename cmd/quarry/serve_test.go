package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lineWriter hands each complete line written to it to a channel.
type lineWriter struct {
	buf   bytes.Buffer
	lines chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	for {
		line, err := w.buf.ReadString('\n')
		if err != nil {
			w.buf.WriteString(line)
			return len(p), nil
		}
		select {
		case w.lines <- line:
		default:
		}
	}
}

// serve starts `quarry serve` on a free loopback port and returns its "ready" log line.
func serve(t *testing.T, args ...string) map[string]any {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &lineWriter{lines: make(chan string, 1000)}
	done := make(chan error, 1)
	go func() {
		done <- runServe(ctx, append([]string{"--addr", "127.0.0.1:0", "--data-dir", t.TempDir()}, args...), io.Discard, stderr)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	var lines []string
	timeout := time.After(20 * time.Second)
	for {
		select {
		case line := <-stderr.lines:
			lines = append(lines, line)
			var rec map[string]any
			if json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "ready" {
				for _, l := range lines {
					if strings.Contains(l, "migration") || strings.Contains(l, "River client") {
						t.Errorf("routine start-up line: %s", l)
					}
				}
				rec["_startup"] = strings.Join(lines, "") // every line up to ready, for tests of warnings
				return rec
			}
		case err := <-done:
			t.Fatalf("serve ended: %v\n%s", err, strings.Join(lines, ""))
		case <-timeout:
			t.Fatalf("no ready line:\n%s", strings.Join(lines, ""))
		}
	}
}

// Not on a terminal, start-up is JSON lines: one says where the UI, the docs and the health
// check are; migrations stay quiet; "/" leads to the UI.
func TestServeAnnouncesWhereThingsAre(t *testing.T) {
	rec := serve(t)
	for _, k := range []string{"ui", "docs", "openapi", "health"} {
		u, _ := rec[k].(string)
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Fatalf("%s: %q", k, u)
		}
	}
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	base := strings.TrimSuffix(rec["ui"].(string), "/ui/")
	resp, err := client.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui/" {
		t.Errorf("GET /: %d → %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, k := range []string{"ui", "health", "docs", "openapi"} {
		resp, err := http.Get(rec[k].(string))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s %s: %d", k, rec[k], resp.StatusCode)
		}
	}
}

func TestAnnounceOnTerminal(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var b bytes.Buffer
	announce(&b, true, nil, ln, 0, "sqlite:data/quarry.db", []string{"/srv/quarry/data/local"})
	out := b.String()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, want := range []string{"Web UI", "/ui/", "API docs", "/docs", "Health check", "/healthcheck", "only this machine can connect", "Ctrl-C", "Local folders /srv/quarry/data/local"} {
		if !strings.Contains(out, want) {
			t.Errorf("banner lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "http://127.0.0.1:"+itoa(port)+"/ui/") {
		t.Errorf("banner does not give the real address:\n%s", out)
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "{") {
			t.Errorf("JSON on a terminal: %s", sc.Text())
		}
	}
	if e := endpointsFor(&net.TCPAddr{IP: net.IPv6zero, Port: 8000}); e.UI != "http://localhost:8000/ui/" {
		t.Errorf("wildcard bind: %s", e.UI)
	}
}

// A taken port is a sentence that says what to do.
func TestServePortInUse(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, err = listenOn(context.Background(), ln.Addr().String())
	if err == nil || !strings.Contains(err.Error(), "already in use") || !strings.Contains(err.Error(), "--addr") {
		t.Errorf("got %v", err)
	}
}

// An --addr that is not HOST:PORT says the form it takes.
func TestServeBadAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"localhost":       "--addr localhost is not HOST:PORT; give e.g. --addr 127.0.0.1:9000",
		"127.0.0.1:80000": "port 80000 is out of range",
	} {
		ln, err := listenOn(context.Background(), addr)
		if err == nil {
			ln.Close()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", addr, err, want)
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// Refused keys count once per address across the platform API, the UI and the partition API;
// --auth-failures sets the budget and -1 turns the limit off (behind a limiting reverse proxy).
func TestServeAuthFailuresSharedAcrossSurfaces(t *testing.T) {
	status := func(base, method, path, key string) int {
		req, _ := http.NewRequest(method, base+path, nil)
		req.Header.Set("unstructured-api-key", key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	base := func(rec map[string]any) string {
		h, _ := rec["health"].(string)
		return strings.TrimSuffix(h, "/healthcheck")
	}
	b := base(serve(t, "--api-key", "k", "--auth-failures", "3"))
	for _, p := range [][2]string{{"GET", "/api/v1/sources"}, {"POST", "/ui/session"}, {"POST", "/general/v0/general"}} {
		if code := status(b, p[0], p[1], "guess"); code != 401 {
			t.Fatalf("%s %s with a wrong key: %d", p[0], p[1], code)
		}
	}
	if code := status(b, "GET", "/api/v1/sources", "k"); code != 429 {
		t.Fatalf("after 3 refused keys on three surfaces: %d, want 429", code)
	}
	b = base(serve(t, "--api-key", "k", "--auth-failures", "-1"))
	for i := 0; i < 20; i++ {
		status(b, "GET", "/api/v1/sources", "guess")
	}
	if code := status(b, "GET", "/api/v1/sources", "k"); code != 200 {
		t.Fatalf("--auth-failures -1, after 20 refused keys: %d, want 200", code)
	}
	if err := runServe(context.Background(), []string{"--auth-failures", "0"}, io.Discard, io.Discard); err == nil {
		t.Fatal("--auth-failures 0 accepted")
	}
}

// With keys, /metrics on the service's address needs one; --metrics-addr serves it keyless on
// an address of its own (for a scraper without the key), and nothing else there.
func TestServeMetricsKeyedOrOnTheirOwnAddress(t *testing.T) {
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	maddr := free.Addr().String()
	free.Close()
	rec := serve(t, "--api-key", "k", "--metrics-addr", maddr)
	b := strings.TrimSuffix(rec["health"].(string), "/healthcheck")
	get := func(u, key string) int {
		req, _ := http.NewRequest("GET", u, nil)
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		url, key string
		want     int
	}{
		{b + "/metrics", "", 401}, {b + "/metrics", "k", 200},
		{"http://" + maddr + "/metrics", "", 200}, {"http://" + maddr + "/healthcheck", "", 404},
		{"http://" + maddr + "/api/v1/sources", "", 404},
	} {
		if got := get(c.url, c.key); got != c.want {
			t.Errorf("GET %s (key %q): %d, want %d", c.url, c.key, got, c.want)
		}
	}
}

// --max-conns-per-addr reaches the listener: the fourth idle connection from one address is
// refused with 503 when the cap is 3; 0 is refused as a setting.
func TestServeConnectionCap(t *testing.T) {
	rec := serve(t, "--max-conns-per-addr", "3")
	addr := strings.TrimPrefix(strings.TrimSuffix(rec["health"].(string), "/healthcheck"), "http://")
	var codes []int
	for i := 0; i < 4; i++ {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(5 * time.Second))
		io.WriteString(c, "GET /healthcheck HTTP/1.1\r\nHost: localhost\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	if fmt.Sprint(codes) != "[200 200 200 503]" {
		t.Errorf("statuses %v, want [200 200 200 503]", codes)
	}
	if err := runServe(context.Background(), []string{"--max-conns", "0"}, io.Discard, io.Discard); err == nil {
		t.Fatal("--max-conns 0 accepted")
	}
}

// The API keys file holds every accepted key: one other local users can read (mode 0644, as a
// file written by hand or a mounted secret often is) is reported at start-up, naming the file;
// 0600 is not.
func TestAttackReadableAPIKeysFileIsReported(t *testing.T) {
	for _, mode := range []os.FileMode{0o600, 0o644} {
		path := filepath.Join(t.TempDir(), "keys")
		if err := os.WriteFile(path, []byte("k1\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chmod(path, mode)
		startup := serve(t, "--api-keys-file", path)["_startup"].(string)
		warned := strings.Contains(startup, "API keys file is readable by other users") && strings.Contains(startup, path)
		if warned != (mode != 0o600) {
			t.Errorf("mode %04o: warned %v:\n%s", mode, warned, startup)
		}
	}
}

// --partition-api-key is accepted by the partition API alone: not by the platform API, the UI's
// key check or /metrics; without an admin key it is refused as a setting.
func TestServePartitionOnlyKey(t *testing.T) {
	rec := serve(t, "--api-key", "admin", "--partition-api-key", "client", "--auth-failures", "-1")
	b := strings.TrimSuffix(rec["health"].(string), "/healthcheck")
	status := func(method, path, key string, body io.Reader, ctype string) int {
		req, _ := http.NewRequest(method, b+path, body)
		req.Header.Set("unstructured-api-key", key)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var form bytes.Buffer
	mw := multipart.NewWriter(&form)
	fw, _ := mw.CreateFormFile("files", "a.txt")
	io.WriteString(fw, "Hello there.\n")
	mw.Close()
	for _, c := range []struct {
		method, path, key string
		want              int
	}{
		{"POST", "/general/v0/general", "client", 200}, {"POST", "/general/v0/general", "admin", 200},
		{"GET", "/api/v1/sources", "client", 401}, {"GET", "/api/v1/sources", "admin", 200},
		{"POST", "/ui/session", "client", 401}, {"POST", "/ui/session", "admin", 200},
		{"GET", "/metrics", "client", 401}, {"GET", "/metrics", "admin", 200},
	} {
		var body io.Reader
		ctype := ""
		if c.path == "/general/v0/general" {
			body, ctype = bytes.NewReader(form.Bytes()), mw.FormDataContentType()
		}
		if got := status(c.method, c.path, c.key, body, ctype); got != c.want {
			t.Errorf("%s %s with %s key: %d, want %d", c.method, c.path, c.key, got, c.want)
		}
	}
	if err := runServe(context.Background(), []string{"--partition-api-key", "client"}, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), "need an admin key") {
		t.Fatalf("partition key without an admin key: %v", err)
	}
}
