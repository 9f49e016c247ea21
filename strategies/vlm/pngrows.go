package vlm

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
)

// pngReduced decodes a non-interlaced PNG a row at a time, averaging each f×f block of pixels
// into one (premultiplied, so transparent pixels do not darken their neighbours): the image
// is never held at full size. image/png decodes the whole raster first — a 12,000² RGBA PNG
// is 576 MB, 1.15 GB at 16 bits a channel — only for fit to shrink it to a few megapixels.
// Memory is two rows of the file's pixels, one row of sums and the reduced image. ok is false
// when the PNG is interlaced (its passes cover the whole image before the last row is
// known): the caller decodes it whole, within its budget.
func pngReduced(data []byte, f int) (img *image.RGBA, ok bool, err error) {
	if f < 1 {
		f = 1
	}
	if len(data) < 8 || string(data[:8]) != "\x89PNG\r\n\x1a\n" {
		return nil, false, errors.New("not a PNG")
	}
	var (
		w, h                 int
		depth, ctype, interl byte
		palette              [][4]uint8
		idat                 []io.Reader
		seenHeader           bool
	)
	for p := 8; p+8 <= len(data); {
		n := int(binary.BigEndian.Uint32(data[p:]))
		typ := string(data[p+4 : p+8])
		if n < 0 || n > len(data)-p-12 {
			return nil, false, fmt.Errorf("PNG chunk %q cut short", typ)
		}
		body := data[p+8 : p+8+n]
		p += 12 + n
		switch typ {
		case "IHDR":
			if n != 13 {
				return nil, false, errors.New("bad PNG header")
			}
			w, h = int(binary.BigEndian.Uint32(body)), int(binary.BigEndian.Uint32(body[4:]))
			depth, ctype, interl = body[8], body[9], body[12]
			seenHeader = true
		case "PLTE":
			palette = make([][4]uint8, n/3)
			for i := range palette {
				palette[i] = [4]uint8{body[3*i], body[3*i+1], body[3*i+2], 0xff}
			}
		case "tRNS":
			if ctype == 3 {
				for i := 0; i < n && i < len(palette); i++ {
					palette[i][3] = body[i]
				}
			}
		case "IDAT":
			idat = append(idat, bytes.NewReader(body))
		case "IEND":
			p = len(data)
		}
	}
	if !seenHeader || w <= 0 || h <= 0 || len(idat) == 0 {
		return nil, false, errors.New("PNG without header or image data")
	}
	if interl != 0 {
		return nil, false, nil
	}
	channels := map[byte]int{0: 1, 2: 3, 3: 1, 4: 2, 6: 4}[ctype]
	if channels == 0 || (depth != 1 && depth != 2 && depth != 4 && depth != 8 && depth != 16) ||
		(depth < 8 && ctype != 0 && ctype != 3) || (depth == 16 && ctype == 3) {
		return nil, false, fmt.Errorf("PNG colour type %d at %d bits is not valid", ctype, depth)
	}
	bitsPP := channels * int(depth)
	rowLen := (w*bitsPP + 7) / 8
	bpp := max(1, bitsPP/8) // the filters' byte distance
	zr, err := zlib.NewReader(io.MultiReader(idat...))
	if err != nil {
		return nil, false, fmt.Errorf("PNG image data: %w", err)
	}
	defer zr.Close()

	rw, rh := (w+f-1)/f, (h+f-1)/f
	out := image.NewRGBA(image.Rect(0, 0, rw, rh))
	// Two buffers of a filter byte and a row, swapped: the row above is the one before.
	cur, above := make([]byte, rowLen+1), make([]byte, rowLen+1)
	sums := make([]uint64, 4*rw)
	maxv := uint32(1)<<depth - 1
	for y := range h {
		if _, err := io.ReadFull(zr, cur); err != nil {
			return nil, false, fmt.Errorf("PNG image data ends at row %d of %d: %w", y, h, err)
		}
		row := cur[1:]
		if err := unfilter(cur[0], row, above[1:], bpp); err != nil {
			return nil, false, err
		}
		for x := range w {
			var r, g, b, a uint32
			switch {
			case depth < 8:
				shift := 8 - int(depth) - (x*int(depth))%8
				v := uint32(row[x*int(depth)/8]>>shift) & maxv
				if ctype == 3 {
					if int(v) >= len(palette) {
						return nil, false, fmt.Errorf("PNG palette index %d out of range", v)
					}
					c := palette[v]
					r, g, b, a = uint32(c[0]), uint32(c[1]), uint32(c[2]), uint32(c[3])
				} else {
					v = v * 255 / maxv
					r, g, b, a = v, v, v, 255
				}
			case ctype == 3:
				v := row[x]
				if int(v) >= len(palette) {
					return nil, false, fmt.Errorf("PNG palette index %d out of range", v)
				}
				c := palette[v]
				r, g, b, a = uint32(c[0]), uint32(c[1]), uint32(c[2]), uint32(c[3])
			default:
				// 16-bit samples keep their high byte: the model gets 8 bits anyway.
				step := int(depth) / 8
				px := row[x*channels*step:]
				s := func(i int) uint32 { return uint32(px[i*step]) }
				switch ctype {
				case 0:
					r, a = s(0), 255
					g, b = r, r
				case 2:
					r, g, b, a = s(0), s(1), s(2), 255
				case 4:
					r, a = s(0), s(1)
					g, b = r, r
				case 6:
					r, g, b, a = s(0), s(1), s(2), s(3)
				}
			}
			i := 4 * (x / f)
			sums[i] += uint64(r * a / 255)
			sums[i+1] += uint64(g * a / 255)
			sums[i+2] += uint64(b * a / 255)
			sums[i+3] += uint64(a)
		}
		if (y+1)%f == 0 || y == h-1 {
			rows := uint64((y % f) + 1)
			o := out.Pix[(y/f)*out.Stride:]
			for cx := range rw {
				n := rows * uint64(min(f, w-cx*f))
				for c := range 4 {
					o[4*cx+c] = uint8(sums[4*cx+c] / n)
				}
			}
			clear(sums)
		}
		cur, above = above, cur
	}
	return out, true, nil
}

// unfilter undoes PNG filter ft on row in place, given the row above (zeros for the first).
func unfilter(ft byte, row, above []byte, bpp int) error {
	switch ft {
	case 0:
	case 1:
		for i := bpp; i < len(row); i++ {
			row[i] += row[i-bpp]
		}
	case 2:
		for i := range row {
			row[i] += above[i]
		}
	case 3:
		for i := range row {
			var left byte
			if i >= bpp {
				left = row[i-bpp]
			}
			row[i] += byte((int(left) + int(above[i])) / 2)
		}
	case 4:
		for i := range row {
			var a, c int
			if i >= bpp {
				a, c = int(row[i-bpp]), int(above[i-bpp])
			}
			b := int(above[i])
			p := a + b - c
			pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
			switch {
			case pa <= pb && pa <= pc:
				row[i] += byte(a)
			case pb <= pc:
				row[i] += byte(b)
			default:
				row[i] += byte(c)
			}
		}
	default:
		return fmt.Errorf("PNG filter type %d is not valid", ft)
	}
	return nil
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
