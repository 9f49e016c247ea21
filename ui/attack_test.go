package ui

import (
	"fmt"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// hugePagePDF is a few hundred bytes declaring one side×side-point page.
func hugePagePDF(side int) []byte {
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		fmt.Sprintf("<< /Type /Pages /Kids [3 0 R] /Count 1 /MediaBox [0 0 %d %d] >>", side, side),
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
		"<< /Length 20 >>\nstream\n0 0 m 10 10 l S\n\nendstream",
	}
	return pdftest.File(objs...)
}

// The attack: a 600-byte PDF with a 9000-point page at dpi=200 made pdftoppm allocate 2.4 GB.
// The page is now rendered within the pixel cap.
func TestAttackHugePageIsCapped(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		t.Skip("SKIP: pdftoppm (poppler-utils) is not installed")
	}
	pdf := hugePagePDF(9000)
	h := New(Config{RenderMaxPixels: 4_000_000})
	rec := httptest.NewRecorder()
	start := time.Now()
	h.ServeHTTP(rec, renderRequest(t, pdf, map[string]string{"dpi": "200"}))
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	img, err := png.DecodeConfig(rec.Body)
	if err != nil {
		t.Fatal(err)
	}
	if px := int64(img.Width) * int64(img.Height); px > 4_000_000 || px < 1_000_000 {
		t.Fatalf("rendered %d×%d pixels, want at most 4 million (and a usable image)", img.Width, img.Height)
	}
	t.Logf("9000-pt page at dpi=200: %d×%d in %s", img.Width, img.Height, time.Since(start))
}

func TestCapDPI(t *testing.T) {
	if d := capDPI(200, 612, 792, 25_000_000); d != 200 {
		t.Errorf("letter at 200 dpi capped to %d", d)
	}
	d := capDPI(200, 9000, 9000, 25_000_000)
	if px := (9000.0 / 72 * float64(d)) * (9000.0 / 72 * float64(d)); px > 25_000_000 || d < 30 {
		t.Errorf("9000-pt page: dpi %d (%.0f px)", d, px)
	}
	if d := capDPI(200, 1e9, 1e9, 25_000_000); d != 1 {
		t.Errorf("absurd page: dpi %d", d)
	}
}

// The attack: many concurrent renders. Beyond RenderConcurrency they wait, then get 503,
// instead of each starting a renderer.
func TestAttackRenderConcurrencyCapped(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "pdftoppm")
	os.WriteFile(slow, []byte("#!/bin/sh\nsleep 2\nexit 1\n"), 0o755)
	h := New(Config{Pdftoppm: slow, RenderConcurrency: 1, RenderTimeout: 500 * time.Millisecond})
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, renderRequest(t, hugePagePDF(100), nil))
			codes[i] = rec.Code
		}()
	}
	wg.Wait()
	busy := 0
	for _, c := range codes {
		if c == http.StatusServiceUnavailable {
			busy++
		}
	}
	if busy < 3 {
		t.Fatalf("codes %v: want at least 3 refused while one render runs", codes)
	}
}

// The attack: a web page the operator visits posts to the UI's endpoints.
func TestAttackCrossSiteUIPostsRefused(t *testing.T) {
	h := New(Config{})
	for _, path := range []string{"/ui/session", "/ui/render"} {
		req := httptest.NewRequest("POST", path, nil)
		req.Header.Set("Origin", "https://evil.example")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", path, rec.Code)
		}
	}
	// Same-origin browser requests still work.
	req := httptest.NewRequest("POST", "/ui/session", nil)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 {
		t.Errorf("same-origin session: %d", rec.Code)
	}
}

// The key dialog's check is an oracle like the API: after 10 refused keys from one address it
// answers 429, while a valid key from another address still works.
func TestAttackSessionKeyGuessingIsThrottled(t *testing.T) {
	h := New(Config{APIKeys: []string{"secret"}})
	send := func(addr, key string) int {
		req := httptest.NewRequest("POST", "/ui/session", nil)
		req.RemoteAddr = addr
		req.Header.Set("unstructured-api-key", key)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code == 429 && rec.Header().Get("Retry-After") == "" {
			t.Error("429 without Retry-After")
		}
		return rec.Code
	}
	for i := 0; i < 10; i++ {
		if code := send("203.0.113.5:1", "wrong"); code != 401 {
			t.Fatalf("guess %d: %d", i, code)
		}
	}
	if code := send("203.0.113.5:2", "secret"); code != 429 {
		t.Fatalf("11th request from a guessing address: %d, want 429", code)
	}
	if code := send("198.51.100.20:1", "secret"); code != 200 {
		t.Fatalf("a valid key from another address: %d", code)
	}
}

// Every UI page runs only its own script files (no inline code, nothing from another origin)
// and submits no form natively: the pages handle the API key, and default-src does not cover
// form-action. Before: no form-action, so a native submission of the key form (Enter before
// app.js ran) or a form added by markup could send the key to any URL.
func TestAttackUIPagesStrictCSP(t *testing.T) {
	h := New(Config{})
	for _, pg := range pages {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/"+pg.Path, nil))
		csp := rec.Header().Get("Content-Security-Policy")
		if rec.Code != http.StatusOK {
			t.Errorf("/ui/%s: %d", pg.Path, rec.Code)
			continue
		}
		for _, want := range []string{"default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("/ui/%s: CSP %q lacks %q", pg.Path, csp, want)
			}
		}
		if strings.Contains(csp, "unsafe-") {
			t.Errorf("/ui/%s: CSP %q allows inline or eval'd code", pg.Path, csp)
		}
		if body := rec.Body.String(); strings.Contains(body, "<script>") || strings.Contains(body, " style=") || strings.Contains(body, " onclick=") {
			t.Errorf("/ui/%s has inline script or style the CSP would block", pg.Path)
		}
	}
}
