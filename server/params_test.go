package server

import (
	"github.com/quarrydocs/quarry/api/partitionapi"
)

// apiParamNames are every parameter a request may carry: the API's and the keys the linked
// formats and strategies declare (the OpenAPI document and the docs page must list them all).
func apiParamNames() []string {
	var out []string
	for _, p := range partitionapi.All() {
		out = append(out, p.Name)
	}
	return out
}
