package api

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/platform/jobs"
	"github.com/quarrydocs/quarry/platform/store"
)

// JobInfo is JobInformation, plus Quarry's progress.
type JobInfo struct {
	ID              string           `json:"id"`
	WorkflowID      string           `json:"workflow_id"`
	WorkflowName    string           `json:"workflow_name"`
	Status          string           `json:"status"`
	CreatedAt       string           `json:"created_at"`
	Runtime         *string          `json:"runtime"`
	InputFileIDs    []string         `json:"input_file_ids"`
	OutputNodeFiles []OutputNodeFile `json:"output_node_files"`
	JobType         string           `json:"job_type"`
	Progress        Progress         `json:"progress"`
}

// OutputNodeFile names a downloadable output.
type OutputNodeFile struct {
	NodeID      string `json:"node_id"`
	FileID      string `json:"file_id"`
	NodeType    string `json:"node_type"`
	NodeSubtype string `json:"node_subtype"`
	// Document and Destination are Quarry additions (GET /jobs/{id} only): the source
	// document the output was made from and where the destination wrote it, so a person sees
	// names rather than ids.
	Document    string `json:"document,omitempty"`
	Destination string `json:"destination,omitempty"`
}

// Progress is how far a job is (for pollers such as the web UI).
type Progress struct {
	Total      int  `json:"total"`
	Done       int  `json:"done"`
	Succeeded  int  `json:"succeeded"`
	Failed     int  `json:"failed"`
	InProgress int  `json:"in_progress"`
	Pending    int  `json:"pending"`
	Cancelled  int  `json:"cancelled"`
	Skipped    int  `json:"skipped"`
	Listing    bool `json:"listing"`
}

// JobDetails is the reference's JobDetails, plus progress.
type JobDetails struct {
	ID               string     `json:"id"`
	ProcessingStatus string     `json:"processing_status"`
	NodeStats        []NodeStat `json:"node_stats"`
	Message          *string    `json:"message"`
	Progress         Progress   `json:"progress"`
}

// NodeStat counts a job's files at one node.
type NodeStat struct {
	NodeName    string `json:"node_name"`
	NodeType    string `json:"node_type"`
	NodeSubtype string `json:"node_subtype"`
	Ready       int    `json:"ready"`
	InProgress  int    `json:"in_progress"`
	Success     int    `json:"success"`
	Failure     int    `json:"failure"`
}

func progress(j *store.Job, c store.Counts) Progress {
	return Progress{Total: c.Total(), Done: c.Success + c.Failed + c.Cancelled, Succeeded: c.Success, Failed: c.Failed,
		InProgress: c.InProgress, Pending: c.Pending, Cancelled: c.Cancelled, Skipped: j.Skipped,
		Listing: !j.ListingDone && (j.Status == store.JobScheduled || j.Status == store.JobInProgress)}
}

// isoDuration renders a duration as ISO 8601 (pydantic's timedelta form), e.g. PT12.5S.
func isoDuration(d time.Duration) string {
	s := d.Round(time.Millisecond).Seconds()
	return "PT" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", s), "0"), ".") + "S"
}

func (a *API) jobInfo(r *http.Request, j *store.Job) (JobInfo, error) {
	ctx := r.Context()
	c, err := a.st.FileCounts(ctx, j.ID)
	if err != nil {
		return JobInfo{}, err
	}
	info := JobInfo{ID: j.ID, WorkflowID: j.WorkflowID, WorkflowName: j.WorkflowName, Status: j.Status,
		CreatedAt: fmtTime(j.CreatedAt), JobType: j.JobType, Progress: progress(j, c)}
	if j.StartedAt != nil {
		end := time.Now()
		if j.FinishedAt != nil {
			end = *j.FinishedAt
		}
		d := isoDuration(end.Sub(*j.StartedAt))
		info.Runtime = &d
	}
	if jobs.IsUpload(j) {
		// The uploaded files are known from the start; their ids are the download's file_id.
		files, err := a.st.ListFiles(ctx, j.ID, "")
		if err != nil {
			return JobInfo{}, err
		}
		info.InputFileIDs = make([]string, len(files))
		for i, f := range files {
			info.InputFileIDs[i] = f.ID
		}
	}
	outs, err := a.st.OutputNodes(ctx, j.ID)
	if err != nil {
		return JobInfo{}, err
	}
	nodes := map[string]store.Node{}
	for _, n := range j.Nodes {
		nodes[n.ID] = n
	}
	for _, o := range outs {
		n := nodes[o[1]]
		info.OutputNodeFiles = append(info.OutputNodeFiles, OutputNodeFile{NodeID: o[1], FileID: o[0], NodeType: n.Type, NodeSubtype: n.Subtype})
	}
	return info, nil
}

// jobStatus normalises a status filter: the docs list lowercase words ("in progress").
func jobStatus(s string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", "_"))
}

