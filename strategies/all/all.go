// Package all compiles in every pure-Go strategy. The OCR strategies (hi_res, ocr_only) need cgo
// and run in their own plugin binary (cmd/quarry-plugin-ocr), found by the plugin host.
package all

import (
	_ "github.com/quarrydocs/quarry/strategies/fast" // fast: the PDF text layer
	_ "github.com/quarrydocs/quarry/strategies/vlm"  // vlm: vision-language models over provider APIs
)
