package engine

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/gabriel-vasile/mimetype"
	"github.com/richardlehane/mscfb"
)

var (
	cfbMagic = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
	zipMagic = []byte("PK\x03\x04")
)

// Detect chooses the document's file type in the reference's order (partition-api.md §3 step
// 5 and §5.2): certain binary containers first (CFB by stream names, ZIP by members), then a
// usable MIME hint, then byte sniffing refined by the extension, then the extension alone.
// hint is the caller's MIME hint (form content_type, else the part's Content-Type). What each
// type looks like comes from the registered formats (contract.Format); the order is the
// engine's.
func Detect(doc *Document, hint string) FileType {
	t := table()
	head := make([]byte, 8192)
	n, _ := doc.Content.ReadAt(head, 0)
	head = head[:n]
	ext := strings.ToLower(filepath.Ext(doc.Filename))
	hinted, hintOK := TypeForMIME(hint)
	if hintOK && !hinted.Partitionable && hinted.MIME != mimeZip {
		hintOK = false // unknown or empty
	}

	// 1. Containers whose members say what they are.
	switch {
	case bytes.HasPrefix(head, cfbMagic):
		if ft, ok := t.detectCFB(doc); ok {
			return ft
		}
	case bytes.HasPrefix(head, zipMagic):
		return t.detectZip(doc, ext)
	default:
		if hintOK && t.isContainer(hinted) {
			hintOK = false
		}
	}

	// 2. A hint that names a known type is trusted.
	if hintOK {
		return hinted
	}

	// 3. Byte sniffing, refined.
	if doc.Size == 0 {
		return t.mime(mimeEmpty)
	}
	if ft, ok := t.detectUTF32(doc, head, ext); ok {
		return ft
	}
	sniffed := mimetype.Detect(head)
	mime := strings.SplitN(sniffed.String(), ";", 2)[0]
	if ft, ok := t.bySuffix(mime); ok {
		if byExt, ok := t.byExt[ext]; ok && t.formats[byExt].AcceptsXML {
			return t.types[byExt]
		}
		// A type registered under the sniffed name itself (XHTML, an HTML alias) is that
		// format's before the suffix family's.
		if i, ok := t.byMIME[mime]; ok {
			return t.types[i]
		}
		return ft
	}
	if t.isText(mime) {
		return t.refineText(doc, head, mime, ext)
	}
	if ft, ok := TypeForMIME(mime); ok && ft.MIME != mimeUnknown {
		return ft
	}
	if sniffed.Is(mimeZip) {
		return t.mime(mimeZip)
	}

	// 4. The extension.
	if ft, ok := TypeForExtension(ext); ok {
		return ft
	}
	return t.mime(mimeUnknown)
}

// bySuffix finds the format claiming a sniffed MIME type by its suffix (XML's "+xml" family).
func (t *typeTable) bySuffix(mime string) (FileType, bool) {
	for i, f := range t.formats {
		if f.MIMESuffix != "" && strings.HasSuffix(mime, f.MIMESuffix) {
			return t.types[i], true
		}
	}
	return FileType{}, false
}

// detectUTF32 recognises text that starts with a UTF-32 byte-order mark, which byte sniffing
// takes for UTF-16 (little-endian) or binary (big-endian): the text rules of step 3 are applied
// to the decoded head.
func (t *typeTable) detectUTF32(doc *Document, head []byte, ext string) (FileType, bool) {
	var order binary.ByteOrder
	switch {
	case bytes.HasPrefix(head, []byte("\xff\xfe\x00\x00")):
		order = binary.LittleEndian
	case bytes.HasPrefix(head, []byte("\x00\x00\xfe\xff")):
		order = binary.BigEndian
	default:
		return FileType{}, false
	}
	var b strings.Builder
	for i := 4; i+4 <= len(head); i += 4 {
		r := rune(order.Uint32(head[i:]))
		if !utf8.ValidRune(r) {
			return FileType{}, false // not UTF-32 after all
		}
		b.WriteRune(r)
	}
	return t.refineText(doc, []byte(b.String()), "", ext), true
}

