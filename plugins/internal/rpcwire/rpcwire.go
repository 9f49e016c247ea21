// Package rpcwire is plugin protocol 3 on the plugin's side: go-plugin's handshake and its
// net/rpc transport (gob over a yamux session over a Unix socket with mutual TLS), written here
// from their documented wire formats so that a plugin binary links neither go-plugin, gRPC,
// protobuf nor net/http. The host still launches and supervises the process with go-plugin's
// Client (plugins/host); package wire holds the host's half of the protocol.
//
// The transport, as go-plugin's net/rpc client expects it:
//
//   - The host starts the plugin with the magic cookie, PLUGIN_PROTOCOL_VERSIONS (the versions
//     it speaks), PLUGIN_CLIENT_CERT (its certificate, PEM, when it uses AutoMTLS) and
//     optionally PLUGIN_UNIX_SOCKET_DIR. The plugin listens on a Unix socket and prints one
//     line: CORE|VERSION|unix|ADDR|netrpc|CERT, CERT being its own certificate's DER in
//     unpadded standard base64.
//   - The host connects, runs TLS (each side verifies the other's certificate) and a yamux
//     session; it opens three streams: control, then the plugin's stdout and stderr.
//   - On the control stream, net/rpc with gob: each request is a gob Request{ServiceMethod,
//     Seq} then the argument; each response a gob Response{ServiceMethod, Seq, Error} then the
//     reply. Control.Ping and Control.Quit take a bool; Dispenser.Dispense takes the plugin
//     type's name and returns a stream id.
//   - The host opens one more stream, writes the id as a little-endian uint32, the plugin
//     writes it back as an acknowledgement, and serves the Strategy service on it ("Plugin.*"
//     methods, same net/rpc framing).
//
// The Strategy service is request/response: Describe; Start opens a call with the document's
// first chunk; Write carries the rest in chunks of ChunkSize; Next returns the call's next
// events (element batches, progress reports, and finally Done or an Error); Cancel stops the
// call. A call queues at most EventBuffer events for the host, then its strategy waits, so a
// document's elements are never buffered beyond a few batches.
package rpcwire

import (
	"github.com/quarrydocs/quarry/contract"
)

// ProtocolVersion is the plugin protocol this package serves (go-plugin's negotiated version):
// protocol 3, options as keys over net/rpc. Protocols 1 and 2 (gRPC) are spoken by hosts only.
const ProtocolVersion = 3

// CoreProtocol is go-plugin's core protocol version, the first field of the handshake line.
const CoreProtocol = 1

// The magic cookie is a UX guard (a plugin run by hand explains itself and exits), not
// security; it must never change, or every installed plugin breaks.
const (
	MagicCookieKey   = "QUARRY_PLUGIN_MAGIC_COOKIE"
	MagicCookieValue = "9c4f0b3e6d1a8f27e5b0c9d4a7f3e8126b5d0a9c4e7f1b38d2a6c5e0f9b4d7a31"
)

// Environment variables go-plugin's client sets for a plugin process.
const (
	envProtocolVersions = "PLUGIN_PROTOCOL_VERSIONS"
	envClientCert       = "PLUGIN_CLIENT_CERT"
	envSocketDir        = "PLUGIN_UNIX_SOCKET_DIR"
)

// Environment variables the Quarry host sets for a plugin process.
const (
	// EnvMemoryLimit is the memory limit in bytes the SDK applies to its own process when the
	// host could not apply it from outside.
	EnvMemoryLimit = "QUARRY_PLUGIN_MEMORY_LIMIT"
	// EnvHostPID is the host's process ID; the SDK exits when its parent changes.
	EnvHostPID = "QUARRY_PLUGIN_HOST_PID"
)

// PluginKey names the one plugin type a Quarry plugin process dispenses.
const PluginKey = "strategy"

// Capabilities a plugin may declare in Describe.
const (
	CapPath     = "path"
	CapProgress = "progress"
)

// ChunkSize is the size of the document chunks the host sends.
const ChunkSize = 1 << 20

// BatchBytes bounds the element bytes in one batch; a page with more is split.
const BatchBytes = 2 << 20

// MaxMessage bounds one gob message the plugin reads from the host: a chunk with its envelope,
// or a start message with its first chunk and options (a request's fields as sent). A longer
// message ends the connection before it is read.
const MaxMessage = 16 << 20

