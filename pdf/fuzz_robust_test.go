package pdf

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFontPrograms feeds arbitrary bytes to the embedded-font readers (TrueType/OpenType cmap,
// bare CFF charset): they must never panic or loop.
func FuzzFontPrograms(f *testing.F) {
	if ttf, err := os.ReadFile("testdata/fonts/NotoSansHebrew-Regular.ttf"); err == nil {
		f.Add(ttf[:min(len(ttf), 4096)])
	}
	f.Add(cffProgram([]string{"H", "uni05D0", "f_i"}, [2]string{}))
	f.Add(cffProgram([]string{"a"}, [2]string{"Adobe", "Japan1"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		trueTypeUnicode(b)
		openTypeCFF(b)
		cffCharset(b)
	})
}

// FuzzOpenDamaged opens arbitrary files through every reader (lazy, pdfcpu, scan) and reads their
// first page; seeds are the robustness fixtures.
func FuzzOpenDamaged(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/robust/TestBrokenXref*.pdf")
	enc, _ := filepath.Glob("testdata/encrypted/direct-*.pdf")
	for _, s := range append(seeds, enc...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil || d.NumPages() == 0 {
			return
		}
		_, _ = d.Page(context.Background(), 1, DefaultLAParams())
	})
}
