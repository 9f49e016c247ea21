package host

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/go-hclog"
	"github.com/hashicorp/go-plugin"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/internal/wire"
)

// runCompat partitions doc with the frozen protocol-1 plugin (testdata/compatv1).
func runCompat(t *testing.T, h *Host, opts engine.Options, doc *engine.Document) ([]element.Element, error) {
	t.Helper()
	p, ok := h.Plugin("compatv1")
	if !ok {
		t.Fatal("compatv1 plugin not discovered")
	}
	var out []element.Element
	err := p.Partitioner("compatv1").Partition(context.Background(), doc, &opts, func(e element.Element) error {
		out = append(out, e)
		return nil
	})
	return out, err
}

// A plugin built against protocol 1 (options as engine.Options JSON with Go field names, no
// versioned plugin sets) still works with this host: it is described, receives the options it
// reads, streams elements and progress, and its typed errors arrive as they are.
func TestCompatV1(t *testing.T) {
	h := newHost(t, Config{Workers: 1})
	p, ok := h.Plugin("compatv1")
	if !ok {
		t.Fatal("compatv1 plugin not discovered")
	}
	d, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Protocol != 1 || d.Name != "compatv1" || fmt.Sprint(d.Strategies) != "[compatv1]" {
		t.Fatalf("describe: %+v", d)
	}
	opts := engine.DefaultOptions()
	opts.Strategy = "compatv1"
	opts.IncludePageBreaks = true
	opts.Languages = []string{"deu"}
	opts.StartingPageNumber = 3
	opts.Extra = contract.Options{"shout_volume": {"11"}, "pdfminer_char_margin": {"0.5"}}
	var pages []int
	opts.Progress = func(p engine.Progress) { pages = append(pages, p.Page) }
	doc := engine.NewDocument("in.txt", []byte("one\n\ntwo\fthree"))
	doc.MIMEType = "text/plain"
	got, err := runCompat(t, h, opts, doc)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got {
		lines = append(lines, fmt.Sprintf("%d %s %s", *e.Metadata.PageNumber, e.Type, e.Text))
	}
	want := []string{
		"1 NarrativeText one", "1 NarrativeText two", "1 PageBreak ",
		"2 NarrativeText three",
		`2 NarrativeText options strategy=compatv1 languages=["deu"] starting_page_number=3 char_margin=0.5 extra=map[shout_volume:11]`,
		"2 PageBreak ",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("elements:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if fmt.Sprint(pages) != "[1 2]" {
		t.Errorf("progress pages %v", pages)
	}
	opts.Extra = contract.Options{"fail": {"on purpose"}}
	_, err = runCompat(t, h, opts, doc)
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || ee.Msg != "compatv1 refuses: on purpose" {
		t.Errorf("typed error: %v", err)
	}
}

// A plugin built against protocol 2 (gRPC, options as keys; the SDK before protocol 3) still
// works with this host: it is described with its own keys, receives the options as keys,
// streams elements and progress, and its typed errors arrive as they are.
func TestCompatV2(t *testing.T) {
	h := newHost(t, Config{Workers: 1})
	p, ok := h.Plugin("compatv2")
	if !ok {
		t.Fatal("compatv2 plugin not discovered")
	}
	d, err := p.Describe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if d.Protocol != wire.ProtocolGRPCKeys || d.Name != "compatv2" || fmt.Sprint(d.Strategies) != "[compatv2]" || len(d.Options) != 1 || d.Options[0].Key != "compatv2_volume" {
		t.Fatalf("describe: %+v", d)
	}
	opts := engine.DefaultOptions()
	opts.Strategy = "compatv2"
	opts.IncludePageBreaks = true
	opts.Languages = []string{"deu", "fra"}
	opts.StartingPageNumber = 3
	opts.Extra = contract.Options{"compatv2_volume": {"11"}, "pdfminer_char_margin": {"0.5"}}
	var pages []int
	opts.Progress = func(p engine.Progress) { pages = append(pages, p.Page) }
	doc := engine.NewDocument("in.txt", []byte("one\n\ntwo\fthree"))
	doc.MIMEType = "text/plain"
	var got []element.Element
	err = p.Partitioner("compatv2").Partition(context.Background(), doc, &opts, func(e element.Element) error {
		got = append(got, e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, e := range got {
		lines = append(lines, fmt.Sprintf("%d %s %s", *e.Metadata.PageNumber, e.Type, e.Text))
	}
	want := []string{
		"1 NarrativeText one", "1 NarrativeText two", "1 PageBreak ",
		"2 NarrativeText three",
		`2 NarrativeText options strategy=compatv2 languages=["deu" "fra"] starting_page_number=3 char_margin=0.5 compatv2_volume=11`,
		"2 PageBreak ",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("elements:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if fmt.Sprint(pages) != "[1 2]" {
		t.Errorf("progress pages %v", pages)
	}
	opts.Extra = contract.Options{"fail": {"on purpose"}}
	err = p.Partitioner("compatv2").Partition(context.Background(), doc, &opts, func(element.Element) error { return nil })
	var ee *engine.Error
	if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || ee.Msg != "compatv2 refuses: on purpose" {
		t.Errorf("typed error: %v", err)
	}
}

// A plugin announcing a protocol this host does not speak is refused with an error naming its
// version and the host's, and no process is left behind.
func TestProtocolMismatch(t *testing.T) {
	t.Setenv("COMPATV1_PROTOCOL", "9")
	h := newHost(t, Config{Workers: 1})
	opts := engine.DefaultOptions()
	doc := engine.NewDocument("in.txt", []byte("one"))
	doc.MIMEType = "text/plain"
	_, err := runCompat(t, h, opts, doc)
	if err == nil {
		t.Fatal("a protocol-9 plugin was accepted")
	}
	t.Logf("refused: %v", err)
	want := fmt.Sprintf("speaks plugin protocol 9 and this quarry speaks protocols %d to %d", wire.ProtocolLegacy, wire.ProtocolVersion)
	if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "compatv1") {
		t.Errorf("error %q does not name both versions (%q)", err, want)
	}
}

// Protocol 1's options_json reads back as the keys protocol 2 sends for the same options.
func TestLegacyOptionsReadAsKeys(t *testing.T) {
	o := engine.DefaultOptions()
	o.Strategy, o.OutputFormat, o.Coordinates, o.Encoding = "hi_res", "text/csv", true, "utf-16"
	o.ContentType, o.GzUncompressedContentType, o.HiResModelName = "text/html", "text/plain", "yolox"
	o.IncludePageBreaks, o.Languages, o.OCRLanguages = true, []string{"deu", ""}, []string{}
	o.PDFInferTableStructure, o.SkipInferTableTypes, o.ExtractImageBlockTypes = false, []string{"pdf"}, []string{"Image", "Table"}
	o.UniqueElementIDs, o.StartingPageNumber, o.TableOCRAgent = true, 5, "tesseract"
	// The keys formats and strategies declared for themselves travel in Extra on the host and
	// fill their frozen protocol 1 fields.
	o.Extra = contract.Options{"shout_volume": {"11"}, "strategy": {"shadow"}, "xml_keep_tags": {"true"}, "include_slide_notes": {"false"}, "vlm_model_provider": {"anthropic"}, "vlm_model": {"claude"}, "pdfminer_line_overlap": {"0.1"}, "pdfminer_word_margin": {"2.5"}}
	o.Chunking.Strategy = "by_title"
	j, err := legacyOptions(&o)
	if err != nil {
		t.Fatal(err)
	}
	got, err := wire.LegacyKeys(j)
	if err != nil {
		t.Fatal(err)
	}
	if want := o.Keys(); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("protocol 1 read as\n%v\nprotocol 2 sends\n%v", got, want)
	}
}

// A host that speaks protocols 1 and 2 only (every host before protocol 3) refuses a plugin
// built with today's SDK, whose transport is protocol 3's, and go-plugin's error names both
// sides' versions (such a host turns it into the sentence TestProtocolMismatch checks).
func TestOldHostRefusesCurrentPlugin(t *testing.T) {
	cmd := exec.Command(filepath.Join(pluginDir, Prefix+"misbehave"))
	var stderr syncBuffer
	sets := wire.ClientSets()
	gp := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  wire.Handshake,
		VersionedPlugins: map[int]plugin.PluginSet{wire.ProtocolLegacy: sets[wire.ProtocolLegacy], wire.ProtocolGRPCKeys: sets[wire.ProtocolGRPCKeys]},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Stderr:           &stderr,
		Logger:           hclog.NewNullLogger(),
	})
	defer gp.Kill()
	_, err := gp.Client()
	if err == nil {
		t.Fatal("a protocol 1-2 host accepted a protocol 3 plugin")
	}
	if !incompatible.MatchString(err.Error()) || !strings.Contains(err.Error(), "Plugin version: 3") {
		t.Errorf("refusal does not name the plugin's version: %v", err)
	}
	// go-plugin lists the offered versions in no particular order, and copies the plugin's
	// stderr on its own goroutine: the line may arrive after Client has returned.
	said := regexp.MustCompile(`this plugin speaks plugin protocol 3 and the host offers (1,2|2,1):`)
	for end := time.Now().Add(5 * time.Second); !said.MatchString(stderr.String()) && time.Now().Before(end); {
		time.Sleep(20 * time.Millisecond)
	}
	if !said.MatchString(stderr.String()) {
		t.Errorf("the plugin did not say why on stderr: %q", stderr.String())
	}
}

// syncBuffer is a bytes.Buffer safe for go-plugin's stderr copier and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
