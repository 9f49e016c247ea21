package ocr

import (
	"fmt"
	"image"
	"strings"

	"github.com/otiai10/gosseract/v2"
)

// Word is one word Tesseract recognised, with its place in Tesseract's block / paragraph /
// line structure (reading order) and its box in page pixels.
type Word struct {
	Text             string
	Conf             float64
	Box              image.Rectangle
	Block, Par, Line int
	Order            int // index in Tesseract's output
}

// tesseract wraps one Tesseract client. A client is never shared: each worker owns one.
type tesseract struct {
	client *gosseract.Client
	langs  string
}

func newTesseract() *tesseract {
	return &tesseract{client: gosseract.NewClient()}
}

func (t *tesseract) close() { t.client.Close() }

// recognize runs recognition once on a PGM page image. Every gosseract output call re-runs
// recognition, so only the verbose word boxes are asked for; lines and paragraphs are derived
// from their numbers.
func (t *tesseract) recognize(pgm []byte, langs string) ([]Word, error) {
	if langs != t.langs {
		if err := t.client.SetLanguage(strings.Split(langs, "+")...); err != nil {
			return nil, fmt.Errorf("tesseract: languages %s: %w", langs, err)
		}
		t.langs = langs
	}
	if err := t.client.SetImageFromBytes(pgm); err != nil {
		return nil, fmt.Errorf("tesseract: set image: %w", err)
	}
	boxes, err := t.client.GetBoundingBoxesVerbose()
	if err != nil {
		return nil, fmt.Errorf("tesseract: %w", err)
	}
	words := make([]Word, 0, len(boxes))
	for _, b := range boxes {
		txt := strings.TrimSpace(b.Word)
		if txt == "" {
			continue
		}
		words = append(words, Word{Text: txt, Conf: b.Confidence, Box: b.Box,
			Block: b.BlockNum, Par: b.ParNum, Line: b.LineNum, Order: len(words)})
	}
	return words, nil
}
