package engine

import (
	"fmt"
	"sort"
	"sync"
)

// The registry is filled at init time by format and strategy packages (like image.RegisterFormat)
// and only read afterwards; the mutex makes late registration by plugins safe too.
var registry = struct {
	sync.RWMutex
	formats    map[string]Partitioner // canonical MIME → partitioner
	strategies map[string]Partitioner // strategy name → partitioner for PDFs and images
}{formats: map[string]Partitioner{}, strategies: map[string]Partitioner{}}

// RegisterFormat makes p the partitioner for the canonical MIME types given. It panics when a
// type is registered twice, which is a programming error caught at start-up.
func RegisterFormat(p Partitioner, mimeTypes ...string) {
	registry.Lock()
	defer registry.Unlock()
	for _, m := range mimeTypes {
		if _, dup := registry.formats[m]; dup {
			panic(fmt.Sprintf("engine: format %s registered twice", m))
		}
		registry.formats[m] = p
	}
}

// RegisterStrategy makes p the partitioner for PDFs and images under strategy name.
func RegisterStrategy(name string, p Partitioner) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.strategies[name]; dup {
		panic(fmt.Sprintf("engine: strategy %s registered twice", name))
	}
	registry.strategies[name] = p
}

// ReplaceStrategy registers p under name, replacing an earlier registration (used by the
// plugin host to put an out-of-process wrapper in front of a built-in strategy).
func ReplaceStrategy(name string, p Partitioner) {
	registry.Lock()
	defer registry.Unlock()
	registry.strategies[name] = p
}

// ReplaceFormat registers p for the canonical MIME type, replacing an earlier registration (used
// by the plugin host to put an out-of-process wrapper in front of the built-in formats).
func ReplaceFormat(mime string, p Partitioner) {
	registry.Lock()
	defer registry.Unlock()
	registry.formats[mime] = p
}

// LookupFormat returns the partitioner registered for a canonical MIME type.
func LookupFormat(mime string) (Partitioner, bool) {
	registry.RLock()
	defer registry.RUnlock()
	p, ok := registry.formats[mime]
	return p, ok
}

// LookupStrategy returns the partitioner registered under a strategy name.
func LookupStrategy(name string) (Partitioner, bool) {
	registry.RLock()
	defer registry.RUnlock()
	p, ok := registry.strategies[name]
	return p, ok
}

// Strategies lists the registered strategy names, sorted.
func Strategies() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.strategies))
	for n := range registry.strategies {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Formats lists the canonical MIME types that have a partitioner, sorted.
func Formats() []string {
	registry.RLock()
	defer registry.RUnlock()
	names := make([]string, 0, len(registry.formats))
	for n := range registry.formats {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
