package element

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
)

// toValue turns an element into its JSON object: keys type, element_id, text, metadata, then
// checked/embeddings when present.
func (e *Element) toValue(orig bool, oc origCache) object {
	o := object{
		{"type", string(e.Type)},
		{"element_id", e.ID},
		{"text", e.Text},
	}
	if e.Checked != nil {
		o = append(o, member{"checked", *e.Checked})
	}
	o = append(o, member{"metadata", e.Metadata.toValue(orig, oc)})
	if len(e.Embeddings) > 0 {
		a := make(array, len(e.Embeddings))
		for i, f := range e.Embeddings {
			a[i] = floatValue(f)
		}
		o = append(o, member{"embeddings", a})
	}
	return o
}

func strings2(ss []string) value {
	a := make(array, len(ss))
	for i, s := range ss {
		a[i] = s
	}
	return a
}

// toValue writes the populated metadata fields. orig selects the orig_elements form: rounded
// coordinates and no nested orig_elements.
func (m *Metadata) toValue(orig bool, oc origCache) object {
	o := object{}
	str := func(k, v string) {
		if v != "" {
			o = append(o, member{k, v})
		}
	}
	list := func(k string, v []string) {
		if len(v) > 0 {
			o = append(o, member{k, strings2(v)})
		}
	}
	intp := func(k string, v *int) {
		if v != nil {
			o = append(o, member{k, intValue(*v)})
		}
	}
	str("filename", m.Filename)
	str("file_directory", m.FileDirectory)
	str("last_modified", m.LastModified)
	str("url", m.URL)
	str("attached_to_filename", m.AttachedToFilename)
	list("sent_from", m.SentFrom)
	list("sent_to", m.SentTo)
	list("cc_recipient", m.CcRecipient)
	list("bcc_recipient", m.BccRecipient)
	str("subject", m.Subject)
	str("email_message_id", m.EmailMessageID)
	str("signature", m.Signature)
	if c := m.Coordinates; c != nil {
		o = append(o, member{"coordinates", c.toValue(orig)})
	}
	if m.DetectionClassProb != nil {
		p := *m.DetectionClassProb
		if orig {
			p = roundTo(p, 5)
		}
		o = append(o, member{"detection_class_prob", floatValue(p)})
	}
	str("is_extracted", m.IsExtracted)
	intp("category_depth", m.CategoryDepth)
	str("parent_id", m.ParentID)
	str("header_footer_type", m.HeaderFooterType)
	list("emphasized_text_contents", m.EmphasizedTextContents)
	list("emphasized_text_tags", m.EmphasizedTextTags)
	list("link_texts", m.LinkTexts)
	list("link_urls", m.LinkURLs)
	if len(m.LinkStartIndexes) > 0 {
		a := make(array, len(m.LinkStartIndexes))
		for i, n := range m.LinkStartIndexes {
			a[i] = intValue(n)
		}
		o = append(o, member{"link_start_indexes", a})
	}
	if len(m.Links) > 0 {
		a := make(array, len(m.Links))
		for i, l := range m.Links {
			a[i] = object{{"text", l.Text}, {"url", l.URL}, {"start_index", intValue(l.StartIndex)}}
		}
		o = append(o, member{"links", a})
	}
	str("page_name", m.PageName)
	str("text_as_html", m.TextAsHTML)
	str("table_extraction_method", m.TableExtractionMethod)
	str("image_base64", m.ImageBase64)
	str("image_mime_type", m.ImageMIMEType)
	str("image_url", m.ImageURL)
	str("image_path", m.ImagePath)
	if m.IsContinuation {
		o = append(o, member{"is_continuation", true})
	}
	str("table_id", m.TableID)
	intp("chunk_index", m.ChunkIndex)
	intp("num_carried_over_header_rows", m.NumCarriedOverHeaderRows)
	for _, k := range sortedKeys(m.Extra) {
		v, err := parseRaw(m.Extra[k])
		if err != nil {
			continue // Extra is only filled from valid JSON; skip anything else
		}
		o = append(o, member{k, v})
	}
	list("languages", m.Languages)
	intp("page_number", m.PageNumber)
	if len(m.OrigElements) > 0 && !orig {
		o = append(o, member{"orig_elements", oc.encode(m.OrigElements)})
	}
	str("filetype", m.Filetype)
	return o
}

func roundTo(f float64, places int) float64 {
	p := math.Pow(10, float64(places))
	return math.Round(f*p) / p
}

