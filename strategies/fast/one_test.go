package fast

import (
	"context"
	"os"
	"testing"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"
)

// TestOneFile partitions ONE_FILE once (profiling and memory measurements).
func TestOneFile(t *testing.T) {
	f := os.Getenv("ONE_FILE")
	if f == "" {
		t.Skip("ONE_FILE not set")
	}
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	doc := engine.NewDocument(f, data)
	doc.MIMEType = "application/pdf"
	opts := engine.DefaultOptions()
	n := 0
	if err := Partition(ctx0(opts), doc, opts.Keys(), func(element.Element) error { n++; return nil }); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d elements", n)
}

// ctx0 is a context carrying opts' logger, as the engine passes it to the strategy.
func ctx0(opts engine.Options) context.Context {
	return contract.WithLogger(context.Background(), opts.Logger)
}
