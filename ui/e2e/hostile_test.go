package e2e

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/quarrydocs/quarry/ui"
)

// TestPlaygroundHostileDocumentIsText: everything the playground shows of a partition answer is
// the document author's — element text, a Table's text_as_html, link URLs, an SVG in
// image_base64, the file's own name. A stand-in partition API answers with markup in each; the
// page must show it as text (no element is created from it, nothing runs), whatever the CSP
// would also block.
func TestPlaygroundHostileDocumentIsText(t *testing.T) {
	findChromium(t)
	const hit = `window.__pwned=1`
	svg := `<svg xmlns="http://www.w3.org/2000/svg" onload="` + hit + `"><script>` + hit + `</script></svg>`
	answer := []map[string]any{
		{"type": "Title", "element_id": "e1", "text": `<img src=x onerror="` + hit + `">Title<script>` + hit + `</script>`,
			"metadata": map[string]any{"filename": "x.html", "link_urls": []string{"javascript:" + hit}, "link_texts": []string{"click"}}},
		{"type": "Table", "element_id": "e2", "text": "a b",
			"metadata": map[string]any{"text_as_html": `<table><tr><th><img src=x onerror="` + hit + `">H</th></tr><tr><td colspan="2"><script>` + hit +
				`</script><a href="javascript:` + hit + `">b</a><iframe srcdoc="<script>parent.__pwned=1</script>"></iframe><svg onload="` + hit + `"></svg></td></tr></table><img src=x onerror="` + hit + `">`}},
		{"type": "Image", "element_id": "e3", "text": "",
			"metadata": map[string]any{"image_base64": base64.StdEncoding.EncodeToString([]byte(svg)), "image_mime_type": "image/svg+xml"}},
	}
	mux := http.NewServeMux()
	mux.Handle("/ui/", ui.New(ui.Config{APIKeys: []string{testKey}}))
	mux.HandleFunc("/general/v0/general", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(answer)
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)

	dir := t.TempDir()
	name := filepath.Join(dir, `"><img src=x onerror=window.__pwned=1>.html`)
	if err := os.WriteFile(name, []byte("<p>x</p>"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newTab(t, ts.URL)
	b.open("/ui/")
	b.login()
	b.do("partition", chromedp.SetUploadFiles(chromedp.ID("pg-file"), []string{name}), chromedp.Click(chromedp.ID("pg-submit")))
	b.waitJS("elements", `document.querySelectorAll("#pg-table tbody tr").length === 3`, 20*time.Second)
	for i := 1; i <= 3; i++ {
		b.click("select element", "#pg-table tbody tr:nth-child("+string(rune('0'+i))+")")
		b.waitJS("selected", `document.querySelectorAll("#pg-table tbody tr.selected").length === 1`, 5*time.Second)
		time.Sleep(200 * time.Millisecond) // an image that failed would have fired onerror by now
	}
	b.click("select table", "#pg-table tbody tr:nth-child(2)")
	b.waitJS("table preview", `!document.getElementById("pg-selected-table").hidden`, 5*time.Second)
	if cells := eval[string](b, `[...document.querySelectorAll("#pg-selected-table th, #pg-selected-table td")].map(c => c.textContent + "/" + (c.getAttribute("colspan") || "")).join("|")`); !strings.Contains(cells, "H/") || !strings.Contains(cells, "/2") {
		t.Errorf("table preview cells = %q, want the cells' text and colspan", cells)
	}
	made := eval[[]string](b, `[...document.querySelectorAll("main img, main script, main iframe, main svg:not(#pg-boxes), #pg-boxes :not(rect):not(title), main a[href^='javascript'], main object, main embed")]
	  .filter(n => n.id !== "pg-page-img").map(n => n.outerHTML.slice(0, 120))`)
	if len(made) > 0 {
		t.Errorf("the playground made elements from document markup: %q", made)
	}
	if pwned := eval[bool](b, `window.__pwned !== undefined`); pwned {
		t.Error("document markup ran script in the playground")
	}
	if txt := b.text(); !strings.Contains(txt, `<img src=x onerror="`+hit+`">Title`) {
		t.Errorf("the Title's text is not shown as text: %.300q", txt)
	}
}

// TestJobsAddressReachesOnlyJobs: the jobs page opens the job named in its address (#ID) and
// builds API paths from it. A crafted link's "#../sources/ID?" made it GET /api/v1/sources/ID
// (dot segments resolved by the browser, the rest a query) with the user's key.
func TestJobsAddressReachesOnlyJobs(t *testing.T) {
	findChromium(t)
	var mu sync.Mutex
	var seen []string
	mux := http.NewServeMux()
	mux.Handle("/ui/", ui.New(ui.Config{APIKeys: []string{testKey}}))
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "s/") {
			w.Write([]byte("[]"))
			return
		}
		w.Write([]byte(`{"id":"x","status":"IN_PROGRESS","workflow_name":"w","created_at":"2026-01-01T00:00:00Z"}`))
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	b := newTab(t, ts.URL)
	b.open("/ui/workflows")
	b.login()
	b.open("/ui/jobs#../sources/00000000-0000-0000-0000-000000000001?")
	b.waitJS("jobs list", `document.querySelector("#jb-table") !== null`, 5*time.Second)
	time.Sleep(time.Second)
	mu.Lock()
	defer mu.Unlock()
	for _, s := range seen {
		if strings.Contains(s, "00000000-0000-0000-0000-000000000001") {
			t.Errorf("the jobs page requested %s", s)
		}
	}
	if len(seen) == 0 {
		t.Error("the jobs page made no API request (the test checks nothing)")
	}
}

// TestPlatformPagesShowNamesAsText: connector, workflow and job names, connector settings,
// connection-check reasons and job errors come from any holder of a key (or a remote server);
// the pages show them as text.
func TestPlatformPagesShowNamesAsText(t *testing.T) {
	findChromium(t)
	const bad = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=1</script><a href="javascript:window.__pwned=1">l</a>`
	conn := []map[string]any{{"id": "00000000-0000-0000-0000-00000000000a", "name": bad, "type": "local", "config": map[string]any{"path": bad},
		"created_at": "2026-01-01T00:00:00Z"}}
	answers := map[string]any{
		"/api/v1/sources/":      conn,
		"/api/v1/destinations/": conn,
		"/api/v1/workflows/": []map[string]any{{"id": "00000000-0000-0000-0000-00000000000b", "name": bad, "source_id": conn[0]["id"],
			"destination_id": conn[0]["id"], "status": "active", "schedule": bad, "workflow_type": "custom", "workflow_nodes": []any{},
			"created_at": "2026-01-01T00:00:00Z"}},
		"/api/v1/jobs/": []map[string]any{{"id": "00000000-0000-0000-0000-00000000000c", "workflow_id": "00000000-0000-0000-0000-00000000000b",
			"workflow_name": bad, "status": "FAILED", "created_at": "2026-01-01T00:00:00Z"}},
	}
	mux := http.NewServeMux()
	mux.Handle("/ui/", ui.New(ui.Config{APIKeys: []string{testKey}}))
	mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		p := r.URL.Path
		switch {
		case answers[p] != nil:
			json.NewEncoder(w).Encode(answers[p])
		case strings.HasSuffix(p, "/connection-check"):
			json.NewEncoder(w).Encode(map[string]any{"status": "FAILURE", "reason": bad})
		case strings.HasSuffix(p, "/failed-files"):
			json.NewEncoder(w).Encode(map[string]any{"failed_files": []any{map[string]any{"document": bad, "error": bad}}})
		case strings.HasSuffix(p, "/details"):
			json.NewEncoder(w).Encode(map[string]any{"processing_status": "FAILED", "message": bad})
		default:
			json.NewEncoder(w).Encode(answers["/api/v1/jobs/"].([]map[string]any)[0])
		}
	})
	ts := httptest.NewServer(mux)
	t.Cleanup(ts.Close)
	b := newTab(t, ts.URL)
	b.open("/ui/workflows")
	b.login()
	for _, page := range []string{"/ui/sources", "/ui/destinations", "/ui/workflows", "/ui/jobs#00000000-0000-0000-0000-00000000000c"} {
		b.open(page)
		time.Sleep(1500 * time.Millisecond) // lists, checks and the job's detail load
		if !strings.Contains(b.text(), `<img src=x onerror="window.__pwned=1">`) {
			t.Errorf("%s does not show the hostile name as text: %.300q", page, b.text())
		}
		made := eval[[]string](b, `[...document.querySelectorAll("main img, main script, main iframe, main a[href^='javascript'], main object, main embed")].map(n => n.outerHTML.slice(0, 120))`)
		if len(made) > 0 {
			t.Errorf("%s made elements from names: %q", page, made)
		}
		if eval[bool](b, `window.__pwned !== undefined`) {
			t.Errorf("%s ran script from a name", page)
		}
	}
}
