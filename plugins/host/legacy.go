package host

import (
	"encoding/json"
	"fmt"

	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/engine"
)

// legacyOptions encodes options as plugin protocol 1 carried them: engine.Options as JSON with
// its Go field names, without what stays on the host (the logger, the progress hook and
// chunking). Plugins built before protocol 2 decode it into their copy of engine.Options, so a
// field renamed since then reaches them as its default (TestCompatV1 pins the fields a plugin
// of that time reads).
func legacyOptions(opts *engine.Options) ([]byte, error) {
	o := *opts
	o.Logger = nil
	o.Progress = nil
	o.Chunking = chunking.Options{}
	b, err := json.Marshal(&o)
	if err != nil {
		return nil, fmt.Errorf("encode options: %w", err)
	}
	return b, nil
}
