// Command quarry partitions documents into typed elements, scores outputs against goldens and
// serves the partition API.
//
//	quarry partition [flags] FILE…   print the elements of each file as JSON (or CSV)
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

const usage = `usage:
  quarry partition [flags] FILE…   partition files; elements as JSON on stdout
  quarry eval OUTPUT.json GOLD     score an output against a golden output (.json) or text (.txt)
  quarry serve [flags]             serve the partition API (default :8000)
  quarry worker [flags]            run platform job workers only (shared --database)
  quarry plugin list|serve|checksum|install   manage strategy plugins (see quarry plugin -h)
  quarry help COMMAND              show a command's flags
`

// exitError carries an exit status; its message is printed on one line.
type exitError struct {
	code int
	err  error
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
		if !errors.Is(err, errHelpShown) {
			fmt.Fprintln(os.Stderr, "quarry:", err)
		}
		os.Exit(code)
	}
}

var errHelpShown = &exitError{code: 0, err: errors.New("help shown")}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return &exitError{code: 2, err: errors.New("no command given")}
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "partition":
		return runPartition(ctx, rest, stdout, stderr)
	case "eval":
		return runEval(rest, stdout)
	case "serve":
		startPlugins(true)
		return runServe(ctx, rest, stderr)
	case "worker":
		startPlugins(true)
		return runWorker(ctx, rest, stderr)
	case "plugin":
		return runPlugin(ctx, rest, stdout, stderr)
	case "help", "-h", "--help":
		if len(rest) > 0 {
			return run(ctx, []string{rest[0], "-h"}, stdout, stderr)
		}
		fmt.Fprint(stdout, usage)
		return nil
	}
	fmt.Fprint(stderr, usage)
	return usageError("unknown command %q", cmd)
}
