// Package jobs runs workflows on River (github.com/riverqueue/river), on the same database as
// the platform store: SQLite through River's SQLite driver, PostgreSQL through its pgx driver.
//
// A run creates a job row and enqueues a listing task. The listing task lists the source, records
// one row per document (skipping unchanged versions when reprocess_all is false) and enqueues
// one file task per document, so any number of worker processes share a job's files. A file
// task claims its row (a conditional update, so one worker processes a file at a time), reads
// the document, partitions and chunks it with the engine, writes the elements to the
// destination and records the outcome; the last file to finish sets the job's final status.
// Every worker process heart-beats; the files and listings held by a process that stopped
// heart-beating (killed, crashed, lost) are given back and enqueued again, so they are picked up
// by the others within the lease.
package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/platform/schedule"
	"github.com/quarrydocs/quarry/platform/secret"
	"github.com/quarrydocs/quarry/platform/store"
)

// DefaultMaxElements is the per-file element cap of job workers, as the partition API's.
const DefaultMaxElements = 100_000

// defaultMaxListedFiles is Config.MaxListedFiles's default.
const defaultMaxListedFiles = 1_000_000

// defaultMaxOutputBytes is Config.MaxOutputBytes's default, the partition API's answer limit.
const defaultMaxOutputBytes = 256 << 20

// Config configures a Runner.
type Config struct {
	Store   *store.Store
	Secrets *secret.Box
	Logger  *slog.Logger
	// Workers is how many files this process partitions at once; 0 means GOMAXPROCS. Negative
	// means this process only enqueues (an API server whose work is done by `quarry worker`s).
	Workers int
	// WorkerID names this process in the workers table; default: host-pid-random.
	WorkerID string
	// Heartbeat is how often this process records that it is alive (default 2 s); Lease is how
	// long a silent process keeps its files before they are given to others (default 30 s).
	Heartbeat, Lease time.Duration
	// PollInterval is how often idle workers look for new tasks (default 1 s on Postgres, where
	// LISTEN/NOTIFY wakes them sooner, and 250 ms on SQLite, which has no notifications).
	PollInterval time.Duration
	// ScheduleInterval is how often schedules are checked (default 30 s).
	ScheduleInterval time.Duration
	// FileTimeout bounds the processing of one file (default 30 min).
	FileTimeout time.Duration
	// InProcess runs pure-Go partition strategies in this process (engine.Options.InProcess).
	InProcess bool
	// MaxElements caps the elements one file may produce (engine.Options.MaxElements); 0 =
	// DefaultMaxElements, negative = no cap.
	MaxElements int
	// MaxOutputBytes caps the encoded elements of one file (default 256 MiB): past it the file
	// fails instead of being encoded again by the destination and stored.
	MaxOutputBytes int
	// MaxPendingUploadBytes caps the bytes of uploaded files waiting in UploadDir for their
	// jobs, all jobs together (default 8 GiB): past it RunUploads refuses with ErrUploadsFull.
	// Each request may upload 1 GiB and its files stay until its job ends, so without a cap
	// one client filled the disk by starting jobs faster than workers finish them.
	MaxPendingUploadBytes int64
	// MaxListedFiles caps the documents one job lists (default 1,000,000; negative = no cap):
	// past it the listing stops and the job fails, naming the limit, after processing those
	// listed. A source's endpoint is chosen by the connector's user, and one that answers a
	// next page for ever kept a job listing (and adding rows) until its task timed out, then
	// again on every retry.
	MaxListedFiles int
	// UploadDir holds the files uploaded to on-demand jobs and workflow runs until their job
	// ends; empty refuses uploads. Workers of such jobs must see the same directory.
	UploadDir string
	// Env is the operator's policy handed to every connector built (local roots, private
	// network).
	Env connectors.Env
}

// Runner enqueues and (unless configured not to) works jobs.
type Runner struct {
	cfg   Config
	st    *store.Store
	log   *slog.Logger
	q     queue
	host  string
	works bool

	mu      sync.Mutex
	cancel  context.CancelFunc
	loops   sync.WaitGroup
	started bool
}

