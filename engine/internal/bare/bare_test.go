// Package bare_test partitions with the engine alone, as a Go program that forgot the
// formats/all import does: the error must name that import, not call a text file unsupported.
package bare_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/engine"
)

func TestNoFormatsNamesTheImport(t *testing.T) {
	for _, name := range []string{"notes.txt", "report.pdf", "page.png"} {
		_, err := engine.Partition(context.Background(), engine.NewDocument(name, []byte("Hello there, this is text.\n")), engine.DefaultOptions())
		if err == nil || !strings.Contains(err.Error(), `"github.com/quarrydocs/quarry/formats/all"`) {
			t.Errorf("%s: got %v, want an error naming the formats/all import", name, err)
		}
	}
}
