package vlm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	_ "image/gif" // decoders for the image inputs the reference accepts
	"image/jpeg"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/image/draw"

	_ "golang.org/x/image/bmp"
	_ "golang.org/x/image/tiff"
	_ "golang.org/x/image/webp"

	"github.com/quarrydocs/quarry/strategies/vlm/provider"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/plugins/sdk"
)

// imageLimits is what a provider accepts for one image. Larger images are downscaled by the
// provider anyway (costing tokens for nothing) or rejected, so they are shrunk here first.
type imageLimits struct {
	MaxSide  int // longest side in pixels
	MaxBytes int // encoded size
}

func limitsFor(prov, model string) imageLimits {
	switch prov {
	case provider.OpenAI, provider.AzureOpenAI:
		// High-detail images are fitted into 2048×2048 before tiling; 20 MB per image.
		return imageLimits{MaxSide: 2048, MaxBytes: 20 << 20}
	case provider.Anthropic:
		// Claude resizes anything over 1568 px on the long edge; 5 MB per image.
		return imageLimits{MaxSide: 1568, MaxBytes: 5 << 20}
	case provider.AnthropicBedrock:
		return imageLimits{MaxSide: 1568, MaxBytes: 3_750_000}
	case provider.Bedrock:
		// Converse accepts 3.75 MB per image; Claude models on it still resize at 1568 px.
		if strings.Contains(model, "anthropic") {
			return imageLimits{MaxSide: 1568, MaxBytes: 3_750_000}
		}
		return imageLimits{MaxSide: 2048, MaxBytes: 3_750_000}
	case provider.Google, provider.VertexAI:
		// Inline data is limited to 7 MB on Vertex AI (20 MB per request on the Gemini API).
		return imageLimits{MaxSide: 3072, MaxBytes: 7 << 20}
	}
	return imageLimits{MaxSide: 2048, MaxBytes: 5 << 20}
}

// maxPixels guards decoding: an image header can claim gigapixels in a few bytes.
const maxPixels = 12000 * 12000

// pdftoppm is poppler's renderer, looked up on PATH.
const pdftoppm = "pdftoppm"

// Converters' memory limits (sdk.LimitedCommand; QUARRY_CONVERTER_MEMORY_MB overrides both).
// pdftoppm renders at most MaxSide (3,072 px) square here, some 30 MB of RGB; heif-convert
// decodes a HEIC whole, about 8 bytes a pixel between its planes and the PNG it writes (a
// 150-megapixel photo ≈ 1.2 GB), under the plugin's 4 GB.
const (
	renderMemory = 512 << 20
	heicMemory   = 2 << 30
)

// renderTimeout bounds one page render: a pathological page must not hang a request.
const renderTimeout = 2 * time.Minute

// renderPage renders page n (1-based) of the PDF at path as PNG at dpi, fitted into the
// provider's limits. widthPt and heightPt are the page's size in points.
func renderPage(ctx context.Context, path string, n int, dpi float64, widthPt, heightPt float64, lim imageLimits) (provider.Image, error) {
	ctx, cancel := context.WithTimeout(ctx, renderTimeout)
	defer cancel()
	args := []string{"-png", "-r", strconv.FormatFloat(dpi, 'f', -1, 64), "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), "-singlefile"}
	if long := max(widthPt, heightPt) * dpi / 72; long > float64(lim.MaxSide) || long <= 0 {
		args = append(args, "-scale-to", strconv.Itoa(lim.MaxSide))
	}
	args = append(args, path)
	// The renderer dies with this process (parent-death signal), in the server too.
	limit := sdk.ConverterMemory(renderMemory)
	cmd := sdk.LimitedCommand(ctx, limit, pdftoppm, args...)
	cmd.WaitDelay = 5 * time.Second
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err := cmd.Run()
	if sdk.OutOfMemory(stderr.String()) {
		// pdftoppm may exit 0 after "Out of memory", having written nothing or a part.
		return provider.Image{}, fmt.Errorf("vlm: render page %d: %w", n, sdk.MemoryError(pdftoppm, limit))
	}
	if err != nil {
		if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return provider.Image{}, ctx.Err()
		}
		var ee *exec.Error
		if errors.As(err, &ee) {
			return provider.Image{}, fmt.Errorf("vlm: render page %d: %w (install poppler-utils)", n, err)
		}
		return provider.Image{}, fmt.Errorf("vlm: render page %d: %w: %s", n, err, strings.TrimSpace(lastLine(stderr.String())))
	}
	if out.Len() == 0 {
		return provider.Image{}, fmt.Errorf("vlm: render page %d: pdftoppm produced no image", n)
	}
	return fit(provider.Image{Data: out.Bytes(), MIME: "image/png"}, lim)
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// sendable are the image types every provider accepts as they are.
func sendable(mime string) bool {
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return true
	}
	return false
}

