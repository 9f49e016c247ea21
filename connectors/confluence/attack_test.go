package confluence

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/connectors/confluence/confluencetest"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

// Listing and reading a page may be hours apart (the listing enqueues every page; workers read
// them later). Permissions were computed only at listing, so content read after a page was
// restricted, or moved under a restricted parent or into another space, was emitted with the
// permissions from before: exposed to everyone the listing allowed. Open now computes them
// again after reading the content and refuses the page unless they are unchanged.
func TestAttackPermissionsChangedAfterListing(t *testing.T) {
	f := cloudSite(t)
	cfg := cloudConfig(f, &sleeper{})
	cfg.Spaces = []string{"DEV"}
	cfg.ExtractFiles = true
	cfg.MediaHosts = []string{f.MediaHost()}
	src, err := NewSource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(docs)
	for _, id := range []string{"DEV/11.html", "DEV/13.html", "DEV/15.html"} {
		if m[id].DataSource["permissions_version"] == nil {
			t.Fatalf("%s listed without permissions", id)
		}
	}
	page := func(id string) int {
		for i := range f.Pages {
			if f.Pages[i].ID == id {
				return i
			}
		}
		t.Fatalf("no page %s", id)
		return -1
	}
	// Between listing and reading: 13 restricted to one user, 15 moved under the restricted
	// page 12, 11 unchanged.
	f.Pages[page("13")].ReadUsers = []string{"acc-carol"}
	f.Pages[page("15")].Parent = "12"
	var attachment string
	for id := range m {
		if strings.HasPrefix(id, "DEV/11/") {
			attachment = id
		}
	}
	if attachment == "" {
		t.Fatalf("no attachment of page 11 listed: %v", ids(docs))
	}
	if rc, err := src.Open(context.Background(), m[attachment]); err != nil {
		t.Errorf("attachment of an unchanged page: %v", err)
	} else {
		rc.Close()
	}
	f.Pages[page("11")].ReadGroups = []string{"grp-leads"}
	if _, err := src.Open(context.Background(), m[attachment]); !errors.Is(err, ErrPermissionsChanged) {
		t.Errorf("attachment opened after its page was restricted: %v", err)
	}
	f.Pages[page("11")].ReadGroups = nil
	for _, id := range []string{"DEV/13.html", "DEV/15.html"} {
		if _, err := src.Open(context.Background(), m[id]); !errors.Is(err, ErrPermissionsChanged) {
			t.Errorf("%s opened after its permissions narrowed: %v", id, err)
		}
	}
	if rc, err := src.Open(context.Background(), m["DEV/11.html"]); err != nil {
		t.Errorf("unchanged page: %v", err)
	} else {
		rc.Close()
	}
	// Moved to another space (other readers).
	f.Pages[page("11")].Space = "OPS"
	if _, err := src.Open(context.Background(), m["DEV/11.html"]); !errors.Is(err, ErrPermissionsChanged) {
		t.Errorf("page moved to another space opened: %v", err)
	}
	f.Pages[page("11")].Space = "DEV"
	// Permissions that cannot be read again fail closed.
	f.Fail("content/11/restriction", 403, "", -1)
	if _, err := src.Open(context.Background(), m["DEV/11.html"]); err == nil || !strings.Contains(err.Error(), "could not be checked again") {
		t.Errorf("permissions unreadable at open: %v", err)
	}
}

