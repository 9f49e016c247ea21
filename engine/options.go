package engine

import (
	"log/slog"

	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/contract"
)

// Options carries the partition parameters of the reference API (partition-api.md §2.2, §2.3)
// that the engine itself or every partitioner may read, as typed fields, plus Extra: the
// parameters a format or strategy declared for itself (contract.Format.Options,
// contract.Strategy.Options: xml_keep_tags, include_slide_notes, the pdfminer margins, the vlm
// keys) and any a third-party strategy understands, by key. Each typed field's key is its tag;
// Keys and OptionsFromKeys convert at the partitioner boundary (contract.KeysOf). The zero value
// is not the API's default: start from DefaultOptions.
type Options struct {
	// Strategy for PDFs and images: auto, fast, hi_res, ocr_only, vlm or a plugin's name.
	Strategy string `key:"strategy"`
	// OutputFormat is application/json or text/csv (used by the CLI and server when serializing).
	OutputFormat string `key:"output_format"`
	// Coordinates keeps metadata.coordinates in the output.
	Coordinates bool `key:"coordinates"`
	// Encoding is the text charset; "" lets text formats detect it.
	Encoding string `key:"encoding"`
	// ContentType is a MIME hint that takes precedence over the document's own hint.
	ContentType               string `key:"content_type"`
	GzUncompressedContentType string `key:"gz_uncompressed_content_type"`
	HiResModelName            string `key:"hi_res_model_name"`
	IncludePageBreaks         bool   `key:"include_page_breaks"`
	// Languages are request languages (names or codes); nil means detect. []string{""}
	// disables language metadata.
	Languages              []string `key:"languages"`
	OCRLanguages           []string `key:"ocr_languages"`
	PDFInferTableStructure bool     `key:"pdf_infer_table_structure"`
	SkipInferTableTypes    []string `key:"skip_infer_table_types"`
	ExtractImageBlockTypes []string `key:"extract_image_block_types"`
	UniqueElementIDs       bool     `key:"unique_element_ids"`
	// StartingPageNumber is the number given to the first page (default 1).
	StartingPageNumber int `key:"starting_page_number"`
	// Chunking is applied after partitioning when Chunking.Strategy is set.
	Chunking chunking.Options
	// TableOCRAgent is a hosted-API parameter.
	TableOCRAgent string `key:"table_ocr_agent"`
	// Extra holds the parameters without a field above, name → values, as they cross the
	// plugin wire: those a format or strategy declared for itself (a scalar with its one
	// canonical value, a contract.List with its items, possibly none) and a third-party
	// strategy's (every value sent). Read a scalar with Extra.Get (the last value), a list
	// with Extra.Values; write with SetExtra.
	Extra contract.Options `key:",extra"`

	// Logger receives progress and diagnostics; nil discards them.
	Logger *slog.Logger
	// Progress, when set, hears which strategy was chosen and why, and pages done (see
	// Progress). It is called from the partitioning goroutine and must not block for long.
	Progress func(Progress) `json:"-"`
	// InProcess runs pure-Go strategies inside this process instead of a plugin process.
	InProcess bool
	// MaxElements caps the elements one document may produce, counted as they stream out of
	// the partitioner (0 = no cap). Beyond it partitioning stops with a KindUnprocessable
	// error. Servers set it: a 240 KB gzip of short lines is 5.6 million elements, each held
	// in memory until the answer is written.
	MaxElements int
}

// DefaultOptions returns the defaults of the reference's open-source server.
func DefaultOptions() Options {
	return Options{
		Strategy:               contract.StrategyAuto,
		OutputFormat:           contract.OutputJSON,
		PDFInferTableStructure: true,
		StartingPageNumber:     1,
		Chunking: chunking.Options{
			MultipageSections:   true,
			IncludeOrigElements: true,
		},
	}
}

// SetExtra sets a parameter without a field of its own (see Extra) to values, replacing any it
// had; no values is an empty list, not an absent key.
func (o *Options) SetExtra(name string, values ...string) {
	if o.Extra == nil {
		o.Extra = contract.Options{}
	}
	o.Extra[name] = append([]string{}, values...)
}

// Log returns the options' logger or a discarding one.
func (o *Options) Log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}
