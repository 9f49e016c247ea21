// Command compatv1 is a plugin frozen at plugin protocol 1 (see README.md): never update it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	pluginv1 "github.com/quarrydocs/quarry/plugins/host/testdata/compatv1/pluginv1"
)

// options is the part of protocol 1's options_json (engine.Options at commit 61a66c5, Go field
// names, no tags) this plugin reads.
type options struct {
	Strategy           string
	IncludePageBreaks  bool
	Languages          []string
	StartingPageNumber int
	PDFMinerCharMargin *float64
	Extra              map[string]string
}

func main() {
	version := uint(1)
	if v, err := strconv.Atoi(os.Getenv("COMPATV1_PROTOCOL")); err == nil {
		version = uint(v)
	}
	plugin.Serve(&plugin.ServeConfig{
		HandshakeConfig: plugin.HandshakeConfig{
			ProtocolVersion:  version,
			MagicCookieKey:   "QUARRY_PLUGIN_MAGIC_COOKIE",
			MagicCookieValue: "9c4f0b3e6d1a8f27e5b0c9d4a7f3e8126b5d0a9c4e7f1b38d2a6c5e0f9b4d7a31",
		},
		Plugins:    plugin.PluginSet{"strategy": &grpcPlugin{}},
		GRPCServer: plugin.DefaultGRPCServer,
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
		Name: "compatv1", Version: "1.0.0", Protocol: 1, Strategies: []string{"compatv1"},
		MimeTypes: []string{"application/pdf", "text/plain"}, Capabilities: []string{"path", "progress"}, MaxWorkers: 1,
	}, nil
}

func (s *server) Partition(stream pluginv1.Strategy_PartitionServer) error {
	first, err := stream.Recv()
	if err != nil {
		return err
	}
	start := first.GetStart()
	if start == nil || start.Strategy != "compatv1" {
		return fail(stream, pluginv1.Error_BAD_REQUEST, "plugin compatv1 does not serve this request")
	}
	var opts options
	if len(start.OptionsJson) > 0 {
		if err := json.Unmarshal(start.OptionsJson, &opts); err != nil {
			return fail(stream, pluginv1.Error_INTERNAL, "wire: decode options: "+err.Error())
		}
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
	if opts.Extra["fail"] != "" {
		return fail(stream, pluginv1.Error_UNPROCESSABLE, "compatv1 refuses: "+opts.Extra["fail"])
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
			margin := "unset"
			if opts.PDFMinerCharMargin != nil {
				margin = strconv.FormatFloat(*opts.PDFMinerCharMargin, 'g', -1, 64)
			}
			add("NarrativeText", fmt.Sprintf("options strategy=%s languages=%q starting_page_number=%d char_margin=%s extra=%v",
				opts.Strategy, opts.Languages, opts.StartingPageNumber, margin, opts.Extra))
		}
		if opts.IncludePageBreaks {
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
