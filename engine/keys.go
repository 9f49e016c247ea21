package engine

import (
	"slices"
	"strconv"

	"github.com/quarrydocs/quarry/contract"
)

// Keys returns the options a partitioner reads as contract keys (the API's form names with
// canonical values), as they cross the plugin wire: scalars always, pdfminer margins and lists
// when set, Extra's keys as they are. What stays on the host is left out: chunking (it runs
// after any partitioner), the logger, the progress hook, InProcess and MaxElements.
// OptionsFromKeys is the inverse.
func (o *Options) Keys() contract.Options {
	k := contract.Options{}
	// Extra first, so a standard key can never be shadowed by a raw one of the same name.
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
	return k
}

// OptionsFromKeys builds Options from contract keys on top of DefaultOptions: the standard keys
// set their fields (a value that does not parse leaves the default), any other key goes to Extra
// with its last value. Built-in strategies served as plugins read their options through it.
func OptionsFromKeys(k contract.Options) Options {
	o := DefaultOptions()
	for name, vs := range k {
		spec, ok := contract.LookupKey(name)
		if !ok {
			if len(vs) > 0 {
				if o.Extra == nil {
					o.Extra = map[string]string{}
				}
				o.Extra[name] = vs[len(vs)-1]
			}
			continue
		}
		if spec.Kind == contract.List {
			o.Set(name, slices.Clone(vs))
			continue
		}
		if len(vs) == 0 {
			continue
		}
		v := vs[len(vs)-1]
		switch spec.Kind {
		case contract.Bool:
			if b, err := strconv.ParseBool(v); err == nil {
				o.Set(name, b)
			}
		case contract.Int:
			if n, err := strconv.Atoi(v); err == nil {
				o.Set(name, n)
			}
		case contract.Float:
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				o.Set(name, f)
			}
		case contract.String:
			o.Set(name, v)
		}
	}
	return o
}
