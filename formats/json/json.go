// Package json re-hydrates serialized elements (JSON arrays and NDJSON lines of element
// objects, as the partition API writes them). Any other valid JSON becomes one
// UncategorizedText element holding the pretty-printed document, as the reference does from
// library 0.25 on.
package json

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
)

func init() {
	contract.RegisterFormat(contract.Format{Name: "json", MIME: mimeJSON, Extensions: []string{".json"},
		Text: true, TrustExtension: true, SniffText: sniff, SniffOrder: 10,
		Partitioner: contract.Func(partitionJSON)})
	contract.RegisterFormat(contract.Format{Name: "ndjson", MIME: mimeNDJSON, Extensions: []string{".ndjson"},
		Text: true, TrustExtension: true, SniffText: sniff, SniffOrder: 10,
		Partitioner: contract.Func(partitionNDJSON)})
}

// labels maps serialized type labels to element types (partition-api.md §6.2).
var labels = map[string]element.Type{
	"Title": element.Title, "Section-header": element.Title, "Headline": element.Title,
	"Subheadline": element.Title, "Field-Name": element.Title,
	"Text": element.NarrativeText, "NarrativeText": element.NarrativeText, "Paragraph": element.NarrativeText,
	"Abstract": element.NarrativeText, "Threading": element.NarrativeText, "Value": element.NarrativeText,
	"Link":              element.NarrativeText,
	"UncategorizedText": element.UncategorizedText,
	"List-item":         element.ListItem, "ListItem": element.ListItem, "BulletedText": element.ListItem, "List": element.ListItem,
	"Header": element.Header, "Page-header": element.Header,
	"Footer": element.Footer, "Page-footer": element.Footer, "Footnote": element.Footer,
	"Caption": element.FigureCaption, "FigureCaption": element.FigureCaption,
	"Picture": element.Image, "Figure": element.Image, "Image": element.Image,
	"Table": element.Table, "TableChunk": element.TableChunk, "Formula": element.Formula,
	"Address": element.Address, "EmailAddress": element.EmailAddress, "PageBreak": element.PageBreak,
	"CodeSnippet": element.CodeSnippet, "PageNumber": element.PageNumber,
	"FormKeysValues": element.FormKeysValues, "DocumentData": element.DocumentData,
	"CompositeElement": element.CompositeElement, "CheckBox": element.CheckBox, "Form": element.Form,
}

func rehydrate(e element.Element) element.Element {
	if t, ok := labels[string(e.Type)]; ok {
		e.Type = t
	} else {
		e.Type = element.UncategorizedText
	}
	// IDs, filename and filetype are assigned again by the engine like for any format.
	e.ID = ""
	e.Metadata.Filename, e.Metadata.Filetype, e.Metadata.ParentID = "", "", ""
	return e
}

func partitionJSON(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("json: read: %w", err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil || !allElements(items) {
		return plainJSON(data, emit)
	}
	for i, raw := range items {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var e element.Element
		if err := json.Unmarshal(raw, &e); err != nil {
			return fmt.Errorf("json: element %d: %w", i, err)
		}
		if err := emit(rehydrate(e)); err != nil {
			return err
		}
	}
	return nil
}

// allElements reports whether every item is an object with a string "type".
func allElements(items []json.RawMessage) bool {
	for _, raw := range items {
		var probe struct {
			Type *string `json:"type"`
		}
		if json.Unmarshal(raw, &probe) != nil || probe.Type == nil {
			return false
		}
	}
	return true
}

// maxDepth bounds the nesting of a document rendered as indented text. Indentation makes the
// output quadratic in the depth: 10,000 levels (encoding/json's own limit) indent to ~100 MB
// from a 20 KB input, so a 100k-deep upload once peaked at 330 MB before failing.
const maxDepth = 512

// depth returns the deepest nesting of arrays and objects in data, stopping past limit.
func depth(data []byte, limit int) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range data {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			d++
			if d > deepest {
				deepest = d
				if deepest > limit {
					return deepest
				}
			}
		case c == ']' || c == '}':
			d--
		}
	}
	return deepest
}

func plainJSON(data []byte, emit contract.Emit) error {
	if depth(data, maxDepth) > maxDepth {
		return contract.Errorf(contract.KindBadRequest, "Invalid JSON: nested deeper than %d levels", maxDepth)
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, bytes.TrimSpace(data), "", "  "); err != nil {
		return contract.Errorf(contract.KindBadRequest, "Invalid JSON: %v", err)
	}
	if buf.Len() == 0 {
		return nil
	}
	return emit(element.Element{Type: element.UncategorizedText, Text: buf.String()})
}

func partitionNDJSON(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	sc := bufio.NewScanner(doc.Reader())
	sc.Buffer(make([]byte, 64<<10), 256<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		var e element.Element
		if err := json.Unmarshal(b, &e); err != nil || e.Type == "" {
			if err == nil {
				err = fmt.Errorf("no \"type\" field")
			}
			return contract.Errorf(contract.KindBadRequest, "ndjson: line %d is not a serialized element: %v", line, err)
		}
		if err := emit(rehydrate(e)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("ndjson: read: %w", err)
	}
	return nil
}
