package ui

import (
	"bytes"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

func TestPages(t *testing.T) {
	h := New(Config{})
	for _, tc := range []struct {
		path   string
		status int
		want   []string
	}{
		{"/ui/", 200, []string{"<title>Partition playground · Quarry</title>", `id="pg-file"`, `aria-current="page"`, "static/playground.js"}},
		{"/ui/sources", 200, []string{`data-role="source"`, `data-kind="azure"`, `data-kind="confluence"`, `data-kind="local"`, `id="cf-azure-account_key"`, `data-secret="true"`}},
		{"/ui/destinations", 200, []string{`data-role="destination"`, `data-kind="azure"`, `data-kind="local"`}},
		{"/ui/workflows", 200, []string{`value="every 15 minutes"`, `id="wf-chunking"`}},
		{"/ui/jobs", 200, []string{`id="jb-table"`, `id="jb-failed"`}},
		{"/ui/static/app.js", 200, []string{"unstructured-api-key", "sessionStorage"}},
		{"/ui/static/app.css", 200, []string{":focus-visible"}},
		{"/ui/nope", 404, []string{"No page here", `href="/ui/jobs"`, `href="/docs"`, "<code>/ui/nope</code>"}},
		{"/ui/<b>x", 404, []string{"&lt;b&gt;x"}},
		{"/ui", 301, nil},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if rec.Code != tc.status {
			t.Errorf("GET %s = %d, want %d", tc.path, rec.Code, tc.status)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(rec.Body.String(), w) {
				t.Errorf("GET %s: body lacks %q", tc.path, w)
			}
		}
	}
	// The local folder form names the server's local root.
	rec := httptest.NewRecorder()
	New(Config{LocalRoots: []string{"/srv/quarry/data/local"}}).ServeHTTP(rec, httptest.NewRequest("GET", "/ui/sources", nil))
	if !strings.Contains(rec.Body.String(), "On this server: /srv/quarry/data/local.") {
		t.Error("the local folder form does not name the local root")
	}
	// A job's address written as a path (copied from the API's id) opens the job on the jobs page.
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/jobs/E8401F04-523C-417C-8FD1-BF52DA6B7A14", nil))
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusFound || loc != "/ui/jobs#e8401f04-523c-417c-8fd1-bf52da6b7a14" {
		t.Errorf("GET /ui/jobs/<id> = %d to %q, want 302 to /ui/jobs#<id>", rec.Code, loc)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/destinations", nil))
	if strings.Contains(rec.Body.String(), `data-kind="confluence"`) {
		t.Error("Confluence is offered as a destination; it is a source only")
	}
}

// TestLabels checks that every form control on every page has a label (for= or wrapping), and
// that every aria-describedby target exists.
func TestLabels(t *testing.T) {
	h := New(Config{APIKeys: []string{"k"}})
	ctrl := regexp.MustCompile(`<(input|select|textarea)\b[^>]*>`)
	idRe := regexp.MustCompile(`\bid="([^"]+)"`)
	for _, p := range pages {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/ui/"+p.Path, nil))
		body := rec.Body.String()
		ids := map[string]bool{}
		for _, m := range idRe.FindAllStringSubmatch(body, -1) {
			if ids[m[1]] {
				t.Errorf("%s: duplicate id %q", p.Path, m[1])
			}
			ids[m[1]] = true
		}
		for _, loc := range ctrl.FindAllStringIndex(body, -1) {
			tag := body[loc[0]:loc[1]]
			m := idRe.FindStringSubmatch(tag)
			if m == nil {
				t.Errorf("%s: control without id: %s", p.Path, tag)
				continue
			}
			labelled := strings.Contains(body, `for="`+m[1]+`"`) || strings.Contains(tag, "aria-label=")
			if !labelled {
				// A control wrapped by its label: the nearest preceding "<label" is not closed yet.
				before := body[:loc[0]]
				labelled = strings.LastIndex(before, "<label") > strings.LastIndex(before, "</label>")
			}
			if !labelled {
				t.Errorf("%s: control %q has no label", p.Path, m[1])
			}
			if d := regexp.MustCompile(`aria-describedby="([^"]*)"`).FindStringSubmatch(tag); d != nil {
				for _, ref := range strings.Fields(d[1]) {
					if !ids[ref] && !strings.Contains(body, `id="`+ref+`"`) {
						t.Errorf("%s: %q describedby missing %q", p.Path, m[1], ref)
					}
				}
			}
		}
		if !strings.Contains(body, `data-auth-required="true"`) {
			t.Errorf("%s: the page does not say a key is required", p.Path)
		}
	}
}

func TestSession(t *testing.T) {
	h := New(Config{APIKeys: []string{"secret"}})
	for _, tc := range []struct {
		header, value string
		status        int
	}{
		{"", "", 401},
		{"unstructured-api-key", "wrong", 401},
		{"unstructured-api-key", "secret", 200},
		{"Authorization", "Bearer secret", 200},
	} {
		req := httptest.NewRequest("POST", "/ui/session", nil)
		if tc.header != "" {
			req.Header.Set(tc.header, tc.value)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status {
			t.Errorf("%s=%q: %d, want %d", tc.header, tc.value, rec.Code, tc.status)
		}
	}
}

func renderRequest(t *testing.T, file []byte, fields map[string]string) *http.Request {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for k, v := range fields {
		mw.WriteField(k, v)
	}
	if file != nil {
		fw, _ := mw.CreateFormFile("file", "doc.pdf")
		fw.Write(file)
	}
	mw.Close()
	req := httptest.NewRequest("POST", "/ui/render", &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return req
}

func TestRender(t *testing.T) {
	if _, err := exec.LookPath("pdftoppm"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pdftoppm (poppler-utils) is required under CI=true")
		}
		t.Skip("SKIP: pdftoppm (poppler-utils) is not installed")
	}
	pdf, err := os.ReadFile("../testdata/reference/docs/multi-column-2p.pdf")
	if err != nil {
		t.Fatal(err)
	}
	h := New(Config{APIKeys: []string{"secret"}})

	req := renderRequest(t, pdf, map[string]string{"page": "2", "dpi": "50"})
	req.Header.Set("unstructured-api-key", "secret")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 200 || rec.Header().Get("Content-Type") != "image/png" {
		t.Fatalf("render page 2: %d %s", rec.Code, rec.Body.String())
	}
	img, err := png.Decode(rec.Body)
	if err != nil {
		t.Fatalf("decode PNG: %v", err)
	}
	// A US Letter or A4 page at 50 dpi is about 425×550 or 413×585 pixels.
	if b := img.Bounds(); b.Dx() < 380 || b.Dx() > 450 || b.Dy() < 520 || b.Dy() > 600 {
		t.Errorf("page image is %v", b)
	}
	if got := rec.Header().Get("X-Page-Count"); got != "2" {
		t.Errorf("X-Page-Count = %q, want 2", got)
	}

	for _, tc := range []struct {
		name   string
		file   []byte
		fields map[string]string
		key    string
		status int
	}{
		{"no key", pdf, nil, "", 401},
		{"no file", nil, map[string]string{"page": "1"}, "secret", 400},
		{"page out of range", pdf, map[string]string{"page": "3"}, "secret", 400},
		{"bad page", pdf, map[string]string{"page": "x"}, "secret", 400},
		{"not a PDF", []byte("hello, world"), nil, "secret", 422},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := renderRequest(t, tc.file, tc.fields)
			if tc.key != "" {
				req.Header.Set("unstructured-api-key", tc.key)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			body, _ := io.ReadAll(rec.Body)
			if rec.Code != tc.status || !bytes.HasPrefix(body, []byte(`{"detail":`)) {
				t.Errorf("%d %s, want %d with a detail", rec.Code, body, tc.status)
			}
		})
	}
}
