// Package all compiles in the strategies the quarry binary carries itself. The OCR strategies
// (hi_res, ocr_only) need cgo and vlm links the model providers' SDKs, so they run in plugin
// binaries of their own (cmd/quarry-plugin-ocr, cmd/quarry-plugin-vlm) that the plugin host
// finds; a library that wants vlm in process imports strategies/vlm.
package all

import (
	_ "github.com/quarrydocs/quarry/strategies/fast" // fast: the PDF text layer
)
