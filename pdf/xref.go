package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// objects resolves indirect references. Two implementations exist: lazyObjects, which reads an
// intact file's cross-reference data and parses an object only when a page needs it, and
// pdfcpu's XRefTable, the fallback for encrypted or damaged files, which pdfcpu parses (and
// repairs or decrypts) whole when the document is opened.
type objects interface {
	deref(ir types.IndirectRef) (types.Object, error)
	catalog() (types.Dict, error)
}

type pdfcpuObjects struct{ xt *model.XRefTable }

func (p pdfcpuObjects) deref(ir types.IndirectRef) (types.Object, error) { return p.xt.Dereference(ir) }
func (p pdfcpuObjects) catalog() (types.Dict, error)                     { return p.xt.Catalog() }

// errNotLazy sends a file to pdfcpu's full reader: the lazy reader only takes files whose
// cross-reference data is intact and which are not encrypted.
var errNotLazy = errors.New("pdf: file needs the full reader")

// xrefEntry locates one object: at a byte offset (inStream false) or as the idx-th object of
// object stream num (inStream true).
type xrefEntry struct {
	off      int64
	num, idx int
	inStream bool
}

// objStm is a decoded object stream: its objects' numbers and their text.
type objStm struct {
	nums  []int
	texts []string
}

// lazyObjects parses objects on first use and keeps them, so that memory follows what the
// pages actually reference rather than the whole file's object graph.
type lazyObjects struct {
	ctx     context.Context
	data    []byte
	xref    map[int]xrefEntry
	trailer types.Dict
	cache   map[int]types.Object
	stms    map[int]*objStm
	depth   int // resolution nesting (stream lengths, object streams), bounded against cycles
	dec     *decrypter
	// root is the catalog a scan found or made up when the trailer names none (scan.go).
	root types.Dict
}

// maxXrefSections bounds the /Prev chain.
const maxXrefSections = 256

// openLazy reads the cross-reference sections of data. Anything unexpected returns an error
// and the caller falls back to the full reader, which knows how to repair files.
func openLazy(ctx context.Context, data []byte) (*lazyObjects, error) {
	l := &lazyObjects{ctx: ctx, data: data, xref: map[int]xrefEntry{}, cache: map[int]types.Object{},
		stms: map[int]*objStm{}}
	tail := string(l.data[max(0, len(l.data)-2048):])
	i := strings.LastIndex(tail, "startxref")
	if i < 0 {
		return nil, errNotLazy
	}
	off, ok := leadingInt(tail[i+len("startxref"):])
	if !ok {
		return nil, errNotLazy
	}
	seen := map[int64]bool{}
	for n := 0; off > 0; n++ {
		if n == maxXrefSections || seen[off] || off >= int64(len(l.data)) {
			return nil, errNotLazy
		}
		seen[off] = true
		trailer, err := l.readSection(off)
		if err != nil {
			return nil, err
		}
		if l.trailer == nil {
			l.trailer = trailer
		}
		// A hybrid file's table points at an xref stream holding its compressed objects.
		if stm, ok := trailer.Find("XRefStm"); ok {
			if so, ok := stm.(types.Integer); ok && !seen[int64(so)] {
				seen[int64(so)] = true
				if _, err := l.readSection(int64(so)); err != nil {
					return nil, err
				}
			}
		}
		prev, ok := trailer.Find("Prev")
		if !ok {
			break
		}
		p, ok := prev.(types.Integer)
		if !ok {
			return nil, errNotLazy
		}
		off = int64(p)
	}
	if l.trailer == nil {
		return nil, errNotLazy
	}
	if enc, ok := l.trailer.Find("Encrypt"); ok {
		var id []byte
		if ids, ok := l.resolve(l.trailer["ID"]).(types.Array); ok && len(ids) > 0 {
			id, _ = l.stringBytes(ids[0])
		}
		dec, err := newDecrypter(l, enc, id)
		if err != nil {
			return nil, err
		}
		l.cache = map[int]types.Object{} // objects read so far are still encrypted
		l.dec = dec
	}
	// Every in-use entry must point at its object's header; a single stale offset means the
	// file was edited without updating its tables, which the full reader repairs.
	for num, e := range l.xref {
		if e.inStream {
			continue
		}
		if n, _, _, ok := objHeader(l.data, e.off); !ok || n != num {
			return nil, errNotLazy
		}
	}
	return l, nil
}

