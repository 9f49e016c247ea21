package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"
)

const testKey = "e2e-key"

// findChromium returns the browser binary or skips (fails under CI=true).
func findChromium(t *testing.T) string {
	t.Helper()
	cands := []string{os.Getenv("QUARRY_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "google-chrome-stable"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	msg := "Chromium is not installed (apt-get install -y chromium, or set QUARRY_CHROMIUM)"
	if os.Getenv("CI") == "true" {
		t.Fatalf("browser tests are required under CI=true: %s", msg)
	}
	t.Skip("SKIP: " + msg)
	return ""
}

// artifactDir is where screenshots go; kept after the run for people (and CI) to look at.
func artifactDir(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("QUARRY_E2E_ARTIFACTS")
	if dir == "" {
		dir = "artifacts"
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tab is one browser tab with a download folder, a fixed viewport and a deadline.
type tab struct {
	t         *testing.T
	ctx       context.Context
	base      string
	downloads string
	shots     string
	logs      *strings.Builder
}

func newTab(t *testing.T, base string) *tab {
	t.Helper()
	bin := findChromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	logs := &strings.Builder{}
	ctx, cancelC := chromedp.NewContext(actx, chromedp.WithLogf(func(f string, a ...any) { fmt.Fprintf(logs, f+"\n", a...) }))
	t.Cleanup(func() {
		cancelC()
		cancelA()
	})
	if err := chromedp.Do(ctx); err != nil { // start the browser without a deadline
		t.Fatalf("start chromium: %v", err)
	}
	dl := t.TempDir()
	if _, err := chromedp.CallBrowser(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dl,
	}); err != nil {
		t.Fatalf("set download folder: %v", err)
	}
	return &tab{t: t, ctx: ctx, base: base, downloads: dl, shots: artifactDir(t), logs: logs}
}

// do runs actions with a deadline so a stuck page fails the test instead of hanging it.
func (b *tab) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		b.shot("failed-" + safe(what))
		b.t.Fatalf("%s: %v\npage text:\n%s", what, err, b.text())
	}
}

// click clicks the first element matching a CSS selector with a real mouse event. A list the
// page has just re-rendered can invalidate the node between lookup and click, so that case is
// retried.
func (b *tab) click(what, css string) {
	b.t.Helper()
	var err error
	for attempt := 0; attempt < 4; attempt++ {
		ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
		err = chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(css)), chromedp.Click(chromedp.CSS(css)))
		cancel()
		if err == nil || !strings.Contains(err.Error(), "node") {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		b.shot("failed-" + safe(what))
		b.t.Fatalf("%s: click %s: %v\npage text:\n%s", what, css, err, b.text())
	}
}

// eval evaluates a JS expression and decodes its result into T.
func eval[T any](b *tab, expr string) T {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		b.t.Fatalf("evaluate %q: %v", expr, err)
	}
	return v
}

// waitJS waits until a JS predicate is truthy; a predicate that throws (its element is not
// rendered yet) counts as false.
func (b *tab) waitJS(what, pred string, timeout time.Duration) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, timeout+5*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void]("(() => { try { return ("+pred+"); } catch (e) { return false; } })()", chromedp.WithPollingInterval(100*time.Millisecond), chromedp.WithPollingTimeout(timeout))); err != nil {
		b.shot("failed-" + safe(what))
		b.t.Fatalf("waiting for %s (%s): %v\npage text:\n%s", what, pred, err, b.text())
	}
}

func (b *tab) text() string {
	ctx, cancel := context.WithTimeout(b.ctx, 5*time.Second)
	defer cancel()
	s, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body ? document.body.innerText : ""`))
	if len(s) > 3000 {
		s = s[:3000] + "…"
	}
	return s
}

// shot writes a full-page PNG screenshot to the artifacts folder.
func (b *tab) shot(name string) string {
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return ""
	}
	p := filepath.Join(b.shots, name+".png")
	if err := os.WriteFile(p, buf, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
	}
	return p
}

// viewShot writes a screenshot of what the viewport shows, scrolled to the top.
func (b *tab) viewShot(name string) {
	ctx, cancel := context.WithTimeout(b.ctx, 20*time.Second)
	defer cancel()
	chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	os.WriteFile(filepath.Join(b.shots, name+".png"), buf, 0o644)
}

func (b *tab) open(path string) {
	b.t.Helper()
	b.do("open "+path, chromedp.Navigate(b.base+path), chromedp.WaitReady(chromedp.CSS("body")))
}

// login enters the API key in the key panel the first page shows.
func (b *tab) login() {
	b.t.Helper()
	b.do("enter API key",
		chromedp.WaitVisible(chromedp.ID("key-input")),
		chromedp.SendKeys(chromedp.ID("key-input"), "wrong-key"),
		chromedp.Click(chromedp.CSS("#key-form button[type=submit]")),
	)
	b.waitJS("wrong key rejected", `document.getElementById("key-error").textContent.includes("not accepted")`, 10*time.Second)
	b.do("enter the right key",
		setValue("key-input", ""),
		chromedp.SendKeys(chromedp.ID("key-input"), testKey),
		chromedp.Click(chromedp.CSS("#key-form button[type=submit]")),
		chromedp.WaitNotVisible(chromedp.ID("key-panel")),
	)
}

// waitDownload waits for a finished file with the given suffix in the download folder.
func (b *tab) waitDownload(suffix string, timeout time.Duration) string {
	b.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		ents, _ := os.ReadDir(b.downloads)
		for _, e := range ents {
			if strings.HasSuffix(e.Name(), suffix) {
				return filepath.Join(b.downloads, e.Name())
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	b.t.Fatalf("no %s download within %s", suffix, timeout)
	return ""
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, s)
}

// setValue sets a control's value from script and fires the events a user's edit would.
func setValue(id, v string) chromedp.Action[chromedp.Void] {
	js, _ := json.Marshal(v)
	idJS, _ := json.Marshal(id)
	return chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`(() => { const e = document.getElementById(%s); e.value = %s;
	  e.dispatchEvent(new Event("input", {bubbles: true})); e.dispatchEvent(new Event("change", {bubbles: true})); })()`, idJS, js))
}
