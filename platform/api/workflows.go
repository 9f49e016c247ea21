package api

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/platform/jobs"
	"github.com/quarrydocs/quarry/platform/schedule"
	"github.com/quarrydocs/quarry/platform/store"
)

// WorkflowInfo is WorkflowInformation.
type WorkflowInfo struct {
	ID            string       `json:"id"`
	Name          string       `json:"name"`
	Sources       []string     `json:"sources"`
	Destinations  []string     `json:"destinations"`
	WorkflowType  *string      `json:"workflow_type"`
	WorkflowNodes []store.Node `json:"workflow_nodes"`
	Schedule      *Schedule    `json:"schedule"`
	Status        string       `json:"status"`
	CreatedAt     string       `json:"created_at"`
	UpdatedAt     *string      `json:"updated_at"`
	ReprocessAll  bool         `json:"reprocess_all"`
	// NextRunAt is a Quarry addition: when the schedule next starts a job.
	NextRunAt *string `json:"next_run_at,omitempty"`
}

// Schedule is the output form of a schedule: cron entries.
type Schedule struct {
	CrontabEntries []CronEntry `json:"crontab_entries"`
}

// CronEntry is one cron expression.
type CronEntry struct {
	CronExpression string `json:"cron_expression"`
}

// workflowTypes adds the 2026 SDK's template (nodes from template_id) to the spec's enum.
var workflowTypes = []string{"basic", "advanced", "platinum", "custom", "template"}

func workflowInfo(wf *store.Workflow) WorkflowInfo {
	info := WorkflowInfo{ID: wf.ID, Name: wf.Name, Sources: []string{}, Destinations: []string{}, WorkflowType: wf.WorkflowType,
		WorkflowNodes: wf.Nodes, Status: wf.Status, CreatedAt: fmtTime(wf.CreatedAt), UpdatedAt: fmtTimePtr(wf.UpdatedAt),
		ReprocessAll: wf.ReprocessAll, NextRunAt: fmtTimePtr(wf.NextRunAt)}
	if wf.SourceID != nil {
		info.Sources = []string{*wf.SourceID}
	}
	if wf.DestinationID != nil {
		info.Destinations = []string{*wf.DestinationID}
	}
	if wf.Schedule != nil {
		info.Schedule = &Schedule{CrontabEntries: []CronEntry{{CronExpression: *wf.Schedule}}}
	}
	for i := range info.WorkflowNodes {
		if info.WorkflowNodes[i].Settings == nil {
			info.WorkflowNodes[i].Settings = map[string]any{}
		}
	}
	return info
}

