package pdf

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"

	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// ImageFile returns image XObject ref (Image.Ref) as a file a client can show without
// rendering the page: a stream whose only filter is DCTDecode as the JPEG it is, any other
// image this package decodes (below) as PNG. The error says why an image is not handed on
// (a stencil mask, JPEG 2000 or JBIG2, an unknown colour space, a damaged or truncated
// stream, more than maxImageSamples pixels); it is for a warning, never a reason to fail
// the page.
func (d *Document) ImageFile(ref int) (mime string, data []byte, err error) {
	return d.encodedImage(ref, "image/png", func(w io.Writer, img image.Image) error {
		return (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(w, img)
	})
}

// encodedImage is ImageFile and ImageJPEG: a DCTDecode-only stream as the JPEG it is, any
// other image decoded and written by enc as mime.
func (d *Document) encodedImage(ref int, mime string, enc func(io.Writer, image.Image) error) (string, []byte, error) {
	sd, err := d.imageStream(ref)
	if err != nil {
		return "", nil, err
	}
	if len(sd.FilterPipeline) == 1 && sd.FilterPipeline[0].Name == "DCTDecode" {
		if err := checkJPEG(sd.Raw); err != nil {
			return "", nil, fmt.Errorf("pdf: image %d: DCTDecode stream: %w", ref, err)
		}
		return "image/jpeg", sd.Raw, nil
	}
	img, err := d.decodeImage(ref, sd)
	if err != nil {
		return "", nil, err
	}
	var buf bytes.Buffer
	if err := enc(&buf, img); err != nil {
		return "", nil, fmt.Errorf("pdf: image %d: %w", ref, err)
	}
	return mime, buf.Bytes(), nil
}

// ErrDamagedImage is wrapped by the refusals of ImageFile and ImageAsJPEG that come from the
// image's data (a truncated or damaged stream) rather than from what this package decodes (JPEG
// 2000, JBIG2, a colour space, the pixel bound): a picture a renderer too can show only in part.
var ErrDamagedImage = errors.New("damaged image data")

// checkJPEG refuses a DCT stream a client could not show: one that is not a JPEG file, whose
// header does not parse, that declares more than maxImageSamples pixels (handed on as it is, it
// would be a decompression bomb for the client), or that stops before its end-of-image marker
// (a truncated or cut stream). The entropy-coded data is not decoded: that would cost what the
// pass-through saves.
func checkJPEG(b []byte) error {
	if len(b) < 4 || b[0] != 0xFF || b[1] != 0xD8 {
		return fmt.Errorf("not a JPEG file: %w", ErrDamagedImage)
	}
	cfg, err := jpeg.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("damaged JPEG header: %v: %w", err, ErrDamagedImage)
	}
	if int64(cfg.Width)*int64(cfg.Height) > maxImageSamples {
		return fmt.Errorf("%d x %d pixels, over the %d-pixel bound", cfg.Width, cfg.Height, maxImageSamples)
	}
	// Writers may pad the stream after the marker (zeros, a newline).
	tail := bytes.TrimRight(b[max(0, len(b)-64):], "\x00\r\n\t ")
	if !bytes.HasSuffix(tail, []byte{0xFF, 0xD9}) {
		return fmt.Errorf("truncated, no end-of-image marker: %w", ErrDamagedImage)
	}
	return nil
}

// imageStream resolves ref to an image XObject's stream.
func (d *Document) imageStream(ref int) (types.StreamDict, error) {
	if ref <= 0 {
		return types.StreamDict{}, errors.New("pdf: inline image or direct object: no image to hand on")
	}
	sd, ok := d.resolve(*types.NewIndirectRef(ref, 0)).(types.StreamDict)
	if !ok || d.name(sd.Dict["Subtype"]) != "Image" {
		return types.StreamDict{}, fmt.Errorf("pdf: object %d is not an image XObject", ref)
	}
	return sd, nil
}

// colorSpace is an image colour space reduced to what decoding needs: the components per
// sample and, for Indexed, the palette as 8-bit RGB.
type colorSpace struct {
	comps   int // 1 gray, 3 RGB, 4 CMYK (or the index for Indexed)
	palette color.Palette
}

