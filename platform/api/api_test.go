package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/platform"
	"github.com/quarrydocs/quarry/platform/internal/pgtest"
	"github.com/quarrydocs/quarry/platform/jobs"
	"github.com/quarrydocs/quarry/platform/store"
)

// "vault" is a test kind with secrets: a source whose config needs "url" and one of
// "password" or "token".
func init() {
	connectors.Register(connectors.Kind{
		Type:    "vault",
		Secrets: []string{"password", "token"},
		Validate: func(cfg map[string]any, _ connectors.Env) error {
			var errs []schema.FieldError
			if _, ok := cfg["url"].(string); !ok {
				errs = append(errs, schema.FieldError{Type: "missing", Loc: []string{"body", "config", "url"}, Msg: "Field required", Input: cfg})
			}
			if cfg["password"] == nil && cfg["token"] == nil {
				errs = append(errs, schema.FieldError{Type: "value_error", Loc: []string{"body", "config"}, Msg: "Value error, no form of auth", Input: cfg})
			}
			if len(errs) > 0 {
				return &schema.ValidationError{Errors: errs}
			}
			return nil
		},
		NewSource: func(cfg map[string]any, _ connectors.Env) (connectors.Source, error) {
			return nil, fmt.Errorf("vault: unreachable")
		},
	})
}

const key = "k3y"

type client struct {
	t   *testing.T
	srv *httptest.Server
}

func (c *client) do(method, path string, body any) (int, any) {
	c.t.Helper()
	var rd io.Reader
	if s, ok := body.(string); ok {
		rd = strings.NewReader(s)
	} else if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.srv.URL+path, rd)
	req.Header.Set("unstructured-api-key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			c.t.Fatalf("%s %s: not JSON: %s", method, path, raw)
		}
	}
	return resp.StatusCode, v
}

func (c *client) must(code int, method, path string, body any) map[string]any {
	c.t.Helper()
	got, v := c.do(method, path, body)
	if got != code {
		c.t.Fatalf("%s %s: %d %v, want %d", method, path, got, v, code)
	}
	m, _ := v.(map[string]any)
	return m
}

func open(t *testing.T, dsn, dir string) (*platform.Platform, *client) {
	t.Helper()
	// The data directory lives beside the local roots (dir/in, dir/out), never inside one.
	p, err := platform.Open(context.Background(), platform.Config{Database: dsn, DataDir: filepath.Join(dir, "data"), APIKeys: []string{key}, InProcess: true,
		LocalRoots: []string{filepath.Join(dir, "in"), filepath.Join(dir, "out")},
		Workers:    2, Jobs: jobs.Config{Heartbeat: 100 * time.Millisecond, PollInterval: 100 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/", p.Handler())
	srv := httptest.NewServer(mux)
	closed := false
	t.Cleanup(func() {
		srv.Close()
		if !closed {
			p.Close(5 * time.Second)
		}
	})
	return p, &client{t: t, srv: srv}
}

func eachDB(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, "") })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.DSN(t)) })
}

