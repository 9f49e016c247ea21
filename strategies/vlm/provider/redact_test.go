package provider

import (
	"errors"
	"net/http"
	"strings"
	"testing"
)

// A provider's error message reaches the partition API's client. An OpenAI-compatible server
// (behind OPENAI_BASE_URL) or a provider that echoes the credentials it was sent would hand
// the operator's key to every API user; the configured keys are removed from messages.
func TestAttackProviderErrorDoesNotEchoKey(t *testing.T) {
	const key = "sk-live-OPERATOR-SECRET-0123456789"
	cases := []struct {
		prov, model string
		env         func(url string)
	}{
		{OpenAI, "gpt-4o", func(u string) { t.Setenv("OPENAI_API_KEY", key); t.Setenv("OPENAI_BASE_URL", u+"/v1") }},
		{Anthropic, "claude-sonnet-4-20250514", func(u string) { t.Setenv("ANTHROPIC_API_KEY", key); t.Setenv("ANTHROPIC_BASE_URL", u) }},
	}
	for _, tc := range cases {
		t.Run(tc.prov, func(t *testing.T) {
			isolate(t)
			srv, _ := fakeServer(t, func(w http.ResponseWriter, c call) {
				echo := c.header.Get("Authorization") + c.header.Get("X-Api-Key")
				writeJSON(w, 401, map[string]any{"type": "error", "error": map[string]any{"type": "authentication_error", "message": "invalid credentials: " + echo}})
			}, nil)
			tc.env(srv.URL)
			_, err := generate(t, tc.prov, srv, tc.model)
			if err == nil {
				t.Fatal("no error")
			}
			var ae *APIError
			if !errors.As(err, &ae) || ae.Status != 401 {
				t.Errorf("not an APIError with the status: %v", err)
			}
			if strings.Contains(err.Error(), "OPERATOR-SECRET") || (ae != nil && strings.Contains(ae.Message, "OPERATOR-SECRET")) {
				t.Errorf("the key is in the error: %v", err)
			}
			if !strings.Contains(err.Error(), "invalid credentials") {
				t.Errorf("the provider's message is lost: %v", err)
			}
		})
	}
}