// prepareImage turns an uploaded image into one the provider accepts: sent as it is when its
// type and size allow, else decoded, downscaled and re-encoded.
func prepareImage(ctx context.Context, data []byte, mime string, lim imageLimits) (provider.Image, error) {
	if mime == "image/heic" {
		png, err := heicToPNG(ctx, data)
		if err != nil {
			return provider.Image{}, err
		}
		data, mime = png, "image/png"
	}
	return fit(provider.Image{Data: data, MIME: mime}, lim)
}

// heicToPNG decodes HEIC (an HEVC still image, which no provider takes and Go cannot decode)
// with libheif's heif-convert in a subprocess.
func heicToPNG(ctx context.Context, data []byte) ([]byte, error) {
	dir, err := os.MkdirTemp("", "quarry-vlm-heic-")
	if err != nil {
		return nil, fmt.Errorf("vlm: temporary directory: %w", err)
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "page.heic"), filepath.Join(dir, "page.png")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, fmt.Errorf("vlm: temporary file: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, renderTimeout)
	defer cancel()
	limit := sdk.ConverterMemory(heicMemory)
	cmd := sdk.LimitedCommand(ctx, limit, "heif-convert", in, out)
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		switch {
		case errors.Is(ctx.Err(), context.Canceled):
			return nil, ctx.Err()
		case sdk.OutOfMemory(stderr.String()):
			return nil, fmt.Errorf("vlm: HEIC image: %w", sdk.MemoryError("heif-convert", limit))
		case errors.As(err, &ee):
			return nil, contract.Errorf(contract.KindUnprocessable, "vlm: cannot read the HEIC image: %s", lastLine(stderr.String()))
		}
		return nil, fmt.Errorf("vlm: heif-convert (install libheif-examples): %w", err)
	}
	// Depending on its version heif-convert writes the primary image as page.png or page-1.png.
	for _, name := range []string{out, filepath.Join(dir, "page-1.png")} {
		if b, err := os.ReadFile(name); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("vlm: heif-convert wrote no image")
}

// fit returns img unchanged when it is within lim, else a re-encoded version that is.
func fit(img provider.Image, lim imageLimits) (provider.Image, error) {
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		return provider.Image{}, contract.Errorf(contract.KindUnprocessable, "vlm: cannot read the image: %v", err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels {
		return provider.Image{}, contract.Errorf(contract.KindUnprocessable, "vlm: image of %dx%d pixels is too large", cfg.Width, cfg.Height)
	}
	mime := "image/" + format
	if sendable(mime) && max(cfg.Width, cfg.Height) <= lim.MaxSide && len(img.Data) <= lim.MaxBytes {
		return provider.Image{Data: img.Data, MIME: mime}, nil
	}
	src, err := decodeBounded(img.Data, cfg, format, lim.MaxSide)
	if err != nil {
		return provider.Image{}, err
	}
	side := min(lim.MaxSide, max(cfg.Width, cfg.Height))
	for attempt := 0; attempt < 8; attempt++ {
		scaled := scale(src, side)
		var buf bytes.Buffer
		if err := png.Encode(&buf, scaled); err != nil {
			return provider.Image{}, fmt.Errorf("vlm: encode PNG: %w", err)
		}
		if buf.Len() <= lim.MaxBytes {
			return provider.Image{Data: buf.Bytes(), MIME: "image/png"}, nil
		}
		// Photographs and dense scans compress far better as JPEG, at no cost to legibility.
		buf.Reset()
		if err := jpeg.Encode(&buf, flatten(scaled), &jpeg.Options{Quality: 85}); err != nil {
			return provider.Image{}, fmt.Errorf("vlm: encode JPEG: %w", err)
		}
		if buf.Len() <= lim.MaxBytes {
			return provider.Image{Data: buf.Bytes(), MIME: "image/jpeg"}, nil
		}
		side = side * 3 / 4
	}
	return provider.Image{}, contract.Errorf(contract.KindUnprocessable, "vlm: the image cannot be made smaller than %d bytes", lim.MaxBytes)
}

// decodeBudget bounds the memory a full decode may take (the decoder's raster, and a
// progressive JPEG's coefficients): past it an image is refused rather than decoded to be
// thrown away after downscaling. A non-interlaced PNG is never decoded whole (pngReduced).
const decodeBudget = 256 << 20

// decodeBounded decodes data (of header cfg and format) for downscaling to side: a
// non-interlaced PNG a row at a time, reduced by the whole factor that leaves it between side
// and twice side; any other image whole, when its decoder's memory stays within decodeBudget.
func decodeBounded(data []byte, cfg image.Config, format string, side int) (image.Image, error) {
	if format == "png" {
		f := max(1, max(cfg.Width, cfg.Height)/max(side, 1))
		img, ok, err := pngReduced(data, f)
		if err != nil {
			return nil, contract.Errorf(contract.KindUnprocessable, "vlm: cannot decode the PNG image: %v", err)
		}
		if ok {
			return img, nil
		}
	}
	if need := decodeBytes(data, cfg, format); need > decodeBudget {
		return nil, contract.Errorf(contract.KindUnprocessable,
			"vlm: the %s image of %d × %d pixels would take %d MB to decode, more than the %d MB allowed for an image that is not read reduced; send it smaller, or as a non-interlaced PNG",
			strings.ToUpper(format), cfg.Width, cfg.Height, need>>20, decodeBudget>>20)
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "vlm: cannot decode the image: %v", err)
	}
	return src, nil
}

// decodeBytes estimates what Go's decoder allocates for an image: its raster at the colour
// model's bytes a pixel (YCbCr counted unsubsampled, the worst case), and for a progressive
// JPEG the coefficients it keeps until the last scan (an int32 each, a 4-byte per pixel per
// component).
func decodeBytes(data []byte, cfg image.Config, format string) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	var per int64
	switch cfg.ColorModel {
	case color.GrayModel, color.AlphaModel, color.Alpha16Model:
		per = 1
	case color.Gray16Model:
		per = 2
	case color.YCbCrModel:
		per = 3
	case color.RGBA64Model, color.NRGBA64Model:
		per = 8
	default:
		if _, ok := cfg.ColorModel.(color.Palette); ok {
			per = 1
		} else {
			per = 4
		}
	}
	if format == "jpeg" {
		if comps, progressive := jpegScan(data); progressive {
			per += 4 * int64(comps)
		}
	}
	return px * per
}

