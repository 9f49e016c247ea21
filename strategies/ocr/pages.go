//go:build cgo

package ocr

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/pdf"
	"github.com/quarrydocs/quarry/plugins/sdk"
	"github.com/quarrydocs/quarry/strategies/fast"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// source yields the page images of one document.
type source interface {
	// count is the number of pages.
	count() int
	// render returns page n (1-based) as a grey image.
	render(ctx context.Context, n int) (pageImage, error)
	close()
}

// openSource prepares doc's pages: PDF pages rendered by pdftoppm, image frames decoded.
func openSource(ctx context.Context, doc *contract.Document, dpi int) (source, *pdf.Document, error) {
	data, err := doc.Bytes()
	if err != nil {
		return nil, nil, fmt.Errorf("ocr: read document: %w", err)
	}
	switch doc.MIMEType {
	case "application/pdf":
		// The parse is shared with the precheck and the text-layer router when they ran in
		// this process (fast.Open memoises it on the document).
		d, err := fast.Open(ctx, doc)
		if err != nil {
			return nil, nil, err
		}
		s, err := newPDFSource(doc, data, d, dpi)
		return s, d, err
	case "image/heic":
		// heif-convert decodes the whole picture (and writes it whole as PNG) before it can
		// be read reduced: the size its header declares is checked first.
		if err := checkHEIC(data); err != nil {
			return nil, nil, &contract.Error{Kind: contract.KindUnprocessable, Msg: "Unable to read HEIC image: " + err.Error(), Err: err}
		}
		png, err := heicToPNG(ctx, data)
		if err != nil {
			return nil, nil, err
		}
		return &imageSource{data: png, frames: 1, single: true}, nil, nil
	case "image/tiff":
		n, err := tiffFrames(data)
		if err != nil || n < 1 {
			return nil, nil, &contract.Error{Kind: contract.KindUnprocessable, Msg: "Unable to read TIFF image", Err: err}
		}
		return &imageSource{data: data, frames: n}, nil, nil
	}
	return &imageSource{data: data, frames: 1, single: true}, nil, nil
}

// pageImage is a page as OCR reads it.
type pageImage struct {
	img *image.Gray
	// scale is the pixels per PDF point of a rendered PDF page; 0 for images, which have no
	// point space.
	scale float64
	// shrink is the factor an image was reduced by to fit scan.MaxRenderPixels (1: read as
	// it is): img's pixel (x, y) is the image's (shrink·x, shrink·y).
	shrink int
}

type imageSource struct {
	data   []byte
	frames int
	single bool
}

func (s *imageSource) count() int { return s.frames }

func (s *imageSource) close() {}

func (s *imageSource) render(_ context.Context, n int) (pageImage, error) {
	frame := n - 1
	if s.single {
		frame = -1
	}
	// An image larger than a PDF page may be rendered (a 600 DPI poster scan, a panorama:
	// up to scan.MaxPixels) is read at the resolution that fits, as such a PDF page is: the
	// recognisers' copies and Tesseract's working memory then follow the bound, not the
	// file, and the boxes are mapped back to the image's own pixels.
	img, k, err := decodeGreyFit(s.data, frame, scan.MaxRenderPixels)
	if err != nil {
		where := ""
		if s.frames > 1 {
			where = fmt.Sprintf(" (page %d of %d)", n, s.frames)
		}
		return pageImage{}, &contract.Error{Kind: contract.KindUnprocessable, Msg: "Unable to read image" + where + ": " + err.Error(), Err: err}
	}
	return pageImage{img: img, shrink: k}, nil
}

// pdfSource renders pages with poppler's pdftoppm, one subprocess per page so pages render in
// parallel with recognition.
type pdfSource struct {
	path string
	tmp  string
	doc  *pdf.Document
	dpi  int
}

