package jobs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/platform/store"
)

// Node types a workflow may contain; embed and prompter nodes of the reference need models
// Quarry does not run, so they are refused rather than silently skipped.
const (
	NodePartition = "partition"
	NodeChunk     = "chunk"
)

// chunkSubtypes maps the reference's chunk node subtypes (and the plain strategy names) to
// chunking strategies.
var chunkSubtypes = map[string]string{
	"chunk_by_title": "by_title", "chunk_by_character": "basic", "chunk_by_page": "by_page",
	"chunk_by_similarity": "by_similarity", "by_title": "by_title", "basic": "basic",
	"by_page": "by_page", "by_similarity": "by_similarity",
}

// ChunkSubtypes lists the accepted chunk node subtypes.
func ChunkSubtypes() []string {
	out := make([]string, 0, len(chunkSubtypes))
	for k := range chunkSubtypes {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// settingsForm turns a node's JSON settings into form values, so they are parsed with exactly
// the partition API's rules (partitionapi.OptionsFromForm).
func settingsForm(settings map[string]any, form map[string][]string) {
	for k, v := range settings {
		switch x := v.(type) {
		case nil:
		case string:
			form[k] = []string{x}
		case bool:
			form[k] = []string{strconv.FormatBool(x)}
		case float64:
			form[k] = []string{strconv.FormatFloat(x, 'f', -1, 64)}
		case json.Number:
			form[k] = []string{x.String()}
		case []any:
			var vs []string
			for _, e := range x {
				vs = append(vs, fmt.Sprint(e))
			}
			form[k] = vs
		default:
			b, _ := json.Marshal(x)
			form[k] = []string{string(b)}
		}
	}
}

// Options builds the engine options of a workflow's partition and chunk nodes. Errors carry
// locations ["body", "workflow_nodes", i, "settings", name].
func Options(nodes []store.Node) (engine.Options, error) {
	form := map[string][]string{}
	var errs []schema.FieldError
	at := func(i int, rest ...string) []string {
		return append([]string{"body", "workflow_nodes", strconv.Itoa(i)}, rest...)
	}
	seen := map[string]int{}
	for i, n := range nodes {
		switch n.Type {
		case NodePartition:
			if _, dup := seen[NodePartition]; dup {
				errs = append(errs, schema.FieldError{Type: "value_error", Loc: at(i, "type"), Msg: "Value error, a workflow has at most one partition node", Input: n.Type})
			}
			if _, ok := seen[NodeChunk]; ok {
				errs = append(errs, schema.FieldError{Type: "value_error", Loc: at(i, "type"), Msg: "Value error, the partition node must come before the chunk node", Input: n.Type})
			}
			seen[NodePartition] = i
			// The subtype names the strategy when the settings do not (partition nodes of the
			// reference have subtypes such as "fast", "hi_res", "vlm" or "unstructured_api").
			if _, ok := n.Settings["strategy"]; !ok && slices.Contains(partitionapi.StrategyChoices(), n.Subtype) {
				form["strategy"] = []string{n.Subtype}
			}
			settingsForm(n.Settings, form)
		case NodeChunk:
			if _, dup := seen[NodeChunk]; dup {
				errs = append(errs, schema.FieldError{Type: "value_error", Loc: at(i, "type"), Msg: "Value error, a workflow has at most one chunk node", Input: n.Type})
			}
			seen[NodeChunk] = i
			strategy, ok := chunkSubtypes[strings.ToLower(n.Subtype)]
			if cs, given := n.Settings["chunking_strategy"].(string); given && cs != "" {
				strategy, ok = chunkSubtypes[strings.ToLower(cs)]
			}
			if !ok {
				errs = append(errs, schema.FieldError{Type: "literal_error", Loc: at(i, "subtype"),
					Msg: "Input should be one of " + strings.Join(ChunkSubtypes(), ", "), Input: n.Subtype})
				continue
			}
			settingsForm(n.Settings, form)
			form["chunking_strategy"] = []string{strategy}
		default:
			errs = append(errs, schema.FieldError{Type: "literal_error", Loc: at(i, "type"),
				Msg: "Input should be 'partition' or 'chunk' (embed and prompter nodes are not supported)", Input: n.Type})
		}
	}
	opts, err := partitionapi.OptionsFromForm(form)
	if ve, ok := err.(*schema.ValidationError); ok {
		for _, fe := range ve.Errors {
			name := fe.Loc[len(fe.Loc)-1]
			idx := seen[NodePartition]
			if i, ok := seen[NodeChunk]; ok && isChunkParam(name) {
				idx = i
			}
			fe.Loc = at(idx, "settings", name)
			errs = append(errs, fe)
		}
	} else if err != nil {
		return opts, err
	}
	if len(errs) > 0 {
		return opts, &schema.ValidationError{Errors: errs}
	}
	return opts, nil
}

func isChunkParam(name string) bool {
	p, ok := partitionapi.Lookup(name)
	return ok && p.Group == partitionapi.Chunking
}

// dataSourceOrder is the key order of the reference's metadata.data_source.
var dataSourceOrder = []string{"url", "version", "record_locator", "date_created", "date_modified", "date_processed",
	"permissions_data", "permissions_version", "filesize_bytes"}

// DataSourceJSON encodes a document's data source in the reference's key order (known keys
// first, then the others sorted), for metadata.data_source.
func DataSourceJSON(ds map[string]any) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	first := true
	put := func(k string, v any) error {
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("data_source %s: %w", k, err)
		}
		if !first {
			buf.WriteByte(',')
		}
		first = false
		kb, _ := json.Marshal(k)
		buf.Write(kb)
		buf.WriteByte(':')
		buf.Write(b)
		return nil
	}
	for _, k := range dataSourceOrder {
		if v, ok := ds[k]; ok {
			if err := put(k, v); err != nil {
				return nil, err
			}
		}
	}
	var rest []string
	for k := range ds {
		if !slices.Contains(dataSourceOrder, k) {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		if err := put(k, ds[k]); err != nil {
			return nil, err
		}
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
