package wire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// Strategy is one strategy a plugin process serves.
type Strategy struct {
	Name      string
	MIMETypes []string
	Partition contract.Func
}

// OptionSpec declares an option key a plugin reads beyond the standard ones.
type OptionSpec struct{ Key, Help string }

// Server runs strategies inside a plugin process.
type Server struct {
	pluginv1.UnimplementedStrategyServer
	Name, Version string
	Strategies    []Strategy
	// Options are the plugin's own option keys, reported by Describe.
	Options    []OptionSpec
	MaxWorkers int
	// MaxDocumentBytes bounds a streamed document (0 = 1 GiB).
	MaxDocumentBytes int64

	// busy counts calls in progress, for the idle watchdog.
	busy atomic.Int64
}

// Busy reports whether a call is in progress.
func (s *Server) Busy() bool { return s.busy.Load() > 0 }

// versioned is a Server speaking the protocol version negotiated in the handshake.
type versioned struct {
	*Server
	version int
}

// Describe implements pluginv1.StrategyServer.
func (v *versioned) Describe(ctx context.Context, req *pluginv1.DescribeRequest) (*pluginv1.DescribeResponse, error) {
	r, err := v.Server.Describe(ctx, req)
	if err == nil {
		r.Protocol = uint32(v.version)
	}
	return r, err
}

// Describe implements pluginv1.StrategyServer (at ProtocolVersion).
func (s *Server) Describe(context.Context, *pluginv1.DescribeRequest) (*pluginv1.DescribeResponse, error) {
	r := &pluginv1.DescribeResponse{
		Name:         s.Name,
		Version:      s.Version,
		Protocol:     ProtocolVersion,
		Capabilities: []string{CapPath, CapProgress},
		MaxWorkers:   uint32(max(s.MaxWorkers, 1)),
	}
	for _, o := range s.Options {
		r.Options = append(r.Options, &pluginv1.OptionSpec{Key: o.Key, Help: o.Help})
	}
	if r.Version == "" {
		r.Version = moduleVersion()
	}
	seen := map[string]bool{}
	for _, st := range s.Strategies {
		r.Strategies = append(r.Strategies, st.Name)
		for _, m := range st.MIMETypes {
			if !seen[m] {
				seen[m] = true
				r.MimeTypes = append(r.MimeTypes, m)
			}
		}
	}
	return r, nil
}

// ProgressFunc reports progress of the current call to the host.
type ProgressFunc func(page, pages int, stage string)

// ReportProgress sends a progress event when ctx belongs to a plugin call; otherwise it does
// nothing, so strategy code can call it whether it runs in a plugin or in process.
func ReportProgress(ctx context.Context, page, pages int, stage string) {
	contract.ReportProgress(ctx, page, pages, stage)
}

// Partition implements pluginv1.StrategyServer.
func (s *Server) Partition(stream pluginv1.Strategy_PartitionServer) error {
	s.busy.Add(1)
	defer s.busy.Add(-1)
	ctx := stream.Context()
	first, err := stream.Recv()
	if err != nil {
		return fmt.Errorf("plugin: receive start: %w", err)
	}
	start := first.GetStart()
	if start == nil {
		return sendError(stream, contract.KindInternal, "plugin protocol: first message is not a start message")
	}
	var st *Strategy
	for i := range s.Strategies {
		if s.Strategies[i].Name == start.Strategy {
			st = &s.Strategies[i]
		}
	}
	if st == nil {
		return sendError(stream, contract.KindBadRequest, fmt.Sprintf("plugin %s does not serve strategy %q", s.Name, start.Strategy))
	}
	// A protocol 2 host always sends keys; options_json alone is a protocol 1 host.
	opts := DecodeKeys(start.Options)
	if len(start.Options) == 0 && len(start.OptionsJson) > 0 {
		if opts, err = LegacyKeys(start.OptionsJson); err != nil {
			return sendError(stream, contract.KindInternal, err.Error())
		}
	}
	doc, cleanup, err := s.receiveDocument(stream, start)
	if err != nil {
		return sendError(stream, contract.KindInternal, err.Error())
	}
	defer cleanup()

	b := &batcher{stream: stream}
	ctx = contract.WithProgress(ctx, b.progress)
	perr := callPartition(ctx, st.Partition, doc, opts, b.add)
	if perr == nil {
		perr = b.flush()
	}
	if b.sendErr != nil {
		return b.sendErr
	}
	if perr != nil {
		var ee *contract.Error
		if errors.As(perr, &ee) {
			return sendError(stream, ee.Kind, ee.Msg)
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return sendError(stream, contract.KindInternal, perr.Error())
	}
	return stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Done{Done: &pluginv1.Done{Elements: int32(b.count)}}})
}

