package server

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Attacks on the partition API by clients holding no key (or a wrong one).

// Slow keyless uploads once held every partition slot (the slot was taken before the key was
// checked), so authenticated requests got 503 for as long as the uploads dribbled.
func TestAttackKeylessSlowUploadsDoNotHoldSlots(t *testing.T) {
	srv := New(Config{APIKeys: []string{"k1"}, MaxConcurrent: 2, MaxQueue: -1})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := 0; i < 6; i++ {
		pr, pw := io.Pipe()
		wg.Add(1)
		go func() {
			defer wg.Done()
			pw.Write([]byte("--x\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.txt\"\r\n\r\nslow"))
			<-ctx.Done()
			pw.Close()
		}()
		req, _ := http.NewRequestWithContext(ctx, "POST", hs.URL+"/general/v0/general", pr)
		req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
		req.Header.Set("unstructured-api-key", "not-the-key")
		go func() {
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	time.Sleep(200 * time.Millisecond)
	for i := 0; i < 3; i++ {
		body, ct := multipartBody(t, file("a.txt", textDoc, "text/plain"))
		req, _ := http.NewRequest("POST", hs.URL+"/general/v0/general", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("unstructured-api-key", "k1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("authenticated request got %d while keyless uploads were pending", resp.StatusCode)
		}
	}
	cancel()
	wg.Wait()
}

// A 401 must not repeat the key sent (it may be a near-miss of a real key, or another
// service's key), and the body must not be read to answer it.
func TestAttack401DoesNotEchoKey(t *testing.T) {
	srv := New(Config{APIKeys: []string{"k1"}})
	rec := post(t, srv, http.Header{"Unstructured-Api-Key": {"sk-live-ALMOST-RIGHT"}}, file("a.txt", textDoc, ""))
	if rec.Code != 401 || strings.Contains(rec.Body.String(), "ALMOST") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}

// Made-up HTTP methods once became metric labels: 200,000 of them grew /metrics to 24 MB.
func TestAttackMethodsDoNotGrowMetrics(t *testing.T) {
	srv := New(Config{})
	for i := 0; i < 2000; i++ {
		req := httptest.NewRequest(fmt.Sprintf("M%05d", i), "/general/v0/general", nil)
		srv.ServeHTTP(httptest.NewRecorder(), req)
		req = httptest.NewRequest(fmt.Sprintf("X%05d", i), fmt.Sprintf("/p%d", i), nil)
		srv.ServeHTTP(httptest.NewRecorder(), req)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	if strings.Contains(body, "M00001") || strings.Contains(body, "X00001") || strings.Contains(body, "/p1") {
		t.Fatal("request-controlled values reached metric labels")
	}
	if !strings.Contains(body, `method="other"`) {
		t.Fatal(`unknown methods not counted as "other"`)
	}
	if n := strings.Count(body, "quarry_http_requests_total{"); n > 10 {
		t.Fatalf("%d request series after 4000 made-up requests", n)
	}
}

// A flood of 503s is counted and summarised, not logged one ERROR line per request.
func TestAttackOverloadDoesNotFloodErrorLog(t *testing.T) {
	var buf syncBuffer
	log := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo}))
	srv := New(Config{MaxConcurrent: 1, MaxQueue: -1, Logger: log})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	// Hold the only slot with a slow upload.
	pr, pw := io.Pipe()
	req, _ := http.NewRequest("POST", hs.URL+"/general/v0/general", pr)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	pw.Write([]byte("--x\r\n"))
	time.Sleep(100 * time.Millisecond)
	refused := 0
	for i := 0; i < 200; i++ {
		body, ct := multipartBody(t, file("a.txt", textDoc, "text/plain"))
		resp, err := http.Post(hs.URL+"/general/v0/general", ct, body)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 503 {
			refused++
		}
	}
	pw.Close()
	<-done
	if refused < 150 {
		t.Fatalf("only %d of 200 refused; the slot was not held", refused)
	}
	logs := buf.String()
	if n := strings.Count(logs, "level=ERROR"); n != 0 {
		t.Errorf("%d ERROR lines for %d refusals", n, refused)
	}
	if n := strings.Count(logs, "refused with 503"); n < 1 || n > 3 {
		t.Errorf("%d summary lines, want 1–3", n)
	}
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), `code="503"`) {
		t.Error("503s not counted")
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// DNS rebinding: a web page points its own name at 127.0.0.1 and, being "same origin", drives a
// keyless server on loopback. The Host header names the page's domain; it is refused.
func TestAttackDNSRebindingRefused(t *testing.T) {
	srv := New(Config{LoopbackHostsOnly: true})
	for host, want := range map[string]int{
		"evil.example:8000": http.StatusMisdirectedRequest, "evil.example": http.StatusMisdirectedRequest,
		"127.0.0.1.nip.io:8000": http.StatusMisdirectedRequest,
		"localhost:8000":        200, "127.0.0.1:8000": 200, "[::1]:8000": 200, "LOCALHOST": 200,
	} {
		req := httptest.NewRequest("GET", "/healthcheck", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("Host %s: %d, want %d", host, rec.Code, want)
		}
	}
}