// imageColorSpace reads an image's /ColorSpace: the device spaces, CalGray/CalRGB, ICCBased
// (by its /N), and Indexed over any of these (lookup string or stream).
func (d *Document) imageColorSpace(o types.Object, depth int) (colorSpace, error) {
	if depth > 4 {
		return colorSpace{}, errors.New("colour space nested too deep")
	}
	o = d.resolve(o)
	name := ""
	var arr types.Array
	switch v := o.(type) {
	case types.Name:
		name = string(v)
	case types.Array:
		if len(v) == 0 {
			return colorSpace{}, errors.New("empty colour space array")
		}
		arr, name = v, d.name(v[0])
	case nil:
		return colorSpace{}, errors.New("no colour space")
	}
	switch name {
	case "DeviceGray", "CalGray", "G":
		return colorSpace{comps: 1}, nil
	case "DeviceRGB", "CalRGB", "RGB":
		return colorSpace{comps: 3}, nil
	case "DeviceCMYK", "CMYK":
		return colorSpace{comps: 4}, nil
	case "ICCBased":
		if len(arr) < 2 {
			break
		}
		sd, ok := d.resolve(arr[1]).(types.StreamDict)
		if !ok {
			break
		}
		if n, ok := d.number(sd.Dict["N"]); ok && (n == 1 || n == 3 || n == 4) {
			return colorSpace{comps: int(n)}, nil
		}
		if alt, ok := sd.Dict["Alternate"]; ok {
			return d.imageColorSpace(alt, depth+1)
		}
	case "Indexed", "I":
		if len(arr) < 4 {
			break
		}
		base, err := d.imageColorSpace(arr[1], depth+1)
		if err != nil || base.palette != nil {
			return colorSpace{}, fmt.Errorf("indexed colour space over an unsupported base: %v", err)
		}
		hival, _ := d.number(arr[2])
		n := int(hival) + 1
		if n < 1 || n > 256 {
			return colorSpace{}, fmt.Errorf("indexed colour space with hival %v", hival)
		}
		var lookup []byte
		if b, ok := d.stringBytes(arr[3]); ok {
			lookup = b
		} else if b, _, err := d.streamData(arr[3]); err == nil {
			lookup = b
		}
		if len(lookup) < n*base.comps {
			return colorSpace{}, errors.New("indexed colour space lookup table too short")
		}
		pal := make(color.Palette, n)
		for i := range pal {
			pal[i] = toRGBA(lookup[i*base.comps:(i+1)*base.comps], 255)
		}
		return colorSpace{comps: 1, palette: pal}, nil
	}
	return colorSpace{}, fmt.Errorf("unsupported colour space %q", name)
}

// toRGBA converts one pixel's 8-bit components (gray, RGB or CMYK) to opaque RGBA; max is
// the full-scale value of the components.
func toRGBA(c []byte, max int) color.RGBA {
	switch len(c) {
	case 1:
		return color.RGBA{c[0], c[0], c[0], 0xFF}
	case 3:
		return color.RGBA{c[0], c[1], c[2], 0xFF}
	default:
		// Naive CMYK (no profile): each ink takes its share of the light the black leaves.
		k := max - int(c[3])
		ch := func(v byte) uint8 { return uint8((max - int(v)) * k / max) }
		return color.RGBA{ch(c[0]), ch(c[1]), ch(c[2]), 0xFF}
	}
}

