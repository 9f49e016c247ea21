package auto

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"image/jpeg"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/internal/childproc"
	"github.com/quarrydocs/quarry/pdf"
)

// Crops of the rendered page, for the elements extract_image_block_types asks for whose
// pixels the PDF does not hand over as they are: tables and vector figures (which have none),
// and pictures the image decoder refuses (JPEG 2000, JBIG2, over its pixel bound, damaged
// streams). The reference crops every such element from the page it renders (a JPEG), so
// this is its behaviour too, with poppler's pdftoppm rendering only the element's box.
const (
	// cropDPI is the resolution the reference renders PDF pages at for its crops
	// (pdf_image_dpi).
	cropDPI = 200
	// maxCropPixels bounds one crop; a larger box (a poster page) is rendered at the
	// resolution that fits, checked before pdftoppm starts.
	maxCropPixels = 25 << 20
	// cropTimeout bounds one render (a page of a million path segments renders slowly).
	cropTimeout = 20 * time.Second
	// cropBudget bounds the rendering of one document; crops past it are not made, and the
	// warning says so.
	cropBudget = 2 * time.Minute
	// cropMemory is the renderer's memory limit (RLIMIT_DATA, by prlimit).
	cropMemory = 512 << 20
	// maxCropBytes bounds the JPEG read back.
	maxCropBytes = 64 << 20
)

// pdftoppmBin is poppler's renderer (poppler-utils, a run-time dependency: scripts/deps.sh).
const pdftoppmBin = "pdftoppm"

// cropper renders element boxes of one document.
type cropper struct {
	doc   *contract.Document
	path  string // the PDF on disk, written on first use when the document is in memory
	tmp   string // the temporary copy to remove, if any
	spent time.Duration
	// bin is the renderer and timeout and budget its bounds (pdftoppmBin, cropTimeout,
	// cropBudget; a test points them elsewhere).
	bin             string
	timeout, budget time.Duration
	// overBudget counts the crops not made once the budget was spent: warned once, on the
	// first, and counted in close's summary rather than one warning per element.
	overBudget int
}

// errOverBudget is crop's refusal once the document's rendering budget is spent.
var errOverBudget = errors.New("the document's rendering budget is spent")

func newCropper(doc *contract.Document) *cropper {
	return &cropper{doc: doc, bin: pdftoppmBin, timeout: cropTimeout, budget: cropBudget}
}

// summary warns, once per document, how many elements went without image_base64 because the
// rendering budget was spent (the first of them was warned about with its page).
func (c *cropper) summary(ctx context.Context) {
	if c.overBudget > 1 {
		contract.Logger(ctx).Warn("hi_res: elements left without image_base64, the document's rendering budget spent",
			"elements", c.overBudget, "budget", c.budget)
	}
}

// close removes the temporary copy of the document.
func (c *cropper) close() {
	if c.tmp != "" {
		os.Remove(c.tmp)
		c.tmp = ""
	}
}

// file returns a path pdftoppm can read the document from.
func (c *cropper) file() (string, error) {
	if c.path != "" {
		return c.path, nil
	}
	if f, ok := c.doc.Content.(*os.File); ok {
		c.path = f.Name()
		return c.path, nil
	}
	f, err := os.CreateTemp("", "quarry-crop-*.pdf")
	if err != nil {
		return "", fmt.Errorf("temporary copy: %w", err)
	}
	_, err = io.Copy(f, c.doc.Reader())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("temporary copy: %w", err)
	}
	c.path, c.tmp = f.Name(), f.Name()
	return c.path, nil
}

// cropBox returns the box, in pixels at the returned resolution, that pdftoppm renders for the
// element box (points, top-left origin) of a page w x h points: at cropDPI unless the crop
// would pass maxCropPixels, the box cut to the page. ok is false for a box with no area on the
// page.
func cropBox(x0, y0, x1, y1, w, h float64) (dpi, x, y, cw, ch int, ok bool) {
	x0, y0 = max(x0, 0), max(y0, 0)
	x1, y1 = min(x1, w), min(y1, h)
	if !(x1 > x0 && y1 > y0) {
		return 0, 0, 0, 0, 0, false
	}
	dpi = cropDPI
	if px := (x1 - x0) * (y1 - y0) * cropDPI * cropDPI / (72 * 72); px > maxCropPixels {
		dpi = max(1, int(math.Floor(cropDPI*math.Sqrt(maxCropPixels/px))))
	}
	s := float64(dpi) / 72
	x, y = int(math.Floor(x0*s)), int(math.Floor(y0*s))
	cw, ch = int(math.Ceil(x1*s))-x, int(math.Ceil(y1*s))-y
	if cw < 1 || ch < 1 {
		return 0, 0, 0, 0, 0, false
	}
	return dpi, x, y, cw, ch, true
}

// shownBox maps a box (points, top-left origin) of a page the layout turned by quadrant q
// (pdf.Page.TurnUpright: 1 a quarter turn clockwise, 2 a half turn, 3 counter-clockwise) back
// to the page as shown, w x h points after /Rotate, as pdftoppm draws it.
func shownBox(q uint8, w, h, x0, y0, x1, y1 float64) (float64, float64, float64, float64) {
	if q == 0 {
		return x0, y0, x1, y1
	}
	ht := h // the turned frame's height
	if q%2 == 1 {
		ht = w
	}
	// PDF coordinates (bottom-left origin) of the turned frame, then TurnUpright's map undone.
	un := func(x, y float64) (float64, float64) {
		switch q {
		case 1:
			return w - y, x
		case 3:
			return y, h - x
		}
		return w - x, h - y
	}
	ax, ay := un(x0, ht-y1)
	bx, by := un(x1, ht-y0)
	return min(ax, bx), h - max(ay, by), max(ax, bx), h - min(ay, by)
}

