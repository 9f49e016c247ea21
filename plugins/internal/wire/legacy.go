package wire

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/quarrydocs/quarry/contract"
)

// legacyOptions is the part of protocol 1's options_json a plugin can read: engine.Options as it
// was when protocol 2 began, by its Go field names. It is frozen: protocol 1 hosts send exactly
// this, and a field added to engine.Options since crosses as a key in protocol 2 only.
type legacyOptions struct {
	Strategy                  string
	OutputFormat              string
	Coordinates               bool
	Encoding                  string
	ContentType               string
	GzUncompressedContentType string
	HiResModelName            string
	IncludePageBreaks         bool
	Languages                 []string
	OCRLanguages              []string
	PDFInferTableStructure    bool
	SkipInferTableTypes       []string
	ExtractImageBlockTypes    []string
	XMLKeepTags               bool
	UniqueElementIDs          bool
	StartingPageNumber        int
	IncludeSlideNotes         bool
	VLMModelProvider          string
	VLMModel                  string
	TableOCRAgent             string
	PDFMinerLineOverlap       *float64
	PDFMinerCharMargin        *float64
	PDFMinerLineMargin        *float64
	PDFMinerWordMargin        *float64
	Extra                     map[string]string
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
	k := contract.Options{}
	for name, v := range o.Extra {
		k[name] = []string{v}
	}
	str := func(key, v string) { k[key] = []string{v} }
	boolean := func(key string, v bool) { str(key, strconv.FormatBool(v)) }
	float := func(key string, v *float64) {
		if v != nil {
			str(key, strconv.FormatFloat(*v, 'g', -1, 64))
		}
	}
	list := func(key string, v []string) {
		if v != nil {
			k[key] = slices.Clone(v)
		}
	}
	str(contract.KeyStrategy, o.Strategy)
	str(contract.KeyOutputFormat, o.OutputFormat)
	boolean(contract.KeyCoordinates, o.Coordinates)
	str(contract.KeyEncoding, o.Encoding)
	str(contract.KeyContentType, o.ContentType)
	str(contract.KeyGzUncompressedContentType, o.GzUncompressedContentType)
	str(contract.KeyHiResModelName, o.HiResModelName)
	boolean(contract.KeyIncludePageBreaks, o.IncludePageBreaks)
	list(contract.KeyLanguages, o.Languages)
	list(contract.KeyOCRLanguages, o.OCRLanguages)
	boolean(contract.KeyPDFInferTableStructure, o.PDFInferTableStructure)
	list(contract.KeySkipInferTableTypes, o.SkipInferTableTypes)
	list(contract.KeyExtractImageBlockTypes, o.ExtractImageBlockTypes)
	boolean(contract.KeyXMLKeepTags, o.XMLKeepTags)
	boolean(contract.KeyUniqueElementIDs, o.UniqueElementIDs)
	str(contract.KeyStartingPageNumber, strconv.Itoa(o.StartingPageNumber))
	boolean(contract.KeyIncludeSlideNotes, o.IncludeSlideNotes)
	str(contract.KeyVLMModelProvider, o.VLMModelProvider)
	str(contract.KeyVLMModel, o.VLMModel)
	str(contract.KeyTableOCRAgent, o.TableOCRAgent)
	float(contract.KeyPDFMinerLineOverlap, o.PDFMinerLineOverlap)
	float(contract.KeyPDFMinerCharMargin, o.PDFMinerCharMargin)
	float(contract.KeyPDFMinerLineMargin, o.PDFMinerLineMargin)
	float(contract.KeyPDFMinerWordMargin, o.PDFMinerWordMargin)
	return k, nil
}
