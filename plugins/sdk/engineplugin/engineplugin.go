// Package engineplugin serves engine partitioners, the built-in strategies that read
// *engine.Options, through the plugin SDK: the keys a plugin receives become engine.Options
// (engine.OptionsFromKeys) and the engine's progress reports become the SDK's. It links the
// engine, so it is for Quarry's own plugin binaries (ocr, vlm, quarry plugin serve); a third-party
// plugin uses package sdk alone and reads its options as keys.
package engineplugin

import (
	"context"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/sdk"
)

// Partition adapts an engine partition function to the SDK's.
func Partition(f engine.PartitionFunc) func(ctx context.Context, doc *sdk.Document, keys sdk.Options, emit sdk.Emit) error {
	return func(ctx context.Context, doc *contract.Document, keys contract.Options, emit contract.Emit) error {
		opts := engine.OptionsFromKeys(keys)
		// Strategies that report through the options (the same call in process and here) reach
		// the host as the SDK's progress events do.
		opts.Progress = func(p engine.Progress) {
			if p.Total > 0 {
				contract.ReportProgress(ctx, p.Page, p.Total, p.Stage)
			}
		}
		return f(ctx, doc, &opts, emit)
	}
}

// Strategy is an sdk.Strategy serving an engine partition function.
func Strategy(name string, mimeTypes []string, f engine.PartitionFunc) sdk.Strategy {
	return sdk.Strategy{Name: name, MIMETypes: mimeTypes, Partition: Partition(f)}
}
