package api

import (
	"maps"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/internal/openapi"
	"github.com/quarrydocs/quarry/platform/store"
)

// Route is one operation of the platform API: New registers its handler and OpenAPI describes
// it, from this one table, so the document lists exactly the routes that are served.
type Route struct {
	Method, Path string
	Summary      string
	Tag          string
	// Body is a value of the JSON request body's type (nil: no JSON body); Form lists the
	// multipart form fields the route takes instead (name → description; "files" parts are
	// binary).
	Body  any
	Form  map[string]string
	Query map[string]string
	// Status is the success status; Response a value of its body's type (nil: a file or no body).
	Status   int
	Response any
	handler  http.HandlerFunc
}

// ConnectorRequest is the body that creates or replaces a source or destination connector.
type ConnectorRequest struct {
	Name   string         `json:"name" example:"\"my documents\""`
	Type   string         `json:"type" doc:"connector type: azure, confluence or local" example:"\"local\""`
	Config map[string]any `json:"config" doc:"the type's settings; secrets are stored encrypted and answered masked" example:"{\"path\": \"inbox\"}"`
}

// WorkflowRequest is the body that creates or updates a workflow (only name and workflow_type
// are required on create; an update changes the fields it carries).
type WorkflowRequest struct {
	Name          string       `json:"name" example:"\"nightly\""`
	WorkflowType  string       `json:"workflow_type" doc:"basic, advanced, platinum, custom or template" example:"\"basic\""`
	SourceID      *string      `json:"source_id,omitempty"`
	DestinationID *string      `json:"destination_id,omitempty"`
	WorkflowNodes []store.Node `json:"workflow_nodes,omitempty" doc:"custom workflows: the partition, chunk and embed steps"`
	TemplateID    string       `json:"template_id,omitempty"`
	Schedule      string       `json:"schedule,omitempty" doc:"every 15 minutes, hourly, daily, weekly, monthly … or a cron expression"`
	ReprocessAll  bool         `json:"reprocess_all,omitempty"`
	Status        string       `json:"status,omitempty" doc:"active or inactive (update only)"`
}

// Cancelled is the answer to a job cancellation.
type Cancelled struct {
	ID      string `json:"id"`
	Status  string `json:"status"`
	Message string `json:"message"`
}

// FailedFiles lists a job's failed files.
type FailedFiles struct {
	FailedFiles []map[string]any `json:"failed_files"`
}

