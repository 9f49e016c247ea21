package pdf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// documentText is every page's boxes, in order, as one string.
func documentText(t *testing.T, d *Document) string {
	t.Helper()
	var b strings.Builder
	for n := 1; n <= d.NumPages(); n++ {
		p, err := d.Page(context.Background(), n, DefaultLAParams())
		if err != nil {
			t.Fatalf("page %d: %v", n, err)
		}
		fmt.Fprintf(&b, "--- page %d\n%s\n", n, strings.Join(boxTexts(p), "\n"))
	}
	return b.String()
}

func openBoth(t *testing.T, data []byte) (lazy, full *Document) {
	t.Helper()
	head := data[:min(len(data), 1024)]
	var err error
	if lazy, err = open(context.Background(), data, head, false); err != nil {
		t.Fatalf("lazy: %v", err)
	}
	if full, err = open(context.Background(), data, head, true); err != nil {
		t.Fatalf("full: %v", err)
	}
	return lazy, full
}

// The lazy reader must read what pdfcpu's full reader reads, on the reference PDFs and on
// variants with object streams, linearisation and every encryption it decrypts itself (AES-256 too).
func TestLazyReaderMatchesFullReader(t *testing.T) {
	files, _ := filepath.Glob("../testdata/reference/docs/*.pdf")
	variants, _ := filepath.Glob("testdata/xref/*.pdf")
	plain, err := os.ReadFile("../testdata/reference/docs/all-number-table.pdf")
	if err != nil {
		t.Fatal(err)
	}
	_, plainDoc := openBoth(t, plain)
	plainText := documentText(t, plainDoc)
	for _, f := range append(files, variants...) {
		name := filepath.Base(f)
		if name == "user-password.pdf" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			_, lazyErr := openLazy(context.Background(), data)
			if lazyErr != nil {
				t.Errorf("lazy reader refused the file: %v", lazyErr)
			}
			lazy, full := openBoth(t, data)
			if _, ok := lazy.objs.(*lazyObjects); !ok {
				t.Error("document does not use the lazy reader")
			}
			lt, ft := documentText(t, lazy), documentText(t, full)
			if lt != ft {
				t.Errorf("lazy and full readers differ:\nlazy:\n%s\nfull:\n%s", lt, ft)
			}
			if strings.HasPrefix(f, "testdata/xref/") && lt != plainText {
				t.Errorf("variant reads differently from the original:\n%s\nwant:\n%s", lt, plainText)
			}
			if name != "loremipsum-flat.pdf" && !strings.ContainsAny(lt, "0123456789abcdefghijklmnopqrstuvwxyz") {
				t.Error("no text read") // every file but the scan has a text layer
			}
		})
	}
}

func TestUserPasswordIsReported(t *testing.T) {
	data, err := os.ReadFile("testdata/xref/user-password.pdf")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := openLazy(context.Background(), data); err == nil {
		t.Error("the lazy reader accepted a file whose user password is not empty")
	}
	if _, err := Open(context.Background(), bytes.NewReader(data), int64(len(data))); !errors.Is(err, ErrEncrypted) {
		t.Errorf("Open: %v, want ErrEncrypted", err)
	}
}

// An incremental update appends objects and a table whose /Prev points at the original one;
// the newer objects win.
func TestIncrementalUpdate(t *testing.T) {
	base := onePage("<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>",
		"BT /F1 12 Tf 72 700 Td (Old text) Tj ET")
	prev := bytes.LastIndex(base, []byte("startxref"))
	prevOff, err := strconv.Atoi(strings.Fields(string(base[prev+len("startxref"):]))[0])
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.Write(base)
	off := b.Len()
	fmt.Fprintf(&b, "4 0 obj\n%s\nendobj\n", stream("", "BT /F1 12 Tf 72 700 Td (New text) Tj ET"))
	x := b.Len()
	fmt.Fprintf(&b, "xref\n4 1\n%010d 00000 n \ntrailer\n<< /Size 5 /Root 1 0 R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", off, prevOff, x)
	lazy, full := openBoth(t, b.Bytes())
	if _, ok := lazy.objs.(*lazyObjects); !ok {
		t.Fatal("the lazy reader refused an intact incremental update")
	}
	for name, d := range map[string]*Document{"lazy": lazy, "full": full} {
		if got := documentText(t, d); !strings.Contains(got, "New text") || strings.Contains(got, "Old text") {
			t.Errorf("%s reader: %q, want the updated content", name, got)
		}
	}
}

