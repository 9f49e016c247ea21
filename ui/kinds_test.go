package ui

import (
	"errors"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	_ "github.com/quarrydocs/quarry/connectors/all"
)

// TestFormsMatchConnectors ties the forms to the connectors they configure: every secret a
// connector stores encrypted is a write-only field of its form and no other field is, and every
// field's key is one the connector reads (a value of the wrong type is refused on that key), so a
// misspelt key cannot post a setting the connector silently ignores.
func TestFormsMatchConnectors(t *testing.T) {
	wrong := map[string]any{"text": 12, "url": 12, "password": 12, "number": "many", "checkbox": "maybe", "list": "a, b"}
	for _, k := range Kinds {
		ck, ok := connectors.Lookup(k.Type)
		if !ok {
			t.Errorf("%s: no connector registered", k.Type)
			continue
		}
		var secrets []string
		for _, f := range k.Fields {
			if f.Secret {
				secrets = append(secrets, f.Key)
				if f.Input != "password" {
					t.Errorf("%s.%s: a secret shown as %q, want a password input", k.Type, f.Key, f.Input)
				}
			}
		}
		for _, s := range ck.Secrets {
			if !slices.Contains(secrets, s) {
				t.Errorf("%s: the connector's secret %q has no write-only field", k.Type, s)
			}
		}
		for _, s := range secrets {
			if !slices.Contains(ck.Secrets, s) {
				t.Errorf("%s: field %q is write-only but the connector returns it in clear", k.Type, s)
			}
		}
		if k.Type != "confluence" {
			continue // the other connectors check their keys' presence, not every type
		}
		for _, f := range k.Fields {
			err := ck.Validate(map[string]any{f.Key: wrong[f.Input]}, connectors.Env{})
			var ve *schema.ValidationError
			if !errors.As(err, &ve) {
				t.Errorf("%s.%s: a %T value was not refused: %v", k.Type, f.Key, wrong[f.Input], err)
				continue
			}
			if !slices.ContainsFunc(ve.Errors, func(fe schema.FieldError) bool {
				return len(fe.Loc) >= 3 && fe.Loc[2] == f.Key && !strings.Contains(fe.Type, "missing")
			}) {
				t.Errorf("%s.%s: the connector does not read this key (a %T value raised %v)", k.Type, f.Key, wrong[f.Input], err)
			}
		}
	}
}

// TestConfluenceGatewayFields: the Confluence form offers the gateway and OAuth settings, the
// archive switch and the media hosts, each with the input its value needs; the OAuth token is
// write-only like the other secrets.
func TestConfluenceGatewayFields(t *testing.T) {
	rec := httptest.NewRecorder()
	New(Config{}).ServeHTTP(rec, httptest.NewRequest("GET", "/ui/sources", nil))
	body := rec.Body.String()
	for key, attrs := range map[string][]string{
		"oauth_token":      {`type="password"`, `data-secret="true"`, `autocomplete="new-password"`},
		"cloud_id":         {`type="text"`, `autocomplete="off"`},
		"scoped_token":     {`type="checkbox"`, `aria-describedby="help-confluence-scoped_token err-confluence-scoped_token"`},
		"include_archived": {`type="checkbox"`},
		"media_hosts":      {`data-input="list"`, `type="text"`},
	} {
		i := strings.Index(body, `id="cf-confluence-`+key+`"`)
		if i < 0 {
			t.Errorf("no %s field", key)
			continue
		}
		tag := body[strings.LastIndex(body[:i], "<input"):]
		tag = tag[:strings.IndexByte(tag, '>')+1]
		for _, a := range attrs {
			if !strings.Contains(tag, a) {
				t.Errorf("%s: %s lacks %s", key, tag, a)
			}
		}
	}
	if !strings.Contains(body, `data-secret-note="oauth_token"`) {
		t.Error("no stored-secret note for oauth_token")
	}
}
