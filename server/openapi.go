package server

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/quarrydocs/quarry/engine"
)

// paramSchema is the OpenAPI schema of one form parameter, derived from engine.Params so the
// document cannot drift from what the server parses.
func paramSchema(p engine.Param) map[string]any {
	s := map[string]any{"description": p.Help}
	switch p.Kind {
	case "strict_bool":
		s["type"] = "boolean"
	case "lenient_bool":
		s["type"] = "boolean"
		s["description"] = p.Help + " (only the text \"true\", any case, is true)"
	case "int":
		s["type"] = "integer"
	case "float":
		s["type"] = "number"
	case "list":
		s["type"] = "array"
		s["items"] = map[string]any{"type": "string"}
		s["description"] = p.Help + " (repeated fields, name[] fields, a JSON array or a +-joined value)"
	case "literal":
		s["type"] = "string"
		s["enum"] = p.Choices
	default:
		s["type"] = "string"
	}
	if d, ok := paramDefault(p.Name); ok {
		s["default"] = d
	}
	return s
}

// paramDefault reads a parameter's server default from engine.DefaultOptions.
func paramDefault(name string) (any, bool) {
	o := engine.DefaultOptions()
	switch name {
	case "strategy":
		return o.Strategy, true
	case "output_format":
		return o.OutputFormat, true
	case "coordinates":
		return o.Coordinates, true
	case "include_page_breaks":
		return o.IncludePageBreaks, true
	case "pdf_infer_table_structure":
		return o.PDFInferTableStructure, true
	case "xml_keep_tags":
		return o.XMLKeepTags, true
	case "unique_element_ids":
		return o.UniqueElementIDs, true
	case "starting_page_number":
		return o.StartingPageNumber, true
	case "include_slide_notes":
		return o.IncludeSlideNotes, true
	case "overlap":
		return o.Chunking.Overlap, true
	case "overlap_all":
		return o.Chunking.OverlapAll, true
	case "multipage_sections":
		return o.Chunking.MultipageSections, true
	case "include_orig_elements":
		return o.Chunking.IncludeOrigElements, true
	case "max_characters":
		return 500, true
	}
	return nil, false
}

func detailSchema(desc string) map[string]any {
	return map[string]any{
		"description": desc,
		"content": map[string]any{"application/json": map[string]any{
			"schema": map[string]any{"$ref": "#/components/schemas/Error"},
		}},
	}
}

// openAPIDocument builds the OpenAPI 3.1 description of the API.
func openAPIDocument() []byte {
	props := map[string]any{
		"files": map[string]any{
			"type":        "array",
			"items":       map[string]any{"type": "string", "format": "binary"},
			"description": "The documents to partition (one part per file). A .gz file is decompressed first.",
		},
	}
	for _, p := range engine.Params() {
		props[p.Name] = paramSchema(p)
	}
	partition := map[string]any{
		"operationId": "partition",
		"summary":     "Partition documents into elements",
		"tags":        []string{"general"},
		"security":    []any{map[string]any{"ApiKeyAuth": []string{}}},
		"requestBody": map[string]any{
			"required": true,
			"content": map[string]any{"multipart/form-data": map[string]any{
				"schema": map[string]any{"$ref": "#/components/schemas/partition_parameters"},
			}},
		},
		"responses": map[string]any{
			"200": map[string]any{
				"description": "One file: an array of elements. Several files: an array of arrays (or one merged CSV). With Accept: multipart/mixed, one base64 part per file.",
				"content": map[string]any{
					"application/json": map[string]any{"schema": map[string]any{
						"type": "array", "items": map[string]any{"$ref": "#/components/schemas/Element"},
					}},
					"text/csv":        map[string]any{"schema": map[string]any{"type": "string"}},
					"multipart/mixed": map[string]any{"schema": map[string]any{"type": "string"}},
				},
			},
			"400": detailSchema("Unsupported file type or bad parameter value"),
			"401": detailSchema("Missing or invalid API key"),
			"405": detailSchema("Only POST requests are supported"),
			"406": detailSchema("Several files with an Accept header that allows no answer"),
			"413": detailSchema("Request body (or decompressed file) larger than the server's limit"),
			"422": map[string]any{
				"description": "Validation error (list detail) or unreadable document (string detail)",
				"content": map[string]any{"application/json": map[string]any{
					"schema": map[string]any{"$ref": "#/components/schemas/HTTPValidationError"},
				}},
			},
			"500": detailSchema("Partitioning failed"),
			"503": detailSchema("Server is under heavy load; retry after the Retry-After delay"),
			"504": detailSchema("Partitioning did not finish within the server's request timeout"),
		},
	}
	doc := map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title":       "Quarry partition API",
			"version":     "0.1.0",
			"description": "Turns documents into typed elements; wire-compatible with the Unstructured partition API.",
		},
		"paths": map[string]any{
			"/general/v0/general": map[string]any{"post": partition},
			"/healthcheck": map[string]any{"get": map[string]any{
				"operationId": "healthcheck",
				"summary":     "Health check",
				"responses": map[string]any{"200": map[string]any{
					"description": "The server is up",
					"content": map[string]any{"application/json": map[string]any{"schema": map[string]any{
						"type": "object", "properties": map[string]any{"healthcheck": map[string]any{"type": "string"}},
					}}},
				}},
			}},
		},
		"components": map[string]any{
			"securitySchemes": map[string]any{
				"ApiKeyAuth": map[string]any{"type": "apiKey", "in": "header", "name": "unstructured-api-key"},
			},
			"schemas": map[string]any{
				"partition_parameters": map[string]any{
					"type": "object", "required": []string{"files"}, "properties": props,
				},
				"Element": map[string]any{
					"type":     "object",
					"required": []string{"type", "element_id", "text", "metadata"},
					"properties": map[string]any{
						"type":       map[string]any{"type": "string"},
						"element_id": map[string]any{"type": "string"},
						"text":       map[string]any{"type": "string"},
						"metadata":   map[string]any{"type": "object"},
					},
				},
				"Error": map[string]any{
					"type": "object", "required": []string{"detail"},
					"properties": map[string]any{"detail": map[string]any{"type": "string"}},
				},
				"ValidationError": map[string]any{
					"type": "object", "required": []string{"loc", "msg", "type"},
					"properties": map[string]any{
						"loc":   map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"type": "string"}, map[string]any{"type": "integer"}}}},
						"msg":   map[string]any{"type": "string"},
						"type":  map[string]any{"type": "string"},
						"input": map[string]any{},
						"ctx":   map[string]any{"type": "object"},
					},
				},
				"HTTPValidationError": map[string]any{
					"type": "object",
					"properties": map[string]any{"detail": map[string]any{"anyOf": []any{
						map[string]any{"type": "array", "items": map[string]any{"$ref": "#/components/schemas/ValidationError"}},
						map[string]any{"type": "string"},
					}}},
				},
			},
		},
	}
	b, err := marshalNoEscape(doc)
	if err != nil {
		panic("server: OpenAPI document does not encode: " + err.Error()) // static data: a bug, not input
	}
	return b
}

