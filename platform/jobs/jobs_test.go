package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riversqlite"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/connectors/local"
	"github.com/quarrydocs/quarry/platform/internal/pgtest"
	"github.com/quarrydocs/quarry/platform/secret"
	"github.com/quarrydocs/quarry/platform/store"
)

var long = flag.Bool("long", false, "run the long scale variants (2000 files)")

// testEnv lets local connectors use the test's temporary directories.
var testEnv = connectors.Env{LocalRoots: []string{os.TempDir()}}

// testKey is fixed so a re-executed worker process decrypts what the test stored.
var testKey = []byte("0123456789abcdef0123456789abcdef")

// The "testsource" kind wraps the local source with faults: a delay per file, a listing that
// fails after N documents, documents whose Open fails, and documents a victim worker process
// (TestWorkerKilled) holds: in that process only, opening one writes a file of its name into
// hold_dir and then blocks until the process dies, so the test knows for sure which files the
// victim holds when it kills it.
func init() {
	connectors.Register(connectors.Kind{
		Type: "testsource",
		NewSource: func(cfg map[string]any, env connectors.Env) (connectors.Source, error) {
			inner, err := local.NewSource(map[string]any{"path": cfg["path"]}, env)
			if err != nil {
				return nil, err
			}
			s := &faultySource{inner: inner}
			if v, ok := cfg["delay_ms"].(float64); ok {
				s.delay = time.Duration(v) * time.Millisecond
			}
			if v, ok := cfg["fail_list_after"].(float64); ok {
				s.failAfter = int(v)
			}
			s.failOpen, _ = cfg["fail_open"].(string)
			s.endless, _ = cfg["endless"].(bool)
			if hold, _ := cfg["hold"].(string); hold != "" && os.Getenv(envTestWorker) != "" {
				s.hold = strings.Split(hold, ",")
				s.holdDir, _ = cfg["hold_dir"].(string)
			}
			return s, nil
		},
	})
}

type faultySource struct {
	inner     *local.Source
	delay     time.Duration
	failAfter int
	failOpen  string
	hold      []string // document IDs this (victim) process never finishes
	holdDir   string
	endless   bool // after the folder's documents, made-up ones for ever (a hostile endpoint)
}

func (s *faultySource) List(ctx context.Context, yield func(connectors.Document) error) error {
	n := 0
	err := s.inner.List(ctx, func(d connectors.Document) error {
		if s.failAfter > 0 && n == s.failAfter {
			return errors.New("source went away")
		}
		n++
		return yield(d)
	})
	for i := 0; err == nil && s.endless; i++ {
		if err = ctx.Err(); err == nil {
			err = yield(connectors.Document{ID: fmt.Sprintf("made-up-%d.txt", i), Filename: fmt.Sprintf("made-up-%d.txt", i)})
		}
	}
	return err
}