// readSection reads the xref table or stream at off and returns its trailer dictionary. Entries
// already known come from a newer section and win.
func (l *lazyObjects) readSection(off int64) (types.Dict, error) {
	s := l.data[off:]
	if end := bytes.Index(s, []byte("startxref")); end >= 0 {
		s = s[:end]
	}
	if rest, ok := cutPrefixSpace(string(s), "xref"); ok {
		return l.readTable(rest)
	}
	num, _, body, ok := objHeader(l.data, off)
	if !ok {
		return nil, errNotLazy
	}
	o, err := l.parseAt(num, body)
	if err != nil {
		return nil, err
	}
	sd, ok := o.(types.StreamDict)
	if !ok || sd.Type() == nil || *sd.Type() != "XRef" {
		return nil, errNotLazy
	}
	if err := l.readXrefStream(sd); err != nil {
		return nil, err
	}
	return sd.Dict, nil
}

// readTable reads a classic table: subsections of "first count" then count 20-byte entries.
func (l *lazyObjects) readTable(s string) (types.Dict, error) {
	for {
		s = trimSpace(s)
		if rest, ok := cutPrefixSpace(s, "trailer"); ok {
			o, err := model.ParseObjectContext(l.ctx, &rest, 0)
			if err != nil {
				return nil, errNotLazy
			}
			d, ok := o.(types.Dict)
			if !ok {
				return nil, errNotLazy
			}
			return d, nil
		}
		first, n1, ok := intToken(s)
		if !ok {
			return nil, errNotLazy
		}
		count, n2, ok := intToken(s[n1:])
		if !ok || count < 0 || count > 1<<24 {
			return nil, errNotLazy
		}
		s = s[n1+n2:]
		for k := 0; k < count; k++ {
			s = trimSpace(s)
			offv, a, ok := intToken(s)
			if !ok {
				return nil, errNotLazy
			}
			_, b, ok := intToken(s[a:])
			if !ok {
				return nil, errNotLazy
			}
			t := trimSpace(s[a+b:])
			if t == "" || (t[0] != 'n' && t[0] != 'f') {
				return nil, errNotLazy
			}
			num := first + k
			if _, known := l.xref[num]; !known && t[0] == 'n' && offv > 0 {
				if offv >= len(l.data) {
					return nil, errNotLazy
				}
				l.xref[num] = xrefEntry{off: int64(offv)}
			}
			// Free entries are not recorded: a hybrid file's table lists the objects that
			// live in object streams as free, and its XRefStm or an older section says where
			// they are. An object freed by an update and still referenced then reads as its
			// older version rather than as null.
			s = t[1:]
		}
	}
}

// readXrefStream reads the entries of a cross-reference stream (PDF 1.5, §7.5.8).
func (l *lazyObjects) readXrefStream(sd types.StreamDict) error {
	b, err := sd.DecodeLengthWithLimit(-1, maxStreamBytes)
	if err != nil {
		return errNotLazy
	}
	wa, ok := sd.Find("W")
	w, _ := wa.(types.Array)
	if !ok || len(w) != 3 {
		return errNotLazy
	}
	var widths [3]int
	for i, o := range w {
		v, ok := o.(types.Integer)
		if !ok || v < 0 || v > 8 {
			return errNotLazy
		}
		widths[i] = int(v)
	}
	var index []int
	if ia, ok := sd.Find("Index"); ok {
		arr, ok := ia.(types.Array)
		if !ok || len(arr)%2 != 0 {
			return errNotLazy
		}
		for _, o := range arr {
			v, ok := o.(types.Integer)
			if !ok || v < 0 {
				return errNotLazy
			}
			index = append(index, int(v))
		}
	} else {
		size, ok := sd.Find("Size")
		n, ok2 := size.(types.Integer)
		if !ok || !ok2 {
			return errNotLazy
		}
		index = []int{0, int(n)}
	}
	rec := widths[0] + widths[1] + widths[2]
	if rec == 0 {
		return errNotLazy
	}
	field := func(p []byte, width, def int) int {
		if width == 0 {
			return def
		}
		v := 0
		for _, c := range p[:width] {
			v = v<<8 | int(c)
		}
		return v
	}
	pos := 0
	for k := 0; k+1 < len(index); k += 2 {
		first, count := index[k], index[k+1]
		for j := 0; j < count; j++ {
			if pos+rec > len(b) {
				return errNotLazy
			}
			p := b[pos : pos+rec]
			pos += rec
			typ := field(p, widths[0], 1)
			f2 := field(p[widths[0]:], widths[1], 0)
			f3 := field(p[widths[0]+widths[1]:], widths[2], 0)
			num := first + j
			if _, known := l.xref[num]; known {
				continue
			}
			switch typ { // 0, free, is not recorded (see readTable)
			case 1:
				if f2 <= 0 || f2 >= len(l.data) {
					return errNotLazy
				}
				l.xref[num] = xrefEntry{off: int64(f2)}
			case 2:
				l.xref[num] = xrefEntry{num: f2, idx: f3, inStream: true}
			}
		}
	}
	return nil
}