func newPDFSource(doc *contract.Document, data []byte, d *pdf.Document, dpi int) (*pdfSource, error) {
	s := &pdfSource{doc: d, dpi: dpi}
	if f, ok := doc.Content.(*os.File); ok {
		s.path = f.Name()
		return s, nil
	}
	f, err := os.CreateTemp("", "quarry-ocr-*.pdf")
	if err != nil {
		return nil, fmt.Errorf("ocr: temp file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("ocr: temp file: %w", err)
	}
	f.Close()
	s.path, s.tmp = f.Name(), f.Name()
	return s, nil
}

func (s *pdfSource) count() int { return s.doc.NumPages() }

func (s *pdfSource) close() {
	if s.tmp != "" {
		os.Remove(s.tmp)
	}
}

func (s *pdfSource) render(ctx context.Context, n int) (pageImage, error) {
	num := strconv.Itoa(n)
	dpi := s.dpi
	var out, stderr bytes.Buffer
	// Room for the whole greymap up front: grown by doubling, a 300 DPI page (8 MB) would be
	// copied several times on its way in. The media box is a guess (pdftoppm renders the crop
	// box), so the buffer may still grow or be a little large. A page too large for
	// scan.MaxRenderPixels at this resolution (a poster, a bogus media box) is rendered at the
	// resolution that fits rather than refused or rendered at gigapixels.
	if w, h := s.doc.PageSize(n); w > 0 && h > 0 {
		dpi = scan.FitDPI(dpi, w, h, scan.MaxRenderPixels)
		out.Grow(int(scan.RenderPixels(dpi, w, h)) + 64)
	}
	limit := sdk.ConverterMemory(renderMemory)
	cmd := sdk.LimitedCommand(ctx, limit, "pdftoppm", "-gray", "-r", strconv.Itoa(dpi), "-f", num, "-l", num, s.path)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if sdk.OutOfMemory(stderr.String()) && ctx.Err() == nil {
		// pdftoppm may exit 0 after "Out of memory", having written nothing or a part.
		return pageImage{}, fmt.Errorf("ocr: page %d: %w", n, sdk.MemoryError("pdftoppm", limit))
	}
	if err != nil {
		if ctx.Err() != nil {
			return pageImage{}, ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return pageImage{}, fmt.Errorf("ocr: pdftoppm page %d: %s", n, firstLine(stderr.String()))
		}
		return pageImage{}, fmt.Errorf("ocr: pdftoppm (install poppler-utils): %w", err)
	}
	img, err := scan.ParsePGM(out.Bytes())
	if err != nil {
		return pageImage{}, &contract.Error{Kind: contract.KindUnprocessable, Msg: fmt.Sprintf("Unable to read page %d: %v", n, err), Err: err}
	}
	return pageImage{img: img, scale: float64(dpi) / 72, shrink: 1}, nil
}

// Converters' memory limits (sdk.LimitedCommand; QUARRY_CONVERTER_MEMORY_MB overrides both).
// pdftoppm renders at most scan.MaxRenderPixels of grey (its bitmap and the PGM it writes:
// about 2 bytes a pixel, ≈ 320 MB); heif-convert decodes at most as many pixels whole
// (checkHEIC), about 8 bytes a pixel between its planes and the PNG (≈ 1.2 GB).
const (
	renderMemory = 1 << 30
	heicMemory   = 2 << 30
)

// checkHEIC refuses a HEIC image whose header declares more than one page's worth of pixels
// (scan.MaxRenderPixels): heif-convert has no reduced decode, so a larger one would be held at
// full size in colour (4 bytes a pixel) and written whole as PNG.
func checkHEIC(data []byte) error {
	if err := scan.CheckSize(data, -1); err != nil {
		return err
	}
	w, h, ok := scan.ImageSize(data, -1)
	if ok && int64(w)*int64(h) > scan.MaxRenderPixels {
		return fmt.Errorf("%w: %d × %d pixels, which heif-convert decodes whole: more than the %d-megapixel limit for images not read reduced; save it as JPEG or PNG",
			scan.ErrTooLarge, w, h, scan.MaxRenderPixels>>20)
	}
	return nil
}

// heicToPNG converts HEIC with libheif's heif-convert (Debian libheif-examples) in a
// subprocess: HEVC decoding stays out of this process.
func heicToPNG(ctx context.Context, data []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "quarry-heic-")
	if err != nil {
		return nil, fmt.Errorf("ocr: temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "in.heic"), filepath.Join(dir, "out.png")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, fmt.Errorf("ocr: temp file: %w", err)
	}
	limit := sdk.ConverterMemory(heicMemory)
	cmd := sdk.LimitedCommand(ctx, limit, "heif-convert", in, out)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if sdk.OutOfMemory(stderr.String()) {
			return nil, fmt.Errorf("ocr: HEIC image: %w", sdk.MemoryError("heif-convert", limit))
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, &contract.Error{Kind: contract.KindUnprocessable, Msg: "Unable to read HEIC image: " + firstLine(stderr.String()), Err: err}
		}
		return nil, fmt.Errorf("ocr: heif-convert (install libheif-examples): %w", err)
	}
	// heif-convert names extra images out-1.png, out-2.png; the primary image is out.png or
	// out-1.png depending on the version.
	for _, name := range []string{out, filepath.Join(dir, "out-1.png")} {
		if b, err := os.ReadFile(name); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("ocr: heif-convert wrote no image")
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
