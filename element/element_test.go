package element

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

func TestFormatFloat(t *testing.T) {
	cases := map[float64]string{
		612: "612.0", 1700: "1700.0", 0.5: "0.5", -3.25: "-3.25", 0: "0.0",
		1e16: "1e+16", 1.5e-5: "1.5e-05", 0.0001: "0.0001", 123456789.125: "123456789.125",
		1e22: "1e+22", 9999999999999998: "9999999999999998.0", 72.00000000000001: "72.00000000000001",
	}
	for f, want := range cases {
		if got := FormatFloat(f); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", f, got, want)
		}
	}
}

func TestElementJSONShape(t *testing.T) {
	e := Element{Type: Title, ID: "abc", Text: "Héllo <b>", Metadata: Metadata{
		Filename: "a.txt", Languages: []string{"eng"}, PageNumber: Int(1),
		Coordinates: &Coordinates{Points: []Point{{1, 2}, {1, 3.5}}, System: "PixelSpace", LayoutWidth: 612, LayoutHeight: 792},
	}}
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	// Key order type, element_id, text, metadata; compact; UTF-8 and < unescaped; Python floats.
	if !strings.HasPrefix(got, `{"type":"Title","element_id":"abc","text":"Héllo <b>","metadata":{`) {
		t.Errorf("unexpected prefix: %s", got)
	}
	for _, want := range []string{`"points":[[1.0,2.0],[1.0,3.5]]`, `"layout_width":612.0`, `"page_number":1`} {
		if !strings.Contains(got, want) {
			t.Errorf("%s missing from %s", want, got)
		}
	}
	// Empty fields are omitted.
	if strings.Contains(got, "parent_id") || strings.Contains(got, "emphasized") {
		t.Errorf("empty fields serialized: %s", got)
	}
}

