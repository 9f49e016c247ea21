package confluence

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/quarrydocs/quarry/connectors"
)

// maxImageBytes bounds one inlined image; a bigger one is skipped rather than exhausting memory.
const maxImageBytes = 32 << 20

// defaultMaxInlineImageBytes is Config.MaxInlineImageBytes's default: the base64 of all the
// images inlined into one page. A page showing one 32 MB attachment 200 times was 8.5 GB of
// HTML in the worker.
const defaultMaxInlineImageBytes = 64 << 20

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
	s.dropForeignMacros(p.ID, doc)
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
		abs = c.site.Scheme + ":" + ref
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
// (always labelled image/png, as the reference does). Images elsewhere are left untouched. An
// image that cannot be fetched is skipped with a warning: the page still partitions.
func (s *Source) inlineImages(ctx context.Context, pageID string, doc *html.Node) error {
	var imgs []*html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && n.DataAtom == atom.Img {
			imgs = append(imgs, n)
		}
	}
	atts := attachmentIndex{}
	limit := s.cfg.MaxInlineImageBytes
	if limit <= 0 {
		limit = defaultMaxInlineImageBytes
	}
	budget := limit
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
		what := fmt.Sprintf("image %s of page %s", u.Path, pageID)
		if !s.c.ownResource(u, pageID) {
			s.c.log.Warn("confluence: image not inlined: not an attachment of this page (its audience may differ)", "page", pageID, "image", u.Path)
			continue
		}
		if budget <= 0 {
			s.c.log.Warn("confluence: image skipped: the page's images are over the inlining budget", "page", pageID, "image", u.Path, "budget_bytes", limit)
			continue
		}
		data, err := s.fetchFile(ctx, u, atts, what)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			s.c.log.Warn("confluence: image skipped", "page", pageID, "image", u.Path, "err", err)
			continue
		}
		if enc := base64.StdEncoding.EncodedLen(len(data)); enc > budget {
			s.c.log.Warn("confluence: image skipped: the page's images are over the inlining budget", "page", pageID, "image", u.Path, "budget_bytes", limit)
			budget = 0
			continue
		} else {
			budget -= enc
		}
		n.Attr[i].Val = "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	}
	return nil
}

// ownResource reports whether a site URL found in page pageID may be fetched with the
// connector's credentials and copied into that page's output: an attachment (or its thumbnail)
// of the page itself, or a static resource of the site (icons, emoticons), the same for every
// user. The credentials read more than the page's audience does, and the page's editors choose
// its URLs: an attachment of a restricted page, the REST API or another page's view would be
// copied into this page's output under this page's permissions.
func (c *client) ownResource(u *url.URL, pageID string) bool {
	if pid, _, ok := c.attachmentPath(u); ok {
		return pid == pageID
	}
	p := strings.TrimPrefix(u.Path, c.site.Path)
	if u.RawQuery != "" || strings.Contains(p, "..") {
		return false
	}
	return strings.HasPrefix(p, "/images/icons/") || strings.HasPrefix(p, "/s/") && strings.Contains(p, "/_/images/icons/")
}

// foreignMacros are the macros whose output is other pages' content: Include Page and Excerpt
// Include copy another page's body, the report macros list other pages' titles, properties
// and excerpts. Confluence renders them for the account that asks — the connector's, which
// reads restricted pages this page's readers cannot — so their output would be emitted under
// this page's permissions.
var foreignMacros = map[string]bool{
	"include": true, "excerpt-include": true, "detailssummary": true, "content-report-table": true,
	"contentbylabel": true, "children": true, "pagetree": true, "recently-updated": true, "blog-posts": true,
}

// dropForeignMacros removes the output of foreignMacros from a page's view HTML (Confluence
// wraps a macro's output in an element with data-macro-name).
func (s *Source) dropForeignMacros(pageID string, doc *html.Node) {
	var drop []*html.Node
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && foreignMacros[strings.ToLower(attr(n, "data-macro-name"))] {
			drop = append(drop, n)
		}
	}
	for _, n := range drop {
		if n.Parent == nil {
			continue // inside one already dropped
		}
		s.c.log.Warn("confluence: macro output dropped: it shows another page's content, whose audience may differ", "page", pageID, "macro", attr(n, "data-macro-name"))
		n.Parent.RemoveChild(n)
	}
}

// attachmentIndex caches, per page id, the page's attachments by file name (attachment ids).
type attachmentIndex map[string]map[string]string

// attachmentPath splits a site URL of an attachment (/download/attachments/<page>/<file>, or the
// /download/thumbnails/ variant) into page id and file name.
func (c *client) attachmentPath(u *url.URL) (pageID, file string, ok bool) {
	p := strings.TrimPrefix(u.Path, c.site.Path)
	for _, prefix := range []string{"/download/attachments/", "/download/thumbnails/"} {
		if rest, found := strings.CutPrefix(p, prefix); found {
			pageID, file, ok = strings.Cut(rest, "/")
			if !ok || pageID == "" || file == "" || strings.Contains(file, "/") {
				return "", "", false
			}
			if f, err := url.PathUnescape(file); err == nil {
				file = f
			}
			return pageID, file, true
		}
	}
	return "", "", false
}