func (a *API) listWorkflows(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	f := store.WorkflowFilter{SourceID: q.Get("source_id"), DestinationID: q.Get("destination_id"), Status: q.Get("status"),
		Name: q.Get("name"), SortBy: q.Get("sort_by"), Page: 1, PageSize: 20}
	var errs []schema.FieldError
	intParam := func(name string, dst *int, lo, hi int) {
		if v := q.Get(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				errs = append(errs, schema.FieldError{Type: "int_parsing", Loc: []string{"query", name}, Msg: "Input should be a valid integer, unable to parse string as an integer", Input: v})
				return
			}
			if n < lo || n > hi {
				errs = append(errs, schema.FieldError{Type: "value_error", Loc: []string{"query", name}, Msg: fmt.Sprintf("Value error, must be between %d and %d", lo, hi), Input: v})
				return
			}
			*dst = n
		}
	}
	intParam("page", &f.Page, 1, 1<<30)
	intParam("page_size", &f.PageSize, 1, 1000)
	switch d := strings.ToLower(q.Get("sort_direction")); d {
	case "", "asc":
	case "desc":
		f.Desc = true
	default:
		errs = append(errs, schema.FieldError{Type: "enum", Loc: []string{"query", "sort_direction"}, Msg: "Input should be 'asc' or 'desc'", Input: d})
	}
	if f.SortBy != "" && !contains([]string{"id", "name", "created_at", "updated_at", "status"}, f.SortBy) {
		errs = append(errs, schema.FieldError{Type: "enum", Loc: []string{"query", "sort_by"}, Msg: "Input should be 'id', 'name', 'created_at', 'updated_at' or 'status'", Input: f.SortBy})
	}
	if f.Status != "" && f.Status != "active" && f.Status != "inactive" {
		errs = append(errs, schema.FieldError{Type: "enum", Loc: []string{"query", "status"}, Msg: "Input should be 'active' or 'inactive'", Input: f.Status})
	}
	for _, p := range []struct {
		name string
		dst  **time.Time
	}{{"created_since", &f.CreatedSince}, {"created_before", &f.CreatedBefore}} {
		if v := q.Get(p.name); v != "" {
			t, err := parseTime(v)
			if err != nil {
				errs = append(errs, schema.FieldError{Type: "datetime_from_date_parsing", Loc: []string{"query", p.name}, Msg: "Input should be a valid datetime", Input: v})
				continue
			}
			*p.dst = &t
		}
	}
	// FastAPI reads these as bool query parameters: pydantic's truth values, anything else 422.
	var softDeleted bool
	for _, p := range []struct {
		name string
		dst  *bool
	}{{"show_only_soft_deleted", &softDeleted}, {"show_recommender_workflows", nil}} {
		if v := q.Get(p.name); v != "" {
			b, ok := schema.ParseBool(v, schema.Pydantic)
			if !ok {
				errs = append(errs, schema.FieldError{Type: "bool_parsing", Loc: []string{"query", p.name}, Msg: "Input should be a valid boolean, unable to interpret input", Input: v})
			} else if p.dst != nil {
				*p.dst = b
			}
		}
	}
	if len(errs) > 0 {
		validation(w, errs)
		return
	}
	if softDeleted {
		// Deleted workflows are removed, not soft-deleted.
		writeJSON(w, http.StatusOK, []WorkflowInfo{})
		return
	}
	list, err := a.st.ListWorkflows(r.Context(), f)
	if err != nil {
		a.internal(w, r, err)
		return
	}
	out := make([]WorkflowInfo, len(list))
	for i, wf := range list {
		out[i] = workflowInfo(wf)
	}
	writeJSON(w, http.StatusOK, out)
}

func parseTime(v string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02"} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad time %q", v)
}

func (a *API) loadWorkflow(w http.ResponseWriter, r *http.Request) (*store.Workflow, bool) {
	id, ok := pathID(w, r, "workflow_id")
	if !ok {
		return nil, false
	}
	wf, err := a.st.GetWorkflow(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		detail(w, http.StatusNotFound, fmt.Sprintf("Workflow with id %s not found", id))
		return nil, false
	}
	if err != nil {
		a.internal(w, r, err)
		return nil, false
	}
	return wf, true
}

func (a *API) getWorkflow(w http.ResponseWriter, r *http.Request) {
	if wf, ok := a.loadWorkflow(w, r); ok {
		writeJSON(w, http.StatusOK, workflowInfo(wf))
	}
}

