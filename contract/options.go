package contract

import (
	"slices"
	"strconv"
)

// Options are a request's partition options as keys, each with its values as strings: the
// partition API's form names (KeyStrategy, KeyLanguages, …) with canonical values ("true" or
// "false", decimal numbers, one value per list item), and, as they were sent, any keys the API
// does not define (a third-party strategy's own knobs). Keys are what crosses the plugin wire,
// so a plugin depends on the API's names, never on the host's Go field names.
//
// A key absent means the API's default. Readers should take the last value of a key (a form may
// repeat one).
type Options map[string][]string

// Has reports whether key was given.
func (o Options) Has(key string) bool {
	_, ok := o[key]
	return ok
}

// Get returns the last value of key, or "" when it is absent.
func (o Options) Get(key string) string {
	vs := o[key]
	if len(vs) == 0 {
		return ""
	}
	return vs[len(vs)-1]
}

// Values returns every value of key (a list's items), nil when it is absent.
func (o Options) Values(key string) []string { return o[key] }

// Bool returns key as a boolean, def when it is absent or not a boolean.
func (o Options) Bool(key string, def bool) bool {
	b, err := strconv.ParseBool(o.Get(key))
	if err != nil {
		return def
	}
	return b
}

// Int returns key as an integer, def when it is absent or not an integer.
func (o Options) Int(key string, def int) int {
	n, err := strconv.Atoi(o.Get(key))
	if err != nil {
		return def
	}
	return n
}

// Float returns key as a number, def when it is absent or not a number.
func (o Options) Float(key string, def float64) float64 {
	f, err := strconv.ParseFloat(o.Get(key), 64)
	if err != nil {
		return def
	}
	return f
}

// Keys lists the keys given, sorted.
func (o Options) Keys() []string {
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// Clone returns a deep copy.
func (o Options) Clone() Options {
	c := make(Options, len(o))
	for k, vs := range o {
		c[k] = slices.Clone(vs)
	}
	return c
}

// The standard keys: the partition API's form names a host sends (partition-api.md §2.2) that
// the engine or any partitioner may read. Their meaning is the API's. Chunking's keys are absent
// on purpose: chunking runs on the host after any partitioner. The API's parameters that only
// one format or strategy reads (xml_keep_tags, include_slide_notes, the pdfminer margins, the vlm
// keys) are declared by that registrant (Format.Options, Strategy.Options) and cross the wire
// only when a request gives them.
const (
	KeyStrategy                  = "strategy"
	KeyOutputFormat              = "output_format"
	KeyCoordinates               = "coordinates"
	KeyEncoding                  = "encoding"
	KeyContentType               = "content_type"
	KeyGzUncompressedContentType = "gz_uncompressed_content_type"
	KeyHiResModelName            = "hi_res_model_name"
	KeyIncludePageBreaks         = "include_page_breaks"
	KeyLanguages                 = "languages"
	KeyOCRLanguages              = "ocr_languages"
	KeyPDFInferTableStructure    = "pdf_infer_table_structure"
	KeySkipInferTableTypes       = "skip_infer_table_types"
	KeyExtractImageBlockTypes    = "extract_image_block_types"
	KeyUniqueElementIDs          = "unique_element_ids"
	KeyStartingPageNumber        = "starting_page_number"
	KeyTableOCRAgent             = "table_ocr_agent"
)

// The values of KeyOutputFormat: the response's format (the partition API's output_format),
// named here because the same strings are also file types' MIME types.
const (
	OutputJSON = "application/json"
	OutputCSV  = "text/csv"
)

// ValueKind is how a key's values read: "bool", "int", "float", "string" (one value each) or
// "list" (one value per item, possibly none).
type ValueKind string

// Value kinds.
const (
	Bool   ValueKind = "bool"
	Int    ValueKind = "int"
	Float  ValueKind = "float"
	String ValueKind = "string"
	List   ValueKind = "list"
)

// KeySpec declares one key: its name, how its values read, what it means, and the plugin
// protocol version that introduced it. A key, once declared, keeps its name, kind and meaning
// for as long as its protocol version is served; renaming or retyping one is a new protocol
// version (see plugins/README.md).
type KeySpec struct {
	Key   string
	Kind  ValueKind
	Help  string
	Since int
}

// StandardKeys declares the keys a host sends, in the API's documentation order. A host omits
// a key when the request leaves it unset and the key has no value to send (a pdfminer margin, a
// list); it sends the others always.
var StandardKeys = []KeySpec{
	{KeyStrategy, String, "strategy requested (auto, fast, hi_res, ocr_only, vlm or a plugin's)", 2},
	{KeyOutputFormat, String, "response format", 2},
	{KeyCoordinates, Bool, "keep element coordinates", 2},
	{KeyEncoding, String, "text encoding of text-based files", 2},
	{KeyContentType, String, "MIME type hint for the file", 2},
	{KeyGzUncompressedContentType, String, "MIME type of a gzip upload's content", 2},
	{KeyHiResModelName, String, "layout model for hi_res", 2},
	{KeyIncludePageBreaks, Bool, "emit PageBreak elements", 2},
	{KeyLanguages, List, `document languages (ISO 639 codes or names); one "" item disables language metadata`, 2},
	{KeyOCRLanguages, List, "deprecated: OCR languages", 2},
	{KeyPDFInferTableStructure, Bool, "deprecated: infer PDF table structure", 2},
	{KeySkipInferTableTypes, List, "file types partitioned without table structure", 2},
	{KeyExtractImageBlockTypes, List, "element types whose image crops are embedded", 2},
	{KeyUniqueElementIDs, Bool, "random UUIDs instead of content hashes", 2},
	{KeyStartingPageNumber, Int, "number of the first page (the host shifts page numbers; partitioners start at 1)", 2},
	{KeyTableOCRAgent, String, "OCR agent for table cells", 2},
}

// LookupKey returns the standard key's declaration.
func LookupKey(key string) (KeySpec, bool) {
	i := slices.IndexFunc(StandardKeys, func(s KeySpec) bool { return s.Key == key })
	if i < 0 {
		return KeySpec{}, false
	}
	return StandardKeys[i], true
}
