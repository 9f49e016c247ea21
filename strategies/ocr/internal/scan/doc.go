// Package scan is the pure-Go half of the OCR strategies: what is done with a page image and
// the words Tesseract read from it, without Tesseract. It holds the words' layout into regions
// (paragraphs, titles, list items, images), tables (aligned words, and ruled tables found from
// the page's ruling), the XY-cut reading order, margin marks, hOCR parsing, rule removal,
// orientation helpers, zooming, and the encodings a page is handed to Tesseract in.
//
// It has no cgo, so it builds and its tests run with CGO_ENABLED=0 (make test does so); the
// Tesseract and leptonica binding stays in package ocr, which calls it.
package scan
