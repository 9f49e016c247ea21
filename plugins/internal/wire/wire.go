// Package wire is the host's half of the plugin protocol: the go-plugin handshake and plugin
// sets the host launches plugins with, and the client stub it calls, for every protocol version
// it speaks: 1 and 2 over gRPC (plugins/proto/v1), 3 over go-plugin's net/rpc transport, whose
// plugin side is package rpcwire (which a plugin links instead of go-plugin and gRPC). The
// constants both sides share are rpcwire's, so the two halves cannot drift apart.
package wire

import (
	"context"
	"errors"
	"net/rpc"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/plugins/internal/rpcwire"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// Plugin protocol versions (the go-plugin handshake's protocol version).
const (
	// ProtocolLegacy is protocol 1: gRPC, options cross as the host's engine.Options as JSON
	// with Go field names. Hosts keep speaking it for plugins built before protocol 2.
	ProtocolLegacy = 1
	// ProtocolGRPCKeys is protocol 2: gRPC, options cross as contract keys. Hosts keep
	// speaking it for plugins built before protocol 3.
	ProtocolGRPCKeys = 2
	// ProtocolVersion is the protocol the SDK serves: go-plugin's net/rpc transport, options
	// as contract keys (package rpcwire).
	ProtocolVersion = rpcwire.ProtocolVersion
)

// Protocols lists the protocol versions a host speaks, oldest first.
var Protocols = []int{ProtocolLegacy, ProtocolGRPCKeys, ProtocolVersion}

// Speaks reports whether a host speaks protocol v.
func Speaks(v int) bool { return v >= ProtocolLegacy && v <= ProtocolVersion }

// PluginKey names the one plugin type a Quarry plugin process dispenses.
const PluginKey = rpcwire.PluginKey

// Handshake is the go-plugin handshake. The protocol version is negotiated through versioned
// plugin sets (ClientSets): the host offers every version it speaks and the plugin answers
// with the one it serves.
var Handshake = plugin.HandshakeConfig{
	ProtocolVersion:  ProtocolVersion,
	MagicCookieKey:   rpcwire.MagicCookieKey,
	MagicCookieValue: rpcwire.MagicCookieValue,
}

// AllowedProtocols are go-plugin's transports a host accepts: gRPC for protocols 1 and 2,
// net/rpc for 3.
var AllowedProtocols = []plugin.Protocol{plugin.ProtocolGRPC, plugin.ProtocolNetRPC}

// Environment variables the host sets for a plugin process.
const (
	EnvMemoryLimit = rpcwire.EnvMemoryLimit
	EnvHostPID     = rpcwire.EnvHostPID
)

// Capabilities a plugin may declare in Describe.
const (
	CapPath     = rpcwire.CapPath
	CapProgress = rpcwire.CapProgress
)

// ChunkSize is the size of the document chunks the host sends (under gRPC's 4 MiB default
// receive limit of a protocol 1-2 plugin's server, and rpcwire.MaxMessage).
const ChunkSize = rpcwire.ChunkSize

// ClientSets returns the versioned plugin sets of the host: one per protocol it speaks, each
// dispensing a Client that speaks that version.
func ClientSets() map[int]plugin.PluginSet {
	sets := map[int]plugin.PluginSet{}
	for _, v := range Protocols {
		if v == ProtocolVersion {
			sets[v] = plugin.PluginSet{PluginKey: netrpcPlugin{}}
			continue
		}
		sets[v] = plugin.PluginSet{PluginKey: &grpcPlugin{version: v}}
	}
	return sets
}

// netrpcPlugin dispenses a protocol 3 Client over go-plugin's net/rpc transport.
type netrpcPlugin struct{}

func (netrpcPlugin) Server(*plugin.MuxBroker) (any, error) {
	return nil, errors.New("wire: a host serves no plugin")
}

func (netrpcPlugin) Client(_ *plugin.MuxBroker, c *rpc.Client) (any, error) {
	return &Client{net: c, version: ProtocolVersion}, nil
}

type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	version int
}

func (p *grpcPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("wire: a host serves no plugin")
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{rpc: pluginv1.NewStrategyClient(c), version: p.version}, nil
}

// kindFromProto maps a protocol 1-2 error kind.
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
