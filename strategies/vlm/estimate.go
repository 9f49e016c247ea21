package vlm

import (
	"bytes"
	"image"
	"math"

	"github.com/quarrydocs/quarry/strategies/vlm/provider"
)

// fitBox returns w×h scaled down to fit a side×side box.
func fitBox(w, h float64, side int) (int, int) {
	if w <= 0 || h <= 0 {
		return side, side
	}
	if m := math.Max(w, h); m > float64(side) {
		w, h = w*float64(side)/m, h*float64(side)/m
	}
	return max(1, int(w)), max(1, int(h))
}

// imageSize is an uploaded image's size after fitting, from its header only.
func imageSize(data []byte, side int) (int, int) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return side, side
	}
	return fitBox(float64(cfg.Width), float64(cfg.Height), side)
}

// imageTokens estimates what an image of w×h pixels costs in input tokens, by each provider's
// published accounting.
func imageTokens(prov string, w, h int) int {
	switch prov {
	case provider.OpenAI, provider.AzureOpenAI:
		// High detail: fit 2048², then shortest side 768, then 170 per 512-px tile plus 85.
		fw, fh := fitBox(float64(w), float64(h), 2048)
		if s := min(fw, fh); s > 768 {
			fw, fh = fw*768/s, fh*768/s
		}
		tiles := ((fw + 511) / 512) * ((fh + 511) / 512)
		return 85 + 170*tiles
	case provider.Google, provider.VertexAI:
		// 258 tokens per image up to 384 px, else per 768-px tile.
		if w <= 384 && h <= 384 {
			return 258
		}
		return 258 * ((w + 767) / 768) * ((h + 767) / 768)
	}
	// Anthropic's rule (pixels / 750), a fair stand-in for the other Bedrock models.
	return (w*h + 749) / 750
}
