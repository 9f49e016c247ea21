// Package partitionapi owns the partition API's parameters (partition-api.md §2): their names,
// kinds, defaults and help, and how a form is parsed into engine options with the reference
// server's rules and error wording. The HTTP server, the platform's workflow nodes and the CLI
// all parse through it, so the three cannot drift; the OpenAPI document is generated from it.
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

// Param describes one form parameter of the partition API.
type Param struct {
	Name string
	// Kind is one of "strict_bool", "lenient_bool", "int", "float", "list", "literal", "string".
	Kind string
	// Choices are the allowed values of a literal.
	Choices []string
	Help    string
}

// Params lists every partition parameter (partition-api.md §2.2 and §2.3) in documentation order.
func Params() []Param {
	return []Param{
		{"strategy", "literal", StrategyChoices(), "auto, fast, hi_res, ocr_only, vlm or an installed plugin strategy"},
		{"output_format", "literal", []string{"application/json", "text/csv"}, "response format"},
		{"coordinates", "lenient_bool", nil, "keep element coordinates"},
		{"encoding", "string", nil, "text encoding of text-based files"},
		{"content_type", "string", nil, "MIME type hint for the file"},
		{"gz_uncompressed_content_type", "string", nil, "MIME type of a gzip upload's content"},
		{"hi_res_model_name", "string", nil, "layout model for hi_res"},
		{"include_page_breaks", "strict_bool", nil, "emit PageBreak elements"},
		{"languages", "list", nil, "document languages (ISO 639 codes or names)"},
		{"ocr_languages", "list", nil, "deprecated: OCR languages"},
		{"pdf_infer_table_structure", "lenient_bool", nil, "deprecated: infer PDF table structure"},
		{"skip_infer_table_types", "list", nil, "file types partitioned without table structure"},
		{"extract_image_block_types", "list", nil, "element types whose image crops are embedded"},
		{"xml_keep_tags", "lenient_bool", nil, "XML: one element holding the raw document"},
		{"unique_element_ids", "strict_bool", nil, "random UUIDs instead of content hashes"},
		{"starting_page_number", "int", nil, "number of the first page"},
		{"include_slide_notes", "strict_bool", nil, "PPT/PPTX: emit speaker notes"},
		{"chunking_strategy", "literal", []string{"basic", "by_title", "by_page", "by_similarity"}, "chunk the elements"},
		{"max_characters", "int", nil, "chunk hard maximum"},
		{"new_after_n_chars", "int", nil, "chunk soft maximum"},
		{"combine_under_n_chars", "int", nil, "by_title: combine small sections"},
		{"overlap", "int", nil, "characters repeated between split chunks"},
		{"overlap_all", "strict_bool", nil, "overlap between all chunks"},
		{"multipage_sections", "strict_bool", nil, "by_title: sections may span pages"},
		{"include_orig_elements", "strict_bool", nil, "chunks carry their source elements"},
		{"similarity_threshold", "float", nil, "by_similarity: minimum similarity (0.01–0.99)"},
		{"do_not_break_similarity_on_footer_header", "strict_bool", nil, "by_similarity: headers/footers do not break chunks"},
		{"vlm_model_provider", "string", nil, "vlm: provider"},
		{"vlm_model", "string", nil, "vlm: model"},
		{"table_ocr_agent", "string", nil, "OCR agent for table cells"},
		{"pdfminer_line_overlap", "float", nil, "pdfminer line_overlap"},
		{"pdfminer_char_margin", "float", nil, "pdfminer char_margin"},
		{"pdfminer_line_margin", "float", nil, "pdfminer line_margin"},
		{"pdfminer_word_margin", "float", nil, "pdfminer word_margin"},
		{"tracking_enabled", "string", nil, "accepted and ignored"},
	}
}

// referenceStrategies are the reference's strategy literal: always accepted by validation,
// installed or not (a missing one is reported when a document needs it).
var referenceStrategies = []string{"auto", "fast", "hi_res", "ocr_only", "vlm"}

// StrategyChoices lists the accepted strategy names: the built-in ones and installed plugins.
func StrategyChoices() []string {
	out := slices.Clone(referenceStrategies)
	for _, s := range engine.Strategies() {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// OptionsFromForm parses form values with the reference server's rules (§2.1) on top of
// engine.DefaultOptions: empty values mean "not given", unknown fields are ignored, a trailing "[]" on
// a name is dropped, lists may be repeated, a JSON array or "+"-joined. All invalid fields are
// reported together in a *schema.ValidationError.
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
	// Fields the API does not define are ignored by the reference; they are kept in Extra so a
	// plugin strategy (or vlm's knobs, e.g. vlm_dry_run) can read them.
	known := map[string]bool{"files": true}
	for _, p := range Params() {
		known[p.Name] = true
	}
	for k, vs := range values {
		if !known[k] {
			if o.Extra == nil {
				o.Extra = map[string]string{}
			}
			o.Extra[k] = vs[len(vs)-1]
		}
	}
	var errs []schema.FieldError
	fail := func(name, typ, msg string, input any, ctx map[string]any) {
		errs = append(errs, schema.FieldError{Type: typ, Loc: []string{"body", name}, Msg: msg, Input: input, Ctx: ctx})
	}
	for _, p := range Params() {
		vs, ok := values[p.Name]
		if !ok {
			continue
		}
		raw := vs[len(vs)-1]
		switch p.Kind {
		case "strict_bool":
			b, ok := schema.ParseBool(raw, schema.PydanticTrimmed)
			if !ok {
				fail(p.Name, "bool_parsing", "Input should be a valid boolean, unable to interpret input", raw, nil)
				continue
			}
			o.Set(p.Name, b)
		case "lenient_bool":
			b, _ := schema.ParseBool(raw, schema.TrueOnly)
			o.Set(p.Name, b)
		case "int":
			n, err := strconv.Atoi(strings.TrimSpace(raw))
			if err != nil {
				fail(p.Name, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", raw, nil)
				continue
			}
			o.Set(p.Name, n)
		case "float":
			f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
			if err != nil {
				fail(p.Name, "float_parsing", "Input should be a valid number, unable to parse string as a number", raw, nil)
				continue
			}
			o.Set(p.Name, f)
		case "literal":
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
			o.Set(p.Name, v)
		case "list":
			o.Set(p.Name, parseList(vs))
		case "string":
			o.Set(p.Name, raw)
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
