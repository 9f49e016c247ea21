package engine

import (
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/quarrydocs/quarry/contract"
)

// FileType is one row of the reference's file-type table (partition-api.md §5.1), as the
// registered formats declare it (contract.Format) plus the three the engine itself knows:
// ZIP archives, unknown bytes and empty files, which the API rejects.
type FileType struct {
	// Name is the lower-case short name used by skip_infer_table_types ("pdf", "docx", …).
	Name string
	// MIME is the canonical MIME type, written to metadata.filetype.
	MIME       string
	Aliases    []string
	Extensions []string
	// Partitionable is false for ZIP, unknown and empty inputs, which the API rejects.
	Partitionable bool
	// Paged types (PDF, images) are routed to a strategy rather than a format partitioner;
	// Image marks those without a text layer.
	Paged bool
	Image bool
}

// The types that are not formats: detection's answers for what no format claims.
const (
	mimeUnknown = "application/octet-stream"
	mimeEmpty   = "inode/x-empty"
	mimeZip     = "application/zip"
)

var generic = []FileType{
	{Name: "zip", MIME: mimeZip, Extensions: []string{".zip"}},
	{Name: "unk", MIME: mimeUnknown},
	{Name: "empty", MIME: mimeEmpty},
}

// typeTable is what detection reads, built from the registered formats.
type typeTable struct {
	types   []FileType
	formats []contract.Format // same order as types; generic types have none
	byMIME  map[string]int
	byExt   map[string]int
	byName  map[string]int
	sniff   []int // formats with a text sniffer, in SniffOrder
	plain   int   // the plain-text type, -1 if none is registered
}

var cachedTable atomic.Pointer[typeTable]

// table returns the detection table. Until the registry is frozen it is rebuilt on each call,
// so a format registered late in start-up is seen; afterwards it is built once.
func table() *typeTable {
	if t := cachedTable.Load(); t != nil {
		return t
	}
	frozen := contract.Frozen()
	t := buildTable(contract.Formats())
	if frozen {
		cachedTable.Store(t)
	}
	return t
}

func buildTable(formats []contract.Format) *typeTable {
	t := &typeTable{byMIME: map[string]int{}, byExt: map[string]int{}, byName: map[string]int{}, plain: -1}
	add := func(ft FileType, f contract.Format) {
		i := len(t.types)
		t.types = append(t.types, ft)
		t.formats = append(t.formats, f)
		for _, m := range append([]string{ft.MIME}, ft.Aliases...) {
			if _, dup := t.byMIME[m]; !dup {
				t.byMIME[m] = i
			}
		}
		for _, e := range ft.Extensions {
			if _, dup := t.byExt[e]; !dup {
				t.byExt[e] = i
			}
		}
		if _, dup := t.byName[ft.Name]; !dup {
			t.byName[ft.Name] = i
		}
	}
	for _, f := range formats {
		add(FileType{Name: f.Name, MIME: f.MIME, Aliases: slices.Clone(f.Aliases), Extensions: slices.Clone(f.Extensions),
			Partitionable: true, Paged: f.Paged, Image: f.Image}, f)
	}
	for _, g := range generic {
		add(g, contract.Format{})
	}
	for i, f := range t.formats {
		if f.SniffText != nil {
			t.sniff = append(t.sniff, i)
		}
		if f.PlainText && t.plain < 0 {
			t.plain = i
		}
	}
	slices.SortStableFunc(t.sniff, func(a, b int) int { return t.formats[a].SniffOrder - t.formats[b].SniffOrder })
	return t
}

func (t *typeTable) mime(m string) FileType { return t.types[t.byMIME[m]] }

// TypeForMIME maps a canonical MIME type or alias (parameters such as ";charset=" ignored,
// case-insensitive) to its file type.
func TypeForMIME(mime string) (FileType, bool) {
	mime = strings.ToLower(strings.TrimSpace(mime))
	if i := strings.IndexByte(mime, ';'); i >= 0 {
		mime = strings.TrimSpace(mime[:i])
	}
	t := table()
	i, ok := t.byMIME[mime]
	if !ok {
		return FileType{}, false
	}
	return t.types[i], true
}

// TypeForExtension maps a file name's extension to its file type.
func TypeForExtension(name string) (FileType, bool) {
	t := table()
	i, ok := t.byExt[strings.ToLower(filepath.Ext(name))]
	if !ok {
		return FileType{}, false
	}
	return t.types[i], true
}

// TypeForName maps a short name ("pdf", "docx") to its file type.
func TypeForName(name string) (FileType, bool) {
	t := table()
	i, ok := t.byName[strings.ToLower(name)]
	if !ok {
		return FileType{}, false
	}
	return t.types[i], true
}

// FileTypes lists every known file type: the registered formats, then ZIP, unknown and empty.
func FileTypes() []FileType { return slices.Clone(table().types) }
