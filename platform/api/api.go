// Package api serves the platform API under /api/v1/ (reference platform.md §1): source and
// destination connectors, workflows and jobs, with the reference's status codes (create 200,
// connection check and run 202), bare JSON arrays, {"detail": "…"} errors and the list-form 422
// detail for invalid bodies. Secrets are stored sealed and answered masked.
package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/internal/apikey"
	"github.com/quarrydocs/quarry/platform/jobs"
	"github.com/quarrydocs/quarry/platform/secret"
	"github.com/quarrydocs/quarry/platform/store"
)

// Config configures the API handler.
type Config struct {
	Store   *store.Store
	Secrets *secret.Box
	Runner  *jobs.Runner
	// APIKeys, when non-empty, are the accepted keys (same headers as the partition API).
	APIKeys []string
	// AuthLimiter answers 429 to an address after too many refused keys (nil: its own).
	AuthLimiter *apikey.Limiter
	Logger      *slog.Logger
	// MaxBodyBytes caps a JSON request body (default 10 MiB).
	MaxBodyBytes int64
	// MaxUploadBytes caps a multipart body of uploaded files (default 1 GiB).
	MaxUploadBytes int64
	// Env is the operator's policy for connectors (local roots, private network).
	Env connectors.Env
	// MaxConcurrentUploads caps the multipart bodies read at once (default 4); more get 503.
	MaxConcurrentUploads int
}

// API is the platform API handler.
type API struct {
	st        *store.Store
	box       *secret.Box
	runner    *jobs.Runner
	keys      apikey.Keys
	authLimit *apikey.Limiter
	log       *slog.Logger
	max       int64
	// maxUpload caps multipart bodies (on-demand jobs, runs with input_files).
	maxUpload int64
	// uploadSlots holds one token per multipart body being read.
	uploadSlots chan struct{}
	mux         *http.ServeMux
	env         connectors.Env
	// csrf refuses state-changing requests a browser sends from another origin: with JSON-only
	// bodies it closes the "any web page the operator visits drives the API" hole, including the
	// bodiless POSTs (run, cancel, connection-check) and the multipart uploads.
	csrf *http.CrossOriginProtection
}

// Prefix is where the API is mounted.
const Prefix = "/api/v1/"

// New builds the handler; mount it at Prefix.
func New(cfg Config) *API {
	a := &API{st: cfg.Store, box: cfg.Secrets, runner: cfg.Runner, keys: apikey.New(cfg.APIKeys), log: cfg.Logger, max: cfg.MaxBodyBytes,
		env: cfg.Env, csrf: http.NewCrossOriginProtection()}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.authLimit = cfg.AuthLimiter; a.authLimit == nil {
		a.authLimit = apikey.NewLimiter(apikey.LimiterConfig{})
	}
	if a.max <= 0 {
		a.max = 10 << 20
	}
	slots := cfg.MaxConcurrentUploads
	if slots <= 0 {
		slots = 4
	}
	a.uploadSlots = make(chan struct{}, slots)
	a.maxUpload = cfg.MaxUploadBytes
	if a.maxUpload <= 0 {
		a.maxUpload = 1 << 30
	}
	m := http.NewServeMux()
	a.mux = m
	// Every route answers with and without a trailing slash.
	handle := func(pattern string, h http.HandlerFunc) {
		m.HandleFunc(pattern, h)
		m.HandleFunc(pattern+"/", h)
	}
	for _, rt := range a.routes() {
		handle(rt.Method+" "+rt.Path, rt.handler)
	}
	return a
}

// ServeHTTP checks the API key, then routes.
func (a *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Answers carry document text (outputs, file errors): no browser may sniff them into HTML,
	// whatever serves this handler.
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if status, msg := a.keys.Deny(a.authLimit, w, r); status != 0 {
		detail(w, status, msg)
		return
	}
	if err := a.csrf.Check(r); err != nil {
		detail(w, http.StatusForbidden, "Cross-origin request refused: the platform API only accepts state-changing requests from its own origin")
		return
	}
	// The mux answers unknown paths (404) and known paths with the wrong method (405) in plain
	// text; those answers are rewritten in the API's JSON shape.
	a.mux.ServeHTTP(&methodWriter{ResponseWriter: w}, r)
}

// methodWriter rewrites the mux's plain-text 404 and 405 into JSON details.
type methodWriter struct {
	http.ResponseWriter
	swallow bool
}

func (m *methodWriter) WriteHeader(code int) {
	if (code == http.StatusMethodNotAllowed || code == http.StatusNotFound) &&
		!strings.HasPrefix(m.Header().Get("Content-Type"), "application/json") {
		m.swallow = true
		m.Header().Set("Content-Type", "application/json")
		m.ResponseWriter.WriteHeader(code)
		if code == http.StatusNotFound {
			m.ResponseWriter.Write([]byte(`{"detail":"Not Found"}`))
		} else {
			m.ResponseWriter.Write([]byte(`{"detail":"Method Not Allowed"}`))
		}
		return
	}
	m.ResponseWriter.WriteHeader(code)
}

func (m *methodWriter) Write(b []byte) (int, error) {
	if m.swallow {
		return len(b), nil
	}
	return m.ResponseWriter.Write(b)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte(`{"detail":"Internal server error"}`))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}

