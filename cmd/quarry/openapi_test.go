package main

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/internal/openapi"
)

// The served OpenAPI document describes the partition and the platform API in one, validates,
// and every operation it lists answers one of its documented statuses when called once, in
// create → read → act → delete order, with ids from earlier answers.
func TestOpenAPIEveryRouteOnce(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "inbox"), 0o755)
	text, _ := os.ReadFile(docs + "fake-text.txt")
	os.WriteFile(filepath.Join(root, "inbox", "a.txt"), text, 0o644)
	rec := serve(t, "--local-root", root)
	base := strings.TrimSuffix(rec["ui"].(string), "/ui/")

	raw := get(t, base+"/openapi.json")
	if err := openapi.Validate(raw); err != nil {
		t.Fatal(err)
	}
	if general := get(t, base+"/general/openapi.json"); !bytes.Equal(general, raw) {
		t.Error("/general/openapi.json differs from /openapi.json")
	}
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string                     `json:"operationId"`
			Responses   map[string]json.RawMessage `json:"responses"`
			RequestBody *struct {
				Content map[string]json.RawMessage `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	type call struct{ method, path string }
	var calls []call
	for path, ops := range doc.Paths {
		for m := range ops {
			calls = append(calls, call{strings.ToUpper(m), path})
		}
	}
	// Creation first, reads and actions next, cancellation and deletion last.
	rank := func(c call) int {
		switch {
		case c.method == "DELETE" && strings.Contains(c.path, "workflows"):
			return 6 // before the connectors it uses
		case c.method == "DELETE":
			return 7
		case strings.HasSuffix(c.path, "/cancel"):
			return 5
		case c.method == "GET" && !strings.Contains(c.path, "{"):
			return 0
		case c.method == "POST" && !strings.Contains(c.path, "{"):
			return 1
		case c.method == "POST":
			return 2 // run, connection-check
		}
		return 3
	}
	slices.SortFunc(calls, func(a, b call) int {
		if d := rank(a) - rank(b); d != 0 {
			return d
		}
		return strings.Compare(a.path+a.method, b.path+b.method)
	})
	for _, want := range []string{"/general/v0/general", "/healthcheck", "/api/v1/sources", "/api/v1/workflows/{id}/run", "/api/v1/jobs/{id}/download"} {
		if doc.Paths[want] == nil {
			t.Errorf("the document lacks %s", want)
		}
	}

	ids := map[string]string{} // collection → an id created in it
	var jobID, fileID, nodeID string
	for _, c := range calls {
		coll := strings.Split(strings.TrimPrefix(strings.TrimPrefix(c.path, "/api/v1/"), "/"), "/")[0]
		path := c.path
		if strings.Contains(path, "{id}") {
			id := ids[coll]
			if coll == "jobs" {
				id = jobID
			}
			if id == "" {
				t.Errorf("%s %s: no %s id to call it with", c.method, c.path, coll)
				continue
			}
			path = strings.ReplaceAll(path, "{id}", id)
		}
		if strings.HasSuffix(c.path, "/download") {
			path += "?file_id=" + fileID + "&node_id=" + nodeID
		}
		var body io.Reader
		ctype := ""
		switch {
		case c.path == "/general/v0/general":
			body, ctype = multipartBody(t, map[string]string{"strategy": "fast"}, "files", "a.txt", text)
		case c.path == "/api/v1/jobs" && c.method == "POST":
			body, ctype = multipartBody(t, map[string]string{"request_data": `{"template_id":"` + ids["templates"] + `"}`}, "input_files", "a.txt", text)
		case strings.HasPrefix(c.path, "/api/v1/sources") || strings.HasPrefix(c.path, "/api/v1/destinations"):
			if c.method == "POST" && !strings.Contains(c.path, "{") || c.method == "PUT" {
				body, ctype = strings.NewReader(`{"name":"docs","type":"local","config":{"path":"inbox"}}`), "application/json"
			}
		case strings.HasPrefix(c.path, "/api/v1/workflows") && (c.method == "PUT" || c.method == "POST" && !strings.Contains(c.path, "{")):
			body, ctype = strings.NewReader(`{"name":"nightly","workflow_type":"basic","source_id":"`+ids["sources"]+`","destination_id":"`+ids["destinations"]+`"}`), "application/json"
		}
		req, _ := http.NewRequest(c.method, base+path, body)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		documented := doc.Paths[c.path][strings.ToLower(c.method)].Responses
		if _, ok := documented[strconv.Itoa(resp.StatusCode)]; !ok || resp.StatusCode >= 300 && !strings.HasSuffix(c.path, "/download") {
			t.Errorf("%s %s: %d %.200s (documented: %v)", c.method, path, resp.StatusCode, out, keys(documented))
			continue
		}
		var v any
		json.Unmarshal(out, &v)
		if m, ok := v.(map[string]any); ok {
			if id, ok := m["id"].(string); ok && c.method == "POST" && !strings.Contains(c.path, "{") {
				ids[coll] = id
			}
			if strings.HasSuffix(c.path, "/run") {
				jobID, _ = m["id"].(string)
				if files, ok := m["output_node_files"].([]any); ok && len(files) > 0 {
					f := files[0].(map[string]any)
					fileID, _ = f["file_id"].(string)
					nodeID, _ = f["node_id"].(string)
				}
			}
		}
		if list, ok := v.([]any); ok && c.path == "/api/v1/templates" && len(list) > 0 {
			ids["templates"], _ = list[0].(map[string]any)["id"].(string)
		}
	}
	// The docs page is built from the document and sends requests to the page's own host.
	page := string(get(t, base+"/docs"))
	if !strings.Contains(page, base+"/general/v0/general") || strings.Contains(page, "localhost:8000") || !strings.Contains(page, `src="/docs.js"`) {
		t.Errorf("docs page does not use the request's host:\n%.500s", page)
	}
	if js := string(get(t, base+"/docs.js")); !strings.Contains(js, `fetch("/openapi.json"`) || strings.Contains(js, "http://") || strings.Contains(js, "https://") {
		t.Error("docs.js must load the document from this server and nothing from elsewhere")
	}
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func get(t *testing.T, url string) []byte {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return b
}

func multipartBody(t *testing.T, fields map[string]string, fileField, name string, data []byte) (io.Reader, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	for k, v := range fields {
		w.WriteField(k, v)
	}
	fw, _ := w.CreateFormFile(fileField, name)
	fw.Write(data)
	w.Close()
	return &b, w.FormDataContentType()
}
