package partitionapi_test

import (
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/quarrydocs/quarry/api/partitionapi"
	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/contract"
	_ "github.com/quarrydocs/quarry/formats/all"
	_ "github.com/quarrydocs/quarry/strategies/all"
	_ "github.com/quarrydocs/quarry/strategies/vlm"
)

func TestOptionsFromForm(t *testing.T) {
	o, err := partitionapi.OptionsFromForm(map[string][]string{
		"strategy":               {`"hi_res"`},
		"coordinates":            {"1"},   // lenient: only "true" is true
		"include_page_breaks":    {"YES"}, // strict: yes is true
		"languages[]":            {"eng", "kor"},
		"ocr_languages":          {"eng+deu"},
		"skip_infer_table_types": {`["pdf","jpg"]`},
		"starting_page_number":   {"3"},
		"encoding":               {""}, // empty = not given
		"chunking_strategy":      {"BY_TITLE"},
		"max_characters":         {"1000"},
		"unknown_field":          {"ignored"},
		"unknown_list[]":         {"a", "", "b"}, // repeated: every non-empty value, in order
		"files":                  {"x"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if o.Strategy != "hi_res" || o.Coordinates || !o.IncludePageBreaks || o.StartingPageNumber != 3 || o.Encoding != "" {
		t.Errorf("scalars parsed wrong: %+v", o)
	}
	if !reflect.DeepEqual(o.Languages, []string{"eng", "kor"}) || !reflect.DeepEqual(o.OCRLanguages, []string{"eng", "deu"}) ||
		!reflect.DeepEqual(o.SkipInferTableTypes, []string{"pdf", "jpg"}) {
		t.Errorf("lists parsed wrong: %q %q %q", o.Languages, o.OCRLanguages, o.SkipInferTableTypes)
	}
	if o.Chunking.Strategy != "by_title" || *o.Chunking.MaxCharacters != 1000 || !o.Chunking.MultipageSections {
		t.Errorf("chunking parsed wrong: %+v", o.Chunking)
	}
	if o.Extra.Get("unknown_field") != "ignored" || !reflect.DeepEqual(o.Extra.Values("unknown_list"), []string{"a", "b"}) ||
		o.Extra.Get("unknown_list") != "b" || o.Extra.Has("files") {
		t.Errorf("unknown fields not kept in Extra: %v", o.Extra)
	}
	// Defaults of the OSS server.
	d, _ := partitionapi.OptionsFromForm(nil)
	if d.Strategy != "auto" || !d.PDFInferTableStructure || d.StartingPageNumber != 1 {
		t.Errorf("defaults wrong: %+v", d)
	}
	// A comma is not a list separator in form values.
	c, _ := partitionapi.OptionsFromForm(map[string][]string{"languages": {"eng,kor"}})
	if !reflect.DeepEqual(c.Languages, []string{"eng,kor"}) {
		t.Errorf("comma split: %q", c.Languages)
	}
}

func TestOptionsFromFormErrors(t *testing.T) {
	_, err := partitionapi.OptionsFromForm(map[string][]string{
		"strategy":            {"HI_RES"},
		"include_page_breaks": {"maybe"},
		"max_characters":      {"ten"},
		"output_format":       {"text/xml"},
	})
	var ve *schema.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("want *ValidationError, got %v", err)
	}
	got := map[string]string{}
	for _, fe := range ve.Errors {
		got[fe.Loc[1]] = fe.Type
		if fe.Loc[0] != "body" {
			t.Errorf("loc %v", fe.Loc)
		}
	}
	want := map[string]string{"strategy": "literal_error", "include_page_breaks": "bool_parsing",
		"max_characters": "int_parsing", "output_format": "literal_error"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("errors %v, want %v", got, want)
	}
}

// TestEveryParamReachesOptions guards the schema against drifting from engine.Options: every
// parameter but the one the reference ignores must change the options when given a value other
// than its default (a name engine.Options.Set does not know would be silently dropped).
func TestEveryParamReachesOptions(t *testing.T) {
	defaults, err := partitionapi.OptionsFromForm(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range partitionapi.Params() {
		var tries []string
		switch p.Kind {
		case partitionapi.StrictBool, partitionapi.LenientBool:
			tries = []string{"true", "false"}
		case partitionapi.Int:
			tries = []string{"7"}
		case partitionapi.Float:
			tries = []string{"0.25"}
		case partitionapi.List, partitionapi.String:
			tries = []string{"x"}
		case partitionapi.Literal:
			tries = p.Choices
		default:
			t.Errorf("%s: unknown kind %q", p.Name, p.Kind)
		}
		changed := false
		for _, v := range tries {
			o, err := partitionapi.OptionsFromForm(map[string][]string{p.Name: {v}})
			if err != nil {
				t.Errorf("%s=%s: %v", p.Name, v, err)
				continue
			}
			changed = changed || !reflect.DeepEqual(o, defaults)
		}
		if ignored := p.Name == "tracking_enabled"; changed == ignored {
			t.Errorf("%s: options changed = %v, want %v", p.Name, changed, !ignored)
		}
		if d, ok := p.Default(); ok && p.Kind.Bool() {
			if _, isBool := d.(bool); !isBool {
				t.Errorf("%s: default %v is not a boolean", p.Name, d)
			}
		}
	}
}

// TestParamsMatchContractKeys keeps the form schema and the plugin wire's keys one vocabulary:
// every standard key is a parameter of a compatible kind, and every parameter a partitioner can
// read (all but chunking, which runs on the host, and the ignored ones) is a standard key or a
// key a registered format or strategy declared for itself, of a compatible kind.
func TestParamsMatchContractKeys(t *testing.T) {
	compatible := map[contract.ValueKind][]partitionapi.Kind{
		contract.Bool:   {partitionapi.StrictBool, partitionapi.LenientBool},
		contract.Int:    {partitionapi.Int},
		contract.Float:  {partitionapi.Float},
		contract.String: {partitionapi.String, partitionapi.Literal},
		contract.List:   {partitionapi.List},
	}
	for _, k := range contract.StandardKeys {
		p, ok := partitionapi.Lookup(k.Key)
		if !ok {
			t.Errorf("standard key %s is no API parameter", k.Key)
			continue
		}
		if !slices.Contains(compatible[k.Kind], p.Kind) {
			t.Errorf("%s: key kind %s, parameter kind %s", k.Key, k.Kind, p.Kind)
		}
	}
	declared := map[string]contract.KeySpec{}
	for _, k := range contract.DeclaredKeys() {
		declared[k.Key] = k.KeySpec
	}
	for _, p := range partitionapi.Params() {
		_, isKey := contract.LookupKey(p.Name)
		spec, isDeclared := declared[p.Name]
		if isDeclared && !slices.Contains(compatible[spec.Kind], p.Kind) {
			t.Errorf("%s: declared kind %s, parameter kind %s", p.Name, spec.Kind, p.Kind)
		}
		if wantKey := p.Group != partitionapi.Chunking && p.Group != partitionapi.Ignored; (isKey || isDeclared) != wantKey {
			t.Errorf("%s (group %s): standard key %v, declared by a registrant %v, want a key %v", p.Name, p.Group, isKey, isDeclared, wantKey)
		}
	}
}
