package server

import (
	"fmt"
	"strings"

	"github.com/quarrydocs/quarry/internal/pdftest"
)

// makePDF writes a minimal PDF with one page per entry: the first line of a page is set large
// (a title), the rest as body text, in the standard Helvetica font, so the fast strategy can
// read it without any file in the repository.
func makePDF(pages [][]string) []byte {
	var objs []string
	obj := func(body string) { objs = append(objs, body) }
	n := len(pages)
	// 1 catalog, 2 pages, 3 font, then per page: page object, content stream.
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	kids := make([]string, n)
	for i := range pages {
		kids[i] = fmt.Sprintf("%d 0 R", 4+2*i)
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), n))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	for i, lines := range pages {
		var cs strings.Builder
		y := 720
		for j, line := range lines {
			size := 11
			if j == 0 {
				size = 18
			}
			esc := strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(line)
			fmt.Fprintf(&cs, "BT /F1 %d Tf 72 %d Td (%s) Tj ET\n", size, y, esc)
			y -= 2 * size
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>", 5+2*i))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", cs.Len(), cs.String()))
	}
	return pdftest.File(objs...)
}

// fivePagePDF is the document the split tests use: every page opens with its own title so the
// element hierarchy does not cross pages.
func fivePagePDF() []byte {
	var pages [][]string
	for p := 1; p <= 5; p++ {
		pages = append(pages, []string{
			fmt.Sprintf("Chapter %d Overview", p),
			fmt.Sprintf("This is the first paragraph of page %d, written as a full sentence for the classifier.", p),
			fmt.Sprintf("The second paragraph on page %d explains that every page carries distinct text.", p),
		})
	}
	return makePDF(pages)
}