func (s *faultySource) Open(ctx context.Context, d connectors.Document) (io.ReadCloser, error) {
	if d.ID == s.failOpen {
		return nil, errors.New("permission denied")
	}
	if slices.Contains(s.hold, d.ID) {
		if err := os.WriteFile(filepath.Join(s.holdDir, d.ID), nil, 0o644); err != nil {
			return nil, err
		}
		<-ctx.Done()
		return nil, ctx.Err()
	}
	select {
	case <-time.After(s.delay):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return s.inner.Open(ctx, d)
}

func (s *faultySource) Check(ctx context.Context) error { return s.inner.Check(ctx) }

// envTestWorker, set to a database DSN, makes the test binary a worker process on it (see
// TestMain).
const envTestWorker = "QUARRY_JOBS_TEST_WORKER"

// TestMain lets a test re-execute its own binary as a worker process (to kill it for real).
func TestMain(m *testing.M) {
	if dsn := os.Getenv(envTestWorker); dsn != "" {
		os.Exit(runWorkerProcess(dsn))
	}
	os.Exit(m.Run())
}

func runWorkerProcess(dsn string) int {
	ctx := context.Background()
	st, err := store.Open(ctx, dsn, "")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	box, _ := secret.New(testKey)
	r, err := New(ctx, Config{Store: st, Secrets: box, Workers: 4, Heartbeat: 100 * time.Millisecond, Lease: time.Second,
		InProcess: true, WorkerID: "victim", Env: testEnv})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := r.Start(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	select {} // until killed
}

type env struct {
	t     *testing.T
	lease time.Duration
	dsn   string
	st    *store.Store
	box   *secret.Box
}

func newEnv(t *testing.T, dsn string) *env {
	t.Helper()
	dir := t.TempDir()
	if dsn == "" {
		dsn = filepath.Join(dir, "quarry.db")
	}
	st, err := store.Open(context.Background(), dsn, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	box, _ := secret.New(testKey)
	return &env{t: t, dsn: dsn, st: st, box: box, lease: time.Second}
}

// runner starts a runner on its own connection to the database, like another process would.
func (e *env) runner(id string, workers int) *Runner {
	e.t.Helper()
	st := e.st
	if id != "" {
		var err error
		st, err = store.Open(context.Background(), e.dsn, "")
		if err != nil {
			e.t.Fatal(err)
		}
		e.t.Cleanup(func() { st.Close() })
	}
	r, err := New(context.Background(), Config{Store: st, Secrets: e.box, Workers: workers, WorkerID: id,
		Heartbeat: 100 * time.Millisecond, Lease: e.lease, InProcess: true, PollInterval: 100 * time.Millisecond, Env: testEnv})
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

func (e *env) connector(role store.Role, typ string, cfg map[string]any) string {
	e.t.Helper()
	id := uuid.NewString()
	if err := e.st.CreateConnector(context.Background(), &store.Connector{ID: id, Role: role, Name: id, Type: typ, Config: cfg, CreatedAt: time.Now()}); err != nil {
		e.t.Fatal(err)
	}
	return id
}

func (e *env) workflow(src, dst string, reprocess bool, nodes ...store.Node) *store.Workflow {
	e.t.Helper()
	w := &store.Workflow{ID: uuid.NewString(), Name: "wf", SourceID: &src, DestinationID: &dst, Nodes: nodes, Status: "active",
		ReprocessAll: reprocess, CreatedAt: time.Now()}
	if err := e.st.SaveWorkflow(context.Background(), w); err != nil {
		e.t.Fatal(err)
	}
	return w
}

func (e *env) wait(jobID string, timeout time.Duration) *store.Job {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		j, err := e.st.GetJob(context.Background(), jobID)
		if err != nil {
			e.t.Fatal(err)
		}
		if j.Status != store.JobScheduled && j.Status != store.JobInProgress {
			return j
		}
		time.Sleep(50 * time.Millisecond)
	}
	c, _ := e.st.FileCounts(context.Background(), jobID)
	e.t.Fatalf("job %s not finished after %v: %+v", jobID, timeout, c)
	return nil
}

func writeFiles(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		body := fmt.Sprintf("Document %d\n\nThis is the body of document number %d. It has a sentence or two of narrative text.\n", i, i)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("doc%04d.txt", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var partitionNode = store.Node{ID: uuid.NewString(), Name: "Partitioner", Type: "partition", Subtype: "fast", Settings: map[string]any{}}

func eachDB(t *testing.T, fn func(t *testing.T, dsn string)) {
	t.Run("sqlite", func(t *testing.T) { fn(t, "") })
	t.Run("postgres", func(t *testing.T) { fn(t, pgtest.DSN(t)) })
}

func TestRunWorkflow(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		e := newEnv(t, dsn)
		r := e.runner("", 2)
		in, out := t.TempDir(), t.TempDir()
		writeFiles(t, in, 3)
		os.WriteFile(filepath.Join(in, "blob.bin"), []byte{0, 1, 2, 3, 0xff, 0xfe, 0, 0, 7}, 0o644)
		src := e.connector(store.RoleSource, "local", map[string]any{"path": in})
		dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
		chunk := store.Node{ID: uuid.NewString(), Name: "Chunker", Type: "chunk", Subtype: "chunk_by_character", Settings: map[string]any{"max_characters": 40.0, "include_orig_elements": false}}
		w := e.workflow(src, dst, false, partitionNode, chunk)

		j, err := r.Run(ctx, w, "ephemeral")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := r.Run(ctx, w, "ephemeral"); !errors.Is(err, ErrActive) {
			t.Fatalf("second run while active: %v", err)
		}
		j = e.wait(j.ID, 30*time.Second)
		if j.Status != store.JobCompleted || j.ProcessingStatus != store.ProcCompletedWithErrors {
			t.Fatalf("job = %s/%s %v", j.Status, j.ProcessingStatus, j.Message)
		}
		failed, _ := e.st.ListFiles(ctx, j.ID, store.FileFailed)
		if len(failed) != 1 || failed[0].DocID != "blob.bin" || !strings.Contains(*failed[0].Error, "not supported") {
			t.Fatalf("failed = %+v", failed)
		}
		data, err := os.ReadFile(filepath.Join(out, "doc0001.txt.json"))
		if err != nil {
			t.Fatal(err)
		}
		var els []map[string]any
		json.Unmarshal(data, &els)
		if len(els) < 2 || els[0]["type"] != "CompositeElement" {
			t.Fatalf("elements = %s", data)
		}
		md := els[0]["metadata"].(map[string]any)
		ds, _ := md["data_source"].(map[string]any)
		if ds == nil || ds["version"] == nil || md["filename"] != "doc0001.txt" {
			t.Fatalf("metadata = %v", md)
		}
		if !strings.HasPrefix(string(data), `[{"type":"CompositeElement"`) || !strings.Contains(string(data), `"data_source":{"url":`) {
			t.Fatalf("JSON shape: %.200s", data)
		}
		files, _ := e.st.ListFiles(ctx, j.ID, store.FileSuccess)
		o, err := e.st.GetOutput(ctx, j.ID, files[0].ID, chunk.ID)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := Download(o); !json.Valid(b) || !strings.Contains(string(b), "CompositeElement") {
			t.Fatalf("download = %s", b)
		}

		// Nothing changed: the next run (reprocess_all false) skips every processed file; the
		// failed one is tried again.
		j2, err := r.Run(ctx, w, "ephemeral")
		if err != nil {
			t.Fatal(err)
		}
		j2 = e.wait(j2.ID, 30*time.Second)
		if c, _ := e.st.FileCounts(ctx, j2.ID); c.Total() != 1 || j2.Skipped != 3 || j2.Status != store.JobFailed {
			t.Fatalf("incremental run: %+v skipped %d status %s", c, j2.Skipped, j2.Status)
		}
		// A changed file is processed again.
		os.Remove(filepath.Join(in, "blob.bin"))
		time.Sleep(10 * time.Millisecond)
		os.WriteFile(filepath.Join(in, "doc0002.txt"), []byte("Changed\n\nNew narrative text for this document, changed.\n"), 0o644)
		j3, _ := r.Run(ctx, w, "ephemeral")
		j3 = e.wait(j3.ID, 30*time.Second)
		if c, _ := e.st.FileCounts(ctx, j3.ID); c.Total() != 1 || c.Success != 1 || j3.Status != store.JobCompleted || j3.ProcessingStatus != store.ProcSuccess {
			t.Fatalf("changed-file run: %+v %s/%s", c, j3.Status, j3.ProcessingStatus)
		}
	})
}

func TestFailingSource(t *testing.T) {
	eachDB(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		e := newEnv(t, dsn)
		r := e.runner("", 2)
		in, out := t.TempDir(), t.TempDir()
		writeFiles(t, in, 10)
		// The listing breaks after 6 documents, and one document cannot be read.
		src := e.connector(store.RoleSource, "testsource", map[string]any{"path": in, "fail_list_after": 6.0, "fail_open": "doc0002.txt"})
		dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
		w := e.workflow(src, dst, true, partitionNode)
		j, _ := r.Run(ctx, w, "ephemeral")
		j = e.wait(j.ID, 30*time.Second)
		if j.Status != store.JobFailed || j.Message == nil || !strings.Contains(*j.Message, "source went away") {
			t.Fatalf("job = %s %v", j.Status, j.Message)
		}
		c, _ := e.st.FileCounts(ctx, j.ID)
		failed, _ := e.st.ListFiles(ctx, j.ID, store.FileFailed)
		if c.Success != 5 || len(failed) != 1 || failed[0].DocID != "doc0002.txt" || !strings.Contains(*failed[0].Error, "permission denied") {
			t.Fatalf("counts %+v failed %v", c, failed)
		}
		// A source that cannot be opened at all fails the job at once.
		bad := e.connector(store.RoleSource, "local", map[string]any{"path": 7.0})
		w2 := e.workflow(bad, dst, true, partitionNode)
		j2, _ := r.Run(ctx, w2, "ephemeral")
		if j2 = e.wait(j2.ID, 30*time.Second); j2.Status != store.JobFailed || !strings.Contains(*j2.Message, "cannot open the source") {
			t.Fatalf("job = %s %v", j2.Status, j2.Message)
		}
	})
}

func TestCancel(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "")
	r := e.runner("", 1)
	in, out := t.TempDir(), t.TempDir()
	writeFiles(t, in, 20)
	src := e.connector(store.RoleSource, "testsource", map[string]any{"path": in, "delay_ms": 100.0})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
	w := e.workflow(src, dst, true, partitionNode)
	j, _ := r.Run(ctx, w, "ephemeral")
	for {
		if c, _ := e.st.FileCounts(ctx, j.ID); c.Success > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if ok, err := e.st.CancelJob(ctx, j.ID, time.Now()); !ok || err != nil {
		t.Fatal(ok, err)
	}
	time.Sleep(300 * time.Millisecond)
	j, _ = e.st.GetJob(ctx, j.ID)
	c, _ := e.st.FileCounts(ctx, j.ID)
	if j.Status != store.JobStopped || c.Cancelled == 0 || c.Pending+c.InProgress != 0 {
		t.Fatalf("after cancel: %s %+v", j.Status, c)
	}
}

// TestScaleTwoWorkers: two workers on one queue (PostgreSQL, and SQLite shared by two
// connections as two processes would) process a 200-file job; every file is processed exactly
// once and both workers take part.
func TestScaleTwoWorkers(t *testing.T) {
	eachDB(t, scaleTwoWorkers)
}

func scaleTwoWorkers(t *testing.T, dsn string) {
	ctx := context.Background()
	e := newEnv(t, dsn)
	// A realistic lease: with a one-second lease, a heartbeat queued behind a busy SQLite
	// writer can look like a dead worker and a file gets processed twice (still counted once).
	e.lease = 10 * time.Second
	n := 200
	if *long {
		n = 2000
	}
	in, out := t.TempDir(), t.TempDir()
	writeFiles(t, in, n)
	src := e.connector(store.RoleSource, "testsource", map[string]any{"path": in, "delay_ms": 5.0})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
	w := e.workflow(src, dst, true, partitionNode)
	a := e.runner("worker-a", 4)
	e.runner("worker-b", 4)
	start := time.Now()
	j, err := a.Run(ctx, w, "ephemeral")
	if err != nil {
		t.Fatal(err)
	}
	j = e.wait(j.ID, 5*time.Minute)
	files, _ := e.st.ListFiles(ctx, j.ID, "")
	by := map[string]int{}
	for _, f := range files {
		if f.State != store.FileSuccess || f.Attempts != 1 {
			t.Errorf("%s: state %s attempts %d", f.DocID, f.State, f.Attempts)
		}
		by[*f.WorkerID]++
	}
	outs, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if j.Status != store.JobCompleted || len(files) != n || len(outs) != n || by["worker-a"] == 0 || by["worker-b"] == 0 {
		t.Fatalf("job %s files %d outputs %d by worker %v", j.Status, len(files), len(outs), by)
	}
	t.Logf("%d files in %v, by worker %v", n, time.Since(start).Round(time.Millisecond), by)
}

// TestWorkerKilled: a worker process is killed (SIGKILL) while it holds files; the other worker
// gets them back after the lease and the job completes with every file processed exactly once.
// The victim is made to hold two given files (its source blocks on them, in that process only)
// and is killed only once the store shows it holds both and has finished another, so the test
// does not depend on where the victim happens to be when the signal lands.
func TestWorkerKilled(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, pgtest.DSN(t))
	in, out, holdDir := t.TempDir(), t.TempDir(), t.TempDir()
	const n = 40
	writeFiles(t, in, n)
	held := []string{"doc0003.txt", "doc0017.txt"}
	src := e.connector(store.RoleSource, "testsource", map[string]any{"path": in, "delay_ms": 20.0,
		"hold": strings.Join(held, ","), "hold_dir": holdDir})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
	w := e.workflow(src, dst, true, partitionNode)

	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envTestWorker+"="+e.dsn)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Only the victim works at first, so every file it takes is its own.
	enq, err := New(ctx, Config{Store: e.st, Secrets: e.box, Workers: -1, Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	j, err := enq.Run(ctx, w, "ephemeral")
	if err != nil {
		t.Fatal(err)
	}
	holds := func() bool {
		files, err := e.st.ListFiles(ctx, j.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		holding, done := 0, 0
		for _, f := range files {
			switch {
			case f.WorkerID == nil || *f.WorkerID != "victim":
			case f.State == store.FileInProgress && slices.Contains(held, f.DocID):
				if _, err := os.Stat(filepath.Join(holdDir, f.DocID)); err == nil {
					holding++
				}
			case f.State == store.FileSuccess:
				done++
			}
		}
		return holding == len(held) && done > 0
	}
	deadline := time.Now().Add(2 * time.Minute)
	for !holds() {
		if time.Now().After(deadline) {
			t.Fatal("the victim worker never held its files")
		}
		time.Sleep(20 * time.Millisecond)
	}
	doneByVictim := map[string]bool{}
	files, _ := e.st.ListFiles(ctx, j.ID, store.FileSuccess)
	for _, f := range files {
		doneByVictim[f.DocID] = true
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	e.runner("survivor", 4)
	j = e.wait(j.ID, 2*time.Minute)
	files, _ = e.st.ListFiles(ctx, j.ID, "")
	retried := 0
	for _, f := range files {
		if f.State != store.FileSuccess {
			t.Errorf("%s: %s %v", f.DocID, f.State, f.Error)
			continue
		}
		switch {
		case slices.Contains(held, f.DocID):
			// Claimed by the victim (attempt 1), given back, finished by the survivor.
			if f.Attempts != 2 || *f.WorkerID != "survivor" {
				t.Errorf("held %s: attempts %d by %s, want 2 by survivor", f.DocID, f.Attempts, *f.WorkerID)
			}
			retried++
		case doneByVictim[f.DocID]:
			// Finished before the kill: never processed again.
			if f.Attempts != 1 || *f.WorkerID != "victim" {
				t.Errorf("%s done by the victim: attempts %d by %s now", f.DocID, f.Attempts, *f.WorkerID)
			}
		case f.Attempts > 1 && *f.WorkerID != "survivor":
			t.Errorf("%s retried by %s", f.DocID, *f.WorkerID)
		}
	}
	outs, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if j.Status != store.JobCompleted || len(files) != n || len(outs) != n || retried != len(held) {
		t.Fatalf("job %s files %d outputs %d held files retried %d", j.Status, len(files), len(outs), retried)
	}
}

// TestDeadBeforeClaim: a process that took a file's task from the queue and stopped before
// claiming the file (River marks a task running when it hands it out, and rescues it only after
// an hour) does not hold the job up: once its heartbeat is older than the lease, a live worker's
// sweeper gives the task back and the job completes.
func TestDeadBeforeClaim(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "")
	in, out := t.TempDir(), t.TempDir()
	writeFiles(t, in, 3)
	src := e.connector(store.RoleSource, "local", map[string]any{"path": in})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
	w := e.workflow(src, dst, true, partitionNode)

	// The ghost lists the source with the real code, then takes one file task and freezes.
	gst, err := store.Open(ctx, e.dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { gst.Close() })
	lister, err := New(ctx, Config{Store: gst, Secrets: e.box, Workers: -1, WorkerID: "ghost", Env: testEnv})
	if err != nil {
		t.Fatal(err)
	}
	taken, freeze := make(chan string, 1), make(chan struct{})
	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(lister.workList))
	river.AddWorker(workers, river.WorkFunc(func(ctx context.Context, j *river.Job[fileArgs]) error {
		taken <- j.Args.FileID
		<-freeze
		return nil
	}))
	ghost, err := river.NewClient(riversqlite.New(gst.DB()), &river.Config{ID: "ghost", Workers: workers,
		FetchPollInterval: 100 * time.Millisecond, Queues: map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := gst.Heartbeat(ctx, "ghost", "host", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := ghost.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		close(freeze)
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		ghost.Stop(sctx)
	})
	j, err := lister.Run(ctx, w, "ephemeral")
	if err != nil {
		t.Fatal(err)
	}
	var frozen string
	select {
	case frozen = <-taken:
	case <-time.After(30 * time.Second):
		t.Fatal("the ghost never took a file task")
	}

	e.runner("survivor", 2)
	j = e.wait(j.ID, 30*time.Second)
	files, _ := e.st.ListFiles(ctx, j.ID, "")
	outs, _ := filepath.Glob(filepath.Join(out, "*.json"))
	if j.Status != store.JobCompleted || len(files) != 3 || len(outs) != 3 {
		t.Fatalf("job %s files %d outputs %d", j.Status, len(files), len(outs))
	}
	for _, f := range files {
		if f.ID == frozen && (f.WorkerID == nil || *f.WorkerID != "survivor") {
			t.Errorf("the frozen task's file was finished by %v", f.WorkerID)
		}
	}
}

// TestSchedule: a due workflow starts one scheduled job, even when two runners tick at once,
// and its next run moves to the schedule's next time.
func TestSchedule(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "")
	a, b := e.runner("", 1), e.runner("other", -1)
	in, out := t.TempDir(), t.TempDir()
	writeFiles(t, in, 1)
	src := e.connector(store.RoleSource, "local", map[string]any{"path": in})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
	w := e.workflow(src, dst, true, partitionNode)
	cron := "0 * * * *"
	past := time.Now().Add(-time.Minute).UTC().Truncate(time.Microsecond)
	w.Schedule, w.NextRunAt = &cron, &past
	e.st.SaveWorkflow(ctx, w)
	a.tick(ctx)
	b.tick(ctx)
	jobs, _ := e.st.ListJobs(ctx, w.ID, "")
	if len(jobs) != 1 || jobs[0].JobType != "scheduled" {
		t.Fatalf("jobs = %v", jobs)
	}
	if j := e.wait(jobs[0].ID, 30*time.Second); j.Status != store.JobCompleted {
		t.Fatalf("scheduled job %s", j.Status)
	}
	got, _ := e.st.GetWorkflow(ctx, w.ID)
	if !got.NextRunAt.After(time.Now()) || got.NextRunAt.Minute() != 0 {
		t.Fatalf("next run %v", got.NextRunAt)
	}
}

func TestOptionsFromNodes(t *testing.T) {
	opts, err := Options([]store.Node{
		{Type: "partition", Subtype: "hi_res", Settings: map[string]any{"include_page_breaks": true, "languages": []any{"eng", "deu"}}},
		{Type: "chunk", Subtype: "chunk_by_title", Settings: map[string]any{"max_characters": 300.0, "overlap": 10.0}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Strategy != "hi_res" || !opts.IncludePageBreaks || len(opts.Languages) != 2 || opts.Chunking.Strategy != "by_title" ||
		opts.Chunking.MaxCharacters == nil || *opts.Chunking.MaxCharacters != 300 || opts.Chunking.Overlap != 10 {
		t.Fatalf("opts = %+v", opts)
	}
	for _, nodes := range [][]store.Node{
		{{Type: "embed", Subtype: "openai"}},
		{{Type: "chunk", Subtype: "chunk_by_magic"}},
		{{Type: "partition", Subtype: "fast", Settings: map[string]any{"starting_page_number": "x"}}},
		{{Type: "chunk", Subtype: "basic"}, {Type: "partition", Subtype: "fast"}},
	} {
		if _, err := Options(nodes); err == nil {
			t.Errorf("%v accepted", nodes)
		}
	}
	ds, _ := DataSourceJSON(map[string]any{"zeta": 1, "filesize_bytes": 3, "url": "u", "record_locator": map[string]any{"a": 1}})
	if string(ds) != `{"url":"u","record_locator":{"a":1},"filesize_bytes":3,"zeta":1}` {
		t.Fatalf("data_source = %s", ds)
	}
}

// A source whose listing never ends — an endpoint the connector's user runs (an Azure
// BlobEndpoint or service URL answering NextMarker for ever) — made its job list for as long as
// the listing task ran (30 min, then retried), adding a row per made-up document. A job now
// lists at most Config.MaxListedFiles documents and fails past it, naming the limit; the
// documents listed before it are processed.
func TestAttackEndlessListingBounded(t *testing.T) {
	ctx := context.Background()
	e := newEnv(t, "")
	r, err := New(ctx, Config{Store: e.st, Secrets: e.box, Workers: 2, Heartbeat: 100 * time.Millisecond, Lease: e.lease,
		InProcess: true, PollInterval: 100 * time.Millisecond, Env: testEnv, MaxListedFiles: 40})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r.Stop(sctx)
	})
	in, out := t.TempDir(), t.TempDir()
	writeFiles(t, in, 3)
	src := e.connector(store.RoleSource, "testsource", map[string]any{"path": in, "endless": true})
	dst := e.connector(store.RoleDestination, "local", map[string]any{"path": out})
	j, err := r.Run(ctx, e.workflow(src, dst, true, partitionNode), "ephemeral")
	if err != nil {
		t.Fatal(err)
	}
	j = e.wait(j.ID, 60*time.Second)
	if j.Status != store.JobFailed || j.Message == nil || !strings.Contains(*j.Message, "more than 40 documents") {
		t.Fatalf("job = %s %v", j.Status, j.Message)
	}
	c, _ := e.st.FileCounts(ctx, j.ID)
	if total := c.Success + c.Failed; total != 40 || c.Success != 3 {
		t.Errorf("counts %+v, want the 40 listed documents processed (3 real)", c)
	}
}

// Workers reports the resolved count (start-up logs it): 0 asks for one per CPU, not none.
func TestWorkersResolved(t *testing.T) {
	e := newEnv(t, "")
	for asked, want := range map[int]int{0: runtime.GOMAXPROCS(0), 3: 3, -1: 0} {
		r, err := New(context.Background(), Config{Store: e.st, Secrets: e.box, Workers: asked, Env: testEnv})
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Workers(); got != want {
			t.Errorf("Workers: %d → %d, want %d", asked, got, want)
		}
	}
}
