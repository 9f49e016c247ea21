// Package ui is Quarry's web interface, served under /ui/ by `quarry serve`: a partition
// playground, sources and destinations, workflows and jobs. Pages are html/template skeletons
// embedded with go:embed; the browser fills them by calling the public HTTP APIs
// (/general/v0/general and /api/v1/…) with fetch, so the UI depends on no server internals and
// needs no JavaScript build step. The one server-side helper of its own renders a PDF page to
// PNG (pdftoppm) so the playground can draw element boxes over it.
package ui

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/quarrydocs/quarry/internal/apikey"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Config configures the UI handler. The zero value serves a UI for a deployment without API
// keys, with the APIs on the same origin.
type Config struct {
	// APIKeys are the deployment's accepted keys. When set, the UI asks for one once per
	// browser session and the page-render endpoint requires it.
	APIKeys []string
	// AuthLimiter answers 429 to an address after too many refused keys (nil: its own). The
	// key dialog's check is as good an oracle as the API, so it is limited the same way.
	AuthLimiter *apikey.Limiter
	// Prefix is where the handler is mounted. Default "/ui/".
	Prefix string
	// Pdftoppm is the pdftoppm binary. Default "pdftoppm" from PATH.
	Pdftoppm string
	// RenderTimeout bounds one page render. Default 30 s.
	RenderTimeout time.Duration
	// MaxUpload caps the size of a document sent to the page renderer. Default 100 MiB.
	MaxUpload int64
	// RenderMaxPixels caps the pixels of one rendered page: a larger page is rendered at a
	// lower resolution. Default 25 million (A4 at 200 dpi is 3.9 million).
	RenderMaxPixels int64
	// RenderMemory is the memory limit of one renderer process (RLIMIT_DATA via prlimit).
	// Default 768 MiB.
	RenderMemory uint64
	// RenderConcurrency is how many pages render at once; more requests wait up to
	// RenderTimeout, then get 503. Default 2.
	RenderConcurrency int
	// Logger receives render failures. Default: discard.
	Logger *slog.Logger
	// LocalRoots are the folders local connectors may use; the local folder form names the
	// first, under which a relative path is taken.
	LocalRoots []string
}

func (c Config) withDefaults() Config {
	if c.AuthLimiter == nil {
		c.AuthLimiter = apikey.NewLimiter(apikey.LimiterConfig{})
	}
	if c.Prefix == "" {
		c.Prefix = "/ui/"
	}
	if !strings.HasSuffix(c.Prefix, "/") {
		c.Prefix += "/"
	}
	if c.Pdftoppm == "" {
		c.Pdftoppm = "pdftoppm"
	}
	if c.RenderTimeout <= 0 {
		c.RenderTimeout = 30 * time.Second
	}
	if c.MaxUpload <= 0 {
		c.MaxUpload = 100 << 20
	}
	if c.RenderMaxPixels <= 0 {
		c.RenderMaxPixels = 25_000_000
	}
	if c.RenderMemory == 0 {
		c.RenderMemory = 768 << 20
	}
	if c.RenderConcurrency <= 0 {
		c.RenderConcurrency = 2
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// page is one top-level screen of the UI.
type page struct {
	Path  string // below the prefix, "" for the index
	Name  string // template name
	Title string
	Nav   string // label in the navigation bar
}

var pages = []page{
	{"", "playground", "Partition playground", "Playground"},
	{"sources", "connectors", "Sources", "Sources"},
	{"destinations", "connectors", "Destinations", "Destinations"},
	{"workflows", "workflows", "Workflows", "Workflows"},
	{"jobs", "jobs", "Jobs", "Jobs"},
}

// Handler serves the UI. Create it with New.
type Handler struct {
	cfg   Config
	keys  apikey.Keys
	tmpl  map[string]*template.Template
	mux   *http.ServeMux
	asset http.Handler
	// renders holds one token per page render allowed at once.
	renders chan struct{}
	// csrf refuses state-changing requests sent by a browser from another origin.
	csrf *http.CrossOriginProtection
	// confineOnce logs once that the page renderer runs unconfined (no Landlock).
	confineOnce sync.Once
}

// New builds the UI handler. It panics only if the embedded templates do not parse, which the
// package's tests rule out.
func New(cfg Config) *Handler {
	cfg = cfg.withDefaults()
	h := &Handler{cfg: cfg, tmpl: map[string]*template.Template{}, renders: make(chan struct{}, cfg.RenderConcurrency),
		csrf: http.NewCrossOriginProtection()}
	h.keys = apikey.New(cfg.APIKeys)
	funcs := template.FuncMap{"kindsFor": kindsFor, "lower": strings.ToLower}
	for _, p := range pages {
		if _, ok := h.tmpl[p.Name]; ok {
			continue
		}
		t := template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+p.Name+".html"))
		h.tmpl[p.Name] = t
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		panic(fmt.Sprintf("ui: static files: %v", err))
	}
	h.asset = http.StripPrefix(cfg.Prefix+"static/", http.FileServerFS(sub))

	h.mux = http.NewServeMux()
	p := cfg.Prefix
	h.mux.Handle(p+"static/", h.cacheStatic(h.asset))
	h.mux.HandleFunc(p+"session", h.handleSession)
	h.mux.HandleFunc(p+"render", h.handleRender)
	for _, pg := range pages {
		h.mux.HandleFunc(p+pg.Path, h.pageHandler(pg))
	}
	return h
}

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The index route is a subtree pattern; anything under the prefix that is not a page is 404.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
	if r.URL.Path == strings.TrimSuffix(h.cfg.Prefix, "/") {
		http.Redirect(w, r, h.cfg.Prefix, http.StatusMovedPermanently)
		return
	}
	if err := h.csrf.Check(r); err != nil {
		writeDetail(w, http.StatusForbidden, "Cross-origin request refused")
		return
	}
	h.mux.ServeHTTP(w, r)
}

