package confluence

import (
	"bytes"
	"encoding/json"
	"testing"
)

// Whatever a server answers, computing permissions returns a result or an error, never panics.
func FuzzComputePermissions(f *testing.F) {
	f.Add([]byte(`{"read":{"restrictions":{"user":{"results":[{"accountId":"a"}]},"group":{"results":[]}}},"_links":{}}`),
		[]byte(`[{"principal":{"type":"user","id":"a"},"operation":{"key":"read","targetType":"space"}}]`))
	f.Add([]byte(`{"restrictions":{"read":{"restrictions":{"user":{"results":[{"userKey":"k"}]}}}}}`), []byte(`[{"principal":{"type":"role","id":1},"operation":{"key":"delete","targetType":"page"}}]`))
	f.Add([]byte(`{"update":{"restrictions":{"group":{"results":[{"id":5},{"id":"x"}]}}}}`), []byte(`[null, 3, {"operation":[]}]`))
	f.Fuzz(func(t *testing.T, restrictions, space []byte) {
		var r map[string]any
		var s []any
		dec := json.NewDecoder(bytes.NewReader(restrictions))
		dec.UseNumber()
		if dec.Decode(&r) != nil {
			return
		}
		dec = json.NewDecoder(bytes.NewReader(space))
		dec.UseNumber()
		if dec.Decode(&s) != nil {
			return
		}
		if out, err := computePermissions([]map[string]any{r, r}, s); err == nil {
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("result does not encode: %v", err)
			}
		}
	})
}
