package jobs

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/google/uuid"
	"github.com/riverqueue/river"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all" // every format a workflow may meet
	"github.com/quarrydocs/quarry/platform/store"
	_ "github.com/quarrydocs/quarry/strategies/all" // the PDF strategies
)

// maxDocumentBytes bounds what one document may occupy in memory while it is partitioned.
const maxDocumentBytes = 1 << 30

// connectorConfig returns a stored connector's kind and its config with secrets decrypted.
func (r *Runner) connectorConfig(ctx context.Context, role store.Role, id string) (connectors.Kind, map[string]any, error) {
	c, err := r.st.GetConnector(ctx, role, id)
	if err != nil {
		return connectors.Kind{}, nil, fmt.Errorf("%s connector %s: %w", role, id, err)
	}
	kind, ok := connectors.Lookup(c.Type)
	if !ok {
		return kind, nil, fmt.Errorf("%s connector %s: type %q is not available in this build", role, id, c.Type)
	}
	cfg, err := r.cfg.Secrets.OpenConfig(c.Config, kind.Secrets)
	if err != nil {
		return kind, nil, fmt.Errorf("%s connector %s: %w", role, id, err)
	}
	return kind, cfg, nil
}

// OpenSource builds the source a stored connector describes.
func (r *Runner) OpenSource(ctx context.Context, id string) (connectors.Source, error) {
	kind, cfg, err := r.connectorConfig(ctx, store.RoleSource, id)
	if err != nil {
		return nil, err
	}
	if kind.NewSource == nil {
		return nil, fmt.Errorf("%s connectors cannot be sources", kind.Type)
	}
	return kind.NewSource(cfg, r.cfg.Env)
}

// OpenDestination builds the destination a stored connector describes.
func (r *Runner) OpenDestination(ctx context.Context, id string) (connectors.Destination, error) {
	kind, cfg, err := r.connectorConfig(ctx, store.RoleDestination, id)
	if err != nil {
		return nil, err
	}
	if kind.NewDestination == nil {
		return nil, fmt.Errorf("%s connectors cannot be destinations", kind.Type)
	}
	return kind.NewDestination(cfg, r.cfg.Env)
}

// workList lists a job's source and enqueues its files.
func (r *Runner) workList(ctx context.Context, t *river.Job[listArgs]) error {
	jobID := t.Args.JobID
	ok, err := r.st.StartListing(ctx, jobID, r.cfg.WorkerID, time.Now())
	if err != nil || !ok {
		return err // not ok: cancelled, failed or already listed
	}
	job, err := r.st.GetJob(ctx, jobID)
	if err != nil {
		return err
	}
	log := r.log.With("job", jobID, "workflow", job.WorkflowID)
	fail := func(msg string) error {
		log.Warn("job failed", "reason", msg)
		return r.st.FailJob(ctx, jobID, msg, time.Now())
	}
	if _, err := Options(job.Nodes); err != nil {
		return r.failUploads(job, fail("invalid workflow nodes: "+err.Error()))
	}
	var src connectors.Source = noSource{}
	if !IsUpload(job) {
		if src, err = r.OpenSource(ctx, job.SourceID); err != nil {
			return fail("cannot open the source: " + err.Error())
		}
	}
	if job.DestinationID != "" {
		if _, err := r.OpenDestination(ctx, job.DestinationID); err != nil {
			return r.failUploads(job, fail("cannot open the destination: "+err.Error()))
		}
	}

	var batch []river.InsertManyParams
	flush := func() error {
		err := r.q.insertMany(ctx, batch)
		batch = batch[:0]
		return err
	}
	seq, skipped := 0, 0
	listErr := src.List(ctx, func(doc connectors.Document) error {
		if r.cfg.MaxListedFiles > 0 && seq >= r.cfg.MaxListedFiles {
			return fmt.Errorf("the source listed more than %d documents, the limit of one job on this server; the first %d are processed (narrow the source, e.g. a prefix or fewer spaces)",
				r.cfg.MaxListedFiles, r.cfg.MaxListedFiles)
		}
		if seq%50 == 0 {
			if j, err := r.st.GetJob(ctx, jobID); err == nil && j.Status != store.JobInProgress {
				return errStopped
			}
		}
		if !job.ReprocessAll && doc.Version != "" {
			v, ok, err := r.st.ProcessedVersion(ctx, job.WorkflowID, doc.ID)
			if err != nil {
				return err
			}
			if ok && v == doc.Version {
				skipped++
				return nil
			}
		}
		raw, err := json.Marshal(doc)
		if err != nil {
			return fmt.Errorf("encode document %s: %w", doc.ID, err)
		}
		id, err := r.st.AddFile(ctx, &store.JobFile{ID: uuid.NewString(), JobID: jobID, Seq: seq, DocID: doc.ID,
			Filename: doc.Filename, Version: doc.Version, Document: raw})
		if err != nil {
			return err
		}
		seq++
		batch = append(batch, river.InsertManyParams{Args: fileArgs{JobID: jobID, FileID: id}})
		if len(batch) >= 25 {
			return flush()
		}
		return nil
	})
	if ctx.Err() != nil {
		// Shutting down: the listing is retried (by River, or by the sweeper elsewhere).
		return ctx.Err()
	}
	if errors.Is(listErr, errStopped) {
		return nil
	}
	if err := flush(); err != nil {
		return err
	}
	// Files listed by an earlier, interrupted attempt are enqueued again; a duplicate task
	// finds its file already claimed or done and does nothing.
	if t.Attempt > 1 || seq == 0 {
		pending, err := r.st.PendingFiles(ctx, jobID)
		if err != nil {
			return err
		}
		for _, id := range pending {
			batch = append(batch, river.InsertManyParams{Args: fileArgs{JobID: jobID, FileID: id}})
		}
		if err := flush(); err != nil {
			return err
		}
	}
	var lerr *string
	if listErr != nil {
		m := listErr.Error()
		lerr = &m
		log.Warn("listing the source failed", "err", listErr, "listed", seq)
	}
	if err := r.st.FinishListing(ctx, jobID, skipped, lerr); err != nil {
		return err
	}
	log.Info("listed source", "files", seq, "skipped_unchanged", skipped)
	status, err := r.st.MaybeFinishJob(ctx, jobID, time.Now())
	if err == nil {
		r.cleanUploads(job, status)
	}
	return err
}

