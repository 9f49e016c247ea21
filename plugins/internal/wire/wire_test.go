package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/rpc"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/plugins/internal/rpcwire"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// dial serves srv over an in-memory connection with the plugin side of protocol 3 and returns
// the host's Client from go-plugin's own net/rpc client, as a launched plugin would give.
func dial(t *testing.T, srv *rpcwire.Server) *Client {
	t.Helper()
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- rpcwire.ServeConn(a, srv) }()
	rc, err := plugin.NewRPCClient(b, ClientSets()[ProtocolVersion])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		rc.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("plugin session did not end after the host closed it")
		}
	})
	raw, err := rc.Dispense(PluginKey)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := raw.(*Client)
	if !ok {
		t.Fatalf("dispensed %T", raw)
	}
	if _, err := c.Describe(context.Background()); err != nil {
		t.Fatal(err)
	}
	return c
}

func pages(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	for p := 1; p <= 3; p++ {
		contract.ReportProgress(ctx, p, 3, "test")
		for i := 0; i < 100; i++ {
			if err := emit(element.Element{Type: element.NarrativeText, Text: fmt.Sprintf("p%d e%d", p, i), Metadata: element.Metadata{PageNumber: element.Int(p)}}); err != nil {
				return err
			}
		}
	}
	switch opts.Get("fail") {
	case "typed":
		return &contract.Error{Kind: contract.KindUnprocessable, Msg: "refused"}
	case "plain":
		return errors.New("broke")
	case "panic":
		panic("boom")
	}
	return nil
}

