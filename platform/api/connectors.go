package api

import (
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/platform/secret"
	"github.com/quarrydocs/quarry/platform/store"
)

// ConnectorInfo is SourceConnectorInformation / DestinationConnectorInformation.
type ConnectorInfo struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Type      string         `json:"type"`
	Config    map[string]any `json:"config"`
	CreatedAt string         `json:"created_at"`
	UpdatedAt *string        `json:"updated_at"`
}

// CheckInfo is DagNodeConnectionCheck.
type CheckInfo struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`
	Reason     *string `json:"reason"`
	CreatedAt  string  `json:"created_at"`
	ReportedAt *string `json:"reported_at"`
}

// timeLayout is the API's timestamp form (ISO 8601, UTC, milliseconds, Z).
const timeLayout = "2006-01-02T15:04:05.000Z"

func fmtTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func fmtTimePtr(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := fmtTime(*t)
	return &s
}

type connectorRoutes struct {
	a    *API
	role store.Role
}

func (c connectorRoutes) label() string {
	if c.role == store.RoleSource {
		return "Source"
	}
	return "Destination"
}

// kinds lists the registered types usable in this role.
func (c connectorRoutes) kinds() []string {
	var out []string
	for _, t := range connectors.Types() {
		k, _ := connectors.Lookup(t)
		if (c.role == store.RoleSource && k.NewSource != nil) || (c.role == store.RoleDestination && k.NewDestination != nil) {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

func (c connectorRoutes) info(con *store.Connector) ConnectorInfo {
	var secrets []string
	if k, ok := connectors.Lookup(con.Type); ok {
		secrets = k.Secrets
	}
	return ConnectorInfo{ID: con.ID, Name: con.Name, Type: con.Type, Config: secret.MaskConfig(withDefaults(con.Type, con.Config), secrets),
		CreatedAt: fmtTime(con.CreatedAt), UpdatedAt: fmtTimePtr(con.UpdatedAt)}
}

func (c connectorRoutes) list(w http.ResponseWriter, r *http.Request) {
	list, err := c.a.st.ListConnectors(r.Context(), c.role, r.URL.Query().Get(string(c.role)+"_type"))
	if err != nil {
		c.a.internal(w, r, err)
		return
	}
	out := make([]ConnectorInfo, len(list))
	for i, con := range list {
		out[i] = c.info(con)
	}
	writeJSON(w, http.StatusOK, out)
}

func (c connectorRoutes) load(w http.ResponseWriter, r *http.Request) (*store.Connector, bool) {
	id, ok := pathID(w, r, string(c.role)+"_id")
	if !ok {
		return nil, false
	}
	con, err := c.a.st.GetConnector(r.Context(), c.role, id)
	if errors.Is(err, store.ErrNotFound) {
		detail(w, http.StatusNotFound, fmt.Sprintf("%s connector with id %s not found", c.label(), id))
		return nil, false
	}
	if err != nil {
		c.a.internal(w, r, err)
		return nil, false
	}
	return con, true
}

func (c connectorRoutes) get(w http.ResponseWriter, r *http.Request) {
	if con, ok := c.load(w, r); ok {
		writeJSON(w, http.StatusOK, c.info(con))
	}
}

// validateConfig runs the kind's validation and returns the errors to report, with secret
// values taken out of their inputs.
func validateConfig(k connectors.Kind, config map[string]any, env connectors.Env) []schema.FieldError {
	if k.Validate == nil {
		return nil
	}
	err := k.Validate(config, env)
	if err == nil {
		return nil
	}
	var ve *schema.ValidationError
	if errors.As(err, &ve) {
		return scrubInputs(ve.Errors, k.Secrets)
	}
	return scrubInputs([]schema.FieldError{{Type: "value_error", Loc: []string{"body", "config"}, Msg: "Value error, " + err.Error(), Input: config}}, k.Secrets)
}

// scrubInputs keeps secrets out of 422 answers: an error located at a secret key loses its
// input, and an input that is the config object itself has its secrets masked. A 422 may be
// logged, shown in a browser or pasted in a ticket; it must not carry a password.
func scrubInputs(errs []schema.FieldError, secrets []string) []schema.FieldError {
	out := make([]schema.FieldError, len(errs))
	for i, fe := range errs {
		if n := len(fe.Loc); n > 0 && contains(secrets, fe.Loc[n-1]) {
			fe.Input = nil
		}
		if m, ok := fe.Input.(map[string]any); ok {
			fe.Input = secret.MaskConfig(m, secrets)
			for _, k := range secrets {
				if _, present := m[k]; !present {
					delete(fe.Input.(map[string]any), k)
				}
			}
		}
		out[i] = fe
	}
	return out
}

// retargeted returns the target keys whose value changed between the stored config and the new
// one. A target that is itself a secret counts as changed when a new value (not the mask) differs
// from the stored one.
func (a *API) retargeted(k connectors.Kind, config, stored map[string]any) ([]string, error) {
	targets := k.Targets
	if targets == nil {
		for key := range withDefaults(k.Type, mergeKeys(config, stored)) {
			if !contains(k.Secrets, key) {
				targets = append(targets, key)
			}
		}
		sort.Strings(targets)
	}
	newCfg, oldCfg := withDefaults(k.Type, config), withDefaults(k.Type, stored)
	var changed []string
	for _, t := range targets {
		nv, ov := newCfg[t], oldCfg[t]
		if contains(k.Secrets, t) {
			if s, _ := nv.(string); s == secret.Mask {
				continue
			}
			if sealed, ok := ov.(string); ok && secret.IsEncrypted(sealed) {
				plain, err := a.box.Decrypt(sealed)
				if err != nil {
					return nil, err
				}
				ov = plain
			}
		}
		if !reflect.DeepEqual(nv, ov) {
			changed = append(changed, t)
		}
	}
	return changed, nil
}

func mergeKeys(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	for k, v := range b {
		out[k] = v
	}
	for k, v := range a {
		out[k] = v
	}
	return out
}

// maskedSecrets lists the secrets given back as the mask while a value is stored.
func maskedSecrets(k connectors.Kind, config, stored map[string]any) []string {
	var out []string
	for _, key := range k.Secrets {
		if v, _ := config[key].(string); v == secret.Mask {
			if s, _ := stored[key].(string); s != "" {
				out = append(out, key)
			}
		}
	}
	return out
}

func (c connectorRoutes) create(w http.ResponseWriter, r *http.Request) {
	body, ok := c.a.decodeBody(w, r)
	if !ok {
		return
	}
	f := &fields{body: body}
	name, hasName := f.str("name", true)
	if hasName && strings.TrimSpace(name) == "" {
		f.fail("string_too_short", "String should have at least 1 character", name, "name")
	}
	typ, hasType := f.str("type", true)
	config, hasConfig := f.object("config", true)
	var kind connectors.Kind
	if hasType {
		kinds := c.kinds()
		k, found := connectors.Lookup(typ)
		if !found || !contains(kinds, typ) {
			f.errs = append(f.errs, schema.FieldError{Type: "enum", Loc: []string{"body", "type"},
				Msg: "Input should be " + quoteList(kinds), Input: typ, Ctx: map[string]any{"expected": quoteList(kinds)}})
		} else {
			kind = k
		}
	}
	if hasConfig && kind.Type != "" {
		f.errs = append(f.errs, validateConfig(kind, config, c.a.env)...)
	}
	if len(f.errs) > 0 {
		validation(w, f.errs)
		return
	}
	sealed, err := c.a.box.SealConfig(config, nil, kind.Secrets)
	if err != nil {
		c.a.internal(w, r, err)
		return
	}
	con := &store.Connector{ID: uuid.NewString(), Role: c.role, Name: name, Type: typ, Config: sealed, CreatedAt: time.Now().UTC()}
	if err := c.a.st.CreateConnector(r.Context(), con); errors.Is(err, store.ErrConflict) {
		detail(w, http.StatusConflict, fmt.Sprintf("A %s connector named %q already exists; connector names must be unique.", c.role, name))
		return
	} else if err != nil {
		c.a.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, c.info(con))
}

func (c connectorRoutes) update(w http.ResponseWriter, r *http.Request) {
	con, ok := c.load(w, r)
	if !ok {
		return
	}
	body, ok := c.a.decodeBody(w, r)
	if !ok {
		return
	}
	f := &fields{body: body}
	config, _ := f.object("config", true)
	kind, known := connectors.Lookup(con.Type)
	if config != nil && known {
		// A masked secret stands for the stored value only while the connector still points at
		// the same place: otherwise a PUT of a new URL with the mask would send the stored
		// password to a host of the caller's choosing.
		if masked := maskedSecrets(kind, config, con.Config); len(masked) > 0 {
			changed, err := c.a.retargeted(kind, config, con.Config)
			if err != nil {
				c.a.internal(w, r, err)
				return
			}
			if len(changed) > 0 {
				for _, key := range masked {
					f.errs = append(f.errs, schema.FieldError{Type: "secret_required", Loc: []string{"body", "config", key},
						Msg:   fmt.Sprintf("Value error, %s changed, so the stored %s is not reused: send %s again", strings.Join(changed, ", "), key, key),
						Input: nil})
				}
			}
		}
		// Masked secrets stand for the stored values; validate what will be stored (a
		// connection string's endpoint is judged on the real string).
		opened, err := c.a.box.OpenConfig(con.Config, kind.Secrets)
		if err != nil {
			c.a.internal(w, r, err)
			return
		}
		f.errs = append(f.errs, validateConfig(kind, withStoredSecrets(config, opened, kind.Secrets), c.a.env)...)
	}
	if len(f.errs) > 0 {
		validation(w, f.errs)
		return
	}
	sealed, err := c.a.box.SealConfig(config, con.Config, kind.Secrets)
	if err != nil {
		c.a.internal(w, r, err)
		return
	}
	now := time.Now().UTC()
	if err := c.a.st.UpdateConnectorConfig(r.Context(), c.role, con.ID, sealed, now); err != nil {
		c.a.internal(w, r, err)
		return
	}
	con.Config, con.UpdatedAt = sealed, &now
	writeJSON(w, http.StatusOK, c.info(con))
}

// withStoredSecrets replaces masks by the stored (opened) values, and drops them when none is
// stored, so validation sees the secrets that will be present.
func withStoredSecrets(config, stored map[string]any, secrets []string) map[string]any {
	out := make(map[string]any, len(config))
	for k, v := range config {
		out[k] = v
	}
	for _, k := range secrets {
		if out[k] == secret.Mask {
			if s, _ := stored[k].(string); s == "" {
				delete(out, k)
			} else {
				out[k] = s
			}
		}
	}
	return out
}

func (c connectorRoutes) delete(w http.ResponseWriter, r *http.Request) {
	con, ok := c.load(w, r)
	if !ok {
		return
	}
	used, err := c.a.st.WorkflowsUsing(r.Context(), con.ID)
	if err != nil {
		c.a.internal(w, r, err)
		return
	}
	if len(used) > 0 {
		detail(w, http.StatusConflict, fmt.Sprintf("%s connector %s is used by workflow(s) %s; delete or change them first.",
			c.label(), con.ID, strings.Join(used, ", ")))
		return
	}
	if err := c.a.st.DeleteConnector(r.Context(), c.role, con.ID); err != nil {
		c.a.internal(w, r, err)
		return
	}
	detail(w, http.StatusOK, fmt.Sprintf("%s with id %s successfully deleted.", c.label(), con.ID))
}

func checkInfo(ch *store.Check) CheckInfo {
	return CheckInfo{ID: ch.ID, Status: ch.Status, Reason: ch.Reason, CreatedAt: fmtTime(ch.CreatedAt), ReportedAt: fmtTimePtr(ch.ReportedAt)}
}

func (c connectorRoutes) startCheck(w http.ResponseWriter, r *http.Request) {
	con, ok := c.load(w, r)
	if !ok {
		return
	}
	ch := &store.Check{ID: uuid.NewString(), ConnectorID: con.ID, Status: "SCHEDULED", CreatedAt: time.Now().UTC()}
	if err := c.a.st.CreateCheck(r.Context(), ch); err != nil {
		c.a.internal(w, r, err)
		return
	}
	if err := c.a.runner.Check(r.Context(), ch.ID, con.ID, c.role); err != nil {
		c.a.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, checkInfo(ch))
}

func (c connectorRoutes) latestCheck(w http.ResponseWriter, r *http.Request) {
	con, ok := c.load(w, r)
	if !ok {
		return
	}
	ch, err := c.a.st.LatestCheck(r.Context(), con.ID)
	if errors.Is(err, store.ErrNotFound) {
		detail(w, http.StatusNotFound, fmt.Sprintf("No connection check found for %s connector %s", c.role, con.ID))
		return
	}
	if err != nil {
		c.a.internal(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, checkInfo(ch))
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// quoteList renders choices as pydantic does ('a', 'b' or 'c'), saying so when there are none.
func quoteList(choices []string) string {
	if len(choices) == 0 {
		return "(no types registered)"
	}
	return schema.Choices(choices)
}
