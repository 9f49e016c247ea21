package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/platform/jobs"
	"github.com/quarrydocs/quarry/platform/store"
)

// multipartMemory is how much of a multipart body is held in memory; larger files spill to
// temporary files, removed once the uploads are copied to the job.
const multipartMemory = 32 << 20

// parseMultipart reads a multipart body within the upload limit, answering the error itself.
// Bodies over 32 MiB spill to temporary files, so at most Config.MaxConcurrentUploads are read
// at once (each may be 1 GiB of disk until the request ends), and none while the upload
// backlog is full. done removes the temporary files and frees the slot.
func (a *API) parseMultipart(w http.ResponseWriter, r *http.Request) (done func(), ok bool) {
	select {
	case a.uploadSlots <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "5")
		detail(w, http.StatusServiceUnavailable, "Too many uploads in progress; retry shortly")
		return nil, false
	}
	release := func() { <-a.uploadSlots }
	if a.runner != nil && a.runner.UploadsFull() {
		release()
		uploadsFull(w)
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, a.maxUpload)
	if err := r.ParseMultipartForm(multipartMemory); err != nil {
		release()
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			detail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body larger than %d bytes", a.maxUpload))
			return nil, false
		}
		detail(w, http.StatusBadRequest, "Invalid multipart body: "+err.Error())
		return nil, false
	}
	return func() {
		r.MultipartForm.RemoveAll()
		release()
	}, true
}

// uploadsFull answers a refusal for lack of upload space: 503 with Retry-After, as for an
// overloaded partition API (the SDKs retry it).
func uploadsFull(w http.ResponseWriter) {
	w.Header().Set("Retry-After", "30")
	detail(w, http.StatusServiceUnavailable, "Too many uploaded files are waiting to be processed; retry when running jobs have finished")
}

// uploads turns the input_files parts into job uploads.
func uploads(r *http.Request) []jobs.Upload {
	if r.MultipartForm == nil {
		return nil
	}
	var out []jobs.Upload
	for _, fh := range r.MultipartForm.File["input_files"] {
		out = append(out, jobs.Upload{Filename: fh.Filename, ContentType: fh.Header.Get("Content-Type"),
			Open: func() (io.ReadCloser, error) { return fh.Open() }})
	}
	return out
}

// requestData reads the request_data part: a JSON string, sent as a field or (by some
// clients) as a file part.
func requestData(form *multipart.Form) (string, bool, error) {
	if v := form.Value["request_data"]; len(v) > 0 {
		return v[0], true, nil
	}
	if fhs := form.File["request_data"]; len(fhs) > 0 {
		f, err := fhs[0].Open()
		if err != nil {
			return "", true, err
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, 10<<20))
		return string(b), true, err
	}
	return "", false, nil
}

// jobNodesKeys are the request_data keys accepted for a node list; workflow_nodes is taken too
// so a workflow's node list can be pasted as is.
var jobNodesKeys = []string{"job_nodes", "workflow_nodes"}

// createJob runs an on-demand job: the uploaded input_files through the nodes of a template or
// of request_data, answered 200 with JobInformation. The outputs are kept for the download
// endpoint; there is no destination.
func (a *API) createJob(w http.ResponseWriter, r *http.Request) {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
		validation(w, []schema.FieldError{{Type: "missing", Loc: []string{"body", "request_data"}, Msg: "Field required", Input: nil},
			{Type: "missing", Loc: []string{"body", "input_files"}, Msg: "Field required", Input: nil}})
		return
	}
	done, ok := a.parseMultipart(w, r)
	if !ok {
		return
	}
	defer done()
	// request_data problems come first and input_files last, in the form's field order.
	var errs, filesErr []schema.FieldError
	raw, present, err := requestData(r.MultipartForm)
	if err != nil {
		detail(w, http.StatusBadRequest, "Cannot read request_data: "+err.Error())
		return
	}
	files := uploads(r)
	if len(files) == 0 {
		filesErr = []schema.FieldError{{Type: "missing", Loc: []string{"body", "input_files"}, Msg: "Field required", Input: nil}}
	}
	if !present {
		validation(w, append([]schema.FieldError{{Type: "missing", Loc: []string{"body", "request_data"}, Msg: "Field required", Input: nil}}, filesErr...))
		return
	}
	var decoded any
	if err := json.Unmarshal([]byte(raw), &decoded); err != nil {
		validation(w, append([]schema.FieldError{{Type: "json_invalid", Loc: []string{"body", "request_data"}, Msg: "Invalid JSON",
			Input: raw, Ctx: map[string]any{"error": err.Error()}}}, filesErr...))
		return
	}
	body, ok := decoded.(map[string]any)
	if !ok {
		validation(w, append([]schema.FieldError{{Type: "model_attributes_type", Loc: []string{"body", "request_data"},
			Msg: "Input should be a valid dictionary or object to extract fields from", Input: decoded}}, filesErr...))
		return
	}
	f := &fields{body: body}
	wf := &store.Workflow{ID: uuid.NewString(), Name: "On-demand job", CreatedAt: time.Now().UTC()}
	jobType := "ephemeral"
	tid, hasTemplate := f.str("template_id", false)
	var nodesKey string
	for _, k := range jobNodesKeys {
		if _, ok := body[k]; ok && body[k] != nil {
			nodesKey = k
			break
		}
	}
	switch {
	case hasTemplate && nodesKey != "":
		f.fail("value_error", "Value error, give either template_id or "+nodesKey+", not both", body)
	case nodesKey != "":
		// Node problems are located as the workflow endpoints locate them, under request_data.
		sub := &fields{body: map[string]any{"workflow_nodes": body[nodesKey]}}
		wf.Nodes = sub.nodes(body[nodesKey])
		for _, fe := range sub.errs {
			fe.Loc = append([]string{"body", "request_data", nodesKey}, fe.Loc[2:]...)
			errs = append(errs, fe)
		}
		if len(sub.errs) == 0 && len(wf.Nodes) == 0 {
			f.fail("too_short", "List should have at least 1 item after validation, not 0", body[nodesKey], nodesKey)
		}
	case !hasTemplate:
		if _, ok := body["template_id"]; !ok || body["template_id"] == nil {
			f.fail("value_error", "Value error, request_data needs template_id or job_nodes", body)
		}
	}
	if name, ok := f.str("name", false); ok && strings.TrimSpace(name) != "" {
		wf.Name = name
	}
	for _, fe := range f.errs {
		fe.Loc = append([]string{"body", "request_data"}, fe.Loc[1:]...)
		errs = append(errs, fe)
	}
	if errs = append(errs, filesErr...); len(errs) > 0 {
		validation(w, errs)
		return
	}
	if hasTemplate {
		t, ok := lookupTemplate(tid)
		if !ok {
			templateNotFound(w, tid)
			return
		}
		wf.Nodes, jobType = templateNodes(t), "template"
		if _, named := body["name"]; !named {
			wf.Name = t.Name
		}
	}
	defaultNodes(wf)
	j, err := a.runner.RunUploads(r.Context(), wf, jobType, files)
	if errors.Is(err, jobs.ErrUploadsFull) {
		uploadsFull(w)
		return
	}
	if err != nil {
		a.internal(w, r, err)
		return
	}
	info, err := a.jobInfo(r, j)
	if err != nil {
		a.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, info)
}