func (a *API) listJobs(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	wfID := q.Get("workflow_id")
	if wfID != "" {
		if !validUUID(wfID) {
			validation(w, []schema.FieldError{{Type: "uuid_parsing", Loc: []string{"query", "workflow_id"}, Msg: "Input should be a valid UUID", Input: wfID}})
			return
		}
	}
	a.streamJobs(w, r, strings.ToLower(wfID), jobStatus(q.Get("status")))
}

// jobsPage is how many jobs listJobs reads from the store at a time.
const jobsPage = 100

// streamJobs answers the JSON array of every job matching the filters, read and written a page
// at a time: the list has no pagination (the reference's has none), and built whole it grew
// with the job history — each upload job names all its files — without bound. An error after
// the first bytes ends the connection, so a client never takes a cut list for the whole.
func (a *API) streamJobs(w http.ResponseWriter, r *http.Request, wfID, status string) {
	bw := bufio.NewWriterSize(w, 32<<10)
	started := false
	fail := func(err error) {
		if !started {
			a.internal(w, r, err)
			return
		}
		a.log.Error("platform API error", "method", r.Method, "path", r.URL.Path, "err", err)
		panic(http.ErrAbortHandler)
	}
	var cur *store.JobCursor
	for {
		page, next, err := a.st.ListJobsPage(r.Context(), wfID, status, cur, jobsPage)
		if err != nil {
			fail(err)
			return
		}
		for _, j := range page {
			info, err := a.jobInfo(r, j)
			if err != nil {
				fail(err)
				return
			}
			b, err := marshalJSON(info)
			if err != nil {
				fail(err)
				return
			}
			if !started {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusOK)
				bw.WriteByte('[')
				started = true
			} else {
				bw.WriteByte(',')
			}
			bw.Write(b)
		}
		if next == nil {
			break
		}
		cur = next
	}
	if !started {
		writeJSON(w, http.StatusOK, []JobInfo{})
		return
	}
	bw.WriteByte(']')
	bw.Flush()
}

func (a *API) loadJob(w http.ResponseWriter, r *http.Request) (*store.Job, bool) {
	id, ok := pathID(w, r, "job_id")
	if !ok {
		return nil, false
	}
	j, err := a.st.GetJob(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		detail(w, http.StatusNotFound, "Job not found")
		return nil, false
	}
	if err != nil {
		a.internal(w, r, err)
		return nil, false
	}
	return j, true
}