// jpegScan reads a JPEG's frame header: its component count, and whether it is progressive
// (SOF2, or SOF6/SOF10/SOF14).
func jpegScan(data []byte) (comps int, progressive bool) {
	for p := 2; p+4 <= len(data); {
		if data[p] != 0xff {
			return 0, false
		}
		m := data[p+1]
		if m == 0xff { // fill byte
			p++
			continue
		}
		if m == 0xd8 || (m >= 0xd0 && m <= 0xd7) || m == 0x01 {
			p += 2
			continue
		}
		n := int(data[p+2])<<8 | int(data[p+3])
		if m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc {
			if p+9 < len(data) {
				comps = int(data[p+9])
			}
			return comps, m == 0xc2 || m == 0xc6 || m == 0xca || m == 0xce
		}
		if m == 0xda || n < 2 {
			return 0, false
		}
		p += 2 + n
	}
	return 0, false
}

// scale fits src into a side×side box, keeping its aspect ratio.
func scale(src image.Image, side int) image.Image {
	b := src.Bounds()
	w, h := b.Dx(), b.Dy()
	if max(w, h) <= side {
		return src
	}
	if w >= h {
		h, w = max(1, h*side/w), side
	} else {
		w, h = max(1, w*side/h), side
	}
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	// Catmull-Rom scales in two passes through a buffer of the destination's width by the
	// source's height at 32 bytes a pixel (300 MB for a 6,000-row source to 1,568 px). When
	// that is over scaleBuffer and the source is under twice the destination (a PNG
	// decodeBounded reduced, a large side for Gemini) the approximate bilinear filter, which
	// has none, loses little and does.
	if int64(w)*int64(b.Dy())*32 > scaleBuffer && max(b.Dx(), b.Dy()) < 2*side {
		draw.ApproxBiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		return dst
	}
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
	return dst
}

// scaleBuffer bounds Catmull-Rom's intermediate buffer (see scale).
const scaleBuffer = 64 << 20

// flatten paints src on white: JPEG has no alpha, and transparent pixels would turn black.
func flatten(src image.Image) image.Image {
	b := src.Bounds()
	dst := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(dst, dst.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	draw.Draw(dst, dst.Bounds(), src, b.Min, draw.Over)
	return dst
}

// writeTemp stores data in a temporary file for pdftoppm, which reads a path.
func writeTemp(data []byte) (string, error) {
	f, err := os.CreateTemp("", "quarry-vlm-*.pdf")
	if err != nil {
		return "", fmt.Errorf("vlm: temporary file: %w", err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("vlm: temporary file: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("vlm: temporary file: %w", err)
	}
	return f.Name(), nil
}
