package chunking

import (
	"fmt"
	"strings"
)

// Strategy names accepted by Chunk.
const (
	Basic        = "basic"
	ByTitle      = "by_title"
	ByPage       = "by_page"
	BySimilarity = "by_similarity"
)

// Defaults of the reference (partition-api.md §10.1, §10.9).
const (
	DefaultMaxCharacters       = 500
	DefaultSimilarityThreshold = 0.5
)

// Options are the chunking parameters of the partition API. Pointer fields distinguish "not
// given" (the strategy's default applies) from an explicit zero.
type Options struct {
	// Strategy is "basic", "by_title", "by_page" or "by_similarity" (case-insensitive); ""
	// means no chunking.
	Strategy               string
	MaxCharacters          *int
	NewAfterNChars         *int
	CombineTextUnderNChars *int
	Overlap                int
	OverlapAll             bool
	MultipageSections      bool // default true (set by the caller's defaults)
	IncludeOrigElements    bool // default true
	// SimilarityThreshold is by_similarity's minimum cosine similarity for two neighbours to
	// stay together; nil means 0.5.
	SimilarityThreshold                *float64
	DoNotBreakSimilarityOnFooterHeader bool

	// RepeatTableHeaders repeats a split table's header rows at the top of every continuation
	// TableChunk; nil means true (the reference's repeat_table_headers default).
	RepeatTableHeaders *bool
	// SkipTableChunking passes oversized tables through as one Table instead of splitting them.
	SkipTableChunking bool
	// Embedder computes embeddings for by_similarity; nil means the built-in offline
	// HashEmbedder (see its documentation for what it can and cannot do).
	Embedder Embedder
	// KeepOrigElementIDs keeps the input element IDs inside orig_elements. By default every
	// source element gets a fresh random UUIDv4 there (and parent_id is remapped to match), as
	// the reference's partition endpoint does because it chunks before it hashes IDs.
	KeepOrigElementIDs bool
	// MaxChunks caps the chunks one call may produce (0 = no cap); past it Chunk fails with
	// *TooManyChunksError. Servers set it: max_characters=1 turns every character of a text
	// into a chunk, and each chunk of a split element carries the whole element in
	// orig_elements, so a 1 MB paragraph would become a million chunks.
	MaxChunks int
}

// TooManyChunksError reports that chunking would produce more than Options.MaxChunks chunks.
type TooManyChunksError struct{ Max int }

func (e *TooManyChunksError) Error() string {
	return fmt.Sprintf("chunking would produce more than %d chunks, the limit of this server; use a larger max_characters", e.Max)
}

// UnknownStrategyError reports a chunking strategy name that is not implemented. The reference
// server answers it with status 400.
type UnknownStrategyError struct{ Strategy string }

func (e *UnknownStrategyError) Error() string {
	return fmt.Sprintf("Invalid chunking strategy: %s. Must be one of ['basic', 'by_title', 'by_page', 'by_similarity']", e.Strategy)
}

// OptionError reports an invalid chunking option value. Its text is the reference library's
// ValueError message, which the reference server returns with status 500.
type OptionError struct {
	Option string
	Msg    string
}

func (e *OptionError) Error() string { return e.Msg }

// resolved holds the effective option values after defaults are applied.
type resolved struct {
	strategy            string
	hard, soft          int
	combine             int
	overlap             int
	interOverlap        int
	multipage           bool
	includeOrig         bool
	threshold           float64
	footerHeaderSimilar bool
	repeatHeaders       bool
	skipTableChunking   bool
	keepOrigIDs         bool
	maxChunks           int
	embedder            Embedder
}

// Validate checks opts the way the reference does (§10.1), in the reference's order, and
// returns its error messages. Options with an empty Strategy are always valid.
func Validate(opts Options) error {
	_, err := resolve(opts)
	return err
}

func resolve(opts Options) (resolved, error) {
	r := resolved{strategy: strings.ToLower(strings.TrimSpace(opts.Strategy))}
	switch r.strategy {
	case "":
		return r, nil
	case Basic, ByTitle, ByPage, BySimilarity:
	default:
		return r, &UnknownStrategyError{Strategy: opts.Strategy}
	}

	r.hard = DefaultMaxCharacters
	if opts.MaxCharacters != nil {
		r.hard = *opts.MaxCharacters
	}
	if r.hard <= 0 {
		return r, &OptionError{"max_characters", fmt.Sprintf("'max_characters' argument must be > 0, got %d", r.hard)}
	}

	// combine_text_under_n_chars only means something for by_title, where it defaults to the
	// hard max; the reference validates its sign for every strategy.
	if opts.CombineTextUnderNChars != nil {
		r.combine = *opts.CombineTextUnderNChars
	} else if r.strategy == ByTitle {
		r.combine = r.hard
	}
	if r.combine < 0 {
		return r, &OptionError{"combine_text_under_n_chars", fmt.Sprintf("'combine_text_under_n_chars' argument must be >= 0, got %d", r.combine)}
	}

	r.soft = r.hard
	if opts.NewAfterNChars != nil && *opts.NewAfterNChars < r.hard {
		r.soft = *opts.NewAfterNChars
	}
	if r.soft < 0 {
		return r, &OptionError{"new_after_n_chars", fmt.Sprintf("'new_after_n_chars' argument must be >= 0, got %d", r.soft)}
	}

	r.overlap = opts.Overlap
	// The reference silently treats a negative overlap as a (buggy) slice offset; reject it.
	if r.overlap < 0 {
		return r, &OptionError{"overlap", fmt.Sprintf("'overlap' argument must be >= 0, got %d", r.overlap)}
	}
	if r.overlap >= r.hard {
		return r, &OptionError{"overlap", fmt.Sprintf("'overlap' argument must be less than `max_characters`, got %d >= %d", r.overlap, r.hard)}
	}
	if opts.OverlapAll {
		r.interOverlap = r.overlap
	}

	if r.strategy == ByTitle && r.combine > r.hard {
		return r, &OptionError{"combine_text_under_n_chars", fmt.Sprintf("'combine_text_under_n_chars' argument must not exceed `max_characters` value, got %d > %d", r.combine, r.hard)}
	}

	r.threshold = DefaultSimilarityThreshold
	if opts.SimilarityThreshold != nil {
		r.threshold = *opts.SimilarityThreshold
	}
	if r.strategy == BySimilarity && !(r.threshold >= 0.01 && r.threshold <= 0.99) {
		return r, &OptionError{"similarity_threshold", fmt.Sprintf("'similarity_threshold' argument must be between 0.01 and 0.99, got %v", r.threshold)}
	}

	r.multipage = opts.MultipageSections
	r.includeOrig = opts.IncludeOrigElements
	r.footerHeaderSimilar = opts.DoNotBreakSimilarityOnFooterHeader
	r.repeatHeaders = opts.RepeatTableHeaders == nil || *opts.RepeatTableHeaders
	r.skipTableChunking = opts.SkipTableChunking
	r.keepOrigIDs = opts.KeepOrigElementIDs
	r.maxChunks = max(opts.MaxChunks, 0)
	r.embedder = opts.Embedder
	if r.embedder == nil {
		r.embedder = HashEmbedder{}
	}
	return r, nil
}