// callPartition turns a panic in the strategy into an error: the process stays usable for the
// next document, and the host reports what happened.
func callPartition(ctx context.Context, f contract.Func, doc *contract.Document, opts contract.Options, emit contract.Emit) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("strategy panicked: %v", p)
		}
	}()
	return f(ctx, doc, opts, emit)
}

func (s *Server) receiveDocument(stream pluginv1.Strategy_PartitionServer, start *pluginv1.PartitionStart) (*contract.Document, func(), error) {
	doc := &contract.Document{Filename: start.Filename, ContentType: start.ContentType, MIMEType: start.MimeType}
	if start.Path != "" {
		f, err := os.Open(start.Path)
		if err != nil {
			return nil, nil, fmt.Errorf("plugin: open document: %w", err)
		}
		fi, err := f.Stat()
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("plugin: stat document: %w", err)
		}
		doc.Content, doc.Size = f, fi.Size()
		return doc, func() { f.Close() }, nil
	}
	limit := s.MaxDocumentBytes
	if limit <= 0 {
		limit = 1 << 30
	}
	if start.Size < 0 || start.Size > limit {
		return nil, nil, fmt.Errorf("plugin: document of %d bytes exceeds the limit of %d", start.Size, limit)
	}
	buf := make([]byte, 0, start.Size)
	for int64(len(buf)) < start.Size {
		m, err := stream.Recv()
		if err != nil {
			if err == io.EOF {
				return nil, nil, fmt.Errorf("plugin: document truncated at %d of %d bytes", len(buf), start.Size)
			}
			return nil, nil, fmt.Errorf("plugin: receive document: %w", err)
		}
		c := m.GetChunk()
		if int64(len(buf)+len(c)) > start.Size {
			return nil, nil, errors.New("plugin: document longer than announced")
		}
		buf = append(buf, c...)
	}
	doc.Content, doc.Size = bytes.NewReader(buf), int64(len(buf))
	return doc, func() {}, nil
}

func sendError(stream pluginv1.Strategy_PartitionServer, kind contract.Kind, msg string) error {
	return stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Error{Error: &pluginv1.Error{Kind: kindToProto(kind), Message: msg}}})
}

// batcher groups emitted elements into one message per page.
// Strategies may report progress from worker goroutines, so sends are serialized.
type batcher struct {
	mu      sync.Mutex
	stream  pluginv1.Strategy_PartitionServer
	page    int32
	elems   [][]byte
	size    int
	count   int
	sendErr error
}

func (b *batcher) add(e element.Element) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sendErr != nil {
		return b.sendErr
	}
	page := int32(0)
	if e.Metadata.PageNumber != nil {
		page = int32(*e.Metadata.PageNumber)
	}
	if len(b.elems) > 0 && (page != b.page || b.size >= BatchBytes) {
		if err := b.flushLocked(); err != nil {
			return err
		}
	}
	j, err := e.MarshalJSON()
	if err != nil {
		return fmt.Errorf("plugin: encode element: %w", err)
	}
	b.page = page
	b.elems = append(b.elems, j)
	b.size += len(j)
	b.count++
	return nil
}

func (b *batcher) flush() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.flushLocked()
}

func (b *batcher) flushLocked() error {
	if len(b.elems) == 0 || b.sendErr != nil {
		return b.sendErr
	}
	err := b.stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Batch{Batch: &pluginv1.ElementBatch{Page: b.page, Elements: b.elems}}})
	b.elems, b.size = nil, 0
	if err != nil {
		b.sendErr = fmt.Errorf("plugin: send elements: %w", err)
	}
	return b.sendErr
}

func (b *batcher) progress(page, pages int, stage string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.sendErr != nil {
		return
	}
	// Elements of earlier pages go first, so progress never overtakes output.
	if len(b.elems) > 0 && int32(page) != b.page {
		if b.flushLocked() != nil {
			return
		}
	}
	if err := b.stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Progress{Progress: &pluginv1.Progress{Page: int32(page), Pages: int32(pages), Stage: stage}}}); err != nil {
		b.sendErr = fmt.Errorf("plugin: send progress: %w", err)
	}
}
