// Command quarry-plugin-vlm serves the vlm strategy (vision-language models over the Anthropic,
// OpenAI, Bedrock, Vertex AI and compatible provider APIs) as a Quarry plugin. The providers'
// SDKs are two thirds of what quarry would otherwise link, and every quarry process would map
// and initialise them at start-up, so the strategy lives in its own binary; install it beside
// quarry or in the plugin directory with its checksum:
//
//	CGO_ENABLED=0 go build -o "$(dirname "$(command -v quarry)")"/quarry-plugin-vlm ./cmd/quarry-plugin-vlm
//	quarry plugin checksum "$(dirname "$(command -v quarry)")"/quarry-plugin-vlm
//
// Provider credentials and settings come from the environment (strategies/vlm).
package main

import (
	"github.com/quarrydocs/quarry/plugins/sdk"
	"github.com/quarrydocs/quarry/strategies/vlm"
)

func main() {
	// The strategy is written against contract, the SDK's own types: it is served as it is.
	var opts []sdk.Option
	for _, k := range vlm.Options {
		opts = append(opts, sdk.Option{Key: k.Key, Help: k.Help, Kind: k.Kind})
	}
	sdk.ServePlugin(sdk.Plugin{
		Name:       vlm.Name,
		Strategies: []sdk.Strategy{{Name: vlm.Name, Partition: vlm.New(vlm.Config{}).Partition}},
		Options:    opts,
	})
}