// noSource stands for the source of a job of uploaded files, which were recorded when the job
// was created: there is nothing to list.
type noSource struct{}

func (noSource) List(context.Context, func(connectors.Document) error) error { return nil }
func (noSource) Check(context.Context) error                                 { return nil }
func (noSource) Open(context.Context, connectors.Document) (io.ReadCloser, error) {
	return nil, errors.New("jobs: uploaded files are opened by file id")
}

// failUploads removes the uploads of a job that failed before processing its files.
func (r *Runner) failUploads(job *store.Job, err error) error {
	if err == nil {
		r.cleanUploads(job, store.JobFailed)
	}
	return err
}

var errStopped = errors.New("job stopped")

// workFile processes one document of a job.
func (r *Runner) workFile(ctx context.Context, t *river.Job[fileArgs]) error {
	f, err := r.st.ClaimFile(ctx, t.Args.FileID, r.cfg.WorkerID, time.Now())
	if err != nil || f == nil {
		return err // nil file: done, cancelled or being processed elsewhere
	}
	job, err := r.st.GetJob(ctx, f.JobID)
	if err != nil {
		r.st.ReleaseFile(context.WithoutCancel(ctx), f.ID, r.cfg.WorkerID)
		return err
	}
	finish := func(state string, errText *string, n int, out *store.Output) error {
		ok, err := r.st.FinishFile(context.WithoutCancel(ctx), f.ID, r.cfg.WorkerID, state, errText, n, out, time.Now())
		if err != nil || !ok {
			return err
		}
		if state == store.FileSuccess && !IsUpload(job) {
			if err := r.st.RecordProcessed(context.WithoutCancel(ctx), job.WorkflowID, f.DocID, f.Version, time.Now()); err != nil {
				return err
			}
		}
		status, err := r.st.MaybeFinishJob(context.WithoutCancel(ctx), job.ID, time.Now())
		if err == nil {
			r.cleanUploads(job, status)
		}
		return err
	}
	if job.Status != store.JobInProgress {
		return finish(store.FileCancelled, nil, 0, nil)
	}
	elements, out, stage, perr := r.process(ctx, job, f)
	if perr != nil && ctx.Err() != nil {
		// This process is stopping: the file goes back to the queue for another attempt.
		r.st.ReleaseFile(context.WithoutCancel(ctx), f.ID, r.cfg.WorkerID)
		return ctx.Err()
	}
	if perr != nil {
		msg := perr.Error()
		r.log.Warn("file failed", "job", job.ID, "document", f.DocID, "stage", stage, "err", perr)
		r.st.SetStage(context.WithoutCancel(ctx), f.ID, r.cfg.WorkerID, stage)
		return finish(store.FileFailed, &msg, 0, nil)
	}
	return finish(store.FileSuccess, nil, elements, out)
}