// marshalJSON encodes v as writeJSON does (no HTML escaping, no trailing newline).
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

func detail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"detail": msg})
}

// validation answers 422 with the list-form detail.
func validation(w http.ResponseWriter, errs []schema.FieldError) {
	items := make([]map[string]any, len(errs))
	for i, fe := range errs {
		loc := make([]any, len(fe.Loc))
		for j, l := range fe.Loc {
			loc[j] = l
			// List indexes are integers in FastAPI's locations.
			if j > 0 && (fe.Loc[j-1] == "workflow_nodes" || fe.Loc[j-1] == "job_nodes") {
				var n int
				if _, err := fmt.Sscanf(l, "%d", &n); err == nil {
					loc[j] = n
				}
			}
		}
		item := map[string]any{"type": fe.Type, "loc": loc, "msg": fe.Msg, "input": fe.Input}
		if fe.Ctx != nil {
			item["ctx"] = fe.Ctx
		}
		items[i] = item
	}
	writeJSON(w, http.StatusUnprocessableEntity, map[string]any{"detail": items})
}

func (a *API) internal(w http.ResponseWriter, r *http.Request, err error) {
	a.log.Error("platform API error", "method", r.Method, "path", r.URL.Path, "err", err)
	detail(w, http.StatusInternalServerError, "Internal server error")
}

// pathID reads a UUID path parameter, answering 422 (as FastAPI does for uuid parameters).
func pathID(w http.ResponseWriter, r *http.Request, name string) (string, bool) {
	raw := r.PathValue("id")
	id, err := uuid.Parse(raw)
	if err != nil {
		validation(w, []schema.FieldError{{Type: "uuid_parsing", Loc: []string{"path", name},
			Msg: "Input should be a valid UUID, " + strings.TrimPrefix(err.Error(), "invalid UUID "), Input: raw}})
		return "", false
	}
	return id.String(), true
}

// decodeBody reads a JSON object body, answering 422 when it is not one.
func (a *API) decodeBody(w http.ResponseWriter, r *http.Request) (map[string]any, bool) {
	// Only JSON: a browser can send text/plain, form or multipart bodies cross-site without a
	// preflight, application/json it cannot.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		detail(w, http.StatusUnsupportedMediaType, "Unsupported Content-Type: send the body as application/json")
		return nil, false
	}
	r.Body = http.MaxBytesReader(w, r.Body, a.max)
	dec := json.NewDecoder(r.Body)
	var body any
	if err := dec.Decode(&body); err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			detail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("Request body larger than %d bytes", a.max))
			return nil, false
		}
		msg := "JSON decode error"
		if err.Error() == "EOF" {
			validation(w, []schema.FieldError{{Type: "missing", Loc: []string{"body"}, Msg: "Field required", Input: nil}})
			return nil, false
		}
		validation(w, []schema.FieldError{{Type: "json_invalid", Loc: []string{"body"}, Msg: msg, Input: map[string]any{},
			Ctx: map[string]any{"error": err.Error()}}})
		return nil, false
	}
	obj, ok := body.(map[string]any)
	if !ok {
		validation(w, []schema.FieldError{{Type: "model_attributes_type", Loc: []string{"body"},
			Msg: "Input should be a valid dictionary or object to extract fields from", Input: body}})
		return nil, false
	}
	return obj, true
}

// fields collects 422 errors for a body.
type fields struct {
	body map[string]any
	errs []schema.FieldError
}

func (f *fields) fail(typ, msg string, input any, loc ...string) {
	f.errs = append(f.errs, schema.FieldError{Type: typ, Loc: append([]string{"body"}, loc...), Msg: msg, Input: input})
}

func (f *fields) missing(key string) { f.fail("missing", "Field required", f.body, key) }

// str reads an optional (or, with required, mandatory) string field.
func (f *fields) str(key string, required bool) (string, bool) {
	v, ok := f.body[key]
	if !ok || v == nil {
		if required {
			f.missing(key)
		}
		return "", false
	}
	s, ok := v.(string)
	if !ok {
		f.fail("string_type", "Input should be a valid string", v, key)
		return "", false
	}
	return s, true
}

// boolean reads an optional boolean field: a JSON true or false only (schema.Strict).
func (f *fields) boolean(key string) (bool, bool) {
	v, ok := f.body[key]
	if !ok || v == nil {
		return false, false
	}
	b, ok := schema.JSONBool(v, schema.Strict)
	if !ok {
		f.fail("bool_type", "Input should be a valid boolean", v, key)
		return false, false
	}
	return b, true
}

func (f *fields) object(key string, required bool) (map[string]any, bool) {
	v, ok := f.body[key]
	if !ok || v == nil {
		if required {
			f.missing(key)
		}
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		f.fail("dict_type", "Input should be a valid dictionary", v, key)
		return nil, false
	}
	return m, true
}

func (f *fields) uuidField(key string) (*string, bool) {
	s, ok := f.str(key, false)
	if !ok {
		return nil, false
	}
	id, err := uuid.Parse(s)
	if err != nil {
		f.fail("uuid_parsing", "Input should be a valid UUID, "+strings.TrimPrefix(err.Error(), "invalid UUID "), s, key)
		return nil, false
	}
	v := id.String()
	return &v, true
}

func validUUID(s string) bool {
	_, err := uuid.Parse(s)
	return err == nil
}
