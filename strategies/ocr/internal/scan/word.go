package scan

import "image"

// Word is one word Tesseract recognised, with its place in Tesseract's block / paragraph /
// line structure (reading order) and its box in page pixels.
type Word struct {
	Text             string
	Conf             float64
	Box              image.Rectangle
	Block, Par, Line int
	Order            int // index in Tesseract's output
}