// Elements, progress and typed errors cross protocol 3 with go-plugin's own client: the document
// in chunks, elements in order, progress before the page's elements, each error kind as sent.
func TestPartitionOverNetRPC(t *testing.T) {
	srv := &rpcwire.Server{Name: "t", Strategies: []rpcwire.Strategy{{Name: "pages", Partition: pages}}}
	c := dial(t, srv)
	doc := contract.NewDocument("d.pdf", make([]byte, 3*ChunkSize+5))
	opts := Options{Keys: contract.Options{contract.KeyStrategy: {"pages"}}}
	var got []element.Element
	var progress []int
	err := c.Partition(context.Background(), "pages", doc, opts, func(e element.Element) error { got = append(got, e); return nil },
		func(page, pages int, stage string) { progress = append(progress, page) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 300 || got[299].Text != "p3 e99" || *got[150].Metadata.PageNumber != 2 {
		t.Fatalf("got %d elements", len(got))
	}
	if fmt.Sprint(progress) != "[1 2 3]" {
		t.Errorf("progress %v", progress)
	}
	for fail, want := range map[string]contract.Kind{"typed": contract.KindUnprocessable, "plain": contract.KindInternal, "panic": contract.KindInternal} {
		opts.Keys["fail"] = []string{fail}
		err = c.Partition(context.Background(), "pages", doc, opts, func(element.Element) error { return nil }, nil)
		var re *RemoteError
		if !errors.As(err, &re) || re.Err.Kind != want {
			t.Errorf("%s: %v", fail, err)
		}
		if fail == "panic" && (re == nil || re.Err.Msg != "strategy panicked: boom") {
			t.Errorf("panic reported as %v", err)
		}
	}
	err = c.Partition(context.Background(), "nope", doc, opts, func(element.Element) error { return nil }, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Err.Kind != contract.KindBadRequest {
		t.Errorf("unknown strategy: %v", err)
	}
	if srv.Busy() {
		t.Error("calls left running")
	}
}

// A document over the plugin's limit is refused before its bytes are read, and the refusal
// arrives as the plugin's answer.
func TestDocumentOverLimit(t *testing.T) {
	srv := &rpcwire.Server{Name: "t", MaxDocumentBytes: 10, Strategies: []rpcwire.Strategy{{Name: "pages", Partition: pages}}}
	c := dial(t, srv)
	err := c.Partition(context.Background(), "pages", contract.NewDocument("d.pdf", make([]byte, 2*ChunkSize)), Options{}, func(element.Element) error { return nil }, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Err.Msg != "plugin: document of 2097152 bytes exceeds the limit of 10" {
		t.Errorf("over the limit: %v", err)
	}
}

// A cancelled call stops the strategy (its context ends), and the process serves the next call.
func TestCancelReachesStrategy(t *testing.T) {
	stopped := make(chan error, 1)
	srv := &rpcwire.Server{Name: "t", Strategies: []rpcwire.Strategy{
		{Name: "wait", Partition: func(ctx context.Context, _ *contract.Document, _ contract.Options, emit contract.Emit) error {
			contract.ReportProgress(ctx, 1, 2, "waiting")
			<-ctx.Done()
			stopped <- ctx.Err()
			return ctx.Err()
		}},
		{Name: "pages", Partition: pages},
	}}
	c := dial(t, srv)
	ctx, cancel := context.WithCancel(context.Background())
	doc := contract.NewDocument("d.txt", []byte("x"))
	err := c.Partition(ctx, "wait", doc, Options{}, func(e element.Element) error { return nil },
		func(int, int, string) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled call: %v", err)
	}
	select {
	case err := <-stopped:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("strategy saw %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the strategy was not cancelled")
	}
	var n int
	if err := c.Partition(context.Background(), "pages", doc, Options{}, func(element.Element) error { n++; return nil }, nil); err != nil || n != 300 {
		t.Errorf("next call: %d elements, %v", n, err)
	}
}

// The elements of a slow consumer are not buffered: the strategy waits for the host.
func TestBackPressure(t *testing.T) {
	emitted := make(chan int, 1000)
	srv := &rpcwire.Server{Name: "t", Strategies: []rpcwire.Strategy{{Name: "many", Partition: func(ctx context.Context, _ *contract.Document, _ contract.Options, emit contract.Emit) error {
		for p := 1; p <= 50; p++ {
			if err := emit(element.Element{Type: element.Title, Text: "x", Metadata: element.Metadata{PageNumber: element.Int(p)}}); err != nil {
				return err
			}
			emitted <- p
		}
		return nil
	}}}}
	c := dial(t, srv)
	first := true
	err := c.Partition(context.Background(), "many", contract.NewDocument("d.txt", []byte("x")), Options{}, func(e element.Element) error {
		if first {
			first = false
			time.Sleep(200 * time.Millisecond)
			// Page 1 is being consumed: the strategy can be ahead by what the first Next took,
			// the events queued for the next one and the page being built, never at the end.
			if n := len(emitted); n > 2*rpcwire.EventBuffer+4 {
				t.Errorf("strategy ran %d pages ahead of a stalled host", n)
			}
		}
		return nil
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
}

// Options cross as keys exactly: standard and unknown keys, repeated values, an empty list, an
// empty value; Describe carries the plugin's own keys.
func TestOptionsCrossAsKeys(t *testing.T) {
	var seen contract.Options
	srv := &rpcwire.Server{Name: "t", Options: []rpcwire.OptionSpec{{Key: "shout_volume", Help: "how loud"}},
		Strategies: []rpcwire.Strategy{{Name: "keys", MIMETypes: []string{"text/plain"}, Partition: func(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
			seen = opts
			return nil
		}}}}
	c := dial(t, srv)
	d, err := c.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Protocol != ProtocolVersion || len(d.Options) != 1 || d.Options[0].Key != "shout_volume" || d.Options[0].Help != "how loud" ||
		fmt.Sprint(d.Strategies, d.MimeTypes, d.Capabilities) != "[keys] [text/plain] [path progress]" {
		t.Errorf("describe %+v", d)
	}
	keys := contract.Options{
		contract.KeyStrategy: {"keys"}, contract.KeyLanguages: {"eng", "deu"}, contract.KeyOCRLanguages: {},
		contract.KeyEncoding: {""}, "shout_volume": {"11"},
	}
	doc := contract.NewDocument("d.txt", []byte("x"))
	if err := c.Partition(context.Background(), "keys", doc, Options{Keys: keys}, func(element.Element) error { return nil }, nil); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != fmt.Sprint(keys) || seen[contract.KeyOCRLanguages] == nil {
		t.Errorf("keys crossed as %v, sent %v", seen, keys)
	}
}

// The gRPC client of protocols 1 and 2: protocol 2 sends keys, protocol 1 the legacy JSON and
// no keys, and refuses to run without it.
func TestGRPCStartMessages(t *testing.T) {
	fake := &fakeGRPC{}
	client, server := plugin.TestPluginGRPCConn(t, false, plugin.PluginSet{PluginKey: &fakeGRPCPlugin{fake}})
	defer client.Close()
	defer server.Stop()
	raw, err := client.Dispense(PluginKey)
	if err != nil {
		t.Fatal(err)
	}
	keys := contract.Options{contract.KeyStrategy: {"keys"}, contract.KeyOCRLanguages: {}, "shout_volume": {"11"}}
	legacy := func() ([]byte, error) { return []byte(`{"Strategy":"keys"}`), nil }
	doc := contract.NewDocument("d.txt", []byte("x"))
	v2 := NewClient(raw.(*Client).rpc, ProtocolGRPCKeys)
	if err := v2.Partition(context.Background(), "keys", doc, Options{Keys: keys, LegacyJSON: legacy}, func(element.Element) error { return nil }, nil); err != nil {
		t.Fatal(err)
	}
	if len(fake.start.OptionsJson) != 0 || fmt.Sprint(fake.start.Options) != fmt.Sprint(EncodeKeys(keys)) || len(fake.start.Options) != 3 {
		t.Errorf("protocol 2 start: %v", fake.start)
	}
	v1 := NewClient(raw.(*Client).rpc, ProtocolLegacy)
	if err := v1.Partition(context.Background(), "keys", doc, Options{Keys: keys, LegacyJSON: legacy}, func(element.Element) error { return nil }, nil); err != nil {
		t.Fatal(err)
	}
	if string(fake.start.OptionsJson) != `{"Strategy":"keys"}` || len(fake.start.Options) != 0 {
		t.Errorf("protocol 1 start: %v", fake.start)
	}
	if err := v1.Partition(context.Background(), "keys", doc, Options{Keys: keys}, func(element.Element) error { return nil }, nil); err == nil {
		t.Error("protocol 1 without legacy options: no error")
	}
}

// fakeGRPC is a protocol 1-2 plugin that records the start message and answers Done.
type fakeGRPC struct {
	pluginv1.UnimplementedStrategyServer
	start *pluginv1.PartitionStart
}

func (f *fakeGRPC) Partition(stream pluginv1.Strategy_PartitionServer) error {
	for {
		m, err := stream.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if st := m.GetStart(); st != nil {
			f.start = st
		}
	}
	return stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Done{Done: &pluginv1.Done{}}})
}

type fakeGRPCPlugin struct{ srv *fakeGRPC }

func (p *fakeGRPCPlugin) Server(*plugin.MuxBroker) (any, error) { return nil, errors.New("grpc only") }
func (p *fakeGRPCPlugin) Client(*plugin.MuxBroker, *rpc.Client) (any, error) {
	return nil, errors.New("grpc only")
}

func (p *fakeGRPCPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterStrategyServer(s, p.srv)
	return nil
}

func (p *fakeGRPCPlugin) GRPCClient(_ context.Context, _ *plugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return &Client{rpc: pluginv1.NewStrategyClient(c), version: ProtocolGRPCKeys}, nil
}