// Task kinds on the River queue.
type (
	listArgs struct {
		JobID string `json:"job_id"`
	}
	fileArgs struct {
		JobID  string `json:"job_id"`
		FileID string `json:"file_id"`
	}
	checkArgs struct {
		CheckID     string `json:"check_id"`
		ConnectorID string `json:"connector_id"`
		Role        string `json:"role"`
	}
)

func (listArgs) Kind() string  { return "quarry_list" }
func (fileArgs) Kind() string  { return "quarry_file" }
func (checkArgs) Kind() string { return "quarry_connection_check" }

// New prepares a runner: it applies River's migrations and builds the River client.
func New(ctx context.Context, cfg Config) (*Runner, error) {
	if cfg.Store == nil || cfg.Secrets == nil {
		return nil, errors.New("jobs: Store and Secrets are required")
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Heartbeat <= 0 {
		cfg.Heartbeat = 2 * time.Second
	}
	switch {
	case cfg.MaxElements == 0:
		cfg.MaxElements = DefaultMaxElements
	case cfg.MaxElements < 0:
		cfg.MaxElements = 0
	}
	if cfg.MaxPendingUploadBytes <= 0 {
		cfg.MaxPendingUploadBytes = 8 << 30
	}
	if cfg.MaxListedFiles == 0 {
		cfg.MaxListedFiles = defaultMaxListedFiles
	}
	if cfg.MaxOutputBytes <= 0 {
		cfg.MaxOutputBytes = defaultMaxOutputBytes
	}
	if cfg.Lease <= 0 {
		cfg.Lease = 30 * time.Second
	}
	if cfg.Lease < 3*cfg.Heartbeat {
		cfg.Lease = 3 * cfg.Heartbeat
	}
	if cfg.ScheduleInterval <= 0 {
		cfg.ScheduleInterval = 30 * time.Second
	}
	if cfg.FileTimeout <= 0 {
		cfg.FileTimeout = 30 * time.Minute
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = time.Second
		if cfg.Store.Dialect() == store.SQLite {
			cfg.PollInterval = 250 * time.Millisecond
		}
	}
	host, _ := os.Hostname()
	if cfg.WorkerID == "" {
		cfg.WorkerID = fmt.Sprintf("%s-%d-%s", host, os.Getpid(), uuid.NewString()[:8])
	}
	r := &Runner{cfg: cfg, st: cfg.Store, log: cfg.Logger.With("worker", cfg.WorkerID), host: host, works: cfg.Workers > 0}

	workers := river.NewWorkers()
	river.AddWorker(workers, river.WorkFunc(r.workList))
	river.AddWorker(workers, river.WorkFunc(r.workFile))
	river.AddWorker(workers, river.WorkFunc(r.workCheck))
	rc := &river.Config{
		ID:                cfg.WorkerID,
		Logger:            slog.New(warnAndAbove{cfg.Logger.Handler()}).WithGroup("river"),
		Workers:           workers,
		FetchPollInterval: cfg.PollInterval,
		// River fetches at most once per cooldown, up to the free worker slots; its 100 ms
		// default caps a 4-slot worker at 40 files a second.
		FetchCooldown:               min(20*time.Millisecond, cfg.PollInterval),
		JobTimeout:                  cfg.FileTimeout,
		RescueStuckJobsAfter:        cfg.FileTimeout + time.Hour,
		MaxAttempts:                 10,
		CompletedJobRetentionPeriod: time.Hour,
	}
	if r.works {
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
	}
	q, err := openQueue(ctx, cfg.Store, rc)
	if err != nil {
		return nil, err
	}
	r.q = q
	return r, nil
}

// WorkerID is this process's name in the workers table.
func (r *Runner) WorkerID() string { return r.cfg.WorkerID }

// Workers is how many files this process partitions at once, the default resolved (0: it runs
// no workers).
func (r *Runner) Workers() int { return max(r.cfg.Workers, 0) }

// Start starts the workers (when configured), the heartbeat, the sweeper that gives back the
// work of dead processes, and the scheduler.
func (r *Runner) Start(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return errors.New("jobs: runner already started")
	}
	if r.works {
		// The first heartbeat is written before any task can be claimed.
		if err := r.st.Heartbeat(ctx, r.cfg.WorkerID, r.host, time.Now()); err != nil {
			return err
		}
		if err := r.q.start(context.WithoutCancel(ctx)); err != nil {
			return fmt.Errorf("jobs: start river: %w", err)
		}
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.cancel = cancel
	r.started = true
	if r.works {
		r.loop(lctx, r.cfg.Heartbeat, func(ctx context.Context) error {
			return r.st.Heartbeat(ctx, r.cfg.WorkerID, r.host, time.Now())
		})
	}
	r.loop(lctx, max(r.cfg.Lease/3, time.Second/2), r.sweep)
	r.loop(lctx, r.cfg.ScheduleInterval, r.tick)
	return nil
}

func (r *Runner) loop(ctx context.Context, every time.Duration, fn func(context.Context) error) {
	r.loops.Add(1)
	go func() {
		defer r.loops.Done()
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := fn(ctx); err != nil && ctx.Err() == nil {
					r.log.Warn("background task failed", "err", err)
				}
			}
		}
	}()
}

