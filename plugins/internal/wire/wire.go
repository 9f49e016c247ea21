// Package wire is the go-plugin glue shared by the plugin host and the SDK: the handshake, the
// plugin set, the gRPC server that runs a strategy inside a plugin process and the client stub
// the host calls. Both sides live here so the two halves of the protocol cannot drift apart.
package wire

import (
	"context"
	"errors"
	"runtime/debug"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/quarrydocs/quarry/contract"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// Plugin protocol versions (the go-plugin handshake's protocol version; the messages are those
// of package plugins/proto/v1 in both).
const (
	// ProtocolLegacy is protocol 1: options cross as the host's engine.Options as JSON with Go
	// field names. Hosts keep speaking it for plugins built before protocol 2.
	ProtocolLegacy = 1
	// ProtocolVersion is the protocol the SDK serves: options cross as contract keys.
	ProtocolVersion = 2
)

// Protocols lists the protocol versions a host speaks, oldest first.
var Protocols = []int{ProtocolLegacy, ProtocolVersion}

// Speaks reports whether a host speaks protocol v.
func Speaks(v int) bool { return v >= ProtocolLegacy && v <= ProtocolVersion }

// PluginKey names the one plugin type a Quarry plugin process dispenses.
const PluginKey = "strategy"

// Handshake is the go-plugin handshake. The cookie is a UX guard (a plugin run by hand explains
// itself and exits), not security; it must never change, or every installed plugin breaks. The
// protocol version is negotiated through versioned plugin sets (ServerSets, ClientSets): the
// host offers every version it speaks and the plugin answers with the one it serves.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   "QUARRY_PLUGIN_MAGIC_COOKIE",
	MagicCookieValue: "9c4f0b3e6d1a8f27e5b0c9d4a7f3e8126b5d0a9c4e7f1b38d2a6c5e0f9b4d7a31",
}

// Environment variables the host sets for a plugin process.
const (
	// EnvMemoryLimit is the address-space limit in bytes the SDK applies to its own process
	// when the host could not apply it from outside.
	EnvMemoryLimit = "QUARRY_PLUGIN_MEMORY_LIMIT"
	// EnvHostPID is the host's process ID; the SDK exits when its parent changes.
	EnvHostPID = "QUARRY_PLUGIN_HOST_PID"
)

// Capabilities a plugin may declare in Describe.
const (
	CapPath     = "path"
	CapProgress = "progress"
)

// ChunkSize is the size of the document chunks the host streams (well under gRPC's 4 MiB
// default receive limit of the plugin's server).
const ChunkSize = 1 << 20

// BatchBytes bounds the element bytes in one ElementBatch; a page with more is split.
const BatchBytes = 2 << 20

// ServerSets returns the versioned plugin sets a plugin process serves: impl at every protocol
// version, so a plugin built today runs under a host that speaks protocol 1 only (its options
// arrive as options_json and are read as keys, LegacyKeys).
func ServerSets(impl *Server) map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for _, v := range Protocols {
		sets[v] = plugin.PluginSet{PluginKey: &grpcPlugin{impl: impl, version: v}}
	}
	return sets
}

// ClientSets returns the versioned plugin sets of the host: one per protocol it speaks, each
// dispensing a Client that speaks that version.
func ClientSets() map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for _, v := range Protocols {
		sets[v] = plugin.PluginSet{PluginKey: &grpcPlugin{version: v}}
	}
	return sets
}

type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl    *Server
	version int
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.impl == nil {
		return errors.New("wire: no strategy implementation to serve")
	}
	pluginv1.RegisterStrategyServer(s, &versioned{Server: p.impl, version: p.version})
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{rpc: pluginv1.NewStrategyClient(c), version: p.version}, nil
}

// kindToProto and kindFromProto map error kinds across the wire.
func kindToProto(k contract.Kind) pluginv1.Error_Kind {
	switch k {
	case contract.KindUnsupported:
		return pluginv1.Error_UNSUPPORTED
	case contract.KindBadRequest:
		return pluginv1.Error_BAD_REQUEST
	case contract.KindUnprocessable:
		return pluginv1.Error_UNPROCESSABLE
	case contract.KindUnavailable:
		return pluginv1.Error_UNAVAILABLE
	}
	return pluginv1.Error_INTERNAL
}

func kindFromProto(k pluginv1.Error_Kind) contract.Kind {
	switch k {
	case pluginv1.Error_UNSUPPORTED:
		return contract.KindUnsupported
	case pluginv1.Error_BAD_REQUEST:
		return contract.KindBadRequest
	case pluginv1.Error_UNPROCESSABLE:
		return contract.KindUnprocessable
	case pluginv1.Error_UNAVAILABLE:
		return contract.KindUnavailable
	}
	return contract.KindInternal
}

// moduleVersion is the plugin binary's main module version from its build info.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