// routes is the API's route table; a may be nil when only the description is wanted.
func (a *API) routes() []Route {
	var rs []Route
	for _, role := range []store.Role{store.RoleSource, store.RoleDestination} {
		c := connectorRoutes{a: a, role: role}
		base := "/api/v1/" + string(role) + "s"
		tag := string(role) + "s"
		what := string(role) + " connector"
		rs = append(rs,
			Route{Method: "GET", Path: base, Summary: "List " + what + "s", Tag: tag, Status: 200, Response: []ConnectorInfo{}, handler: c.list},
			Route{Method: "POST", Path: base, Summary: "Create a " + what, Tag: tag, Body: ConnectorRequest{}, Status: 200, Response: ConnectorInfo{}, handler: c.create},
			Route{Method: "GET", Path: base + "/{id}", Summary: "Get a " + what, Tag: tag, Status: 200, Response: ConnectorInfo{}, handler: c.get},
			Route{Method: "PUT", Path: base + "/{id}", Summary: "Replace a " + what, Tag: tag, Body: ConnectorRequest{}, Status: 200, Response: ConnectorInfo{}, handler: c.update},
			Route{Method: "DELETE", Path: base + "/{id}", Summary: "Delete a " + what, Tag: tag, Status: 200, handler: c.delete},
			Route{Method: "POST", Path: base + "/{id}/connection-check", Summary: "Start a connection check of a " + what, Tag: tag, Status: 202, Response: CheckInfo{}, handler: c.startCheck},
			Route{Method: "GET", Path: base + "/{id}/connection-check", Summary: "Get the latest connection check of a " + what, Tag: tag, Status: 200, Response: CheckInfo{}, handler: c.latestCheck},
		)
	}
	rs = append(rs,
		Route{Method: "GET", Path: "/api/v1/workflows", Summary: "List workflows", Tag: "workflows", Status: 200, Response: []WorkflowInfo{},
			Query: map[string]string{"source_id": "only workflows reading this source", "destination_id": "only workflows writing this destination",
				"status": "active or inactive", "name": "name contains", "sort_by": "field to sort by", "sort_direction": "asc or desc",
				"page": "page number, from 1", "page_size": "workflows a page (1-1000, default 20)", "show_only_soft_deleted": "true for deleted workflows"},
			handler: a.listWorkflows},
		Route{Method: "POST", Path: "/api/v1/workflows", Summary: "Create a workflow", Tag: "workflows", Body: WorkflowRequest{}, Status: 200, Response: WorkflowInfo{}, handler: a.createWorkflow},
		Route{Method: "GET", Path: "/api/v1/workflows/{id}", Summary: "Get a workflow", Tag: "workflows", Status: 200, Response: WorkflowInfo{}, handler: a.getWorkflow},
		Route{Method: "PUT", Path: "/api/v1/workflows/{id}", Summary: "Update a workflow", Tag: "workflows", Body: WorkflowRequest{}, Status: 200, Response: WorkflowInfo{}, handler: a.updateWorkflow},
		Route{Method: "DELETE", Path: "/api/v1/workflows/{id}", Summary: "Delete a workflow", Tag: "workflows", Status: 200, handler: a.deleteWorkflow},
		Route{Method: "POST", Path: "/api/v1/workflows/{id}/run", Summary: "Run a workflow now (optionally on uploaded files)", Tag: "workflows",
			Form: map[string]string{"input_files": "files to process instead of the workflow's source (optional)"}, Status: 202, Response: JobInfo{}, handler: a.runWorkflow},
		Route{Method: "GET", Path: "/api/v1/jobs", Summary: "List jobs", Tag: "jobs", Status: 200, Response: []JobInfo{},
			Query: map[string]string{"workflow_id": "only this workflow's jobs", "status": "only jobs in this status"}, handler: a.listJobs},
		Route{Method: "POST", Path: "/api/v1/jobs", Summary: "Run an on-demand job on uploaded files", Tag: "jobs",
			Form:   map[string]string{"request_data": `JSON: {"template_id": …} or {"job_nodes": […]}`, "input_files": "the files to process"},
			Status: 200, Response: JobInfo{}, handler: a.createJob},
		Route{Method: "GET", Path: "/api/v1/templates", Summary: "List job templates", Tag: "jobs", Status: 200, Response: []Template{}, handler: a.listTemplates},
		Route{Method: "GET", Path: "/api/v1/templates/{id}", Summary: "Get a job template", Tag: "jobs", Status: 200, Response: Template{}, handler: a.getTemplate},
		Route{Method: "GET", Path: "/api/v1/jobs/{id}", Summary: "Get a job", Tag: "jobs", Status: 200, Response: JobInfo{}, handler: a.getJob},
		Route{Method: "POST", Path: "/api/v1/jobs/{id}/cancel", Summary: "Cancel a job", Tag: "jobs", Status: 200, Response: Cancelled{}, handler: a.cancelJob},
		Route{Method: "GET", Path: "/api/v1/jobs/{id}/details", Summary: "Get a job's per-step counts", Tag: "jobs", Status: 200, Response: JobDetails{}, handler: a.jobDetails},
		Route{Method: "GET", Path: "/api/v1/jobs/{id}/failed-files", Summary: "List a job's failed files", Tag: "jobs", Status: 200, Response: FailedFiles{}, handler: a.failedFiles},
		Route{Method: "GET", Path: "/api/v1/jobs/{id}/download", Summary: "Download an output file of a job", Tag: "jobs",
			Query: map[string]string{"file_id": "the input file's id (required)", "node_id": "the step whose output is wanted (required)"}, Status: 200, handler: a.download},
	)
	return rs
}

// Routes lists the platform API's operations (for documentation and tests).
func Routes() []Route { return (*API)(nil).routes() }

var pathParam = regexp.MustCompile(`\{([a-z_]+)\}`)