// Stop stops taking tasks and waits for running ones until ctx ends; then running tasks are
// cancelled and their files given back to the queue.
func (r *Runner) Stop(ctx context.Context) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.started {
		return nil
	}
	r.started = false
	var err error
	if r.works {
		err = r.q.stop(ctx)
		if ctx.Err() != nil {
			cctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = r.q.stopAndCancel(cctx)
			cancel()
		}
	}
	r.cancel()
	r.loops.Wait()
	if r.works {
		r.st.RemoveWorker(context.WithoutCancel(ctx), r.cfg.WorkerID)
	}
	return err
}

// ErrActive is returned by Run when the workflow already has an active job.
var ErrActive = errors.New("jobs: workflow already has an active job")

// Run starts a job of a workflow: it records the job (SCHEDULED) and enqueues its listing.
func (r *Runner) Run(ctx context.Context, w *store.Workflow, jobType string) (*store.Job, error) {
	if w.SourceID == nil || w.DestinationID == nil {
		return nil, errors.New("jobs: the workflow needs a source and a destination")
	}
	j := &store.Job{
		ID: uuid.NewString(), WorkflowID: w.ID, WorkflowName: w.Name, SourceID: *w.SourceID, DestinationID: *w.DestinationID,
		Nodes: w.Nodes, ReprocessAll: w.ReprocessAll, JobType: jobType,
		Status: store.JobScheduled, ProcessingStatus: store.JobScheduled, CreatedAt: time.Now().UTC(),
	}
	if err := r.st.CreateJob(ctx, j); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, ErrActive
		}
		return nil, err
	}
	if err := r.q.insertMany(ctx, []river.InsertManyParams{{Args: listArgs{JobID: j.ID}}}); err != nil {
		r.st.DeleteJob(context.WithoutCancel(ctx), j.ID)
		return nil, fmt.Errorf("jobs: enqueue: %w", err)
	}
	return j, nil
}

// Check enqueues a connection check already recorded in the store.
func (r *Runner) Check(ctx context.Context, checkID, connectorID string, role store.Role) error {
	err := r.q.insertMany(ctx, []river.InsertManyParams{{Args: checkArgs{CheckID: checkID, ConnectorID: connectorID, Role: string(role)},
		InsertOpts: &river.InsertOpts{MaxAttempts: 1}}})
	if err != nil {
		return fmt.Errorf("jobs: enqueue connection check: %w", err)
	}
	return nil
}

