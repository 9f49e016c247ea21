package engine

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"path/filepath"
	"regexp"
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
// hint is the caller's MIME hint (form content_type, else the part's Content-Type).
func Detect(doc *Document, hint string) FileType {
	head := make([]byte, 8192)
	n, _ := doc.Content.ReadAt(head, 0)
	head = head[:n]
	ext := strings.ToLower(filepath.Ext(doc.Filename))
	hinted, hintOK := TypeForMIME(hint)
	if hintOK && (hinted.Name == "unk" || hinted.Name == "empty") {
		hintOK = false
	}

	// 1. Containers whose members say what they are.
	switch {
	case bytes.HasPrefix(head, cfbMagic):
		if t, ok := detectCFB(doc); ok {
			return t
		}
	case bytes.HasPrefix(head, zipMagic):
		return detectZip(doc)
	default:
		if hintOK && isContainerType(hinted) {
			hintOK = false
		}
	}

	// 2. A hint that names a known type is trusted.
	if hintOK {
		return hinted
	}

	// 3. Byte sniffing, refined.
	if doc.Size == 0 {
		return typeByMIME[mimeEmpty]
	}
	if t, ok := detectUTF32(doc, head, ext); ok {
		return t
	}
	sniffed := mimetype.Detect(head)
	mime := strings.SplitN(sniffed.String(), ";", 2)[0]
	if strings.HasSuffix(mime, "xml") {
		if ext == ".html" || ext == ".htm" {
			return typeByMIME[mimeHTML]
		}
		return typeByMIME[mimeXML]
	}
	if isTextMIME(mime) {
		if t, ok := claimedBinary(ext); ok {
			return t
		}
		return refineText(doc, head, mime, ext)
	}
	if t, ok := TypeForMIME(mime); ok && t.Name != "unk" {
		return t
	}
	if sniffed.Is("application/zip") {
		return typeByMIME[mimeZip]
	}

	// 4. The extension.
	if t, ok := TypeForExtension(ext); ok {
		return t
	}
	return typeByMIME[mimeUnknown]
}

// claimedBinary settles a text file whose name claims a binary format that has a signature of
// its own (a plain-text "report.pdf"). The reference's clients (both SDKs) send the part
// content type from the extension — application/pdf for .pdf — and the server trusts it, so
// such an upload ends in the reference's invalid-PDF error; detection follows that, for the
// CLI and a hint-less API call alike, rather than returning a "PDF" as text with success.
func claimedBinary(ext string) (FileType, bool) {
	if ext == ".pdf" {
		return typeByMIME["application/pdf"], true
	}
	return FileType{}, false
}

// detectUTF32 recognises text that starts with a UTF-32 byte-order mark, which byte sniffing
// takes for UTF-16 (little-endian) or binary (big-endian): the text rules of step 3 are applied
// to the decoded head.
func detectUTF32(doc *Document, head []byte, ext string) (FileType, bool) {
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
	return refineText(doc, []byte(b.String()), mimeText, ext), true
}

func isContainerType(t FileType) bool {
	switch t.Name {
	case "docx", "pptx", "xlsx", "doc", "ppt", "xls", "odt", "epub", "zip", "msg":
		return true
	}
	return false
}

func isTextMIME(mime string) bool {
	return strings.HasPrefix(mime, "text/") || mime == mimeEML || mime == mimeJSON || mime == mimeNDJSON
}

// textExtensions are the extensions the reference trusts over sniffing for text content.
var textExtensions = map[string]bool{
	".csv": true, ".eml": true, ".html": true, ".json": true, ".markdown": true, ".md": true,
	".ndjson": true, ".org": true, ".p7s": true, ".rst": true, ".rtf": true, ".tab": true,
	".tsv": true, ".htm": true,
}

// maxJSONSniff bounds how much text is parsed to decide whether it is JSON.
const maxJSONSniff = 64 << 20

