package wire

import (
	"encoding/json"
	"fmt"

	"github.com/quarrydocs/quarry/contract"
)

// legacyOptions is the part of protocol 1's options_json a plugin can read: engine.Options as it
// was when protocol 2 began, by its Go field names, each tagged with the key it carries. It is
// frozen: protocol 1 hosts send exactly this, and a field added to engine.Options since crosses
// as a key in protocol 2 only. The tags are the one table between the two protocols (read by
// contract.KeysOf and contract.SetKeys both ways).
type legacyOptions struct {
	Strategy                  string            `key:"strategy"`
	OutputFormat              string            `key:"output_format"`
	Coordinates               bool              `key:"coordinates"`
	Encoding                  string            `key:"encoding"`
	ContentType               string            `key:"content_type"`
	GzUncompressedContentType string            `key:"gz_uncompressed_content_type"`
	HiResModelName            string            `key:"hi_res_model_name"`
	IncludePageBreaks         bool              `key:"include_page_breaks"`
	Languages                 []string          `key:"languages"`
	OCRLanguages              []string          `key:"ocr_languages"`
	PDFInferTableStructure    bool              `key:"pdf_infer_table_structure"`
	SkipInferTableTypes       []string          `key:"skip_infer_table_types"`
	ExtractImageBlockTypes    []string          `key:"extract_image_block_types"`
	XMLKeepTags               bool              `key:"xml_keep_tags"`
	UniqueElementIDs          bool              `key:"unique_element_ids"`
	StartingPageNumber        int               `key:"starting_page_number"`
	IncludeSlideNotes         bool              `key:"include_slide_notes"`
	VLMModelProvider          string            `key:"vlm_model_provider"`
	VLMModel                  string            `key:"vlm_model"`
	TableOCRAgent             string            `key:"table_ocr_agent"`
	PDFMinerLineOverlap       *float64          `key:"pdfminer_line_overlap"`
	PDFMinerCharMargin        *float64          `key:"pdfminer_char_margin"`
	PDFMinerLineMargin        *float64          `key:"pdfminer_line_margin"`
	PDFMinerWordMargin        *float64          `key:"pdfminer_word_margin"`
	Extra                     map[string]string `key:",extra"`
}

// legacyDefaults are the values a protocol 1 host sent for a key the request left unset
// (engine.DefaultOptions of that time), so a key absent today reads as it did then.
func legacyDefaults() legacyOptions {
	return legacyOptions{Strategy: contract.StrategyAuto, OutputFormat: contract.OutputJSON, PDFInferTableStructure: true,
		StartingPageNumber: 1, IncludeSlideNotes: true}
}

// LegacyKeys reads protocol 1's options_json as the keys a protocol 2 host would have sent for
// the same request, so a plugin built today also runs under a host that speaks protocol 1 only.
func LegacyKeys(b []byte) (contract.Options, error) {
	var o legacyOptions
	if len(b) > 0 {
		if err := json.Unmarshal(b, &o); err != nil {
			return nil, fmt.Errorf("decode protocol 1 options: %w", err)
		}
	}
	return contract.KeysOf(&o), nil
}

// LegacyJSON writes keys as protocol 1's options_json, for a plugin that speaks protocol 1 only:
// the keys of the frozen struct set its fields (the rest keep that time's defaults), any other
// key goes to Extra.
func LegacyJSON(k contract.Options) ([]byte, error) {
	o := legacyDefaults()
	contract.SetKeys(&o, k)
	b, err := json.Marshal(&o)
	if err != nil {
		return nil, fmt.Errorf("encode protocol 1 options: %w", err)
	}
	return b, nil
}
