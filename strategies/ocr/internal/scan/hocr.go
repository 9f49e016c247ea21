package scan

import (
	"image"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// ParseHOCR reads Tesseract's hOCR: blocks (ocr_carea), paragraphs (ocr_par), lines (ocr_line
// and its variants) and words (ocrx_word) with their boxes and confidences.
func ParseHOCR(s string) ([]Word, error) {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return nil, err
	}
	var words []Word
	block, par, line := 0, 0, 0
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode {
			class, title := attr(n, "class"), attr(n, "title")
			switch {
			case class == "ocr_carea":
				block++
				par, line = 0, 0
			case class == "ocr_par":
				par++
				line = 0
			case strings.HasPrefix(class, "ocr_") && class != "ocr_page" && class != "ocrx_word" && (strings.Contains(class, "line") || class == "ocr_caption" || class == "ocr_header" || class == "ocr_textfloat"):
				line++
			case class == "ocrx_word":
				txt := strings.TrimSpace(text(n))
				if txt != "" {
					box, conf := parseTitle(title)
					words = append(words, Word{Text: txt, Conf: conf, Box: box, Block: block, Par: par, Line: line, Order: len(words)})
				}
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return words, nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func text(n *html.Node) string {
	var b strings.Builder
	var rec func(*html.Node)
	rec = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			rec(c)
		}
	}
	rec(n)
	return b.String()
}

// parseTitle reads "bbox x0 y0 x1 y1; x_wconf 96" properties.
func parseTitle(t string) (image.Rectangle, float64) {
	var box image.Rectangle
	conf := -1.0
	for _, part := range strings.Split(t, ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "bbox":
			if len(f) == 5 {
				v := make([]int, 4)
				for i := range v {
					v[i], _ = strconv.Atoi(f[i+1])
				}
				box = image.Rect(v[0], v[1], v[2], v[3])
			}
		case "x_wconf":
			if len(f) == 2 {
				conf, _ = strconv.ParseFloat(f[1], 64)
			}
		}
	}
	return box, conf
}