func TestUnknownMetadataRoundTrip(t *testing.T) {
	in := `{"type":"NarrativeText","element_id":"x","text":"t","metadata":{"filename":"f","data_source":{"url":"s3://b/k","record_locator":{"path":"/p"}},"custom_field":[1,2.5,"z"],"page_number":3}}`
	var e Element
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	if e.Metadata.PageNumber == nil || *e.Metadata.PageNumber != 3 || e.Metadata.Filename != "f" {
		t.Fatalf("known fields not parsed: %+v", e.Metadata)
	}
	out, _ := e.MarshalJSON()
	var a, b any
	_ = json.Unmarshal([]byte(in), &a)
	_ = json.Unmarshal(out, &b)
	if !jsonEqual(a, b) {
		t.Errorf("round trip changed the element:\n in %s\nout %s", in, out)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// The reference's IDs for fake-xml.xml (asserted by its server tests) and fake-text.txt.
func TestHashID(t *testing.T) {
	cases := []struct {
		file, text string
		page       *int
		idx        int
		want       string
	}{
		{"fake-xml.xml", "United States", nil, 0, "0e0e3ceecc272305ff14af4c2fbf8ef7"},
		{"fake-xml.xml", "Washington, DC", nil, 1, "ceaa4718ddf40162aafdf8c3ed34814a"},
		{"fake-text.txt", "This is a test document to use for unit tests.", nil, 0, "fc01503614e0f12f585427cccf81cf86"},
	}
	for _, c := range cases {
		if got := HashID(c.file, c.text, c.page, c.idx); got != c.want {
			t.Errorf("HashID(%q, %q) = %s, want %s", c.file, c.text, got, c.want)
		}
	}
}

func TestAssignIDsPerPageCounters(t *testing.T) {
	elems := []Element{
		{Text: "a", Metadata: Metadata{PageNumber: Int(1)}},
		{Text: "a", Metadata: Metadata{PageNumber: Int(2)}},
		{Text: "a", Metadata: Metadata{PageNumber: Int(1)}},
	}
	AssignIDs(elems, "f.pdf", false)
	if elems[0].ID != HashID("f.pdf", "a", Int(1), 0) || elems[1].ID != HashID("f.pdf", "a", Int(2), 0) ||
		elems[2].ID != HashID("f.pdf", "a", Int(1), 1) {
		t.Errorf("per-page sequence counters not applied: %v", elems)
	}
	AssignIDs(elems, "f.pdf", true)
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	if !uuid.MatchString(elems[0].ID) || elems[0].ID == elems[1].ID {
		t.Errorf("unique IDs are not UUIDv4: %q %q", elems[0].ID, elems[1].ID)
	}
}

func TestHierarchy(t *testing.T) {
	d := func(n int) *int { return Int(n) }
	elems := []Element{
		{ID: "h", Type: Header},
		{ID: "t0", Type: Title, Metadata: Metadata{CategoryDepth: d(0)}},
		{ID: "n1", Type: NarrativeText},
		{ID: "t1", Type: Title, Metadata: Metadata{CategoryDepth: d(1)}},
		{ID: "l0", Type: ListItem, Metadata: Metadata{CategoryDepth: d(0)}},
		{ID: "l1", Type: ListItem, Metadata: Metadata{CategoryDepth: d(1)}},
		{ID: "t2", Type: Title, Metadata: Metadata{CategoryDepth: d(0)}},
	}
	SetHierarchy(elems)
	want := map[string]string{"h": "", "t0": "h", "n1": "t0", "t1": "t0", "l0": "t1", "l1": "l0", "t2": "h"}
	for _, e := range elems {
		if e.Metadata.ParentID != want[e.ID] {
			t.Errorf("%s: parent %q, want %q", e.ID, e.Metadata.ParentID, want[e.ID])
		}
	}
}

// Re-encoding the reference's own orig_elements must give the very JSON text it compressed.
func TestOrigElementsMatchReferenceEncoding(t *testing.T) {
	b, err := os.ReadFile("../testdata/reference/expected/head/local-single-file-basic-chunking/handbook-1p.docx.json")
	if err != nil {
		t.Fatal(err)
	}
	var chunks []struct {
		Metadata struct {
			OrigElements string `json:"orig_elements"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(b, &chunks); err != nil {
		t.Fatal(err)
	}
	for i, c := range chunks {
		raw, _ := base64.StdEncoding.DecodeString(c.Metadata.OrigElements)
		zr, err := zlib.NewReader(bytes.NewReader(raw))
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		want, _ := io.ReadAll(zr)
		elems, err := DecodeOrigElements(c.Metadata.OrigElements)
		if err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		a := make(array, len(elems))
		for j := range elems {
			a[j] = elems[j].toValue(true, nil)
		}
		if got := marshalValue(a, pythonJSON); !bytes.Equal(got, want) {
			t.Errorf("chunk %d: re-encoded orig_elements differ\n got %.300s\nwant %.300s", i, got, want)
		}
		if !strings.HasPrefix(EncodeOrigElements(elems), "eJ") {
			t.Errorf("chunk %d: encoding is not zlib (no eJ prefix)", i)
		}
	}
}

func TestDecodeOrigElementsRejectsBombs(t *testing.T) {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < 201; i++ {
		w.Write(chunk)
	}
	w.Close()
	if _, err := DecodeOrigElements(base64.StdEncoding.EncodeToString(z.Bytes())); err == nil {
		t.Fatal("a 201 MiB payload was accepted")
	}
}

func TestMarshalCSV(t *testing.T) {
	elems := []Element{
		{Type: Title, ID: "1", Text: "Hello, world", Metadata: Metadata{Filename: "m.eml", SentFrom: []string{"A <a@x>"}, Languages: []string{"eng"}, Filetype: "message/rfc822"}},
		{Type: NarrativeText, ID: "2", Text: `Say "hi"`, Metadata: Metadata{Filename: "m.eml", Languages: []string{"eng"}, PageNumber: Int(2), Filetype: "message/rfc822"}},
	}
	got := string(MarshalCSV(elems))
	// Columns in first-seen order; an integer column with gaps is written as floats (pandas).
	want := "type,element_id,text,filename,sent_from,languages,filetype,page_number\n" +
		"Title,1,\"Hello, world\",m.eml,['A <a@x>'],['eng'],message/rfc822,\n" +
		"NarrativeText,2,\"Say \"\"hi\"\"\",m.eml,,['eng'],message/rfc822,2.0\n"
	if got != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", got, want)
	}
}

func TestTableHTML(t *testing.T) {
	rows := [][]Cell{{{Text: "a<b"}, {Text: ""}}, {{Text: "x\ny", ColSpan: 2}}}
	if got, want := TableHTML(rows), `<table><tr><td>a&lt;b</td><td/></tr><tr><td colspan="2">x<br/>y</td></tr></table>`; got != want {
		t.Errorf("TableHTML = %s, want %s", got, want)
	}
	if got := TableText(rows); got != "a<b x y" {
		t.Errorf("TableText = %q", got)
	}
}
