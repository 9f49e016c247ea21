package schema_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/quarrydocs/quarry/api/schema"
)

// res is a truth value or "error" (not a truth value in that mode).
type res string

const (
	yes  res = "true"
	no   res = "false"
	fail res = "error"
)

func got(v, ok bool) res {
	if !ok {
		return fail
	}
	if v {
		return yes
	}
	return no
}

// TestParseBool is the table of every mode against the values callers meet: pydantic's twelve
// words in any case, white space around them, near misses and the empty string.
func TestParseBool(t *testing.T) {
	for _, c := range []struct {
		in                        string
		pydantic, trimmed, trueOn res
	}{ // Strict reads no string: checked below for every row
		{"true", yes, yes, yes},
		{"TRUE", yes, yes, yes},
		{"True", yes, yes, yes},
		{"1", yes, yes, no}, // lenient form fields: only "true" is true
		{"yes", yes, yes, no},
		{"YES", yes, yes, no},
		{"on", yes, yes, no},
		{"t", yes, yes, no},
		{"Y", yes, yes, no},
		{"false", no, no, no},
		{"0", no, no, no},
		{"no", no, no, no},
		{"OFF", no, no, no},
		{"f", no, no, no},
		{"n", no, no, no},
		{" true ", fail, yes, no}, // only the form's strict fields trim
		{"\tno\n", fail, no, no},
		{"", fail, fail, no},
		{"maybe", fail, fail, no},
		{"2", fail, fail, no},
		{"-1", fail, fail, no},
		{"tru", fail, fail, no},
		{"yess", fail, fail, no},
		{"1.0", fail, fail, no},
		{"truE\x00", fail, fail, no},
	} {
		for _, m := range []struct {
			mode schema.BoolMode
			want res
		}{{schema.Pydantic, c.pydantic}, {schema.PydanticTrimmed, c.trimmed}, {schema.TrueOnly, c.trueOn}} {
			if g := got(schema.ParseBool(c.in, m.mode)); g != m.want {
				t.Errorf("ParseBool(%q, mode %d) = %s, want %s", c.in, m.mode, g, m.want)
			}
		}
		if g := got(schema.ParseBool(c.in, schema.Strict)); g != fail {
			t.Errorf("ParseBool(%q, Strict) = %s, want error", c.in, g)
		}
	}
}

// TestJSONBool covers the JSON types a connector config decodes to, in pydantic's lax mode (the
// reference-modelled connectors) and strict mode (the local connector).
func TestJSONBool(t *testing.T) {
	for _, c := range []struct {
		in          any
		lax, strict res
	}{
		{true, yes, yes},
		{false, no, no},
		{"yes", yes, fail},
		{"Off", no, fail},
		{"true", yes, fail},
		{" yes", fail, fail}, // JSON strings are not trimmed
		{"maybe", fail, fail},
		{float64(1), yes, fail},
		{float64(0), no, fail},
		{0.5, fail, fail},
		{float64(2), fail, fail},
		{1, yes, fail},
		{0, no, fail},
		{-1, fail, fail},
		{json.Number("1"), yes, fail},
		{json.Number("0.0"), no, fail},
		{json.Number("1e0"), yes, fail},
		{json.Number("2"), fail, fail},
		{json.Number("x"), fail, fail},
		{nil, fail, fail},
		{[]any{true}, fail, fail},
		{map[string]any{}, fail, fail},
	} {
		if g := got(schema.JSONBool(c.in, schema.Pydantic)); g != c.lax {
			t.Errorf("JSONBool(%s, Pydantic) = %s, want %s", fmt.Sprintf("%#v", c.in), g, c.lax)
		}
		if g := got(schema.JSONBool(c.in, schema.Strict)); g != c.strict {
			t.Errorf("JSONBool(%s, Strict) = %s, want %s", fmt.Sprintf("%#v", c.in), g, c.strict)
		}
	}
}

func TestChoices(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, ""},
		{[]string{"a"}, "'a'"},
		{[]string{"a", "b"}, "'a' or 'b'"},
		{[]string{"auto", "fast", "hi_res"}, "'auto', 'fast' or 'hi_res'"},
	} {
		if g := schema.Choices(c.in); g != c.want {
			t.Errorf("Choices(%q) = %q, want %q", c.in, g, c.want)
		}
	}
}

func TestValidationErrorMessage(t *testing.T) {
	err := &schema.ValidationError{Errors: []schema.FieldError{
		{Type: "missing", Loc: []string{"body", "files"}, Msg: "Field required"},
		{Type: "int_parsing", Loc: []string{"body", "max_characters"}, Msg: "Input should be a valid integer"},
	}}
	if g, w := err.Error(), "files: Field required; max_characters: Input should be a valid integer"; g != w {
		t.Errorf("Error() = %q, want %q", g, w)
	}
}
