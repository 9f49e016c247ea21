//go:build cgo

package ocr

import (
	"context"
	"fmt"
	"image"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/strategies/ocr/internal/scan"
)

// ExtraRegions lists areas of PDF pages to OCR on their own, as
// "page:x0,y0,x1,y1;page:…" in PDF points from the page's top-left corner. hi_res sends the
// large pictures of born-digital pages this way (the text inside a picture), with ocr_pages
// naming only the pages without a usable text layer ("0" for none). Each region yields one
// Image element whose text is what was read in it, in the order listed.
const ExtraRegions = "ocr_regions"

// ocrRegion is one parsed region.
type ocrRegion struct {
	page           int
	x0, y0, x1, y1 float64
}

// parseRegions reads ExtraRegions; malformed entries are skipped.
func parseRegions(spec string, count int) []ocrRegion {
	var out []ocrRegion
	for _, f := range strings.Split(spec, ";") {
		p, box, ok := strings.Cut(strings.TrimSpace(f), ":")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > count {
			continue
		}
		v := strings.Split(box, ",")
		if len(v) != 4 {
			continue
		}
		var c [4]float64
		bad := false
		for i := range v {
			if c[i], err = strconv.ParseFloat(strings.TrimSpace(v[i]), 64); err != nil || c[i] < 0 || c[i] > 1e5 {
				bad = true
			}
		}
		if bad || c[2] <= c[0] || c[3] <= c[1] {
			continue
		}
		out = append(out, ocrRegion{n, c[0], c[1], c[2], c[3]})
	}
	return out
}

// regions OCRs the listed regions, rendering each page once, and emits an Image element per
// region with its text and pixel coordinates.
func (o *OCR) regions(ctx context.Context, src source, regs []ocrRegion, langs string, emit contract.Emit) error {
	var pi pageImage
	page := 0
	for _, r := range regs {
		if err := ctx.Err(); err != nil {
			return err
		}
		if r.page != page {
			var err error
			if pi, err = o.renderSlot(ctx, src, r.page); err != nil {
				return err
			}
			page = r.page
		}
		img, scale, k := pi.img, pi.scale, max(pi.shrink, 1)
		if scale <= 0 {
			scale = 1 / float64(k) // an image's pixels, in the reduced image read
		}
		box := image.Rect(int(r.x0*scale), int(r.y0*scale), int(r.x1*scale+0.5), int(r.y1*scale+0.5)).Intersect(img.Bounds())
		text := ""
		if !box.Empty() {
			crop := image.NewGray(image.Rect(0, 0, box.Dx(), box.Dy()))
			for y := 0; y < box.Dy(); y++ {
				copy(crop.Pix[y*crop.Stride:y*crop.Stride+box.Dx()], img.Pix[(box.Min.Y+y)*img.Stride+box.Min.X:])
			}
			t := o.client()
			words, err := t.read(crop, scan.IsBilevel(crop), 1, langs) // a large picture in bands too
			o.release(t)
			if err != nil {
				return fmt.Errorf("ocr: region on page %d: %w", r.page, err)
			}
			var parts []string
			for _, w := range words {
				if w.Conf >= 30 {
					parts = append(parts, w.Text)
				}
			}
			text = strings.Join(strings.Fields(strings.Join(parts, " ")), " ")
		}
		w, h := float64(img.Bounds().Dx()*k), float64(img.Bounds().Dy()*k)
		ob := image.Rect(box.Min.X*k, box.Min.Y*k, box.Max.X*k, box.Max.Y*k) // back in the image's pixels
		e := element.Element{Type: element.Image, Text: text, Metadata: element.Metadata{
			PageNumber: element.Int(r.page),
			Coordinates: &element.Coordinates{
				Points: []element.Point{{float64(ob.Min.X), float64(ob.Min.Y)}, {float64(ob.Min.X), float64(ob.Max.Y)},
					{float64(ob.Max.X), float64(ob.Max.Y)}, {float64(ob.Max.X), float64(ob.Min.Y)}},
				System: "PixelSpace", LayoutWidth: w, LayoutHeight: h,
			},
		}}
		if err := emit(e); err != nil {
			return err
		}
	}
	return nil
}

// renderSlot renders page n holding a worker slot, as page recognition does.
func (o *OCR) renderSlot(ctx context.Context, src source, n int) (pageImage, error) {
	select {
	case o.slots <- struct{}{}:
	case <-ctx.Done():
		return pageImage{}, ctx.Err()
	}
	defer func() { <-o.slots }()
	return src.render(ctx, n)
}
