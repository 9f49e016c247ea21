// Package partitionapi owns the partition API's parameters (partition-api.md §2): their names,
// kinds, defaults and help, and how a form is parsed into engine options with the reference
// server's rules and error wording. The HTTP server, the platform's workflow nodes and the CLI
// all parse through it, so the three cannot drift; the OpenAPI document is generated from it.
package partitionapi

import (
	"slices"

	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/engine"
)

// Kind is how a parameter's form value is parsed (partition-api.md §2.1).
type Kind string

const (
	// StrictBool is pydantic's boolean coercion: true/1/yes/on/t/y or false/0/no/off/f/n in any
	// case; anything else is a 422 bool_parsing error.
	StrictBool Kind = "strict_bool"
	// LenientBool is true for "true" in any case and false for every other string, never an error.
	LenientBool Kind = "lenient_bool"
	// Int is an integer (white space around it allowed); anything else is a 422 int_parsing error.
	Int Kind = "int"
	// Float is a number; anything else is a 422 float_parsing error.
	Float Kind = "float"
	// List is repeated fields, one JSON array literal or one "+"-joined value.
	List Kind = "list"
	// Literal is one of Param.Choices; anything else is a 422 literal_error.
	Literal Kind = "literal"
	// String is taken as it is.
	String Kind = "string"
)

// Bool reports whether the kind is a boolean (strict or lenient).
func (k Kind) Bool() bool { return k == StrictBool || k == LenientBool }

// Group is what a parameter is about, for documentation and for callers that treat chunking
// apart (the platform's chunk node owns the chunking parameters).
type Group string

const (
	Input    Group = "Input"
	Strategy Group = "Strategy (PDFs and images)"
	Chunking Group = "Chunking"
	Output   Group = "Output"
	// Ignored is a parameter the reference accepts and ignores (tracking_enabled).
	Ignored Group = "Ignored"
)

// Param describes one form parameter of the partition API.
type Param struct {
	Name string
	Kind Kind
	// Choices are the allowed values of a literal.
	Choices []string
	Help    string
	Group   Group
}

