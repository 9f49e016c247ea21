package apikey

import (
	"net/http"
	"testing"
)

func TestCheck(t *testing.T) {
	k := New([]string{" k1 ", "", "k2"})
	for _, tc := range []struct {
		h        http.Header
		ok       bool
		received string
	}{
		{http.Header{"Unstructured-Api-Key": {"k1"}}, true, ""},
		{http.Header{"Service-Api-Key": {"k2"}}, true, ""},
		{http.Header{"Authorization": {"Bearer k2"}}, true, ""},
		{http.Header{"Authorization": {"bearer  k1 "}}, true, ""},
		{http.Header{"Unstructured-Api-Key": {"nope"}}, false, "nope"},
		{http.Header{}, false, "None"},
		{http.Header{"Authorization": {"Basic k1"}}, false, "None"},
	} {
		ok, got := k.Check(tc.h)
		if ok != tc.ok || got != tc.received {
			t.Errorf("%v: %v %q, want %v %q", tc.h, ok, got, tc.ok, tc.received)
		}
	}
	if ok, _ := New(nil).Check(http.Header{}); !ok || New(nil).Enabled() {
		t.Error("no keys must mean no authentication")
	}
}
