package main

import (
	"context"
	"io"
)

// runPlugin is the "quarry plugin" command (filled in by plugins/host wiring).
func runPlugin(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageError("quarry plugin: not implemented yet")
}
