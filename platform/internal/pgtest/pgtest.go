// Package pgtest gives each test its own PostgreSQL database on the server named by
// QUARRY_TEST_POSTGRES (scripts/postgres.sh starts one and prints its DSN).
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DSN creates a fresh database and returns its DSN; it is dropped when the test ends. Without
// QUARRY_TEST_POSTGRES the test is skipped, except in CI (CI=true), where it fails.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv("QUARRY_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("QUARRY_TEST_POSTGRES is not set: run the tests through `make test` (scripts/postgres.sh)")
		}
		t.Skip("QUARRY_TEST_POSTGRES not set; start one with: export QUARRY_TEST_POSTGRES=$(scripts/postgres.sh start)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("pgtest: connect %s: %v", base, err)
	}
	defer conn.Close(ctx)
	b := make([]byte, 6)
	rand.Read(b)
	name := "qt_" + hex.EncodeToString(b)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return
		}
		defer conn.Close(ctx)
		conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("pgtest: parse %s: %v", base, err)
	}
	u.Path = "/" + name
	return u.String()
}
