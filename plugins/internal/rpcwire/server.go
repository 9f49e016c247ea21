package rpcwire

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
)

// Strategy is one strategy a plugin process serves.
type Strategy struct {
	Name      string
	MIMETypes []string
	Partition contract.Func
}

// Server runs strategies inside a plugin process.
type Server struct {
	Name, Version string
	Strategies    []Strategy
	// Options are the plugin's own option keys, reported by Describe.
	Options    []OptionSpec
	MaxWorkers int
	// MaxDocumentBytes bounds a streamed document (0 = 1 GiB).
	MaxDocumentBytes int64

	// busy counts calls in progress.
	busy atomic.Int64
}

// Busy reports whether a call is in progress.
func (s *Server) Busy() bool { return s.busy.Load() > 0 }

// Describe is the Describe answer.
func (s *Server) Describe() Description {
	d := Description{
		Name:         s.Name,
		Version:      s.Version,
		Protocol:     ProtocolVersion,
		Capabilities: []string{CapPath, CapProgress},
		MaxWorkers:   max(s.MaxWorkers, 1),
		Options:      append([]OptionSpec(nil), s.Options...),
	}
	if d.Version == "" {
		d.Version = moduleVersion()
	}
	seen := map[string]bool{}
	for _, st := range s.Strategies {
		d.Strategies = append(d.Strategies, st.Name)
		for _, m := range st.MIMETypes {
			if !seen[m] {
				seen[m] = true
				d.MIMETypes = append(d.MIMETypes, m)
			}
		}
	}
	return d
}

// moduleVersion is the plugin binary's main module version from its build info.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// serveStream serves the Strategy service on one stream; every call still running when the
// stream ends, however it ends, is cancelled.
func (s *Server) serveStream(conn io.ReadWriteCloser) error {
	cs := s.session()
	defer cs.close()
	return serveRPC(conn, cs.methods(), nil)
}

// calls are the partition calls of one Strategy stream.
type calls struct {
	srv *Server
	ctx context.Context
	// cancel ends every call of the stream (the host hung up).
	cancel context.CancelFunc
	mu     sync.Mutex
	next   uint64
	open   map[uint64]*call
}

func (s *Server) session() *calls {
	ctx, cancel := context.WithCancel(context.Background())
	return &calls{srv: s, ctx: ctx, cancel: cancel, open: map[uint64]*call{}}
}

func (cs *calls) close() { cs.cancel() }

// methods are the Strategy service's methods.
func (cs *calls) methods() map[string]method {
	return map[string]method{
		MethodDescribe: handle(func(bool) (Description, error) { return cs.srv.Describe(), nil }),
		MethodStart:    handle(cs.start),
		MethodWrite:    handle(cs.write),
		MethodNext:     handle(cs.nextEvents),
		MethodCancel:   handle(cs.cancelCall),
	}
}

// call is one partition call: the host writes its document in, the strategy runs on its own
// goroutine and queues its events for the host's Next calls; with EventBuffer events waiting,
// it waits for the host.
type call struct {
	ctx    context.Context
	cancel context.CancelFunc
	// chunks carries the document from Write to the receiver; recvDone closes when the
	// receiver stops reading (the document is complete, or refused).
	chunks   chan []byte
	recvDone chan struct{}
	events   chan Event
}

func (cs *calls) start(st Start) (uint64, error) {
	ctx, cancel := context.WithCancel(cs.ctx)
	c := &call{ctx: ctx, cancel: cancel, chunks: make(chan []byte), recvDone: make(chan struct{}), events: make(chan Event, EventBuffer)}
	cs.mu.Lock()
	cs.next++
	id := cs.next
	cs.open[id] = c
	cs.mu.Unlock()
	cs.srv.busy.Add(1)
	go func() {
		final := cs.srv.run(c, st)
		// The strategy has returned: the call is no longer busy once its answer is sent, and
		// the host may look (Busy) as soon as it has that answer, so count it down first.
		cs.srv.busy.Add(-1)
		select {
		case c.events <- final:
		case <-c.ctx.Done():
			cs.forget(id)
		}
	}()
	return id, nil
}

func (cs *calls) lookup(id uint64) (*call, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	c := cs.open[id]
	if c == nil {
		return nil, fmt.Errorf("no partition call %d", id)
	}
	return c, nil
}

func (cs *calls) forget(id uint64) {
	cs.mu.Lock()
	c := cs.open[id]
	delete(cs.open, id)
	cs.mu.Unlock()
	if c != nil {
		c.cancel()
	}
}

// errNotReading answers a Write the plugin no longer wants: it has already answered the call
// (a refused document, an unknown strategy); the host reads the answer with Next.
var errNotReading = errors.New("the plugin does not read more of this document")

func (cs *calls) write(ch Chunk) (struct{}, error) {
	c, err := cs.lookup(ch.Call)
	if err != nil {
		return struct{}{}, err
	}
	select {
	case c.chunks <- ch.Data:
		return struct{}{}, nil
	case <-c.recvDone:
		return struct{}{}, errNotReading
	case <-c.ctx.Done():
		return struct{}{}, c.ctx.Err()
	}
}