func TestAuthAndErrors(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	for _, h := range []http.Header{{}, {"Unstructured-Api-Key": {"bad"}}} {
		req, _ := http.NewRequest("GET", c.srv.URL+"/api/v1/sources", nil)
		req.Header = h
		resp, _ := http.DefaultClient.Do(req)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 401 || !(strings.Contains(string(b), "is invalid") || strings.Contains(string(b), "Missing API key")) || strings.Contains(string(b), "bad") {
			t.Errorf("%v: %d %s", h, resp.StatusCode, b)
		}
	}
	for _, h := range []http.Header{{"Service-Api-Key": {key}}, {"Authorization": {"Bearer " + key}}} {
		req, _ := http.NewRequest("GET", c.srv.URL+"/api/v1/sources/", nil)
		req.Header = h
		resp, _ := http.DefaultClient.Do(req)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("%v: %d", h, resp.StatusCode)
		}
	}
	if code, v := c.do("GET", "/api/v1/sources/not-a-uuid", nil); code != 422 || !strings.Contains(fmt.Sprint(v), "uuid_parsing") {
		t.Errorf("bad uuid: %d %v", code, v)
	}
	m := c.must(404, "GET", "/api/v1/jobs/6c3e4f0e-8a0b-4d3e-9f00-000000000000", nil)
	if m["detail"] != "Job not found" {
		t.Errorf("404 = %v", m)
	}
	c.must(404, "GET", "/api/v1/nowhere", nil)
	// An unknown template says which ones exist, and an empty id is visible as such.
	for _, id := range []string{"nope", "%20"} {
		m := c.must(404, "GET", "/api/v1/templates/"+id, nil)
		if d, _ := m["detail"].(string); !strings.Contains(d, "not found: use one of ") || !strings.Contains(d, `"`) {
			t.Errorf("template %q: 404 = %v", id, m)
		}
	}
	if code, v := c.do("PATCH", "/api/v1/sources", nil); code != 405 || v.(map[string]any)["detail"] != "Method Not Allowed" {
		t.Errorf("405 = %d %v", code, v)
	}
	if code, v := c.do("POST", "/api/v1/sources", "{not json"); code != 422 || !strings.Contains(fmt.Sprint(v), "json_invalid") {
		t.Errorf("bad JSON: %d %v", code, v)
	}
	// Missing fields are all reported, in the list form.
	code, v := c.do("POST", "/api/v1/sources/", map[string]any{"type": 3})
	items, _ := v.(map[string]any)["detail"].([]any)
	if code != 422 || len(items) != 3 {
		t.Fatalf("missing fields: %d %v", code, v)
	}
	first := items[0].(map[string]any)
	if first["type"] != "missing" || fmt.Sprint(first["loc"]) != "[body name]" || first["msg"] != "Field required" {
		t.Errorf("item = %v", first)
	}
	if code, v := c.do("POST", "/api/v1/sources", map[string]any{"name": "x", "type": "nope", "config": map[string]any{}}); code != 422 || !strings.Contains(fmt.Sprint(v), "'local'") {
		t.Errorf("unknown type: %d %v", code, v)
	}
	// A connector's own validation answers 422 with its locations.
	code, v = c.do("POST", "/api/v1/sources", map[string]any{"name": "x", "type": "vault", "config": map[string]any{}})
	if code != 422 || !strings.Contains(fmt.Sprint(v), "no form of auth") || !strings.Contains(fmt.Sprint(v), "[body config url]") {
		t.Errorf("connector validation: %d %v", code, v)
	}
}