var docsTemplate = template.Must(template.New("docs").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Quarry partition API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
code,pre{font-family:ui-monospace,monospace;background:#f4f4f4;padding:0 .2em}
pre{padding:.6em;overflow-x:auto}
table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:.3em .5em;text-align:left;vertical-align:top}
</style></head><body>
<h1>Quarry partition API</h1>
<p>Wire-compatible with the Unstructured partition API. Machine-readable description:
<a href="/general/openapi.json">/general/openapi.json</a>.</p>
<h2>POST /general/v0/general</h2>
<p>A <code>multipart/form-data</code> body with one <code>files</code> part per document and the
parameters below as text fields. API key (when the server has keys): header
<code>unstructured-api-key</code> (also <code>service-api-key</code> or
<code>Authorization: Bearer</code>).</p>
<pre>curl -s -X POST http://localhost:8000/general/v0/general \
  -H "unstructured-api-key: $KEY" \
  -F files=@report.pdf -F strategy=fast -F languages=eng</pre>
<table><thead><tr><th>parameter</th><th>type</th><th>default</th><th>description</th></tr></thead><tbody>
<tr><td><code>files</code></td><td>file, repeatable</td><td>required</td><td>the documents; <code>.gz</code> uploads are decompressed</td></tr>
{{range .}}<tr><td><code>{{.Name}}</code></td><td>{{.Type}}</td><td>{{.Default}}</td><td>{{.Help}}</td></tr>
{{end}}</tbody></table>
<h2>Other routes</h2>
<ul><li><code>GET /healthcheck</code></li><li><code>GET /metrics</code> (Prometheus)</li>
<li><code>GET /general/openapi.json</code></li></ul>
</body></html>
`))

type docsRow struct{ Name, Type, Default, Help string }

func docsPage() []byte {
	var rows []docsRow
	for _, p := range engine.Params() {
		s := paramSchema(p)
		typ := s["type"].(string)
		if p.Kind == "list" {
			typ = "list of strings"
		}
		if len(p.Choices) > 0 {
			typ = "one of " + strings.Join(p.Choices, ", ")
		}
		def := ""
		if d, ok := s["default"]; ok {
			b, _ := marshalNoEscape(d)
			def = string(b)
		}
		rows = append(rows, docsRow{p.Name, typ, def, s["description"].(string)})
	}
	var b bytes.Buffer
	if err := docsTemplate.Execute(&b, rows); err != nil {
		panic("server: docs page does not render: " + err.Error()) // static data: a bug, not input
	}
	return b.Bytes()
}
