package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/platform"
)

const narrative = "Quarterly Report\n\nThis is a short narrative paragraph about the platform and its uploads.\n"

// upload posts a multipart body: request_data (when not empty) and the files as input_files.
func (c *client) upload(path, requestData string, files map[string]string) (int, any) {
	c.t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if requestData != "" {
		mw.WriteField("request_data", requestData)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fw, _ := mw.CreateFormFile("input_files", name)
		io.WriteString(fw, files[name])
	}
	mw.Close()
	req, _ := http.NewRequest("POST", c.srv.URL+path, &buf)
	req.Header.Set("unstructured-api-key", key)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		c.t.Fatalf("POST %s: not JSON: %s", path, raw)
	}
	return resp.StatusCode, v
}

func (c *client) waitJob(id string) map[string]any {
	c.t.Helper()
	var job map[string]any
	for range 400 {
		job = c.must(200, "GET", "/api/v1/jobs/"+id, nil)
		if job["status"] != "SCHEDULED" && job["status"] != "IN_PROGRESS" {
			return job
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("job %s did not finish: %v", id, job)
	return nil
}

func TestTemplates(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	code, v := c.do("GET", "/api/v1/templates/", nil)
	list, _ := v.([]any)
	if code != 200 || len(list) < 3 {
		t.Fatalf("templates: %d %v", code, v)
	}
	for _, item := range list {
		tpl := item.(map[string]any)
		for _, k := range []string{"id", "name", "description", "nodes"} {
			if tpl[k] == nil || tpl[k] == "" {
				t.Errorf("template %v: no %s", tpl["id"], k)
			}
		}
		got := c.must(200, "GET", "/api/v1/templates/"+tpl["id"].(string), nil)
		if fmt.Sprint(got) != fmt.Sprint(tpl) {
			t.Errorf("get %v = %v, want the listed %v", tpl["id"], got, tpl)
		}
	}
	got := c.must(200, "GET", "/api/v1/templates/partition-and-chunk-by-title", nil)
	nodes := got["nodes"].([]any)
	if len(nodes) != 2 || nodes[1].(map[string]any)["subtype"] != "chunk_by_title" || nodes[0].(map[string]any)["id"] == nil {
		t.Fatalf("chunk template = %v", got)
	}
	if m := c.must(404, "GET", "/api/v1/templates/nope", nil); !strings.Contains(fmt.Sprint(m["detail"]), "nope") {
		t.Fatalf("unknown template: %v", m)
	}
}

func TestOnDemandJobs(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		dir := t.TempDir()
		_, c := open(t, dsn, dir)
		files := map[string]string{"a.txt": narrative, "b.txt": "Another Title\n\nA second document with one narrative sentence in it.\n"}

		// Validation: every problem at once, in the list form, located under request_data.
		for _, tc := range []struct {
			name, data string
			files      map[string]string
			want       []string
		}{
			{"nothing", "", nil, []string{"[body input_files]", "[body request_data]"}},
			{"bad json", "{oops", files, []string{"json_invalid", "[body request_data]"}},
			{"not an object", "[1]", files, []string{"model_attributes_type"}},
			{"neither", `{}`, files, []string{"template_id or job_nodes"}},
			{"both", `{"template_id": "fast-partition", "job_nodes": []}`, files, []string{"not both"}},
			{"bad settings", `{"job_nodes": [{"name": "p", "type": "partition", "subtype": "fast", "settings": {"strategy": "bogus"}}]}`,
				files, []string{"[body request_data job_nodes 0 settings strategy]"}},
			{"node fields", `{"job_nodes": [{"type": "partition"}]}`, files, []string{"[body request_data job_nodes 0 name]", "[body request_data job_nodes 0 subtype]"}},
			{"embed", `{"job_nodes": [{"name": "e", "type": "embed", "subtype": "x"}]}`, files, []string{"job_nodes 0 type"}},
		} {
			code, v := c.upload("/api/v1/jobs/", tc.data, tc.files)
			s := fmt.Sprint(v)
			if code != 422 {
				t.Errorf("%s: %d %v, want 422", tc.name, code, v)
				continue
			}
			for _, w := range tc.want {
				if !strings.Contains(s, w) {
					t.Errorf("%s: %v lacks %q", tc.name, v, w)
				}
			}
		}
		// The list index in a location is a number, as FastAPI gives it.
		_, v := c.upload("/api/v1/jobs", `{"job_nodes": [{"type": "partition"}]}`, files)
		if loc := v.(map[string]any)["detail"].([]any)[0].(map[string]any)["loc"].([]any); loc[3] != 0.0 {
			t.Errorf("loc = %#v", loc)
		}
		if code, v := c.upload("/api/v1/jobs", `{"template_id": "no-such-template"}`, files); code != 404 || !strings.Contains(fmt.Sprint(v), "no-such-template") {
			t.Fatalf("unknown template: %d %v", code, v)
		}
		if code, v := c.do("POST", "/api/v1/jobs", map[string]any{"template_id": "fast-partition"}); code != 422 {
			t.Fatalf("JSON body: %d %v", code, v)
		}

		// A template job: 200 with JobInformation, files listed at once, outputs downloadable.
		code, v := c.upload("/api/v1/jobs", `{"template_id": "fast-partition"}`, files)
		job, _ := v.(map[string]any)
		if code != 200 || job["job_type"] != "template" || job["workflow_name"] != "Fast partition" || len(job["input_file_ids"].([]any)) != 2 {
			t.Fatalf("template job: %d %v", code, v)
		}
		jid := job["id"].(string)
		job = c.waitJob(jid)
		outs := job["output_node_files"].([]any)
		if job["status"] != "COMPLETED" || len(outs) != 2 {
			t.Fatalf("finished template job = %v", job)
		}
		texts := ""
		for _, o := range outs {
			onf := o.(map[string]any)
			if onf["node_type"] != "partition" {
				t.Errorf("output node = %v", onf)
			}
			code, v := c.do("GET", fmt.Sprintf("/api/v1/jobs/%s/download?file_id=%s", jid, onf["file_id"]), nil)
			if code != 200 {
				t.Fatalf("download: %d %v", code, v)
			}
			for _, e := range v.([]any) {
				el := e.(map[string]any)
				texts += el["type"].(string) + ":" + el["text"].(string) + "\n"
				if md := el["metadata"].(map[string]any); md["data_source"] != nil || md["filename"] == nil {
					t.Errorf("metadata = %v", md)
				}
			}
		}
		if !strings.Contains(texts, ":Quarterly Report\n") || !strings.Contains(texts, ":A second document") {
			t.Fatalf("elements:\n%s", texts)
		}
		det := c.must(200, "GET", "/api/v1/jobs/"+jid+"/details", nil)
		if det["processing_status"] != "SUCCESS" || len(det["node_stats"].([]any)) != 2 {
			t.Fatalf("details = %v", det)
		}
		if _, err := os.Stat(filepath.Join(dir, "uploads", jid)); !os.IsNotExist(err) {
			t.Errorf("uploads of a finished job kept: %v", err)
		}

		// Job nodes: partition and chunk; a file that cannot be partitioned fails alone; the
		// same name twice is two documents.
		data := `{"name": "mine", "job_nodes": [{"name": "P", "type": "partition", "subtype": "fast"},
			{"name": "C", "type": "chunk", "subtype": "chunk_by_title", "settings": {"max_characters": 500}}]}`
		code, v = c.upload("/api/v1/jobs/", data, map[string]string{"a.txt": narrative, "bad.bin": "\x00\x01\x02\xff\x00\x09"})
		job, _ = v.(map[string]any)
		if code != 200 || job["job_type"] != "ephemeral" || job["workflow_name"] != "mine" {
			t.Fatalf("nodes job: %d %v", code, v)
		}
		jid = job["id"].(string)
		job = c.waitJob(jid)
		if job["status"] != "COMPLETED" || len(job["output_node_files"].([]any)) != 1 {
			t.Fatalf("finished nodes job = %v", job)
		}
		onf := job["output_node_files"].([]any)[0].(map[string]any)
		code, v = c.do("GET", fmt.Sprintf("/api/v1/jobs/%s/download?file_id=%s&node_id=%s", jid, onf["file_id"], onf["node_id"]), nil)
		if code != 200 || onf["node_type"] != "chunk" || !strings.Contains(fmt.Sprint(v), "CompositeElement") {
			t.Fatalf("chunked download: %d %v (%v)", code, v, onf)
		}
		ff := c.must(200, "GET", "/api/v1/jobs/"+jid+"/failed-files", nil)
		if fmt.Sprint(ff) != "map[failed_files:[map[document:bad.bin error:"+ff["failed_files"].([]any)[0].(map[string]any)["error"].(string)+"]]]" {
			t.Fatalf("failed files = %v", ff)
		}
		if list := c.must(200, "GET", "/api/v1/jobs/"+jid+"/details", nil); list["processing_status"] != "COMPLETED_WITH_ERRORS" {
			t.Fatalf("details = %v", list)
		}
	})
}

