package element

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"

	"github.com/google/uuid"
)

// HashID is the reference's deterministic element ID: the first 32 hex digits of SHA-256 over
// filename, text, page number ("None" when absent) and the element's index among the elements
// of its page, concatenated without separators. filename is "None" when the document has no name.
func HashID(filename, text string, page *int, index int) string {
	h := sha256.New()
	if filename == "" {
		filename = "None"
	}
	h.Write([]byte(filename))
	h.Write([]byte(text))
	if page == nil {
		h.Write([]byte("None"))
	} else {
		h.Write([]byte(strconv.Itoa(*page)))
	}
	h.Write([]byte(strconv.Itoa(index)))
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// IDHasher assigns reference IDs to elements presented one at a time in document order. Each
// file name keeps its own per-page counters: elements of an e-mail attachment are numbered as in
// the reference's nested partition of that attachment.
type IDHasher struct {
	counters map[counterKey]int
}

type counterKey struct {
	filename string
	page     int
	hasPage  bool
}

// Next returns the hashed ID of e, the next element in document order, hashed with filename.
func (h *IDHasher) Next(filename string, e *Element) string {
	k := counterKey{filename: filename}
	if p := e.Metadata.PageNumber; p != nil {
		k.page, k.hasPage = *p, true
	}
	if h.counters == nil {
		h.counters = map[counterKey]int{}
	}
	idx := h.counters[k]
	h.counters[k] = idx + 1
	return HashID(filename, e.Text, e.Metadata.PageNumber, idx)
}

// AssignIDs sets every element's ID: hashed as HashID with a per-page sequence counter, or a
// random UUIDv4 when unique is true. filename is the name used for hashing (the metadata
// filename the reference saw, "" for none).
func AssignIDs(elems []Element, filename string, unique bool) {
	var h IDHasher
	for i := range elems {
		if unique {
			elems[i].ID = uuid.NewString()
		} else {
			elems[i].ID = h.Next(filename, &elems[i])
		}
	}
}

// containerChildren lists which element types a container type may parent (§6.4).
var containerChildren = map[Type]map[Type]bool{
	Title: {UncategorizedText: true, NarrativeText: true, ListItem: true, "BulletedText": true,
		Table: true, FigureCaption: true, CheckBox: true, "Text": true},
	Header: {Title: true, UncategorizedText: true, NarrativeText: true, ListItem: true,
		"BulletedText": true, Table: true, FigureCaption: true, CheckBox: true, "Text": true},
}

type stackEntry struct {
	typ   Type
	depth int
	id    string
}

// Hierarchy assigns parent_id with the reference's single stack pass (§6.4) to elements
// presented one at a time: an element's parent is the nearest stacked element of the same type
// with a smaller category_depth, or of a container type that may hold it. Elements that already
// have a parent are left alone. Elements must already carry their final IDs.
type Hierarchy struct {
	stack []stackEntry
}

// Add sets e's parent_id and pushes e.
func (h *Hierarchy) Add(e *Element) {
	if e.Metadata.ParentID != "" || e.Type == "" {
		return
	}
	depth := 0
	if e.Metadata.CategoryDepth != nil {
		depth = *e.Metadata.CategoryDepth
	}
	parent := ""
	for len(h.stack) > 0 {
		top := h.stack[len(h.stack)-1]
		if (top.typ == e.Type && top.depth < depth) ||
			(top.typ != e.Type && containerChildren[top.typ][e.Type]) {
			parent = top.id
			break
		}
		h.stack = h.stack[:len(h.stack)-1]
	}
	e.Metadata.ParentID = parent
	h.stack = append(h.stack, stackEntry{e.Type, depth, e.ID})
}

// SetHierarchy runs the Hierarchy pass over a whole list.
func SetHierarchy(elems []Element) {
	var h Hierarchy
	for i := range elems {
		h.Add(&elems[i])
	}
}
