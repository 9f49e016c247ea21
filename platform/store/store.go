// Package store keeps the platform's state (connectors, workflows, jobs and per-file progress)
// in SQL through database/sql: SQLite (pure Go, modernc.org/sqlite) by default, PostgreSQL (pgx)
// for deployments with several processes. Both run the same versioned migrations, embedded
// from migrations/*.sql.
package store

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// Dialect names the SQL database behind a Store.
type Dialect string

const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Store is the platform's database.
type Store struct {
	db      *sql.DB
	pool    *pgxpool.Pool // Postgres only: the pool River's pgx driver uses
	dialect Dialect
	where   string // for messages: the file or the host
}

// ErrNotFound is returned when a row does not exist.
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a unique constraint (a connector name) is violated.
var ErrConflict = errors.New("store: conflict")

// Open connects to dsn and migrates the schema. dsn is a postgres:// or postgresql:// URL, a
// sqlite: or file: URL, a path to an SQLite file, or empty for dataDir/quarry.db.
func Open(ctx context.Context, dsn, dataDir string) (*Store, error) {
	var s *Store
	var err error
	switch {
	case strings.HasPrefix(dsn, "postgres://"), strings.HasPrefix(dsn, "postgresql://"):
		s, err = openPostgres(ctx, dsn)
	default:
		s, err = openSQLite(dsn, dataDir)
	}
	if err != nil {
		return nil, err
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func openSQLite(dsn, dataDir string) (*Store, error) {
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite://"), "sqlite:")
	path = strings.TrimPrefix(path, "file:")
	if q := strings.IndexByte(path, '?'); q >= 0 {
		path = path[:q]
	}
	if path == "" {
		if dataDir == "" {
			dataDir = "data"
		}
		path = filepath.Join(dataDir, "quarry.db")
	}
	if path != ":memory:" {
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("store: create data directory: %w", err)
		}
		// SQLite creates a database 0644 (less the umask), and its -wal and -shm files with the
		// database's mode. The database holds job histories, document names and connector
		// configurations (sealed secrets aside), so a new one is created 0600 first: the WAL
		// and shared-memory files then follow. An existing file keeps the mode its operator
		// gave it.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		switch {
		case err == nil:
			f.Close()
		case !errors.Is(err, fs.ErrExist):
			return nil, fmt.Errorf("store: create %s: %w", path, err)
		}
	}
	// WAL lets readers run beside the writer; busy_timeout waits instead of failing when another
	// process holds the write lock.
	conn := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_txlock=immediate"
	db, err := sql.Open("sqlite", conn)
	if err != nil {
		return nil, fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	// SQLite has one writer; a single connection also serialises River's own queries, which
	// its SQLite driver recommends.
	db.SetMaxOpenConns(1)
	return &Store{db: db, dialect: SQLite, where: path}, nil
}

func openPostgres(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("store: postgres dsn: %w", err)
	}
	if cfg.MaxConns < 10 {
		cfg.MaxConns = 10
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("store: connect postgres: %w", err)
	}
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := pool.Ping(pctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("store: connect postgres %s: %w", cfg.ConnConfig.Host, err)
	}
	db := stdlib.OpenDBFromPool(pool)
	return &Store{db: db, pool: pool, dialect: Postgres, where: cfg.ConnConfig.Host}, nil
}

// Close closes the database.
func (s *Store) Close() error {
	err := s.db.Close()
	if s.pool != nil {
		s.pool.Close()
	}
	return err
}

// Dialect reports which database the store uses.
func (s *Store) Dialect() Dialect { return s.dialect }

// DB is the database/sql handle (River's SQLite driver runs on it).
func (s *Store) DB() *sql.DB { return s.db }

// Pool is the pgx pool (River's Postgres driver runs on it); nil for SQLite.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// String describes where the data lives.
// ExposedFiles lists the SQLite files (database, -wal, -shm) other users of the machine may
// read or write: a database created by an older Quarry, or by hand, keeps its mode (Open only
// creates new ones 0600), and the operator should hear about it. PostgreSQL: none.
func (s *Store) ExposedFiles() []string {
	if s.dialect != SQLite || s.where == ":memory:" {
		return nil
	}
	var out []string
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if st, err := os.Stat(s.where + suffix); err == nil && st.Mode().Perm()&0o007 != 0 {
			out = append(out, s.where+suffix)
		}
	}
	return out
}

func (s *Store) String() string { return string(s.dialect) + ":" + s.where }

// q rewrites ? placeholders as $n for Postgres.
func (s *Store) q(query string) string {
	if s.dialect != Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(query); i++ {
		if query[i] == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteByte(query[i])
	}
	return b.String()
}

func (s *Store) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return s.db.ExecContext(ctx, s.q(query), args...)
}

