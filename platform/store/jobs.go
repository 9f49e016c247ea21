package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Job statuses (JobInformation.status) and processing statuses (JobDetails.processing_status).
const (
	JobScheduled  = "SCHEDULED"
	JobInProgress = "IN_PROGRESS"
	JobCompleted  = "COMPLETED"
	JobStopped    = "STOPPED"
	JobFailed     = "FAILED"

	ProcSuccess             = "SUCCESS"
	ProcCompletedWithErrors = "COMPLETED_WITH_ERRORS"
)

// File states.
const (
	FilePending    = "pending"
	FileInProgress = "in_progress"
	FileSuccess    = "success"
	FileFailed     = "failed"
	FileCancelled  = "cancelled"
)

// Job is one run of a workflow, with a snapshot of the workflow taken when it was created.
type Job struct {
	ID               string
	WorkflowID       string
	WorkflowName     string
	SourceID         string
	DestinationID    string
	Nodes            []Node
	ReprocessAll     bool
	JobType          string
	Status           string
	ProcessingStatus string
	Message          *string
	ListingDone      bool
	ListingError     *string
	Skipped          int
	CreatedAt        time.Time
	StartedAt        *time.Time
	FinishedAt       *time.Time
}

const jobCols = `id, workflow_id, workflow_name, source_id, destination_id, nodes, reprocess_all, job_type, status,
	processing_status, message, listing_done, listing_error, skipped, created_at, started_at, finished_at`

func scanJob(sc interface{ Scan(...any) error }) (*Job, error) {
	var j Job
	var nodes, created string
	var reprocess, listed int
	var msg, lerr, started, finished sql.NullString
	if err := sc.Scan(&j.ID, &j.WorkflowID, &j.WorkflowName, &j.SourceID, &j.DestinationID, &nodes, &reprocess, &j.JobType,
		&j.Status, &j.ProcessingStatus, &msg, &listed, &lerr, &j.Skipped, &created, &started, &finished); err != nil {
		return nil, err
	}
	j.ReprocessAll, j.ListingDone = reprocess != 0, listed != 0
	j.Message, j.ListingError = strPtr(msg), strPtr(lerr)
	j.CreatedAt, j.StartedAt, j.FinishedAt = parseTS(created), parseTSPtr(started), parseTSPtr(finished)
	if err := json.Unmarshal([]byte(nodes), &j.Nodes); err != nil {
		return nil, fmt.Errorf("store: decode nodes of job %s: %w", j.ID, err)
	}
	return &j, nil
}

// CreateJob inserts a SCHEDULED job; ErrConflict when the workflow already has an active job.
func (s *Store) CreateJob(ctx context.Context, j *Job) error {
	nodes, err := json.Marshal(j.Nodes)
	if err != nil {
		return fmt.Errorf("store: encode nodes: %w", err)
	}
	_, err = s.exec(ctx, `INSERT INTO jobs (id, workflow_id, workflow_name, source_id, destination_id, nodes, reprocess_all,
		job_type, status, processing_status, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.WorkflowID, j.WorkflowName, j.SourceID, j.DestinationID, string(nodes), boolInt(j.ReprocessAll),
		j.JobType, j.Status, j.ProcessingStatus, ts(j.CreatedAt))
	if isUniqueViolation(err) {
		return ErrConflict
	}
	if err != nil {
		return fmt.Errorf("store: create job: %w", err)
	}
	return nil
}

// DeleteJob removes a job (used when enqueueing it failed).
func (s *Store) DeleteJob(ctx context.Context, id string) error {
	_, err := s.exec(ctx, `DELETE FROM jobs WHERE id = ?`, id)
	return err
}

// GetJob returns one job.
func (s *Store) GetJob(ctx context.Context, id string) (*Job, error) {
	j, err := scanJob(s.queryRow(ctx, `SELECT `+jobCols+` FROM jobs WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get job: %w", err)
	}
	return j, nil
}

// ListJobs lists jobs, newest first, optionally of one workflow and one status: every page
// of ListJobsPage, for callers that want the whole list in memory.
func (s *Store) ListJobs(ctx context.Context, workflowID, status string) ([]*Job, error) {
	out := []*Job{}
	var after *JobCursor
	for {
		page, next, err := s.ListJobsPage(ctx, workflowID, status, after, 500)
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if next == nil {
			return out, nil
		}
		after = next
	}
}

