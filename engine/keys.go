package engine

import (
	"github.com/quarrydocs/quarry/contract"
)

// Keys returns the options a partitioner reads as contract keys (the API's form names with
// canonical values), as they cross the plugin wire: the tagged fields (scalars always, lists
// when set), then Extra's keys as they are, never shadowing a tagged one. What stays on the
// host is left out: chunking (it runs after any partitioner), the logger, the progress hook,
// InProcess and MaxElements. OptionsFromKeys is the inverse.
func (o *Options) Keys() contract.Options { return contract.KeysOf(o) }

// OptionsFromKeys builds Options from contract keys on top of DefaultOptions: the standard keys
// set their fields (a value that does not parse leaves the default), any other key goes to Extra
// with all its values. Built-in strategies served as plugins read their options through it.
func OptionsFromKeys(k contract.Options) Options {
	o := DefaultOptions()
	contract.SetKeys(&o, k)
	return o
}
