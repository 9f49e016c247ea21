// Package apikey checks the API keys of Quarry's HTTP APIs (the partition API and the platform
// API accept the same keys in the same headers).
package apikey

import (
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"
)

// Keys holds the SHA-256 digests of the accepted keys; empty means authentication is off. Only
// digests are kept: every comparison is then between two 32-byte values, so its time depends on
// neither the length nor the content of the key sent or of the keys accepted
// (subtle.ConstantTimeCompare returns at once when the lengths differ, which would tell a
// client, by timing, how long a key is).
type Keys []digest

type digest = [sha256.Size]byte

// New keeps the digests of the non-blank keys.
func New(keys []string) Keys {
	var out Keys
	for _, k := range keys {
		if k = strings.TrimSpace(k); k != "" {
			out = append(out, sha256.Sum256([]byte(k)))
		}
	}
	return out
}

// Enabled reports whether requests must carry a key.
func (k Keys) Enabled() bool { return len(k) > 0 }

// Check reports whether the request carries a valid key, and the value to print in the
// reference's 401 detail ("None" when no key was sent). The SDKs send unstructured-api-key;
// service-api-key and an Authorization bearer token are accepted too.
func (k Keys) Check(h http.Header) (ok bool, received string) {
	if len(k) == 0 {
		return true, ""
	}
	var candidates []string
	for _, name := range []string{"unstructured-api-key", "service-api-key"} {
		if vs := h.Values(name); len(vs) > 0 {
			candidates = append(candidates, vs[0])
		}
	}
	if auth := h.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		candidates = append(candidates, strings.TrimSpace(auth[7:]))
	}
	for _, c := range candidates {
		if k.Valid(c) {
			return true, ""
		}
	}
	if len(candidates) == 0 {
		return false, "None"
	}
	return false, candidates[0]
}

// Match returns the digest of the accepted key a request carries (false when none), so a
// caller can count requests per key without keeping the key itself.
func (k Keys) Match(h http.Header) ([32]byte, bool) {
	var cands []string
	for _, name := range []string{"unstructured-api-key", "service-api-key"} {
		if vs := h.Values(name); len(vs) > 0 {
			cands = append(cands, vs[0])
		}
	}
	if auth := h.Get("Authorization"); len(auth) > 7 && strings.EqualFold(auth[:7], "bearer ") {
		cands = append(cands, strings.TrimSpace(auth[7:]))
	}
	for _, c := range cands {
		if k.Valid(c) {
			return sha256.Sum256([]byte(strings.TrimSpace(c))), true
		}
	}
	return [32]byte{}, false
}

// Refusal is the 401 detail for a request Check refused, given what Check returned. It never
// repeats the key sent: a 401 may be logged, cached or shown by a proxy, and a near-miss key (a
// key for another service, a key with a typo) is still a secret.
func Refusal(received string) string {
	if received == "None" || received == "" {
		return "Missing API key: send it in the unstructured-api-key header"
	}
	return "The API key sent is invalid"
}

// Valid compares the digest of c against every accepted digest in constant time, so timing
// reveals neither a key, nor its length, nor which key matched.
func (k Keys) Valid(c string) bool {
	sum := sha256.Sum256([]byte(c))
	return k.validDigest(sum)
}

// validDigest compares fixed-size digests only; it is split from Valid so a test can check that
// every comparison is between equal-length values.
func (k Keys) validDigest(sum digest) bool {
	match := 0
	for i := range k {
		match |= subtle.ConstantTimeCompare(k[i][:], sum[:])
	}
	return match == 1
}
