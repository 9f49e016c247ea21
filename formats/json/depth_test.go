package json

import (
	"bytes"
	"errors"
	"runtime"
	"testing"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

// The attack: deeply nested JSON. Indented, 10,000 levels are ~100 MB of spaces; the document
// must be refused before any of that is built.
func TestAttackDeepJSONRefusedCheaply(t *testing.T) {
	for _, n := range []int{100000, 9999, maxDepth + 1} {
		data := append(bytes.Repeat([]byte("["), n), bytes.Repeat([]byte("]"), n)...)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		err := partitionJSON(t.Context(), engine.NewDocument("deep.json", data), nil, func(element.Element) error { return nil })
		runtime.ReadMemStats(&after)
		var ee *engine.Error
		if !errors.As(err, &ee) || ee.Kind != engine.KindBadRequest {
			t.Errorf("depth %d: %v, want a bad-request error", n, err)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 16<<20 {
			t.Errorf("depth %d: allocated %d MiB to refuse it", n, grew>>20)
		}
	}
	// Nesting within the limit, and brackets inside strings, are fine.
	ok := []byte(`{"a":[[["x]]]]]]]"]]],"b":"{{{{"}`)
	if err := partitionJSON(t.Context(), engine.NewDocument("ok.json", ok), nil, func(element.Element) error { return nil }); err != nil {
		t.Errorf("shallow JSON: %v", err)
	}
}
