package server

import (
	"net/http"

	"github.com/quarrydocs/quarry/internal/apikey"
)

// apiKeys holds the accepted keys; empty means authentication is off. The check itself lives in
// internal/apikey so the platform API (/api/v1/) accepts exactly the same keys and headers:
// unstructured-api-key, service-api-key and Authorization: Bearer.
type apiKeys struct{ apikey.Keys }

func newAPIKeys(keys []string) apiKeys { return apiKeys{apikey.New(keys)} }

// check reports whether the request carries a valid key, and the value to print in the
// reference's 401 detail ("None" when no key was sent).
func (k apiKeys) check(h http.Header) (ok bool, received string) { return k.Check(h) }
