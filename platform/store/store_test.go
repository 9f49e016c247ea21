package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/platform/internal/pgtest"
)

// eachDB runs fn against a fresh SQLite file and a fresh PostgreSQL database.
func eachDB(t *testing.T, fn func(t *testing.T, dsn, dir string)) {
	t.Run("sqlite", func(t *testing.T) {
		dir := t.TempDir()
		fn(t, "", dir)
	})
	t.Run("postgres", func(t *testing.T) {
		fn(t, pgtest.DSN(t), t.TempDir())
	})
}

func open(t *testing.T, dsn, dir string) *Store {
	t.Helper()
	s, err := Open(context.Background(), dsn, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestStore(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn, dir string) {
		ctx := context.Background()
		s := open(t, dsn, dir)
		if dsn == "" {
			if s.Dialect() != SQLite || filepath.Base(s.where) != "quarry.db" {
				t.Fatalf("store = %s", s)
			}
		}
		now := time.Now().UTC().Truncate(time.Microsecond)
		c := &Connector{ID: "c1", Role: RoleSource, Name: "docs", Type: "local", Config: map[string]any{"path": "/x"}, CreatedAt: now}
		if err := s.CreateConnector(ctx, c); err != nil {
			t.Fatal(err)
		}
		dup := *c
		dup.ID = "c2"
		if err := s.CreateConnector(ctx, &dup); !errors.Is(err, ErrConflict) {
			t.Fatalf("duplicate name: %v", err)
		}
		dup.Role = RoleDestination // names are unique per role only
		if err := s.CreateConnector(ctx, &dup); err != nil {
			t.Fatal(err)
		}
		got, err := s.GetConnector(ctx, RoleSource, "c1")
		if err != nil || got.Name != "docs" || got.Config["path"] != "/x" || !got.CreatedAt.Equal(now) {
			t.Fatalf("get = %+v, %v", got, err)
		}
		if _, err := s.GetConnector(ctx, RoleDestination, "c1"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("wrong role: %v", err)
		}
		if err := s.UpdateConnectorConfig(ctx, RoleSource, "c1", map[string]any{"path": "/y"}, now); err != nil {
			t.Fatal(err)
		}
		list, err := s.ListConnectors(ctx, RoleSource, "local")
		if err != nil || len(list) != 1 || list[0].Config["path"] != "/y" || list[0].UpdatedAt == nil {
			t.Fatalf("list = %v, %v", list, err)
		}
		if list, _ := s.ListConnectors(ctx, RoleSource, "azure"); len(list) != 0 {
			t.Fatalf("type filter: %v", list)
		}

		src, dst := "c1", "c2"
		for i, name := range []string{"b", "a", "c"} {
			w := &Workflow{ID: "w" + name, Name: name, SourceID: &src, DestinationID: &dst, Nodes: []Node{{ID: "n", Name: "p", Type: "partition", Subtype: "fast"}},
				Status: "active", CreatedAt: now.Add(time.Duration(i) * time.Second)}
			if err := s.SaveWorkflow(ctx, w); err != nil {
				t.Fatal(err)
			}
		}
		ws, err := s.ListWorkflows(ctx, WorkflowFilter{SortBy: "name", Desc: true, Page: 1, PageSize: 2})
		if err != nil || len(ws) != 2 || ws[0].Name != "c" || ws[1].Name != "b" {
			t.Fatalf("page 1 = %v, %v", ws, err)
		}
		ws, _ = s.ListWorkflows(ctx, WorkflowFilter{SortBy: "name", Desc: true, Page: 2, PageSize: 2})
		if len(ws) != 1 || ws[0].Name != "a" {
			t.Fatalf("page 2 = %v", ws)
		}
		if used, _ := s.WorkflowsUsing(ctx, "c1"); len(used) != 3 {
			t.Fatalf("using = %v", used)
		}

		j := &Job{ID: "j1", WorkflowID: "wa", WorkflowName: "a", SourceID: src, DestinationID: dst, JobType: "ephemeral",
			Status: JobScheduled, ProcessingStatus: JobScheduled, CreatedAt: now}
		if err := s.CreateJob(ctx, j); err != nil {
			t.Fatal(err)
		}
		j2 := *j
		j2.ID = "j2"
		if err := s.CreateJob(ctx, &j2); !errors.Is(err, ErrConflict) {
			t.Fatalf("second active job: %v", err)
		}
		if ok, err := s.StartListing(ctx, "j1", "w1", now); !ok || err != nil {
			t.Fatalf("start listing: %v %v", ok, err)
		}
		ids := map[string]string{}
		for i, d := range []string{"a.txt", "b.txt", "c.txt"} {
			id, err := s.AddFile(ctx, &JobFile{ID: "f" + d, JobID: "j1", Seq: i, DocID: d, Filename: d, Version: "1", Document: []byte("{}")})
			if err != nil {
				t.Fatal(err)
			}
			ids[d] = id
		}
		if id, _ := s.AddFile(ctx, &JobFile{ID: "other", JobID: "j1", DocID: "a.txt", Document: []byte("{}")}); id != "fa.txt" {
			t.Fatalf("relisted file id = %s", id)
		}
		if err := s.FinishListing(ctx, "j1", 0, nil); err != nil {
			t.Fatal(err)
		}
		// Two workers race for one file: one wins.
		f, err := s.ClaimFile(ctx, "fa.txt", "w1", now)
		if err != nil || f == nil {
			t.Fatalf("claim: %v %v", f, err)
		}
		if f2, _ := s.ClaimFile(ctx, "fa.txt", "w2", now); f2 != nil {
			t.Fatal("file claimed twice")
		}
		if ok, err := s.FinishFile(ctx, "fa.txt", "w2", FileSuccess, nil, 1, nil, now); ok || err != nil {
			t.Fatalf("finish by non-owner: %v %v", ok, err)
		}
		if ok, err := s.FinishFile(ctx, "fa.txt", "w1", FileSuccess, nil, 3, &Output{NodeID: "n", Data: []byte{1, 2}}, now); !ok || err != nil {
			t.Fatalf("finish: %v %v", ok, err)
		}
		// w1 heart-beats; w2 claimed a file then died.
		s.Heartbeat(ctx, "w1", "h", now)
		s.Heartbeat(ctx, "w2", "h", now.Add(-time.Minute))
		s.ClaimFile(ctx, "fb.txt", "w2", now)
		s.ClaimFile(ctx, "fc.txt", "w1", now)
		orphans, err := s.ReclaimOrphans(ctx, now.Add(-10*time.Second))
		if err != nil || len(orphans) != 1 || orphans[0].FileID != "fb.txt" {
			t.Fatalf("orphans = %v, %v", orphans, err)
		}
		msg := "boom"
		s.FinishFile(ctx, "fc.txt", "w1", FileFailed, &msg, 0, nil, now)
		if st, _ := s.MaybeFinishJob(ctx, "j1", now); st != JobInProgress {
			t.Fatalf("finished with a pending file: %s", st)
		}
		s.ClaimFile(ctx, "fb.txt", "w1", now)
		s.FinishFile(ctx, "fb.txt", "w1", FileSuccess, nil, 1, nil, now)
		if st, err := s.MaybeFinishJob(ctx, "j1", now); st != JobCompleted || err != nil {
			t.Fatalf("final = %s, %v", st, err)
		}
		jj, _ := s.GetJob(ctx, "j1")
		if jj.ProcessingStatus != ProcCompletedWithErrors || jj.Message == nil {
			t.Fatalf("job = %+v", jj)
		}
		failed, _ := s.ListFiles(ctx, "j1", FileFailed)
		if len(failed) != 1 || *failed[0].Error != "boom" {
			t.Fatalf("failed = %v", failed)
		}
		out, err := s.GetOutput(ctx, "j1", "fa.txt", "")
		if err != nil || out.NodeID != "n" || len(out.Data) != 2 {
			t.Fatalf("output = %v, %v", out, err)
		}
		if _, err := s.GetOutput(ctx, "j1", "fa.txt", "zz"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("output of another node: %v", err)
		}
		// Now a new job may start.
		if err := s.CreateJob(ctx, &j2); err != nil {
			t.Fatal(err)
		}
		if ok, _ := s.CancelJob(ctx, "j2", now); !ok {
			t.Fatal("cancel")
		}
		if ok, _ := s.CancelJob(ctx, "j2", now); ok {
			t.Fatal("cancelled twice")
		}
		if v, ok, _ := s.ProcessedVersion(ctx, "wa", "a.txt"); ok {
			t.Fatalf("version %s", v)
		}
		s.RecordProcessed(ctx, "wa", "a.txt", "v1", now)
		s.RecordProcessed(ctx, "wa", "a.txt", "v2", now)
		if v, _, _ := s.ProcessedVersion(ctx, "wa", "a.txt"); v != "v2" {
			t.Fatalf("version %s", v)
		}
		if v, _ := s.PutMetaIfAbsent(ctx, "k", "1"); v != "1" {
			t.Fatal(v)
		}
		if v, _ := s.PutMetaIfAbsent(ctx, "k", "2"); v != "1" {
			t.Fatal(v)
		}
		if err := s.DeleteConnector(ctx, RoleSource, "c1"); err != nil {
			t.Fatal(err)
		}

		// Reopening keeps everything and does not re-run migrations.
		s.Close()
		s2 := open(t, dsn, dir)
		if _, err := s2.GetJob(ctx, "j1"); err != nil {
			t.Fatal(err)
		}
		if w, err := s2.GetWorkflow(ctx, "wa"); err != nil || w.Nodes[0].Subtype != "fast" {
			t.Fatal(w, err)
		}
	})
}