// applyWorkflow validates body fields onto wf (all optional when updating).
func (a *API) applyWorkflow(r *http.Request, f *fields, wf *store.Workflow, create bool) {
	ctx := r.Context()
	if name, ok := f.str("name", create); ok {
		if strings.TrimSpace(name) == "" {
			f.fail("string_too_short", "String should have at least 1 character", name, "name")
		}
		wf.Name = name
	}
	if wt, ok := f.str("workflow_type", create); ok {
		if !contains(workflowTypes, wt) {
			f.errs = append(f.errs, schema.FieldError{Type: "enum", Loc: []string{"body", "workflow_type"}, Msg: "Input should be " + quoteList(workflowTypes),
				Input: wt, Ctx: map[string]any{"expected": quoteList(workflowTypes)}})
		}
		wf.WorkflowType = &wt
	}
	for _, ref := range []struct {
		key  string
		role store.Role
		dst  **string
	}{{"source_id", store.RoleSource, &wf.SourceID}, {"destination_id", store.RoleDestination, &wf.DestinationID}} {
		if _, present := f.body[ref.key]; present && f.body[ref.key] == nil {
			*ref.dst = nil
			continue
		}
		id, ok := f.uuidField(ref.key)
		if !ok {
			continue
		}
		if _, err := a.st.GetConnector(ctx, ref.role, *id); err != nil {
			f.fail("value_error", fmt.Sprintf("Value error, %s connector %s not found", ref.role, *id), *id, ref.key)
			continue
		}
		*ref.dst = id
	}
	if v, present := f.body["workflow_nodes"]; present {
		wf.Nodes = f.nodes(v)
	}
	// template_id (2026 SDK) takes the nodes of a template when workflow_nodes gives none.
	if tid, ok := f.str("template_id", false); ok {
		t, found := lookupTemplate(tid)
		switch {
		case !found:
			f.fail("value_error", "Value error, template "+tid+" not found", tid, "template_id")
		case f.body["workflow_nodes"] != nil:
			f.fail("value_error", "Value error, give either template_id or workflow_nodes, not both", tid, "template_id")
		default:
			wf.Nodes = templateNodes(t)
		}
	}
	if v, present := f.body["schedule"]; present {
		switch s := v.(type) {
		case nil:
			wf.Schedule, wf.NextRunAt = nil, nil
		case string:
			cron, ok := schedule.Cron(s)
			if !ok {
				f.errs = append(f.errs, schema.FieldError{Type: "enum", Loc: []string{"body", "schedule"}, Msg: "Input should be " + quoteList(schedule.Phrases()),
					Input: s, Ctx: map[string]any{"expected": quoteList(schedule.Phrases())}})
				break
			}
			wf.Schedule = &cron
		default:
			f.fail("string_type", "Input should be a valid string", v, "schedule")
		}
	}
	if b, ok := f.boolean("reprocess_all"); ok {
		wf.ReprocessAll = b
	}
	if st, ok := f.str("status", false); ok && !create {
		if st != "active" && st != "inactive" {
			f.fail("enum", "Input should be 'active' or 'inactive'", st, "status")
		}
		wf.Status = st
	}
}

// nodes parses workflow_nodes and checks their settings with the partition API's rules.
func (f *fields) nodes(v any) []store.Node {
	if v == nil {
		return []store.Node{}
	}
	list, ok := v.([]any)
	if !ok {
		f.fail("list_type", "Input should be a valid list", v, "workflow_nodes")
		return nil
	}
	out := make([]store.Node, 0, len(list))
	bad := false
	for i, item := range list {
		at := []string{"workflow_nodes", strconv.Itoa(i)}
		obj, ok := item.(map[string]any)
		if !ok {
			f.fail("model_attributes_type", "Input should be a valid dictionary or object to extract fields from", item, at...)
			bad = true
			continue
		}
		sub := &fields{body: obj}
		n := store.Node{}
		n.Name, _ = sub.str("name", true)
		n.Type, _ = sub.str("type", true)
		n.Subtype, _ = sub.str("subtype", true)
		n.Settings, _ = sub.object("settings", false)
		if id, ok := sub.uuidField("id"); ok {
			n.ID = *id
		} else {
			n.ID = uuid.NewString()
		}
		for _, fe := range sub.errs {
			fe.Loc = append(append([]string{"body"}, at...), fe.Loc[1:]...)
			f.errs = append(f.errs, fe)
			bad = true
		}
		out = append(out, n)
	}
	if !bad {
		if _, err := jobs.Options(out); err != nil {
			var ve *schema.ValidationError
			if errors.As(err, &ve) {
				f.errs = append(f.errs, ve.Errors...)
			} else {
				f.fail("value_error", "Value error, "+err.Error(), v, "workflow_nodes")
			}
		}
	}
	return out
}

