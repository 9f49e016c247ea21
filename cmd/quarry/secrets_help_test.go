package main

import (
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
