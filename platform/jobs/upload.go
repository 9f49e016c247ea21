package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/platform/store"
)

// A job whose SourceID is empty processes files uploaded with the request (on-demand jobs, and
// workflow runs given input_files) instead of listing a source connector; an empty
// DestinationID means the elements are kept only for the download endpoint. The uploads live
// in UploadDir/<job id>/<file id> until the job ends, so every worker of the job must see the
// same UploadDir (one machine, or a shared volume).

// Upload is one uploaded file.
type Upload struct {
	Filename    string
	ContentType string
	Open        func() (io.ReadCloser, error)
}

// ErrNoUploadDir is returned by RunUploads when the runner was not given an UploadDir.
var ErrNoUploadDir = errors.New("jobs: uploaded files need an upload directory (Config.UploadDir)")

// ErrUploadsFull is returned by RunUploads when the files waiting for their jobs already take
// Config.MaxPendingUploadBytes: the client should retry once jobs have finished.
var ErrUploadsFull = errors.New("jobs: too many uploaded bytes are waiting to be processed; retry when running jobs have finished")

// pendingUploadBytes is what UploadDir holds now: the uploads of jobs not yet ended.
func (r *Runner) pendingUploadBytes() int64 {
	var n int64
	filepath.WalkDir(r.cfg.UploadDir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// UploadsFull reports whether the upload backlog is at Config.MaxPendingUploadBytes, so a new
// upload can be refused before its body is read.
func (r *Runner) UploadsFull() bool {
	return r.cfg.UploadDir != "" && r.pendingUploadBytes() >= r.cfg.MaxPendingUploadBytes
}

// IsUpload reports whether a job processes uploaded files rather than a source connector.
func IsUpload(j *store.Job) bool { return j.SourceID == "" }

func (r *Runner) uploadPath(jobID, fileID string) string {
	return filepath.Join(r.cfg.UploadDir, jobID, fileID)
}

// RunUploads starts a job that processes files instead of the workflow's source. The workflow
// need not be stored (an on-demand job builds one on the fly); its destination, when it has
// one, receives the elements as in ordinary runs. The files are recorded (and so listed in
// input_file_ids) before this returns.
func (r *Runner) RunUploads(ctx context.Context, w *store.Workflow, jobType string, files []Upload) (*store.Job, error) {
	if r.cfg.UploadDir == "" {
		return nil, ErrNoUploadDir
	}
	if len(files) == 0 {
		return nil, errors.New("jobs: no files to process")
	}
	j := &store.Job{
		ID: uuid.NewString(), WorkflowID: w.ID, WorkflowName: w.Name, Nodes: w.Nodes, ReprocessAll: true, JobType: jobType,
		Status: store.JobScheduled, ProcessingStatus: store.JobScheduled, CreatedAt: time.Now().UTC(),
	}
	if w.DestinationID != nil {
		j.DestinationID = *w.DestinationID
	}
	if err := r.st.CreateJob(ctx, j); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return nil, ErrActive
		}
		return nil, err
	}
	undo := func(err error) (*store.Job, error) {
		r.st.DeleteJob(context.WithoutCancel(ctx), j.ID)
		os.RemoveAll(filepath.Join(r.cfg.UploadDir, j.ID))
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(r.cfg.UploadDir, j.ID), 0o700); err != nil {
		return undo(fmt.Errorf("jobs: store uploads: %w", err))
	}
	// What is waiting already, and what this job adds file by file: the budget is checked
	// while copying, so one huge request is stopped at the budget, not after it.
	budget := r.cfg.MaxPendingUploadBytes - r.pendingUploadBytes()
	if budget <= 0 {
		return undo(ErrUploadsFull)
	}
	seen := map[string]int{}
	for i, up := range files {
		if err := ctx.Err(); err != nil {
			return undo(err)
		}
		name := filepath.Base(filepath.ToSlash(up.Filename))
		if name == "." || name == "/" || name == "" {
			name = "file" + strconv.Itoa(i+1)
		}
		// Document ids are unique per job; a second upload of the same name is told apart.
		docID := name
		if n := seen[name]; n > 0 {
			docID = fmt.Sprintf("%s (%d)", name, n+1)
		}
		seen[name]++
		fileID := uuid.NewString()
		size, err := r.saveUpload(up, r.uploadPath(j.ID, fileID), budget)
		if errors.Is(err, ErrUploadsFull) {
			return undo(err)
		}
		if err != nil {
			return undo(fmt.Errorf("jobs: store upload %s: %w", name, err))
		}
		budget -= size
		doc := connectors.Document{ID: docID, Filename: name, Size: size, ContentType: up.ContentType}
		raw, err := json.Marshal(doc)
		if err != nil {
			return undo(fmt.Errorf("jobs: encode upload %s: %w", name, err))
		}
		if _, err := r.st.AddFile(ctx, &store.JobFile{ID: fileID, JobID: j.ID, Seq: i, DocID: docID, Filename: name, Document: raw}); err != nil {
			return undo(err)
		}
	}
	// The listing task finds the files already recorded and only enqueues them.
	if err := r.q.insertMany(ctx, []river.InsertManyParams{{Args: listArgs{JobID: j.ID}}}); err != nil {
		return undo(fmt.Errorf("jobs: enqueue: %w", err))
	}
	return j, nil
}

func (r *Runner) saveUpload(up Upload, path string, budget int64) (int64, error) {
	rc, err := up.Open()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	limit := min(int64(maxDocumentBytes), budget)
	n, err := io.Copy(f, io.LimitReader(rc, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err == nil && n > limit && limit == budget:
		err = ErrUploadsFull
	case err == nil && n > limit:
		err = fmt.Errorf("larger than %d bytes", maxDocumentBytes)
	}
	return n, err
}

// openUpload opens the stored copy of an uploaded file.
func (r *Runner) openUpload(jobID, fileID string) (io.ReadCloser, error) {
	f, err := os.Open(r.uploadPath(jobID, fileID))
	if err != nil {
		return nil, fmt.Errorf("uploaded file: %w", err)
	}
	return f, nil
}

// cleanUploads removes a finished job's uploads; the elements stay in the store for download.
func (r *Runner) cleanUploads(j *store.Job, status string) {
	if !IsUpload(j) || r.cfg.UploadDir == "" {
		return
	}
	switch status {
	case store.JobScheduled, store.JobInProgress:
		return
	}
	if err := os.RemoveAll(filepath.Join(r.cfg.UploadDir, j.ID)); err != nil {
		r.log.Warn("cannot remove uploads", "job", j.ID, "err", err)
	}
}

// Stopped removes the uploads of a job just cancelled; a file already being processed was read
// into memory when it was claimed.
func (r *Runner) Stopped(j *store.Job) { r.cleanUploads(j, store.JobStopped) }
