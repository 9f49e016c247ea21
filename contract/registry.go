package contract

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Format declares one file type and, usually, the partitioner that reads it. A format package
// registers it from init (RegisterFormat), the way image formats call image.RegisterFormat:
// everything the engine's detection needs to recognise the type comes from here, so adding a
// format never means editing the engine.
type Format struct {
	// Name is the short lower-case name, as skip_infer_table_types spells it ("docx", "pdf").
	Name string
	// MIME is the canonical type written to metadata.filetype; Aliases are other spellings a
	// hint or a byte sniffer may give.
	MIME    string
	Aliases []string
	// Extensions are the file name extensions, lower case with the dot (".docx").
	Extensions []string

	// Partitioner reads the format. It is nil for a type that a strategy reads (Paged).
	Partitioner Partitioner
	// Paged types (PDF, images) go to the request's strategy, not to Partitioner. Image marks
	// the paged types that have no text layer (the reference's image rules).
	Paged bool
	Image bool

	// ZipMembers name the type of a ZIP archive that holds a matching member (a DOCX holds
	// word/document.xml). An archive whose "mimetype" member names a registered type (ODF,
	// EPUB) needs no entry.
	ZipMembers []ZipMember
	// CFBStreams name the type of a Compound File (legacy Office, Outlook) that holds one of
	// these streams at its root.
	CFBStreams []string
	// Container says the type's files are ZIP or Compound File archives, so a hint naming it
	// is believed only when the bytes are such an archive. ZipMembers or CFBStreams imply it.
	Container bool

	// Text says the type's content is text although its MIME type is not text/*: a byte sniff
	// giving it is refined by the text rules (JSON, NDJSON, email).
	Text bool
	// TrustExtension: a text file with one of the type's extensions is this type, whatever
	// sniffing says (a .md file is Markdown even when it looks like CSV; a plain-text .pdf is
	// a PDF, which the reference then rejects as invalid).
	TrustExtension bool
	// SniffText, when set, looks at text content not settled by its extension (head is its
	// first 8 KB, ext the lower-case extension) and names the registered MIME type it is, or
	// says it is not this format's. For a file with one of the type's trusted extensions it
	// may name a sibling type (JSON content in a .ndjson file). Text sniffers run in
	// SniffOrder, lowest first.
	SniffText  func(doc *Document, head []byte, ext string) (mime string, ok bool)
	SniffOrder int
	// MIMESuffix claims every sniffed MIME type ending with it ("xml": RSS, SVG, XHTML…).
	MIMESuffix string
	// AcceptsXML: XML content under the type's extensions is this type (XHTML in a .html
	// file), not the type claiming XML.
	AcceptsXML bool
	// PlainText marks the type given to text that nothing else claims.
	PlainText bool

	// Precheck, when set, runs on every document of the type before any strategy or
	// partitioner (the reference opens every PDF first to answer 422 for a broken one).
	Precheck func(ctx context.Context, doc *Document) error

	// Options declares the keys the format reads beyond the standard ones.
	Options []KeySpec
}

// ZipMember matches an archive member name by prefix and suffix.
type ZipMember struct{ Prefix, Suffix string }

// Match reports whether name matches.
func (m ZipMember) Match(name string) bool {
	return strings.HasPrefix(name, m.Prefix) && strings.HasSuffix(name, m.Suffix)
}

// Strategy declares a strategy: a partitioner for the paged types (PDF, images) chosen by the
// request's strategy key, and the keys it reads beyond the standard ones.
type Strategy struct {
	Name        string
	Partitioner Partitioner
	Options     []KeySpec
}

// The strategy names the partition API defines (values of KeyStrategy). The engine's "auto"
// rules (partition-api.md §7.1) are stated over them; a strategy registers under its name.
// These names are part of the API, as the standard keys are, so they live here.
const (
	StrategyAuto    = "auto"
	StrategyFast    = "fast"
	StrategyHiRes   = "hi_res"
	StrategyOCROnly = "ocr_only"
	StrategyVLM     = "vlm"
)

// APIStrategies are the strategy names the API accepts whether or not they are installed.
var APIStrategies = []string{StrategyAuto, StrategyFast, StrategyHiRes, StrategyOCROnly, StrategyVLM}

// TextLayerProber is an optional capability of a strategy (fast): it reports whether a PDF has
// extractable text, which decides what "auto" resolves to.
type TextLayerProber interface {
	HasText(ctx context.Context, doc *Document, opts Options) (bool, error)
}

// The registry is written while the program starts (init functions, then whatever main does
// before the first document: plugins put in front of built-ins) and read-only once Freeze has
// been called, which the engine does before it partitions its first document. Nothing can then
// change what a running request sees, and readers need no lock after that point.
var registry = struct {
	sync.RWMutex
	frozen     bool
	formats    []Format
	strategies map[string]Strategy
}{strategies: map[string]Strategy{}}

func mutate(what string) func() {
	registry.Lock()
	if registry.frozen {
		registry.Unlock()
		panic("contract: " + what + " after the registry was frozen (register in init or before the first document is partitioned)")
	}
	return registry.Unlock
}

