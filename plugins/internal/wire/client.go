package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/rpc"
	"os"
	"slices"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/plugins/internal/rpcwire"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// Client is the host-side stub of one plugin process.
type Client struct {
	// rpc is the gRPC stub of a protocol 1-2 plugin, net the net/rpc client of a protocol 3
	// one; exactly one is set.
	rpc pluginv1.StrategyClient
	net *rpc.Client
	// version is the protocol negotiated in the handshake.
	version int
	desc    *pluginv1.DescribeResponse
}

// NewClient wraps a gRPC client speaking protocol version (tests use it over an in-memory
// connection).
func NewClient(rpc pluginv1.StrategyClient, version int) *Client {
	return &Client{rpc: rpc, version: version}
}

// Protocol is the protocol version negotiated with the plugin.
func (c *Client) Protocol() int { return c.version }

// Describe asks the plugin who it is; the answer is cached.
func (c *Client) Describe(ctx context.Context) (*pluginv1.DescribeResponse, error) {
	if c.desc != nil {
		return c.desc, nil
	}
	var d *pluginv1.DescribeResponse
	var err error
	if c.net != nil {
		d, err = c.describeNet(ctx)
	} else {
		d, err = c.rpc.Describe(ctx, &pluginv1.DescribeRequest{})
	}
	if err != nil {
		return nil, err
	}
	if int(d.Protocol) != c.version {
		return nil, fmt.Errorf("plugin %s describes itself as protocol %d but its handshake announced protocol %d", d.Name, d.Protocol, c.version)
	}
	c.desc = d
	return d, nil
}

// ProgressFunc receives a call's progress reports.
type ProgressFunc func(page, pages int, stage string)

// RemoteError is a typed error the plugin reported; the process is healthy.
type RemoteError struct{ Err *contract.Error }

func (e *RemoteError) Error() string { return e.Err.Msg }

// Unwrap returns the typed error.
func (e *RemoteError) Unwrap() error { return e.Err }

// errIncomplete means the plugin closed the stream without Done or Error.
var errIncomplete = errors.New("plugin stream ended without a result")

// Options are a call's partition options in the forms the protocols carry them.
type Options struct {
	// Keys are the options as contract keys (protocol 2).
	Keys contract.Options
	// LegacyJSON returns the options as protocol 1 carried them (the host's engine.Options as
	// JSON); called only for a protocol-1 plugin.
	LegacyJSON func() ([]byte, error)
}

// Partition sends doc to the plugin and passes the returned elements to emit. progress, when
// not nil, receives progress events. A *RemoteError means the plugin answered with a typed
// error; other errors are transport failures.
func (c *Client) Partition(ctx context.Context, strategy string, doc *contract.Document, opts Options, emit contract.Emit, progress ProgressFunc) error {
	if c.net != nil {
		return c.partitionNet(ctx, strategy, doc, opts.Keys, emit, progress)
	}
	start := &pluginv1.PartitionStart{
		Strategy: strategy, Filename: doc.Filename, MimeType: doc.MIMEType,
		ContentType: doc.ContentType, Size: doc.Size,
	}
	if c.version == ProtocolLegacy {
		if opts.LegacyJSON == nil {
			return errors.New("plugin speaks protocol 1 and no legacy options were given")
		}
		b, err := opts.LegacyJSON()
		if err != nil {
			return fmt.Errorf("encode protocol 1 options: %w", err)
		}
		start.OptionsJson = b
	} else {
		start.Options = EncodeKeys(opts.Keys)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.rpc.Partition(ctx)
	if err != nil {
		return fmt.Errorf("open stream: %w", err)
	}
	// A document already in a file is passed by path: the plugin is local and shares the file
	// system, so the bytes need not cross the pipe.
	if f, ok := doc.Content.(*os.File); ok && c.desc != nil && slices.Contains(c.desc.Capabilities, CapPath) {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() == doc.Size {
			start.Path = f.Name()
		}
	}
	// io.EOF from Send means the plugin has already answered (an early error): stop sending
	// and read the answer.
	if err := stream.Send(&pluginv1.PartitionRequest{Msg: &pluginv1.PartitionRequest_Start{Start: start}}); err != nil {
		if err != io.EOF {
			return fmt.Errorf("send start: %w", err)
		}
		return c.receive(stream, emit, progress)
	}
	if start.Path == "" {
		buf := make([]byte, min(int64(ChunkSize), max(doc.Size, 1)))
		for off := int64(0); off < doc.Size; {
			n, rerr := doc.Content.ReadAt(buf[:min(int64(len(buf)), doc.Size-off)], off)
			if n > 0 {
				if err := stream.Send(&pluginv1.PartitionRequest{Msg: &pluginv1.PartitionRequest_Chunk{Chunk: buf[:n]}}); err != nil {
					if err != io.EOF {
						return fmt.Errorf("send document: %w", err)
					}
					return c.receive(stream, emit, progress)
				}
				off += int64(n)
			}
			if rerr != nil && rerr != io.EOF {
				return fmt.Errorf("read document: %w", rerr)
			}
			if n == 0 {
				return fmt.Errorf("read document: short read at %d of %d bytes", off, doc.Size)
			}
		}
	}
	if err := stream.CloseSend(); err != nil {
		return fmt.Errorf("close send: %w", err)
	}
	return c.receive(stream, emit, progress)
}

// receive reads the plugin's answer: batches and progress until Done or an Error.
func (c *Client) receive(stream pluginv1.Strategy_PartitionClient, emit contract.Emit, progress ProgressFunc) error {
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			return errIncomplete
		}
		if err != nil {
			return err
		}
		switch v := m.Msg.(type) {
		case *pluginv1.PartitionResponse_Batch:
			for _, raw := range v.Batch.Elements {
				var e element.Element
				if err := e.UnmarshalJSON(raw); err != nil {
					return &RemoteError{Err: &contract.Error{Kind: contract.KindInternal, Msg: "plugin sent an invalid element: " + err.Error(), Err: err}}
				}
				if err := emit(e); err != nil {
					return &emitError{err}
				}
			}
		case *pluginv1.PartitionResponse_Progress:
			if progress != nil {
				progress(int(v.Progress.Page), int(v.Progress.Pages), v.Progress.Stage)
			}
		case *pluginv1.PartitionResponse_Error:
			return &RemoteError{Err: &contract.Error{Kind: kindFromProto(v.Error.Kind), Msg: v.Error.Message}}
		case *pluginv1.PartitionResponse_Done:
			return nil
		}
	}
}

// emitError is an error from the caller's emit function: the caller stopped, the plugin is
// blameless.
type emitError struct{ err error }

func (e *emitError) Error() string { return e.err.Error() }
func (e *emitError) Unwrap() error { return e.err }

// IsEmitError reports whether err came from the caller's emit function.
func IsEmitError(err error) bool {
	var e *emitError
	return errors.As(err, &e)
}

// IsIncomplete reports whether err means the plugin closed the stream without a result.
func IsIncomplete(err error) bool { return errors.Is(err, errIncomplete) }

// EncodeKeys puts options on the gRPC wire (protocol 2), keys sorted so equal options make
// equal messages.
func EncodeKeys(o contract.Options) []*pluginv1.Option {
	out := make([]*pluginv1.Option, 0, len(o))
	for _, op := range rpcwire.EncodeKeys(o) {
		out = append(out, &pluginv1.Option{Key: op.Key, Values: op.Values})
	}
	return out
}
