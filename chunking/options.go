// Package chunking groups partitioned elements into retrieval-sized chunks (reference
// partition-api.md §10): basic, by_title, by_page and by_similarity. Every strategy is a pure
// function of the element list and Options.
package chunking

// Options are the chunking parameters of the partition API. Pointer fields distinguish "not
// given" (the strategy's default applies) from an explicit zero.
type Options struct {
	// Strategy is "basic", "by_title", "by_page" or "by_similarity"; "" means no chunking.
	Strategy                           string
	MaxCharacters                      *int
	NewAfterNChars                     *int
	CombineTextUnderNChars             *int
	Overlap                            int
	OverlapAll                         bool
	MultipageSections                  bool // default true (set by the caller's defaults)
	IncludeOrigElements                bool // default true
	SimilarityThreshold                *float64
	DoNotBreakSimilarityOnFooterHeader bool
}
