// Package server is Quarry's HTTP partition API, wire-compatible with the Unstructured API
// (unstructured-api 0.1.2 and the hosted API as the official SDKs use it): POST
// /general/v0/general (and /general/{version}/general), /healthcheck, the OpenAPI document and
// its docs page, and Prometheus metrics. Status codes and error bodies follow the reference
// server (partition-api.md §1–§4); what the reference leaves open (body limit, overload,
// timeouts) is answered in the same {"detail": …} JSON shape.
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/quarrydocs/quarry/internal/apikey"
	"github.com/quarrydocs/quarry/internal/openapi"
)

// Config configures a Server. The zero value is usable: every field has a default.
type Config struct {
	// APIKeys, when non-empty, are the accepted API keys; requests must carry one of them.
	APIKeys []string
	// PartitionKeys are accepted by the partition endpoint only, not by /metrics (nor by the
	// platform API and UI, which quarry serve gives APIKeys alone): keys for clients that
	// partition documents but must not manage connectors, read other users' jobs or see
	// the service's metrics. They need APIKeys to be set.
	PartitionKeys []string
	// AuthLimiter slows key guessing: too many refused keys from one address get 429 for a
	// while. Nil: a limiter of its own with the defaults. Pass one limiter to every surface of a
	// process (partition API, platform API, UI) so they share one budget per address.
	AuthLimiter *apikey.Limiter
	// MaxBodyBytes caps a request body (all files and fields together). Default 100 MiB.
	MaxBodyBytes int64
	// MaxConcurrent is the number of partition requests processed at once. Default
	// 2 × GOMAXPROCS (at least 4).
	MaxConcurrent int
	// MaxQueue is how many more requests may wait for a slot; beyond it the server answers
	// 503 at once. Default 4 × MaxConcurrent. Negative means no queue.
	MaxQueue int
	// QueueTimeout is how long a queued request waits for a slot before 503. Default 30 s.
	QueueTimeout time.Duration
	// RequestTimeout bounds the partitioning of one request. Default 5 min; negative = none.
	RequestTimeout time.Duration
	// RetryAfter is the Retry-After value sent with overload 503s. Default 1 s.
	RetryAfter time.Duration
	// Logger receives access logs and errors. Default: discard.
	Logger *slog.Logger
	// Registry receives the server's metrics. Default: a new registry with the Go and process
	// collectors, served at /metrics.
	Registry *prometheus.Registry
	// InProcess is passed to the engine (pure-Go strategies run inside this process).
	InProcess bool
	// LoopbackHostsOnly answers only requests whose Host names the local machine (localhost,
	// 127.0.0.1, [::1]). `quarry serve` sets it when it listens on loopback without a key: a
	// web page can point its own domain at 127.0.0.1 (DNS rebinding), and the browser would
	// then treat the keyless server as that page's origin; the Host header gives it away.
	LoopbackHostsOnly bool
	// MaxElements caps the elements (or chunks) one request may produce, all its documents
	// together (engine.Options.MaxElements gets what is left for each document). Default
	// 100,000 (a 1,000-page report is about 50,000); negative = no cap.
	MaxElements int
	// MaxResponseBytes caps the answer's size: beyond it the request fails with 422 instead
	// of building the answer in memory. Default 256 MiB; negative = no cap.
	MaxResponseBytes int64
	// CSVEscapeFormulas prefixes a single quote to CSV cells a spreadsheet would take for a
	// formula (element.CSVOptions.EscapeFormulas). Off: CSV answers are the reference's bytes.
	CSVEscapeFormulas bool
	// MaxConnsPerAddr caps the open connections of one client address (IPv6: its /64) on
	// Serve's listener; more are answered 503 and closed. Default 256; negative = no cap
	// (behind a reverse proxy, whose connections all come from its address).
	MaxConnsPerAddr int
	// MaxConns caps the open connections in all. Default 4096; negative = no cap.
	MaxConns int
	// MaxConcurrentPerKey caps the partition requests one API key has in progress (holding or
	// waiting for a slot); one more is answered 429 at once. 0 = no cap. Without it one client
	// can hold every slot and the whole queue, and the other keys' requests get 503.
	MaxConcurrentPerKey int
}

