package server

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"html/template"
	"net/http"
	"strings"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/internal/openapi"
)

// paramSchema is the OpenAPI schema of one form parameter, derived from partitionapi.Params so the
// document cannot drift from what the server parses.
func paramSchema(p partitionapi.Param) map[string]any {
	s := map[string]any{"description": p.Help}
	switch p.Kind {
	case partitionapi.StrictBool:
		s["type"] = "boolean"
	case partitionapi.LenientBool:
		s["type"] = "boolean"
		s["description"] = p.Help + " (only the text \"true\", any case, is true)"
	case partitionapi.Int:
		s["type"] = "integer"
	case partitionapi.Float:
		s["type"] = "number"
	case partitionapi.List:
		s["type"] = "array"
		s["items"] = map[string]any{"type": "string"}
		s["description"] = p.Help + " (repeated fields, name[] fields, a JSON array or a +-joined value)"
	case partitionapi.Literal:
		s["type"] = "string"
		s["enum"] = p.Choices
	default:
		s["type"] = "string"
	}
	if d, ok := p.Default(); ok {
		s["default"] = d
	}
	return s
}

func detailSchema(desc string) map[string]any {
	return map[string]any{
		"description": desc,
		"content": map[string]any{"application/json": map[string]any{
			"schema": map[string]any{"$ref": "#/components/schemas/Error"},
		}},
	}
}

// openAPIDocument builds the OpenAPI 3.1 description of the partition API, then lets each
// extension add its operations (the platform API adds its own from its route table).
func openAPIDocument(extensions ...func(paths map[string]any, c openapi.Components)) []byte {
	props := map[string]any{
		"files": map[string]any{
			"type":        "array",
			"items":       map[string]any{"type": "string", "format": "binary"},
			"description": "The documents to partition (one part per file). A .gz file is decompressed first.",
		},
	}
	for _, p := range partitionapi.All() {
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
			"429": detailSchema("Too many invalid API keys from this address; retry after the Retry-After delay"),
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
			"title":       "Quarry API",
			"version":     "0.1.0",
			"description": "Turns documents into typed elements; wire-compatible with the Unstructured partition API (/general/v0/general) and, under /api/v1, the Unstructured platform API (connectors, workflows, jobs).",
		},
		"paths": map[string]any{
			"/general/v0/general": map[string]any{"post": partition},
			"/healthcheck": map[string]any{"get": map[string]any{
				"operationId": "healthcheck",
				"summary":     "Health check",
				"tags":        []string{"general"},
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
	paths := doc["paths"].(map[string]any)
	schemas := openapi.Components(doc["components"].(map[string]any)["schemas"].(map[string]any))
	for _, add := range extensions {
		add(paths, schemas)
	}
	b, err := marshalNoEscape(doc)
	if err != nil {
		panic("server: OpenAPI document does not encode: " + err.Error()) // static data: a bug, not input
	}
	return b
}

// DescribeAPI adds operations served beside the partition API (mounted with Mount) to the
// OpenAPI document at /openapi.json and the docs page. Call it before serving.
func (s *Server) DescribeAPI(add func(paths map[string]any, c openapi.Components)) {
	s.describe = append(s.describe, add)
	s.openapi = openAPIDocument(s.describe...)
}

//go:embed docs.html
var docsHTML string

//go:embed docs.js
var docsJS []byte

var docsTemplate = template.Must(template.New("docs").Parse(docsHTML))

// docsCSP lets the docs page run only its own script and its one inline style block (by hash):
// the page keeps the API key in the browser, so a script slipped into it by any means (an
// answer shown, a crafted Host) must not run.
var docsCSP = func() string {
	_, rest, ok1 := strings.Cut(docsHTML, "<style>")
	css, _, ok2 := strings.Cut(rest, "</style>")
	if !ok1 || !ok2 {
		panic("server: docs.html has no <style> block")
	}
	sum := sha256.Sum256([]byte(css))
	return "default-src 'self'; script-src 'self'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) +
		"'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
}()

type docsRow struct{ Name, Type, Default, Help string }

type docsData struct {
	Base string
	Home string // the web UI, when this server has one
	Rows []docsRow
}

// docsRows lists the partition parameters for the docs page's table.
func docsRows() []docsRow {
	var rows []docsRow
	for _, p := range partitionapi.All() {
		s := paramSchema(p)
		typ := s["type"].(string)
		if p.Kind == partitionapi.List {
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
	return rows
}

// docsPage renders the docs page for a request: its examples use the address the browser
// used to reach the server, never a fixed localhost:8000.
func (s *Server) docsPage(r *http.Request) []byte {
	scheme := "http"
	if r.TLS != nil || strings.EqualFold(r.Header.Get("X-Forwarded-Proto"), "https") {
		scheme = "https"
	}
	host := r.Host
	if host == "" {
		host = "localhost"
	}
	var b bytes.Buffer
	if err := docsTemplate.Execute(&b, docsData{Base: scheme + "://" + host, Home: s.home, Rows: s.docRows}); err != nil {
		panic("server: docs page does not render: " + err.Error()) // static data: a bug, not input
	}
	return b.Bytes()
}

func (s *Server) handleDocsJS(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		methodNotAllowed(w, "GET, HEAD")
		return
	}
	w.Header().Set("Content-Type", "text/javascript; charset=utf-8")
	w.Write(docsJS)
}
