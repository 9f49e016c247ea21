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

// AssignIDs sets every element's ID: hashed as HashID with a per-page sequence counter, or a
// random UUIDv4 when unique is true. filename is the name used for hashing (the metadata
// filename the reference saw, "" for none).
func AssignIDs(elems []Element, filename string, unique bool) {
	if unique {
		for i := range elems {
			elems[i].ID = uuid.NewString()
		}
		return
	}
	counters := map[int]int{}
	noPage := 0
	for i := range elems {
		e := &elems[i]
		var idx int
		if p := e.Metadata.PageNumber; p != nil {
			idx = counters[*p]
			counters[*p] = idx + 1
		} else {
			idx = noPage
			noPage++
		}
		e.ID = HashID(filename, e.Text, e.Metadata.PageNumber, idx)
	}
}

// containerChildren lists which element types a container type may parent (§6.4).
var containerChildren = map[Type]map[Type]bool{
	Title: {UncategorizedText: true, NarrativeText: true, ListItem: true, "BulletedText": true,
		Table: true, FigureCaption: true, CheckBox: true, "Text": true},
	Header: {Title: true, UncategorizedText: true, NarrativeText: true, ListItem: true,
		"BulletedText": true, Table: true, FigureCaption: true, CheckBox: true, "Text": true},
}

// SetHierarchy assigns parent_id with the reference's single stack pass: an element's parent is
// the nearest stacked element of the same type with a smaller category_depth, or of a container
// type that may hold it. Elements that already have a parent are left alone. Run it after IDs.
func SetHierarchy(elems []Element) {
	var stack []*Element
	depth := func(e *Element) int {
		if e.Metadata.CategoryDepth == nil {
			return 0
		}
		return *e.Metadata.CategoryDepth
	}
	for i := range elems {
		e := &elems[i]
		if e.Metadata.ParentID != "" || e.Type == "" {
			continue
		}
		parent := ""
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if (top.Type == e.Type && depth(top) < depth(e)) ||
				(top.Type != e.Type && containerChildren[top.Type][e.Type]) {
				parent = top.ID
				break
			}
			stack = stack[:len(stack)-1]
		}
		e.Metadata.ParentID = parent
		stack = append(stack, e)
	}
}
