package engine

import "github.com/quarrydocs/quarry/contract"

// Set sets the option the partition API calls name (its form name, e.g. "include_page_breaks")
// to v: a bool, int, float64, string or []string as that option holds. It reports whether name
// and v's type named a field of Options (a tagged field, or a chunking knob); anything else
// leaves o as it was, and the caller keeps the value in Extra (a format's or strategy's own key,
// such as xml_keep_tags). The API schema (api/partitionapi) sets options through it.
func (o *Options) Set(name string, v any) bool {
	if contract.SetKey(o, name, v) {
		return true
	}
	c := &o.Chunking
	switch x := v.(type) {
	case bool:
		switch name {
		case "overlap_all":
			c.OverlapAll = x
		case "multipage_sections":
			c.MultipageSections = x
		case "include_orig_elements":
			c.IncludeOrigElements = x
		case "do_not_break_similarity_on_footer_header":
			c.DoNotBreakSimilarityOnFooterHeader = x
		default:
			return false
		}
	case int:
		switch name {
		case "max_characters":
			c.MaxCharacters = &x
		case "new_after_n_chars":
			c.NewAfterNChars = &x
		case "combine_under_n_chars":
			c.CombineTextUnderNChars = &x
		case "overlap":
			c.Overlap = x
		default:
			return false
		}
	case float64:
		if name != "similarity_threshold" {
			return false
		}
		c.SimilarityThreshold = &x
	case string:
		if name != "chunking_strategy" {
			return false
		}
		c.Strategy = x
	default:
		return false
	}
	return true
}
