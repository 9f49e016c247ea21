package engine

// Set sets the option the partition API calls name (its form name, e.g. "include_page_breaks")
// to v: a bool, int, float64, string or []string as that option holds. It reports whether name
// and v's type named an option; anything else leaves o as it was. The API schema
// (api/partitionapi) and the plugin wire (OptionsFromKeys) both set options through it, so the
// mapping from names to fields is written once.
func (o *Options) Set(name string, v any) bool {
	switch x := v.(type) {
	case bool:
		return setBool(o, name, x)
	case int:
		return setInt(o, name, x)
	case float64:
		return setFloat(o, name, x)
	case string:
		return setString(o, name, x)
	case []string:
		return setList(o, name, x)
	}
	return false
}

func setBool(o *Options, name string, b bool) bool {
	switch name {
	case "coordinates":
		o.Coordinates = b
		return true
	case "include_page_breaks":
		o.IncludePageBreaks = b
		return true
	case "pdf_infer_table_structure":
		o.PDFInferTableStructure = b
		return true
	case "xml_keep_tags":
		o.XMLKeepTags = b
		return true
	case "unique_element_ids":
		o.UniqueElementIDs = b
		return true
	case "include_slide_notes":
		o.IncludeSlideNotes = b
		return true
	case "overlap_all":
		o.Chunking.OverlapAll = b
		return true
	case "multipage_sections":
		o.Chunking.MultipageSections = b
		return true
	case "include_orig_elements":
		o.Chunking.IncludeOrigElements = b
		return true
	case "do_not_break_similarity_on_footer_header":
		o.Chunking.DoNotBreakSimilarityOnFooterHeader = b
		return true
	}
	return false
}

func setInt(o *Options, name string, n int) bool {
	switch name {
	case "starting_page_number":
		o.StartingPageNumber = n
		return true
	case "max_characters":
		o.Chunking.MaxCharacters = &n
		return true
	case "new_after_n_chars":
		o.Chunking.NewAfterNChars = &n
		return true
	case "combine_under_n_chars":
		o.Chunking.CombineTextUnderNChars = &n
		return true
	case "overlap":
		o.Chunking.Overlap = n
		return true
	}
	return false
}

func setFloat(o *Options, name string, f float64) bool {
	switch name {
	case "similarity_threshold":
		o.Chunking.SimilarityThreshold = &f
		return true
	case "pdfminer_line_overlap":
		o.PDFMinerLineOverlap = &f
		return true
	case "pdfminer_char_margin":
		o.PDFMinerCharMargin = &f
		return true
	case "pdfminer_line_margin":
		o.PDFMinerLineMargin = &f
		return true
	case "pdfminer_word_margin":
		o.PDFMinerWordMargin = &f
		return true
	}
	return false
}

func setString(o *Options, name, v string) bool {
	switch name {
	case "strategy":
		o.Strategy = v
		return true
	case "output_format":
		o.OutputFormat = v
		return true
	case "encoding":
		o.Encoding = v
		return true
	case "content_type":
		o.ContentType = v
		return true
	case "gz_uncompressed_content_type":
		o.GzUncompressedContentType = v
		return true
	case "hi_res_model_name":
		o.HiResModelName = v
		return true
	case "chunking_strategy":
		o.Chunking.Strategy = v
		return true
	case "vlm_model_provider":
		o.VLMModelProvider = v
		return true
	case "vlm_model":
		o.VLMModel = v
		return true
	case "table_ocr_agent":
		o.TableOCRAgent = v
		return true
	}
	return false
}

func setList(o *Options, name string, v []string) bool {
	switch name {
	case "languages":
		o.Languages = v
		return true
	case "ocr_languages":
		o.OCRLanguages = v
		return true
	case "skip_infer_table_types":
		o.SkipInferTableTypes = v
		return true
	case "extract_image_block_types":
		o.ExtractImageBlockTypes = v
		return true
	}
	return false
}
