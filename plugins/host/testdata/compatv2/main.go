// Command compatv2 is a plugin frozen at plugin protocol 2 (see README.md): never update it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/quarrydocs/quarry/plugins/host/testdata/compatv2/pluginv1"
)

func main() {
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  2,
			MagicCookieKey:   "QUARRY_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "9c4f0b3e6d1a8f27e5b0c9d4a7f3e8126b5d0a9c4e7f1b38d2a6c5e0f9b4d7a31",
		},
		VersionedPlugins: map[int]plugin.PluginSet{2: {"strategy": &grpcPlugin{}}},
		GRPCServer:       plugin.DefaultGRPCServer,
	})
}

type grpcPlugin struct{ plugin.NetRPCUnsupportedPlugin }

func (p *grpcPlugin) GRPCServer(_ *plugin.GRPCBroker, s *grpc.Server) error {
	pluginv1.RegisterStrategyServer(s, &server{})
	return nil
}

func (p *grpcPlugin) GRPCClient(context.Context, *plugin.GRPCBroker, *grpc.ClientConn) (any, error) {
	return nil, errors.New("plugin side only")
}

type server struct {
	pluginv1.UnimplementedStrategyServer
}

func (s *server) Describe(context.Context, *pluginv1.DescribeRequest) (*pluginv1.DescribeResponse, error) {
	return &pluginv1.DescribeResponse{
		Name: "compatv2", Version: "2.0.0", Protocol: 2, Strategies: []string{"compatv2"},
		MimeTypes: []string{"application/pdf", "text/plain"}, Capabilities: []string{"path", "progress"}, MaxWorkers: 1,
		Options: []*pluginv1.OptionSpec{{Key: "compatv2_volume", Help: "how loud"}},
	}, nil
}

func (s *server) Partition(stream pluginv1.Strategy_PartitionServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	start := first.GetStart()
	if start == nil || start.Strategy != "compatv2" {
		return fail(stream, pluginv1.Error_BAD_REQUEST, "plugin compatv2 does not serve this request")
	}
	opts := map[string][]string{}
	for _, o := range start.Options {
		opts[o.Key] = o.Values
	}
	get := func(k string) string {
		if vs := opts[k]; len(vs) > 0 {
			return vs[len(vs)-1]
		}
		return "unset"
	}
	var data []byte
	if start.Path != "" {
		if data, err = os.ReadFile(start.Path); err != nil {
			return fail(stream, pluginv1.Error_INTERNAL, err.Error())
		}
	} else {
		for int64(len(data)) < start.Size {
			m, err := stream.Recv()
			if err == io.EOF {
				return fail(stream, pluginv1.Error_INTERNAL, "document truncated")
			}
			if err != nil {
				return err
			}
			data = append(data, m.GetChunk()...)
		}
	}
	if v := get("fail"); v != "unset" {
		return fail(stream, pluginv1.Error_UNPROCESSABLE, "compatv2 refuses: "+v)
	}
	pages := strings.Split(strings.TrimSuffix(string(data), "\f"), "\f")
	n := 0
	for i, page := range pages {
		if err := stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Progress{Progress: &pluginv1.Progress{Page: int32(i + 1), Pages: int32(len(pages)), Stage: "text"}}}); err != nil {
			return err
		}
		var batch [][]byte
		add := func(typ, text string) {
			batch = append(batch, element(typ, text, i+1))
		}
		for _, para := range strings.Split(page, "\n\n") {
			if text := strings.Join(strings.Fields(para), " "); text != "" {
				add("NarrativeText", text)
			}
		}
		if i == len(pages)-1 {
			add("NarrativeText", fmt.Sprintf("options strategy=%s languages=%q starting_page_number=%s char_margin=%s compatv2_volume=%s",
				get("strategy"), opts["languages"], get("starting_page_number"), get("pdfminer_char_margin"), get("compatv2_volume")))
		}
		if get("include_page_breaks") == "true" {
			add("PageBreak", "")
		}
		n += len(batch)
		if err := stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Batch{Batch: &pluginv1.ElementBatch{Page: int32(i + 1), Elements: batch}}}); err != nil {
			return err
		}
	}
	return stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Done{Done: &pluginv1.Done{Elements: int32(n)}}})
}

// element is one element in the reference JSON shape.
func element(typ, text string, page int) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	_ = enc.Encode(map[string]any{"type": typ, "element_id": "", "text": text, "metadata": map[string]any{"page_number": page}})
	return bytes.TrimSpace(b.Bytes())
}

func fail(stream pluginv1.Strategy_PartitionServer, kind pluginv1.Error_Kind, msg string) error {
	return stream.Send(&pluginv1.PartitionResponse{Msg: &pluginv1.PartitionResponse_Error{Error: &pluginv1.Error{Kind: kind, Message: msg}}})
}
