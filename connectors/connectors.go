// Package connectors defines what the platform needs from a source or destination connector
// (Azure Blob Storage, Confluence, a local folder…) and a registry the connector packages fill
// at init time, like formats and strategies do for the engine.
package connectors

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/quarrydocs/quarry/element"
)

// Document is one file a source yields.
type Document struct {
	// ID identifies the document within its source (a blob path, a Confluence page id).
	ID string
	// Filename is the name used for partitioning: metadata.filename and element IDs.
	Filename string
	// Version changes whenever the content does (an ETag, a page version); runs with
	// reprocess_all=false skip documents whose version was already processed.
	Version     string
	Size        int64
	ContentType string
	// DataSource is written to metadata.data_source of every element (url, version,
	// record_locator, date_created, date_modified, date_processed, permissions_data…).
	DataSource map[string]any
}

// Source lists documents and opens them.
type Source interface {
	// List calls yield for every document, stopping at the first error yield returns.
	List(ctx context.Context, yield func(Document) error) error
	// Open returns the document's bytes.
	Open(ctx context.Context, doc Document) (io.ReadCloser, error)
	// Check verifies that the source is reachable with the configured credentials.
	Check(ctx context.Context) error
}

// Destination stores the elements of processed documents.
type Destination interface {
	// Write stores the elements partitioned from doc (for files: one JSON file per document).
	Write(ctx context.Context, doc Document, elements []element.Element) error
	// Check verifies that the destination is reachable and writable.
	Check(ctx context.Context) error
}

// Env is the operator's policy, handed by the platform to every connector it validates or builds.
// It is configuration, not a global: a test or an embedding program builds connectors with the Env
// it wants.
type Env struct {
	// AllowPrivateNetwork lets connectors reach loopback, private and link-local addresses
	// (an on-premises service, an emulator). Off: such addresses are refused at connect time
	// (see internal/netguard).
	AllowPrivateNetwork bool
	// LocalRoots are the directories the local connector may read and write; none means the
	// local connector is refused.
	LocalRoots []string
}

// Kind describes one connector type. Config values are the JSON-decoded "config" object of the
// platform API's connector bodies.
type Kind struct {
	// Type is the API's type name ("azure", "confluence", "local").
	Type string
	// Secrets lists the config keys stored encrypted and returned masked.
	Secrets []string
	// Targets lists the config keys that say where the secrets are sent (a URL, an endpoint, an
	// account, a user name). A secret given back as the mask is kept on update only when none of
	// them changed; otherwise the client must send the secret again, so a stored password cannot
	// be retargeted at another host. Nil means every key that is not a secret.
	Targets []string
	// Validate checks a config; it returns a *schema.ValidationError whose locations are
	// ["body", "config", key] so the API answers 422 with the list-form detail.
	Validate func(config map[string]any, env Env) error
	// NewSource builds a source; nil when the type cannot be a source.
	NewSource func(config map[string]any, env Env) (Source, error)
	// NewDestination builds a destination; nil when the type cannot be a destination.
	NewDestination func(config map[string]any, env Env) (Destination, error)
}

var registry = struct {
	sync.RWMutex
	kinds map[string]Kind
}{kinds: map[string]Kind{}}

// Register adds a connector kind; registering a type twice panics (a programming error).
func Register(k Kind) {
	registry.Lock()
	defer registry.Unlock()
	if _, dup := registry.kinds[k.Type]; dup {
		panic(fmt.Sprintf("connectors: %s registered twice", k.Type))
	}
	registry.kinds[k.Type] = k
}

// Lookup returns the kind registered under a type name.
func Lookup(typ string) (Kind, bool) {
	registry.RLock()
	defer registry.RUnlock()
	k, ok := registry.kinds[typ]
	return k, ok
}

// Types lists the registered type names, sorted.
func Types() []string {
	registry.RLock()
	defer registry.RUnlock()
	out := make([]string, 0, len(registry.kinds))
	for t := range registry.kinds {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// RelPath turns a document ID into a slash-separated relative path for a destination: ".",
// ".." and empty segments are dropped, not resolved. Resolving them kept a name inside the
// destination but let one document's ID name another's place: a Confluence attachment linked
// as "..\..\OPS\21.html" from a page in DEV became the blob of page OPS/21 and replaced its
// output. "" when nothing is left.
func RelPath(id string) string {
	var keep []string
	for _, seg := range strings.Split(id, "/") {
		if seg != "" && seg != "." && seg != ".." {
			keep = append(keep, seg)
		}
	}
	return strings.Join(keep, "/")
}
