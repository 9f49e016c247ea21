//go:build cgo

package ocr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// bombPNG is a valid PNG header declaring w × h grey pixels and one tiny data chunk.
func bombPNG(w, h uint32) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr, w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8] = 8
	chunk("IHDR", ihdr)
	chunk("IDAT", []byte{0x78, 0x9c, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01})
	chunk("IEND", nil)
	return b.Bytes()
}

// framesTIFF is an uncompressed 8-bit grey TIFF whose frames declare the given sizes; each
// carries one white row of pixel data, whatever it declares.
func framesTIFF(sizes [][2]uint32) []byte {
	var buf bytes.Buffer
	le := binary.LittleEndian
	buf.Write([]byte{'I', 'I', 42, 0, 8, 0, 0, 0})
	const entries = 8
	ifdSize := 2 + entries*12 + 4
	for f, s := range sizes {
		row := bytes.Repeat([]byte{255}, int(min(s[0], 4096)))
		ifdAt := buf.Len()
		dataAt := ifdAt + ifdSize
		next := 0
		if f < len(sizes)-1 {
			next = dataAt + len(row)
		}
		e := func(tag, typ uint16, val uint32) {
			_ = binary.Write(&buf, le, tag)
			_ = binary.Write(&buf, le, typ)
			_ = binary.Write(&buf, le, uint32(1))
			_ = binary.Write(&buf, le, val)
		}
		_ = binary.Write(&buf, le, uint16(entries))
		e(256, 4, s[0])             // ImageWidth
		e(257, 4, s[1])             // ImageLength
		e(258, 3, 8)                // BitsPerSample
		e(259, 3, 1)                // Compression: none
		e(262, 3, 1)                // Photometric: black is zero
		e(273, 4, uint32(dataAt))   // StripOffsets
		e(278, 4, s[1])             // RowsPerStrip
		e(279, 4, uint32(len(row))) // StripByteCounts
		_ = binary.Write(&buf, le, uint32(next))
		buf.Write(row)
	}
	return buf.Bytes()
}

// TestDecompressionBombs: an image of a few hundred bytes declaring 100,000 × 100,000 pixels
// (10 GB of grey) ends the request at once with an error naming its size, from its header,
// before any decoder allocates for it — a PNG, and a TIFF whose second frame is the bomb.
func TestDecompressionBombs(t *testing.T) {
	cases := []struct {
		name string
		data []byte
	}{
		{"bomb.png", bombPNG(100000, 100000)},
		{"bomb.tiff", framesTIFF([][2]uint32{{64, 64}, {100000, 100000}})},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			opts := engine.DefaultOptions()
			opts.Strategy = "ocr_only"
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			_, err := engine.Partition(t.Context(), engine.NewDocument(c.name, c.data), opts)
			took := time.Since(start)
			runtime.ReadMemStats(&after)
			var ee *engine.Error
			if !errors.As(err, &ee) || ee.Kind != engine.KindUnprocessable || !errors.Is(err, scan.ErrTooLarge) ||
				!strings.Contains(ee.Msg, "100000 × 100000") {
				t.Fatalf("%d bytes: err = %v", len(c.data), err)
			}
			if took > 10*time.Second {
				t.Errorf("refusal took %v", took)
			}
			if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
				t.Errorf("allocated %d MB refusing it", grew>>20)
			}
			t.Logf("%s (%d bytes): %v in %v", c.name, len(c.data), ee.Msg, took.Round(time.Millisecond))
		})
	}
}
