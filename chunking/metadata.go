package chunking

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/quarrydocs/quarry/element"
)

// Metadata keys Quarry keeps in Metadata.Extra, by consolidation strategy (§10.6). Extra keys
// not listed here are ad-hoc fields, which the reference drops from chunks.
var (
	extraFirst = []string{"data_source", "table_as_cells"}
	// extraMerge lists are concatenated without duplicates.
	extraMerge = []string{"enrichment_origins"}
	// extraDrop are removed from a Table's metadata when it becomes a chunk.
	extraDrop = []string{"key_value_pairs", "routing", "routing_score", "segment_start_seconds",
		"segment_end_seconds", "detection_origin"}
)

// consolidate merges the metadata of the elements lo…hi-1 into a CompositeElement's metadata
// (§10.6): first non-empty value for document-level fields, concatenation for the emphasis and
// link lists, ordered union for languages, space-joined text_as_html; element-specific fields
// (coordinates, depth, parent, links with offsets…) are dropped.
func (c *chunker) consolidate(lo, hi int) element.Metadata {
	var m element.Metadata
	var html []string
	for i := lo; i < hi; i++ {
		s := &c.in[i].Metadata
		firstStr(&m.Filename, s.Filename)
		firstStr(&m.Filetype, s.Filetype)
		firstStr(&m.FileDirectory, s.FileDirectory)
		firstStr(&m.LastModified, s.LastModified)
		firstStr(&m.PageName, s.PageName)
		firstStr(&m.URL, s.URL)
		firstStr(&m.AttachedToFilename, s.AttachedToFilename)
		firstStr(&m.Subject, s.Subject)
		firstStr(&m.Signature, s.Signature)
		firstStr(&m.EmailMessageID, s.EmailMessageID)
		firstStr(&m.TableExtractionMethod, s.TableExtractionMethod)
		if m.PageNumber == nil && s.PageNumber != nil {
			m.PageNumber = element.Int(*s.PageNumber)
		}
		firstList(&m.SentFrom, s.SentFrom)
		firstList(&m.SentTo, s.SentTo)
		firstList(&m.CcRecipient, s.CcRecipient)
		firstList(&m.BccRecipient, s.BccRecipient)
		m.EmphasizedTextContents = append(m.EmphasizedTextContents, s.EmphasizedTextContents...)
		m.EmphasizedTextTags = append(m.EmphasizedTextTags, s.EmphasizedTextTags...)
		m.LinkTexts = append(m.LinkTexts, s.LinkTexts...)
		m.LinkURLs = append(m.LinkURLs, s.LinkURLs...)
		for _, l := range s.Languages {
			if !contains(m.Languages, l) {
				m.Languages = append(m.Languages, l)
			}
		}
		if s.TextAsHTML != "" {
			html = append(html, trimPy(s.TextAsHTML))
		}
		for _, k := range extraFirst {
			if v, ok := s.Extra[k]; ok {
				if _, have := m.Extra[k]; !have {
					setExtra(&m, k, bytes.Clone(v))
				}
			}
		}
		for _, k := range extraMerge {
			if v, ok := s.Extra[k]; ok {
				setExtra(&m, k, mergeJSONLists(m.Extra[k], v))
			}
		}
	}
	if len(html) > 0 {
		m.TextAsHTML = strings.Join(html, " ")
	}
	return m
}

// tableMetadata is a Table's own metadata without the fields that do not describe a chunk.
func tableMetadata(src element.Metadata) element.Metadata {
	m := src
	m.CategoryDepth = nil
	m.Coordinates = nil
	m.DetectionClassProb = nil
	m.HeaderFooterType = ""
	m.ImageBase64, m.ImageMIMEType, m.ImageURL, m.ImagePath = "", "", "", ""
	m.IsContinuation = false
	m.IsExtracted = ""
	m.LinkStartIndexes = nil
	m.Links = nil
	m.OrigElements = nil
	m.ParentID = ""
	m.TableID = ""
	m.ChunkIndex = nil
	m.NumCarriedOverHeaderRows = nil
	if len(src.Extra) > 0 {
		m.Extra = make(map[string][]byte, len(src.Extra))
		for k, v := range src.Extra {
			if !contains(extraDrop, k) {
				m.Extra[k] = v
			}
		}
		if len(m.Extra) == 0 {
			m.Extra = nil
		}
	}
	return m
}

func firstStr(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

func firstList(dst *[]string, v []string) {
	if len(*dst) == 0 && len(v) > 0 {
		*dst = append([]string(nil), v...)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func setExtra(m *element.Metadata, k string, v []byte) {
	if v == nil {
		return
	}
	if m.Extra == nil {
		m.Extra = map[string][]byte{}
	}
	m.Extra[k] = v
}

// mergeJSONLists concatenates two JSON arrays, skipping items already present. Values that are
// not arrays are kept as they are (the first one wins).
func mergeJSONLists(a, b []byte) []byte {
	if a == nil {
		return bytes.Clone(b)
	}
	var la, lb []json.RawMessage
	if json.Unmarshal(a, &la) != nil || json.Unmarshal(b, &lb) != nil {
		return a
	}
	seen := map[string]bool{}
	for _, v := range la {
		seen[string(v)] = true
	}
	for _, v := range lb {
		if !seen[string(v)] {
			seen[string(v)] = true
			la = append(la, v)
		}
	}
	out, err := json.Marshal(la)
	if err != nil {
		return a
	}
	return out
}
