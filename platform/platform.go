// Package platform assembles Quarry's platform: the store (SQLite by default, PostgreSQL with a
// postgres:// DSN), the secret box, the job runner on River and the /api/v1/ handler. `quarry
// serve` mounts the handler and runs workers in-process; `quarry worker` runs workers only.
package platform

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"time"

	_ "github.com/quarrydocs/quarry/connectors/all" // every connector kind (azure, confluence, local)

	"github.com/quarrydocs/quarry/platform/api"
	"github.com/quarrydocs/quarry/platform/jobs"
	"github.com/quarrydocs/quarry/platform/secret"
	"github.com/quarrydocs/quarry/platform/store"
)

// Config configures the platform.
type Config struct {
	// Database is a postgres:// URL or an SQLite path; empty means DataDir/quarry.db.
	Database string
	// DataDir holds the SQLite database and the generated secret key file (default ./data).
	DataDir string
	// SecretKey is the base64 or hex AES-256 key sealing connector secrets. Empty: the key in
	// DataDir/secret.key, created (mode 0600) on first use. Every process sharing a database
	// must use the same key.
	SecretKey string
	// APIKeys are the accepted API keys (none: no authentication).
	APIKeys []string
	// Workers is the number of files partitioned at once by this process: 0 = GOMAXPROCS,
	// negative = none (the process only serves the API and enqueues).
	Workers int
	// InProcess runs pure-Go strategies inside this process.
	InProcess bool
	Logger    *slog.Logger
	// Jobs overrides runner settings (heartbeat, lease…); Store, Secrets, Workers, Logger and
	// InProcess are filled from the fields above.
	Jobs jobs.Config
}

// Platform is an opened platform.
type Platform struct {
	Store   *store.Store
	Secrets *secret.Box
	Runner  *jobs.Runner
	API     *api.API
}

// keyCheck is sealed with the key on first use; a process with another key cannot open it, which
// turns a silent mix-up (each machine generating its own key file) into a clear start-up error.
const keyCheckName = "secret_key_check"

// Open opens the store, the secret key and the runner, and builds the API.
func Open(ctx context.Context, cfg Config) (*Platform, error) {
	if cfg.DataDir == "" {
		cfg.DataDir = "data"
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	var key []byte
	var err error
	if cfg.SecretKey != "" {
		key, err = secret.ParseKey(cfg.SecretKey)
	} else {
		key, err = secret.LoadOrCreateKeyFile(filepath.Join(cfg.DataDir, "secret.key"))
	}
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	box, err := secret.New(key)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	st, err := store.Open(ctx, cfg.Database, cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	if err := checkKey(ctx, st, box); err != nil {
		st.Close()
		return nil, err
	}
	jc := cfg.Jobs
	jc.Store, jc.Secrets, jc.Workers, jc.Logger, jc.InProcess = st, box, cfg.Workers, cfg.Logger, cfg.InProcess
	if jc.UploadDir == "" {
		jc.UploadDir = filepath.Join(cfg.DataDir, "uploads")
	}
	runner, err := jobs.New(ctx, jc)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("platform: %w", err)
	}
	a := api.New(api.Config{Store: st, Secrets: box, Runner: runner, APIKeys: cfg.APIKeys, Logger: cfg.Logger})
	return &Platform{Store: st, Secrets: box, Runner: runner, API: a}, nil
}

func checkKey(ctx context.Context, st *store.Store, box *secret.Box) error {
	canary, err := box.Encrypt("quarry")
	if err != nil {
		return err
	}
	stored, err := st.PutMetaIfAbsent(ctx, keyCheckName, canary)
	if err != nil {
		return fmt.Errorf("platform: %w", err)
	}
	if _, err := box.Decrypt(stored); err != nil {
		if errors.Is(err, secret.ErrWrongKey) {
			return errors.New("platform: the secret key differs from the one that sealed this database's connector secrets; " +
				"give every process the same key (--secret-key or QUARRY_SECRET_KEY)")
		}
		return fmt.Errorf("platform: %w", err)
	}
	return nil
}

// Handler is the API handler, to mount at /api/v1/.
func (p *Platform) Handler() http.Handler { return p.API }

// Start starts the runner (workers, heartbeat, sweeper, scheduler).
func (p *Platform) Start(ctx context.Context) error { return p.Runner.Start(ctx) }

// Close stops the runner, waiting up to grace for running files, and closes the store.
func (p *Platform) Close(grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := p.Runner.Stop(ctx)
	if cerr := p.Store.Close(); err == nil {
		err = cerr
	}
	return err
}

// EnvDefaults returns the configuration from the environment: QUARRY_DATABASE,
// QUARRY_DATA_DIR and QUARRY_SECRET_KEY.
func EnvDefaults() Config {
	return Config{Database: os.Getenv("QUARRY_DATABASE"), DataDir: os.Getenv("QUARRY_DATA_DIR"), SecretKey: os.Getenv("QUARRY_SECRET_KEY")}
}
