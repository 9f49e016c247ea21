package tables_test

import (
	"github.com/quarrydocs/quarry/layout/tables"
	"github.com/quarrydocs/quarry/pdf"
)

// addGeometry adds the page's ruling to the detector's input (none until pdf reads vector
// paths).
func addGeometry(in *tables.Page, p *pdf.Page) {}
