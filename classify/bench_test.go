package classify

import "testing"

var benchLines = []string{
	"This is a test document to use for unit tests.",
	"Important points:",
	"• Send in your taxes by April 15",
	"Doylestown, PA 18901",
	"ITEM 1A. RISK FACTORS",
	"The Company's results of operations could be adversely affected by changes in interest rates, and management believes that these risks are manageable.",
	"Table 3: Revenue by segment (in millions)",
	"1,234.56",
}

func BenchmarkText(b *testing.B) {
	loadLexicon()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Text(benchLines[i%len(benchLines)])
	}
}
