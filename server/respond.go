package server

import (
	"encoding/json"
	"net/http"
	"strconv"
)

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

// writeDetail writes the reference's error body {"detail": "<msg>"}.
func writeDetail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, detailBody(msg))
}

func detailBody(detail any) []byte {
	b, err := marshalNoEscape(map[string]any{"detail": detail})
	if err != nil {
		return []byte(`{"detail":"Internal server error"}`)
	}
	return b
}

// marshalNoEscape encodes like Python's json.dumps with ensure_ascii off as FastAPI does: no
// HTML escaping of <, > and &.
func marshalNoEscape(v any) ([]byte, error) {
	var b jsonBuffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := []byte(b)
	return out[:len(out)-1], nil // Encode appends a newline
}

type jsonBuffer []byte

func (b *jsonBuffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
