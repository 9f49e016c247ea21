package pdf

import (
	"bytes"
	"compress/zlib"
	"context"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

func deflate(b []byte) string {
	var buf bytes.Buffer
	w := zlib.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.String()
}

// pngRows prefixes every row of raw samples with a PNG filter byte: Sub (1) on even rows, Up
// (2) on odd ones, the row encoded accordingly, as a PDF writer using Predictor 15 does.
func pngRows(raw []byte, stride, bpp int) []byte {
	var out []byte
	prev := make([]byte, stride)
	for y := 0; y*stride < len(raw); y++ {
		row := raw[y*stride : (y+1)*stride]
		enc := make([]byte, stride)
		if y%2 == 0 {
			out = append(out, 1)
			for i := range row {
				left := byte(0)
				if i >= bpp {
					left = row[i-bpp]
				}
				enc[i] = row[i] - left
			}
		} else {
			out = append(out, 2)
			for i := range row {
				enc[i] = row[i] - prev[i]
			}
		}
		out = append(out, enc...)
		prev = row
	}
	return out
}

// Every kind of image XObject ImageFile decodes comes out as a PNG with the right pixels; the
// ones it cannot hand on say why.
func TestImageFile(t *testing.T) {
	rgb := []byte{255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 40, 50, 60, 70, 80, 90}
	cases := []struct {
		name  string
		obj   string
		w, h  int
		pix   map[[2]int]color.RGBA // expected pixels
		fails string                // when set, the error must contain it
	}{
		{name: "flate RGB with PNG predictors",
			obj: stream("/Type /XObject /Subtype /Image /Width 3 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors 3 /Columns 3 /BitsPerComponent 8 >>",
				deflate(pngRows(rgb, 9, 3))),
			w: 3, h: 2, pix: map[[2]int]color.RGBA{{0, 0}: {255, 0, 0, 255}, {2, 0}: {0, 0, 255, 255}, {1, 1}: {40, 50, 60, 255}, {2, 1}: {70, 80, 90, 255}}},
		{name: "1-bit gray inverted by /Decode",
			obj: stream("/Type /XObject /Subtype /Image /Width 10 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 1 /Decode [1 0]", "\xf0\x00\x00\xc0"),
			w:   10, h: 2, pix: map[[2]int]color.RGBA{{0, 0}: {0, 0, 0, 255}, {4, 0}: {255, 255, 255, 255}, {9, 1}: {0, 0, 0, 255}, {7, 1}: {255, 255, 255, 255}}},
		{name: "1-bit flate",
			obj: stream("/Type /XObject /Subtype /Image /Width 8 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 1 /Filter /FlateDecode", deflate([]byte{0x0f})),
			w:   8, h: 1, pix: map[[2]int]color.RGBA{{0, 0}: {0, 0, 0, 255}, {7, 0}: {255, 255, 255, 255}}},
		{name: "4-bit indexed, hex lookup string",
			obj: stream("/Type /XObject /Subtype /Image /Width 3 /Height 1 /ColorSpace [/Indexed /DeviceRGB 2 <ff000000ff000000ff>] /BitsPerComponent 4", "\x21\x00"),
			w:   3, h: 1, pix: map[[2]int]color.RGBA{{0, 0}: {0, 0, 255, 255}, {1, 0}: {0, 255, 0, 255}, {2, 0}: {255, 0, 0, 255}}},
		{name: "CMYK",
			obj: stream("/Type /XObject /Subtype /Image /Width 2 /Height 1 /ColorSpace /DeviceCMYK /BitsPerComponent 8", "\xff\x00\x00\x00\x00\x00\x00\xff"),
			w:   2, h: 1, pix: map[[2]int]color.RGBA{{0, 0}: {0, 255, 255, 255}, {1, 0}: {0, 0, 0, 255}}},
		{name: "16-bit gray",
			obj: stream("/Type /XObject /Subtype /Image /Width 2 /Height 1 /ColorSpace /CalGray /BitsPerComponent 16", "\xff\xff\x80\x00"),
			w:   2, h: 1, pix: map[[2]int]color.RGBA{{0, 0}: {255, 255, 255, 255}, {1, 0}: {128, 128, 128, 255}}},
		{name: "stencil mask", obj: stream("/Type /XObject /Subtype /Image /Width 8 /Height 1 /ImageMask true /BitsPerComponent 1", "\x0f"), fails: "stencil mask"},
		{name: "truncated", obj: stream("/Type /XObject /Subtype /Image /Width 4 /Height 4 /ColorSpace /DeviceRGB /BitsPerComponent 8", "\x00\x01\x02"), fails: "needs 48"},
		{name: "over the pixel bound", obj: stream("/Type /XObject /Subtype /Image /Width 100000 /Height 100000 /ColorSpace /DeviceGray /BitsPerComponent 8", "\x00"), fails: "pixel bound"},
		{name: "JPEG 2000", obj: stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /JPXDecode", "\x00"), fails: "JPXDecode"},
		{name: "Lab", obj: stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace [/Lab << /WhitePoint [1 1 1] >>] /BitsPerComponent 8", "\x00\x00\x00"), fails: "colour space"},
		{name: "bits", obj: stream("/Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray /BitsPerComponent 3", "\x00"), fails: "bits per component"},
		{name: "bad flate", obj: stream("/Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", "garbage here"), fails: "image 5"},
	}
	for _, c := range cases {
		data := onePage("<< >>", "", c.obj)
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		mime, b, err := d.ImageFile(5)
		if c.fails != "" {
			if err == nil || !strings.Contains(err.Error(), c.fails) {
				t.Errorf("%s: err %v, want one saying %q", c.name, err, c.fails)
			}
			if _, ok := d.ImageJPEG(5); ok {
				t.Errorf("%s: ImageJPEG encoded it", c.name)
			}
			continue
		}
		if err != nil || mime != "image/png" {
			t.Errorf("%s: %q %v", c.name, mime, err)
			continue
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if img.Bounds() != image.Rect(0, 0, c.w, c.h) {
			t.Errorf("%s: bounds %v", c.name, img.Bounds())
		}
		for at, want := range c.pix {
			if got := color.RGBAModel.Convert(img.At(at[0], at[1])).(color.RGBA); got != want {
				t.Errorf("%s: pixel %v = %v, want %v", c.name, at, got, want)
			}
		}
		if _, ok := d.ImageJPEG(5); !ok {
			t.Errorf("%s: not encoded as JPEG", c.name)
		}
	}
	// A DCT stream is handed on as it is.
	jp := tinyJPEG(3, 2)
	data := onePage("<< >>", "", stream("/Type /XObject /Subtype /Image /Width 3 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", jp))
	d, _ := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
	if mime, b, err := d.ImageFile(5); err != nil || mime != "image/jpeg" || string(b) != jp {
		t.Errorf("DCT: %q %v", mime, err)
	}
	if _, _, err := d.ImageFile(4); err == nil {
		t.Error("a content stream was taken for an image")
	}
}

// tinyJPEG is a real w x h JPEG file.
func tinyJPEG(w, h int) string {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 37 % 251) // noise: entropy-coded data after the header
	}
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, nil); err != nil {
		panic(err)
	}
	return b.String()
}

// A DCT stream a client could not show is refused with the reason, never handed on: not a
// JPEG, a damaged header, cut before its end (a truncated file), a header declaring more
// pixels than the bound (a decompression bomb for whoever shows it). Padding after the end
// marker is fine.
func TestDCTStreamChecked(t *testing.T) {
	jp := tinyJPEG(3, 2)
	// The SOF0 marker's height and width follow its length and precision: FFC0 LL LL P HH HH WW WW.
	sof := strings.Index(jp, "\xff\xc0")
	big := tinyJPEG(64, 64)
	huge := jp[:sof+5] + "\xea\x60\xea\x60" + jp[sof+9:]
	cases := []struct{ name, data, fails string }{
		{"padded", jp + "\r\n\x00\x00", ""},
		{"not a JPEG", "GIF89a and more", "not a JPEG"},
		{"damaged header", "\xff\xd8\xff\xc0\x00\x02garbage", "damaged JPEG header"},
		{"truncated", big[:len(big)-len(big)/3], "truncated"},
		{"over the bound", huge, "pixel bound"},
	}
	for _, c := range cases {
		data := onePage("<< >>", "", stream("/Type /XObject /Subtype /Image /Width 3 /Height 2 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", c.data))
		d, err := Open(context.Background(), bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatal(err)
		}
		b, err := d.ImageAsJPEG(5)
		switch {
		case c.fails == "" && (err != nil || string(b) != c.data):
			t.Errorf("%s: %v", c.name, err)
		case c.fails != "" && (err == nil || !strings.Contains(err.Error(), c.fails)):
			t.Errorf("%s: err %v, want one saying %q", c.name, err, c.fails)
		case c.fails != "" && errors.Is(err, ErrDamagedImage) != (c.name != "over the bound"):
			t.Errorf("%s: %v: ErrDamagedImage %v", c.name, err, errors.Is(err, ErrDamagedImage))
		}
	}
}