func (h *Handler) cacheStatic(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Assets change with the binary; a short cache keeps reloads cheap without stale UIs
		// lasting after an upgrade.
		w.Header().Set("Cache-Control", "public, max-age=300")
		next.ServeHTTP(w, r)
	})
}

type pageData struct {
	Page         page
	Pages        []page
	Prefix       string
	AuthRequired bool
	Role         string // "source" or "destination" on the connector pages
	Kinds        []Kind
	Schedules    []string
	Strategies   []string
	Chunkers     []Chunker
	LocalRoots   []string
}

func (h *Handler) pageHandler(pg page) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != h.cfg.Prefix+pg.Path {
			h.notFound(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
			return
		}
		d := pageData{
			Page: pg, Pages: pages, Prefix: h.cfg.Prefix, AuthRequired: h.keys.Enabled(),
			Kinds: Kinds, Schedules: Schedules, Strategies: Strategies, Chunkers: Chunkers,
			LocalRoots: h.cfg.LocalRoots,
		}
		switch pg.Path {
		case "sources":
			d.Role = "source"
		case "destinations":
			d.Role = "destination"
		}
		var buf bytes.Buffer
		if err := h.tmpl[pg.Name].Execute(&buf, d); err != nil {
			h.cfg.Logger.Error("ui: render page", "page", pg.Name, "err", err)
			http.Error(w, "Internal Server Error", http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Cache-Control", "no-cache")
		// The UI loads only its own assets and talks only to its own origin. Its forms are sent by
		// script only: form-action 'none' keeps a native submission (the key form before app.js
		// runs, a form markup could add) from putting the key in a URL or sending it elsewhere.
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob: data:; style-src 'self'; script-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		w.Write(buf.Bytes())
	}
}

// jobURL is a job's address as one writes it by hand or copies it from the API
// (/ui/jobs/<id>); the jobs page opens a job from its fragment instead.
var jobURL = regexp.MustCompile(`^jobs/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})/?$`)

// notFoundPage lists the pages that exist, so a mistyped or guessed address leads somewhere.
var notFoundPage = template.Must(template.New("404").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · Quarry</title>
<link rel="stylesheet" href="{{.Prefix}}static/app.css"></head>
<body><main id="main"><h1>No page here</h1>
<p>There is no page at <code>{{.Path}}</code>. The web UI's pages are:</p>
<ul>{{range .Pages}}<li><a href="{{$.Prefix}}{{.Path}}">{{.Nav}}</a></li>{{end}}<li><a href="/docs">API docs</a></li></ul>
</main></body></html>
`))

// notFound answers an address under the UI that is no page: /ui/jobs/<id> goes to that job on
// the jobs page; anything else gets a 404 page listing the pages (plain "404 page not found"
// left a newcomer nowhere to go).
func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.Path, h.cfg.Prefix)
	if m := jobURL.FindStringSubmatch(rest); m != nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		http.Redirect(w, r, h.cfg.Prefix+"jobs#"+strings.ToLower(m[1]), http.StatusFound)
		return
	}
	var buf bytes.Buffer
	if err := notFoundPage.Execute(&buf, map[string]any{"Prefix": h.cfg.Prefix, "Path": r.URL.Path, "Pages": pages}); err != nil {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self'; script-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	w.WriteHeader(http.StatusNotFound)
	w.Write(buf.Bytes())
}

// handleSession lets the key dialog check a key before storing it in the browser session.
func (h *Handler) handleSession(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	if status, msg := h.keys.Deny(h.cfg.AuthLimiter, w, r); status != 0 {
		writeDetail(w, status, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"auth_required":%t}`, h.keys.Enabled())
}

func writeDetail(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(map[string]string{"detail": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
