package chunking

import (
	"context"
	"fmt"
	"math"

	"github.com/quarrydocs/quarry/element"
)

// similarityBreaks embeds every element that has text and returns the by_similarity boundary:
// an element starts a new pre-chunk when the cosine similarity between it and the previous
// text element is below the threshold. Elements without text never break and are skipped
// over. With do_not_break_similarity_on_footer_header, headers, footers and page numbers never
// break either and the element after them is compared with the text before them, so a section
// can run across a page boundary.
func (c *chunker) similarityBreaks(ctx context.Context) (predicate, error) {
	var texts []string
	var owner []int
	for i, t := range c.norm {
		if t != "" {
			texts = append(texts, t)
			owner = append(owner, i)
		}
	}
	vecs := make([][]float32, len(c.in))
	if len(texts) > 0 {
		got, err := c.opts.embedder.Embed(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("chunking: by_similarity: %w", err)
		}
		if len(got) != len(texts) {
			return nil, fmt.Errorf("chunking: by_similarity: embedder returned %d vectors for %d texts", len(got), len(texts))
		}
		for k, v := range got {
			vecs[owner[k]] = v
		}
	}
	var prev []float32
	return func(i int) bool {
		v := vecs[i]
		if v == nil {
			return false
		}
		if c.opts.footerHeaderSimilar {
			switch c.in[i].Type {
			case element.Header, element.Footer, element.PageNumber:
				return false
			}
		}
		if prev == nil {
			prev = v
			return false
		}
		sim := cosine(prev, v)
		prev = v
		return sim < c.opts.threshold
	}, nil
}

// cosine is the cosine similarity of a and b; 0 when either is zero or their sizes differ.
func cosine(a, b []float32) float64 {
	if len(a) != len(b) {
		return 0
	}
	var dot, na, nb float64
	for k := range a {
		x, y := float64(a[k]), float64(b[k])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