// crop renders element e's box on page n as a JPEG: the box is in the frame of a page the
// layout turned by q, the page as shown is w x h points. note is what the renderer said on
// stderr (a damaged image it drew as far as it could), for the warning.
func (c *cropper) crop(ctx context.Context, n int, e element.Element, q uint8, w, h float64) (data []byte, note string, err error) {
	co := e.Metadata.Coordinates
	if co == nil || len(co.Points) == 0 {
		return nil, "", errors.New("no coordinates")
	}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range co.Points {
		x0, y0, x1, y1 = min(x0, p[0]), min(y0, p[1]), max(x1, p[0]), max(y1, p[1])
	}
	x0, y0, x1, y1 = shownBox(q, w, h, x0, y0, x1, y1)
	dpi, x, y, cw, ch, ok := cropBox(x0, y0, x1, y1, w, h)
	if !ok {
		return nil, "", errors.New("the box has no area on the page")
	}
	if c.spent >= c.budget {
		return nil, "", fmt.Errorf("%w (%v)", errOverBudget, c.budget)
	}
	bin, err := exec.LookPath(c.bin)
	if err != nil {
		return nil, "", fmt.Errorf("%s not found (install poppler-utils): %w", c.bin, err)
	}
	path, err := c.file()
	if err != nil {
		return nil, "", err
	}
	limit := min(c.timeout, c.budget-c.spent)
	rctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	start := time.Now()
	defer func() { c.spent += time.Since(start) }()
	num := strconv.Itoa(n)
	name, args := childproc.Limited(cropMemory, 1<<30, bin,
		"-f", num, "-l", num, "-r", strconv.Itoa(dpi),
		"-x", strconv.Itoa(x), "-y", strconv.Itoa(y), "-W", strconv.Itoa(cw), "-H", strconv.Itoa(ch),
		"-jpeg", "-jpegopt", "quality=90", path)
	cmd := exec.CommandContext(rctx, name, args...)
	cmd.Env = childproc.ConverterEnviron() // it renders untrusted bytes: no credentials
	childproc.DieWithParent(cmd)
	cmd.WaitDelay = time.Second // a grandchild holding the pipes must not outlast the deadline
	var out, stderr capped
	out.n, stderr.n = maxCropBytes, 4096
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		switch {
		case ctx.Err() != nil:
			return nil, "", ctx.Err()
		case rctx.Err() != nil:
			return nil, "", fmt.Errorf("rendering took over %v", limit)
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, "", fmt.Errorf("pdftoppm: %s (%w)", firstLine(stderr.b.String()), err)
		}
		return nil, "", fmt.Errorf("pdftoppm: %w", err)
	}
	if out.over {
		return nil, "", fmt.Errorf("the rendered crop is over %d bytes", maxCropBytes)
	}
	if _, err := jpeg.DecodeConfig(bytes.NewReader(out.b.Bytes())); err != nil {
		return nil, "", fmt.Errorf("pdftoppm wrote no JPEG: %w", err)
	}
	return out.b.Bytes(), firstLine(stderr.b.String()), nil
}

// capped keeps the first n bytes written to it and notes whether more came.
type capped struct {
	b    bytes.Buffer
	n    int
	over bool
}

func (c *capped) Write(p []byte) (int, error) {
	if k := min(len(p), c.n-c.b.Len()); k > 0 {
		c.b.Write(p[:k])
	}
	if c.b.Len()+len(p) > c.n {
		c.over = true
	}
	return len(p), nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// fillCrops gives the elements of page n (laid out turned by q; w x h points as shown) that
// extract asks for and that have no image_base64 yet a crop of the rendered page, and warns, naming the page, the element and the reason, for
// each it cannot give one. refused holds why the image decoder refused the pictures of the
// page (for the warning: a picture rendered instead of handed on loses its own resolution).
func (c *cropper) fillCrops(ctx context.Context, n int, els []element.Element, extract map[element.Type]bool, q uint8, w, h float64, refused []error) error {
	log := contract.Logger(ctx)
	for i := range els {
		e := &els[i]
		if !extract[e.Type] || e.Metadata.ImageBase64 != "" {
			continue
		}
		b, note, err := c.crop(ctx, n, *e, q, w, h)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if errors.Is(err, errOverBudget) {
			if c.overBudget++; c.overBudget > 1 {
				continue
			}
		}
		if err != nil {
			args := []any{"page", n, "type", e.Type, "reason", err}
			if e.Type == element.Image && len(refused) > 0 {
				args = append(args, "image_error", errors.Join(refused...))
			}
			log.Warn("hi_res: element left without image_base64", args...)
			continue
		}
		if note != "" {
			log.Warn("hi_res: image_base64 rendered from a page the renderer found damaged", "page", n, "type", e.Type, "renderer", note)
		}
		e.Metadata.ImageBase64, e.Metadata.ImageMIMEType = base64.StdEncoding.EncodeToString(b), "image/jpeg"
	}
	var damaged []error
	for _, err := range refused {
		if errors.Is(err, pdf.ErrDamagedImage) {
			damaged = append(damaged, err)
		}
	}
	switch {
	case len(damaged) > 0:
		// Rendered, it shows what a viewer shows, which may be part of the picture or none.
		log.Warn("hi_res: damaged picture, image_base64 is the page as rendered", "page", n, "reasons", errors.Join(damaged...))
	case len(refused) > 0:
		log.Debug("hi_res: pictures the decoder refused were rendered instead", "page", n, "reasons", errors.Join(refused...))
	}
	return nil
}
