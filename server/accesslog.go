package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strconv"
	"time"
)

// reqInfo is what the handlers tell the access log about a request.
type reqInfo struct {
	id         string
	files      int
	elements   int
	errDetail  string
	clientGone bool
}

type infoKey struct{}

func infoFrom(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(infoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

// statusWriter records the status and size of a response.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// requestID keeps a caller's X-Request-Id when it is short and printable, so logs can be
// joined with the caller's; otherwise a random one is made.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 {
		ok := true
		for _, c := range id {
			if c < 0x21 || c > 0x7e {
				ok = false
				break
			}
		}
		if ok {
			return id
		}
	}
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// accessLog writes one structured log line per request and records the HTTP metrics.
func (s *Server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		info := &reqInfo{id: requestID(r)}
		w.Header().Set("X-Request-Id", info.id)
		sw := &statusWriter{ResponseWriter: w}
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), infoKey{}, info)))
		status := sw.status
		if status == 0 {
			status = http.StatusOK
		}
		if info.clientGone {
			status = 499 // client closed the request; nothing useful reached it
		}
		elapsed := time.Since(start)
		route := routeLabel(r.URL.Path)
		code := strconv.Itoa(status)
		s.metrics.requests.WithLabelValues(route, methodLabel(r.Method), code).Inc()
		s.metrics.latency.WithLabelValues(route, code).Observe(elapsed.Seconds())

		level := slog.LevelInfo
		switch {
		case status == http.StatusServiceUnavailable:
			// Overload answers come in floods: one ERROR line each would bury real errors and
			// cost I/O exactly when the server is short of it. They are counted
			// (quarry_http_requests_total{code="503"}) and summarised by a rate-limited warning.
			level = slog.LevelDebug
			s.overload.note()
		case status >= 500:
			level = slog.LevelError
		case route == "/healthcheck" || route == "/metrics":
			level = slog.LevelDebug
		}
		attrs := []slog.Attr{
			slog.String("request_id", info.id),
			slog.String("method", r.Method),
			slog.String("path", r.URL.Path),
			slog.Int("status", status),
			slog.Int64("bytes", sw.bytes),
			slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			slog.String("remote", r.RemoteAddr),
			slog.String("user_agent", r.UserAgent()),
		}
		if info.files > 0 {
			attrs = append(attrs, slog.Int("files", info.files), slog.Int("elements", info.elements))
		}
		if info.errDetail != "" {
			attrs = append(attrs, slog.String("error", info.errDetail))
		}
		s.log.LogAttrs(r.Context(), level, "request", attrs...)
	})
}