// sweep gives back the work of processes whose heartbeat stopped: the files and listings they
// had claimed, and the tasks River had handed them that they died before claiming (River
// itself would rescue those only after RescueStuckJobsAfter, an hour or more).
func (r *Runner) sweep(ctx context.Context) error {
	deadline := time.Now().Add(-r.cfg.Lease)
	orphans, err := r.st.ReclaimOrphans(ctx, deadline)
	if err != nil {
		return err
	}
	params := make([]river.InsertManyParams, 0, len(orphans))
	for _, o := range orphans {
		if o.FileID == "" {
			params = append(params, river.InsertManyParams{Args: listArgs{JobID: o.JobID}})
		} else {
			params = append(params, river.InsertManyParams{Args: fileArgs{JobID: o.JobID, FileID: o.FileID}})
		}
	}
	dead, err := r.st.ForgetDeadWorkers(ctx, deadline)
	if err != nil {
		return err
	}
	if len(dead) > 0 {
		stuck, err := r.q.running(ctx)
		if err != nil {
			return err
		}
		params = append(params, tasksOf(stuck, dead)...)
	}
	if len(params) == 0 {
		return nil
	}
	// A task given back twice (claimed file reclaimed above, and its River task found here)
	// is harmless: the second finds its file claimed or done and does nothing.
	r.log.Info("re-enqueued work of stopped workers", "tasks", len(params), "workers", dead)
	return r.q.insertMany(ctx, params)
}

// tasksOf returns new tasks for the running River tasks last handed to one of the dead workers.
func tasksOf(rows []*rivertype.JobRow, dead []string) []river.InsertManyParams {
	var out []river.InsertManyParams
	for _, row := range rows {
		if len(row.AttemptedBy) == 0 || !slices.Contains(dead, row.AttemptedBy[len(row.AttemptedBy)-1]) {
			continue
		}
		var args river.JobArgs
		switch row.Kind {
		case fileArgs{}.Kind():
			var a fileArgs
			if json.Unmarshal(row.EncodedArgs, &a) == nil {
				args = a
			}
		case listArgs{}.Kind():
			var a listArgs
			if json.Unmarshal(row.EncodedArgs, &a) == nil {
				args = a
			}
		case checkArgs{}.Kind():
			var a checkArgs
			if json.Unmarshal(row.EncodedArgs, &a) == nil {
				args = a
			}
		}
		if args != nil {
			out = append(out, river.InsertManyParams{Args: args})
		}
	}
	return out
}

// tick starts the runs of scheduled workflows that are due; the conditional advance of the
// next run time makes one process win each tick when several are running.
func (r *Runner) tick(ctx context.Context) error {
	now := time.Now().UTC()
	due, err := r.st.DueWorkflows(ctx, now)
	if err != nil {
		return err
	}
	for _, w := range due {
		spec, err := schedule.Parse(*w.Schedule)
		if err != nil {
			r.log.Warn("bad schedule", "workflow", w.ID, "err", err)
			continue
		}
		won, err := r.st.AdvanceSchedule(ctx, w.ID, *w.NextRunAt, spec.Next(now))
		if err != nil || !won {
			continue
		}
		if _, err := r.Run(ctx, w, "scheduled"); err != nil && !errors.Is(err, ErrActive) {
			r.log.Warn("scheduled run failed", "workflow", w.ID, "err", err)
		}
	}
	return nil
}

// warnAndAbove passes River's warnings and errors only: its informational lines (each migration
// applied, poll-only mode, client started and stopped) are routine at every start and bury
// the lines an operator needs.
type warnAndAbove struct{ slog.Handler }

func (h warnAndAbove) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && h.Handler.Enabled(ctx, l)
}

func (h warnAndAbove) WithAttrs(as []slog.Attr) slog.Handler {
	return warnAndAbove{h.Handler.WithAttrs(as)}
}

func (h warnAndAbove) WithGroup(name string) slog.Handler {
	return warnAndAbove{h.Handler.WithGroup(name)}
}
