package jobs

import (
	"context"
	"encoding/json"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/connectors"
	_ "github.com/quarrydocs/quarry/connectors/confluence"
	"github.com/quarrydocs/quarry/connectors/confluence/confluencetest"
	"github.com/quarrydocs/quarry/platform/store"
)

// TestConfluenceWorkflow runs workflows on a fake Confluence Cloud site and reads the elements'
// permissions_data: inherited view restrictions reach the elements, a page whose permissions
// cannot be determined fails as a file (never indexed with null permissions), an unchanged re-run
// processes nothing but that page, and a change of permissions alone re-emits the pages it
// affects with their new permissions.
func TestConfluenceWorkflow(t *testing.T) {
	ctx := context.Background()
	f := confluencetest.New(t, true)
	f.Spaces = []confluencetest.Space{{ID: 101, Key: "DEV", Perms: []map[string]any{
		confluencetest.Perm("group", "grp-staff", "read", "space"),
		confluencetest.Perm("user", "acc-alice", "read", "space"),
	}}}
	page := func(id, parent string, readUsers ...string) confluencetest.Page {
		return confluencetest.Page{ID: id, Space: "DEV", Parent: parent, Title: "Page " + id, Version: 1,
			Created: "2024-01-01T00:00:00.000Z", Modified: "2024-01-01T00:00:00.000Z",
			Body: "<p>The body of page " + id + " is a sentence of narrative text.</p>", ReadUsers: readUsers}
	}
	f.Pages = []confluencetest.Page{page("10", ""), page("20", "", "acc-bob"), page("21", "20"), page("30", "")}
	// Page 30's restrictions never come back: rate limited with a Retry-After beyond the budget.
	f.Fail("content/30/restriction", 429, "3600", -1)

	e := newEnv(t, "")
	r := e.runnerWithEnv(connectors.Env{AllowPrivateNetwork: true, LocalRoots: testEnv.LocalRoots})
	src := e.connector(store.RoleSource, "confluence", map[string]any{"url": f.SiteURL(), "cloud": true,
		"username": f.User, "api_token": f.Secret, "spaces": []any{"DEV"}})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": t.TempDir()})
	w := e.workflow(src, dst, false, partitionNode)

	run := func() (*store.Job, map[string]any) {
		t.Helper()
		j, err := r.Run(ctx, w, "ephemeral")
		if err != nil {
			t.Fatal(err)
		}
		j = e.wait(j.ID, 60*time.Second)
		files, _ := e.st.ListFiles(ctx, j.ID, store.FileSuccess)
		got := map[string]any{}
		for _, fl := range files {
			o, err := e.st.GetOutput(ctx, j.ID, fl.ID, partitionNode.ID)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := Download(o)
			var els []struct {
				Metadata struct {
					DataSource map[string]any `json:"data_source"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(b, &els); err != nil || len(els) == 0 {
				t.Fatalf("%s: elements %s (%v)", fl.DocID, b, err)
			}
			for _, el := range els {
				if !reflect.DeepEqual(el.Metadata.DataSource["permissions_data"], els[0].Metadata.DataSource["permissions_data"]) {
					t.Errorf("%s: elements disagree on permissions", fl.DocID)
				}
			}
			got[fl.DocID] = els[0].Metadata.DataSource["permissions_data"]
		}
		return j, got
	}
	readers := func(p any) string {
		read, _ := p.([]any)
		if len(read) != 3 {
			return "malformed"
		}
		m := read[0].(map[string]any)["read"].(map[string]any)
		var all []string
		for _, k := range []string{"users", "groups"} {
			for _, id := range m[k].([]any) {
				all = append(all, id.(string))
			}
		}
		sort.Strings(all)
		return strings.Join(all, ",")
	}

	j, got := run()
	if j.Status != store.JobCompleted || j.ProcessingStatus != store.ProcCompletedWithErrors {
		t.Fatalf("first run %s/%s %v", j.Status, j.ProcessingStatus, j.Message)
	}
	want := map[string]string{"DEV/10.html": "acc-alice,grp-staff", "DEV/20.html": "acc-bob", "DEV/21.html": "acc-bob"}
	if len(got) != len(want) {
		t.Fatalf("processed %v", got)
	}
	for id, w := range want {
		if r := readers(got[id]); r != w {
			t.Errorf("%s: elements' readers %q, want %q", id, r, w)
		}
	}
	failed, _ := e.st.ListFiles(ctx, j.ID, store.FileFailed)
	if len(failed) != 1 || failed[0].DocID != "DEV/30.html" || !strings.Contains(*failed[0].Error, "permissions could not be determined") {
		t.Fatalf("failed %+v", failed)
	}

	// Nothing changed: only the page without permissions is tried again.
	j, got = run()
	if c, _ := e.st.FileCounts(ctx, j.ID); c.Total() != 1 || c.Failed != 1 || j.Skipped != 3 || len(got) != 0 {
		t.Fatalf("unchanged re-run: %+v skipped %d processed %v", c, j.Skipped, got)
	}

	// A restriction added to page 20 alone (no new version) re-emits 20 and its child 21.
	f.Pages[1].ReadUsers = []string{"acc-carol"}
	j, got = run()
	if j.Skipped != 1 || len(got) != 2 || readers(got["DEV/20.html"]) != "acc-carol" || readers(got["DEV/21.html"]) != "acc-carol" {
		t.Fatalf("after a permission change: skipped %d processed %v", j.Skipped, got)
	}
}

// runnerWithEnv starts an in-process runner whose connectors get env (the Confluence fake is on
// loopback, which the default policy refuses).
func (e *env) runnerWithEnv(cenv connectors.Env) *Runner {
	e.t.Helper()
	r, err := New(context.Background(), Config{Store: e.st, Secrets: e.box, Workers: 2, Heartbeat: 100 * time.Millisecond,
		Lease: e.lease, InProcess: true, PollInterval: 100 * time.Millisecond, Env: cenv})
	if err != nil {
		e.t.Fatal(err)
	}
	if err := r.Start(context.Background()); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.Stop(ctx)
	})
	return r
}
