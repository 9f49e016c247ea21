//go:build cgo

// Command quarry-plugin-ocr serves the OCR strategies hi_res and ocr_only as a Quarry plugin.
// It links Tesseract and leptonica (cgo), so it is its own binary; install it beside quarry or
// in the plugin directory with its checksum:
//
//	go build -o "$(dirname "$(command -v quarry)")"/quarry-plugin-ocr ./cmd/quarry-plugin-ocr
//	quarry plugin checksum "$(dirname "$(command -v quarry)")"/quarry-plugin-ocr
//
// Runtime needs: tesseract-ocr with the language packs wanted (tesseract-ocr-eng, …),
// poppler-utils (pdftoppm) and libheif-examples (heif-convert, for HEIC).
package main

import (
	"os"
	"syscall"

	"github.com/quarrydocs/quarry/plugins/sdk"
	"github.com/quarrydocs/quarry/strategies/ocr"
)

func main() {
	// libgomp reads OMP_THREAD_LIMIT when the library loads, before any Go code runs, so a
	// process started without it re-executes itself with it (the host normally sets it).
	if os.Getenv("OMP_THREAD_LIMIT") == "" {
		if exe, err := os.Executable(); err == nil {
			_ = syscall.Exec(exe, os.Args, append(os.Environ(), "OMP_THREAD_LIMIT=1"))
		}
	}
	o := ocr.New(ocr.ConfigFromEnv())
	// The process is started for a request (the host caches what plugins serve), so the
	// default language models load now, while the host connects and sends the document.
	o.Warm(ocr.TesseractLanguages(nil, nil))
	sdk.ServePlugin(sdk.Plugin{
		Name: "ocr",
		Strategies: []sdk.Strategy{
			{Name: "hi_res", MIMETypes: ocr.MIMETypes, Partition: o.HiRes},
			{Name: "ocr_only", MIMETypes: ocr.MIMETypes, Partition: o.OCROnly},
		},
		Options: options(),
	})
}

// options lists the keys the OCR strategies declare, as the SDK shows them.
func options() []sdk.Option {
	var out []sdk.Option
	for _, k := range ocr.Options {
		out = append(out, sdk.Option{Key: k.Key, Help: k.Help, Kind: k.Kind})
	}
	return out
}
