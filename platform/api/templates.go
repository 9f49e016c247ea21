package api

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/platform/jobs"
	"github.com/quarrydocs/quarry/platform/store"
)

// Template is a named list of workflow nodes (2026 SDK: GET /api/v1/templates/), usable as
// template_id of an on-demand job.
type Template struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Nodes       []store.Node `json:"nodes"`
}

// templates builds the built-in templates. Node ids are derived from the template id so a
// template answers the same ids every time; jobs made from it get fresh ones.
func templates() []Template {
	node := func(tid, name, typ, sub string, settings map[string]any) store.Node {
		return store.Node{ID: uuid.NewSHA1(uuid.NameSpaceURL, []byte("quarry:template:"+tid+":"+name)).String(),
			Name: name, Type: typ, Subtype: sub, Settings: settings}
	}
	return []Template{
		{ID: "fast-partition", Name: "Fast partition",
			Description: "Extracts text from documents with the fast strategy (no layout model or OCR); best for text-based files.",
			Nodes:       []store.Node{node("fast-partition", "Partitioner", jobs.NodePartition, "fast", map[string]any{"strategy": "fast"})}},
		{ID: "hi-res-partition", Name: "High-resolution partition",
			Description: "Partitions with the hi_res strategy: layout detection and OCR for scanned pages, images and tables.",
			Nodes:       []store.Node{node("hi-res-partition", "Partitioner", jobs.NodePartition, "hi_res", map[string]any{"strategy": "hi_res"})}},
		{ID: "partition-and-chunk-by-title", Name: "Partition and chunk by title",
			Description: "Partitions with the auto strategy, then chunks the elements by title (sections kept together, up to 500 characters).",
			Nodes: []store.Node{
				node("partition-and-chunk-by-title", "Partitioner", jobs.NodePartition, "auto", map[string]any{"strategy": "auto"}),
				node("partition-and-chunk-by-title", "Chunker", jobs.NodeChunk, "chunk_by_title", map[string]any{}),
			}},
	}
}

// lookupTemplate returns the template with that id.
func lookupTemplate(id string) (Template, bool) {
	for _, t := range templates() {
		if t.ID == id {
			return t, true
		}
	}
	return Template{}, false
}

// templateNodes copies a template's nodes with fresh ids, as workflow nodes are.
func templateNodes(t Template) []store.Node {
	out := make([]store.Node, len(t.Nodes))
	for i, n := range t.Nodes {
		settings := make(map[string]any, len(n.Settings))
		for k, v := range n.Settings {
			settings[k] = v
		}
		n.ID, n.Settings = uuid.NewString(), settings
		out[i] = n
	}
	return out
}

func (a *API) listTemplates(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, templates())
}

// templateNotFound answers a template id that names no template, with the ids that exist so the
// caller can correct it (an empty id is said as such, not as "Template  not found").
func templateNotFound(w http.ResponseWriter, id string) {
	ids := make([]string, 0, len(templates()))
	for _, t := range templates() {
		ids = append(ids, t.ID)
	}
	detail(w, http.StatusNotFound, fmt.Sprintf("Template %q not found: use one of %s (GET /api/v1/templates lists them)", id, strings.Join(ids, ", ")))
}

func (a *API) getTemplate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	t, ok := lookupTemplate(id)
	if !ok {
		templateNotFound(w, id)
		return
	}
	writeJSON(w, http.StatusOK, t)
}