// defaultNodes gives a workflow without nodes the partition node it implicitly has, so its
// output can be downloaded like any other.
func defaultNodes(wf *store.Workflow) {
	for _, n := range wf.Nodes {
		if n.Type == jobs.NodePartition {
			return
		}
	}
	wf.Nodes = append([]store.Node{{ID: uuid.NewString(), Name: "Partitioner", Type: jobs.NodePartition, Subtype: "auto",
		Settings: map[string]any{}}}, wf.Nodes...)
}

func nextRun(wf *store.Workflow, now time.Time) {
	wf.NextRunAt = nil
	if wf.Schedule == nil {
		return
	}
	if spec, err := schedule.Parse(*wf.Schedule); err == nil {
		t := spec.Next(now)
		wf.NextRunAt = &t
	}
}

func (a *API) createWorkflow(w http.ResponseWriter, r *http.Request) {
	body, ok := a.decodeBody(w, r)
	if !ok {
		return
	}
	now := time.Now().UTC()
	wf := &store.Workflow{ID: uuid.NewString(), Nodes: []store.Node{}, Status: "active", CreatedAt: now}
	f := &fields{body: body}
	a.applyWorkflow(r, f, wf, true)
	if len(f.errs) > 0 {
		validation(w, f.errs)
		return
	}
	defaultNodes(wf)
	nextRun(wf, now)
	if err := a.st.SaveWorkflow(r.Context(), wf); err != nil {
		a.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, workflowInfo(wf))
}

func (a *API) updateWorkflow(w http.ResponseWriter, r *http.Request) {
	wf, ok := a.loadWorkflow(w, r)
	if !ok {
		return
	}
	body, ok := a.decodeBody(w, r)
	if !ok {
		return
	}
	oldSchedule := wf.Schedule
	f := &fields{body: body}
	a.applyWorkflow(r, f, wf, false)
	if len(f.errs) > 0 {
		validation(w, f.errs)
		return
	}
	now := time.Now().UTC()
	defaultNodes(wf)
	if (oldSchedule == nil) != (wf.Schedule == nil) || (oldSchedule != nil && *oldSchedule != *wf.Schedule) || wf.NextRunAt == nil {
		nextRun(wf, now)
	}
	wf.UpdatedAt = &now
	if err := a.st.SaveWorkflow(r.Context(), wf); err != nil {
		a.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, workflowInfo(wf))
}

func (a *API) deleteWorkflow(w http.ResponseWriter, r *http.Request) {
	wf, ok := a.loadWorkflow(w, r)
	if !ok {
		return
	}
	if err := a.st.DeleteWorkflow(r.Context(), wf.ID); err != nil {
		a.internal(w, r, err)
		return
	}
	detail(w, http.StatusOK, fmt.Sprintf("Workflow with id %s successfully deleted.", wf.ID))
}

func (a *API) runWorkflow(w http.ResponseWriter, r *http.Request) {
	wf, ok := a.loadWorkflow(w, r)
	if !ok {
		return
	}
	var files []jobs.Upload
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		done, ok := a.parseMultipart(w, r)
		if !ok {
			return
		}
		defer done()
		files = uploads(r)
	}
	var j *store.Job
	var err error
	if len(files) > 0 {
		// Uploaded files replace the source, as for the reference's local-file workflows; the
		// destination, when there is one, still receives the elements.
		j, err = a.runner.RunUploads(r.Context(), wf, "persistent", files)
	} else {
		if wf.SourceID == nil || wf.DestinationID == nil {
			detail(w, http.StatusBadRequest, fmt.Sprintf("Workflow %s needs a source and a destination to run, or input_files", wf.ID))
			return
		}
		j, err = a.runner.Run(r.Context(), wf, "persistent")
	}
	if errors.Is(err, jobs.ErrActive) {
		detail(w, http.StatusConflict, fmt.Sprintf("Workflow %s already has an active job", wf.ID))
		return
	}
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
	writeJSON(w, http.StatusAccepted, info)
}
