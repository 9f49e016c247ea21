// Package confluence is the Confluence source connector. It lists the pages of the configured
// spaces (Cloud through the v2 REST API, Data Center through v1), hands each page to the engine
// as an HTML document whose h1 is the page title, optionally inlines images and yields embedded
// attachments as documents of their own, and records the page's permissions in
// metadata.data_source.permissions_data in the reference connector's shape (platform.md §2 and
// §4), computed so as never to expose more than Confluence does: view restrictions inherited
// from ancestors, every page of space permissions, and no page emitted without permissions on
// Cloud (see README.md).
package confluence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/internal/netguard"
)

func init() {
	connectors.Register(connectors.Kind{
		Type:    "confluence",
		Secrets: secretKeys,
		Targets: []string{"url", "username", "cloud_id"},
		Validate: func(config map[string]any, env connectors.Env) error {
			_, err := parseForEnv(config, env)
			return err
		},
		NewSource: func(config map[string]any, env connectors.Env) (connectors.Source, error) {
			c, err := parseForEnv(config, env)
			if err != nil {
				return nil, err
			}
			if c.HTTPClient == nil {
				// Outbound connections refuse private addresses unless the operator allows them.
				c.HTTPClient = netguard.NewClient(netguard.Options{AllowPrivate: env.AllowPrivateNetwork})
			}
			return NewSource(c)
		},
	})
}

// parseForEnv is ParseConfig plus the operator's network policy: a site URL (or media host)
// that names a non-public address is refused up front, with a 422 on its key, unless private
// networks are allowed. Names are judged again, resolved, when connecting.
func parseForEnv(config map[string]any, env connectors.Env) (Config, error) {
	c, err := ParseConfig(config)
	if err != nil {
		return c, err
	}
	var errs []schema.FieldError
	if err := netguard.CheckURL(c.URL, env.AllowPrivateNetwork); err != nil {
		errs = append(errs, schema.FieldError{Type: "value_error", Loc: []string{"body", "config", "url"}, Msg: "Value error, url: " + err.Error(), Input: c.URL})
	}
	for i, h := range c.MediaHosts {
		if env.AllowPrivateNetwork {
			break
		}
		host := h
		if hp, _, err := net.SplitHostPort(h); err == nil {
			host = hp
		}
		if err := netguard.CheckHost(host); err != nil {
			errs = append(errs, schema.FieldError{Type: "value_error", Loc: []string{"body", "config", "media_hosts", strconv.Itoa(i)}, Msg: "Value error, media host: " + err.Error(), Input: h})
		}
	}
	if len(errs) > 0 {
		return Config{}, &schema.ValidationError{Errors: errs}
	}
	return c, nil
}

var _ connectors.Source = (*Source)(nil)

// Source reads pages (and, with ExtractFiles, their attachments) from a Confluence site.
type Source struct {
	cfg Config
	c   *client
	// siteURL is the configured URL without a trailing slash: data_source urls are built on it.
	siteURL string
}

// NewSource returns a source for cfg. It does not contact the site.
func NewSource(cfg Config) (*Source, error) {
	if cfg.MaxSpaces <= 0 {
		cfg.MaxSpaces = defaultMaxSpaces
	}
	if cfg.MaxDocs <= 0 {
		cfg.MaxDocs = defaultMaxDocs
	}
	c, err := newClient(cfg)
	if err != nil {
		return nil, err
	}
	return &Source{cfg: cfg, c: c, siteURL: strings.TrimRight(strings.TrimSpace(cfg.URL), "/")}, nil
}

// space is what listing needs of a space: its key (for v1 and metadata) and id (v2, permissions).
type space struct {
	ID  string
	Key string
}

// pageInfo is one listed page.
type pageInfo struct {
	ID string
	// SpaceID is the page's space now (Cloud v2 answers carry it): a page moved to another
	// space after listing is judged by that space's permissions.
	SpaceID  string
	Title    string
	Version  string
	Created  string
	Modified string
}

// page is a fetched page with its rendered body.
type page struct {
	pageInfo
	Body string
}