func (l *lazyObjects) catalog() (types.Dict, error) {
	if l.root != nil {
		return l.root, nil
	}
	root, ok := l.trailer.Find("Root")
	if !ok {
		return nil, errors.New("missing root")
	}
	o := root
	if ir, ok := root.(types.IndirectRef); ok {
		var err error
		if o, err = l.deref(ir); err != nil {
			return nil, err
		}
	}
	d, ok := o.(types.Dict)
	if !ok {
		return nil, errors.New("root is not a dictionary")
	}
	return d, nil
}

// maxResolveDepth bounds nested resolution (a stream whose length is an object in an object
// stream whose length is …) so that hostile cycles end.
const maxResolveDepth = 16

func (l *lazyObjects) deref(ir types.IndirectRef) (types.Object, error) {
	num := ir.ObjectNumber.Value()
	if o, ok := l.cache[num]; ok {
		return o, nil
	}
	e, ok := l.xref[num]
	if !ok {
		return nil, nil // a reference to a missing or free object is null (ISO 32000 §7.3.10)
	}
	if l.depth >= maxResolveDepth {
		return nil, fmt.Errorf("pdf: object %d: references nested too deep", num)
	}
	l.depth++
	defer func() { l.depth-- }()
	var o types.Object
	var err error
	if e.inStream {
		o, err = l.fromStream(e)
	} else {
		n, gen, body, ok := objHeader(l.data, e.off)
		if !ok || n != num {
			return nil, fmt.Errorf("pdf: object %d: no object header at offset %d", num, e.off)
		}
		o, err = l.parseAt(num, body)
		if err == nil && l.dec != nil {
			o, err = l.dec.object(o, num, gen)
		}
	}
	if err != nil {
		return nil, err
	}
	l.cache[num] = o
	return o, nil
}

// fromStream parses the idx-th object of an object stream.
func (l *lazyObjects) fromStream(e xrefEntry) (types.Object, error) {
	stm, ok := l.stms[e.num]
	if !ok {
		var err error
		if stm, err = l.loadObjStm(e.num); err != nil {
			return nil, err
		}
		l.stms[e.num] = stm
	}
	if e.idx < 0 || e.idx >= len(stm.texts) {
		return nil, fmt.Errorf("pdf: object stream %d has no object %d", e.num, e.idx)
	}
	text := stm.texts[e.idx]
	o, err := model.ParseObjectContext(l.ctx, &text, 0)
	if err != nil {
		return nil, fmt.Errorf("pdf: object %d of object stream %d: %w", e.idx, e.num, err)
	}
	return o, nil
}