// An attachment's name comes from a link any editor of the page writes; it is one segment of
// the document's ID, whatever separators it holds (a backslash was turned into a path
// separator by the Azure destination).
func TestAttackAttachmentNameIsOneSegment(t *testing.T) {
	for _, href := range []string{"https://x.example/wiki/download/attachments/11/..%5C..%5COPS%5C21.html", "https://x.example/wiki/download/attachments/11/a%2F..%2F..%2Fb.pdf"} {
		u, _ := url.Parse(href)
		if name := fileName(u); strings.ContainsAny(name, `/\`) {
			t.Errorf("%s → %q", href, name)
		}
	}
}

// Each inlined image was bounded (32 MB), but not their sum: any editor can show one
// attachment on a page any number of times, and 200 copies of a 32 MB image were 8.5 GB of
// HTML in the worker. Past the page's budget, images are skipped with a warning.
func TestAttackInlinedImagesBoundedPerPage(t *testing.T) {
	f := cloudSite(t)
	f.Files["download/attachments/11/diagram.png"] = bytes.Repeat([]byte("\x89PNG"), 256<<10) // 1 MiB
	for i := 0; i < 20; i++ {
		f.Pages[0].Body += fmt.Sprintf(`<img src="/wiki/download/attachments/11/diagram.png?version=1&copy=%d">`, i)
	}
	src, err := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true, Spaces: []string{"DEV"}, MaxDocs: 1,
		ExtractImages: true, MaxInlineImageBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	src.c.log = slog.New(slog.NewTextHandler(&logs, nil))
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	html := open(t, src, byID(docs)["DEV/11.html"])
	if len(html) > 5<<20 {
		t.Errorf("page HTML is %d MB with a 4 MB image budget", len(html)>>20)
	}
	if n := strings.Count(html, "data:image/png;base64,iVBOR"); n < 2 || n > 3 {
		t.Errorf("%d copies inlined, want the 2 or 3 that fit in 4 MB", n)
	}
	if !strings.Contains(logs.String(), "over the inlining budget") {
		t.Errorf("no warning: %s", logs.String())
	}
}

// Images are inlined and embedded files indexed with the connector's credentials, which read
// more than the page's audience: an editor of an open page who shows an attachment of a
// restricted page (or points an <img> at the REST API or at another page's view) had that
// content copied into the open page's output, under the open page's permissions. Only the
// page's own attachments and the site's static resources are fetched now; other site URLs are
// left as links, with a warning.
func TestAttackPageCannotInlineAnotherPagesContent(t *testing.T) {
	for _, cloud := range []bool{true, false} {
		t.Run(map[bool]string{true: "cloud", false: "data center"}[cloud], func(t *testing.T) {
			var f = cloudSite(t)
			host := "11"
			if !cloud {
				f = dcSite(t)
				host = "201"
				f.Pages = append(f.Pages, confluencetest.Page{ID: "12", Space: "ENG", Title: "Restricted plan", Version: 1,
					Body: "<p>Only a few people may read this plan.</p>", ReadUsers: []string{"acc-carol"}})
			}
			f.Files["download/attachments/12/plan.png"] = []byte("\x89PNG secret plan of page twelve")
			f.Files["download/attachments/12/plan.pdf"] = []byte("%PDF-1.4 secret plan of page twelve")
			f.Files["download/attachments/"+host+"/own.png"] = []byte("\x89PNG own image")
			f.Files["images/icons/emoticons/smile.png"] = []byte("\x89PNG smile")
			site, _ := url.Parse(f.SiteURL())
			w := site.Path
			for i := range f.Pages {
				if f.Pages[i].ID == host {
					f.Pages[i].Body += `<p><img src="/wiki/download/attachments/12/plan.png"></p>` +
						`<p><img src="/wiki/download/thumbnails/12/plan.png"></p>` +
						`<p><img src="/wiki/rest/api/content/12?expand=body.storage"></p>` +
						`<p><img src="/wiki/pages/viewpage.action?pageId=12"></p>` +
						`<p><img src="/wiki/download/attachments/` + host + `/own.png"></p>` +
						`<p><img src="/wiki/images/icons/emoticons/smile.png"></p>` +
						`<p><a class="confluence-embedded-file" data-linked-resource-type="attachment" href="/wiki/download/attachments/12/plan.pdf">plan</a></p>`
					f.Pages[i].Body = strings.ReplaceAll(f.Pages[i].Body, `"/wiki/`, `"`+w+`/`)
				}
			}
			cfg := Config{URL: f.SiteURL(), ExtractImages: true, ExtractFiles: true}
			if cloud {
				cfg = cloudConfig(f, &sleeper{})
				cfg.ExtractImages, cfg.ExtractFiles = true, true
				cfg.Spaces = []string{"DEV"}
				cfg.MediaHosts = []string{f.MediaHost()}
			} else {
				cfg.Token = f.PAT
				cfg.Spaces = []string{"ENG"}
			}
			src, err := testSource(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var logs bytes.Buffer
			src.c.log = slog.New(slog.NewTextHandler(&logs, nil))
			docs, err := listDocs(t, src)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				if strings.Contains(d.ID, "plan.pdf") {
					t.Errorf("another page's attachment listed as %s, with page %s's permissions", d.ID, host)
				}
			}
			var pageDoc connectors.Document
			for _, d := range docs {
				if strings.HasSuffix(d.ID, "/"+host+".html") {
					pageDoc = d
				}
			}
			listed := len(f.Log())
			html := open(t, src, pageDoc)
			inlined := html
			for _, part := range strings.Split(html, "data:image/png;base64,")[1:] {
				end := strings.IndexByte(part, '"')
				if b, err := base64.StdEncoding.DecodeString(part[:max(end, 0)]); err == nil {
					inlined += string(b)
				}
			}
			for _, secret := range []string{"secret plan of page twelve", "Only a few people"} {
				if strings.Contains(inlined, secret) {
					t.Errorf("page %s carries %q of restricted page 12", host, secret)
				}
			}
			for _, r := range f.Log()[listed:] {
				if strings.Contains(r, "/12/plan") || strings.Contains(r, "content/12?") || strings.Contains(r, "pageId=12") {
					t.Errorf("fetched %s while reading page %s", r, host)
				}
			}
			// The page's own attachment and the site's icons are still inlined.
			for _, own := range []string{"\x89PNG own image", "\x89PNG smile"} {
				if !strings.Contains(html, base64.StdEncoding.EncodeToString([]byte(own))) {
					t.Errorf("%q not inlined: %s", own, html)
				}
			}
			if !strings.Contains(logs.String(), "not an attachment of this page") {
				t.Errorf("no warning for the skipped images: %s", logs.String())
			}
		})
	}
}

// Confluence renders a page's view for whoever asks, here the connector's account: the Include
// Page and Excerpt Include macros put another page's content into this page's HTML, and the
// report macros (Page Properties Report, Content by Label, Children, Recently Updated, Blog
// Posts, Page Tree) other pages' titles, properties and excerpts — restricted pages included,
// which the page's readers cannot open. That content was emitted under this page's
// permissions; the output of such macros is dropped now, with a warning.
func TestAttackTranscludedPagesAreDropped(t *testing.T) {
	f := cloudSite(t)
	f.Pages[0].Body += `<div class="conf-macro output-block" data-hasbody="false" data-macro-name="include" data-macro-id="m1"><p>Only a few people may read this plan.</p></div>` +
		`<span class="conf-macro output-inline" data-macro-name="excerpt-include"><b>excerpt of a restricted page</b></span>` +
		`<div class="conf-macro output-block" data-macro-name="detailssummary"><table><tr><td>restricted property</td></tr></table></div>` +
		`<div class="conf-macro output-block" data-macro-name="children"><ul><li>Restricted plan title</li></ul></div>` +
		`<div class="conf-macro output-block" data-macro-name="info"><p>The page's own info panel.</p></div>`
	cfg := cloudConfig(f, &sleeper{})
	cfg.Spaces, cfg.MaxDocs = []string{"DEV"}, 1
	src, err := testSource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	src.c.log = slog.New(slog.NewTextHandler(&logs, nil))
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	html := open(t, src, byID(docs)["DEV/11.html"])
	for _, leaked := range []string{"Only a few people", "excerpt of a restricted page", "restricted property", "Restricted plan title"} {
		if strings.Contains(html, leaked) {
			t.Errorf("page 11 carries %q from other pages", leaked)
		}
	}
	if !strings.Contains(html, "own info panel") || !strings.Contains(html, "development space") {
		t.Errorf("the page's own content was dropped: %s", html)
	}
	if !strings.Contains(logs.String(), "another page") {
		t.Errorf("no warning: %s", logs.String())
	}
}