const (
	defaultMaxBody      = 100 << 20
	defaultQueueTimeout = 30 * time.Second
	defaultTimeout      = 5 * time.Minute
	defaultMaxElements  = 100_000
	defaultMaxResponse  = 256 << 20
)

func (c Config) withDefaults() Config {
	if c.AuthLimiter == nil {
		c.AuthLimiter = apikey.NewLimiter(apikey.LimiterConfig{})
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = defaultMaxBody
	}
	if c.MaxConcurrent <= 0 {
		c.MaxConcurrent = max(4, 2*runtime.GOMAXPROCS(0))
	}
	if c.MaxQueue == 0 {
		c.MaxQueue = 4 * c.MaxConcurrent
	}
	if c.MaxQueue < 0 {
		c.MaxQueue = 0
	}
	if c.QueueTimeout <= 0 {
		c.QueueTimeout = defaultQueueTimeout
	}
	if c.RequestTimeout == 0 {
		c.RequestTimeout = defaultTimeout
	}
	if c.MaxElements == 0 {
		c.MaxElements = defaultMaxElements
	}
	if c.MaxResponseBytes == 0 {
		c.MaxResponseBytes = defaultMaxResponse
	}
	if c.MaxConnsPerAddr == 0 {
		c.MaxConnsPerAddr = defaultMaxConnsPerAddr
	}
	if c.MaxConns == 0 {
		c.MaxConns = defaultMaxConns
	}
	if c.RetryAfter <= 0 {
		c.RetryAfter = time.Second
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Server serves the partition API. Create it with New; it is an http.Handler.
type Server struct {
	cfg  Config
	log  *slog.Logger
	keys apiKeys
	// partitionKeys are APIKeys and PartitionKeys: what the partition endpoint accepts.
	partitionKeys apiKeys
	limit         *limiter
	metrics       *metrics
	openapi       []byte
	docRows       []docsRow
	// home is where GET / leads (RedirectRoot): the docs page links back to it.
	home string
	// describe are the extensions of the OpenAPI document (DescribeAPI).
	describe []func(paths map[string]any, c openapi.Components)
	handler  http.Handler
	// overload summarises 503 answers in one warning line per interval.
	overload *rateLog
	// csrf refuses partition requests a browser sends from another origin (see handleGeneral).
	csrf *http.CrossOriginProtection
	// perKey counts the partition requests in progress per key digest (MaxConcurrentPerKey).
	perKeyMu sync.Mutex
	perKey   map[[32]byte]int
	// spools is the directory of this server's temporary upload files.
	spools *spoolDir
}

// New builds a Server from cfg.
func New(cfg Config) *Server {
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:  cfg,
		log:  cfg.Logger,
		keys: newAPIKeys(cfg.APIKeys),
		// Partition-only keys without an admin key would leave /metrics (and, under quarry
		// serve, the platform API) keyless: they are ignored then; serve refuses that setup.
		partitionKeys: newAPIKeys(append(append([]string(nil), cfg.APIKeys...), partitionKeysIfKeyed(cfg)...)),
		limit:         newLimiter(cfg.MaxConcurrent, cfg.MaxQueue, cfg.QueueTimeout),
		csrf:          http.NewCrossOriginProtection(),
		perKey:        map[[32]byte]int{},
		spools:        &spoolDir{},
	}
	// Upload files of a server killed mid-request (its directory names its PID) are removed.
	sweepSpools(os.TempDir(), cfg.Logger)
	s.metrics = newMetrics(cfg.Registry)
	s.overload = &rateLog{log: cfg.Logger, msg: "requests refused with 503 (overloaded or unavailable)", every: 10 * time.Second}
	s.openapi = openAPIDocument()
	s.docRows = docsRows()

	mux := http.NewServeMux()
	mux.HandleFunc("/general/v0/general", s.handleGeneral)
	mux.HandleFunc("/general/{version}/general", s.handleGeneral)
	mux.HandleFunc("/healthcheck", s.handleHealth)
	mux.HandleFunc("/general/openapi.json", s.handleOpenAPI)
	mux.HandleFunc("/openapi.json", s.handleOpenAPI)
	mux.HandleFunc("/general/docs", s.handleDocs)
	mux.HandleFunc("/docs", s.handleDocs)
	mux.HandleFunc("/docs.js", s.handleDocsJS)
	mux.HandleFunc("/metrics", s.handleMetrics)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeDetail(w, http.StatusNotFound, "Not Found")
	})
	s.handler = s.accessLog(s.recoverPanics(mux))
	return s
}

