package pdf

import (
	"bytes"
	"context"
	"errors"
	"sort"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// The scanning reader is the last resort for files whose cross-reference data is broken beyond
// what pdfcpu repairs (wrong offsets everywhere, a truncated table, no trailer, a trailer
// without /Root): like pdftotext's reconstruction it finds every "N G obj" in the file, takes
// the last definition of each number (incremental updates append), merges the trailers it
// finds in file order and, failing a /Root, takes the catalog by its /Type. Work is linear in
// the file size plus the objects parsed, and bounded by maxScanObjects.

// maxScanObjects bounds the objects a scan records, so hostile input cannot make it allocate
// without limit.
const maxScanObjects = 1 << 21

// maxScanTrailers bounds the trailer dictionaries a scan parses, and maxScanObjStms the object
// streams it decodes.
const (
	maxScanTrailers = 64
	maxScanObjStms  = 4096
)

// errScanNoCatalog reports a scan that found no catalog and no page to build one from.
var errScanNoCatalog = errors.New("pdf: scan found no catalog")

type scanned struct {
	off int64 // where "N G obj" starts
	num int
}

// scanObjects finds the "N G obj" headers of data in file order.
func scanObjects(ctx context.Context, data []byte) ([]scanned, error) {
	var out []scanned
	for i := 0; i < len(data); {
		k := bytes.Index(data[i:], []byte("obj"))
		if k < 0 {
			break
		}
		at := i + k
		i = at + 3
		if len(out)&0x3FF == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if i < len(data) && !isSpace(data[i]) && !isDelim(data[i]) {
			continue // "objects", "objstm"…
		}
		// Walk back over " G N": white space, digits, white space, digits.
		p := at
		back := func(digits bool) int {
			n := 0
			for p > 0 && n < 12 {
				c := data[p-1]
				if digits != (c >= '0' && c <= '9') || (!digits && !isSpace(c)) {
					break
				}
				p--
				n++
			}
			return n
		}
		if back(false) == 0 || back(true) == 0 || back(false) == 0 {
			continue
		}
		if back(true) == 0 {
			continue
		}
		if p > 0 && !isSpace(data[p-1]) && !isDelim(data[p-1]) {
			continue
		}
		num, _, _, ok := objHeader(data, int64(p))
		if !ok {
			continue
		}
		if len(out) >= maxScanObjects {
			break
		}
		out = append(out, scanned{off: int64(p), num: num})
	}
	return out, nil
}

// openScan builds an object table by scanning data. It returns ErrEncrypted when the file needs
// a user password and errScanNoCatalog when nothing page-like was found.
func openScan(ctx context.Context, data []byte) (*lazyObjects, error) {
	l := &lazyObjects{ctx: ctx, data: data, xref: map[int]xrefEntry{}, cache: map[int]types.Object{},
		stms: map[int]*objStm{}}
	found, err := scanObjects(ctx, data)
	if err != nil {
		return nil, err
	}
	for _, s := range found {
		l.xref[s.num] = xrefEntry{off: s.off} // a later definition wins
	}
	// Trailers: the "trailer" dictionaries of classic tables and the dictionaries of xref
	// streams, merged in file order so that the newest entries win.
	type trailerAt struct {
		off int64
		d   types.Dict
	}
	// Only the last maxScanTrailers keywords are parsed, each up to the next one: the newest
	// trailers are the ones that count, and a file of nothing but "trailer" stays linear.
	var at []int
	for i := 0; i < len(data); {
		k := bytes.Index(data[i:], []byte("trailer"))
		if k < 0 {
			break
		}
		at = append(at, i+k)
		i += k + len("trailer")
		if len(at) > 2*maxScanTrailers {
			at = append(at[:0], at[len(at)-maxScanTrailers:]...)
		}
	}
	at = at[max(0, len(at)-maxScanTrailers):]
	var trailers []trailerAt
	for k, off := range at {
		end := min(len(data), off+16<<10)
		if k+1 < len(at) {
			end = min(end, at[k+1])
		}
		text := string(data[off+len("trailer") : end])
		if o, err := model.ParseObjectContext(ctx, &text, 0); err == nil {
			if d, ok := o.(types.Dict); ok {
				trailers = append(trailers, trailerAt{int64(off), d})
			}
		}
	}
	var objStms []int
	for _, s := range found {
		if l.xref[s.num].off != s.off {
			continue // superseded
		}
		head := objectHead(data, s.off)
		switch {
		case bytes.Contains(head, []byte("/XRef")):
			if o, err := l.deref(*types.NewIndirectRef(s.num, 0)); err == nil {
				if sd, ok := o.(types.StreamDict); ok && sd.Type() != nil && *sd.Type() == "XRef" {
					trailers = append(trailers, trailerAt{s.off, sd.Dict})
				}
			}
		case bytes.Contains(head, []byte("/ObjStm")):
			objStms = append(objStms, s.num)
		}
	}
	sort.SliceStable(trailers, func(a, b int) bool { return trailers[a].off < trailers[b].off })
	l.trailer = types.Dict{}
	for _, t := range trailers {
		for _, key := range []string{"Root", "Encrypt", "ID", "Info"} {
			if v, ok := t.d.Find(key); ok {
				l.trailer[key] = v
			}
		}
	}
	l.cache = map[int]types.Object{}
	if enc, ok := l.trailer.Find("Encrypt"); ok {
		var id []byte
		if ids, ok := l.resolve(l.trailer["ID"]).(types.Array); ok && len(ids) > 0 {
			id, _ = l.stringBytes(ids[0])
		}
		dec, err := newDecrypter(l, enc, id)
		if err != nil {
			return nil, err
		}
		l.cache = map[int]types.Object{}
		l.dec = dec
	}
	// Objects in object streams fill the numbers no plain object defines.
	for _, n := range objStms[:min(len(objStms), maxScanObjStms)] {
		stm, err := l.loadObjStm(n)
		if err != nil {
			continue
		}
		l.stms[n] = stm
		for idx, num := range stm.nums {
			if _, ok := l.xref[num]; !ok {
				l.xref[num] = xrefEntry{num: n, idx: idx, inStream: true}
			}
		}
	}
	if root, ok := l.trailer.Find("Root"); ok {
		if d, ok := l.resolve(root).(types.Dict); ok {
			if _, ok := d.Find("Pages"); ok {
				l.root = d
				return l, nil
			}
		}
	}
	if l.root = l.findCatalog(); l.root == nil {
		return nil, errScanNoCatalog
	}
	return l, nil
}

// objectHead is the start of an object's text, enough to see its /Type.
func objectHead(data []byte, off int64) []byte {
	head := data[off:min(int64(len(data)), off+1024)]
	if k := bytes.Index(head, []byte("stream")); k >= 0 {
		head = head[:k]
	}
	if k := bytes.Index(head, []byte("endobj")); k >= 0 {
		head = head[:k]
	}
	return head
}

// findCatalog returns the object typed /Catalog with a /Pages entry, else a catalog made up
// for the root of a page tree (a /Pages node without /Parent), else for the /Page objects
// found, in object-number order.
func (l *lazyObjects) findCatalog() types.Dict {
	nums := make([]int, 0, len(l.xref))
	for n := range l.xref {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	typed := func(want string) []int {
		var out []int
		for _, n := range nums {
			if e := l.xref[n]; !e.inStream && !bytes.Contains(objectHead(l.data, e.off), []byte(want)) {
				continue
			}
			d, ok := l.resolve(*types.NewIndirectRef(n, 0)).(types.Dict)
			if !ok || d.Type() == nil || "/"+*d.Type() != want {
				continue
			}
			out = append(out, n)
		}
		return out
	}
	for _, n := range typed("/Catalog") {
		d, _ := l.resolve(*types.NewIndirectRef(n, 0)).(types.Dict)
		if _, ok := d.Find("Pages"); ok {
			return d
		}
	}
	for _, n := range typed("/Pages") {
		d, _ := l.resolve(*types.NewIndirectRef(n, 0)).(types.Dict)
		if _, ok := d.Find("Parent"); !ok {
			return types.Dict{"Type": types.Name("Catalog"), "Pages": *types.NewIndirectRef(n, 0)}
		}
	}
	var kids types.Array
	for _, n := range typed("/Page") {
		kids = append(kids, *types.NewIndirectRef(n, 0))
	}
	if len(kids) == 0 {
		return nil
	}
	pages := types.Dict{"Type": types.Name("Pages"), "Kids": kids, "Count": types.Integer(len(kids))}
	return types.Dict{"Type": types.Name("Catalog"), "Pages": pages}
}
