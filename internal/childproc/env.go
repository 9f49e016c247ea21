package childproc

import (
	"os"
	"strings"
)

// quarrySecrets are the environment variables that hold Quarry's own secrets: the API key,
// the key sealing connector credentials, the database URL (with its password) and libpq's
// password. No plugin or converter needs them.
var quarrySecrets = map[string]bool{
	"UNSTRUCTURED_API_KEY": true, "QUARRY_SECRET_KEY": true, "QUARRY_DATABASE": true, "PGPASSWORD": true,
}

// Environ is this process's environment without Quarry's own secrets, for plugin processes:
// they parse untrusted documents (and may be third-party binaries), and need the operator's
// settings and a model provider's key (the VLM strategy) but never the service's keys.
func Environ() []string {
	return filter(os.Environ(), func(name string) bool { return quarrySecrets[name] })
}

// ConverterEnviron is Environ without anything named like a credential (…KEY…, …SECRET…,
// …TOKEN…, …PASSWORD…, …CREDENTIAL…, AWS_*, AZURE_*, GOOGLE_APPLICATION_CREDENTIALS), for the
// native converters a format runs on untrusted bytes (LibreOffice, pandoc, poppler), which
// need none.
func ConverterEnviron() []string { return filter(Environ(), credentialName) }

func credentialName(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"KEY", "SECRET", "TOKEN", "PASSWORD", "PASSWD", "CREDENTIAL"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return strings.HasPrefix(u, "AWS_") || strings.HasPrefix(u, "AZURE_")
}

func filter(env []string, drop func(name string) bool) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !drop(name) {
			out = append(out, kv)
		}
	}
	return out
}