func (a *API) getJob(w http.ResponseWriter, r *http.Request) {
	j, ok := a.loadJob(w, r)
	if !ok {
		return
	}
	info, err := a.jobInfo(r, j)
	if err != nil {
		a.internal(w, r, err)
		return
	}
	if err := a.nameOutputs(r.Context(), j, &info); err != nil {
		a.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}

// nameOutputs gives each output its source document and, when the job's workflow writes to a
// destination, the place it was written (the destination's folder or container followed by the
// document's path and .json, the name the file destinations use).
func (a *API) nameOutputs(ctx context.Context, j *store.Job, info *JobInfo) error {
	if len(info.OutputNodeFiles) == 0 {
		return nil
	}
	files, err := a.st.ListFiles(ctx, j.ID, "")
	if err != nil {
		return err
	}
	docs := make(map[string]*store.JobFile, len(files))
	for _, f := range files {
		docs[f.ID] = f
	}
	target, destName := "", ""
	if wf, err := a.st.GetWorkflow(ctx, j.WorkflowID); err == nil && wf.DestinationID != nil {
		if con, err := a.st.GetConnector(ctx, store.RoleDestination, *wf.DestinationID); err == nil {
			destName = con.Name
			for _, k := range []string{"path", "remote_url"} {
				if v, ok := con.Config[k].(string); ok && v != "" {
					target = strings.TrimSuffix(v, "/")
				}
			}
		}
	}
	for i := range info.OutputNodeFiles {
		o := &info.OutputNodeFiles[i]
		f := docs[o.FileID]
		if f == nil {
			continue
		}
		o.Document = f.DocID
		if o.Document == "" {
			o.Document = f.Filename
		}
		switch {
		case target != "":
			o.Destination = target + "/" + strings.TrimPrefix(o.Document, "/") + ".json"
		case destName != "":
			o.Destination = destName
		}
	}
	return nil
}

func (a *API) cancelJob(w http.ResponseWriter, r *http.Request) {
	j, ok := a.loadJob(w, r)
	if !ok {
		return
	}
	done, err := a.st.CancelJob(r.Context(), j.ID, time.Now())
	if err != nil {
		a.internal(w, r, err)
		return
	}
	if !done {
		detail(w, http.StatusConflict, fmt.Sprintf("Job %s is not active (status %s)", j.ID, j.Status))
		return
	}
	a.runner.Stopped(j)
	writeJSON(w, http.StatusOK, map[string]any{"id": j.ID, "status": "cancelled", "message": "Job successfully cancelled."})
}

func (a *API) jobDetails(w http.ResponseWriter, r *http.Request) {
	j, ok := a.loadJob(w, r)
	if !ok {
		return
	}
	c, err := a.st.FileCounts(r.Context(), j.ID)
	if err != nil {
		a.internal(w, r, err)
		return
	}
	srcType, dstType := "", ""
	if jobs.IsUpload(j) {
		srcType = "local"
	} else if con, err := a.st.GetConnector(r.Context(), store.RoleSource, j.SourceID); err == nil {
		srcType = con.Type
	}
	if con, err := a.st.GetConnector(r.Context(), store.RoleDestination, j.DestinationID); err == nil {
		dstType = con.Type
	}
	type node struct{ name, typ, sub string }
	all := []node{{"Source", "source", srcType}}
	for _, n := range j.Nodes {
		all = append(all, node{n.Name, n.Type, n.Subtype})
	}
	if j.DestinationID != "" {
		all = append(all, node{"Destination", "destination", dstType})
	}
	stats := make([]NodeStat, len(all))
	for i, n := range all {
		s := NodeStat{NodeName: n.name, NodeType: n.typ, NodeSubtype: n.sub}
		s.Success = c.Success
		for stage, k := range c.ByStage[store.FileFailed] {
			if stage == i {
				s.Failure += k
			} else if stage > i {
				s.Success += k
			}
		}
		for stage, k := range c.ByStage[store.FileInProgress] {
			if stage == i {
				s.InProgress += k
			} else if stage > i {
				s.Success += k
			}
		}
		if i == 0 {
			s.Ready = c.Pending
		}
		stats[i] = s
	}
	writeJSON(w, http.StatusOK, JobDetails{ID: j.ID, ProcessingStatus: j.ProcessingStatus, NodeStats: stats, Message: j.Message, Progress: progress(j, c)})
}

func (a *API) failedFiles(w http.ResponseWriter, r *http.Request) {
	j, ok := a.loadJob(w, r)
	if !ok {
		return
	}
	// Read and written a page at a time, as the job list: a job may fail a million files.
	type failed struct {
		Document string `json:"document"`
		Error    string `json:"error"`
	}
	bw := bufio.NewWriterSize(w, 32<<10)
	started := false
	var after *store.FailedFile
	for {
		page, more, err := a.st.FailedFilesPage(r.Context(), j.ID, after, jobsPage)
		if err != nil {
			if !started {
				a.internal(w, r, err)
				return
			}
			a.log.Error("platform API error", "method", r.Method, "path", r.URL.Path, "err", err)
			panic(http.ErrAbortHandler)
		}
		if !started {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusOK)
			bw.WriteString(`{"failed_files":[`)
			started = true
		}
		for i, f := range page {
			b, err := marshalJSON(failed{Document: f.DocID, Error: f.Error})
			if err != nil {
				panic(http.ErrAbortHandler)
			}
			if after != nil || i > 0 {
				bw.WriteByte(',')
			}
			bw.Write(b)
		}
		if !more {
			break
		}
		after = &page[len(page)-1]
	}
	bw.WriteString(`]}`)
	bw.Flush()
}

func (a *API) download(w http.ResponseWriter, r *http.Request) {
	j, ok := a.loadJob(w, r)
	if !ok {
		return
	}
	q := r.URL.Query()
	fileID := q.Get("file_id")
	if fileID == "" {
		validation(w, []schema.FieldError{{Type: "missing", Loc: []string{"query", "file_id"}, Msg: "Field required", Input: nil}})
		return
	}
	nodeID := q.Get("node_id")
	if nodeID != "" && !validUUID(nodeID) {
		validation(w, []schema.FieldError{{Type: "uuid_parsing", Loc: []string{"query", "node_id"}, Msg: "Input should be a valid UUID", Input: nodeID}})
		return
	}
	o, err := a.st.GetOutput(r.Context(), j.ID, fileID, strings.ToLower(nodeID))
	if errors.Is(err, store.ErrNotFound) {
		detail(w, http.StatusNotFound, fmt.Sprintf("No output for file %s of job %s", fileID, j.ID))
		return
	}
	if err != nil {
		a.internal(w, r, err)
		return
	}
	// Inflated as it is written: the JSON may be 256 MiB, held whole per request before. A
	// stream that breaks after the status was sent ends the connection.
	rc, err := jobs.OpenOutput(o)
	if err != nil {
		a.internal(w, r, err)
		return
	}
	defer rc.Close()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := io.Copy(w, rc); err != nil {
		if r.Context().Err() == nil {
			a.log.Error("platform API error", "method", r.Method, "path", r.URL.Path, "err", err)
		}
		panic(http.ErrAbortHandler)
	}
}
