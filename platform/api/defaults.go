package api

import (
	"github.com/quarrydocs/quarry/connectors/azure"
	"github.com/quarrydocs/quarry/connectors/confluence"
	"github.com/quarrydocs/quarry/connectors/local"
)

// configDefaults fill in, for answers, the keys and defaults the reference's response schemas
// require (platform.md §1.11: responses carry the full normalized config, e.g. Azure's
// recursive, Confluence's cloud, limits and spaces). Stored configs keep what the client sent.
var configDefaults = map[string]func(map[string]any) map[string]any{
	"azure":      azure.Defaults,
	"confluence": confluence.Defaults,
	"local":      local.Defaults,
}

func withDefaults(typ string, config map[string]any) map[string]any {
	if fn, ok := configDefaults[typ]; ok {
		return fn(config)
	}
	return config
}
