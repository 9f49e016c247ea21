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

// call makes one net/rpc call bounded by ctx. net/rpc has no cancellation, and its Go blocks
// while the request is written (a plugin that stopped reading fills the stream's window), so
// the call runs on its own goroutine; reply must not be read after an error. A plugin that
// does not answer in time is killed by the caller, which ends the call.
func (c *Client) call(ctx context.Context, method string, args, reply any) error {
	done := make(chan *rpc.Call, 1)
	go c.net.Go(method, args, reply, done)
	select {
	case r := <-done:
		return netError(r.Error)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// netError marks the errors of a connection that ended (the process died or closed it) as an
// incomplete call; an rpc.ServerError is the plugin's answer and stays as it is.
func netError(err error) error {
	if err == nil {
		return nil
	}
	var se rpc.ServerError
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(err, rpc.ErrShutdown) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("%w: %v", errIncomplete, err)
	}
	return err
}

func (c *Client) describeNet(ctx context.Context) (*pluginv1.DescribeResponse, error) {
	var d rpcwire.Description
	if err := c.call(ctx, rpcwire.MethodDescribe, true, &d); err != nil {
		return nil, err
	}
	r := &pluginv1.DescribeResponse{
		Name: d.Name, Version: d.Version, Protocol: uint32(d.Protocol), Strategies: d.Strategies,
		MimeTypes: d.MIMETypes, Capabilities: d.Capabilities, MaxWorkers: uint32(max(d.MaxWorkers, 0)),
	}
	for _, o := range d.Options {
		r.Options = append(r.Options, &pluginv1.OptionSpec{Key: o.Key, Help: o.Help, Kind: o.Kind})
	}
	return r, nil
}

// partitionNet is Partition over protocol 3: Start, the document in Writes, then Next until
// Done or an Error. A call that ends any other way is cancelled in the plugin.
func (c *Client) partitionNet(ctx context.Context, strategy string, doc *contract.Document, keys contract.Options, emit contract.Emit, progress ProgressFunc) error {
	start := rpcwire.Start{
		Strategy: strategy, Filename: doc.Filename, MIMEType: doc.MIMEType,
		ContentType: doc.ContentType, Size: doc.Size, Options: rpcwire.EncodeKeys(keys),
	}
	// A document already in a file is passed by path: the plugin is local and shares the file
	// system, so the bytes need not cross the socket.
	if f, ok := doc.Content.(*os.File); ok && c.desc != nil && slices.Contains(c.desc.Capabilities, CapPath) {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() == doc.Size {
			start.Path = f.Name()
		}
	}
	if start.Path == "" && doc.Size > 0 {
		first := make([]byte, min(int64(ChunkSize), doc.Size))
		if n, err := doc.Content.ReadAt(first, 0); n < len(first) {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return fmt.Errorf("read document: %w", err)
		}
		start.Data = first
	}
	var id uint64
	if err := c.call(ctx, rpcwire.MethodStart, start, &id); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	finished := false
	defer func() {
		if !finished {
			// Best effort: the caller stops or kills the process anyway.
			go c.net.Go(rpcwire.MethodCancel, id, new(struct{}), make(chan *rpc.Call, 1))
		}
	}()
	if start.Path == "" && doc.Size > int64(len(start.Data)) {
		if err := c.send(ctx, id, doc, int64(len(start.Data))); err != nil {
			return err
		}
	}
	for {
		var evs rpcwire.Events
		if err := c.call(ctx, rpcwire.MethodNext, id, &evs); err != nil {
			return err
		}
		if len(evs.Events) == 0 {
			return errors.New("plugin answered Next with no event")
		}
		for _, ev := range evs.Events {
			if done, err := c.handle(ev, emit, progress); done || err != nil {
				finished = done
				return err
			}
		}
	}
}

// handle passes one event on; done means the call has ended (Done, or the plugin's Error), err
// is the call's result then, or an emit or decoding failure.
func (c *Client) handle(ev rpcwire.Event, emit contract.Emit, progress ProgressFunc) (done bool, err error) {
	switch ev.Kind {
	case rpcwire.EventBatch:
		for _, raw := range ev.Elements {
			var e element.Element
			if err := e.UnmarshalJSON(raw); err != nil {
				return false, &RemoteError{Err: &contract.Error{Kind: contract.KindInternal, Msg: "plugin sent an invalid element: " + err.Error(), Err: err}}
			}
			if err := emit(e); err != nil {
				return false, &emitError{err}
			}
		}
	case rpcwire.EventProgress:
		if progress != nil {
			progress(ev.Page, ev.Pages, ev.Stage)
		}
	case rpcwire.EventError:
		return true, &RemoteError{Err: &contract.Error{Kind: rpcwire.KindOf(ev.ErrorKind), Msg: ev.Message}}
	case rpcwire.EventDone:
		return true, nil
	default:
		return false, fmt.Errorf("plugin sent an event of unknown kind %d", ev.Kind)
	}
	return false, nil
}

// send writes the document in chunks. A plugin that answers before it has read all of it (a
// refused document) makes Write fail with its own error: the answer is then read with Next.
func (c *Client) send(ctx context.Context, id uint64, doc *contract.Document, from int64) error {
	buf := make([]byte, min(int64(ChunkSize), max(doc.Size, 1)))
	for off := from; off < doc.Size; {
		n, rerr := doc.Content.ReadAt(buf[:min(int64(len(buf)), doc.Size-off)], off)
		if n > 0 {
			if err := c.call(ctx, rpcwire.MethodWrite, rpcwire.Chunk{Call: id, Data: buf[:n]}, new(struct{})); err != nil {
				var se rpc.ServerError
				if errors.As(err, &se) {
					return nil
				}
				return fmt.Errorf("send document: %w", err)
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
	return nil
}