// listSpaces returns the configured spaces (checked to exist) or, without a list, every visible
// space up to MaxSpaces.
func (s *Source) listSpaces(ctx context.Context) ([]space, error) {
	if len(s.cfg.Spaces) > 0 {
		out := make([]space, 0, len(s.cfg.Spaces))
		for _, key := range s.cfg.Spaces {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			sp, err := s.lookupSpace(ctx, key)
			if err != nil {
				return nil, err
			}
			out = append(out, sp)
		}
		return out, nil
	}
	var out []space
	limit := min(s.cfg.MaxSpaces, 250)
	ref := "rest/api/space?limit=" + strconv.Itoa(limit)
	if s.c.cloud {
		ref = "api/v2/spaces?limit=" + strconv.Itoa(limit)
	}
	for ref != "" && len(out) < s.cfg.MaxSpaces {
		var resp listResponse
		if err := s.c.getJSON(ctx, ref, "list spaces", &resp); err != nil {
			return nil, err
		}
		for _, r := range resp.Results {
			if len(out) == s.cfg.MaxSpaces {
				break
			}
			out = append(out, space{ID: idString(r["id"]), Key: str(r["key"])})
		}
		ref = s.c.nextRef(resp.Links.Next, s.c.cloud)
		if len(resp.Results) == 0 {
			break
		}
	}
	return out, nil
}

type listResponse struct {
	Results []map[string]any `json:"results"`
	Links   struct {
		Next string `json:"next"`
	} `json:"_links"`
}

// lookupSpace finds one space by key. v2 searches by key (a personal space may answer to its
// alias, so those are also searched among personal spaces); v1 reads the space directly.
func (s *Source) lookupSpace(ctx context.Context, key string) (space, error) {
	what := fmt.Sprintf("space %q", key)
	if !s.c.cloud {
		var r map[string]any
		if err := s.c.getJSON(ctx, "rest/api/space/"+url.PathEscape(key), what, &r); err != nil {
			return space{}, err
		}
		return space{ID: idString(r["id"]), Key: str(r["key"])}, nil
	}
	var resp listResponse
	if err := s.c.getJSON(ctx, "api/v2/spaces?limit=1&keys="+url.QueryEscape(key), what, &resp); err != nil {
		return space{}, err
	}
	for _, r := range resp.Results {
		if str(r["key"]) == key || str(r["alias"]) == key {
			return space{ID: idString(r["id"]), Key: str(r["key"])}, nil
		}
	}
	if strings.HasPrefix(key, "~") {
		ref := "api/v2/spaces?limit=250&type=personal&status=current"
		for pages := 0; ref != "" && pages < 1000; pages++ {
			var resp listResponse
			if err := s.c.getJSON(ctx, ref, what, &resp); err != nil {
				return space{}, err
			}
			for _, r := range resp.Results {
				if str(r["key"]) == key || str(r["alias"]) == key {
					return space{ID: idString(r["id"]), Key: str(r["key"])}, nil
				}
			}
			ref = s.c.nextRef(resp.Links.Next, true)
		}
	}
	return space{}, fmt.Errorf("confluence: failed to find space %q (check the key, not the display name, and that the user can see it)", key)
}

// listPages lists up to MaxDocs pages of a space, following pagination. Only current pages are
// listed unless IncludeArchived: v2 lists current and archived pages when no status is given,
// v1 current ones only, so both are asked explicitly (and answers are filtered again).
func (s *Source) listPages(ctx context.Context, sp space, yield func(pageInfo) error) error {
	limit := min(s.cfg.MaxDocs, 250)
	var refs []string
	if s.c.cloud {
		ref := "api/v2/pages?space-id=" + url.QueryEscape(sp.ID) + "&limit=" + strconv.Itoa(limit) + "&status=current"
		if s.cfg.IncludeArchived {
			ref += "&status=archived"
		}
		refs = []string{ref}
	} else {
		statuses := []string{"current"}
		if s.cfg.IncludeArchived {
			statuses = append(statuses, "archived")
		}
		for _, st := range statuses {
			refs = append(refs, "rest/api/content?spaceKey="+url.QueryEscape(sp.Key)+"&type=page&status="+st+"&limit="+strconv.Itoa(limit)+"&expand=version,history")
		}
	}
	n := 0
	for _, ref := range refs {
		for ref != "" && n < s.cfg.MaxDocs {
			var resp listResponse
			if err := s.c.getJSON(ctx, ref, fmt.Sprintf("list pages of space %q", sp.Key), &resp); err != nil {
				return err
			}
			for _, r := range resp.Results {
				if n == s.cfg.MaxDocs {
					break
				}
				if t := str(r["type"]); t != "" && t != "page" {
					continue
				}
				switch str(r["status"]) {
				case "", "current":
				case "archived":
					if !s.cfg.IncludeArchived {
						continue
					}
				default:
					continue // draft, trashed…
				}
				n++
				if err := yield(s.pageInfo(r)); err != nil {
					return err
				}
			}
			ref = s.c.nextRef(resp.Links.Next, s.c.cloud)
			if len(resp.Results) == 0 {
				break
			}
		}
	}
	return nil
}

