package engine

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/quarrydocs/quarry/contract"
)

// hostOnly are the Options fields that never cross to a partitioner as keys.
var hostOnly = map[string]bool{"Chunking": true, "Logger": true, "Progress": true, "InProcess": true, "MaxElements": true}

// filled returns Options with every field that crosses as a key set to a value unlike its
// default (variant picks one of two such values), by reflection, so a field added to Options
// without a key fails TestKeysRoundTrip instead of silently not reaching plugins.
func filled(t *testing.T, variant int) Options {
	t.Helper()
	o := DefaultOptions()
	v := reflect.ValueOf(&o).Elem()
	for i := 0; i < v.NumField(); i++ {
		f, name := v.Field(i), v.Type().Field(i).Name
		if hostOnly[name] || !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString(fmt.Sprintf("%s-%d", name, variant))
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Int:
			f.SetInt(f.Int() + 7 + int64(variant))
		case reflect.Slice:
			items := []string{name + "+a", `["b"]`, ""}[:variant+1]
			f.Set(reflect.ValueOf(items))
		case reflect.Pointer:
			x := 0.25 + float64(variant)
			f.Set(reflect.ValueOf(&x))
		case reflect.Map:
			// Extra: scalars, lists of several items, of none, and an empty value all cross.
			f.Set(reflect.ValueOf(contract.Options{"shout_volume": {"11"}, "empty": {""}, "x_tags": {"a", "b"}, "x_none": {}}))
		default:
			t.Fatalf("Options.%s (%s) has no wire key: give it one in keys.go (and contract.StandardKeys) or list it in hostOnly", name, f.Kind())
		}
	}
	return o
}

func TestKeysRoundTrip(t *testing.T) {
	for variant := 0; variant < 3; variant++ {
		in := filled(t, variant)
		in.Chunking.Strategy = "by_title"
		in.InProcess, in.MaxElements = true, 5
		out := OptionsFromKeys(in.Keys())
		in.Chunking, in.InProcess, in.MaxElements = out.Chunking, out.InProcess, out.MaxElements
		if !reflect.DeepEqual(in, out) {
			t.Errorf("variant %d: round trip lost fields:\n in %+v\nout %+v", variant, in, out)
		}
	}
	// Defaults, nil lists and nil margins survive as they are (no key means default).
	d := DefaultOptions()
	if out := OptionsFromKeys(d.Keys()); !reflect.DeepEqual(d, out) {
		t.Errorf("defaults: %+v", out)
	}
	// Languages [""] (no language metadata) is not the same as no languages (detect).
	off := DefaultOptions()
	off.Languages = []string{""}
	if got := OptionsFromKeys(off.Keys()).Languages; !reflect.DeepEqual(got, []string{""}) {
		t.Errorf(`languages [""] became %q`, got)
	}
}

// Every key the engine sends is declared in contract.StandardKeys with the kind its values have,
// and every declared key is sent.
func TestKeysDeclared(t *testing.T) {
	o := filled(t, 1)
	o.Extra = nil
	k := o.Keys()
	for _, name := range k.Keys() {
		spec, ok := contract.LookupKey(name)
		if !ok {
			t.Errorf("key %q is sent but not declared in contract.StandardKeys", name)
			continue
		}
		if spec.Kind != contract.List && len(k[name]) != 1 {
			t.Errorf("%s: %d values for a %s", name, len(k[name]), spec.Kind)
		}
	}
	for _, s := range contract.StandardKeys {
		if !k.Has(s.Key) {
			t.Errorf("declared key %q is never sent", s.Key)
		}
	}
	// Chunking stays on the host.
	if k.Has("chunking_strategy") || k.Has("max_characters") {
		t.Error("chunking keys crossed")
	}
}

// A raw key named like a standard one cannot override the standard value.
func TestKeysExtraShadow(t *testing.T) {
	o := DefaultOptions()
	o.Extra = contract.Options{"strategy": {"evil"}, "vlm_dry_run": {"true"}}
	k := o.Keys()
	if k.Get("strategy") != "auto" || k.Get("vlm_dry_run") != "true" {
		t.Errorf("keys %v", k)
	}
}