// takeKeySlot counts a partition request against its key's MaxConcurrentPerKey; release gives
// the place back. ok is false when the key already has that many requests in progress.
func (s *Server) takeKeySlot(r *http.Request) (release func(), ok bool) {
	if s.cfg.MaxConcurrentPerKey <= 0 || !s.partitionKeys.Enabled() {
		return func() {}, true
	}
	d, matched := s.partitionKeys.Match(r.Header)
	if !matched {
		return func() {}, true
	}
	s.perKeyMu.Lock()
	defer s.perKeyMu.Unlock()
	if s.perKey[d] >= s.cfg.MaxConcurrentPerKey {
		return nil, false
	}
	s.perKey[d]++
	return func() {
		s.perKeyMu.Lock()
		defer s.perKeyMu.Unlock()
		if s.perKey[d]--; s.perKey[d] <= 0 {
			delete(s.perKey, d)
		}
	}, true
}

func partitionKeysIfKeyed(cfg Config) []string {
	if len(cfg.APIKeys) == 0 {
		return nil
	}
	return cfg.PartitionKeys
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Answers carry document text (JSON, CSV): a browser must never sniff them into HTML.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if s.cfg.LoopbackHostsOnly && !loopbackHost(r.Host) {
		writeDetail(w, http.StatusMisdirectedRequest, "This keyless server answers only requests addressed to localhost")
		return
	}
	s.handler.ServeHTTP(w, r)
}

// loopbackHost reports whether a Host header names the local machine.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	writeJSON(w, http.StatusOK, []byte(`{"healthcheck":"HEALTHCHECK STATUS: EVERYTHING OK!"}`))
}

func (s *Server) handleOpenAPI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	writeJSON(w, http.StatusOK, s.openapi)
}

func (s *Server) handleDocs(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	// The page's forms send requests with the key typed into them: no other site may frame it
	// (clickjacking), and nothing but its own script may run in it.
	w.Header().Set("Content-Security-Policy", docsCSP)
	w.Header().Set("X-Frame-Options", "DENY")
	w.Write(s.docsPage(r))
}

// handleMetrics serves the metrics to key holders: they tell who partitions what kinds of
// documents, how often, with what failures (401s and 429s: a key guesser's progress), and
// describe the process. A scraper without a key reads MetricsHandler on an address of its own.
func (s *Server) handleMetrics(w http.ResponseWriter, r *http.Request) {
	if status, msg := s.keys.Deny(s.cfg.AuthLimiter, w, r); status != 0 {
		writeDetail(w, status, msg)
		return
	}
	s.metrics.handler().ServeHTTP(w, r)
}

