//go:build cgo

package ocr

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
)

// rowShrinker gathers an image's grey rows, as they are decoded, into an image reduced by k
// (each pixel the mean of a k × k block, the last blocks taking what is left: scan.Shrink's
// arithmetic), so that no decoder needs the full-size page.
type rowShrinker struct {
	k, w, h  int
	dst      *image.Gray
	sum, cnt []uint32
}

func newRowShrinker(w, h, k int) *rowShrinker {
	k = max(k, 1)
	dw, dh := (w+k-1)/k, (h+k-1)/k
	s := &rowShrinker{k: k, w: w, h: h, dst: image.NewGray(image.Rect(0, 0, dw, dh))}
	if k > 1 {
		s.sum, s.cnt = make([]uint32, dw), make([]uint32, dw)
	}
	return s
}

// add takes row y (w grey values); rows come in order 0, 1, … h-1.
func (s *rowShrinker) add(y int, row []byte) {
	if s.k == 1 {
		copy(s.dst.Pix[y*s.dst.Stride:], row[:s.w])
		return
	}
	if y%s.k == 0 {
		clear(s.sum)
		clear(s.cnt)
	}
	for x, v := range row[:s.w] {
		s.sum[x/s.k] += uint32(v)
		s.cnt[x/s.k]++
	}
	if y%s.k == s.k-1 || y == s.h-1 {
		out := s.dst.Pix[(y/s.k)*s.dst.Stride:]
		for i := range s.sum {
			out[i] = uint8((s.sum[i] + s.cnt[i]/2) / s.cnt[i])
		}
	}
}

// darkest is a colour pixel's grey as OCR reads colour: its darkest channel (leptonica's
// pixConvertRGBToGrayMinMax with L_CHOOSE_MIN).
func darkest(r, g, b byte) byte { return min(r, g, b) }

// decodeBMPGreyShrunk reads an uncompressed BMP — 1, 4 or 8 bits through a palette, 24 bits,
// or 32 bits (BI_RGB, or BI_BITFIELDS with the usual masks) — a row at a time into grey
// reduced by k, each colour the darkest of its channels as leptonica's decode and grey
// conversion give: leptonica would hold the whole picture at 32 bits first. ok is false for
// BMPs left to leptonica (run-length compressed, 16-bit, other masks). A file too short for
// the rows it declares is an error before anything is allocated.
func decodeBMPGreyShrunk(data []byte, k int) (img *image.Gray, ok bool, err error) {
	le := binary.LittleEndian
	if len(data) < 54 || !bytes.HasPrefix(data, []byte("BM")) {
		return nil, false, nil
	}
	off, dib := int64(le.Uint32(data[10:])), int64(le.Uint32(data[14:]))
	w, h := int64(int32(le.Uint32(data[18:]))), int64(int32(le.Uint32(data[22:])))
	bpp, comp := int(le.Uint16(data[28:])), le.Uint32(data[30:])
	if dib < 40 || w <= 0 || h == 0 {
		return nil, false, nil
	}
	topDown := h < 0
	h = max(h, -h)
	switch {
	case comp == 0 && (bpp == 1 || bpp == 4 || bpp == 8 || bpp == 24 || bpp == 32):
	case comp == 3 && bpp == 32 && len(data) >= 66:
		// BI_BITFIELDS: the masks follow a 40-byte header (in a larger header they sit at the
		// same place); only the usual byte order is read here.
		if le.Uint32(data[54:]) != 0xFF0000 || le.Uint32(data[58:]) != 0xFF00 || le.Uint32(data[62:]) != 0xFF {
			return nil, false, nil
		}
	default:
		return nil, false, nil
	}
	var palette [][3]byte
	if bpp <= 8 {
		n := int64(le.Uint32(data[46:]))
		if n == 0 || n > 1<<bpp {
			n = 1 << bpp
		}
		at := 14 + dib
		if at+4*n > int64(len(data)) {
			return nil, true, fmt.Errorf("BMP palette of %d colours cut short", n)
		}
		palette = make([][3]byte, 1<<bpp) // entries past the file's are black
		for i := range n {
			p := data[at+4*i:]
			palette[i] = [3]byte{p[2], p[1], p[0]}
		}
	}
	stride := (w*int64(bpp) + 31) / 32 * 4
	if off < 14+dib || off+stride*h > int64(len(data)) {
		return nil, true, fmt.Errorf("BMP data cut short: %d × %d pixels at %d bits need %d bytes, the file has %d",
			w, h, bpp, off+stride*h, len(data))
	}
	s := newRowShrinker(int(w), int(h), k)
	grey := make([]byte, w)
	for y := range h {
		src := y // the file's row holding image row y
		if !topDown {
			src = h - 1 - y
		}
		row := data[off+src*stride : off+(src+1)*stride]
		switch bpp {
		case 24, 32:
			n := bpp / 8
			for x := range grey {
				p := row[x*n:]
				grey[x] = darkest(p[2], p[1], p[0])
			}
		default:
			per := 8 / bpp
			for x := range grey {
				v := row[x/per] >> (8 - bpp - (x%per)*bpp) & (1<<bpp - 1)
				c := palette[v]
				grey[x] = darkest(c[0], c[1], c[2])
			}
		}
		s.add(int(y), grey)
	}
	return s.dst, true, nil
}

// decodePNMGreyShrunk reads a binary PGM or PPM (P5, P6) whose maximum is 255 a row at a
// time into grey reduced by k (colour: the darkest channel). ok is false for the other PNMs
// (text ones, bilevel, 16-bit), left to leptonica.
func decodePNMGreyShrunk(data []byte, k int) (img *image.Gray, ok bool, err error) {
	if len(data) < 3 || data[0] != 'P' || data[1] != '5' && data[1] != '6' {
		return nil, false, nil
	}
	i := 2
	var nums [3]int
	for n := range nums {
		for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r' || data[i] == '#') {
			if data[i] == '#' {
				for i < len(data) && data[i] != '\n' {
					i++
				}
				continue
			}
			i++
		}
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' && i-start < 9 {
			nums[n] = nums[n]*10 + int(data[i]-'0')
			i++
		}
		if i == start {
			return nil, false, nil
		}
	}
	w, h, maxval := nums[0], nums[1], nums[2]
	if w <= 0 || h <= 0 || maxval != 255 || i >= len(data) {
		return nil, false, nil
	}
	i++ // the one whitespace byte before the raster
	spp := 1
	if data[1] == '6' {
		spp = 3
	}
	if need := int64(i) + int64(w)*int64(h)*int64(spp); need > int64(len(data)) {
		return nil, true, fmt.Errorf("PNM data cut short: %d × %d pixels need %d bytes, the file has %d", w, h, need, len(data))
	}
	s := newRowShrinker(w, h, k)
	grey := make([]byte, w)
	for y := range h {
		row := data[i+y*w*spp : i+(y+1)*w*spp]
		if spp == 1 {
			s.add(y, row)
			continue
		}
		for x := range grey {
			grey[x] = darkest(row[3*x], row[3*x+1], row[3*x+2])
		}
		s.add(y, grey)
	}
	return s.dst, true, nil
}
