// Package pdftest writes small PDF files from hand-written content streams, for tests that
// need a fixture of one class of page (fake bold, clipping, a ruled table, a million
// segments) without a generator.
package pdftest

import (
	"bytes"
	"fmt"
	"strings"
)

// Helvetica is a Type 1 font dictionary for the standard Helvetica.
const Helvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

// HelveticaBold is its bold face.
const HelveticaBold = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>"

// Page is one page: its content stream and resources dictionary, which may refer to objects
// of Doc.Extra by number (the first extra object is number 3 + 2 × pages).
type Page struct {
	Content   string
	Resources string
	// Width and Height set the MediaBox (default US Letter, 612 × 792).
	Width, Height float64
	// Entries are added to the page dictionary as written (such as "/Rotate 90").
	Entries string
}

// Doc is a document of pages with extra objects (fonts, images).
type Doc struct {
	Pages []Page
	Extra []string
}

// FirstExtra is the object number of the first extra object of a document of n pages.
func FirstExtra(n int) int { return 3 + 2*n }

// Stream formats a stream object.
func Stream(dict, data string) string {
	return fmt.Sprintf("<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
}

// Bytes writes the file: catalog 1, page tree 2, then page k's dictionary and content stream,
// then the extra objects.
func (d Doc) Bytes() []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>"}
	kids := make([]string, len(d.Pages))
	for i := range d.Pages {
		kids[i] = fmt.Sprintf("%d 0 R", 3+2*i)
	}
	objs = append(objs, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(d.Pages)))
	for i, p := range d.Pages {
		res := p.Resources
		if res == "" {
			res = "<< >>"
		}
		w, h := p.Width, p.Height
		if w == 0 || h == 0 {
			w, h = 612, 792
		}
		objs = append(objs, fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %g %g] %s /Resources %s /Contents %d 0 R >>", w, h, p.Entries, res, 4+2*i),
			Stream("", p.Content))
	}
	return File(append(objs, d.Extra...)...)
}

// File writes a PDF of the objects given as bodies ("<<…>>", or a stream as Stream writes it),
// numbered from 1, object 1 the catalog, with a correct cross-reference table.
func File(objs ...string) []byte { return FileTrailer("/Root 1 0 R", objs...) }

// FileTrailer is File with the trailer's entries besides /Size as written (an /Info, an
// /Encrypt, or no /Root at all).
func FileTrailer(trailer string, objs ...string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer, x)
	return b.Bytes()
}

// Text returns content showing s at (x, y) in font /F1 (or the font named) at size.
func Text(font string, size, x, y float64, s string) string {
	s = strings.NewReplacer(`\`, `\\`, "(", `\(`, ")", `\)`).Replace(s)
	return fmt.Sprintf("BT /%s %g Tf %g %g Td (%s) Tj ET\n", font, size, x, y, s)
}
