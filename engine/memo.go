package engine

import "sync"

// memo holds per-document results shared by the steps that see the same document (a PDF parsed
// once for the validity check, the text-layer probe of "auto" and the strategy itself).
type memo struct {
	mu     sync.Mutex
	values map[any]memoEntry
}

type memoEntry struct {
	v   any
	err error
}

// Memo returns the value stored under key for this document, computing it with build the first
// time. Keys should be unexported types of the calling package, as with context values.
func (d *Document) Memo(key any, build func() (any, error)) (any, error) {
	d.memo.mu.Lock()
	defer d.memo.mu.Unlock()
	if e, ok := d.memo.values[key]; ok {
		return e.v, e.err
	}
	v, err := build()
	if d.memo.values == nil {
		d.memo.values = map[any]memoEntry{}
	}
	d.memo.values[key] = memoEntry{v, err}
	return v, err
}