// isContainer reports whether files of the type are ZIP or Compound File archives.
func (t *typeTable) isContainer(ft FileType) bool {
	if ft.MIME == mimeZip {
		return true
	}
	i, ok := t.byMIME[ft.MIME]
	if !ok {
		return false
	}
	f := t.formats[i]
	return f.Container || len(f.ZipMembers) > 0 || len(f.CFBStreams) > 0
}

// isText reports whether a sniffed MIME type is text to be refined by the text rules.
func (t *typeTable) isText(mime string) bool {
	if strings.HasPrefix(mime, "text/") {
		return true
	}
	i, ok := t.byMIME[mime]
	return ok && t.formats[i].Text
}

// refineText settles text content: a trusted extension first (a registered binary type's
// too: a plain-text "report.pdf" is what the reference's clients send as application/pdf, so it
// ends in the reference's invalid-PDF error rather than being partitioned as text with
// success), then the formats' text sniffers in order, then the sniffed type, then plain text.
func (t *typeTable) refineText(doc *Document, head []byte, mime, ext string) FileType {
	if i, ok := t.byExt[ext]; ok && t.formats[i].TrustExtension {
		if s := t.formats[i].SniffText; s != nil {
			if m, ok := s(doc, head, ext); ok {
				if j, ok := t.byMIME[m]; ok {
					return t.types[j]
				}
			}
		}
		return t.types[i]
	}
	for _, i := range t.sniff {
		if m, ok := t.formats[i].SniffText(doc, head, ext); ok {
			if j, ok := t.byMIME[m]; ok {
				return t.types[j]
			}
		}
	}
	if ft, ok := TypeForMIME(mime); ok && ft.MIME != mimeUnknown {
		return ft
	}
	if t.plain >= 0 {
		return t.types[t.plain]
	}
	return t.mime(mimeUnknown)
}

func (t *typeTable) detectCFB(doc *Document) (ft FileType, ok bool) {
	defer func() {
		if recover() != nil { // a malformed container must not take the caller down
			ok = false
		}
	}()
	r, err := mscfb.New(doc.Content)
	if err != nil {
		return FileType{}, false
	}
	// Only the root's streams say what the file is: an .xls with an embedded Word document
	// holds a WordDocument stream too, one storage down.
	names := map[string]bool{}
	for e, err := r.Next(); err == nil; e, err = r.Next() {
		if len(e.Path) == 0 {
			names[e.Name] = true
		}
	}
	for i, f := range t.formats {
		for _, s := range f.CFBStreams {
			if names[s] {
				return t.types[i], true
			}
		}
	}
	return FileType{}, false
}

// detectZip names an archive by its first member a format claims, else by its "mimetype"
// member (the ODF and EPUB convention), else it is a plain ZIP.
func (t *typeTable) detectZip(doc *Document, ext string) FileType {
	zr, err := zip.NewReader(doc.Content, doc.Size)
	if err != nil {
		// An archive that cannot be opened (cut short: no central directory) under a name a
		// ZIP-based format claims is a damaged file of that format, whose reader says so
		// ("File is not a valid pptx"), not a ZIP the API does not support.
		if i, ok := t.byExt[ext]; ok && t.isContainer(t.types[i]) {
			return t.types[i]
		}
		return t.mime(mimeZip)
	}
	var mimeMember *zip.File
	for _, f := range zr.File {
		for i, format := range t.formats {
			for _, m := range format.ZipMembers {
				if m.Match(f.Name) {
					return t.types[i]
				}
			}
		}
		if f.Name == "mimetype" {
			mimeMember = f
		}
	}
	if mimeMember != nil {
		if rc, err := mimeMember.Open(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(rc, 256))
			rc.Close()
			if ft, ok := TypeForMIME(string(bytes.TrimSpace(b))); ok {
				return ft
			}
		}
	}
	return t.mime(mimeZip)
}
