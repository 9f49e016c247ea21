// Package paged declares the paged file types, PDF and images, which no format partitioner
// reads: the request's strategy does (fast, hi_res, ocr_only, vlm or a plugin's). Registering
// them here lets detection recognise them whichever strategies are installed, so a PDF without
// a strategy still gets the reference's "strategy not available" answer rather than "unknown
// type". The strategies that read them import this package for the MIME constants.
package paged

import "github.com/quarrydocs/quarry/contract"

// MIMEPDF is the PDF type.
const MIMEPDF = "application/pdf"

func init() {
	// A plain-text file named .pdf is a PDF (TrustExtension): the reference's clients send
	// application/pdf for that name, so it gets the invalid-PDF answer.
	contract.RegisterFormat(contract.Format{Name: "pdf", MIME: MIMEPDF, Extensions: []string{".pdf"}, Paged: true, TrustExtension: true})
	for _, t := range []contract.Format{
		{Name: "jpg", MIME: "image/jpeg", Extensions: []string{".jpeg", ".jpg"}},
		{Name: "png", MIME: "image/png", Extensions: []string{".png"}},
		{Name: "tiff", MIME: "image/tiff", Extensions: []string{".tiff", ".tif"}},
		{Name: "bmp", MIME: "image/bmp", Aliases: []string{"image/x-bmp", "image/x-ms-bmp"}, Extensions: []string{".bmp"}},
		{Name: "heic", MIME: "image/heic", Aliases: []string{"image/x-heic"}, Extensions: []string{".heic"}},
		{Name: "gif", MIME: "image/gif", Extensions: []string{".gif"}},
		{Name: "webp", MIME: "image/webp", Extensions: []string{".webp"}},
	} {
		t.Paged, t.Image = true, true
		contract.RegisterFormat(t)
	}
}
