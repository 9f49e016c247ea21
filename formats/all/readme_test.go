package all

import (
	"testing"

	"github.com/quarrydocs/quarry/internal/readmetest"
)

// TestEveryPackageHasREADME holds every format package (and the shared helpers under
// internal/) to a README that says what it reads, its limits and where its tests are.
func TestEveryPackageHasREADME(t *testing.T) { readmetest.Check(t, 10, "../*", "../internal/*") }
