// Package sdk is what a third-party strategy author imports. A plugin is a program whose main
// calls Serve once:
//
//	func main() {
//		sdk.Serve(sdk.Strategy{
//			Name:      "mystrategy",
//			MIMETypes: []string{"application/pdf"},
//			Partition: func(ctx context.Context, doc *sdk.Document, opts sdk.Options, emit sdk.Emit) error {
//				if opts.Bool(contract.KeyIncludePageBreaks, false) { … }
//				return emit(element.Element{Type: element.NarrativeText, Text: "…",
//					Metadata: element.Metadata{PageNumber: element.Int(1)}})
//			},
//		})
//	}
//
// The SDK depends on package contract (documents, options as keys, errors) and element only, not
// on the engine: a plugin binary does not carry the host's language profiles or chunking. Options
// arrive as keys named like the partition API's form fields (contract.StandardKeys), plus any key
// of the request the API does not define, as sent. The plugin protocol version is negotiated with
// the host at start-up; see plugins/README.md for the contract and its versioning.
//
// Built as quarry-plugin-<name>, with its SHA-256 in quarry-plugin-<name>.sha256, in the plugin
// directory, it is selected with strategy=mystrategy. The host runs it in its own process over
// go-plugin's net/rpc transport (mutual TLS over a private Unix socket; the SDK implements the
// plugin's side itself, so a plugin links neither go-plugin nor gRPC), restarts it when it
// crashes or hangs, and post-processes its elements (IDs, languages, hierarchy, chunking) like
// those of a built-in strategy: a strategy sets only type, text and the metadata it knows, with
// page numbers starting at 1.
package sdk

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/plugins/internal/rpcwire"
)

// The contract's types under the SDK's name, so a plugin can import the SDK alone.
type (
	// Document is the document to partition.
	Document = contract.Document
	// Options are the request's options as keys (contract.Options).
	Options = contract.Options
	// Emit receives elements in document order.
	Emit = contract.Emit
	// Error is a typed error: its Kind decides the caller's status, its Msg is shown as it is.
	Error = contract.Error
)

// ProtocolVersion is the plugin protocol this SDK serves.
const ProtocolVersion = rpcwire.ProtocolVersion

// Strategy is one strategy served by a plugin.
type Strategy struct {
	// Name is the strategy name callers select with strategy=<name>.
	Name string
	// MIMETypes are the canonical types accepted; empty means PDFs and images.
	MIMETypes []string
	// Partition turns a document into elements, emitted in document order.
	Partition func(ctx context.Context, doc *Document, opts Options, emit Emit) error
}

// Option declares an option key a plugin reads beyond contract.StandardKeys (a request's
// shout_volume=11 reaches the plugin as the key "shout_volume" whether declared or not; declaring
// it lists it in quarry plugin list). Name keys in snake_case, prefixed with the plugin's name
// when they could clash with a future API field.
type Option struct {
	Key  string
	Help string
	// Kind is how the key's values read (contract.Bool, Int, Float, String or List; empty:
	// String). The host checks a request's values by it, as it does the API's own parameters
	// (a value that does not read is a 422), and documents the key with the API's.
	Kind contract.ValueKind
}

// Plugin describes a plugin serving one or more strategies.
type Plugin struct {
	// Name of the plugin (the suffix of quarry-plugin-<name>); defaults to the first
	// strategy's name.
	Name string
	// Version is reported to the host; defaults to the main module's version.
	Version    string
	Strategies []Strategy
	// Options are the plugin's own option keys.
	Options []Option
	// MaxDocumentBytes bounds a streamed document (0 = 1 GiB).
	MaxDocumentBytes int64
}

// Serve serves strategies as a plugin and never returns. Run by hand (without the host's
// handshake) it prints an explanation and exits with status 1.
func Serve(strategies ...Strategy) { ServePlugin(Plugin{Strategies: strategies}) }

// ServePlugin serves p and never returns.
func ServePlugin(p Plugin) {
	if err := prepare(); err != nil {
		fmt.Fprintln(os.Stderr, "quarry plugin:", err)
		os.Exit(1)
	}
	srv := server(p)
	go watchParent()
	if err := rpcwire.Serve(context.Background(), srv); err != nil {
		fmt.Fprintln(os.Stderr, "quarry plugin:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

func server(p Plugin) *rpcwire.Server {
	srv := &rpcwire.Server{Name: p.Name, Version: p.Version, MaxDocumentBytes: p.MaxDocumentBytes}
	for _, s := range p.Strategies {
		srv.Strategies = append(srv.Strategies, rpcwire.Strategy{Name: s.Name, MIMETypes: s.MIMETypes, Partition: s.Partition})
	}
	for _, o := range p.Options {
		srv.Options = append(srv.Options, rpcwire.OptionSpec{Key: o.Key, Help: o.Help, Kind: string(o.Kind)})
	}
	if srv.Name == "" && len(p.Strategies) > 0 {
		srv.Name = p.Strategies[0].Name
	}
	return srv
}

// ReportProgress sends a progress event for the current call (page of pages, and a stage such
// as "ocr"). It is safe from any goroutine and does nothing outside a plugin call.
func ReportProgress(ctx context.Context, page, pages int, stage string) {
	contract.ReportProgress(ctx, page, pages, stage)
}

// prepare applies the memory limit the host asked for. The host applies it from outside with
// prlimit where it can; doing it here as well covers hosts without prlimit, and the soft Go
// limit makes the collector work harder before the hard limit kills the process.
func prepare() error {
	v := os.Getenv(rpcwire.EnvMemoryLimit)
	if v == "" {
		return nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return fmt.Errorf("bad %s=%q", rpcwire.EnvMemoryLimit, v)
	}
	if err := setMemoryLimit(n, 4<<30); err != nil {
		return fmt.Errorf("set memory limit: %w", err)
	}
	debug.SetMemoryLimit(int64(n / 4 * 3))
	return nil
}

// watchParent exits when the host is gone. Linux's parent-death signal normally kills the
// plugin first; this covers other systems and a host thread that exited early.
func watchParent() {
	want, _ := strconv.Atoi(os.Getenv(rpcwire.EnvHostPID))
	if want == 0 {
		want = os.Getppid()
	}
	for range time.Tick(time.Second) {
		if os.Getppid() != want {
			os.Exit(3)
		}
	}
}