// decodeImage decodes an image XObject to an image: filters as pdfcpu decodes them (Flate
// and LZW with PNG or TIFF predictors, RunLength, ASCIIHex/85, CCITTFax), 1, 2, 4, 8 or 16
// bits per component, the colour spaces of imageColorSpace, a /Decode array (such as the
// [1 0] of an inverted 1-bit scan). At most maxImageSamples pixels, checked before anything
// is decoded; the decoded stream is bounded by the size the image declares.
func (d *Document) decodeImage(ref int, sd types.StreamDict) (img image.Image, err error) {
	defer func() {
		if r := recover(); r != nil {
			img, err = nil, fmt.Errorf("pdf: image %d: decoder failed: %v", ref, r)
		}
	}()
	bad := func(format string, a ...any) error {
		return fmt.Errorf("pdf: image %d: %s", ref, fmt.Sprintf(format, a...))
	}
	if b, ok := d.resolve(sd.Dict["ImageMask"]).(types.Boolean); ok && bool(b) {
		return nil, bad("a stencil mask, not a picture")
	}
	for _, f := range sd.FilterPipeline {
		switch f.Name {
		case "DCTDecode", "JPXDecode", "JBIG2Decode":
			return nil, bad("%s data is not decoded here", f.Name)
		}
	}
	w, _ := d.number(sd.Dict["Width"])
	h, _ := d.number(sd.Dict["Height"])
	W, H := int(w), int(h)
	if W <= 0 || H <= 0 || w != float64(W) || h != float64(H) {
		return nil, bad("size %v x %v", w, h)
	}
	if int64(W)*int64(H) > maxImageSamples {
		return nil, bad("%d x %d pixels, over the %d-pixel bound", W, H, maxImageSamples)
	}
	bpcF, _ := d.number(sd.Dict["BitsPerComponent"])
	bpc := int(bpcF)
	switch bpc {
	case 1, 2, 4, 8, 16:
	default:
		return nil, bad("%v bits per component", bpcF)
	}
	cs, err := d.imageColorSpace(sd.Dict["ColorSpace"], 0)
	if err != nil {
		return nil, bad("%v", err)
	}
	stride := (W*cs.comps*bpc + 7) / 8
	need := int64(stride) * int64(H)
	cp := sd
	data, err := cp.DecodeLengthWithLimit(-1, 2*need+int64(H)+4096)
	if err != nil && int64(len(data)) < need {
		return nil, fmt.Errorf("pdf: image %d: stream: %v: %w", ref, err, ErrDamagedImage)
	}
	if int64(len(data)) < need {
		return nil, fmt.Errorf("pdf: image %d: stream holds %d bytes, the image needs %d: %w", ref, len(data), need, ErrDamagedImage)
	}
	// The /Decode array maps a sample's range linearly; the default is [0 1] per component
	// ([0 2^bpc-1] for an index).
	maxv := float64(int(1)<<bpc - 1)
	lo, hi := make([]float64, cs.comps), make([]float64, cs.comps)
	for c := range lo {
		if cs.palette != nil {
			hi[c] = maxv
		} else {
			hi[c] = 1
		}
	}
	if a, ok := d.resolve(sd.Dict["Decode"]).(types.Array); ok && len(a) >= 2*cs.comps {
		for c := range lo {
			lo[c], _ = d.number(a[2*c])
			hi[c], _ = d.number(a[2*c+1])
		}
	}
	// A lookup from raw sample to output byte per component (at most 256 entries: 16-bit
	// samples are read by their high byte).
	levels := 1 << min(bpc, 8)
	lut := make([][]byte, cs.comps)
	for c := range lut {
		lut[c] = make([]byte, levels)
		for s := range lut[c] {
			v := float64(s)
			if bpc == 16 {
				v = float64(s<<8 | s)
			}
			x := lo[c] + v*(hi[c]-lo[c])/maxv
			if cs.palette != nil {
				x = min(max(x+0.5, 0), float64(len(cs.palette)-1))
				lut[c][s] = byte(x)
				continue
			}
			lut[c][s] = byte(min(max(x, 0), 1)*255 + 0.5)
		}
	}
	sample := func(row []byte, i int) int {
		switch bpc {
		case 8:
			return int(row[i])
		case 16:
			return int(row[2*i])
		default:
			bit := i * bpc
			return int(row[bit/8]>>(8-bpc-bit%8)) & (1<<bpc - 1)
		}
	}
	rect := image.Rect(0, 0, W, H)
	switch {
	case cs.palette != nil:
		out := image.NewPaletted(rect, cs.palette)
		for y := 0; y < H; y++ {
			row := data[y*stride : (y+1)*stride]
			for x := 0; x < W; x++ {
				out.Pix[y*out.Stride+x] = lut[0][sample(row, x)]
			}
		}
		return out, nil
	case cs.comps == 1:
		out := image.NewGray(rect)
		for y := 0; y < H; y++ {
			row := data[y*stride : (y+1)*stride]
			for x := 0; x < W; x++ {
				out.Pix[y*out.Stride+x] = lut[0][sample(row, x)]
			}
		}
		return out, nil
	default:
		out := image.NewRGBA(rect)
		px := make([]byte, cs.comps)
		for y := 0; y < H; y++ {
			row := data[y*stride : (y+1)*stride]
			for x := 0; x < W; x++ {
				for c := range px {
					px[c] = lut[c][sample(row, x*cs.comps+c)]
				}
				out.SetRGBA(x, y, toRGBA(px, 255))
			}
		}
		return out, nil
	}
}
