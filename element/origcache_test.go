package element

import (
	"bytes"
	"strings"
	"testing"
)

// The chunks of one split element share its orig_elements slice. Encoding it once per chunk
// made answers quadratic (max_characters=1 on a 45 KB paragraph: 45,000 compressions of 45 KB,
// 28 s); it is encoded once per answer, with the same bytes as before.
func TestOrigElementsEncodedOncePerSharedSlice(t *testing.T) {
	src := Element{Type: NarrativeText, ID: "p", Text: strings.Repeat("lorem ipsum dolor ", 500)}
	shared := []Element{src}
	const n = 300
	sharing := make([]Element, n)
	separate := make([]Element, n)
	for i := range sharing {
		sharing[i] = Element{Type: CompositeElement, Text: "lo", Metadata: Metadata{OrigElements: shared}}
		separate[i] = Element{Type: CompositeElement, Text: "lo", Metadata: Metadata{OrigElements: []Element{src}}}
	}
	if a, b := MarshalList(sharing), MarshalList(separate); !bytes.Equal(a, b) {
		t.Fatal("shared and separate orig_elements encode differently")
	}
	if a, b := MarshalCSV(sharing), MarshalCSV(separate); !bytes.Equal(a, b) {
		t.Fatal("CSV: shared and separate orig_elements encode differently")
	}
	withShared := testing.AllocsPerRun(2, func() { MarshalList(sharing) })
	withSeparate := testing.AllocsPerRun(2, func() { MarshalList(separate) })
	if withShared*3 > withSeparate {
		t.Fatalf("%d chunks sharing one orig slice: %.0f allocations, as many as %.0f for separate slices: encoded per chunk", n, withShared, withSeparate)
	}
}

func TestMarshalLimits(t *testing.T) {
	elems := make([]Element, 100)
	for i := range elems {
		elems[i] = Element{Type: NarrativeText, Text: strings.Repeat("x", 100)}
	}
	full := MarshalList(elems)
	if b, err := MarshalListLimit(elems, len(full)); err != nil || !bytes.Equal(b, full) {
		t.Fatalf("at its own size: %v", err)
	}
	if _, err := MarshalListLimit(elems, len(full)/2); err != ErrTooLarge {
		t.Fatalf("half the size: %v", err)
	}
	csv := MarshalCSV(elems)
	if _, err := MarshalCSVLimit(elems, len(csv)/2); err != ErrTooLarge {
		t.Fatalf("CSV, half the size: %v", err)
	}
	if b, err := MarshalCSVLimit(elems, 0); err != nil || !bytes.Equal(b, csv) {
		t.Fatalf("CSV without limit: %v", err)
	}
}
