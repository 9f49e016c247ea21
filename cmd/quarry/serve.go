package main

import (
	"context"
	"errors"
	"io"
)

// runServe is replaced by the real server wiring in the next commit.
func runServe(ctx context.Context, args []string, stderr io.Writer) error {
	return errors.New("serve: not built yet")
}
