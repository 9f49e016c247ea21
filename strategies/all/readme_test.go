package all

import (
	"testing"

	"github.com/quarrydocs/quarry/internal/readmetest"
)

// TestEveryPackageHasREADME holds every strategy package to a README that says what it reads,
// its options, its limits and where its tests are.
func TestEveryPackageHasREADME(t *testing.T) { readmetest.Check(t, 3, "../*") }
