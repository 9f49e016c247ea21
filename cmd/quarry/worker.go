package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/internal/apikey"
	"github.com/quarrydocs/quarry/internal/childproc"
	"github.com/quarrydocs/quarry/platform"
)

// platformOptions are the flags `quarry serve` and `quarry worker` share.
type platformOptions struct {
	database, dataDir, secretKey *string
	workers                      *int
	localRoots                   *replaceList
	allowPrivate                 *bool
	// env holds QUARRY_DATABASE and QUARRY_SECRET_KEY, applied after parsing when the flags
	// are not given: as flag defaults they were printed by --help and by every usage error
	// (the AES key sealing every connector secret, the database password) into terminals, CI
	// logs and the journal.
	env platform.Config
}

// resolved returns the database and secret key: the flags, else the environment.
func (o platformOptions) resolved() (database, secretKey string) {
	database, secretKey = *o.database, *o.secretKey
	if database == "" {
		database = o.env.Database
	}
	if secretKey == "" {
		secretKey = o.env.SecretKey
	}
	return database, secretKey
}

// replaceList is a repeatable flag whose first use replaces the default (from the environment).
type replaceList struct {
	vals []string
	set  bool
}

func (l *replaceList) String() string { return strings.Join(l.vals, ",") }
func (l *replaceList) Set(v string) error {
	if !l.set {
		l.vals, l.set = nil, true
	}
	l.vals = append(l.vals, v)
	return nil
}

func platformFlags(fs *flag.FlagSet) platformOptions {
	env := platform.EnvDefaults()
	workers, _ := strconv.Atoi(envDefault("QUARRY_WORKERS", "0"))
	roots := replaceList{vals: env.LocalRoots}
	fs.Var(&roots, "local-root", "directory local connectors may use; repeatable; default DATA-DIR/local (env QUARRY_LOCAL_ROOT, ':'-separated)")
	return platformOptions{
		localRoots:   &roots,
		allowPrivate: fs.Bool("allow-private-network", env.AllowPrivateNetwork, "let connectors reach loopback, private and link-local addresses, e.g. an on-premises Confluence or Azurite (env QUARRY_ALLOW_PRIVATE_NETWORK)"),
		database:     fs.String("database", "", "platform database: postgres://… or an SQLite file; default DATA-DIR/quarry.db (env QUARRY_DATABASE)"),
		dataDir:      fs.String("data-dir", envDefault("QUARRY_DATA_DIR", "data"), "directory of the SQLite database and the generated secret key (env QUARRY_DATA_DIR)"),
		secretKey:    fs.String("secret-key", "", "base64 or hex AES-256 key sealing connector secrets; default: DATA-DIR/secret.key, created on first use (env QUARRY_SECRET_KEY)"),
		workers:      fs.Int("workers", workers, "files partitioned at once by this process's job workers; 0 = CPUs, -1 = none (env QUARRY_WORKERS)"),
		env:          platform.Config{Database: env.Database, SecretKey: env.SecretKey},
	}
}

// secretsOnCommandLine names the flags given on the command line that carry a secret: a
// process's arguments are readable by every user of the machine (/proc/PID/cmdline, ps), so
// the operator is told to move them to the environment or a file.
func secretsOnCommandLine(fs *flag.FlagSet) []string {
	var out []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "api-key", "secret-key", "partition-api-key":
			out = append(out, "--"+f.Name)
		case "database":
			if u, err := url.Parse(f.Value.String()); err == nil && u.User != nil {
				if _, ok := u.User.Password(); ok {
					out = append(out, "--database (its password)")
				}
			}
		}
	})
	return out
}

// warnSecretsOnCommandLine logs secretsOnCommandLine's findings.
func warnSecretsOnCommandLine(log *slog.Logger, fs *flag.FlagSet) {
	if found := secretsOnCommandLine(fs); len(found) > 0 {
		log.Warn("secrets given on the command line are visible to every user of this machine in the process list; "+
			"use UNSTRUCTURED_API_KEY or --api-keys-file, QUARRY_SECRET_KEY or the key file, and QUARRY_DATABASE instead",
			"flags", strings.Join(found, ", "))
	}
}

// openPlatform opens the platform and starts its workers.
func openPlatform(ctx context.Context, o platformOptions, keys []string, authLimit *apikey.Limiter, inProcess bool, log *slog.Logger) (*platform.Platform, error) {
	database, secretKey := o.resolved()
	if childproc.SystemReadable(*o.dataDir) {
		log.Warn("the data directory lies in a system directory that confined plugins and converters may read, so its secret key and database are not hidden from them; move it (e.g. under /var/lib)",
			"data_dir", *o.dataDir)
	}
	p, err := platform.Open(ctx, platform.Config{Database: database, DataDir: *o.dataDir, SecretKey: secretKey,
		APIKeys: keys, AuthLimiter: authLimit, Workers: *o.workers, InProcess: inProcess, Logger: log,
		LocalRoots: o.localRoots.vals, AllowPrivateNetwork: *o.allowPrivate})
	if err != nil {
		return nil, err
	}
	if err := p.Start(ctx); err != nil {
		p.Close(time.Second)
		return nil, err
	}
	log.Info("platform ready", "store", p.Store.String(), "worker", p.Runner.WorkerID(), "workers", p.Runner.Workers())
	return p, nil
}

// runWorker runs job workers only (no HTTP server), for scaling out on a shared PostgreSQL.
func runWorker(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	fs.SetOutput(stderr)
	po := platformFlags(fs)
	grace := fs.Duration("shutdown-timeout", 60*time.Second, "time running files get to finish on SIGTERM before they are handed back to the queue")
	logLevel := fs.String("log-level", envDefault("QUARRY_LOG_LEVEL", "info"), "debug, info, warn or error (env QUARRY_LOG_LEVEL)")
	logFormat := fs.String("log-format", envDefault("QUARRY_LOG_FORMAT", "auto"), "auto (readable on a terminal, JSON otherwise), json or text (env QUARRY_LOG_FORMAT)")
	inProcess := fs.Bool("in-process", false, "run pure-Go strategies inside the worker process")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: quarry worker [flags]\n\nRuns platform job workers (listing sources, partitioning, writing destinations) without the HTTP server.\nPoint every worker and server at the same --database and --secret-key.")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, "worker", args, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("worker: unexpected arguments %q", fs.Args())
	}
	if *po.workers < 0 {
		return usageError("worker: --workers must be 0 (CPUs) or more")
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		return usageError("worker: --log-level: %v", err)
	}
	handler, err := logHandler(*logFormat, stderr, level)
	if err != nil {
		return usageError("worker: %v", err)
	}
	log := slog.New(handler)
	warnSecretsOnCommandLine(log, fs)
	hideFromChildren(log)
	p, err := openPlatform(ctx, po, nil, nil, *inProcess, log)
	if err != nil {
		return err
	}
	<-ctx.Done()
	log.Info("stopping workers", "grace", grace.String())
	return p.Close(*grace)
}

// hideFromChildren keeps the plugins and converters this process starts on untrusted documents,
// which run as the same user, from reading its environment and memory through /proc (its keys,
// secret key and database password). They no longer inherit them (childproc.Environ).
func hideFromChildren(log *slog.Logger) {
	if err := childproc.HideFromSameUser(); err != nil {
		log.Warn("could not hide this process from its helper processes; they can read its environment through /proc", "err", err)
	}
}
