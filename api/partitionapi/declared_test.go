package partitionapi_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/engine"
)

// A format and a strategy that declare keys of their own, one of them twice and one that
// shadows an API parameter.
func init() {
	contract.RegisterFormat(contract.Format{Name: "declaring", MIME: "application/x-declaring", Options: []contract.KeySpec{
		{Key: "x_flag", Kind: contract.Bool, Help: "declaring: a flag", Since: 2},
		{Key: "x_count", Kind: contract.Int, Help: "declaring: a count", Since: 2},
		{Key: "x_ratio", Kind: contract.Float, Help: "declaring: a ratio", Since: 2},
		{Key: "x_tags", Kind: contract.List, Help: "declaring: tags", Since: 2},
	}})
	contract.RegisterStrategy(contract.Strategy{Name: "declaring-strategy", Options: []contract.KeySpec{
		{Key: "x_flag", Kind: contract.String, Help: "a second declaration", Since: 2},
		{Key: "coordinates", Kind: contract.Bool, Help: "shadows the API's", Since: 2},
		{Key: "x_mode", Kind: contract.String, Help: "declaring: a mode", Since: 2},
	}})
}

func TestDeclared(t *testing.T) {
	got := map[string]partitionapi.Param{}
	for _, p := range partitionapi.Declared() {
		if _, isParam := partitionapi.Lookup(p.Name); isParam {
			t.Errorf("%s is an API parameter and declared", p.Name)
		}
		if strings.HasPrefix(p.Name, "x_") { // the test's registrants; the linked formats' too
			got[p.Name] = p
		}
	}
	want := map[string]partitionapi.Param{
		"x_flag":  {Name: "x_flag", Kind: partitionapi.StrictBool, Help: "declaring: a flag", Group: partitionapi.Input},
		"x_count": {Name: "x_count", Kind: partitionapi.Int, Help: "declaring: a count", Group: partitionapi.Input},
		"x_ratio": {Name: "x_ratio", Kind: partitionapi.Float, Help: "declaring: a ratio", Group: partitionapi.Input},
		"x_tags":  {Name: "x_tags", Kind: partitionapi.List, Help: "declaring: tags", Group: partitionapi.Input},
		"x_mode":  {Name: "x_mode", Kind: partitionapi.String, Help: "declaring: a mode", Group: partitionapi.Strategy},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Declared() = %+v\nwant %+v", got, want)
	}
	if all := partitionapi.All(); len(all) != len(partitionapi.Params())+len(partitionapi.Declared()) {
		t.Errorf("All() has %d parameters", len(all))
	}
}

// Declared keys reach the partitioner in Extra with canonical values, and a value their kind
// cannot read is a 422 like any parameter's.
func TestDeclaredKeysParsed(t *testing.T) {
	o, err := partitionapi.OptionsFromForm(map[string][]string{
		"x_flag": {" No "}, "x_count": {" 7"}, "x_ratio": {"0.50"}, "x_tags": {"a", "b"}, "x_mode": {"Fast"},
		"coordinates": {"true"}, "undeclared": {"kept"},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := contract.Options{"x_flag": {"false"}, "x_count": {"7"}, "x_ratio": {"0.5"}, "x_mode": {"Fast"}, "x_tags": {"a", "b"}, "undeclared": {"kept"}}
	if !reflect.DeepEqual(o.Extra, want) || !o.Coordinates {
		t.Errorf("Extra = %v (coordinates %v), want %v", o.Extra, o.Coordinates, want)
	}
	// A declared list keeps every item, as far as the partitioner (in process or in a plugin,
	// whose keys come back through OptionsFromKeys).
	if got := o.Keys().Values("x_tags"); !reflect.DeepEqual(got, []string{"a", "b"}) {
		t.Errorf("x_tags reached the partitioner as %q", got)
	}
	back := engine.OptionsFromKeys(o.Keys())
	if got := back.Keys().Values("x_tags"); !reflect.DeepEqual(got, []string{"a", "b"}) || back.Keys().Get("undeclared") != "kept" {
		t.Errorf("x_tags after the plugin wire: %q (%v)", got, back.Keys())
	}
	for form, items := range map[string][]string{"c+d": {"c", "d"}, `["e","f","g"]`: {"e", "f", "g"}, "h": {"h"}} {
		o, err := partitionapi.OptionsFromForm(map[string][]string{"x_tags": {form}})
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Keys().Values("x_tags"); !reflect.DeepEqual(got, items) {
			t.Errorf("x_tags=%s reached the partitioner as %q", form, got)
		}
	}
	_, err = partitionapi.OptionsFromForm(map[string][]string{"x_flag": {"maybe"}, "x_count": {"many"}, "x_ratio": {"half"}})
	var ve *schema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want a *ValidationError, got %v", err)
	}
	types := map[string]string{}
	for _, fe := range ve.Errors {
		types[fe.Loc[1]] = fe.Type
	}
	if w := map[string]string{"x_flag": "bool_parsing", "x_count": "int_parsing", "x_ratio": "float_parsing"}; !reflect.DeepEqual(types, w) {
		t.Errorf("errors %v, want %v", types, w)
	}
}