func (s *Store) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return s.db.QueryContext(ctx, s.q(query), args...)
}

// queryStrings runs a query of one string column and returns its values.
func (s *Store) queryStrings(ctx context.Context, query string, args ...any) ([]string, error) {
	rows, err := s.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

func (s *Store) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	return s.db.QueryRowContext(ctx, s.q(query), args...)
}

// migrate applies the embedded migrations not yet recorded in schema_migrations, each in its
// own transaction. On Postgres an advisory lock keeps concurrent starts from racing.
func (s *Store) migrate(ctx context.Context) error {
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	defer conn.Close()
	if s.dialect == Postgres {
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock(724300110)"); err != nil {
			return fmt.Errorf("store: migrate lock: %w", err)
		}
		defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(724300110)")
	}
	if _, err := conn.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at TEXT NOT NULL)`); err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	applied := map[int]bool{}
	rows, err := conn.QueryContext(ctx, `SELECT version FROM schema_migrations`)
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	for rows.Next() {
		var v int
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("store: migrate: %w", err)
		}
		applied[v] = true
	}
	rows.Close()
	entries, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return fmt.Errorf("store: migrate: %w", err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil {
			return fmt.Errorf("store: migration file %s must start with a number and _", e.Name())
		}
		if applied[version] {
			continue
		}
		body, err := migrationFS.ReadFile("migrations/" + e.Name())
		if err != nil {
			return fmt.Errorf("store: migrate: %w", err)
		}
		blob := "BLOB"
		if s.dialect == Postgres {
			blob = "BYTEA"
		}
		text := strings.ReplaceAll(string(body), "{{BLOB}}", blob)
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			return fmt.Errorf("store: migrate %s: %w", e.Name(), err)
		}
		for _, stmt := range splitStatements(text) {
			if _, err := tx.ExecContext(ctx, stmt); err != nil {
				tx.Rollback()
				return fmt.Errorf("store: migrate %s: %w", e.Name(), err)
			}
		}
		ins := `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`
		if _, err := tx.ExecContext(ctx, s.q(ins), version, ts(time.Now())); err != nil {
			tx.Rollback()
			return fmt.Errorf("store: migrate %s: %w", e.Name(), err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("store: migrate %s: %w", e.Name(), err)
		}
	}
	return nil
}

// splitStatements splits a migration on semicolons ending a line, dropping -- comments.
func splitStatements(text string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--") || trimmed == "" {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(trimmed, ";") {
			out = append(out, strings.TrimSuffix(strings.TrimSpace(cur.String()), ";"))
			cur.Reset()
		}
	}
	if strings.TrimSpace(cur.String()) != "" {
		out = append(out, cur.String())
	}
	return out
}

// timeLayout is fixed-width so stored times sort as text.
const timeLayout = "2006-01-02T15:04:05.000000Z"

func ts(t time.Time) string { return t.UTC().Format(timeLayout) }

func tsPtr(t *time.Time) any {
	if t == nil {
		return nil
	}
	return ts(*t)
}

func parseTS(s string) time.Time {
	t, _ := time.Parse(timeLayout, s)
	return t
}

func parseTSPtr(s sql.NullString) *time.Time {
	if !s.Valid {
		return nil
	}
	t := parseTS(s.String)
	return &t
}

func strPtr(s sql.NullString) *string {
	if !s.Valid {
		return nil
	}
	v := s.String
	return &v
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// isUniqueViolation recognises both drivers' unique-constraint errors without importing their
// error types into every caller.
func isUniqueViolation(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "UNIQUE constraint failed") || strings.Contains(m, "SQLSTATE 23505") ||
		strings.Contains(m, "duplicate key value")
}

// GetMeta reads a value from the meta table ("" and false when absent).
func (s *Store) GetMeta(ctx context.Context, key string) (string, bool, error) {
	var v string
	err := s.queryRow(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("store: read meta %s: %w", key, err)
	}
	return v, true, nil
}

// PutMetaIfAbsent stores a value unless the key exists; it returns the value now stored.
func (s *Store) PutMetaIfAbsent(ctx context.Context, key, value string) (string, error) {
	if _, err := s.exec(ctx, `INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING`, key, value); err != nil {
		return "", fmt.Errorf("store: write meta %s: %w", key, err)
	}
	v, _, err := s.GetMeta(ctx, key)
	return v, err
}

// WithLock runs fn while holding a database-wide lock (a Postgres advisory lock), so that
// processes starting together do not run the same one-time setup at once (River's migrations).
// On SQLite fn runs directly: its single writer already serialises the work.
func (s *Store) WithLock(ctx context.Context, fn func() error) error {
	if s.dialect != Postgres {
		return fn()
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("store: lock: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(724300111)"); err != nil {
		return fmt.Errorf("store: lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock(724300111)")
	return fn()
}
