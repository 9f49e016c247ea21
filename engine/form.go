package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FieldError is one schema-validation failure, shaped like the reference's 422 list detail
// items (pydantic v2): type, loc, msg, input and sometimes ctx.
type FieldError struct {
	Type  string         `json:"type"`
	Loc   []string       `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// ValidationError lists every invalid form field.
type ValidationError struct{ Errors []FieldError }

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		msgs[i] = fmt.Sprintf("%s: %s", fe.Loc[len(fe.Loc)-1], fe.Msg)
	}
	return strings.Join(msgs, "; ")
}

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

// builtinStrategies are always accepted by validation, installed or not (a missing one is
// reported when a document needs it).
var builtinStrategies = []string{"auto", "fast", "hi_res", "ocr_only", "vlm"}

// StrategyChoices lists the accepted strategy names: the built-in ones and installed plugins.
func StrategyChoices() []string {
	out := slices.Clone(builtinStrategies)
	for _, s := range Strategies() {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

var strictTrue = []string{"true", "1", "yes", "on", "t", "y"}
var strictFalse = []string{"false", "0", "no", "off", "f", "n"}

// OptionsFromForm parses form values with the reference server's rules (§2.1) on top of
// DefaultOptions: empty values mean "not given", unknown fields are ignored, a trailing "[]" on
// a name is dropped, lists may be repeated, a JSON array or "+"-joined. All invalid fields are
// reported together in a *ValidationError.
func OptionsFromForm(form map[string][]string) (Options, error) {
	o := DefaultOptions()
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
	var errs []FieldError
	fail := func(name, typ, msg string, input any, ctx map[string]any) {
		errs = append(errs, FieldError{Type: typ, Loc: []string{"body", name}, Msg: msg, Input: input, Ctx: ctx})
	}
	for _, p := range Params() {
		vs, ok := values[p.Name]
		if !ok {
			continue
		}
		raw := vs[len(vs)-1]
		switch p.Kind {
		case "strict_bool":
			b, ok := parseStrictBool(raw)
			if !ok {
				fail(p.Name, "bool_parsing", "Input should be a valid boolean, unable to interpret input", raw, nil)
				continue
			}
			setBool(&o, p.Name, b)
		case "lenient_bool":
			setBool(&o, p.Name, strings.ToLower(raw) == "true")
		case "int":
			n, err := strconv.Atoi(strings.TrimSpace(raw))
			if err != nil {
				fail(p.Name, "int_parsing", "Input should be a valid integer, unable to parse string as an integer", raw, nil)
				continue
			}
			setInt(&o, p.Name, n)
		case "float":
			f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
			if err != nil {
				fail(p.Name, "float_parsing", "Input should be a valid number, unable to parse string as a number", raw, nil)
				continue
			}
			setFloat(&o, p.Name, f)
		case "literal":
			v := raw
			if p.Name == "strategy" {
				v = strings.NewReplacer("'", "", `"`, "").Replace(v)
			}
			if p.Name == "chunking_strategy" {
				v = strings.ToLower(v)
			}
			if !slices.Contains(p.Choices, v) {
				expected := literalList(p.Choices)
				fail(p.Name, "literal_error", "Input should be "+expected, raw, map[string]any{"expected": expected})
				continue
			}
			setString(&o, p.Name, v)
		case "list":
			setList(&o, p.Name, parseList(vs))
		case "string":
			setString(&o, p.Name, raw)
		}
	}
	if len(errs) > 0 {
		return o, &ValidationError{Errors: errs}
	}
	return o, nil
}

func parseStrictBool(s string) (bool, bool) {
	l := strings.ToLower(strings.TrimSpace(s))
	switch {
	case slices.Contains(strictTrue, l):
		return true, true
	case slices.Contains(strictFalse, l):
		return false, true
	}
	return false, false
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

func literalList(choices []string) string {
	q := make([]string, len(choices))
	for i, c := range choices {
		q[i] = "'" + c + "'"
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func setBool(o *Options, name string, b bool) {
	switch name {
	case "coordinates":
		o.Coordinates = b
	case "include_page_breaks":
		o.IncludePageBreaks = b
	case "pdf_infer_table_structure":
		o.PDFInferTableStructure = b
	case "xml_keep_tags":
		o.XMLKeepTags = b
	case "unique_element_ids":
		o.UniqueElementIDs = b
	case "include_slide_notes":
		o.IncludeSlideNotes = b
	case "overlap_all":
		o.Chunking.OverlapAll = b
	case "multipage_sections":
		o.Chunking.MultipageSections = b
	case "include_orig_elements":
		o.Chunking.IncludeOrigElements = b
	case "do_not_break_similarity_on_footer_header":
		o.Chunking.DoNotBreakSimilarityOnFooterHeader = b
	}
}

func setInt(o *Options, name string, n int) {
	switch name {
	case "starting_page_number":
		o.StartingPageNumber = n
	case "max_characters":
		o.Chunking.MaxCharacters = &n
	case "new_after_n_chars":
		o.Chunking.NewAfterNChars = &n
	case "combine_under_n_chars":
		o.Chunking.CombineTextUnderNChars = &n
	case "overlap":
		o.Chunking.Overlap = n
	}
}

func setFloat(o *Options, name string, f float64) {
	switch name {
	case "similarity_threshold":
		o.Chunking.SimilarityThreshold = &f
	case "pdfminer_line_overlap":
		o.PDFMinerLineOverlap = &f
	case "pdfminer_char_margin":
		o.PDFMinerCharMargin = &f
	case "pdfminer_line_margin":
		o.PDFMinerLineMargin = &f
	case "pdfminer_word_margin":
		o.PDFMinerWordMargin = &f
	}
}

func setString(o *Options, name, v string) {
	switch name {
	case "strategy":
		o.Strategy = v
	case "output_format":
		o.OutputFormat = v
	case "encoding":
		o.Encoding = v
	case "content_type":
		o.ContentType = v
	case "gz_uncompressed_content_type":
		o.GzUncompressedContentType = v
	case "hi_res_model_name":
		o.HiResModelName = v
	case "chunking_strategy":
		o.Chunking.Strategy = v
	case "vlm_model_provider":
		o.VLMModelProvider = v
	case "vlm_model":
		o.VLMModel = v
	case "table_ocr_agent":
		o.TableOCRAgent = v
	}
}

func setList(o *Options, name string, v []string) {
	switch name {
	case "languages":
		o.Languages = v
	case "ocr_languages":
		o.OCRLanguages = v
	case "skip_infer_table_types":
		o.SkipInferTableTypes = v
	case "extract_image_block_types":
		o.ExtractImageBlockTypes = v
	}
}
