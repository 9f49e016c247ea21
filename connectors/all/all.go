// Package all compiles in every connector: import it for its side effects, as cmd/quarry and
// the platform do, and each connector registers its kind with package connectors.
package all

import (
	_ "github.com/quarrydocs/quarry/connectors/azure"
	_ "github.com/quarrydocs/quarry/connectors/confluence"
	_ "github.com/quarrydocs/quarry/connectors/local"
)
