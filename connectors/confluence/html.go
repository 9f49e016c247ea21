package confluence

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarrydocs/quarry/connectors"
)

// maxImageBytes bounds one inlined image; a bigger one fails the page rather than the process.
const maxImageBytes = 32 << 20

// wrapPage builds the document the reference partitions: a body of class Document holding an
// h1 with the title, then the page's view HTML. The title is escaped (the reference pastes it
// raw, which only differs for titles containing markup characters).
func wrapPage(p page) (*html.Node, error) {
	src := `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body class="Document"><h1>` + html.EscapeString(p.Title) + `</h1>` + p.Body + `</body></html>`
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return nil, fmt.Errorf("confluence: page %s: parse view HTML: %w", p.ID, err)
	}
	return doc, nil
}

// pageHTML renders the page document, with images inlined when ExtractImages is set.
func (s *Source) pageHTML(ctx context.Context, p page) (string, error) {
	doc, err := wrapPage(p)
	if err != nil {
		return "", err
	}
	if s.cfg.ExtractImages {
		if err := s.inlineImages(ctx, p.ID, doc); err != nil {
			return "", err
		}
	}
	var buf bytes.Buffer
	if err := html.Render(&buf, doc); err != nil {
		return "", fmt.Errorf("confluence: page %s: render HTML: %w", p.ID, err)
	}
	return buf.String(), nil
}

// absolute resolves an img src or a href the way the reference does: protocol-relative URLs
// take the site's scheme, http(s) URLs stay, anything else is joined to the site's origin (the
// page URL's path is ignored). ok is false for URLs outside the allow-list (the site's origin).
func (c *client) absolute(ref string) (u *url.URL, ok bool) {
	ref = strings.TrimSpace(ref)
	var abs string
	switch {
	case strings.HasPrefix(ref, "//"):
		abs = c.base.Scheme + ":" + ref
	case strings.HasPrefix(ref, "http"):
		abs = ref
	default:
		abs = c.origin + "/" + strings.TrimLeft(ref, "/")
	}
	u, err := url.Parse(abs)
	if err != nil || !strings.HasPrefix(abs, c.origin) {
		return nil, false
	}
	// A prefix match would also admit https://site.example.com.evil.test: compare origins.
	if u.Scheme+"://"+u.Host != c.origin {
		return nil, false
	}
	return u, true
}

// inlineImages replaces the src of every <img> on the site with a base64 data URL of the image
// (always labelled image/png, as the reference does). Images elsewhere are left untouched; a
// failed download fails the page.
func (s *Source) inlineImages(ctx context.Context, pageID string, doc *html.Node) error {
	var imgs []*html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Img {
			imgs = append(imgs, n)
		}
	}
	for _, n := range imgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		i := attrIndex(n, "src")
		if i < 0 || strings.HasPrefix(n.Attr[i].Val, "data:image/png;base64") {
			continue
		}
		u, ok := s.c.absolute(n.Attr[i].Val)
		if !ok {
			continue
		}
		resp, err := s.c.get(ctx, u, fmt.Sprintf("image %s of page %s", u.Path, pageID))
		if err != nil {
			return err
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxImageBytes+1))
		resp.Body.Close()
		if err != nil {
			return fmt.Errorf("confluence: image %s of page %s: %w", u.Path, pageID, err)
		}
		if len(data) > maxImageBytes {
			return fmt.Errorf("confluence: image %s of page %s is larger than %d MB", u.Path, pageID, maxImageBytes>>20)
		}
		n.Attr[i].Val = "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	}
	return nil
}

// attachments finds the embedded files of a page's view HTML (file macros render as
// <a class="confluence-embedded-file" data-linked-resource-type="attachment" href=…>) and
// returns a document for each one on the site. Anchors and extension-less paths are skipped.
func (s *Source) attachments(p page, pageDoc connectors.Document) []connectors.Document {
	doc, err := wrapPage(p)
	if err != nil {
		return nil
	}
	spaceKey, _, _ := strings.Cut(pageDoc.ID, "/")
	seen := map[string]bool{}
	var out []connectors.Document
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || n.DataAtom != atom.A {
			continue
		}
		if !hasClass(n, "confluence-embedded-file") || attr(n, "data-linked-resource-type") != "attachment" {
			continue
		}
		href := attr(n, "href")
		if href == "" || strings.HasPrefix(href, "#") {
			continue
		}
		u, ok := s.c.absolute(href)
		if !ok || path.Ext(u.Path) == "" {
			continue
		}
		name := fileName(u)
		if seen[name] {
			continue // two links to one file would be two documents with one ID
		}
		seen[name] = true
		out = append(out, attachmentDocument(pageDoc, spaceKey, p.ID, u.String(), name))
	}
	return out
}

// openAttachment downloads an attachment listed by List. Its URL is in the document's
// data_source; a document rebuilt from its ID alone uses the standard download path.
func (s *Source) openAttachment(ctx context.Context, doc connectors.Document, pageID, file string) (io.ReadCloser, error) {
	var u *url.URL
	if raw, ok := doc.DataSource["url"].(string); ok {
		if v, ok := s.c.absolute(raw); ok {
			u = v
		}
	}
	if u == nil {
		v, err := s.c.resolve("download/attachments/" + url.PathEscape(pageID) + "/" + url.PathEscape(file))
		if err != nil {
			return nil, err
		}
		u = v
	}
	resp, err := s.c.get(ctx, u, fmt.Sprintf("attachment %q of page %s", file, pageID))
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

func attrIndex(n *html.Node, key string) int {
	for i, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return i
		}
	}
	return -1
}

func attr(n *html.Node, key string) string {
	if i := attrIndex(n, key); i >= 0 {
		return n.Attr[i].Val
	}
	return ""
}

func hasClass(n *html.Node, class string) bool {
	for _, c := range strings.Fields(attr(n, "class")) {
		if c == class {
			return true
		}
	}
	return false
}
