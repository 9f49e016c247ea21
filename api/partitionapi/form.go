package partitionapi

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/engine"
)

// OptionsFromForm parses form values with the reference server's rules (§2.1) on top of
// engine.DefaultOptions: empty values mean "not given", unknown fields are ignored, a trailing "[]" on
// a name is dropped, lists may be repeated, a JSON array or "+"-joined. All invalid fields are
// reported together in a *schema.ValidationError. The keys registered formats and strategies
// declare (Declared) are checked by their kind with the same rules and reach the partitioner
// in Extra with a canonical value ("no" arrives as "false").
func OptionsFromForm(form map[string][]string) (engine.Options, error) {
	o := engine.DefaultOptions()
	values := map[string][]string{}
	for k, vs := range form {
		k = strings.TrimSuffix(k, "[]")
		for _, v := range vs {
			if v != "" {
				values[k] = append(values[k], v)
			}
		}
	}
	// Fields the API does not define are ignored by the reference; they are kept in Extra with
	// every value sent (a reader takes the last), so a plugin strategy can read them.
	known := map[string]bool{"files": true}
	for _, p := range Params() {
		known[p.Name] = true
	}
	for k, vs := range values {
		if !known[k] {
			o.SetExtra(k, vs...)
		}
	}
	var errs []schema.FieldError
	fail := func(name, typ, msg string, input any, ctx map[string]any) {
		errs = append(errs, schema.FieldError{Type: typ, Loc: []string{"body", name}, Msg: msg, Input: input, Ctx: ctx})
	}
	// A parameter without a field of engine.Options (one a format or strategy declared for
	// itself: xml_keep_tags, include_slide_notes, the pdfminer margins, the vlm keys, and the
	// Declared ones such as process_attachments) reaches its reader through Extra, with the
	// canonical value its kind parsed to ("no" arrives as "false"), or a declared list's items.
	set := func(name string, v any) {
		if o.Set(name, v) {
			return
		}
		var s string
		switch x := v.(type) {
		case bool:
			s = strconv.FormatBool(x)
		case int:
			s = strconv.Itoa(x)
		case float64:
			s = strconv.FormatFloat(x, 'g', -1, 64)
		case string:
			s = x
		case []string:
			o.SetExtra(name, x...)
			return
		default:
			return
		}
		o.SetExtra(name, s)
	}
	for _, p := range All() {
		vs, ok := values[p.Name]
		if !ok || p.Group == Ignored {
			continue
		}
		raw := vs[len(vs)-1]
		switch p.Kind {
		case StrictBool:
			b, ok := schema.ParseBool(raw, schema.PydanticTrimmed)
			if !ok {
				fail(p.Name, "bool_parsing", "Input should be a valid boolean, unable to interpret input", raw, nil)
				continue
			}
			set(p.Name, b)
		case LenientBool:
			b, _ := schema.ParseBool(raw, schema.TrueOnly)
			set(p.Name, b)
		case Int:
			n, err := strconv.Atoi(strings.TrimSpace(raw))
			if err != nil {
				fail(p.Name, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", raw, nil)
				continue
			}
			set(p.Name, n)
		case Float:
			f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
			if err != nil {
				fail(p.Name, "float_parsing", "Input should be a valid number, unable to parse string as a number", raw, nil)
				continue
			}
			set(p.Name, f)
		case Literal:
			v := raw
			if p.Name == "strategy" {
				v = strings.NewReplacer("'", "", `"`, "").Replace(v)
			}
			if p.Name == "chunking_strategy" {
				v = strings.ToLower(v)
			}
			if !slices.Contains(p.Choices, v) {
				expected := schema.Choices(p.Choices)
				fail(p.Name, "literal_error", "Input should be "+expected, raw, map[string]any{"expected": expected})
				continue
			}
			set(p.Name, v)
		case List:
			set(p.Name, parseList(vs))
		case String:
			set(p.Name, raw)
		}
	}
	if len(errs) > 0 {
		return o, &schema.ValidationError{Errors: errs}
	}
	return o, nil
}

// parseList applies the server's list rules: repeated values as they are; a single value is a
// JSON array literal or split on "+" (never on commas).
func parseList(vs []string) []string {
	if len(vs) > 1 {
		return vs
	}
	v := vs[0]
	var arr []any
	if err := json.Unmarshal([]byte(v), &arr); err == nil {
		out := make([]string, 0, len(arr))
		for _, a := range arr {
			if s, ok := a.(string); ok {
				out = append(out, s)
			} else {
				out = append(out, fmt.Sprint(a))
			}
		}
		return out
	}
	if json.Valid([]byte(v)) {
		return []string{v} // valid JSON that is not an array is kept as one raw item
	}
	return strings.Split(v, "+")
}
