package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/quarrydocs/quarry/formats/all"
	"github.com/quarrydocs/quarry/internal/apikey"
	"github.com/quarrydocs/quarry/platform/api"
	"github.com/quarrydocs/quarry/server"
	_ "github.com/quarrydocs/quarry/strategies/fast"
	"github.com/quarrydocs/quarry/ui"
)

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

// byteSize is a flag holding a size such as 100MiB, 50MB or 1048576.
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }

func (b *byteSize) Set(v string) error {
	n, err := parseByteSize(v)
	if err != nil {
		return err
	}
	*b = byteSize(n)
	return nil
}

func parseByteSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}} {
		if strings.HasSuffix(strings.ToUpper(s), strings.ToUpper(u.suffix)) {
			s, mult = strings.TrimSpace(s[:len(s)-len(u.suffix)]), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("invalid size %q (want e.g. 100MiB, 50MB or a byte count)", v)
	}
	return n * mult, nil
}

// envDefault returns the environment variable's value, or def when unset.
func envDefault(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func runServe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", envDefault("QUARRY_ADDR", ""), "listen address; default :8000 with API keys, 127.0.0.1:8000 (loopback only) without (env QUARRY_ADDR)")
	var keys stringList
	fs.Var(&keys, "api-key", "accepted API key; repeatable (env UNSTRUCTURED_API_KEY)")
	keysFile := fs.String("api-keys-file", envDefault("QUARRY_API_KEYS_FILE", ""), "file of accepted API keys, one per line, # comments (env QUARRY_API_KEYS_FILE)")
	var partKeys stringList
	fs.Var(&partKeys, "partition-api-key", "key accepted by the partition API only (not the platform API, the UI or /metrics); repeatable; needs --api-key")
	partKeysFile := fs.String("partition-api-keys-file", envDefault("QUARRY_PARTITION_API_KEYS_FILE", ""), "file of partition-only API keys, one per line (env QUARRY_PARTITION_API_KEYS_FILE)")
	maxBody := byteSize(100 << 20)
	fs.Var(&maxBody, "max-body", "request body limit, e.g. 100MiB (env QUARRY_MAX_BODY)")
	maxConc := fs.Int("max-concurrent", 0, "partition requests processed at once; 0 = 2×CPUs (env QUARRY_MAX_CONCURRENT)")
	maxQueue := fs.Int("max-queue", 0, "requests waiting for a slot before 503; 0 = 4×max-concurrent, -1 = none (env QUARRY_MAX_QUEUE)")
	queueTimeout := fs.Duration("queue-timeout", 30*time.Second, "longest wait for a slot before 503 (env QUARRY_QUEUE_TIMEOUT)")
	reqTimeout := fs.Duration("request-timeout", 5*time.Minute, "limit on reading and partitioning one request (env QUARRY_REQUEST_TIMEOUT)")
	grace := fs.Duration("shutdown-timeout", 60*time.Second, "time in-flight requests get to finish on SIGTERM (env QUARRY_SHUTDOWN_TIMEOUT)")
	logFormat := fs.String("log-format", envDefault("QUARRY_LOG_FORMAT", "auto"), "log format: auto (readable on a terminal, JSON otherwise), json or text (env QUARRY_LOG_FORMAT)")
	logLevel := fs.String("log-level", envDefault("QUARRY_LOG_LEVEL", "info"), "debug, info, warn or error (env QUARRY_LOG_LEVEL)")
	inProcess := fs.Bool("in-process", false, "run pure-Go strategies and formats inside the server process (no memory budget per document)")
	maxElements := fs.Int("max-elements", 100_000, "elements (or chunks) one request may produce, all its documents together, before it is refused (422); -1 = no cap (env QUARRY_MAX_ELEMENTS)")
	maxResponse := byteSize(256 << 20)
	fs.Var(&maxResponse, "max-response", "largest answer of the partition API, e.g. 256MiB; larger ones are refused (422) instead of built in memory (env QUARRY_MAX_RESPONSE)")
	authFailures := fs.Int("auth-failures", 10, "refused API keys per minute from one client address before it gets 429 for a minute; -1 = no limit (behind a reverse proxy that limits, since all clients then share its address) (env QUARRY_AUTH_FAILURES)")
	csvEscape := fs.Bool("csv-escape-formulas", false, "prefix ' to CSV cells beginning with = + - @ tab or CR, which a spreadsheet would run as formulas; off: the reference's bytes (env QUARRY_CSV_ESCAPE_FORMULAS)")
	maxPerKey := fs.Int("max-concurrent-per-key", 0, "partition requests one API key may have in progress (in a slot or waiting for one); more are answered 429; 0 = no cap (env QUARRY_MAX_CONCURRENT_PER_KEY)")
	maxConnsPerAddr := fs.Int("max-conns-per-addr", 256, "open connections one client address (IPv6: its /64) may hold; more are answered 503; -1 = no cap (behind a reverse proxy, whose connections all share its address) (env QUARRY_MAX_CONNS_PER_ADDR)")
	maxConns := fs.Int("max-conns", 4096, "open connections in all; more are answered 503; -1 = no cap (env QUARRY_MAX_CONNS)")
	metricsAddr := fs.String("metrics-addr", envDefault("QUARRY_METRICS_ADDR", ""), "also serve /metrics without a key on this address, e.g. 127.0.0.1:9090, for a scraper without the API key; /metrics on --addr needs a key whenever keys are set (env QUARRY_METRICS_ADDR)")
	po := platformFlags(fs)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: quarry serve [flags]\n\nServes the web UI (/ui/), the API docs (/docs), the partition API (POST /general/v0/general), the\nplatform API (/api/v1/), /healthcheck and /metrics on one address.")
		fs.PrintDefaults()
	}
	// Environment values are applied first so flags override them.
	envFlags := map[string]string{
		"QUARRY_MAX_BODY": "max-body", "QUARRY_MAX_CONCURRENT": "max-concurrent", "QUARRY_MAX_QUEUE": "max-queue",
		"QUARRY_QUEUE_TIMEOUT": "queue-timeout", "QUARRY_REQUEST_TIMEOUT": "request-timeout",
		"QUARRY_SHUTDOWN_TIMEOUT": "shutdown-timeout", "QUARRY_MAX_ELEMENTS": "max-elements",
		"QUARRY_MAX_RESPONSE": "max-response", "QUARRY_AUTH_FAILURES": "auth-failures",
		"QUARRY_MAX_CONNS_PER_ADDR": "max-conns-per-addr", "QUARRY_MAX_CONNS": "max-conns",
		"QUARRY_MAX_CONCURRENT_PER_KEY": "max-concurrent-per-key", "QUARRY_CSV_ESCAPE_FORMULAS": "csv-escape-formulas",
	}
	for env, name := range envFlags {
		if v := os.Getenv(env); v != "" {
			if err := fs.Set(name, v); err != nil {
				return usageError("serve: %s: %v", env, err)
			}
		}
	}
	if err := parseFlags(fs, "serve", args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("serve: takes no file arguments, got %q; flags start with - (quarry serve --help)", fs.Args())
	}
	if v := os.Getenv("UNSTRUCTURED_API_KEY"); v != "" {
		keys = append(keys, v)
	}
	if *keysFile != "" {
		fileKeys, err := readKeysFile(*keysFile)
		if err != nil {
			return err
		}
		keys = append(keys, fileKeys...)
	}
	if *partKeysFile != "" {
		fileKeys, err := readKeysFile(*partKeysFile)
		if err != nil {
			return err
		}
		partKeys = append(partKeys, fileKeys...)
	}
	if len(partKeys) > 0 && len(keys) == 0 {
		// Without an admin key the platform API, the UI and /metrics would be keyless.
		return usageError("serve: partition-only keys need an admin key too (--api-key, UNSTRUCTURED_API_KEY or --api-keys-file): without one the platform API and the UI would take no key")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usageError("serve: --log-level: %v", err)
	}
	handler, err := logHandler(*logFormat, stderr, level)
	if err != nil {
		return usageError("serve: %v", err)
	}
	listen, posture := listenAddr(*addr, len(keys) > 0)
	log := slog.New(handler)
	warnSecretsOnCommandLine(log, fs)
	hideFromChildren(log)
	for _, f := range []string{*keysFile, *partKeysFile} {
		if mode, exposed := readableByOthers(f); exposed {
			log.Warn("the API keys file is readable by other users of this machine (each key it holds opens the service); chmod 600 it",
				"file", f, "mode", fmt.Sprintf("%04o", mode))
		}
	}
	// On a terminal the start-up block says the same in plain words.
	pretty := *logFormat == "auto" && isTerminal(stderr)
	switch {
	case pretty:
	case posture == postureLoopback:
		how := "set --api-key (or UNSTRUCTURED_API_KEY) to serve other machines"
		if *addr == "" {
			how += ", or --addr to choose the address"
		}
		log.Warn("no API key configured: listening on loopback only, so only this machine can reach the server; "+how, "addr", listen)
	case posture == postureOpenKeyless:
		log.Warn("no API key configured and --addr listens beyond loopback: anyone who can reach this address can partition, "+
			"create connectors and run jobs; set --api-key", "addr", listen)
	}
	// One budget of refused keys per client address across the partition API, the platform
	// API and the UI's key dialog: each is as good an oracle as the others.
	if *authFailures == 0 {
		return usageError("serve: --auth-failures must be positive, or -1 for no limit")
	}
	if *maxConnsPerAddr == 0 || *maxConns == 0 {
		return usageError("serve: --max-conns and --max-conns-per-addr must be positive, or -1 for no cap")
	}
	authLimit := apikey.NewLimiter(apikey.LimiterConfig{Failures: *authFailures})
	srv := server.New(server.Config{
		APIKeys:             keys,
		PartitionKeys:       partKeys,
		AuthLimiter:         authLimit,
		MaxBodyBytes:        int64(maxBody),
		MaxConcurrent:       *maxConc,
		MaxQueue:            *maxQueue,
		QueueTimeout:        *queueTimeout,
		RequestTimeout:      *reqTimeout,
		Logger:              slog.New(handler),
		InProcess:           *inProcess,
		MaxElements:         *maxElements,
		MaxResponseBytes:    int64(maxResponse),
		CSVEscapeFormulas:   *csvEscape,
		MaxConnsPerAddr:     *maxConnsPerAddr,
		MaxConns:            *maxConns,
		MaxConcurrentPerKey: *maxPerKey,
		// Keyless on loopback: only requests addressed to localhost (DNS rebinding).
		LoopbackHostsOnly: posture == postureLoopback,
	})
	p, err := openPlatform(ctx, po, keys, authLimit, *inProcess, slog.New(handler))
	if err != nil {
		return err
	}
	srv.Mount("/ui/", ui.New(ui.Config{APIKeys: keys, AuthLimiter: authLimit, Logger: slog.New(handler), LocalRoots: p.LocalRoots}))
	defer p.Close(*grace)
	srv.Mount("/api/v1/", p.Handler())
	srv.DescribeAPI(api.OpenAPI)
	srv.RedirectRoot("/ui/")
	ln, err := listenOn(ctx, listen)
	if err != nil {
		return err
	}
	if *metricsAddr != "" {
		stop, err := serveMetrics(ctx, *metricsAddr, srv, log)
		if err != nil {
			ln.Close()
			return err
		}
		defer stop()
	}
	announce(stderr, pretty, log, ln, len(keys), p.Store.String(), p.LocalRoots)
	return srv.Serve(ctx, ln, *grace)
}

