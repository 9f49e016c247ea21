// Package platform assembles Quarry's platform: the store (SQLite by default, PostgreSQL with a
// postgres:// DSN), the secret box, the job runner on River and the /api/v1/ handler. `quarry
// serve` mounts the handler and runs workers in-process; `quarry worker` runs workers only.
package platform

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/connectors"

	_ "github.com/quarrydocs/quarry/connectors/all" // every connector kind (azure, confluence, local)

	"github.com/quarrydocs/quarry/internal/apikey"
	"github.com/quarrydocs/quarry/internal/netguard"
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
	// AuthLimiter is handed to the API (nil: its own limiter); see api.Config.
	AuthLimiter *apikey.Limiter
	// Workers is the number of files partitioned at once by this process: 0 = GOMAXPROCS,
	// negative = none (the process only serves the API and enqueues).
	Workers int
	// InProcess runs pure-Go strategies inside this process.
	InProcess bool
	// LocalRoots are the only directories local connectors may read and write. Empty: the
	// folder "local" under DataDir (created). A root may not contain the data directory, the
	// database or the secret key file: Open refuses such a configuration.
	LocalRoots []string
	// AllowPrivateNetwork lets connectors reach loopback, private and link-local addresses.
	AllowPrivateNetwork bool
	Logger              *slog.Logger
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
	// LocalRoots are the absolute directories local connectors are confined to (start-up
	// tells an operator where to put documents).
	LocalRoots []string
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
	roots, err := LocalRoots(cfg)
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, cfg.Database, cfg.DataDir)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	if exposed := st.ExposedFiles(); len(exposed) > 0 {
		cfg.Logger.Warn("the database is readable by other users of this machine (it holds job histories, document names and connector settings); chmod o-rwx it",
			"files", exposed)
	}
	box, err := openBox(ctx, cfg, st)
	if err != nil {
		st.Close()
		return nil, err
	}
	if err := checkKey(ctx, st, box); err != nil {
		st.Close()
		return nil, err
	}
	jc := cfg.Jobs
	env := connectors.Env{LocalRoots: roots, AllowPrivateNetwork: cfg.AllowPrivateNetwork}
	jc.Store, jc.Secrets, jc.Workers, jc.Logger, jc.InProcess, jc.Env = st, box, cfg.Workers, cfg.Logger, cfg.InProcess, env
	if jc.UploadDir == "" {
		jc.UploadDir = filepath.Join(cfg.DataDir, "uploads")
	}
	runner, err := jobs.New(ctx, jc)
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("platform: %w", err)
	}
	a := api.New(api.Config{Store: st, Secrets: box, Runner: runner, APIKeys: cfg.APIKeys, AuthLimiter: cfg.AuthLimiter, Logger: cfg.Logger, Env: env})
	return &Platform{Store: st, Secrets: box, Runner: runner, API: a, LocalRoots: roots}, nil
}

// openBox loads the secret key. A key file is created only for a database that holds no sealed
// secret yet: when the file has gone missing but sealed rows exist, a new key could never open
// them, and writing one would hide the loss until the first job fails — so Open fails closed.
func openBox(ctx context.Context, cfg Config, st *store.Store) (*secret.Box, error) {
	var key []byte
	var err error
	if cfg.SecretKey != "" {
		key, err = secret.ParseKey(cfg.SecretKey)
	} else {
		path := filepath.Join(cfg.DataDir, "secret.key")
		key, err = secret.LoadKeyFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			_, sealed, serr := st.GetMeta(ctx, keyCheckName)
			if serr != nil {
				return nil, fmt.Errorf("platform: %w", serr)
			}
			if sealed {
				return nil, fmt.Errorf("platform: the secret key file %s is missing but this database holds secrets sealed with a key; "+
					"restore the file or give the key (--secret-key or QUARRY_SECRET_KEY) — a new key is not created, as it could not open them", path)
			}
			key, err = secret.LoadOrCreateKeyFile(path)
		}
		if fi, serr := os.Stat(path); err == nil && serr == nil && runtime.GOOS != "windows" && fi.Mode().Perm()&0o077 != 0 {
			// The key opens every connector's stored credentials: a copy or restore that kept
			// a 0644 mode hands them to every local account.
			cfg.Logger.Warn("the secret key file is readable by other users of this machine (it decrypts every stored connector credential); chmod 600 it",
				"file", path, "mode", fmt.Sprintf("%04o", fi.Mode().Perm()))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	box, err := secret.New(key)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	return box, nil
}

// LocalRoots returns the directories local connectors are confined to (cfg.LocalRoots, else
// DataDir/local), made absolute and created when missing. It refuses a root that contains the
// data directory, the database file or the secret key: the connector would otherwise hand them
// to any API user (or overwrite them).
func LocalRoots(cfg Config) ([]string, error) {
	dataDir := cfg.DataDir
	if dataDir == "" {
		dataDir = "data"
	}
	roots := cfg.LocalRoots
	if len(roots) == 0 {
		roots = []string{filepath.Join(dataDir, "local")}
	}
	protected := []string{dataDir}
	if cfg.Database != "" && !strings.Contains(cfg.Database, "://") {
		protected = append(protected, cfg.Database)
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("platform: local root %s: %w", r, err)
		}
		// A created root is not world-readable: destinations write partitioned documents
		// beneath it (see connectors/local's output modes).
		if err := os.MkdirAll(abs, 0o750); err != nil {
			return nil, fmt.Errorf("platform: local root: %w", err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("platform: local root: %w", err)
		}
		for _, p := range protected {
			pa, err := filepath.Abs(p)
			if err != nil {
				return nil, fmt.Errorf("platform: %w", err)
			}
			if pr, err := filepath.EvalSymlinks(pa); err == nil {
				pa = pr
			}
			if within(real, pa) {
				return nil, fmt.Errorf("platform: local root %s contains %s (the data directory or database); "+
					"local connectors could read the secret key: choose a root outside it", r, p)
			}
		}
		out = append(out, real)
	}
	return out, nil
}

// within reports whether p is dir or lies beneath it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
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
// QUARRY_DATA_DIR, QUARRY_SECRET_KEY, QUARRY_LOCAL_ROOT (a list separated by the OS path-list
// separator, ':' on Unix) and QUARRY_ALLOW_PRIVATE_NETWORK.
func EnvDefaults() Config {
	var roots []string
	for _, r := range filepath.SplitList(os.Getenv("QUARRY_LOCAL_ROOT")) {
		if strings.TrimSpace(r) != "" {
			roots = append(roots, r)
		}
	}
	return Config{Database: os.Getenv("QUARRY_DATABASE"), DataDir: os.Getenv("QUARRY_DATA_DIR"), SecretKey: os.Getenv("QUARRY_SECRET_KEY"),
		LocalRoots: roots, AllowPrivateNetwork: netguard.AllowPrivateFromEnv()}
}