func TestSecrets(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		p, c := open(t, dsn, t.TempDir())
		src := c.must(200, "POST", "/api/v1/sources", map[string]any{"name": "v", "type": "vault",
			"config": map[string]any{"url": "https://x", "password": "hunter2"}})
		cfg := src["config"].(map[string]any)
		if cfg["password"] != "**********" || cfg["token"] != nil || cfg["url"] != "https://x" {
			t.Fatalf("create answer config = %v", cfg)
		}
		if _, ok := cfg["token"]; !ok {
			t.Fatal("unset secret missing from the answer (want null)")
		}
		id := src["id"].(string)
		// At rest the secret is sealed.
		con, _ := p.Store.GetConnector(context.Background(), store.RoleSource, id)
		if s := con.Config["password"].(string); !strings.HasPrefix(s, "enc:v1:") || strings.Contains(s, "hunter2") {
			t.Fatalf("stored = %s", s)
		}
		// PUT sending the mask back keeps the secret while the target is unchanged.
		c.must(200, "PUT", "/api/v1/sources/"+id, map[string]any{"config": map[string]any{"url": "https://x", "password": "**********"}})
		con, _ = p.Store.GetConnector(context.Background(), store.RoleSource, id)
		if plain, _ := p.Secrets.OpenConfig(con.Config, []string{"password"}); plain["password"] != "hunter2" || plain["url"] != "https://x" {
			t.Fatalf("after masked PUT: %v", plain)
		}
		// The attack: retarget the connector and let the mask stand for the stored password.
		m := c.must(422, "PUT", "/api/v1/sources/"+id, map[string]any{"config": map[string]any{"url": "https://attacker.example", "password": "**********"}})
		if txt := fmt.Sprint(m); !strings.Contains(txt, "send password again") || strings.Contains(txt, "hunter2") || strings.Contains(txt, "enc:v1") {
			t.Fatalf("retarget answer = %v", m)
		}
		con, _ = p.Store.GetConnector(context.Background(), store.RoleSource, id)
		if con.Config["url"] != "https://x" {
			t.Fatalf("retargeted despite the 422: %v", con.Config)
		}
		// Sending the secret again with the new target is allowed.
		c.must(200, "PUT", "/api/v1/sources/"+id, map[string]any{"config": map[string]any{"url": "https://y", "password": "hunter2"}})
		// 422 answers never echo a secret, even when the input is the whole config.
		code, v := c.do("POST", "/api/v1/sources", map[string]any{"name": "leak", "type": "vault", "config": map[string]any{"password": "hunter3"}})
		if code != 422 || strings.Contains(fmt.Sprint(v), "hunter3") {
			t.Fatalf("422 echoes the secret: %d %v", code, v)
		}
		got := c.must(200, "PUT", "/api/v1/sources/"+id+"/", map[string]any{"config": map[string]any{"url": "https://y", "token": "t0k"}})
		if got["config"].(map[string]any)["token"] != "**********" || got["config"].(map[string]any)["password"] != nil || got["updated_at"] == nil {
			t.Fatalf("after PUT: %v", got)
		}
		code, v = c.do("GET", "/api/v1/sources?source_type=vault", nil)
		if code != 200 || len(v.([]any)) != 1 || strings.Contains(fmt.Sprint(v), "t0k") {
			t.Fatalf("list = %v", v)
		}
		// Names are unique per role.
		m = c.must(409, "POST", "/api/v1/sources", map[string]any{"name": "v", "type": "local", "config": map[string]any{"path": "."}})
		if !strings.Contains(m["detail"].(string), "already exists") {
			t.Fatalf("409 = %v", m)
		}
		c.must(200, "POST", "/api/v1/destinations", map[string]any{"name": "v", "type": "local", "config": map[string]any{"path": "."}})
		// A source that cannot be built fails its connection check.
		chk := c.must(202, "POST", "/api/v1/sources/"+id+"/connection-check", nil)
		if chk["status"] != "SCHEDULED" {
			t.Fatalf("check = %v", chk)
		}
		var last map[string]any
		for range 100 {
			last = c.must(200, "GET", "/api/v1/sources/"+id+"/connection-check", nil)
			if last["status"] != "SCHEDULED" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if last["status"] != "FAILURE" || !strings.Contains(fmt.Sprint(last["reason"]), "unreachable") || last["reported_at"] == nil {
			t.Fatalf("check = %v", last)
		}
		m = c.must(200, "DELETE", "/api/v1/sources/"+id, nil)
		if m["detail"] != "Source with id "+id+" successfully deleted." {
			t.Fatalf("delete = %v", m)
		}
		c.must(404, "GET", "/api/v1/sources/"+id, nil)
	})
}

