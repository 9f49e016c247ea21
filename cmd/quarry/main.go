// Command quarry partitions documents into typed elements, scores outputs against goldens and
// serves the partition API.
//
//	quarry partition [flags] FILE…   print the elements of each file as JSON (or JSON Lines, CSV, text)
//	quarry eval OUTPUT.json GOLD     score an output against a golden (JSON elements or CCT text)
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// exitError carries an exit status; its message is printed on one line.
type exitError struct {
	code int
	err  error
	// silent: what there was to say has been said (help shown, failures reported).
	silent bool
}

func (e *exitError) Error() string { return e.err.Error() }

func usageError(format string, args ...any) error {
	return &exitError{code: 2, err: fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if pluginHost != nil {
		pluginHost.Close()
	}
	if err != nil {
		code := 1
		var ee *exitError
		if errors.As(err, &ee) {
			code = ee.code
		}
		if !errors.As(err, &ee) || !ee.silent {
			fmt.Fprintln(os.Stderr, "quarry:", err)
		}
		os.Exit(code)
	}
}

var errHelpShown = &exitError{code: 0, err: errors.New("help shown"), silent: true}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return &exitError{code: 2, err: errors.New("no command given; try quarry partition FILE")}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "partition":
		return runPartition(ctx, rest, stdout, stderr)
	case "eval":
		return runEval(rest, stdout)
	case "serve":
		startPlugins(true)
		return runServe(ctx, rest, stdout, stderr)
	case "worker":
		startPlugins(true)
		return runWorker(ctx, rest, stdout, stderr)
	case "plugin":
		return runPlugin(ctx, rest, stdout, stderr)
	case "version", "-version", "--version":
		fmt.Fprintln(stdout, versionString())
		return nil
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && rest[0] != "help" {
			return run(ctx, []string{rest[0], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	commands := []string{"partition", "serve", "worker", "eval", "plugin", "version", "help"}
	if s := suggest(cmd, commands); s != "" {
		return usageError("unknown command %q; did you mean %s? (quarry help lists the commands)", cmd, s)
	}
	return usageError("unknown command %q; quarry help lists the commands", cmd)
}
