// Package wire is the go-plugin glue shared by the plugin host and the SDK: the handshake, the
// plugin set, the gRPC server that runs a strategy inside a plugin process and the client stub
// the host calls. Both sides live here so the two halves of the protocol cannot drift apart.
package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/engine"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// ProtocolVersion is the plugin protocol served (package plugins/proto/v1).
const ProtocolVersion = 1

// PluginKey names the one plugin type a Quarry plugin process dispenses.
const PluginKey = "strategy"

// Handshake is the go-plugin handshake. The cookie is a UX guard (a plugin run by hand explains
// itself and exits), not security; it must never change, or every installed plugin breaks.
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

// Set returns the plugin set for one side: impl is nil on the host.
func Set(impl *Server) plugin.PluginSet {
	return plugin.PluginSet{PluginKey: &grpcPlugin{impl: impl}}
}

type grpcPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	impl *Server
}

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	if p.impl == nil {
		return errors.New("wire: no strategy implementation to serve")
	}
	pluginv1.RegisterStrategyServer(s, p.impl)
	return nil
}

func (p *grpcPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{rpc: pluginv1.NewStrategyClient(c)}, nil
}

// EncodeOptions serializes the options a plugin needs. The logger and chunking stay on the
// host: chunking runs after partitioning whatever produced the elements.
func EncodeOptions(opts *engine.Options) ([]byte, error) {
	o := *opts
	o.Logger = nil
	o.Progress = nil
	o.Chunking = chunking.Options{}
	b, err := json.Marshal(&o)
	if err != nil {
		return nil, fmt.Errorf("wire: encode options: %w", err)
	}
	return b, nil
}

// DecodeOptions is EncodeOptions' inverse.
func DecodeOptions(b []byte) (*engine.Options, error) {
	o := engine.DefaultOptions()
	if len(b) > 0 {
		if err := json.Unmarshal(b, &o); err != nil {
			return nil, fmt.Errorf("wire: decode options: %w", err)
		}
	}
	o.Logger = nil
	return &o, nil
}

// kindToProto and kindFromProto map engine error kinds across the wire.
func kindToProto(k engine.Kind) pluginv1.Error_Kind {
	switch k {
	case engine.KindUnsupported:
		return pluginv1.Error_UNSUPPORTED
	case engine.KindBadRequest:
		return pluginv1.Error_BAD_REQUEST
	case engine.KindUnprocessable:
		return pluginv1.Error_UNPROCESSABLE
	case engine.KindUnavailable:
		return pluginv1.Error_UNAVAILABLE
	}
	return pluginv1.Error_INTERNAL
}

func kindFromProto(k pluginv1.Error_Kind) engine.Kind {
	switch k {
	case pluginv1.Error_UNSUPPORTED:
		return engine.KindUnsupported
	case pluginv1.Error_BAD_REQUEST:
		return engine.KindBadRequest
	case pluginv1.Error_UNPROCESSABLE:
		return engine.KindUnprocessable
	case pluginv1.Error_UNAVAILABLE:
		return engine.KindUnavailable
	}
	return engine.KindInternal
}

// moduleVersion is the plugin binary's main module version from its build info.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
