package server

import "github.com/quarrydocs/quarry/internal/apikey"

// apiKeys holds the accepted keys; empty means authentication is off. The check itself lives in
// internal/apikey so the platform API (/api/v1/) accepts exactly the same keys and headers:
// unstructured-api-key, service-api-key and Authorization: Bearer.
type apiKeys struct{ apikey.Keys }

func newAPIKeys(keys []string) apiKeys { return apiKeys{apikey.New(keys)} }