// RegisterFormat declares a file type. It panics when the name, MIME type or an alias is
// already registered, or when called after Freeze: both are programming errors caught at
// start-up.
func RegisterFormat(f Format) {
	defer mutate("format " + f.Name + " registered")()
	if f.Name == "" || f.MIME == "" {
		panic("contract: a format needs a name and a MIME type")
	}
	for _, g := range registry.formats {
		if g.Name == f.Name || g.MIME == f.MIME || slices.Contains(g.Aliases, f.MIME) {
			panic(fmt.Sprintf("contract: format %s (%s) registered twice", f.Name, f.MIME))
		}
	}
	registry.formats = append(registry.formats, f)
}

// RegisterStrategy declares a strategy. It panics on a duplicate name or after Freeze.
func RegisterStrategy(s Strategy) {
	defer mutate("strategy " + s.Name + " registered")()
	if _, dup := registry.strategies[s.Name]; dup {
		panic(fmt.Sprintf("contract: strategy %s registered twice", s.Name))
	}
	registry.strategies[s.Name] = s
}

// ReplaceStrategy puts p in place of the strategy registered under name, or registers it.
// Start-up code uses it to put something in front of a built-in (a plugin process, the
// per-page router); it panics after Freeze.
func ReplaceStrategy(name string, p Partitioner) {
	defer mutate("strategy " + name + " replaced")()
	s := registry.strategies[name]
	s.Name, s.Partitioner = name, p
	registry.strategies[name] = s
}

// DeclareStrategyOptions adds keys to those the strategy registered under name declares,
// registering the name when it is not (a plugin's strategy, whose keys the host learns from the
// plugin). A key the strategy already declares keeps its declaration. Start-up only, as
// ReplaceStrategy.
func DeclareStrategyOptions(name string, keys []KeySpec) {
	defer mutate("options of strategy " + name + " declared")()
	s := registry.strategies[name]
	s.Name = name
	for _, k := range keys {
		if !slices.ContainsFunc(s.Options, func(o KeySpec) bool { return o.Key == k.Key }) {
			s.Options = append(slices.Clip(s.Options), k)
		}
	}
	registry.strategies[name] = s
}

// ReplaceFormat puts p in place of the partitioner of the format registered for mime (start-up
// only, as ReplaceStrategy). It reports whether such a format exists.
func ReplaceFormat(mime string, p Partitioner) bool {
	defer mutate("format " + mime + " replaced")()
	for i := range registry.formats {
		if registry.formats[i].MIME == mime {
			registry.formats[i].Partitioner = p
			return true
		}
	}
	return false
}

// SetPrecheck installs fn as the precheck of the format registered for mime (a strategy that
// parses the type offers its parse as the check). Start-up only; false when no such format.
func SetPrecheck(mime string, fn func(ctx context.Context, doc *Document) error) bool {
	defer mutate("precheck for " + mime + " set")()
	for i := range registry.formats {
		if registry.formats[i].MIME == mime {
			registry.formats[i].Precheck = fn
			return true
		}
	}
	return false
}

// Freeze ends start-up: every later registration panics. Calling it again does nothing.
func Freeze() {
	registry.Lock()
	registry.frozen = true
	registry.Unlock()
}

// Frozen reports whether Freeze has been called.
func Frozen() bool {
	registry.RLock()
	defer registry.RUnlock()
	return registry.frozen
}

// Formats returns the registered formats in registration order (copies: changing them changes
// nothing registered).
func Formats() []Format {
	registry.RLock()
	defer registry.RUnlock()
	return slices.Clone(registry.formats)
}

// LookupFormat returns the format registered for a canonical MIME type or alias.
func LookupFormat(mime string) (Format, bool) {
	registry.RLock()
	defer registry.RUnlock()
	for _, f := range registry.formats {
		if f.MIME == mime || slices.Contains(f.Aliases, mime) {
			return f, true
		}
	}
	return Format{}, false
}

// Strategies returns the registered strategies sorted by name.
func Strategies() []Strategy {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]Strategy, 0, len(registry.strategies))
	for _, s := range registry.strategies {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Strategy) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// LookupStrategy returns the strategy registered under name.
func LookupStrategy(name string) (Strategy, bool) {
	registry.RLock()
	defer registry.RUnlock()
	s, ok := registry.strategies[name]
	return s, ok
}

// DeclaredKeys lists the keys registered formats and strategies declared, sorted by key, each
// with the name of its registrant. A key declared by two registrants is listed once per
// registrant.
func DeclaredKeys() []DeclaredKey {
	var out []DeclaredKey
	for _, f := range Formats() {
		for _, k := range f.Options {
			out = append(out, DeclaredKey{KeySpec: k, By: f.Name})
		}
	}
	for _, s := range Strategies() {
		for _, k := range s.Options {
			out = append(out, DeclaredKey{KeySpec: k, By: s.Name})
		}
	}
	slices.SortStableFunc(out, func(a, b DeclaredKey) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// DeclaredKey is a key and the format or strategy that declared it.
type DeclaredKey struct {
	KeySpec
	By string
}