func (l *lazyObjects) loadObjStm(num int) (*objStm, error) {
	o, err := l.deref(*types.NewIndirectRef(num, 0))
	if err != nil {
		return nil, err
	}
	sd, ok := o.(types.StreamDict)
	if !ok {
		return nil, fmt.Errorf("pdf: object stream %d is not a stream", num)
	}
	b, err := sd.DecodeLengthWithLimit(-1, maxStreamBytes)
	if err != nil {
		return nil, fmt.Errorf("pdf: object stream %d: %w", num, err)
	}
	n, ok1 := intEntry(sd.Dict, "N")
	first, ok2 := intEntry(sd.Dict, "First")
	if !ok1 || !ok2 || n < 0 || first < 0 || first > len(b) {
		return nil, fmt.Errorf("pdf: object stream %d: bad /N or /First", num)
	}
	s := string(b)
	head := s[:first]
	stm := &objStm{}
	offs := make([]int, 0, n)
	for k := 0; k < n; k++ {
		objNum, a, ok := intToken(head)
		if !ok {
			return nil, fmt.Errorf("pdf: object stream %d: bad header", num)
		}
		off, c, ok := intToken(head[a:])
		if !ok || first+off > len(s) {
			return nil, fmt.Errorf("pdf: object stream %d: bad header", num)
		}
		head = head[a+c:]
		stm.nums = append(stm.nums, objNum)
		offs = append(offs, first+off)
	}
	for k, off := range offs {
		end := len(s)
		if k+1 < len(offs) && offs[k+1] >= off {
			end = offs[k+1]
		}
		stm.texts = append(stm.texts, s[off:end])
	}
	return stm, nil
}

// parseAt parses the object whose body (after "N G obj") starts at body, with its stream data
// when it has one.
func (l *lazyObjects) parseAt(num int, body int64) (types.Object, error) {
	s := l.data[body:]
	end := bytes.Index(s, []byte("endobj"))
	if end < 0 {
		end = len(s)
	}
	head := s[:end]
	streamAt := -1
	for from := 0; ; {
		k := bytes.Index(head[from:], []byte("stream"))
		if k < 0 {
			break
		}
		k += from
		if bytes.HasSuffix(bytes.TrimRight(head[:k], " \t\r\n\f\x00"), []byte(">")) {
			streamAt = k
			break
		}
		from = k + len("stream")
	}
	if streamAt >= 0 {
		head = head[:streamAt]
	}
	text := string(head)
	o, err := model.ParseObjectContext(l.ctx, &text, 0)
	if err != nil {
		return nil, fmt.Errorf("pdf: object %d: %w", num, err)
	}
	if streamAt < 0 {
		return o, nil
	}
	d, ok := o.(types.Dict)
	if !ok {
		return nil, fmt.Errorf("pdf: object %d: stream without a dictionary", num)
	}
	// The data starts after the keyword's end of line (CRLF or LF; a lone CR is tolerated).
	start := streamAt + len("stream")
	if start < len(s) && s[start] == '\r' {
		start++
	}
	if start < len(s) && s[start] == '\n' {
		start++
	}
	dataStart := body + int64(start)
	length := -1
	if lo, ok := d.Find("Length"); ok {
		switch v := lo.(type) {
		case types.Integer:
			length = int(v)
		case types.IndirectRef:
			if r, err := l.deref(v); err == nil {
				if n, ok := r.(types.Integer); ok {
					length = int(n)
				}
			}
		}
	}
	// A wrong /Length is common; the data then ends before the next "endstream".
	if length < 0 || dataStart+int64(length) > int64(len(l.data)) ||
		!hasPrefixSpace(string(l.data[dataStart+int64(length):min(int64(len(l.data)), dataStart+int64(length)+64)]), "endstream") {
		k := bytes.Index(l.data[dataStart:], []byte("endstream"))
		if k < 0 {
			return nil, fmt.Errorf("pdf: object %d: stream without endstream", num)
		}
		raw := l.data[dataStart : dataStart+int64(k)]
		length = len(bytes.TrimSuffix(bytes.TrimSuffix(raw, []byte("\n")), []byte("\r")))
	}
	pipeline, err := l.filterPipeline(d)
	if err != nil {
		return nil, fmt.Errorf("pdf: object %d: %w", num, err)
	}
	n := int64(length)
	sd := types.NewStreamDict(d, dataStart, &n, nil, pipeline)
	sd.Raw = l.data[dataStart : dataStart+n : dataStart+n]
	return sd, nil
}

// filterAliases are the abbreviated filter names of inline images that some writers also use
// on streams.
var filterAliases = map[string]string{
	"AHx": "ASCIIHexDecode", "A85": "ASCII85Decode", "LZW": "LZWDecode", "Fl": "FlateDecode",
	"RL": "RunLengthDecode", "CCF": "CCITTFaxDecode", "DCT": "DCTDecode",
}

func (l *lazyObjects) resolve(o types.Object) types.Object {
	if ir, ok := o.(types.IndirectRef); ok {
		r, err := l.deref(ir)
		if err != nil {
			return nil
		}
		return r
	}
	return o
}

