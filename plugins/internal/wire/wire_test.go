package wire

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
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
	srv := &Server{Name: "t", Strategies: []Strategy{{Name: "pages", Partition: func(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
		for p := 1; p <= 3; p++ {
			ReportProgress(ctx, p, 3, "test")
			for i := 0; i < 100; i++ {
				if err := emit(element.Element{Type: element.NarrativeText, Text: fmt.Sprintf("p%d e%d", p, i), Metadata: element.Metadata{PageNumber: element.Int(p)}}); err != nil {
					return err
				}
			}
		}
		if opts.Extra["fail"] != "" {
			return &engine.Error{Kind: engine.KindUnprocessable, Msg: "refused"}
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
	doc := engine.NewDocument("d.pdf", make([]byte, 3*ChunkSize+5))
	opts := engine.DefaultOptions()
	var got []element.Element
	var progress []int
	err = c.Partition(context.Background(), "pages", doc, &opts, func(e element.Element) error { got = append(got, e); return nil },
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
	opts.Extra = map[string]string{"fail": "1"}
	err = c.Partition(context.Background(), "pages", doc, &opts, func(element.Element) error { return nil }, nil)
	var re *RemoteError
	if !errors.As(err, &re) || re.Err.Kind != engine.KindUnprocessable || re.Err.Msg != "refused" {
		t.Errorf("typed error lost: %v", err)
	}
	err = c.Partition(context.Background(), "nope", doc, &opts, func(element.Element) error { return nil }, nil)
	if !errors.As(err, &re) || re.Err.Kind != engine.KindBadRequest {
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
	return &Client{rpc: pluginv1.NewStrategyClient(c)}, nil
}

type (
	grpcServer = grpc.Server
	grpcConn   = grpc.ClientConn
)
