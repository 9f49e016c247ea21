package contract

import (
	"reflect"
	"testing"
)

type tagged struct {
	S     string            `key:"s"`
	B     bool              `key:"b"`
	N     int               `key:"n"`
	F     *float64          `key:"f"`
	L     []string          `key:"l"`
	Extra map[string]string `key:",extra"`
	Host  int               // no tag: stays behind
}

// Tagged fields cross as canonical keys, unset pointers and nil lists stay absent, extra
// entries cross as they are but never shadow a tagged key; SetKeys reads them back, leaving a
// field whose value does not parse as it was.
func TestKeysOfAndSetKeys(t *testing.T) {
	f := 0.5
	in := tagged{S: "x", B: true, N: 3, F: &f, Extra: map[string]string{"own": "1", "s": "shadow"}, Host: 9}
	k := KeysOf(&in)
	want := Options{"s": {"x"}, "b": {"true"}, "n": {"3"}, "f": {"0.5"}, "own": {"1"}}
	if !reflect.DeepEqual(k, want) {
		t.Fatalf("KeysOf = %v, want %v", k, want)
	}
	var out tagged
	SetKeys(&out, k)
	in.Host, in.Extra = 0, map[string]string{"own": "1"}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("SetKeys = %+v, want %+v", out, in)
	}
	bad := tagged{N: 4, B: true}
	SetKeys(&bad, Options{"n": {"four"}, "b": {"maybe"}, "l": {}, "f": {"x"}})
	if bad.N != 4 || !bad.B || bad.L == nil || len(bad.L) != 0 || bad.F != nil {
		t.Errorf("unparsable values changed fields or an empty list was lost: %+v", bad)
	}
	if !SetKey(&bad, "f", 2.5) || *bad.F != 2.5 || SetKey(&bad, "n", "7") || SetKey(&bad, "absent", 1) {
		t.Errorf("SetKey: %+v", bad)
	}
}

// An extra field that holds lists (the engine's) keeps every key as it was given: several
// values, one, none, an empty one; a tagged key still wins over an extra entry of its name.
func TestKeysOfListExtra(t *testing.T) {
	type listed struct {
		S     string  `key:"s"`
		Extra Options `key:",extra"`
	}
	in := listed{S: "x", Extra: Options{"tags": {"a", "b"}, "one": {"1"}, "none": {}, "empty": {""}, "s": {"shadow"}}}
	k := KeysOf(&in)
	want := Options{"s": {"x"}, "tags": {"a", "b"}, "one": {"1"}, "none": {}, "empty": {""}}
	if !reflect.DeepEqual(k, want) {
		t.Fatalf("KeysOf = %v, want %v", k, want)
	}
	var out listed
	SetKeys(&out, k)
	delete(in.Extra, "s")
	if !reflect.DeepEqual(out, in) {
		t.Errorf("SetKeys = %+v, want %+v", out, in)
	}
	// Protocol 1's frozen struct has a map[string]string: a list arrives as its last item,
	// a key without values not at all.
	var old tagged
	SetKeys(&old, k)
	if want := map[string]string{"tags": "b", "one": "1", "empty": ""}; !reflect.DeepEqual(old.Extra, want) {
		t.Errorf("protocol 1 extra = %v, want %v", old.Extra, want)
	}
}