func (l *lazyObjects) filterPipeline(d types.Dict) ([]types.PDFFilter, error) {
	fo, ok := d.Find("Filter")
	if !ok {
		return nil, nil
	}
	var names types.Array
	switch v := l.resolve(fo).(type) {
	case types.Name:
		names = types.Array{v}
	case types.Array:
		names = v
	case nil:
		return nil, nil
	default:
		return nil, errors.New("bad /Filter")
	}
	var parms types.Array
	if po, ok := d.Find("DecodeParms"); ok {
		switch v := l.resolve(po).(type) {
		case types.Dict:
			parms = types.Array{v}
		case types.Array:
			parms = v
		}
	}
	var out []types.PDFFilter
	for i, no := range names {
		name, ok := l.resolve(no).(types.Name)
		if !ok {
			return nil, errors.New("bad /Filter")
		}
		f := types.PDFFilter{Name: name.Value()}
		if full, ok := filterAliases[f.Name]; ok {
			f.Name = full
		}
		if i < len(parms) {
			if pd, ok := l.resolve(parms[i]).(types.Dict); ok {
				f.DecodeParms = pd
			}
		}
		out = append(out, f)
	}
	return out, nil
}

func (l *lazyObjects) name(d types.Dict, key string) string {
	n, _ := l.resolve(d[key]).(types.Name)
	return string(n)
}

func (l *lazyObjects) stringBytes(o types.Object) ([]byte, bool) {
	b, err := literalBytes(l.resolve(o))
	return b, err == nil
}

// literalBytes returns the bytes of a string object, literal or hex.
func literalBytes(o types.Object) ([]byte, error) {
	switch v := o.(type) {
	case types.StringLiteral:
		return types.Unescape(string(v))
	case types.HexLiteral:
		return v.Bytes()
	}
	return nil, errors.New("pdf: not a string")
}

func intEntry(d types.Dict, key string) (int, bool) {
	o, ok := d.Find(key)
	if !ok {
		return 0, false
	}
	v, ok := o.(types.Integer)
	return int(v), ok
}

// objHeader reads "num gen obj" at off (after optional white space) and returns where the
// object's body starts.
func objHeader(data []byte, off int64) (num, gen int, body int64, ok bool) {
	if off < 0 || off >= int64(len(data)) {
		return 0, 0, 0, false
	}
	s := string(data[off:min(int64(len(data)), off+128)])
	lead := len(s) - len(trimSpace(s))
	s = s[lead:]
	num, a, ok := intToken(s)
	if !ok {
		return 0, 0, 0, false
	}
	gen, b, ok := intToken(s[a:])
	if !ok {
		return 0, 0, 0, false
	}
	rest := trimSpace(s[a+b:])
	if len(rest) < 3 || rest[:3] != "obj" {
		return 0, 0, 0, false
	}
	return num, gen, off + int64(len(s)-len(rest)+3), true
}

// intToken reads an unsigned decimal integer after optional white space and returns it with
// the number of bytes consumed.
func intToken(s string) (v, n int, ok bool) {
	t := trimSpace(s)
	n = len(s) - len(t)
	k := 0
	for k < len(t) && k < 12 && t[k] >= '0' && t[k] <= '9' {
		k++
	}
	if k == 0 || (k < len(t) && t[k] >= '0' && t[k] <= '9') {
		return 0, 0, false
	}
	v, err := strconv.Atoi(t[:k])
	if err != nil {
		return 0, 0, false
	}
	return v, n + k, true
}

func leadingInt(s string) (int64, bool) {
	v, _, ok := intToken(s)
	return int64(v), ok
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0
}

func trimSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && s[0] == '%' { // comments between tokens
		k := 0
		for k < len(s) && s[k] != '\n' && s[k] != '\r' {
			k++
		}
		s = s[k:]
		for len(s) > 0 && isSpace(s[0]) {
			s = s[1:]
		}
	}
	return s
}

func cutPrefixSpace(s, prefix string) (string, bool) {
	t := trimSpace(s)
	if len(t) >= len(prefix) && t[:len(prefix)] == prefix {
		return t[len(prefix):], true
	}
	return s, false
}

func hasPrefixSpace(s, prefix string) bool {
	_, ok := cutPrefixSpace(s, prefix)
	return ok
}