// JobCursor is where a page of ListJobsPage ended: the last job's creation time and id.
type JobCursor struct {
	CreatedAt time.Time
	ID        string
}

// ListJobsPage lists at most limit jobs in ListJobs' order (newest first), after the cursor
// (nil: from the start), and the cursor of the next page (nil when none is left). A caller
// answering with every job reads them a page at a time, so its memory does not grow with
// the job history.
func (s *Store) ListJobsPage(ctx context.Context, workflowID, status string, after *JobCursor, limit int) ([]*Job, *JobCursor, error) {
	query := `SELECT ` + jobCols + ` FROM jobs WHERE 1 = 1`
	var args []any
	if workflowID != "" {
		query += ` AND workflow_id = ?`
		args = append(args, workflowID)
	}
	if status != "" {
		query += ` AND status = ?`
		args = append(args, status)
	}
	if after != nil {
		c := ts(after.CreatedAt)
		query += ` AND (created_at < ? OR (created_at = ? AND id < ?))`
		args = append(args, c, c, after.ID)
	}
	query += fmt.Sprintf(` ORDER BY created_at DESC, id DESC LIMIT %d`, limit+1)
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, nil, fmt.Errorf("store: list jobs: %w", err)
	}
	defer rows.Close()
	out := []*Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, nil, fmt.Errorf("store: list jobs: %w", err)
		}
		out = append(out, j)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("store: list jobs: %w", err)
	}
	if len(out) <= limit {
		return out, nil, nil
	}
	out = out[:limit]
	last := out[limit-1]
	return out, &JobCursor{CreatedAt: last.CreatedAt, ID: last.ID}, nil
}

