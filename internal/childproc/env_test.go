package childproc

import (
	"slices"
	"strings"
	"testing"
)

// Helper processes inherited the whole environment: a format plugin parsing a hostile
// document, the LibreOffice or pandoc it runs, a third-party plugin, all held
// UNSTRUCTURED_API_KEY, QUARRY_SECRET_KEY (which opens every stored connector credential) and
// the database URL with its password. Plugins now get the environment without Quarry's own
// secrets; converters without anything named like a credential.
func TestAttackHelpersDoNotInheritSecrets(t *testing.T) {
	t.Setenv("UNSTRUCTURED_API_KEY", "api-key-value")
	t.Setenv("QUARRY_SECRET_KEY", "sealing-key-value")
	t.Setenv("QUARRY_DATABASE", "postgres://quarry:db-password@db/quarry")
	t.Setenv("PGPASSWORD", "db-password")
	t.Setenv("ANTHROPIC_API_KEY", "provider-key")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "aws-secret")
	t.Setenv("AZURE_OPENAI_ENDPOINT", "https://x.openai.azure.com")
	t.Setenv("QUARRY_OFFICE_MEMORY_MB", "512")
	t.Setenv("LANG", "C.UTF-8")
	names := func(env []string) []string {
		var out []string
		for _, kv := range env {
			n, _, _ := strings.Cut(kv, "=")
			out = append(out, n)
		}
		return out
	}
	plugin, conv := names(Environ()), names(ConverterEnviron())
	for _, n := range []string{"UNSTRUCTURED_API_KEY", "QUARRY_SECRET_KEY", "QUARRY_DATABASE", "PGPASSWORD"} {
		if slices.Contains(plugin, n) || slices.Contains(conv, n) {
			t.Errorf("%s reaches a helper", n)
		}
	}
	// A plugin keeps the operator's settings and a model provider's key (the VLM strategy).
	for _, n := range []string{"ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "QUARRY_OFFICE_MEMORY_MB", "LANG", "PATH"} {
		if !slices.Contains(plugin, n) {
			t.Errorf("plugin environment lost %s", n)
		}
	}
	// A converter keeps what it runs with, not credentials.
	for _, n := range []string{"ANTHROPIC_API_KEY", "AWS_SECRET_ACCESS_KEY", "AZURE_OPENAI_ENDPOINT"} {
		if slices.Contains(conv, n) {
			t.Errorf("%s reaches a converter", n)
		}
	}
	for _, n := range []string{"QUARRY_OFFICE_MEMORY_MB", "LANG", "PATH"} {
		if !slices.Contains(conv, n) {
			t.Errorf("converter environment lost %s", n)
		}
	}
}