// OpenAPI adds the platform API's operations to an OpenAPI document's paths and components.
func OpenAPI(paths map[string]any, c openapi.Components) {
	errorRef := map[string]any{"$ref": "#/components/schemas/Error"}
	for _, rt := range Routes() {
		op := map[string]any{
			"operationId": operationID(rt),
			"summary":     rt.Summary,
			"tags":        []string{rt.Tag},
			"security":    []any{map[string]any{"ApiKeyAuth": []string{}}},
		}
		var params []any
		for _, m := range pathParam.FindAllStringSubmatch(rt.Path, -1) {
			params = append(params, map[string]any{"name": m[1], "in": "path", "required": true,
				"schema": map[string]any{"type": "string"}})
		}
		for _, name := range sortedKeys(rt.Query) {
			params = append(params, map[string]any{"name": name, "in": "query", "required": strings.Contains(rt.Query[name], "(required)"),
				"description": rt.Query[name], "schema": map[string]any{"type": "string"}})
		}
		if len(params) > 0 {
			op["parameters"] = params
		}
		switch {
		case rt.Body != nil:
			op["requestBody"] = map[string]any{"required": true, "content": map[string]any{
				"application/json": map[string]any{"schema": c.Schema(rt.Body)}}}
		case rt.Form != nil:
			props := map[string]any{}
			for _, name := range sortedKeys(rt.Form) {
				s := map[string]any{"type": "string", "description": rt.Form[name]}
				if strings.HasSuffix(name, "files") {
					s = map[string]any{"type": "array", "items": map[string]any{"type": "string", "format": "binary"}, "description": rt.Form[name]}
				}
				props[name] = s
			}
			op["requestBody"] = map[string]any{"required": rt.Method == "POST" && rt.Path == "/api/v1/jobs", "content": map[string]any{
				"multipart/form-data": map[string]any{"schema": map[string]any{"type": "object", "properties": props}}}}
		}
		ok := map[string]any{"description": "Success"}
		if rt.Response != nil {
			ok["content"] = map[string]any{"application/json": map[string]any{"schema": c.Schema(rt.Response)}}
		} else if strings.HasSuffix(rt.Path, "/download") {
			ok["content"] = map[string]any{"application/octet-stream": map[string]any{"schema": map[string]any{"type": "string", "format": "binary"}}}
		}
		responses := map[string]any{
			strconv.Itoa(rt.Status): ok,
			"401":                   map[string]any{"description": "Missing or invalid API key", "content": map[string]any{"application/json": map[string]any{"schema": errorRef}}},
			"429":                   map[string]any{"description": "Too many invalid API keys from this address; retry after the Retry-After delay", "content": map[string]any{"application/json": map[string]any{"schema": errorRef}}},
		}
		if rt.Method == "DELETE" && rt.Tag != "workflows" {
			responses["409"] = map[string]any{"description": "The connector is used by a workflow", "content": map[string]any{"application/json": map[string]any{"schema": errorRef}}}
		}
		if strings.Contains(rt.Path, "{") {
			responses["404"] = map[string]any{"description": "No such object", "content": map[string]any{"application/json": map[string]any{"schema": errorRef}}}
		}
		if rt.Form != nil && rt.Path == "/api/v1/jobs" {
			responses["404"] = map[string]any{"description": "No such template", "content": map[string]any{"application/json": map[string]any{"schema": errorRef}}}
		}
		if rt.Body != nil || rt.Form != nil || rt.Query != nil {
			responses["422"] = map[string]any{"description": "Invalid request (list of field errors)", "content": map[string]any{"application/json": map[string]any{
				"schema": map[string]any{"$ref": "#/components/schemas/HTTPValidationError"}}}}
		}
		op["responses"] = responses
		item, _ := paths[rt.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[rt.Path] = item
		}
		item[strings.ToLower(rt.Method)] = op
	}
}

func operationID(rt Route) string {
	id := strings.ToLower(rt.Method)
	for _, part := range strings.Split(strings.TrimPrefix(rt.Path, "/api/v1/"), "/") {
		part = strings.Trim(part, "{}")
		part = strings.ReplaceAll(part, "-", "_")
		id += "_" + part
	}
	return id
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
