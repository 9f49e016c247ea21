package wire

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	pluginv1 "github.com/quarrydocs/quarry/plugins/proto/v1"
)

// recorder wraps the stream to count what the server sends.
type recorder struct {
	pluginv1.Strategy_PartitionServer
	batches, progress int
	sizes             []int
}

func (r *recorder) Send(m *pluginv1.PartitionResponse) error {
	switch v := m.Msg.(type) {
	case *pluginv1.PartitionResponse_Batch:
		r.batches++
		r.sizes = append(r.sizes, len(v.Batch.Elements))
	case *pluginv1.PartitionResponse_Progress:
		r.progress++
	}
	return r.Strategy_PartitionServer.Send(m)
}

type recordingServer struct {
	*Server
	rec *recorder
}

func (s *recordingServer) Partition(stream pluginv1.Strategy_PartitionServer) error {
	s.rec.Strategy_PartitionServer = stream
	return s.Server.Partition(s.rec)
}

// Elements cross in one batch per page, progress events in between, over real gRPC.
func TestBatchesPerPage(t *testing.T) {
	srv := &Server{Name: "t", Strategies: []Strategy{{Name: "pages", Partition: func(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
		for p := 1; p <= 3; p++ {
			ReportProgress(ctx, p, 3, "test")
			for i := 0; i < 100; i++ {
				if err := emit(element.Element{Type: element.NarrativeText, Text: fmt.Sprintf("p%d e%d", p, i), Metadata: element.Metadata{PageNumber: element.Int(p)}}); err != nil {
					return err
				}
			}
		}
		if opts.Get("fail") != "" {
			return &contract.Error{Kind: contract.KindUnprocessable, Msg: "refused"}
		}
		return nil
	}}}}
	rec := &recorder{}
	ps := plugin.PluginSet{PluginKey: &recordingPlugin{srv: &recordingServer{Server: srv, rec: rec}}}
	client, server := plugin.TestPluginGRPCConn(t, false, ps)
	defer client.Close()
	defer server.Stop()
	raw, err := client.Dispense(PluginKey)
	if err != nil {
		t.Fatal(err)
	}
	c := raw.(*Client)
	doc := contract.NewDocument("d.pdf", make([]byte, 3*ChunkSize+5))
	opts := Options{Keys: contract.Options{contract.KeyStrategy: {"pages"}}}
	var got []element.Element
	var progress []int
	err = c.Partition(context.Background(), "pages", doc, opts, func(e element.Element) error { got = append(got, e); return nil },
		func(page, pages int, stage string) { progress = append(progress, page) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 300 || got[299].Text != "p3 e99" || *got[150].Metadata.PageNumber != 2 {
		t.Fatalf("got %d elements", len(got))
	}
	if rec.batches != 3 || fmt.Sprint(rec.sizes) != "[100 100 100]" || fmt.Sprint(progress) != "[1 2 3]" {
		t.Errorf("batches %d %v, progress %v", rec.batches, rec.sizes, progress)
	}
	opts.Keys["fail"] = []string{"1"}
	err = c.Partition(context.Background(), "pages", doc, opts, func(element.Element) error { return nil }, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Err.Kind != contract.KindUnprocessable || re.Err.Msg != "refused" {
		t.Errorf("typed error lost: %v", err)
	}
	err = c.Partition(context.Background(), "nope", doc, opts, func(element.Element) error { return nil }, nil)
	if !errors.As(err, &re) || re.Err.Kind != contract.KindBadRequest {
		t.Errorf("unknown strategy: %v", err)
	}
}

type recordingPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	srv *recordingServer
}

func (p *recordingPlugin) GRPCServer(b *plugin.GRPCBroker, s *grpcServer) error {
	pluginv1.RegisterStrategyServer(s, p.srv)
	return nil
}

func (p *recordingPlugin) GRPCClient(ctx context.Context, b *plugin.GRPCBroker, c *grpcConn) (any, error) {
	return &Client{rpc: pluginv1.NewStrategyClient(c), version: ProtocolVersion}, nil
}

type (
	grpcServer = grpc.Server
	grpcConn   = grpc.ClientConn
)

// Options cross as keys exactly: standard and unknown keys, repeated values, an empty list, an
// empty value; a protocol-1 client sends the legacy JSON instead and no keys.
func TestOptionsCrossAsKeys(t *testing.T) {
	var seen contract.Options
	var seenJSON []byte
	srv := &Server{Name: "t", Options: []OptionSpec{{Key: "shout_volume", Help: "how loud"}},
		Strategies: []Strategy{{Name: "keys", Partition: func(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
			seen = opts
			return nil
		}}}}
	ps := plugin.PluginSet{PluginKey: &grpcPlugin{impl: srv, version: ProtocolVersion}}
	client, server := plugin.TestPluginGRPCConn(t, false, ps)
	defer client.Close()
	defer server.Stop()
	raw, err := client.Dispense(PluginKey)
	if err != nil {
		t.Fatal(err)
	}
	c := raw.(*Client)
	d, err := c.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Protocol != ProtocolVersion || len(d.Options) != 1 || d.Options[0].Key != "shout_volume" || d.Options[0].Help != "how loud" {
		t.Errorf("describe %+v", d)
	}
	keys := contract.Options{
		contract.KeyStrategy: {"keys"}, contract.KeyLanguages: {"eng", "deu"}, contract.KeyOCRLanguages: {},
		contract.KeyEncoding: {""}, "shout_volume": {"11"},
	}
	doc := contract.NewDocument("d.txt", []byte("x"))
	legacy := func() ([]byte, error) { return []byte(`{"Strategy":"keys"}`), nil }
	if err := c.Partition(context.Background(), "keys", doc, Options{Keys: keys, LegacyJSON: legacy}, func(element.Element) error { return nil }, nil); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(seen) != fmt.Sprint(keys) || seen[contract.KeyOCRLanguages] == nil {
		t.Errorf("keys crossed as %v, sent %v", seen, keys)
	}
	// The same stub speaking protocol 1 sends options_json, which the server reads as keys.
	old := NewClient(c.rpc, ProtocolLegacy)
	rec := &startRecorder{StrategyClient: c.rpc}
	old.rpc = rec
	if err := old.Partition(context.Background(), "keys", doc, Options{Keys: keys, LegacyJSON: legacy}, func(element.Element) error { return nil }, nil); err != nil {
		t.Fatal(err)
	}
	seenJSON = rec.start.OptionsJson
	if string(seenJSON) != `{"Strategy":"keys"}` || len(rec.start.Options) != 0 || seen.Get(contract.KeyStrategy) != "keys" || seen.Get(contract.KeyStartingPageNumber) != "0" {
		t.Errorf("protocol 1 start: json %s, keys %v; server saw %v", seenJSON, rec.start.Options, seen)
	}
	if err := old.Partition(context.Background(), "keys", doc, Options{Keys: keys}, func(element.Element) error { return nil }, nil); err == nil {
		t.Error("protocol 1 without legacy options: no error")
	}
}

// startRecorder keeps the start message a client sends.
type startRecorder struct {
	pluginv1.StrategyClient
	start *pluginv1.PartitionStart
}

func (r *startRecorder) Partition(ctx context.Context, opts ...grpc.CallOption) (pluginv1.Strategy_PartitionClient, error) {
	s, err := r.StrategyClient.Partition(ctx, opts...)
	return &startStream{Strategy_PartitionClient: s, r: r}, err
}

type startStream struct {
	pluginv1.Strategy_PartitionClient
	r *startRecorder
}

func (s *startStream) Send(m *pluginv1.PartitionRequest) error {
	if st := m.GetStart(); st != nil {
		s.r.start = st
	}
	return s.Strategy_PartitionClient.Send(m)
}
