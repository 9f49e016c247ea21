package server

import (
	"net/http"
	"strings"
)

// Mount serves h for every path under prefix (which ends in "/") and for the prefix without
// its slash, ahead of the partition API's routes and behind the same access log and panic
// recovery. `quarry serve` uses it to add the web UI and the platform API to one listener.
// Call it before serving; it is not safe to call concurrently with requests.
func (s *Server) Mount(prefix string, h http.Handler) {
	if !strings.HasSuffix(prefix, "/") {
		prefix += "/"
	}
	bare := strings.TrimSuffix(prefix, "/")
	inner := s.handler
	mounted := s.accessLog(s.recoverPanics(h))
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, prefix) || r.URL.Path == bare {
			mounted.ServeHTTP(w, r)
			return
		}
		inner.ServeHTTP(w, r)
	})
}

// RedirectRoot sends GET and HEAD requests for "/" to target (the web UI), so a person who
// opens the server's address in a browser lands somewhere useful instead of on a 404.
func (s *Server) RedirectRoot(target string) {
	s.home = target
	inner := s.handler
	s.handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			http.Redirect(w, r, target, http.StatusFound)
			return
		}
		inner.ServeHTTP(w, r)
	})
}