// MetricsHandler serves /metrics without a key, and nothing else, for a listener of its own
// that only the monitoring system reaches (quarry serve --metrics-addr). With loopbackOnly it
// answers only requests addressed to localhost: a web page can point its own name at
// 127.0.0.1 (DNS rebinding) and read a keyless loopback listener from the browser.
func (s *Server) MetricsHandler(loopbackOnly bool) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.metrics.handler())
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeDetail(w, http.StatusNotFound, "Not Found")
	})
	if !loopbackOnly {
		return mux
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !loopbackHost(r.Host) {
			writeDetail(w, http.StatusMisdirectedRequest, "This listener answers only requests addressed to localhost")
			return
		}
		mux.ServeHTTP(w, r)
	})
}

func methodNotAllowed(w http.ResponseWriter, allow string) {
	w.Header().Set("Allow", allow)
	writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
}

// recoverPanics turns a panic in a handler into a 500 JSON answer instead of a dropped
// connection; partitioners must not panic, so this is logged loudly.
func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				buf := make([]byte, 16<<10)
				buf = buf[:runtime.Stack(buf, false)]
				s.log.Error("panic serving request", "path", r.URL.Path, "panic", fmt.Sprint(v), "stack", string(buf))
				writeDetail(w, http.StatusInternalServerError, "Internal server error")
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// ListenAndServe serves s on addr until ctx is cancelled, then shuts down gracefully: the
// listener closes at once, in-flight requests get up to grace to finish.
func (s *Server) ListenAndServe(ctx context.Context, addr string, grace time.Duration) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: listen %s: %w", addr, err)
	}
	return s.Serve(ctx, ln, grace)
}

// Serve is ListenAndServe on an existing listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	hs := s.HTTPServer()
	if s.cfg.MaxConnsPerAddr > 0 || s.cfg.MaxConns > 0 {
		ln = &limitListener{Listener: ln, l: &connLimiter{perAddr: s.cfg.MaxConnsPerAddr, total: s.cfg.MaxConns, byAddr: map[string]int{}}}
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.log.Info("serving partition API", "addr", ln.Addr().String(), "max_concurrent", s.cfg.MaxConcurrent,
		"max_queue", s.cfg.MaxQueue, "max_body_bytes", s.cfg.MaxBodyBytes, "api_keys", len(s.cfg.APIKeys),
		"max_conns", s.cfg.MaxConns, "max_conns_per_addr", s.cfg.MaxConnsPerAddr)
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.log.Info("shutting down: finishing in-flight requests", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	s.spools.remove()
	s.log.Info("stopped")
	return nil
}

// HTTPServer returns an http.Server for s with timeouts suited to uploads: the header must
// arrive quickly, the body within the request timeout, and idle connections are reaped.
func (s *Server) HTTPServer() *http.Server {
	read, write := s.cfg.RequestTimeout, time.Duration(0)
	if read < 0 {
		read = 0
	}
	if read > 0 {
		// The write deadline counts from the request's start: reading, partitioning and
		// writing, so a client that stops reading cannot hold a slot forever.
		write = 2*read + time.Minute
	}
	return &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       read,
		WriteTimeout:      write,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
}

// routeLabel keeps metric label cardinality bounded whatever paths clients request.
func routeLabel(path string) string {
	switch {
	case path == "/healthcheck", path == "/metrics", path == "/general/openapi.json", path == "/general/docs":
		return path
	case strings.HasPrefix(path, "/general/") && strings.HasSuffix(path, "/general"):
		return "/general/{version}/general"
	}
	return "other"
}

// rateLog summarises a flood of similar events: the first is logged at once, later ones are
// counted and reported in at most one line per interval.
type rateLog struct {
	log   *slog.Logger
	msg   string
	every time.Duration

	mu    sync.Mutex
	count int64
	last  time.Time
}

func (l *rateLog) note() {
	l.mu.Lock()
	l.count++
	now := time.Now()
	if !l.last.IsZero() && now.Sub(l.last) < l.every {
		l.mu.Unlock()
		return
	}
	n := l.count
	l.count, l.last = 0, now
	l.mu.Unlock()
	l.log.Warn(l.msg, "count", n, "since_last_line", l.every.String())
}
