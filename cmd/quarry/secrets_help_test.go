package main

import (
	"flag"
	"log/slog"
	"strings"
	"testing"
)

// QUARRY_SECRET_KEY (the AES key sealing every connector secret) and QUARRY_DATABASE (with
// its password) were flag defaults, so `--help` and every usage error printed them: into a
// terminal, a CI log, the journal.
func TestAttackHelpDoesNotPrintSecrets(t *testing.T) {
	const key = "c2VjcmV0LWtleS1zZWNyZXQta2V5LXNlY3JldC1rZXk="
	t.Setenv("QUARRY_SECRET_KEY", key)
	t.Setenv("QUARRY_DATABASE", "postgres://quarry:DB-PASSWORD-42@db.internal/quarry")
	for _, args := range [][]string{{"serve", "--help"}, {"worker", "--help"}, {"serve", "--no-such-flag"}, {"worker", "--no-such-flag"}} {
		stdout, stderr, _ := runCLI(t, args...)
		out := stdout + stderr
		if args[1] == "--help" && !strings.Contains(out, "secret-key") {
			t.Errorf("%v: no usage printed:\n%s", args, out)
		}
		if strings.Contains(out, key) || strings.Contains(out, "DB-PASSWORD-42") {
			t.Errorf("%v printed a secret:\n%s", args, out)
		}
	}
}

// Secrets given as flags are in the process list of every user of the machine; the operator
// is warned (the key is never repeated in the warning).
func TestAttackSecretsOnCommandLineWarned(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--api-key", "sk-1"}, "--api-key"},
		{[]string{"--secret-key", "c2Vj"}, "--secret-key"},
		{[]string{"--database", "postgres://u:pw@h/db"}, "--database (its password)"},
		{[]string{"--database", "postgres://u@h/db"}, ""},
		{nil, ""},
	} {
		fs := flag.NewFlagSet("serve", flag.ContinueOnError)
		fs.Var(&stringList{}, "api-key", "")
		platformFlags(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		got := strings.Join(secretsOnCommandLine(fs), ",")
		if got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
		var logs strings.Builder
		warnSecretsOnCommandLine(slog.New(slog.NewTextHandler(&logs, nil)), fs)
		if (c.want != "") != strings.Contains(logs.String(), "process list") || strings.Contains(logs.String(), "sk-1") || strings.Contains(logs.String(), "pw@") {
			t.Errorf("%v: warning %q", c.args, logs.String())
		}
	}
}
