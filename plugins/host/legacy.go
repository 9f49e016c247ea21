package host

import (
	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/internal/wire"
)

// legacyOptions encodes options as plugin protocol 1 carried them: engine.Options as it was when
// protocol 2 began, as JSON with its Go field names, written from the request's keys through the
// frozen protocol 1 struct (wire.LegacyJSON). Plugins built before protocol 2 decode it into
// their copy of engine.Options, so fields renamed or moved out of engine.Options since (the
// pdfminer margins, xml_keep_tags…) still reach them (TestCompatV1 pins the fields a plugin of
// that time reads).
func legacyOptions(opts *engine.Options) ([]byte, error) { return wire.LegacyJSON(opts.Keys()) }
