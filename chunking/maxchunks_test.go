package chunking

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// max_characters=1 makes a chunk of every character; MaxChunks stops that before a million
// chunks are held (each a copy of the metadata with the split element in orig_elements).
func TestMaxChunksStopsSplitting(t *testing.T) {
	one := 1
	elems := []element.Element{{Type: element.NarrativeText, Text: strings.Repeat("abcdefgh ", 2000)}}
	_, err := Chunk(context.Background(), elems, Options{Strategy: Basic, MaxCharacters: &one, IncludeOrigElements: true, MaxChunks: 100})
	var many *TooManyChunksError
	if !errors.As(err, &many) || many.Max != 100 {
		t.Fatalf("18,000 one-character chunks under MaxChunks 100: %v", err)
	}
	// A table cut like text (no HTML) is bounded the same way.
	tbl := []element.Element{{Type: element.Table, Text: strings.Repeat("cell ", 3000)}}
	if _, err := Chunk(context.Background(), tbl, Options{Strategy: Basic, MaxCharacters: &one, MaxChunks: 100}); !errors.As(err, &many) {
		t.Fatalf("table: %v", err)
	}
	out, err := Chunk(context.Background(), elems, Options{Strategy: Basic, MaxChunks: 100})
	if err != nil || len(out) != 37 {
		t.Fatalf("default max_characters: %d chunks, %v", len(out), err)
	}
	sp := splitter{max: 1, most: 10}
	if got := len(sp.splitAll(strings.Repeat("ab ", 100))); got != 11 {
		t.Fatalf("splitAll with most 10: %d pieces, want 11", got)
	}
}