func (c *Coordinates) toValue(orig bool) object {
	places := 2
	if c.System == "PixelSpace" {
		places = 1
	}
	pts := make(array, len(c.Points))
	for i, p := range c.Points {
		x, y := p[0], p[1]
		if orig {
			x, y = roundTo(x, places), roundTo(y, places)
		}
		pts[i] = array{floatValue(x), floatValue(y)}
	}
	return object{
		{"points", pts},
		{"system", c.System},
		{"layout_width", floatValue(c.LayoutWidth)},
		{"layout_height", floatValue(c.LayoutHeight)},
	}
}

// MarshalJSON writes the reference's element object (compact, UTF-8, Python float style).
func (e Element) MarshalJSON() ([]byte, error) {
	return marshalValue(e.toValue(false, nil), compactJSON), nil
}

// MarshalList writes a JSON array of elements as the partition endpoint does.
func MarshalList(elems []Element) []byte {
	b, _ := MarshalListLimit(elems, 0)
	return b
}

// ErrTooLarge is returned by MarshalListLimit when the output passes its limit.
var ErrTooLarge = errors.New("element: output larger than the limit")

// MarshalListLimit is MarshalList that stops with ErrTooLarge as soon as the output passes
// limit bytes (limit <= 0: no limit), so a caller bounding its answer never builds more than
// about limit bytes plus one element.
func MarshalListLimit(elems []Element, limit int) ([]byte, error) {
	var b bytes.Buffer
	oc := origCache{}
	b.WriteByte('[')
	for i := range elems {
		if i > 0 {
			b.WriteByte(',')
		}
		compactJSON.write(&b, elems[i].toValue(false, oc))
		if limit > 0 && b.Len() > limit {
			return nil, ErrTooLarge
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// origCache holds the orig_elements encodings of one marshalling pass. The chunks an oversized
// element is split into share one orig_elements slice (the whole element); encoding it once
// per chunk made the work quadratic (max_characters=1 on a 45 KB paragraph: 28 s). Keys are
// the slice's first element and length, valid while the elements are not modified.
type origCache map[origKey]string

type origKey struct {
	first *Element
	n     int
}

func (oc origCache) encode(els []Element) string {
	if oc == nil {
		return EncodeOrigElements(els)
	}
	k := origKey{&els[0], len(els)}
	if s, ok := oc[k]; ok {
		return s
	}
	s := EncodeOrigElements(els)
	oc[k] = s
	return s
}

// UnmarshalJSON reads an element object. Unknown metadata keys are kept in Metadata.Extra.
func (e *Element) UnmarshalJSON(data []byte) error {
	var raw struct {
		Type       string          `json:"type"`
		ID         string          `json:"element_id"`
		Text       *string         `json:"text"`
		Checked    *bool           `json:"checked"`
		Embeddings []float64       `json:"embeddings"`
		Metadata   json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	*e = Element{Type: Type(raw.Type), ID: raw.ID, Checked: raw.Checked, Embeddings: raw.Embeddings}
	if raw.Text != nil {
		e.Text = *raw.Text
	}
	if len(raw.Metadata) == 0 || string(raw.Metadata) == "null" {
		return nil
	}
	return e.Metadata.UnmarshalJSON(raw.Metadata)
}

// UnmarshalJSON reads a metadata object; keys without a field go to Extra.
func (m *Metadata) UnmarshalJSON(data []byte) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	*m = Metadata{}
	for k, raw := range fields {
		if string(raw) == "null" {
			continue
		}
		if err := m.setField(k, raw); err != nil {
			return fmt.Errorf("metadata.%s: %w", k, err)
		}
	}
	return nil
}

func (m *Metadata) setField(k string, raw json.RawMessage) error {
	u := func(dst any) error { return json.Unmarshal(raw, dst) }
	optInt := func(dst **int) error {
		var n json.Number
		if err := u(&n); err != nil {
			return err
		}
		f, err := strconv.ParseFloat(string(n), 64)
		if err != nil {
			return err
		}
		*dst = Int(int(f))
		return nil
	}
	strs := map[string]*string{
		"filename": &m.Filename, "filetype": &m.Filetype, "file_directory": &m.FileDirectory,
		"last_modified": &m.LastModified, "url": &m.URL, "page_name": &m.PageName,
		"parent_id": &m.ParentID, "text_as_html": &m.TextAsHTML,
		"table_extraction_method": &m.TableExtractionMethod, "is_extracted": &m.IsExtracted,
		"image_base64": &m.ImageBase64, "image_mime_type": &m.ImageMIMEType,
		"image_url": &m.ImageURL, "image_path": &m.ImagePath,
		"header_footer_type": &m.HeaderFooterType, "subject": &m.Subject,
		"email_message_id": &m.EmailMessageID, "signature": &m.Signature,
		"attached_to_filename": &m.AttachedToFilename, "table_id": &m.TableID,
	}
	lists := map[string]*[]string{
		"languages": &m.Languages, "link_texts": &m.LinkTexts, "link_urls": &m.LinkURLs,
		"emphasized_text_contents": &m.EmphasizedTextContents,
		"emphasized_text_tags":     &m.EmphasizedTextTags, "sent_from": &m.SentFrom,
		"sent_to": &m.SentTo, "cc_recipient": &m.CcRecipient, "bcc_recipient": &m.BccRecipient,
	}
	if p, ok := strs[k]; ok {
		return u(p)
	}
	if p, ok := lists[k]; ok {
		return u(p)
	}
	switch k {
	case "page_number":
		return optInt(&m.PageNumber)
	case "category_depth":
		return optInt(&m.CategoryDepth)
	case "chunk_index":
		return optInt(&m.ChunkIndex)
	case "num_carried_over_header_rows":
		return optInt(&m.NumCarriedOverHeaderRows)
	case "detection_class_prob":
		var f float64
		if err := u(&f); err != nil {
			return err
		}
		m.DetectionClassProb = &f
		return nil
	case "is_continuation":
		return u(&m.IsContinuation)
	case "link_start_indexes":
		return u(&m.LinkStartIndexes)
	case "links":
		var ls []struct {
			Text       string `json:"text"`
			URL        string `json:"url"`
			StartIndex int    `json:"start_index"`
		}
		if err := u(&ls); err != nil {
			return err
		}
		for _, l := range ls {
			m.Links = append(m.Links, Link(l))
		}
		return nil
	case "coordinates":
		var c struct {
			Points       []Point `json:"points"`
			System       string  `json:"system"`
			LayoutWidth  float64 `json:"layout_width"`
			LayoutHeight float64 `json:"layout_height"`
		}
		if err := u(&c); err != nil {
			return err
		}
		m.Coordinates = (*Coordinates)(&c)
		return nil
	case "orig_elements":
		var s string
		if err := u(&s); err != nil {
			return err
		}
		els, err := DecodeOrigElements(s)
		if err != nil {
			return err
		}
		m.OrigElements = els
		return nil
	}
	if m.Extra == nil {
		m.Extra = map[string][]byte{}
	}
	m.Extra[k] = bytes.Clone(raw)
	return nil
}

// EncodeOrigElements serializes a chunk's source elements as the reference does (§6.6): JSON
// with sorted keys and Python separators, zlib-compressed, base64-encoded.
func EncodeOrigElements(elems []Element) string {
	a := make(array, len(elems))
	for i := range elems {
		a[i] = elems[i].toValue(true, nil)
	}
	var z bytes.Buffer
	w := zlibWriters.Get().(*zlib.Writer)
	w.Reset(&z)
	_, _ = w.Write(marshalValue(a, pythonJSON)) // writes to a bytes.Buffer cannot fail
	_ = w.Close()
	zlibWriters.Put(w)
	return base64.StdEncoding.EncodeToString(z.Bytes())
}

// zlibWriters reuses compressors: a chunked document encodes one orig_elements per chunk, and a
// new zlib writer allocates several hundred KiB.
var zlibWriters = sync.Pool{New: func() any { return zlib.NewWriter(nil) }}

// MaxOrigElementsSize caps the decompressed size of orig_elements, as the reference does.
const MaxOrigElementsSize = 200 << 20

// DecodeOrigElements reverses EncodeOrigElements.
func DecodeOrigElements(s string) ([]Element, error) {
	compressed, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("orig_elements: base64: %w", err)
	}
	r, err := zlib.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, fmt.Errorf("orig_elements: zlib: %w", err)
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxOrigElementsSize+1))
	if err != nil {
		return nil, fmt.Errorf("orig_elements: zlib: %w", err)
	}
	if len(data) > MaxOrigElementsSize {
		return nil, errors.New("orig_elements: decompressed size exceeds 200 MiB")
	}
	var elems []Element
	if err := json.Unmarshal(data, &elems); err != nil {
		return nil, fmt.Errorf("orig_elements: %w", err)
	}
	return elems, nil
}