// fetchFile downloads a site URL found in a page (an image or an attachment link), at most
// maxImageBytes. On Cloud an attachment goes through the REST download endpoint: Atlassian
// removed API-token access to the legacy /download/attachments path, which answers 401, while
// GET rest/api/content/{pageId}/child/attachment/{attachmentId}/download redirects to a signed
// URL on the media host ("Get URI to download attachment", developer.atlassian.com/cloud/
// confluence/rest/v1/api-group-content---attachments/). Other site URLs are fetched directly
// unless requests go through the gateway (the site would refuse the gateway's credentials).
func (s *Source) fetchFile(ctx context.Context, u *url.URL, atts attachmentIndex, what string) ([]byte, error) {
	var resp *http.Response
	var err error
	if pageID, file, ok := s.c.attachmentPath(u); ok && s.c.cloud {
		resp, err = s.downloadAttachment(ctx, pageID, file, atts, what)
	} else if s.c.gateway != "" {
		return nil, fmt.Errorf("confluence: %s: not an attachment, and the site is reached through the API gateway", what)
	} else {
		resp, err = s.c.download(ctx, u, what)
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxImageBytes+1))
	if err != nil {
		return nil, fmt.Errorf("confluence: %s: %w", what, err)
	}
	if len(data) > maxImageBytes {
		return nil, fmt.Errorf("confluence: %s is larger than %d MB", what, maxImageBytes>>20)
	}
	return data, nil
}

// downloadAttachment finds an attachment's id among the page's attachments (GET
// api/v2/pages/{id}/attachments, whose results carry id and title) and opens the REST download.
func (s *Source) downloadAttachment(ctx context.Context, pageID, file string, atts attachmentIndex, what string) (*http.Response, error) {
	byName, ok := atts[pageID]
	if !ok {
		byName = map[string]string{}
		ref := "api/v2/pages/" + url.PathEscape(pageID) + "/attachments?limit=250"
		for pages := 0; ref != "" && pages < 100; pages++ {
			var resp struct {
				Results []struct {
					ID    any    `json:"id"`
					Title string `json:"title"`
				} `json:"results"`
				Links struct {
					Next string `json:"next"`
				} `json:"_links"`
			}
			if err := s.c.getJSON(ctx, ref, "attachments of page "+pageID, &resp); err != nil {
				return nil, err
			}
			for _, r := range resp.Results {
				if id := idString(r.ID); id != "" {
					byName[r.Title] = id
				}
			}
			ref = s.c.nextRef(resp.Links.Next, true)
		}
		atts[pageID] = byName
	}
	id, ok := byName[file]
	if !ok {
		return nil, fmt.Errorf("confluence: %s: page %s has no attachment named %q", what, pageID, file)
	}
	u, err := s.c.resolve(ctx, "rest/api/content/"+url.PathEscape(pageID)+"/child/attachment/"+url.PathEscape(id)+"/download")
	if err != nil {
		return nil, err
	}
	return s.c.download(ctx, u, what)
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
		if pid, _, ok := s.c.attachmentPath(u); !ok || pid != p.ID {
			// Another page's attachment has that page's audience, not this one's (ownResource).
			s.c.log.Warn("confluence: embedded file not indexed: not an attachment of this page (its audience may differ)", "page", p.ID, "file", u.Path)
			continue
		}
		name := fileName(u)
		if name == "." || name == ".." {
			continue
		}
		if seen[name] {
			continue // two links to one file would be two documents with one ID
		}
		seen[name] = true
		out = append(out, attachmentDocument(pageDoc, spaceKey, p.ID, u.String(), name))
	}
	return out
}

// openAttachment downloads an attachment listed by List. Its URL is in the document's
// data_source; a document rebuilt from its ID alone uses the standard download path. On Cloud
// the REST download endpoint is used (see fetchFile).
func (s *Source) openAttachment(ctx context.Context, doc connectors.Document, pageID, file string) (io.ReadCloser, error) {
	what := fmt.Sprintf("attachment %q of page %s", file, pageID)
	if s.c.cloud {
		resp, err := s.downloadAttachment(ctx, pageID, file, attachmentIndex{}, what)
		if err != nil {
			return nil, err
		}
		return resp.Body, nil
	}
	var u *url.URL
	if raw, ok := doc.DataSource["url"].(string); ok {
		if v, ok := s.c.absolute(raw); ok && s.c.ownResource(v, pageID) {
			u = v
		}
	}
	if u == nil {
		v, err := s.c.resolve(ctx, "download/attachments/"+url.PathEscape(pageID)+"/"+url.PathEscape(file))
		if err != nil {
			return nil, err
		}
		u = v
	}
	resp, err := s.c.download(ctx, u, what)
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
