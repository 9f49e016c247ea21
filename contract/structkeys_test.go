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