func TestWorkflowsAndJobs(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		dir := t.TempDir()
		p, c := open(t, dsn, dir)
		in, out := filepath.Join(dir, "in"), filepath.Join(dir, "out")
		os.MkdirAll(in, 0o755)
		os.WriteFile(filepath.Join(in, "a.txt"), []byte("Hello\n\nThis is a short narrative paragraph about the platform.\n"), 0o644)
		os.WriteFile(filepath.Join(in, "b.bin"), []byte{0, 1, 2, 0xff, 0, 9}, 0o644)
		src := c.must(200, "POST", "/api/v1/sources", map[string]any{"name": "in", "type": "local", "config": map[string]any{"path": in}})
		dst := c.must(200, "POST", "/api/v1/destinations/", map[string]any{"name": "out", "type": "local", "config": map[string]any{"path": out}})
		chk := c.must(202, "POST", "/api/v1/destinations/"+dst["id"].(string)+"/connection-check", nil)
		_ = chk

		// Invalid bodies: bad type, bad schedule, bad node settings, unknown connector.
		code, v := c.do("POST", "/api/v1/workflows", map[string]any{"name": "w", "workflow_type": "weird", "schedule": "hourly",
			"source_id":      "6c3e4f0e-8a0b-4d3e-9f00-000000000000",
			"workflow_nodes": []any{map[string]any{"name": "p", "type": "partition", "subtype": "fast", "settings": map[string]any{"strategy": "bogus"}}}})
		s := fmt.Sprint(v)
		if code != 422 || !strings.Contains(s, "workflow_type") || !strings.Contains(s, "every 15 minutes") || !strings.Contains(s, "source_id") ||
			!strings.Contains(s, "[body workflow_nodes 0 settings strategy]") {
			t.Fatalf("invalid workflow: %d %v", code, v)
		}
		wf := c.must(200, "POST", "/api/v1/workflows/", map[string]any{"name": "docs", "workflow_type": "custom",
			"source_id": src["id"], "destination_id": dst["id"], "schedule": "weekly", "reprocess_all": true,
			"workflow_nodes": []any{
				map[string]any{"name": "Partitioner", "type": "partition", "subtype": "fast", "settings": map[string]any{"include_page_breaks": true}},
				map[string]any{"name": "Chunker", "type": "chunk", "subtype": "chunk_by_title", "settings": map[string]any{"max_characters": 500}},
			}})
		wid := wf["id"].(string)
		if fmt.Sprint(wf["schedule"]) != "map[crontab_entries:[map[cron_expression:0 0 * * 0]]]" || wf["status"] != "active" ||
			fmt.Sprint(wf["sources"]) != "["+src["id"].(string)+"]" || len(wf["workflow_nodes"].([]any)) != 2 {
			t.Fatalf("workflow = %v", wf)
		}
		for i := range 3 {
			c.must(200, "POST", "/api/v1/workflows", map[string]any{"name": fmt.Sprintf("extra%d", i), "workflow_type": "basic"})
		}
		code, v = c.do("GET", "/api/v1/workflows?sort_by=name&sort_direction=desc&page=1&page_size=2", nil)
		if code != 200 || len(v.([]any)) != 2 || v.([]any)[0].(map[string]any)["name"] != "extra2" {
			t.Fatalf("paging: %v", v)
		}
		code, v = c.do("GET", "/api/v1/workflows?source_id="+src["id"].(string), nil)
		if code != 200 || len(v.([]any)) != 1 {
			t.Fatalf("source filter: %v", v)
		}
		if code, _ := c.do("GET", "/api/v1/workflows?page_size=x", nil); code != 422 {
			t.Fatal("bad page_size accepted")
		}
		// Bool query parameters take pydantic's truth values: deleted workflows are removed, so
		// none is soft-deleted; a value that is not a truth value is a 422 naming the parameter.
		for q, want := range map[string]int{"show_only_soft_deleted=YES": 0, "show_only_soft_deleted=1": 0,
			"show_only_soft_deleted=off": 4, "show_recommender_workflows=true": 4} {
			code, v = c.do("GET", "/api/v1/workflows?page_size=100&"+q, nil)
			if code != 200 || len(v.([]any)) != want {
				t.Fatalf("%s: %d %v, want %d workflows", q, code, v, want)
			}
		}
		code, v = c.do("GET", "/api/v1/workflows?show_only_soft_deleted=maybe", nil)
		if s := fmt.Sprint(v); code != 422 || !strings.Contains(s, "bool_parsing") || !strings.Contains(s, "[query show_only_soft_deleted]") {
			t.Fatalf("bad bool: %d %v", code, v)
		}
		// The source is in use.
		c.must(409, "DELETE", "/api/v1/sources/"+src["id"].(string), nil)
		upd := c.must(200, "PUT", "/api/v1/workflows/"+wid, map[string]any{"schedule": nil, "name": "docs2"})
		if upd["schedule"] != nil || upd["name"] != "docs2" || len(upd["workflow_nodes"].([]any)) != 2 {
			t.Fatalf("update = %v", upd)
		}

		job := c.must(202, "POST", "/api/v1/workflows/"+wid+"/run", nil)
		jid := job["id"].(string)
		if job["workflow_id"] != wid || job["workflow_name"] != "docs2" || job["job_type"] != "persistent" {
			t.Fatalf("job = %v", job)
		}
		for range 400 {
			job = c.must(200, "GET", "/api/v1/jobs/"+jid, nil)
			if job["status"] != "SCHEDULED" && job["status"] != "IN_PROGRESS" {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if job["status"] != "COMPLETED" || job["runtime"] == nil || len(job["output_node_files"].([]any)) != 1 {
			t.Fatalf("finished job = %v", job)
		}
		prog := job["progress"].(map[string]any)
		if prog["total"] != 2.0 || prog["done"] != 2.0 || prog["failed"] != 1.0 {
			t.Fatalf("progress = %v", prog)
		}
		det := c.must(200, "GET", "/api/v1/jobs/"+jid+"/details", nil)
		if det["processing_status"] != "COMPLETED_WITH_ERRORS" || len(det["node_stats"].([]any)) != 4 {
			t.Fatalf("details = %v", det)
		}
		part := det["node_stats"].([]any)[1].(map[string]any)
		if part["node_type"] != "partition" || part["failure"] != 1.0 || part["success"] != 1.0 {
			t.Fatalf("partition node stats = %v", part)
		}
		ff := c.must(200, "GET", "/api/v1/jobs/"+jid+"/failed-files", nil)
		if fmt.Sprint(ff) == "" || len(ff["failed_files"].([]any)) != 1 || ff["failed_files"].([]any)[0].(map[string]any)["document"] != "b.bin" {
			t.Fatalf("failed files = %v", ff)
		}
		onf := job["output_node_files"].([]any)[0].(map[string]any)
		if onf["node_type"] != "chunk" {
			t.Fatalf("output node = %v", onf)
		}
		// An output is named by its source document and where the destination wrote it.
		if doc, _ := onf["document"].(string); doc == "" || onf["destination"] != out+"/"+doc+".json" {
			t.Errorf("output names: document %v, destination %v (destination folder %s)", onf["document"], onf["destination"], out)
		}
		code, v = c.do("GET", fmt.Sprintf("/api/v1/jobs/%s/download?file_id=%s&node_id=%s", jid, onf["file_id"], onf["node_id"]), nil)
		if code != 200 || !strings.Contains(fmt.Sprint(v), "CompositeElement") || !strings.Contains(fmt.Sprint(v), "data_source") {
			t.Fatalf("download: %d %v", code, v)
		}
		c.must(422, "GET", "/api/v1/jobs/"+jid+"/download", nil)
		c.must(404, "GET", "/api/v1/jobs/"+jid+"/download?file_id=nope", nil)
		if _, err := os.Stat(filepath.Join(out, "a.txt.json")); err != nil {
			t.Fatal(err)
		}
		code, v = c.do("GET", "/api/v1/jobs?workflow_id="+wid+"&status=completed", nil)
		if code != 200 || len(v.([]any)) != 1 {
			t.Fatalf("job list: %v", v)
		}
		code, v = c.do("GET", "/api/v1/jobs?status=in%20progress", nil)
		if code != 200 || len(v.([]any)) != 0 {
			t.Fatalf("status filter: %v", v)
		}
		c.must(409, "POST", "/api/v1/jobs/"+jid+"/cancel", nil)

		// Restart: everything is still there.
		p.Close(5 * time.Second)
		_, c2 := open(t, dsn, dir)
		c2.must(200, "GET", "/api/v1/workflows/"+wid, nil)
		c2.must(200, "GET", "/api/v1/sources/"+src["id"].(string), nil)
		if j := c2.must(200, "GET", "/api/v1/jobs/"+jid, nil); j["status"] != "COMPLETED" {
			t.Fatalf("after restart: %v", j)
		}
		c2.must(200, "DELETE", "/api/v1/workflows/"+wid, nil)
		c2.must(404, "POST", "/api/v1/workflows/"+wid+"/run", nil)
	})
}