func TestWorkflowRunWithFiles(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		dir := t.TempDir()
		_, c := open(t, dsn, dir)
		out := filepath.Join(dir, "out")
		dst := c.must(200, "POST", "/api/v1/destinations", map[string]any{"name": "out", "type": "local", "config": map[string]any{"path": out}})
		wf := c.must(200, "POST", "/api/v1/workflows", map[string]any{"name": "uploads", "workflow_type": "custom", "destination_id": dst["id"]})
		wid := wf["id"].(string)
		// No source and no files: nothing to run.
		c.must(400, "POST", "/api/v1/workflows/"+wid+"/run", nil)
		code, v := c.upload("/api/v1/workflows/"+wid+"/run", "", map[string]string{"report.txt": narrative})
		job, _ := v.(map[string]any)
		if code != 202 || job["workflow_id"] != wid || job["job_type"] != "persistent" || len(job["input_file_ids"].([]any)) != 1 {
			t.Fatalf("run with files: %d %v", code, v)
		}
		job = c.waitJob(job["id"].(string))
		if job["status"] != "COMPLETED" || len(job["output_node_files"].([]any)) != 1 {
			t.Fatalf("finished = %v", job)
		}
		b, err := os.ReadFile(filepath.Join(out, "report.txt.json"))
		if err != nil || !strings.Contains(string(b), "Quarterly Report") {
			t.Fatalf("destination file: %v %s", err, b)
		}
		det := c.must(200, "GET", "/api/v1/jobs/"+job["id"].(string)+"/details", nil)
		if n := len(det["node_stats"].([]any)); n != 3 {
			t.Fatalf("node stats (source, partition, destination) = %v", det)
		}
		// A workflow without a destination keeps the output for download only.
		wf2 := c.must(200, "POST", "/api/v1/workflows", map[string]any{"name": "bare", "workflow_type": "custom"})
		code, v = c.upload("/api/v1/workflows/"+wf2["id"].(string)+"/run", "", map[string]string{"x.txt": narrative})
		if code != 202 {
			t.Fatalf("bare run: %d %v", code, v)
		}
		if job := c.waitJob(v.(map[string]any)["id"].(string)); job["status"] != "COMPLETED" {
			t.Fatalf("bare job = %v", job)
		}
	})
}

