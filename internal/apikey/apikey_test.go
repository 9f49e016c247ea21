package apikey

import (
	"bytes"
	"crypto/sha256"
	"net/http"
	"strings"
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

// TestValidFixedLength: keys of any length are kept as equal-size digests (never the key itself),
// so Valid's constant-time compare always sees two inputs of the same length and cannot return
// early on a length mismatch; candidates that differ only in length are refused.
func TestValidFixedLength(t *testing.T) {
	const key = "s3cret-key"
	for _, n := range []int{1, 7, 32, 33, 1000} {
		k := New([]string{strings.Repeat("k", n)})
		if len(k[0]) != sha256.Size {
			t.Errorf("a %d-byte key is kept as %d bytes, want a %d-byte digest", n, len(k[0]), sha256.Size)
		}
		if n >= 7 && bytes.Contains(k[0][:], []byte(strings.Repeat("k", 7))) {
			t.Errorf("the %d-byte key is kept in clear", n)
		}
	}
	k := New([]string{key})
	if !k.Valid(key) {
		t.Fatal("the key itself is refused")
	}
	for _, c := range []string{"", "s", key[:len(key)-1], key + "x", key + key, strings.Repeat("x", len(key)),
		strings.ToUpper(key), key + "\x00", strings.Repeat("s", 4096)} {
		if k.Valid(c) {
			t.Errorf("%q accepted", c)
		}
	}
	// The compare path takes the same fixed-size input whatever the candidate's length.
	for _, c := range []string{"", key, strings.Repeat("x", 1<<16)} {
		sum := sha256.Sum256([]byte(c))
		if got := k.validDigest(sum); got != (c == key) {
			t.Errorf("validDigest(%d-byte candidate) = %v", len(c), got)
		}
	}
}