func TestWrongSecretKey(t *testing.T) {
	dir := t.TempDir()
	p, err := platform.Open(context.Background(), platform.Config{DataDir: dir, Workers: -1})
	if err != nil {
		t.Fatal(err)
	}
	p.Close(time.Second)
	info, err := os.Stat(filepath.Join(dir, "secret.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", info, err)
	}
	_, err = platform.Open(context.Background(), platform.Config{DataDir: dir, Workers: -1, SecretKey: strings.Repeat("ab", 32)})
	if err == nil || !strings.Contains(err.Error(), "QUARRY_SECRET_KEY") {
		t.Fatalf("wrong key: %v", err)
	}
}

// The Azure and Confluence kinds validate through the API: bad remote_url scheme, Confluence
// auth rules, and their secrets are masked.
func TestCloudConnectorConfigs(t *testing.T) {
	_, c := open(t, "", t.TempDir())
	for _, tc := range []struct {
		typ    string
		config map[string]any
		want   string
	}{
		{"azure", map[string]any{"remote_url": "s3://bucket/x"}, "remote_url"},
		{"azure", map[string]any{}, "missing"},
		{"confluence", map[string]any{"url": "https://x.atlassian.net", "username": "u", "password": "p", "api_token": "t"}, "config"},
		{"confluence", map[string]any{"url": "https://x.atlassian.net", "username": "u", "token": "t", "cloud": true}, "config"},
	} {
		code, v := c.do("POST", "/api/v1/sources", map[string]any{"name": "n", "type": tc.typ, "config": tc.config})
		items, _ := v.(map[string]any)["detail"].([]any)
		if code != 422 || len(items) == 0 || !strings.Contains(fmt.Sprint(items), tc.want) {
			t.Errorf("%s %v: %d %v", tc.typ, tc.config, code, v)
		}
	}
	m := c.must(200, "POST", "/api/v1/sources", map[string]any{"name": "az", "type": "azure",
		"config": map[string]any{"remote_url": "az://container/prefix", "account_name": "acct", "account_key": "c2VjcmV0"}})
	cfg := m["config"].(map[string]any)
	if cfg["account_key"] != "**********" || cfg["sas_token"] != nil || cfg["connection_string"] != nil || cfg["account_name"] != "acct" ||
		cfg["recursive"] != true {
		t.Fatalf("azure config = %v", cfg)
	}
	m = c.must(200, "POST", "/api/v1/destinations", map[string]any{"name": "az", "type": "azure",
		"config": map[string]any{"remote_url": "az://out", "connection_string": "AccountName=acct;AccountKey=c2VjcmV0;EndpointSuffix=core.windows.net"}})
	if m["config"].(map[string]any)["connection_string"] != "**********" {
		t.Fatalf("azure destination = %v", m)
	}
	m = c.must(200, "POST", "/api/v1/sources", map[string]any{"name": "wiki", "type": "confluence",
		"config": map[string]any{"url": "https://x.atlassian.net", "username": "u", "api_token": "t", "cloud": true}})
	if cfg := m["config"].(map[string]any); cfg["api_token"] != "**********" || cfg["password"] != nil || cfg["token"] != nil ||
		cfg["max_num_of_spaces"] != 500.0 || cfg["max_num_of_docs_from_each_space"] != 150.0 || cfg["extract_images"] != false {
		t.Fatalf("confluence config = %v", cfg)
	}
	// Confluence is a source only.
	if code, _ := c.do("POST", "/api/v1/destinations", map[string]any{"name": "w", "type": "confluence", "config": map[string]any{}}); code != 422 {
		t.Fatalf("confluence destination accepted: %d", code)
	}
}
