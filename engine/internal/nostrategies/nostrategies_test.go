// Package nostrategies_test partitions with the built-in formats but no PDF or image strategy,
// as a Go program that forgot the strategies/all import does: text still works, and a PDF's
// error names that import rather than an empty list of installed strategies.
package nostrategies_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/all"
)

func TestNoStrategiesNamesTheImport(t *testing.T) {
	ctx := context.Background()
	if _, err := engine.Partition(ctx, engine.NewDocument("notes.txt", []byte("Hello there, this is text.\n")), engine.DefaultOptions()); err != nil {
		t.Fatalf("text without strategies: %v", err)
	}
	pdf, err := os.ReadFile("../../../testdata/reference/docs/list-item-example.pdf")
	if err != nil {
		t.Fatal(err)
	}
	for _, strategy := range []string{"auto", "fast", "hi_res"} {
		opts := engine.DefaultOptions()
		opts.Strategy = strategy
		_, err := engine.Partition(ctx, engine.NewDocument("list.pdf", pdf), opts)
		if err == nil || !strings.Contains(err.Error(), `"github.com/quarrydocs/quarry/strategies/all"`) {
			t.Errorf("%s: got %v, want an error naming the strategies/all import", strategy, err)
		}
	}
}
