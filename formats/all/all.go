// Package all compiles every built-in format partitioner into a program. Import it for its
// side effects: _ "github.com/quarrydocs/quarry/formats/all".
package all

import (
	_ "github.com/quarrydocs/quarry/formats/csv"
	_ "github.com/quarrydocs/quarry/formats/docx"
	_ "github.com/quarrydocs/quarry/formats/email"
	_ "github.com/quarrydocs/quarry/formats/epub"
	_ "github.com/quarrydocs/quarry/formats/html"
	_ "github.com/quarrydocs/quarry/formats/json"
	_ "github.com/quarrydocs/quarry/formats/markdown"
	_ "github.com/quarrydocs/quarry/formats/odg"
	_ "github.com/quarrydocs/quarry/formats/odt"
	_ "github.com/quarrydocs/quarry/formats/office"
	_ "github.com/quarrydocs/quarry/formats/org"
	_ "github.com/quarrydocs/quarry/formats/p7m"
	_ "github.com/quarrydocs/quarry/formats/paged"
	_ "github.com/quarrydocs/quarry/formats/pptx"
	_ "github.com/quarrydocs/quarry/formats/rst"
	_ "github.com/quarrydocs/quarry/formats/rtf"
	_ "github.com/quarrydocs/quarry/formats/text"
	_ "github.com/quarrydocs/quarry/formats/xlsx"
	_ "github.com/quarrydocs/quarry/formats/xml"
)