func refineText(doc *Document, head []byte, mime, ext string) FileType {
	if textExtensions[ext] {
		t, _ := TypeForExtension(ext)
		if t.Name == "json" || t.Name == "ndjson" {
			return splitJSON(doc, ext)
		}
		return t
	}
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) > 0 && (trimmed[0] == '{' || trimmed[0] == '[') && doc.Size <= maxJSONSniff {
		if t := splitJSON(doc, ext); t.Name == "json" || t.Name == "ndjson" {
			return t
		}
	}
	if looksLikeCSV(head) {
		return typeByMIME[mimeCSV]
	}
	if emlHeader.Match(head) {
		return typeByMIME[mimeEML]
	}
	if ext == ".txt" || ext == ".text" {
		return typeByMIME[mimeText]
	}
	if t, ok := TypeForMIME(mime); ok && t.Name != "unk" {
		return t
	}
	return typeByMIME[mimeText]
}

// splitJSON tells JSON from NDJSON by parsing; a name ending in .ndjson wins when every line
// parses. Neither parsing → plain text.
func splitJSON(doc *Document, ext string) FileType {
	if doc.Size > maxJSONSniff {
		t, _ := TypeForExtension(ext)
		return t
	}
	data, err := doc.Bytes()
	if err != nil {
		return typeByMIME[mimeText]
	}
	whole := json.Valid(data)
	if whole && ext != ".ndjson" {
		return typeByMIME[mimeJSON]
	}
	if everyLineJSON(data) {
		return typeByMIME[mimeNDJSON]
	}
	if whole {
		return typeByMIME[mimeJSON]
	}
	if t, ok := TypeForExtension(ext); ok && (t.Name == "json" || t.Name == "ndjson") {
		return t // the partitioner reports the syntax error
	}
	return typeByMIME[mimeText]
}

func everyLineJSON(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), len(data)+1)
	lines := 0
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if !json.Valid(line) {
			return false
		}
		lines++
	}
	return lines > 0 && sc.Err() == nil
}

// looksLikeCSV is the reference's heuristic: at least two of the first ten non-empty lines, all
// with the same non-zero count of commas outside quotes.
func looksLikeCSV(head []byte) bool {
	lines := bytes.Split(head, []byte("\n"))
	if len(head) == 8192 && len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last line may be cut
	}
	count := -1
	seen := 0
	for _, l := range lines {
		l = bytes.TrimRight(l, "\r")
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		c := commasOutsideQuotes(l)
		if c == 0 || (count >= 0 && c != count) {
			return false
		}
		count = c
		seen++
		if seen == 10 {
			break
		}
	}
	return seen >= 2
}

func commasOutsideQuotes(line []byte) int {
	n, quoted := 0, false
	for _, c := range line {
		switch c {
		case '"':
			quoted = !quoted
		case ',':
			if !quoted {
				n++
			}
		}
	}
	return n
}

var emlHeader = regexp.MustCompile(`^(?:MIME-Version: 1\.0.*\r?\n)?Date:.*\r?\nMessage-ID:.*\r?\nSubject:.*\r?\nFrom:.*\r?\nTo:.*`)

func detectCFB(doc *Document) (t FileType, ok bool) {
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
	switch {
	case names["WordDocument"]:
		return typeByMIME[mimeDOC], true
	case names["PowerPoint Document"]:
		return typeByMIME[mimePPT], true
	case names["Workbook"] || names["Book"]:
		return typeByMIME[mimeXLS], true
	case names["__properties_version1.0"]:
		return typeByMIME[mimeMSG], true
	}
	return FileType{}, false
}

func detectZip(doc *Document) FileType {
	zr, err := zip.NewReader(doc.Content, doc.Size)
	if err != nil {
		return typeByMIME[mimeZip]
	}
	var mimeMember *zip.File
	for _, f := range zr.File {
		name := f.Name
		switch {
		case strings.HasPrefix(name, "word/document") && strings.HasSuffix(name, ".xml"):
			return typeByMIME[mimeDOCX]
		case strings.HasPrefix(name, "xl/workbook") && strings.HasSuffix(name, ".xml"):
			return typeByMIME[mimeXLSX]
		case strings.HasPrefix(name, "ppt/presentation") && strings.HasSuffix(name, ".xml"):
			return typeByMIME[mimePPTX]
		case name == "mimetype":
			mimeMember = f
		}
	}
	if mimeMember != nil {
		if rc, err := mimeMember.Open(); err == nil {
			b, _ := io.ReadAll(io.LimitReader(rc, 256))
			rc.Close()
			if t, ok := TypeForMIME(string(bytes.TrimSpace(b))); ok {
				return t
			}
		}
	}
	return typeByMIME[mimeZip]
}
