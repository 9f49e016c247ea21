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
	"slices"

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
// JPEG, GIF, BMP, WebP, PNM, HEIF/HEIC and TIFF (frame ≥ 0 selects a TIFF's image, else the
// first). ok is false when the format is none of these or the header cannot be read.
func ImageSize(data []byte, frame int) (w, h int, ok bool) {
	if len(data) >= 4 && (bytes.HasPrefix(data, []byte("II")) || bytes.HasPrefix(data, []byte("MM"))) {
		return tiffSize(data, max(frame, 0))
	}
	if len(data) >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6' {
		return pnmSize(data)
	}
	if len(data) >= 12 && string(data[4:8]) == "ftyp" {
		return heifSize(data)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, false
	}
	return cfg.Width, cfg.Height, true
}

// heifSize reads the size of a HEIF/HEIC file's largest image from the image spatial extents
// ('ispe') of its item properties (meta → iprp → ipco): a gridded photo declares its tiles and
// the whole, and the whole is what a decoder builds.
func heifSize(d []byte) (w, h int, ok bool) {
	var walk func(b []byte, depth int)
	walk = func(b []byte, depth int) {
		for len(b) >= 8 && depth < 4 {
			size := uint64(binary.BigEndian.Uint32(b))
			typ, hdr := string(b[4:8]), uint64(8)
			switch size {
			case 0: // to the end
				size = uint64(len(b))
			case 1: // a 64-bit size follows
				if len(b) < 16 {
					return
				}
				size, hdr = binary.BigEndian.Uint64(b[8:]), 16
			}
			if size < hdr || size > uint64(len(b)) {
				return
			}
			body := b[hdr:size]
			switch typ {
			case "meta": // a full box: version and flags first
				if len(body) >= 4 {
					walk(body[4:], depth+1)
				}
			case "iprp", "ipco":
				walk(body, depth+1)
			case "ispe":
				if len(body) >= 12 {
					bw, bh := int(binary.BigEndian.Uint32(body[4:])), int(binary.BigEndian.Uint32(body[8:]))
					if !ok || int64(bw)*int64(bh) > int64(w)*int64(h) {
						w, h, ok = bw, bh, true
					}
				}
			}
			b = b[size:]
		}
	}
	walk(d, 0)
	return w, h, ok
}

// tiffSize walks a TIFF's (or BigTIFF's) chain of image directories to image frame and reads
// its ImageWidth and ImageLength tags.
func tiffSize(d []byte, frame int) (w, h int, ok bool) {
	v, ok := tiffTags(d, frame, 256, 257)
	return v[0], v[1], ok && v[0] >= 0 && v[1] >= 0
}