// StartListing marks a job IN_PROGRESS and records which worker lists its source. It returns
// false when the job was stopped (or already finished) in the meantime.
func (s *Store) StartListing(ctx context.Context, jobID, workerID string, at time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE jobs SET status = ?, processing_status = ?, lister_id = ?,
		started_at = COALESCE(started_at, ?) WHERE id = ? AND status IN (?, ?) AND listing_done = 0`,
		JobInProgress, JobInProgress, workerID, ts(at), jobID, JobScheduled, JobInProgress)
	if err != nil {
		return false, fmt.Errorf("store: start listing: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// JobFile is one document of a job.
type JobFile struct {
	ID         string
	JobID      string
	Seq        int
	DocID      string
	Filename   string
	Version    string
	Document   []byte // the connectors.Document as JSON
	State      string
	Stage      int
	Error      *string
	WorkerID   *string
	Attempts   int
	Elements   int
	StartedAt  *time.Time
	FinishedAt *time.Time
}

const fileCols = `id, job_id, seq, doc_id, filename, version, document, state, stage, error, worker_id, attempts, elements, started_at, finished_at`

func scanFile(sc interface{ Scan(...any) error }) (*JobFile, error) {
	var f JobFile
	var doc string
	var errText, worker, started, finished sql.NullString
	if err := sc.Scan(&f.ID, &f.JobID, &f.Seq, &f.DocID, &f.Filename, &f.Version, &doc, &f.State, &f.Stage, &errText,
		&worker, &f.Attempts, &f.Elements, &started, &finished); err != nil {
		return nil, err
	}
	f.Document = []byte(doc)
	f.Error, f.WorkerID = strPtr(errText), strPtr(worker)
	f.StartedAt, f.FinishedAt = parseTSPtr(started), parseTSPtr(finished)
	return &f, nil
}

// AddFile records a listed document; a document listed again (a retried listing) keeps its
// existing row, whose id is returned.
func (s *Store) AddFile(ctx context.Context, f *JobFile) (string, error) {
	_, err := s.exec(ctx, `INSERT INTO job_files (id, job_id, seq, doc_id, filename, version, document, state)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (job_id, doc_id) DO NOTHING`,
		f.ID, f.JobID, f.Seq, f.DocID, f.Filename, f.Version, string(f.Document), FilePending)
	if err != nil {
		return "", fmt.Errorf("store: add file: %w", err)
	}
	var id string
	if err := s.queryRow(ctx, `SELECT id FROM job_files WHERE job_id = ? AND doc_id = ?`, f.JobID, f.DocID).Scan(&id); err != nil {
		return "", fmt.Errorf("store: add file: %w", err)
	}
	return id, nil
}

// FinishListing records the end of a job's listing: how many documents were skipped as
// unchanged and the listing error, if any.
func (s *Store) FinishListing(ctx context.Context, jobID string, skipped int, listErr *string) error {
	_, err := s.exec(ctx, `UPDATE jobs SET listing_done = 1, skipped = ?, listing_error = ? WHERE id = ?`, skipped, listErr, jobID)
	if err != nil {
		return fmt.Errorf("store: finish listing: %w", err)
	}
	return nil
}

// PendingFiles lists the ids of a job's files still waiting for a worker.
func (s *Store) PendingFiles(ctx context.Context, jobID string) ([]string, error) {
	ids, err := s.queryStrings(ctx, `SELECT id FROM job_files WHERE job_id = ? AND state = ? ORDER BY seq`, jobID, FilePending)
	if err != nil {
		return nil, fmt.Errorf("store: pending files: %w", err)
	}
	return ids, nil
}

// ClaimFile gives a pending file to a worker. It returns nil when the file is not pending (done,
// claimed by another worker, or cancelled), so every file is processed by one worker at a time.
func (s *Store) ClaimFile(ctx context.Context, fileID, workerID string, at time.Time) (*JobFile, error) {
	res, err := s.exec(ctx, `UPDATE job_files SET state = ?, worker_id = ?, attempts = attempts + 1, stage = 0, started_at = ?
		WHERE id = ? AND state = ?`, FileInProgress, workerID, ts(at), fileID, FilePending)
	if err != nil {
		return nil, fmt.Errorf("store: claim file: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, nil
	}
	return s.GetFile(ctx, fileID)
}

// GetFile returns one file.
func (s *Store) GetFile(ctx context.Context, fileID string) (*JobFile, error) {
	f, err := scanFile(s.queryRow(ctx, `SELECT `+fileCols+` FROM job_files WHERE id = ?`, fileID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get file: %w", err)
	}
	return f, nil
}

// SetStage records the node a claimed file has reached.
func (s *Store) SetStage(ctx context.Context, fileID, workerID string, stage int) error {
	_, err := s.exec(ctx, `UPDATE job_files SET stage = ? WHERE id = ? AND worker_id = ? AND state = ?`, stage, fileID, workerID, FileInProgress)
	if err != nil {
		return fmt.Errorf("store: set stage: %w", err)
	}
	return nil
}

// ReleaseFile gives a claimed file back (its worker is shutting down).
func (s *Store) ReleaseFile(ctx context.Context, fileID, workerID string) error {
	_, err := s.exec(ctx, `UPDATE job_files SET state = ?, worker_id = NULL WHERE id = ? AND worker_id = ? AND state = ?`,
		FilePending, fileID, workerID, FileInProgress)
	if err != nil {
		return fmt.Errorf("store: release file: %w", err)
	}
	return nil
}

// Output is what a successful file produced at its last node.
type Output struct {
	NodeID string
	Data   []byte // gzip-compressed JSON array of elements
}

// FinishFile records a claimed file's outcome (FileSuccess with its output, or FileFailed with
// an error). It returns false when the claim was lost (the file was given to another worker),
// in which case nothing is recorded.
func (s *Store) FinishFile(ctx context.Context, fileID, workerID, state string, errText *string, elements int, out *Output, at time.Time) (bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("store: finish file: %w", err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, s.q(`UPDATE job_files SET state = ?, error = ?, elements = ?, finished_at = ?
		WHERE id = ? AND worker_id = ? AND state = ?`), state, errText, elements, ts(at), fileID, workerID, FileInProgress)
	if err != nil {
		return false, fmt.Errorf("store: finish file: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if out != nil {
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO job_outputs (file_id, node_id, data) VALUES (?, ?, ?)
			ON CONFLICT (file_id, node_id) DO UPDATE SET data = excluded.data`), fileID, out.NodeID, out.Data); err != nil {
			return false, fmt.Errorf("store: save output: %w", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("store: finish file: %w", err)
	}
	return true, nil
}