// nextEvents waits for the call's next event, then takes those already queued behind it, up to
// about BatchBytes of elements: each round trip between the processes carries what is ready.
func (cs *calls) nextEvents(id uint64) (Events, error) {
	c, err := cs.lookup(id)
	if err != nil {
		return Events{}, err
	}
	var out Events
	select {
	case ev := <-c.events:
		out.Events = append(out.Events, ev)
	case <-c.ctx.Done():
		return Events{}, fmt.Errorf("partition call %d: %w", id, c.ctx.Err())
	}
	size := eventBytes(out.Events[0])
	for !final(out.Events[len(out.Events)-1]) && size < BatchBytes {
		select {
		case ev := <-c.events:
			out.Events = append(out.Events, ev)
			size += eventBytes(ev)
			continue
		default:
		}
		break
	}
	if final(out.Events[len(out.Events)-1]) {
		cs.forget(id)
	}
	return out, nil
}

func final(ev Event) bool { return ev.Kind == EventError || ev.Kind == EventDone }

func eventBytes(ev Event) int {
	n := len(ev.Stage) + len(ev.Message)
	for _, e := range ev.Elements {
		n += len(e)
	}
	return n
}

func (cs *calls) cancelCall(id uint64) (struct{}, error) {
	cs.forget(id)
	return struct{}{}, nil
}

// run runs one call and returns its final event.
func (s *Server) run(c *call, start Start) Event {
	var st *Strategy
	for i := range s.Strategies {
		if s.Strategies[i].Name == start.Strategy {
			st = &s.Strategies[i]
		}
	}
	if st == nil {
		close(c.recvDone)
		return errorEvent(contract.KindBadRequest, fmt.Sprintf("plugin %s does not serve strategy %q", s.Name, start.Strategy))
	}
	opts := DecodeKeys(start.Options)
	doc, cleanup, err := s.receiveDocument(c, start)
	if err != nil {
		return errorEvent(contract.KindInternal, err.Error())
	}
	defer cleanup()
	b := &batcher{send: c.send}
	ctx := contract.WithProgress(c.ctx, b.progress)
	perr := callPartition(ctx, st.Partition, doc, opts, b.add)
	if perr == nil {
		perr = b.flush()
	}
	if b.sendErr != nil {
		return errorEvent(contract.KindInternal, b.sendErr.Error())
	}
	if perr != nil {
		var ee *contract.Error
		if errors.As(perr, &ee) {
			return errorEvent(ee.Kind, ee.Msg)
		}
		return errorEvent(contract.KindInternal, perr.Error())
	}
	return Event{Kind: EventDone, Count: b.count}
}

func errorEvent(kind contract.Kind, msg string) Event {
	return Event{Kind: EventError, ErrorKind: KindName(kind), Message: msg}
}

// send hands ev to the host's next Next.
func (c *call) send(ev Event) error {
	select {
	case c.events <- ev:
		return nil
	case <-c.ctx.Done():
		return c.ctx.Err()
	}
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

// receiveDocument opens the document by path, or collects its chunks: exactly the announced
// size, within MaxDocumentBytes.
func (s *Server) receiveDocument(c *call, start Start) (*contract.Document, func(), error) {
	defer close(c.recvDone)
	doc := &contract.Document{Filename: start.Filename, ContentType: start.ContentType, MIMEType: start.MIMEType}
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
	if int64(len(start.Data)) > start.Size {
		return nil, nil, errors.New("plugin: document longer than announced")
	}
	buf := append(make([]byte, 0, start.Size), start.Data...)
	for int64(len(buf)) < start.Size {
		select {
		case chunk := <-c.chunks:
			if int64(len(buf)+len(chunk)) > start.Size {
				return nil, nil, errors.New("plugin: document longer than announced")
			}
			buf = append(buf, chunk...)
		case <-c.ctx.Done():
			return nil, nil, fmt.Errorf("plugin: document truncated at %d of %d bytes: %w", len(buf), start.Size, c.ctx.Err())
		}
	}
	doc.Content, doc.Size = bytes.NewReader(buf), int64(len(buf))
	return doc, func() {}, nil
}

// batcher groups emitted elements into one event per page. Strategies may report progress
// from worker goroutines, so sends are serialized.
type batcher struct {
	mu      sync.Mutex
	send    func(Event) error
	page    int
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
	page := 0
	if e.Metadata.PageNumber != nil {
		page = *e.Metadata.PageNumber
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
	err := b.send(Event{Kind: EventBatch, Page: b.page, Elements: b.elems})
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
	if len(b.elems) > 0 && page != b.page {
		if b.flushLocked() != nil {
			return
		}
	}
	if err := b.send(Event{Kind: EventProgress, Page: page, Pages: pages, Stage: stage}); err != nil {
		b.sendErr = fmt.Errorf("plugin: send progress: %w", err)
	}
}