// A file whose table offsets are stale (bytes inserted after writing) goes to the full reader,
// which repairs it.
func TestStaleOffsetsFallBack(t *testing.T) {
	data := onePage("<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>",
		"BT /F1 12 Tf 72 700 Td (Shifted) Tj ET")
	data = bytes.Replace(data, []byte("%PDF-1.7\n"), []byte("%PDF-1.7\n% a comment inserted later\n"), 1)
	if _, err := openLazy(context.Background(), data); err == nil {
		t.Fatal("the lazy reader accepted stale offsets")
	}
	d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if got := documentText(t, d); !strings.Contains(got, "Shifted") {
		t.Errorf("text %q", got)
	}
}

// A stream whose /Length is wrong ends at its endstream keyword, as readers tolerate.
func TestWrongStreamLength(t *testing.T) {
	content := "BT /F1 12 Tf 72 700 Td (Length is wrong) Tj ET"
	data := buildPDF(
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content)+40, content),
	)
	lazy, _ := openBoth(t, data)
	if got := documentText(t, lazy); !strings.Contains(got, "Length is wrong") {
		t.Errorf("text %q", got)
	}
}

// A hybrid-reference file (PDF 1.5 §7.5.8.4): the classic table lists an object that lives in an
// object stream as free, and the trailer's /XRefStm stream says where it is.
func TestHybridReferenceFile(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	offs := map[int]int{}
	obj := func(n int, body string) {
		offs[n] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", n, body)
	}
	obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 600 800] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents 4 0 R >>")
	obj(4, stream("", "BT /F1 12 Tf 72 700 Td (Hybrid file) Tj ET"))
	pages := "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"
	obj(5, stream("/Type /ObjStm /N 1 /First 4", "2 0 "+pages))
	obj(6, stream("/Type /XRef /Size 7 /W [1 2 1] /Index [2 1]", "\x02\x00\x05\x00"))
	x := b.Len()
	fmt.Fprintf(&b, "xref\n0 7\n0000000000 65535 f \n%010d 00000 n \n0000000000 00000 f \n", offs[1])
	for n := 3; n <= 6; n++ {
		fmt.Fprintf(&b, "%010d 00000 n \n", offs[n])
	}
	fmt.Fprintf(&b, "trailer\n<< /Size 7 /Root 1 0 R /XRefStm %d >>\nstartxref\n%d\n%%%%EOF\n", offs[6], x)
	data := b.Bytes()
	lazy, err := open(context.Background(), data, data[:1024], false)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := lazy.objs.(*lazyObjects); !ok {
		t.Fatal("the lazy reader refused a hybrid-reference file")
	}
	if got := documentText(t, lazy); !strings.Contains(got, "Hybrid file") {
		t.Errorf("text %q", got)
	}
}

// A recycled page's memory serves the next page without changing what it reads.
func TestRecycle(t *testing.T) {
	data, err := os.ReadFile("../testdata/reference/docs/multi-column-2p.pdf")
	if err != nil {
		t.Fatal(err)
	}
	fresh, recycled := openBoth(t, data)
	want, err := fresh.Page(context.Background(), 2, DefaultLAParams())
	if err != nil {
		t.Fatal(err)
	}
	p1, err := recycled.Page(context.Background(), 1, DefaultLAParams())
	if err != nil {
		t.Fatal(err)
	}
	recycled.Recycle(p1)
	if p1.Glyphs != nil || p1.Boxes != nil {
		t.Error("a recycled page keeps its contents")
	}
	got, err := recycled.Page(context.Background(), 2, DefaultLAParams())
	if err != nil {
		t.Fatal(err)
	}
	if g, w := strings.Join(boxTexts(got), "\n"), strings.Join(boxTexts(want), "\n"); g != w || len(got.Glyphs) != len(want.Glyphs) {
		t.Errorf("page 2 after recycling page 1 differs:\n%s\nwant:\n%s", g, w)
	}
}