// tiffTags walks a TIFF's (or BigTIFF's) chain of image directories to image frame and reads
// the first value of each of the given SHORT or LONG tags (-1 where absent). ok is false when
// there is no such frame or the chain is broken.
func tiffTags(d []byte, frame int, tags ...uint16) (vals []int, ok bool) {
	vals = make([]int, len(tags))
	for i := range vals {
		vals[i] = -1
	}
	if len(d) < 4 {
		return vals, false
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if d[0] == 'M' {
		bo = binary.BigEndian
	}
	big := false
	var off uint64
	switch bo.Uint16(d[2:]) {
	case 42:
		if len(d) < 8 {
			return vals, false
		}
		off = uint64(bo.Uint32(d[4:]))
	case 43: // BigTIFF: 8-byte offsets
		if len(d) < 16 || bo.Uint16(d[4:]) != 8 {
			return vals, false
		}
		big, off = true, bo.Uint64(d[8:])
	default:
		return vals, false
	}
	countSize, entrySize, nextSize := uint64(2), uint64(12), uint64(4)
	if big {
		countSize, entrySize, nextSize = 8, 20, 8
	}
	seen := map[uint64]bool{}
	for i := 0; ; i++ {
		if off == 0 || seen[off] || off+countSize > uint64(len(d)) {
			return vals, false // no such frame, a loop, or a broken chain
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
			return vals, false
		}
		if i < frame {
			if big {
				off = bo.Uint64(d[end:])
			} else {
				off = uint64(bo.Uint32(d[end:]))
			}
			continue
		}
		for e := entries; e < end; e += entrySize {
			tag, typ := bo.Uint16(d[e:]), bo.Uint16(d[e+2:])
			k := slices.Index(tags, tag)
			if k < 0 {
				continue
			}
			value, inline := e+8, uint64(4)
			var count uint64
			if big {
				value, inline, count = e+12, 8, bo.Uint64(d[e+4:])
			} else {
				count = uint64(bo.Uint32(d[e+4:]))
			}
			var size uint64
			switch {
			case typ == 3: // SHORT
				size = 2
			case typ == 4: // LONG
				size = 4
			case typ == 16 && big: // LONG8
				size = 8
			default:
				continue
			}
			if count*size > inline {
				// The values are elsewhere: the entry holds their offset.
				if big {
					value = bo.Uint64(d[value:])
				} else {
					value = uint64(bo.Uint32(d[value:]))
				}
				if value+size > uint64(len(d)) {
					continue
				}
			}
			var v uint64
			switch typ {
			case 3: // SHORT
				v = uint64(bo.Uint16(d[value:]))
			case 4: // LONG
				v = uint64(bo.Uint32(d[value:]))
			case 16: // LONG8 (BigTIFF)
				v = bo.Uint64(d[value:])
			}
			vals[k] = int(min(v, 1<<40)) // stays an int, still far beyond any limit
		}
		return vals, true
	}
}

// DecodedBytes estimates the bytes a whole-image decoder (leptonica's) holds for an image
// read at full size: its raster at the depth it keeps (1 bit for bilevel, 8 for grey, 16 for
// 16-bit grey, 32 for colour, palettes and alpha), from the header alone. what names the
// format and depth for messages. ok is false when the header cannot be read.
func DecodedBytes(data []byte, frame int) (bytes int64, what string, ok bool) {
	w, h, ok := ImageSize(data, frame)
	if !ok || w <= 0 || h <= 0 {
		return 0, "", false
	}
	bits, what := 32, "image"
	switch {
	case len(data) >= 4 && (data[0] == 'I' || data[0] == 'M') && data[1] == data[0]:
		v, _ := tiffTags(data, max(frame, 0), 258, 277, 262)
		bps, spp, photo := max(v[0], 1), max(v[1], 1), v[2]
		switch {
		case photo == 3 || spp > 1:
			bits = 32
		case bps == 1:
			bits = 1
		case bps <= 8:
			bits = 8
		default:
			bits = 16
		}
		what = fmt.Sprintf("%d-bit TIFF", bps*spp)
	case len(data) >= 2 && data[0] == 'P' && data[1] >= '1' && data[1] <= '6':
		switch data[1] {
		case '1', '4':
			bits, what = 1, "bilevel PNM"
		case '2', '5':
			bits, what = 8, "grey PNM"
			if n, ok := pnmNums(data, 3); !ok || n[2] > 255 {
				bits = 16
			}
		default:
			bits, what = 32, "colour PNM"
		}
	case len(data) >= 29 && bytesHasPrefix(data, "\x89PNG"):
		depth, ct := data[24], data[25]
		switch {
		case ct == 0 && depth == 1:
			bits = 1
		case ct == 0 && depth <= 8:
			bits = 8
		case ct == 0:
			bits = 16
		}
		what = "PNG"
		if data[28] != 0 {
			what = "interlaced PNG"
		}
	case len(data) >= 30 && bytesHasPrefix(data, "BM"):
		bpp := int(binary.LittleEndian.Uint16(data[28:]))
		if bpp == 1 {
			bits = 1
		}
		what = fmt.Sprintf("%d-bit BMP", bpp)
	case bytesHasPrefix(data, "GIF8"):
		what = "GIF"
	case len(data) >= 12 && bytesHasPrefix(data, "RIFF") && string(data[8:12]) == "WEBP":
		what = "WebP"
	case bytesHasPrefix(data, "\xff\xd8\xff"):
		what = "JPEG"
	case len(data) >= 12 && string(data[4:8]) == "ftyp":
		what = "HEIC"
	}
	return int64(w) * int64(h) * int64(bits) / 8, what, true
}

func bytesHasPrefix(d []byte, p string) bool { return len(d) >= len(p) && string(d[:len(p)]) == p }

// pnmSize reads the width and height of a PBM, PGM or PPM header (P1 to P6).
func pnmSize(d []byte) (w, h int, ok bool) {
	n, ok := pnmNums(d, 2)
	return n[0], n[1], ok
}

// pnmNums reads the first count numbers of a PNM header (width, height, maximum value).
func pnmNums(d []byte, count int) (nums []int, ok bool) {
	i := 2
	nums = make([]int, count)
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
			return nums, false
		}
	}
	return nums, true
}