// pageInfo reads a page object of either API generation.
func (s *Source) pageInfo(r map[string]any) pageInfo {
	p := pageInfo{ID: idString(r["id"]), Title: str(r["title"]), Version: idString(dig(r, "version", "number"))}
	if s.c.cloud {
		p.SpaceID = idString(r["spaceId"])
		p.Created, p.Modified = str(r["createdAt"]), str(dig(r, "version", "createdAt"))
	} else {
		p.Created, p.Modified = str(dig(r, "history", "createdDate")), str(dig(r, "version", "when"))
	}
	return p
}

// fetchPage reads a page with its rendered (view) body. The storage format is never used: its
// images and files are macros, not the <img> and <a> tags extraction relies on.
func (s *Source) fetchPage(ctx context.Context, id string) (page, error) {
	what := "page " + id
	var r map[string]any
	ref := "rest/api/content/" + url.PathEscape(id) + "?expand=history.lastUpdated,version,body.view"
	if s.c.cloud {
		ref = "api/v2/pages/" + url.PathEscape(id) + "?body-format=view&include-version=true"
	}
	if err := s.c.getJSON(ctx, ref, what, &r); err != nil {
		return page{}, err
	}
	body, ok := dig(r, "body", "view", "value").(string)
	if !ok {
		return page{}, fmt.Errorf("confluence: %s: the response has no view body", what)
	}
	return page{pageInfo: s.pageInfo(r), Body: body}, nil
}

// permissionsErrorKey marks, in a listed document's data_source, why its permissions could not
// be determined; Open then fails the file with that reason instead of letting it be indexed
// without access control. It never reaches elements: such a document is never opened.
const permissionsErrorKey = "permissions_error"

// runCache holds what one listing reads once: the ancestors and restrictions of pages that are
// ancestors of many.
type runCache struct {
	restrictions map[string]map[string]any
	ancestors    map[string][]string
}

// maxDepth bounds the page tree walked up from one page.
const maxDepth = 1000

// ancestors returns a page's ancestors top-down. An answer of the ancestors endpoint may stop
// short of the root (it is capped), so the walk asks again from the highest ancestor returned
// until an answer is empty; the chains of ancestors are cached for the run.
func (s *Source) ancestors(ctx context.Context, pageID string, cache *runCache, depth int) ([]string, error) {
	if chain, ok := cache.ancestors[pageID]; ok {
		return chain, nil
	}
	if depth > maxDepth {
		return nil, fmt.Errorf("confluence: ancestors of page %s: deeper than %d levels", pageID, maxDepth)
	}
	batch, err := s.c.ancestorBatch(ctx, pageID)
	if err != nil {
		return nil, err
	}
	chain := batch
	if len(batch) > 0 {
		above, err := s.ancestors(ctx, batch[0], cache, depth+len(batch))
		if err != nil {
			return nil, err
		}
		chain = append(slices.Clone(above), batch...)
	}
	cache.ancestors[pageID] = chain
	return chain, nil
}

// pagePermissions computes a page's permissions_data from its restrictions, its ancestors' and
// the space's assignments (see computePermissions).
func (s *Source) pagePermissions(ctx context.Context, pageID string, spacePerms []any, cache *runCache) (any, error) {
	anc, err := s.ancestors(ctx, pageID, cache, 0)
	if err != nil {
		return nil, err
	}
	chain := make([]map[string]any, 0, len(anc)+1)
	for _, id := range append(anc, pageID) {
		r, ok := cache.restrictions[id]
		if !ok {
			if r, err = s.c.pageRestrictions(ctx, id); err != nil {
				return nil, err
			}
			cache.restrictions[id] = r
		}
		chain = append(chain, r)
	}
	perms, err := computePermissions(chain, spacePerms)
	if err != nil {
		return nil, fmt.Errorf("confluence: page %s: %w", pageID, err)
	}
	return perms, nil
}

