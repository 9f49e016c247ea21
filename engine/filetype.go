package engine

import (
	"path/filepath"
	"strings"
)

// FileType is one row of the reference's file-type table (partition-api.md §5.1).
type FileType struct {
	// Name is the lower-case short name used by skip_infer_table_types ("pdf", "docx", …).
	Name string
	// MIME is the canonical MIME type, written to metadata.filetype.
	MIME       string
	Aliases    []string
	Extensions []string
	// Partitionable is false for ZIP, unknown and empty inputs, which the API rejects.
	Partitionable bool
	// Image and PDF types are routed to a strategy rather than a format partitioner.
	Image bool
}

// IsPDF reports whether t is the PDF type.
func (t FileType) IsPDF() bool { return t.MIME == "application/pdf" }

// Canonical MIME types used by detection.
const (
	mimeUnknown = "application/octet-stream"
	mimeEmpty   = "inode/x-empty"
	mimeZip     = "application/zip"
	mimeText    = "text/plain"
	mimeJSON    = "application/json"
	mimeNDJSON  = "application/x-ndjson"
	mimeCSV     = "text/csv"
	mimeTSV     = "text/tsv"
	mimeHTML    = "text/html"
	mimeXML     = "application/xml"
	mimeEML     = "message/rfc822"
	mimeMSG     = "application/vnd.ms-outlook"
	mimeDOCX    = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	mimePPTX    = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	mimeXLSX    = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	mimeDOC     = "application/msword"
	mimePPT     = "application/vnd.ms-powerpoint"
	mimeXLS     = "application/vnd.ms-excel"
	mimeODT     = "application/vnd.oasis.opendocument.text"
	mimeEPUB    = "application/epub"
)

var fileTypes = []FileType{
	{Name: "pdf", MIME: "application/pdf", Extensions: []string{".pdf"}, Partitionable: true},
	{Name: "jpg", MIME: "image/jpeg", Extensions: []string{".jpeg", ".jpg"}, Partitionable: true, Image: true},
	{Name: "png", MIME: "image/png", Extensions: []string{".png"}, Partitionable: true, Image: true},
	{Name: "tiff", MIME: "image/tiff", Extensions: []string{".tiff", ".tif"}, Partitionable: true, Image: true},
	{Name: "bmp", MIME: "image/bmp", Aliases: []string{"image/x-bmp", "image/x-ms-bmp"}, Extensions: []string{".bmp"}, Partitionable: true, Image: true},
	{Name: "heic", MIME: "image/heic", Aliases: []string{"image/x-heic"}, Extensions: []string{".heic"}, Partitionable: true, Image: true},
	{Name: "gif", MIME: "image/gif", Extensions: []string{".gif"}, Partitionable: true, Image: true},
	{Name: "webp", MIME: "image/webp", Extensions: []string{".webp"}, Partitionable: true, Image: true},
	{Name: "docx", MIME: mimeDOCX, Extensions: []string{".docx"}, Partitionable: true},
	{Name: "doc", MIME: mimeDOC, Extensions: []string{".doc"}, Partitionable: true},
	{Name: "odt", MIME: mimeODT, Extensions: []string{".odt"}, Partitionable: true},
	{Name: "pptx", MIME: mimePPTX, Extensions: []string{".pptx"}, Partitionable: true},
	{Name: "ppt", MIME: mimePPT, Extensions: []string{".ppt"}, Partitionable: true},
	{Name: "xlsx", MIME: mimeXLSX, Extensions: []string{".xlsx"}, Partitionable: true},
	{Name: "xls", MIME: mimeXLS, Extensions: []string{".xls"}, Partitionable: true},
	{Name: "csv", MIME: mimeCSV, Aliases: []string{"application/csv", "application/x-csv", "text/comma-separated-values", "text/x-comma-separated-values", "text/x-csv"}, Extensions: []string{".csv"}, Partitionable: true},
	{Name: "tsv", MIME: mimeTSV, Aliases: []string{"text/tab-separated-values"}, Extensions: []string{".tab", ".tsv"}, Partitionable: true},
	{Name: "html", MIME: mimeHTML, Extensions: []string{".html", ".htm"}, Partitionable: true},
	{Name: "xml", MIME: mimeXML, Aliases: []string{"text/xml"}, Extensions: []string{".xml"}, Partitionable: true},
	{Name: "eml", MIME: mimeEML, Extensions: []string{".eml", ".p7s"}, Partitionable: true},
	{Name: "msg", MIME: mimeMSG, Extensions: []string{".msg"}, Partitionable: true},
	{Name: "epub", MIME: mimeEPUB, Aliases: []string{"application/epub+zip"}, Extensions: []string{".epub"}, Partitionable: true},
	{Name: "rtf", MIME: "text/rtf", Aliases: []string{"application/rtf"}, Extensions: []string{".rtf"}, Partitionable: true},
	{Name: "org", MIME: "text/org", Extensions: []string{".org"}, Partitionable: true},
	{Name: "rst", MIME: "text/x-rst", Extensions: []string{".rst"}, Partitionable: true},
	{Name: "md", MIME: "text/markdown", Aliases: []string{"text/x-markdown"}, Extensions: []string{".md", ".markdown"}, Partitionable: true},
	{Name: "txt", MIME: mimeText, Aliases: []string{"text/yaml", "application/x-yaml", "application/yaml", "text/x-yaml"},
		Extensions: []string{".txt", ".text", ".c", ".cc", ".cpp", ".cs", ".cxx", ".go", ".java", ".js", ".log", ".php", ".py", ".rb", ".swift", ".ts", ".yaml", ".yml"}, Partitionable: true},
	{Name: "json", MIME: mimeJSON, Extensions: []string{".json"}, Partitionable: true},
	{Name: "ndjson", MIME: mimeNDJSON, Extensions: []string{".ndjson"}, Partitionable: true},
	{Name: "zip", MIME: mimeZip, Extensions: []string{".zip"}},
	{Name: "unk", MIME: mimeUnknown},
	{Name: "empty", MIME: mimeEmpty},
}

var (
	typeByMIME = map[string]FileType{}
	typeByExt  = map[string]FileType{}
)

func init() {
	for _, t := range fileTypes {
		typeByMIME[t.MIME] = t
		for _, a := range t.Aliases {
			typeByMIME[a] = t
		}
		for _, e := range t.Extensions {
			typeByExt[e] = t
		}
	}
}

// TypeForMIME maps a canonical MIME type or alias (parameters such as ";charset=" ignored,
// case-insensitive) to its file type.
func TypeForMIME(mime string) (FileType, bool) {
	mime = strings.ToLower(strings.TrimSpace(mime))
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = strings.TrimSpace(mime[:i])
	}
	t, ok := typeByMIME[mime]
	return t, ok
}

// TypeForExtension maps a file name's extension to its file type.
func TypeForExtension(name string) (FileType, bool) {
	t, ok := typeByExt[strings.ToLower(filepath.Ext(name))]
	return t, ok
}

// TypeForName maps a short name ("pdf", "docx") to its file type.
func TypeForName(name string) (FileType, bool) {
	for _, t := range fileTypes {
		if t.Name == strings.ToLower(name) {
			return t, true
		}
	}
	return FileType{}, false
}

// FileTypes lists every known file type.
func FileTypes() []FileType { return append([]FileType(nil), fileTypes...) }