// Counts are a job's files by state.
type Counts struct {
	Pending, InProgress, Success, Failed, Cancelled int
	// ByStage counts files per (state, stage) for node statistics.
	ByStage map[string]map[int]int
}

// Total is the number of listed files.
func (c Counts) Total() int { return c.Pending + c.InProgress + c.Success + c.Failed + c.Cancelled }

// FileCounts counts a job's files.
func (s *Store) FileCounts(ctx context.Context, jobID string) (Counts, error) {
	c := Counts{ByStage: map[string]map[int]int{}}
	rows, err := s.query(ctx, `SELECT state, stage, COUNT(*) FROM job_files WHERE job_id = ? GROUP BY state, stage`, jobID)
	if err != nil {
		return c, fmt.Errorf("store: count files: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var state string
		var stage, n int
		if err := rows.Scan(&state, &stage, &n); err != nil {
			return c, fmt.Errorf("store: count files: %w", err)
		}
		if c.ByStage[state] == nil {
			c.ByStage[state] = map[int]int{}
		}
		c.ByStage[state][stage] += n
		switch state {
		case FilePending:
			c.Pending += n
		case FileInProgress:
			c.InProgress += n
		case FileSuccess:
			c.Success += n
		case FileFailed:
			c.Failed += n
		case FileCancelled:
			c.Cancelled += n
		}
	}
	return c, rows.Err()
}

// MaybeFinishJob ends a job whose listing is done and whose files are all finished, choosing
// its final status. It is called after every file; the conditional update lets exactly one
// caller finish the job. It returns the job's status afterwards.
func (s *Store) MaybeFinishJob(ctx context.Context, jobID string, at time.Time) (string, error) {
	j, err := s.GetJob(ctx, jobID)
	if err != nil {
		return "", err
	}
	if j.Status != JobInProgress || !j.ListingDone {
		return j.Status, nil
	}
	// Cheap index probe first: counting every file after every file would be quadratic.
	var one int
	err = s.queryRow(ctx, `SELECT 1 FROM job_files WHERE job_id = ? AND state IN (?, ?) LIMIT 1`, jobID, FilePending, FileInProgress).Scan(&one)
	if err == nil {
		return j.Status, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("store: finish job: %w", err)
	}
	c, err := s.FileCounts(ctx, jobID)
	if err != nil {
		return "", err
	}
	if c.Pending+c.InProgress > 0 {
		return j.Status, nil
	}
	status, proc := JobCompleted, ProcSuccess
	var msg *string
	switch {
	case j.ListingError != nil:
		status, proc = JobFailed, JobFailed
		m := "listing the source failed: " + *j.ListingError
		if c.Failed > 0 {
			m += fmt.Sprintf("; %d of %d files failed", c.Failed, c.Total())
		}
		msg = &m
	case c.Failed > 0 && c.Success == 0:
		status, proc = JobFailed, JobFailed
		m := fmt.Sprintf("all %d files failed", c.Failed)
		msg = &m
	case c.Failed > 0:
		proc = ProcCompletedWithErrors
		m := fmt.Sprintf("%d of %d files failed", c.Failed, c.Total())
		msg = &m
	}
	res, err := s.exec(ctx, `UPDATE jobs SET status = ?, processing_status = ?, message = ?, finished_at = ?
		WHERE id = ? AND status = ?`, status, proc, msg, ts(at), jobID, JobInProgress)
	if err != nil {
		return "", fmt.Errorf("store: finish job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		j, err := s.GetJob(ctx, jobID)
		if err != nil {
			return "", err
		}
		return j.Status, nil
	}
	return status, nil
}

// FailJob ends a job as FAILED with a message (the source or destination could not be built).
func (s *Store) FailJob(ctx context.Context, jobID, message string, at time.Time) error {
	_, err := s.exec(ctx, `UPDATE jobs SET status = ?, processing_status = ?, message = ?, listing_done = 1, finished_at = ?,
		started_at = COALESCE(started_at, ?) WHERE id = ? AND status IN (?, ?)`,
		JobFailed, JobFailed, message, ts(at), ts(at), jobID, JobScheduled, JobInProgress)
	if err != nil {
		return fmt.Errorf("store: fail job: %w", err)
	}
	_, err = s.exec(ctx, `UPDATE job_files SET state = ? WHERE job_id = ? AND state = ?`, FileCancelled, jobID, FilePending)
	return err
}

// CancelJob stops an active job: files not yet started are cancelled, files being processed
// finish. It returns false when the job was not active.
func (s *Store) CancelJob(ctx context.Context, jobID string, at time.Time) (bool, error) {
	res, err := s.exec(ctx, `UPDATE jobs SET status = ?, processing_status = ?, message = ?, finished_at = ?
		WHERE id = ? AND status IN (?, ?)`, JobStopped, JobStopped, "Job cancelled by user.", ts(at), jobID, JobScheduled, JobInProgress)
	if err != nil {
		return false, fmt.Errorf("store: cancel job: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	if _, err := s.exec(ctx, `UPDATE job_files SET state = ? WHERE job_id = ? AND state = ?`, FileCancelled, jobID, FilePending); err != nil {
		return true, fmt.Errorf("store: cancel job files: %w", err)
	}
	return true, nil
}

// ListFiles lists a job's files in listing order, optionally only those in one state.
func (s *Store) ListFiles(ctx context.Context, jobID, state string) ([]*JobFile, error) {
	query := `SELECT ` + fileCols + ` FROM job_files WHERE job_id = ?`
	args := []any{jobID}
	if state != "" {
		query += ` AND state = ?`
		args = append(args, state)
	}
	rows, err := s.query(ctx, query+` ORDER BY seq, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list files: %w", err)
	}
	defer rows.Close()
	var out []*JobFile
	for rows.Next() {
		f, err := scanFile(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list files: %w", err)
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// FailedFile is a failed file's document id and error, as the failed-files answer lists it.
type FailedFile struct {
	Seq   int
	ID    string
	DocID string
	Error string
}

// FailedFilesPage lists at most limit failed files of a job in listing order, after the file
// (seq, id) given (after nil: from the start), and whether more follow. The answer lists every
// failed file, read a page at a time: a job may have a million.
func (s *Store) FailedFilesPage(ctx context.Context, jobID string, after *FailedFile, limit int) ([]FailedFile, bool, error) {
	query := `SELECT seq, id, doc_id, error FROM job_files WHERE job_id = ? AND state = ?`
	args := []any{jobID, FileFailed}
	if after != nil {
		query += ` AND (seq > ? OR (seq = ? AND id > ?))`
		args = append(args, after.Seq, after.Seq, after.ID)
	}
	rows, err := s.query(ctx, query+fmt.Sprintf(` ORDER BY seq, id LIMIT %d`, limit+1), args...)
	if err != nil {
		return nil, false, fmt.Errorf("store: list failed files: %w", err)
	}
	defer rows.Close()
	var out []FailedFile
	for rows.Next() {
		var f FailedFile
		var msg sql.NullString
		if err := rows.Scan(&f.Seq, &f.ID, &f.DocID, &msg); err != nil {
			return nil, false, fmt.Errorf("store: list failed files: %w", err)
		}
		f.Error = msg.String
		out = append(out, f)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("store: list failed files: %w", err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}

// OutputNodes lists, for a job's successful files, the node whose output is stored.
func (s *Store) OutputNodes(ctx context.Context, jobID string) ([][2]string, error) {
	rows, err := s.query(ctx, `SELECT o.file_id, o.node_id FROM job_outputs o JOIN job_files f ON f.id = o.file_id
		WHERE f.job_id = ? ORDER BY f.seq, o.node_id`, jobID)
	if err != nil {
		return nil, fmt.Errorf("store: output nodes: %w", err)
	}
	defer rows.Close()
	var out [][2]string
	for rows.Next() {
		var p [2]string
		if err := rows.Scan(&p[0], &p[1]); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// GetOutput returns a file's stored output; nodeID "" means whichever node it was stored for.
func (s *Store) GetOutput(ctx context.Context, jobID, fileID, nodeID string) (*Output, error) {
	query := `SELECT o.node_id, o.data FROM job_outputs o JOIN job_files f ON f.id = o.file_id WHERE f.job_id = ? AND o.file_id = ?`
	args := []any{jobID, fileID}
	if nodeID != "" {
		query += ` AND o.node_id = ?`
		args = append(args, nodeID)
	}
	var o Output
	err := s.queryRow(ctx, query+` LIMIT 1`, args...).Scan(&o.NodeID, &o.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("store: get output: %w", err)
	}
	return &o, nil
}

// ProcessedVersion returns the version of a document a workflow last processed successfully.
func (s *Store) ProcessedVersion(ctx context.Context, workflowID, docID string) (string, bool, error) {
	var v string
	err := s.queryRow(ctx, `SELECT version FROM processed_versions WHERE workflow_id = ? AND doc_id = ?`, workflowID, docID).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: processed version: %w", err)
	}
	return v, true, nil
}

// RecordProcessed remembers that a workflow processed a document version.
func (s *Store) RecordProcessed(ctx context.Context, workflowID, docID, version string, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO processed_versions (workflow_id, doc_id, version, processed_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (workflow_id, doc_id) DO UPDATE SET version = excluded.version, processed_at = excluded.processed_at`,
		workflowID, docID, version, ts(at))
	if err != nil {
		return fmt.Errorf("store: record processed: %w", err)
	}
	return nil
}

// Heartbeat records that a worker process is alive.
func (s *Store) Heartbeat(ctx context.Context, workerID, host string, at time.Time) error {
	_, err := s.exec(ctx, `INSERT INTO workers (id, host, started_at, heartbeat_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET heartbeat_at = excluded.heartbeat_at`, workerID, host, ts(at), ts(at))
	if err != nil {
		return fmt.Errorf("store: heartbeat: %w", err)
	}
	return nil
}

// RemoveWorker forgets a worker that shut down cleanly.
func (s *Store) RemoveWorker(ctx context.Context, workerID string) error {
	_, err := s.exec(ctx, `DELETE FROM workers WHERE id = ?`, workerID)
	return err
}

// ForgetDeadWorkers removes the workers whose last heartbeat is before deadline and returns
// their ids. Each dead worker is returned once, to one caller (the delete is the claim), so the
// work it had taken from the queue is given back exactly once. A worker that was only late
// comes back with its next heartbeat.
func (s *Store) ForgetDeadWorkers(ctx context.Context, deadline time.Time) ([]string, error) {
	ids, err := s.queryStrings(ctx, `DELETE FROM workers WHERE heartbeat_at < ? RETURNING id`, ts(deadline))
	if err != nil {
		return nil, fmt.Errorf("store: forget dead workers: %w", err)
	}
	return ids, nil
}

// Orphan is a file or job listing given back because its worker stopped heart-beating.
type Orphan struct{ JobID, FileID string }

// ReclaimOrphans gives back the work of workers whose last heartbeat is before deadline: files
// they were processing become pending again (returned, to be enqueued again) and listings they
// were running are returned with an empty FileID.
func (s *Store) ReclaimOrphans(ctx context.Context, deadline time.Time) ([]Orphan, error) {
	rows, err := s.query(ctx, `UPDATE job_files SET state = ?, worker_id = NULL
		WHERE state = ? AND (worker_id IS NULL OR worker_id NOT IN (SELECT id FROM workers WHERE heartbeat_at >= ?))
		RETURNING job_id, id`, FilePending, FileInProgress, ts(deadline))
	if err != nil {
		return nil, fmt.Errorf("store: reclaim files: %w", err)
	}
	var out []Orphan
	for rows.Next() {
		var o Orphan
		if err := rows.Scan(&o.JobID, &o.FileID); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, o)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows, err = s.query(ctx, `UPDATE jobs SET lister_id = NULL
		WHERE status = ? AND listing_done = 0 AND lister_id IS NOT NULL
		AND lister_id NOT IN (SELECT id FROM workers WHERE heartbeat_at >= ?) RETURNING id`, JobInProgress, ts(deadline))
	if err != nil {
		return nil, fmt.Errorf("store: reclaim listings: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var o Orphan
		if err := rows.Scan(&o.JobID); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}