// List yields every page of the selected spaces (attachments first when ExtractFiles is set, as
// the reference returns them), each with its data_source metadata and permissions. On Cloud a
// page whose permissions cannot be determined (after retries) is still listed, marked so that
// its Open fails with the reason: it is never emitted with null permissions_data. The document
// version carries a digest of the permissions, so an incremental run re-emits a page whose
// permissions alone changed.
func (s *Source) List(ctx context.Context, yield func(connectors.Document) error) error {
	spaces, err := s.listSpaces(ctx)
	if err != nil {
		return err
	}
	processed := epochString(time.Now())
	cache := &runCache{restrictions: map[string]map[string]any{}, ancestors: map[string][]string{}}
	for _, sp := range spaces {
		// Space permissions are read once per space, on Cloud only: Data Center has no REST
		// endpoint for them (its pages carry null permissions_data, documented).
		var spacePerms []any
		var spaceErr error
		if s.c.cloud {
			spacePerms, spaceErr = s.c.spacePermissions(ctx, sp.ID)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
		err := s.listPages(ctx, sp, func(p pageInfo) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			doc := s.pageDocument(sp, p, processed)
			if s.c.cloud {
				perms, err := spacePerms, spaceErr
				var pd any
				if err == nil {
					pd, err = s.pagePermissions(ctx, p.ID, perms, cache)
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				var digest string
				if err == nil {
					digest, err = aclDigest(pd)
				}
				if err != nil {
					s.c.log.Warn("confluence: permissions unknown; the page is listed to fail", "page", p.ID, "space", sp.Key, "err", err)
					doc.DataSource[permissionsErrorKey] = err.Error()
					doc.Version = p.Version + "+acl.unknown"
				} else {
					doc.DataSource["permissions_data"] = pd
					// The reference's field for an ACL version (its SharePoint connector sets it).
					doc.DataSource["permissions_version"] = digest
					doc.Version = p.Version + "+acl." + digest
				}
			}
			if s.cfg.ExtractFiles {
				full, err := s.fetchPage(ctx, p.ID)
				var he *HTTPError
				switch {
				case ctx.Err() != nil:
					return ctx.Err()
				case errors.As(err, &he) && he.StatusCode == http.StatusUnauthorized:
					return err
				case err == nil:
					for _, att := range s.attachments(full, doc) {
						if err := yield(att); err != nil {
							return err
						}
					}
				}
				// Otherwise the page is still yielded: opening it fails again and the run records
				// that one file as failed instead of losing the whole listing.
			}
			return yield(doc)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *Source) pageDocument(sp space, p pageInfo, processed string) connectors.Document {
	return connectors.Document{
		ID:          sp.Key + "/" + p.ID + ".html",
		Filename:    p.ID + ".html",
		Version:     p.Version,
		ContentType: "text/html",
		DataSource: map[string]any{
			"url":     s.siteURL + "/pages/" + p.ID,
			"version": nullable(p.Version),
			// The reference calls the space key "space_id" here (sic).
			"record_locator":   map[string]any{"space_id": sp.Key, "document_id": p.ID},
			"date_created":     nullable(p.Created),
			"date_modified":    nullable(p.Modified),
			"date_processed":   processed,
			"permissions_data": nil,
			"filesize_bytes":   nil,
		},
	}
}

// Open returns a page as an HTML document (title as h1, images inlined when asked) or an
// attachment's bytes.
func (s *Source) Open(ctx context.Context, doc connectors.Document) (io.ReadCloser, error) {
	if reason, ok := doc.DataSource[permissionsErrorKey].(string); ok {
		return nil, fmt.Errorf("confluence: %s: not indexed because its permissions could not be determined when listed (%s); the next run tries again", doc.ID, reason)
	}
	spaceKey, rest, ok := strings.Cut(doc.ID, "/")
	if !ok || spaceKey == "" || rest == "" {
		return nil, fmt.Errorf("confluence: document id %q is not <space>/<page>.html or <space>/<page>/<file>", doc.ID)
	}
	if pageID, file, isAttachment := strings.Cut(rest, "/"); isAttachment {
		rc, err := s.openAttachment(ctx, doc, pageID, file)
		if err != nil {
			return nil, err
		}
		if s.c.cloud {
			// An attachment carries its page's permissions: checked again the same way.
			if err := s.recheckPermissions(ctx, doc, spaceKey, pageID, ""); err != nil {
				rc.Close()
				return nil, err
			}
		}
		return rc, nil
	}
	pageID := strings.TrimSuffix(rest, ".html")
	p, err := s.fetchPage(ctx, pageID)
	if err != nil {
		return nil, err
	}
	if s.c.cloud {
		// After the content is read: what is indexed is never newer than the check.
		if err := s.recheckPermissions(ctx, doc, spaceKey, pageID, p.SpaceID); err != nil {
			return nil, err
		}
	}
	html, err := s.pageHTML(ctx, p)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(strings.NewReader(html)), nil
}

// ErrPermissionsChanged is returned by Open for a page whose permissions changed between the
// listing and the read: its content may be meant for fewer people than the listed
// permissions_data says.
var ErrPermissionsChanged = errors.New("its permissions changed after it was listed; not indexed with the old ones (the next run indexes it with the new)")

// recheckPermissions computes a Cloud page's permissions again (its space's, its ancestors'
// and its own restrictions: a page restricted, or moved under a restricted parent or to another
// space, since the listing) and fails unless they are the ones it was listed with. Listing and
// reading may be hours apart on a large site; without this, content written after a page was
// restricted went out with the permissions from before.
func (s *Source) recheckPermissions(ctx context.Context, doc connectors.Document, spaceKey, pageID, spaceID string) error {
	listed, _ := doc.DataSource["permissions_version"].(string)
	if listed == "" {
		return fmt.Errorf("confluence: page %s: listed without a permissions digest; not indexed", pageID)
	}
	if spaceID == "" {
		sp, err := s.lookupSpace(ctx, spaceKey)
		if err != nil {
			return err
		}
		spaceID = sp.ID
	}
	fail := func(err error) error {
		return fmt.Errorf("confluence: page %s: permissions could not be checked again before indexing: %w", pageID, err)
	}
	spacePerms, err := s.c.spacePermissions(ctx, spaceID)
	if err != nil {
		return fail(err)
	}
	pd, err := s.pagePermissions(ctx, pageID, spacePerms, &runCache{restrictions: map[string]map[string]any{}, ancestors: map[string][]string{}})
	if err != nil {
		return fail(err)
	}
	now, err := aclDigest(pd)
	if err != nil {
		return fail(err)
	}
	if now != listed {
		return fmt.Errorf("confluence: page %s: %w", pageID, ErrPermissionsChanged)
	}
	return nil
}

// Check reads one space (proving the URL and credentials), then each configured space; on Cloud
// it also reads one space's permissions, without which no page could be indexed (a token
// lacking that scope would otherwise fail every file). All failures are reported together.
func (s *Source) Check(ctx context.Context) error {
	ref := "rest/api/space?limit=1"
	if s.c.cloud {
		ref = "api/v2/spaces?limit=1"
	}
	var resp listResponse
	if err := s.c.getJSON(ctx, ref, "list spaces", &resp); err != nil {
		return err
	}
	// The space whose permissions are probed: the first configured one found, else the first
	// visible one.
	var probe *space
	var errs []error
	for _, key := range s.cfg.Spaces {
		sp, err := s.lookupSpace(ctx, key)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, err)
			continue
		}
		if probe == nil {
			probe = &sp
		}
	}
	if probe == nil && len(s.cfg.Spaces) == 0 && len(resp.Results) > 0 {
		probe = &space{ID: idString(resp.Results[0]["id"]), Key: str(resp.Results[0]["key"])}
	}
	if s.c.cloud && probe != nil && probe.ID != "" {
		var perms listResponse
		err := s.c.getJSON(ctx, "api/v2/spaces/"+url.PathEscape(probe.ID)+"/permissions?limit=1", fmt.Sprintf("permissions of space %q", probe.Key), &perms)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			errs = append(errs, fmt.Errorf("%w (pages are indexed only with their permissions: a scoped token needs read:space.permission:confluence)", err))
		}
	}
	return errors.Join(errs...)
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// idString renders an id or version number that may be a JSON string or number.
func idString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// epochString formats a time as Python's str(float) of a Unix timestamp.
func epochString(t time.Time) string {
	s := strconv.FormatFloat(float64(t.Unix())+float64(t.Nanosecond())/1e9, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// attachmentDocument derives an attachment's document from its page's (platform.md §2.7).
func attachmentDocument(pageDoc connectors.Document, spaceKey, pageID, fileURL, filename string) connectors.Document {
	ds := maps.Clone(pageDoc.DataSource)
	ds["url"] = fileURL
	rl, _ := ds["record_locator"].(map[string]any)
	rl = maps.Clone(rl)
	if rl == nil {
		rl = map[string]any{}
	}
	// The reference sets parent_url to the attachment's own URL (sic), not the page's.
	rl["parent_url"] = fileURL
	ds["record_locator"] = rl
	if p, ok := ds["permissions_data"].([]any); ok {
		ds["permissions_data"] = deepCopy(p)
	}
	version := pageDoc.Version
	if u, err := url.Parse(fileURL); err == nil {
		if v := u.Query().Get("version"); v != "" {
			version += "/" + v
		}
		if m := u.Query().Get("modificationDate"); m != "" {
			version += "/" + m
		}
	}
	return connectors.Document{
		ID:         spaceKey + "/" + pageID + "/" + filename,
		Filename:   filename,
		Version:    version,
		DataSource: ds,
	}
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	}
	return v
}

// fileName is the unescaped last path segment of an attachment URL.
func fileName(u *url.URL) string {
	name := path.Base(u.Path)
	if un, err := url.PathUnescape(name); err == nil {
		name = un
	}
	// Neither separator survives: the name is one segment of the document's ID.
	return strings.NewReplacer("/", "_", "\\", "_").Replace(name)
}