func TestWorkflowFromTemplate(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	wf := c.must(200, "POST", "/api/v1/workflows", map[string]any{"name": "t", "workflow_type": "template", "template_id": "partition-and-chunk-by-title"})
	nodes := wf["workflow_nodes"].([]any)
	if len(nodes) != 2 || nodes[1].(map[string]any)["type"] != "chunk" {
		t.Fatalf("workflow = %v", wf)
	}
	tpl := c.must(200, "GET", "/api/v1/templates/partition-and-chunk-by-title", nil)
	if nodes[0].(map[string]any)["id"] == tpl["nodes"].([]any)[0].(map[string]any)["id"] {
		t.Error("a workflow shares node ids with its template")
	}
	code, v := c.do("POST", "/api/v1/workflows", map[string]any{"name": "u", "workflow_type": "template", "template_id": "nope"})
	if code != 422 || !strings.Contains(fmt.Sprint(v), "[body template_id]") {
		t.Fatalf("unknown template: %d %v", code, v)
	}
}

func TestCancelUploadJob(t *testing.T) {
	dir := t.TempDir()
	// No workers: the job stays scheduled until cancelled.
	c, err := openNoWorkers(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	code, v := c.upload("/api/v1/jobs", `{"template_id": "fast-partition"}`, map[string]string{"a.txt": narrative})
	if code != 200 {
		t.Fatalf("create: %d %v", code, v)
	}
	jid := v.(map[string]any)["id"].(string)
	if _, err := os.Stat(filepath.Join(dir, "uploads", jid)); err != nil {
		t.Fatalf("uploads not stored: %v", err)
	}
	c.must(200, "POST", "/api/v1/jobs/"+jid+"/cancel", nil)
	if _, err := os.Stat(filepath.Join(dir, "uploads", jid)); !os.IsNotExist(err) {
		t.Errorf("uploads of a cancelled job kept: %v", err)
	}
	if j := c.must(200, "GET", "/api/v1/jobs/"+jid, nil); j["status"] != "STOPPED" {
		t.Fatalf("cancelled job = %v", j)
	}
}

// openNoWorkers serves the API of a platform that only enqueues.
func openNoWorkers(t *testing.T, dir string) (*client, error) {
	t.Helper()
	p, err := platform.Open(context.Background(), platform.Config{DataDir: dir, APIKeys: []string{key}, Workers: -1})
	if err != nil {
		return nil, err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", p.Handler())
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		srv.Close()
		p.Close(5 * time.Second)
	})
	return &client{t: t, srv: srv}, nil
}
