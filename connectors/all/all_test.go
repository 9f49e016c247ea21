package all_test

import (
	"testing"

	"github.com/quarrydocs/quarry/connectors"
	_ "github.com/quarrydocs/quarry/connectors/all"
)

// Every connector kind is registered with a validator and the roles the platform offers it in.
func TestRegistered(t *testing.T) {
	tests := []struct {
		typ         string
		source      bool
		destination bool
	}{
		{"azure", true, true},
		{"confluence", true, false},
		{"local", true, true},
	}
	for _, tt := range tests {
		k, ok := connectors.Lookup(tt.typ)
		if !ok {
			t.Errorf("%s is not registered", tt.typ)
			continue
		}
		if k.Validate == nil || (k.NewSource != nil) != tt.source || (k.NewDestination != nil) != tt.destination {
			t.Errorf("%s: validate %v, source %v, destination %v", tt.typ, k.Validate != nil, k.NewSource != nil, k.NewDestination != nil)
		}
	}
}
