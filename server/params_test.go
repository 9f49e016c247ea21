package server

import (
	"github.com/quarrydocs/quarry/api/partitionapi"
)

func engineParamNames() []string {
	var out []string
	for _, p := range partitionapi.Params() {
		out = append(out, p.Name)
	}
	return out
}