// Service method names of the Strategy service.
const (
	MethodDescribe = "Plugin.Describe"
	MethodStart    = "Plugin.Start"
	MethodWrite    = "Plugin.Write"
	MethodNext     = "Plugin.Next"
	MethodCancel   = "Plugin.Cancel"
)

// Description is Describe's answer.
type Description struct {
	// Name is the plugin's name (the quarry-plugin-<name> binary suffix).
	Name    string
	Version string
	// Protocol is the protocol version implemented: the one negotiated in the handshake.
	Protocol int
	// Strategies are the strategy names served.
	Strategies []string
	// MIMETypes are the canonical MIME types accepted; empty means PDFs and images.
	MIMETypes []string
	// Capabilities are optional features: CapPath, CapProgress.
	Capabilities []string
	// MaxWorkers is how many documents one process handles at once.
	MaxWorkers int
	// Options are the keys the plugin reads beyond the standard ones.
	Options []OptionSpec
}

// OptionSpec declares an option key a plugin reads beyond the standard ones. Kind is how its
// values read (contract.ValueKind: "bool", "int", "float", "string", "list"; empty: string).
type OptionSpec struct{ Key, Help, Kind string }

// Start opens a partition call; Write then carries the document unless Path is set.
type Start struct {
	Strategy    string
	Filename    string
	MIMEType    string
	ContentType string
	Size        int64
	// Path, when set, names a file holding the document on a file system the plugin shares
	// with the host; no chunks follow.
	Path string
	// Data is the document's first bytes (up to ChunkSize; all of a small document), so a
	// small document takes no Write.
	Data []byte
	// Options are the request's options as keys (contract.Options), sorted by key.
	Options []Option
}

// Option is one option key with its values: one for a scalar, one per item for a list.
type Option struct {
	Key    string
	Values []string
}

// Chunk is the next piece of a call's document, in order.
type Chunk struct {
	Call uint64
	Data []byte
}

// EventKind says what an Event carries.
type EventKind uint8

// Event kinds; Error and Done end the call.
const (
	EventBatch EventKind = iota + 1
	EventProgress
	EventError
	EventDone
)

// EventBuffer is how many events a call queues for the host before its strategy waits: the
// bound on what a plugin holds of a document's elements (each batch at most about BatchBytes).
const EventBuffer = 4

// Events is Next's answer: the call's next event, and those queued behind it.
type Events struct{ Events []Event }

// Event is one event of a partition call.
type Event struct {
	Kind EventKind
	// Page is a batch's page or a progress report's page; Pages the page count.
	Page, Pages int
	Stage       string
	// Elements are a batch's elements in the reference JSON shape, in document order.
	Elements [][]byte
	// ErrorKind (KindName) and Message are an Error's.
	ErrorKind string
	Message   string
	// Count is the number of elements sent, in Done.
	Count int
}

// KindName is k's name on the wire: a stable name, not contract.Kind's number.
func KindName(k contract.Kind) string {
	switch k {
	case contract.KindUnsupported:
		return "unsupported"
	case contract.KindBadRequest:
		return "bad_request"
	case contract.KindUnprocessable:
		return "unprocessable"
	case contract.KindUnavailable:
		return "unavailable"
	}
	return "internal"
}

// KindOf is KindName's inverse; an unknown name is an internal error.
func KindOf(name string) contract.Kind {
	for _, k := range []contract.Kind{contract.KindUnsupported, contract.KindBadRequest, contract.KindUnprocessable, contract.KindUnavailable} {
		if KindName(k) == name {
			return k
		}
	}
	return contract.KindInternal
}

// EncodeKeys puts options on the wire, keys sorted so equal options make equal messages.
func EncodeKeys(o contract.Options) []Option {
	out := make([]Option, 0, len(o))
	for _, k := range o.Keys() {
		out = append(out, Option{Key: k, Values: o[k]})
	}
	return out
}

// DecodeKeys is EncodeKeys' inverse; a repeated key keeps its last values.
func DecodeKeys(opts []Option) contract.Options {
	o := make(contract.Options, len(opts))
	for _, op := range opts {
		vs := op.Values
		if vs == nil {
			vs = []string{} // present with no items: an empty list, not an absent key
		}
		o[op.Key] = vs
	}
	return o
}
