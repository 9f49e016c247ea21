package engine

import (
	"log/slog"

	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/contract"
)

// Options carries every partition parameter of the reference API (partition-api.md §2.2, §2.3).
// The zero value is not the API's default: start from DefaultOptions.
type Options struct {
	// Strategy for PDFs and images: auto, fast, hi_res, ocr_only, vlm or a plugin's name.
	Strategy string
	// OutputFormat is application/json or text/csv (used by the CLI and server when serializing).
	OutputFormat string
	// Coordinates keeps metadata.coordinates in the output.
	Coordinates bool
	// Encoding is the text charset; "" lets text formats detect it.
	Encoding string
	// ContentType is a MIME hint that takes precedence over the document's own hint.
	ContentType               string
	GzUncompressedContentType string
	HiResModelName            string
	IncludePageBreaks         bool
	// Languages are request languages (names or codes); nil means detect. []string{""}
	// disables language metadata.
	Languages              []string
	OCRLanguages           []string
	PDFInferTableStructure bool
	SkipInferTableTypes    []string
	ExtractImageBlockTypes []string
	XMLKeepTags            bool
	UniqueElementIDs       bool
	// StartingPageNumber is the number given to the first page (default 1).
	StartingPageNumber int
	IncludeSlideNotes  bool
	// Chunking is applied after partitioning when Chunking.Strategy is set.
	Chunking chunking.Options
	// Hosted-API parameters.
	VLMModelProvider string
	VLMModel         string
	TableOCRAgent    string
	// pdfminer layout overrides (nil = the strategy's default).
	PDFMinerLineOverlap *float64
	PDFMinerCharMargin  *float64
	PDFMinerLineMargin  *float64
	PDFMinerWordMargin  *float64
	// Extra holds parameters a third-party strategy understands (name → raw form value).
	Extra map[string]string

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
		IncludeSlideNotes:      true,
		Chunking: chunking.Options{
			MultipageSections:   true,
			IncludeOrigElements: true,
		},
	}
}

// Log returns the options' logger or a discarding one.
func (o *Options) Log() *slog.Logger {
	if o.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Logger
}