type posture int

const (
	postureKeyed       posture = iota // keys configured: any address
	postureLoopback                   // no key, default address: loopback only
	postureOpenKeyless                // no key, an explicit address beyond loopback
)

// listenAddr picks the listen address. Without a key the default is loopback only: an open,
// keyless server on every interface lets anyone on the network (and any web page the operator
// visits, through their browser) drive the platform. An explicit address still wins.
func listenAddr(explicit string, keyed bool) (string, posture) {
	if explicit == "" {
		if keyed {
			return ":8000", postureKeyed
		}
		return "127.0.0.1:8000", postureLoopback
	}
	if keyed {
		return explicit, postureKeyed
	}
	host, _, err := net.SplitHostPort(explicit)
	if err == nil && host != "" {
		if ip := net.ParseIP(host); (ip != nil && ip.IsLoopback()) || host == "localhost" {
			return explicit, postureLoopback
		}
	}
	return explicit, postureOpenKeyless
}

func readKeysFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("serve: api keys file: %w", err)
	}
	defer f.Close()
	var keys []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		keys = append(keys, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("serve: api keys file: %w", err)
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("serve: api keys file %s holds no keys", path)
	}
	return keys, nil
}

// serveMetrics serves srv's keyless metrics on an address of their own until ctx ends (or stop
// is called): a scraper that holds no API key reaches only this listener, which the operator
// keeps inside the monitoring network.
func serveMetrics(ctx context.Context, addr string, srv *server.Server, log *slog.Logger) (stop func(), err error) {
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("serve: --metrics-addr: cannot listen on %s: %w", addr, err)
	}
	ip := addrIP(ln.Addr())
	hs := &http.Server{Handler: srv.MetricsHandler(ip != nil && ip.IsLoopback()), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second,
		WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go hs.Serve(ln)
	log.Info("serving /metrics without a key", "metrics", "http://"+ln.Addr().String()+"/metrics")
	if ip != nil && !ip.IsLoopback() {
		log.Warn("--metrics-addr is reachable beyond this machine: anyone who reaches it reads the metrics; keep it inside the monitoring network", "addr", ln.Addr().String())
	}
	return func() { hs.Close() }, nil
}

func addrIP(a net.Addr) net.IP {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP
	}
	return nil
}

// readableByOthers reports whether a secret file's mode lets other users read it (never on
// Windows, whose mode bits say nothing about that).
func readableByOthers(path string) (os.FileMode, bool) {
	if path == "" || runtime.GOOS == "windows" {
		return 0, false
	}
	fi, err := os.Stat(path)
	if err != nil {
		return 0, false
	}
	return fi.Mode().Perm(), fi.Mode().Perm()&0o077 != 0
}
