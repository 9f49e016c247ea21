package scan

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	_ "image/gif"  // header sizes (image.DecodeConfig)
	_ "image/jpeg" // header sizes
	_ "image/png"  // header sizes

	_ "golang.org/x/image/bmp"  // header sizes
	_ "golang.org/x/image/webp" // header sizes
)

// ErrTooLarge is the error for an image whose header declares more than MaxPixels pixels.
var ErrTooLarge = errors.New("image too large")

// CheckSize refuses, from its header alone, an image that declares more than MaxPixels pixels
// (or no pixels at all), before any decoder allocates a raster for it: a few hundred bytes of
// PNG or TIFF can declare 100,000 × 100,000 pixels, 10 GB of grey. frame selects a TIFF's
// image (< 0: the first). Formats it does not know are left to the decoder, which has limits
// of its own.
func CheckSize(data []byte, frame int) error {
	w, h, ok := ImageSize(data, frame)
	if !ok {
		return nil
	}
	if w <= 0 || h <= 0 {
		return fmt.Errorf("image declares %d × %d pixels", w, h)
	}
	if int64(w)*int64(h) > MaxPixels {
		return fmt.Errorf("%w: %d × %d pixels, more than the %d-megapixel limit", ErrTooLarge, w, h, MaxPixels>>20)
	}
	return nil
}

// ImageSize reads an image's width and height from its header without decoding it: PNG,
// JPEG, GIF, BMP, WebP, PNM and TIFF (frame ≥ 0 selects a TIFF's image, else the first). ok is
// false when the format is none of these or the header cannot be read.
func ImageSize(data []byte, frame int) (w, h int, ok bool) {
	if len(data) >= 4 && (bytes.HasPrefix(data, []byte("II")) || bytes.HasPrefix(data, []byte("MM"))) {
		return tiffSize(data, max(frame, 0))
	}
	if len(data) >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6' {
		return pnmSize(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// tiffSize walks a TIFF's (or BigTIFF's) chain of image directories to image frame and reads
// its ImageWidth and ImageLength tags.
func tiffSize(d []byte, frame int) (w, h int, ok bool) {
	var bo binary.ByteOrder = binary.LittleEndian
	if d[0] == 'M' {
		bo = binary.BigEndian
	}
	big := false
	var off uint64
	switch bo.Uint16(d[2:]) {
	case 42:
		if len(d) < 8 {
			return 0, 0, false
		}
		off = uint64(bo.Uint32(d[4:]))
	case 43: // BigTIFF: 8-byte offsets
		if len(d) < 16 || bo.Uint16(d[4:]) != 8 {
			return 0, 0, false
		}
		big, off = true, bo.Uint64(d[8:])
	default:
		return 0, 0, false
	}
	countSize, entrySize, nextSize := uint64(2), uint64(12), uint64(4)
	if big {
		countSize, entrySize, nextSize = 8, 20, 8
	}
	seen := map[uint64]bool{}
	for i := 0; ; i++ {
		if off == 0 || seen[off] || off+countSize > uint64(len(d)) {
			return 0, 0, false // no such frame, a loop, or a broken chain
		}
		seen[off] = true
		var n uint64
		if big {
			n = bo.Uint64(d[off:])
		} else {
			n = uint64(bo.Uint16(d[off:]))
		}
		entries := off + countSize
		end := entries + n*entrySize
		if n > 1<<16 || end+nextSize > uint64(len(d)) {
			return 0, 0, false
		}
		if i < frame {
			if big {
				off = bo.Uint64(d[end:])
			} else {
				off = uint64(bo.Uint32(d[end:]))
			}
			continue
		}
		w, h = -1, -1
		for e := entries; e < end; e += entrySize {
			tag, typ := bo.Uint16(d[e:]), bo.Uint16(d[e+2:])
			value := e + 8
			if big {
				value = e + 12
			}
			var v uint64
			switch typ {
			case 3: // SHORT
				v = uint64(bo.Uint16(d[value:]))
			case 4: // LONG
				v = uint64(bo.Uint32(d[value:]))
			case 16: // LONG8 (BigTIFF)
				if !big {
					continue
				}
				v = bo.Uint64(d[value:])
			default:
				continue
			}
			v = min(v, 1<<40) // stays an int, still far beyond any limit
			switch tag {
			case 256:
				w = int(v)
			case 257:
				h = int(v)
			}
		}
		return w, h, w >= 0 && h >= 0
	}
}

// pnmSize reads the width and height of a PBM, PGM or PPM header (P1 to P6).
func pnmSize(d []byte) (w, h int, ok bool) {
	i := 2
	var nums [2]int
	for k := range nums {
		for i < len(d) && (d[i] == ' ' || d[i] == '\t' || d[i] == '\n' || d[i] == '\r' || d[i] == '#') {
			if d[i] == '#' {
				for i < len(d) && d[i] != '\n' {
					i++
				}
				continue
			}
			i++
		}
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' && i-start < 12 {
			nums[k] = nums[k]*10 + int(d[i]-'0')
			i++
		}
		if i == start {
			return 0, 0, false
		}
	}
	return nums[0], nums[1], true
}
