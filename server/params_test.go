package server

import "github.com/quarrydocs/quarry/engine"

func engineParamNames() []string {
	var out []string
	for _, p := range engine.Params() {
		out = append(out, p.Name)
	}
	return out
}