// Lookup returns the parameter called name.
func Lookup(name string) (Param, bool) {
	for _, p := range Params() {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Params lists every partition parameter (partition-api.md §2.2 and §2.3) in documentation order.
func Params() []Param {
	return []Param{
		{"strategy", Literal, StrategyChoices(), "auto, fast, hi_res, ocr_only, vlm or an installed plugin strategy", Strategy},
		{"output_format", Literal, []string{"application/json", "text/csv"}, "response format", Output},
		{"coordinates", LenientBool, nil, "keep element coordinates", Output},
		{"encoding", String, nil, "text encoding of text-based files", Input},
		{"content_type", String, nil, "MIME type hint for the file", Input},
		{"gz_uncompressed_content_type", String, nil, "MIME type of a gzip upload's content", Input},
		{"hi_res_model_name", String, nil, "layout model for hi_res", Strategy},
		{"include_page_breaks", StrictBool, nil, "emit PageBreak elements", Output},
		{"languages", List, nil, "document languages (ISO 639 codes or names)", Input},
		{"ocr_languages", List, nil, "deprecated: OCR languages", Strategy},
		{"pdf_infer_table_structure", LenientBool, nil, "deprecated: infer PDF table structure", Strategy},
		{"skip_infer_table_types", List, nil, "file types partitioned without table structure", Strategy},
		{"extract_image_block_types", List, nil, "element types whose image crops are embedded", Strategy},
		{"xml_keep_tags", LenientBool, nil, "XML: one element holding the raw document", Input},
		{"unique_element_ids", StrictBool, nil, "random UUIDs instead of content hashes", Output},
		{"starting_page_number", Int, nil, "number of the first page", Input},
		{"include_slide_notes", StrictBool, nil, "PPT/PPTX: emit speaker notes", Input},
		{"chunking_strategy", Literal, []string{"basic", "by_title", "by_page", "by_similarity"}, "chunk the elements", Chunking},
		{"max_characters", Int, nil, "chunk hard maximum", Chunking},
		{"new_after_n_chars", Int, nil, "chunk soft maximum", Chunking},
		{"combine_under_n_chars", Int, nil, "by_title: combine small sections", Chunking},
		{"overlap", Int, nil, "characters repeated between split chunks", Chunking},
		{"overlap_all", StrictBool, nil, "overlap between all chunks", Chunking},
		{"multipage_sections", StrictBool, nil, "by_title: sections may span pages", Chunking},
		{"include_orig_elements", StrictBool, nil, "chunks carry their source elements", Chunking},
		{"similarity_threshold", Float, nil, "by_similarity: minimum similarity (0.01–0.99)", Chunking},
		{"do_not_break_similarity_on_footer_header", StrictBool, nil, "by_similarity: headers/footers do not break chunks", Chunking},
		{"vlm_model_provider", String, nil, "vlm: provider", Strategy},
		{"vlm_model", String, nil, "vlm: model", Strategy},
		{"table_ocr_agent", String, nil, "OCR agent for table cells", Strategy},
		{"pdfminer_line_overlap", Float, nil, "pdfminer line_overlap", Strategy},
		{"pdfminer_char_margin", Float, nil, "pdfminer char_margin", Strategy},
		{"pdfminer_line_margin", Float, nil, "pdfminer line_margin", Strategy},
		{"pdfminer_word_margin", Float, nil, "pdfminer word_margin", Strategy},
		{"tracking_enabled", String, nil, "accepted and ignored", Ignored},
	}
}

// referenceStrategies are the reference's strategy literal (contract.APIStrategies): always
// accepted by validation, installed or not (a missing one is reported when a document needs it).
var referenceStrategies = contract.APIStrategies

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

// Default returns the server's default for the parameter (engine.DefaultOptions, and the
// chunkers' default size), or false when it has none worth documenting (an unset string or
// list, or a chunking knob whose default depends on max_characters).
func (p Param) Default() (any, bool) {
	o := engine.DefaultOptions()
	switch p.Name {
	case "strategy":
		return o.Strategy, true
	case "output_format":
		return o.OutputFormat, true
	case "coordinates":
		return o.Coordinates, true
	case "include_page_breaks":
		return o.IncludePageBreaks, true
	case "pdf_infer_table_structure":
		return o.PDFInferTableStructure, true
	case "xml_keep_tags":
		return false, true // formats/xml's default
	case "unique_element_ids":
		return o.UniqueElementIDs, true
	case "starting_page_number":
		return o.StartingPageNumber, true
	case "include_slide_notes":
		return true, true // formats/pptx's default
	case "overlap":
		return o.Chunking.Overlap, true
	case "overlap_all":
		return o.Chunking.OverlapAll, true
	case "multipage_sections":
		return o.Chunking.MultipageSections, true
	case "include_orig_elements":
		return o.Chunking.IncludeOrigElements, true
	case "max_characters":
		return chunking.DefaultMaxCharacters, true
	}
	return nil, false
}

// declaredKinds maps a declared key's kind to the form rule its values are read with: a
// boolean takes pydantic's truth values (a lenient rule would turn "yes" into false).
var declaredKinds = map[contract.ValueKind]Kind{
	contract.Bool: StrictBool, contract.Int: Int, contract.Float: Float,
	contract.String: String, contract.List: List,
}

// Declared lists the keys registered formats and strategies declare for themselves
// (contract.DeclaredKeys) that are not API parameters, as parameters in the group of their
// registrant, sorted by key, a format's declaration winning over a strategy's. They are
// documented with the others (the OpenAPI document, quarry partition --help) and checked by
// OptionsFromForm.
func Declared() []Param {
	seen := map[string]bool{"files": true}
	for _, p := range Params() {
		seen[p.Name] = true
	}
	var out []Param
	for _, k := range contract.DeclaredKeys() {
		if seen[k.Key] {
			continue
		}
		seen[k.Key] = true
		kind, ok := declaredKinds[k.Kind]
		if !ok {
			kind = String
		}
		g := Input
		if _, isStrategy := contract.LookupStrategy(k.By); isStrategy {
			g = Strategy
		}
		out = append(out, Param{Name: k.Key, Kind: kind, Help: k.Help, Group: g})
	}
	return out
}

// All lists every parameter a request may carry: the API's (Params), then the declared keys
// (Declared).
func All() []Param { return append(Params(), Declared()...) }
