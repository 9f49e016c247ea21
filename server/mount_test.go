package server

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestMount(t *testing.T) {
	s := New(Config{})
	s.Mount("/extra/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("extra " + r.URL.Path))
	}))
	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/extra/", 200, "extra /extra/"},
		{"/extra/a/b", 200, "extra /extra/a/b"},
		{"/extra", 200, "extra /extra"},
		{"/extras", 404, `{"detail":"Not Found"}`},
		{"/healthcheck", 200, `{"healthcheck":"HEALTHCHECK STATUS: EVERYTHING OK!"}`},
	} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if rec.Code != tc.status || rec.Body.String() != tc.body {
			t.Errorf("GET %s = %d %q, want %d %q", tc.path, rec.Code, rec.Body.String(), tc.status, tc.body)
		}
	}
}