// Stages of a file, as indexes into the job's node statistics: 0 is the source, 1…n the
// workflow's nodes, n+1 the destination.
func (r *Runner) process(ctx context.Context, job *store.Job, f *store.JobFile) (int, *store.Output, int, error) {
	var doc connectors.Document
	if err := json.Unmarshal(f.Document, &doc); err != nil {
		return 0, nil, 0, fmt.Errorf("decode document: %w", err)
	}
	var rc io.ReadCloser
	var err error
	if IsUpload(job) {
		rc, err = r.openUpload(job.ID, f.ID)
	} else {
		var src connectors.Source
		if src, err = r.OpenSource(ctx, job.SourceID); err != nil {
			return 0, nil, 0, err
		}
		rc, err = src.Open(ctx, doc)
	}
	if err != nil {
		return 0, nil, 0, fmt.Errorf("read %s: %w", doc.ID, err)
	}
	data, err := io.ReadAll(io.LimitReader(rc, maxDocumentBytes+1))
	rc.Close()
	if err != nil {
		return 0, nil, 0, fmt.Errorf("read %s: %w", doc.ID, err)
	}
	if len(data) > maxDocumentBytes {
		return 0, nil, 0, fmt.Errorf("read %s: larger than %d bytes", doc.ID, maxDocumentBytes)
	}

	opts, err := Options(job.Nodes)
	if err != nil {
		return 0, nil, 1, err
	}
	opts.Logger = r.log.With("job", job.ID, "document", doc.ID)
	opts.InProcess = r.cfg.InProcess
	opts.MaxElements = r.cfg.MaxElements
	partStage := 1
	for i, n := range job.Nodes {
		if n.Type == NodePartition {
			partStage = i + 1
			break
		}
	}
	r.st.SetStage(ctx, f.ID, r.cfg.WorkerID, partStage)
	pctx, cancel := context.WithTimeout(ctx, r.cfg.FileTimeout)
	defer cancel()
	edoc := &engine.Document{Filename: doc.Filename, ContentType: doc.ContentType, Content: bytes.NewReader(data), Size: int64(len(data))}
	elements, err := engine.Partition(pctx, edoc, opts)
	if err != nil {
		return 0, nil, partStage, fmt.Errorf("partition %s: %w", doc.Filename, err)
	}
	if doc.DataSource != nil {
		ds, err := DataSourceJSON(doc.DataSource)
		if err != nil {
			return 0, nil, partStage, err
		}
		for i := range elements {
			if elements[i].Metadata.Extra == nil {
				elements[i].Metadata.Extra = map[string][]byte{}
			}
			elements[i].Metadata.Extra["data_source"] = ds
		}
	}
	// The encoded elements are bounded before any destination encodes them again: chunks
	// of a split element each carry it in orig_elements, so a small max_characters can turn a
	// modest document into gigabytes.
	encoded, err := element.MarshalListLimit(elements, r.cfg.MaxOutputBytes)
	if err != nil {
		return 0, nil, partStage, fmt.Errorf("partition %s: the elements are larger than %d bytes, the limit of this server; chunk with a larger max_characters", doc.Filename, r.cfg.MaxOutputBytes)
	}
	destStage := len(job.Nodes) + 1
	r.st.SetStage(ctx, f.ID, r.cfg.WorkerID, destStage)
	if job.DestinationID != "" {
		dst, err := r.OpenDestination(ctx, job.DestinationID)
		if err != nil {
			return 0, nil, destStage, err
		}
		if err := dst.Write(ctx, doc, elements); err != nil {
			return 0, nil, destStage, fmt.Errorf("write %s: %w", doc.ID, err)
		}
	}
	var out *store.Output
	if len(job.Nodes) > 0 {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		zw.Write(encoded)
		if err := zw.Close(); err != nil {
			return 0, nil, destStage, err
		}
		out = &store.Output{NodeID: job.Nodes[len(job.Nodes)-1].ID, Data: buf.Bytes()}
	}
	return len(elements), out, destStage, nil
}

// workCheck runs a connection check.
func (r *Runner) workCheck(ctx context.Context, t *river.Job[checkArgs]) error {
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var err error
	switch store.Role(t.Args.Role) {
	case store.RoleSource:
		var src connectors.Source
		if src, err = r.OpenSource(cctx, t.Args.ConnectorID); err == nil {
			err = src.Check(cctx)
		}
	default:
		var dst connectors.Destination
		if dst, err = r.OpenDestination(cctx, t.Args.ConnectorID); err == nil {
			err = dst.Check(cctx)
		}
	}
	status := "SUCCESS"
	var reason *string
	if err != nil {
		status = "FAILURE"
		m := err.Error()
		reason = &m
	}
	return r.st.FinishCheck(context.WithoutCancel(ctx), t.Args.CheckID, status, reason, time.Now())
}

// OpenOutput returns the elements JSON of a stored output, inflated as it is read: an output
// may be 256 MiB of JSON, which Download holds whole.
func OpenOutput(o *store.Output) (io.ReadCloser, error) {
	zr, err := gzip.NewReader(bytes.NewReader(o.Data))
	if err != nil {
		return nil, fmt.Errorf("jobs: read output: %w", err)
	}
	return zr, nil
}

// Download returns the decompressed elements JSON of a stored output.
func Download(o *store.Output) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(o.Data))
	if err != nil {
		return nil, fmt.Errorf("jobs: read output: %w", err)
	}
	defer zr.Close()
	return io.ReadAll(zr)
}
