package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strconv"
	"strings"
)

// logHandler picks the log format: "auto" is a readable text form on a terminal and JSON
// otherwise (what log collectors parse).
func logHandler(format string, w io.Writer, level slog.Level) (slog.Handler, error) {
	if format == "auto" {
		format = "json"
		if isTerminal(w) {
			format = "pretty"
		}
	}
	opts := &slog.HandlerOptions{Level: level}
	switch format {
	case "json":
		return slog.NewJSONHandler(w, opts), nil
	case "text":
		return slog.NewTextHandler(w, opts), nil
	case "pretty":
		// The clock time is enough on a terminal; the date and zone are noise.
		opts.ReplaceAttr = func(groups []string, a slog.Attr) slog.Attr {
			if len(groups) == 0 && a.Key == slog.TimeKey {
				return slog.String(slog.TimeKey, a.Value.Time().Format("15:04:05"))
			}
			return a
		}
		return slog.NewTextHandler(w, opts), nil
	}
	return nil, fmt.Errorf("--log-format must be auto, json or text, not %q", format)
}

// endpoints are the addresses a person needs once the server is up.
type endpoints struct {
	Base, UI, Docs, OpenAPI, Health, Partition string
}

// endpointsFor builds the URLs for a listener's address: a wildcard bind is reached as
// localhost from this machine.
func endpointsFor(addr net.Addr) endpoints {
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		host, port = addr.String(), ""
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "localhost"
	}
	base := "http://" + net.JoinHostPort(host, port)
	return endpoints{Base: base, UI: base + "/ui/", Docs: base + "/docs", OpenAPI: base + "/openapi.json",
		Health: base + "/healthcheck", Partition: base + "/general/v0/general"}
}

// isLoopback reports whether the listener only accepts connections from this machine.
func isLoopback(addr net.Addr) bool {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// announce says where the service is: a short block for a person at a terminal, one JSON log
// line with the same URLs otherwise.
func announce(w io.Writer, pretty bool, log *slog.Logger, ln net.Listener, keys int, store string, localRoots []string) {
	e := endpointsFor(ln.Addr())
	if !pretty {
		log.Info("ready", "ui", e.UI, "docs", e.Docs, "openapi", e.OpenAPI, "health", e.Health,
			"partition", e.Partition, "api_keys", keys, "store", store, "local_roots", localRoots)
		return
	}
	var b strings.Builder
	v := strings.Fields(strings.TrimPrefix(versionString(), "quarry "))[0] // without the Go version
	fmt.Fprintf(&b, "\nQuarry %s is ready.\n\n", v)
	fmt.Fprintf(&b, "  Web UI        %s\n", e.UI)
	fmt.Fprintf(&b, "  API docs      %s  (try every route from the page; OpenAPI: %s)\n", e.Docs, e.OpenAPI)
	fmt.Fprintf(&b, "  Health check  %s\n", e.Health)
	fmt.Fprintf(&b, "  Partition     curl -F files=@report.pdf %s\n", e.Partition)
	if store != "" {
		fmt.Fprintf(&b, "  Data          %s\n", store)
	}
	if len(localRoots) > 0 {
		// Where a "local folder" source or destination may point: the UI's form asks for a path
		// relative to the first.
		fmt.Fprintf(&b, "  Local folders %s  (local sources and destinations live here)\n", strings.Join(localRoots, ", "))
	}
	b.WriteString("\n")
	switch {
	case keys > 0:
		fmt.Fprintf(&b, "API keys: %d accepted; send one in the unstructured-api-key header.\n", keys)
	case isLoopback(ln.Addr()):
		b.WriteString("No API key is set, so only this machine can connect. To serve other machines, set\nUNSTRUCTURED_API_KEY (or --api-key): the service then listens on every interface.\n")
	default:
		b.WriteString("No API key is set and --addr reaches beyond this machine: anyone who can reach this\naddress can partition, create connectors and run jobs. Set UNSTRUCTURED_API_KEY (or --api-key).\n")
	}
	b.WriteString("Press Ctrl-C to stop.\n\n")
	io.WriteString(w, b.String())
}

// listen opens addr with a message that says what to do when the port is taken.
func listenOn(ctx context.Context, addr string) (net.Listener, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		if strings.Contains(err.Error(), "address already in use") {
			return nil, fmt.Errorf("serve: %s is already in use by another program; stop it or choose another address with --addr (e.g. --addr 127.0.0.1:8001)", addr)
		}
		if _, port, perr := net.SplitHostPort(addr); perr != nil || port == "" {
			return nil, fmt.Errorf("serve: --addr %s is not HOST:PORT; give e.g. --addr 127.0.0.1:9000 (or :9000 for every interface): %w", addr, err)
		} else if n, perr := strconv.Atoi(port); perr == nil && (n < 0 || n > 65535) {
			return nil, fmt.Errorf("serve: --addr %s: port %d is out of range (0–65535); give e.g. --addr 127.0.0.1:9000", addr, n)
		}
		return nil, fmt.Errorf("serve: cannot listen on %s: %w", addr, err)
	}
	return ln, nil
}
