// Package confluencetest is a fake Confluence for tests (of the connector and of the platform
// running it): the documented v1/v2 REST shapes and the behaviours of real sites listed on Site.
package confluencetest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// Site serves the REST shapes of platform.md §4: v1 (Cloud and Data Center) and, for
// Cloud, v2 with cursor pagination and space permissions. Page size is capped by the server so
// every listing paginates. It also serves what real Cloud sites do and the first fake did not:
// 429/503 with Retry-After (developer.atlassian.com/cloud/confluence/rate-limiting/), page
// ancestors (v2 GET pages/{id}/ancestors, top-down), the legacy /download/attachments path
// answering 401 to API tokens while the REST download redirects to a media host, archived pages,
// the API gateway path /ex/confluence/{cloudId}/wiki and the site's /_edge/tenant_info.
type Site struct {
	Srv    *httptest.Server
	Media  *httptest.Server // the media host attachment downloads redirect to (Cloud)
	Prefix string           // context path: "/wiki" (Cloud) or "/confluence" (Data Center)
	Cloud  bool

	User, Secret, PAT string
	PageSize          int
	// PermPageSize caps space-permission pages (25, the size the reference reads once).
	PermPageSize int

	// CloudID enables the gateway prefix /ex/confluence/{CloudID}/wiki and tenant_info;
	// ScopedOnly makes the site itself refuse every credential (as it does scoped tokens).
	CloudID    string
	ScopedOnly bool
	OAuth      string // an OAuth 2.0 access token accepted as Bearer on the gateway

	// faults script failures: the first matching entry with times left answers instead.
	faults []*fault
	// MediaAuth counts media-host requests that carried an Authorization header (a leak).
	MediaAuth atomic.Int32

	Spaces []Space
	Pages  []Page
	// files are served as-is at prefix+path (attachments, images).
	Files map[string][]byte

	// broken page ids answer 500 when fetched with their body.
	Broken map[string]bool

	mu       sync.Mutex
	requests []string
}

// fault answers status (with Retry-After when set; 200 means a body cut short) to requests whose
// path (below the context path, without query) contains match, or equals it when match ends
// with "$", times times (negative: always).
type fault struct {
	match      string
	status     int
	retryAfter string
	times      int
}

func (f *Site) Fail(match string, status int, retryAfter string, times int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, &fault{match: match, status: status, retryAfter: retryAfter, times: times})
}

func (f *Site) fault(path string) *fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ft := range f.faults {
		hit := strings.Contains(path, ft.match)
		if exact, ok := strings.CutSuffix(ft.match, "$"); ok {
			hit = path == exact
		}
		if ft.times != 0 && hit {
			if ft.times > 0 {
				ft.times--
			}
			return ft
		}
	}
	return nil
}

type Space struct {
	ID       int
	Key      string
	Personal bool
	Alias    string
	Perms    []map[string]any
}

type Page struct {
	ID, Space, Title string
	// Body may contain {{SITE}}, replaced by the server's URL with context path.
	Body              string
	Version           int
	Created, Modified string
	// Restrictions: account ids / group ids per operation.
	ReadUsers, ReadGroups, EditUsers, EditGroups []string
	// Hidden pages are restricted so that the API user cannot see them.
	Hidden bool
	// Parent is the parent page's id ("" for a top-level page).
	Parent string
	// Status is "current" (when empty) or "archived".
	Status string
}

func (p Page) status() string {
	if p.Status == "" {
		return "current"
	}
	return p.Status
}

// New starts a fake Confluence (Cloud with cloud, else Data Center) and its media host, both
// closed when the test ends.
func New(t testing.TB, cloud bool) *Site {
	f := &Site{Cloud: cloud, PageSize: 2, PermPageSize: 25, Files: map[string][]byte{}, User: "bot@example.com", Secret: "s3cr3t-token", PAT: "pat-0123456789"}
	f.Prefix = "/confluence"
	if cloud {
		f.Prefix = "/wiki"
	}
	f.Srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Srv.Close)
	f.Media = httptest.NewServer(http.HandlerFunc(f.serveMedia))
	t.Cleanup(f.Media.Close)
	return f
}

// mediaHost is the media server's host:port, to allow in Config.MediaHosts.
func (f *Site) MediaHost() string { return strings.TrimPrefix(f.Media.URL, "http://") }

// serveMedia serves signed download URLs: /file/<attachment id>?token=<signature>. Like the
// real media host it needs no Authorization (the signature is the credential).
func (f *Site) serveMedia(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		f.MediaAuth.Add(1)
	}
	id := strings.TrimPrefix(r.URL.Path, "/file/")
	for _, a := range f.attachmentList() {
		if a.id == id && r.URL.Query().Get("token") == "sig-"+id {
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(f.Files[a.path])
			return
		}
	}
	http.Error(w, "bad signature", http.StatusForbidden)
}

type attachment struct{ id, page, title, path string }

// attachmentList derives attachments from files named download/attachments/<page>/<file>,
// with stable ids "att<n>" in name order.
func (f *Site) attachmentList() []attachment {
	var keys []string
	for k := range f.Files {
		if strings.HasPrefix(k, "download/attachments/") {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	var out []attachment
	for i, k := range keys {
		page, title, _ := strings.Cut(strings.TrimPrefix(k, "download/attachments/"), "/")
		out = append(out, attachment{id: "att" + strconv.Itoa(1000+i), page: page, title: title, path: k})
	}
	return out
}

func (f *Site) SiteURL() string { return f.Srv.URL + f.Prefix }

func (f *Site) Log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.requests)
}

func (f *Site) authorized(r *http.Request) bool {
	h := r.Header.Get("Authorization")
	if u, p, ok := r.BasicAuth(); ok {
		return u == f.User && p == f.Secret
	}
	return h == "Bearer "+f.PAT
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (f *Site) v1Error(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"statusCode": status, "data": map[string]any{"authorized": status != 401, "valid": true, "errors": []any{}, "successful": false}, "message": msg})
}

func (f *Site) v2Error(w http.ResponseWriter, status int, code, title string) {
	writeJSON(w, status, map[string]any{"errors": []any{map[string]any{"status": status, "code": code, "title": title, "detail": nil}}})
}

func (f *Site) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.RequestURI())
	f.mu.Unlock()
	if r.URL.Path == "/_edge/tenant_info" && f.CloudID != "" {
		// Public, answered without credentials: {"cloudId": "<uuid>"}
		// (support.atlassian.com/jira/kb/retrieve-my-atlassian-sites-cloud-id).
		writeJSON(w, 200, map[string]any{"cloudId": f.CloudID})
		return
	}
	gateway := false
	path := r.URL.Path
	if f.CloudID != "" {
		if rest, ok := strings.CutPrefix(path, "/ex/confluence/"+f.CloudID); ok {
			path, gateway = rest, true
		}
	}
	p, ok := strings.CutPrefix(path, f.Prefix+"/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	if ft := f.fault(p); ft != nil {
		if ft.retryAfter != "" {
			w.Header().Set("Retry-After", ft.retryAfter)
		}
		switch ft.status {
		case 429:
			f.v2Error(w, 429, "TOO_MANY_REQUESTS", "Rate limit exceeded")
		case 200:
			// A 200 whose body is cut short: the connection ends before Content-Length bytes.
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", "4096")
			w.WriteHeader(200)
			fmt.Fprint(w, `{"results": [`)
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(ft.status)
			fmt.Fprint(w, "<html>Service Unavailable</html>")
		}
		return
	}
	authorized := f.authorized(r)
	switch {
	case gateway:
		authorized = authorized || (f.OAuth != "" && r.Header.Get("Authorization") == "Bearer "+f.OAuth)
	case f.ScopedOnly:
		authorized = false
	}
	if f.Cloud && strings.HasPrefix(p, "download/") {
		// Atlassian removed API-token access to the legacy download path on Cloud.
		authorized = false
	}
	if !authorized {
		w.Header().Set("Content-Type", "text/plain")
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, "Basic authentication failed")
		return
	}
	q := r.URL.Query()
	switch {
	case p == "rest/api/space":
		f.v1Spaces(w, q)
	case strings.HasPrefix(p, "rest/api/space/"):
		key := strings.TrimPrefix(p, "rest/api/space/")
		if sp := f.space(key); sp != nil {
			writeJSON(w, 200, f.v1Space(*sp))
			return
		}
		f.v1Error(w, 404, "No space with key : "+key)
	case p == "rest/api/content":
		f.v1Pages(w, q)
	case strings.HasPrefix(p, "rest/api/content/") && strings.HasSuffix(p, "/restriction/byOperation"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, "rest/api/content/"), "/restriction/byOperation")
		pg := f.page(id)
		if pg == nil {
			f.v1Error(w, 404, "No content found with id : "+id)
			return
		}
		writeJSON(w, 200, f.restrictions(*pg))
	case strings.HasPrefix(p, "rest/api/content/") && strings.Contains(p, "/child/attachment/") && strings.HasSuffix(p, "/download"):
		// GET /wiki/rest/api/content/{id}/child/attachment/{attachmentId}/download: "Redirects
		// the client to a URL that serves an attachment's binary data" (Cloud only).
		rest := strings.TrimSuffix(strings.TrimPrefix(p, "rest/api/content/"), "/download")
		page, att, _ := strings.Cut(rest, "/child/attachment/")
		for _, a := range f.attachmentList() {
			if a.page == page && a.id == att && f.Cloud {
				http.Redirect(w, r, f.Media.URL+"/file/"+a.id+"?token=sig-"+a.id, http.StatusFound)
				return
			}
		}
		f.v1Error(w, 404, "No attachment found")
	case strings.HasPrefix(p, "rest/api/content/"):
		id := strings.TrimPrefix(p, "rest/api/content/")
		pg := f.page(id)
		if pg == nil {
			f.v1Error(w, 404, "No content found with id : "+id)
			return
		}
		writeJSON(w, 200, f.v1Page(*pg, true))
	case strings.HasPrefix(p, "api/v2/"):
		if !f.Cloud {
			// Data Center has no v2 API.
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(404)
			fmt.Fprint(w, "<html><body>Page not found</body></html>")
			return
		}
		f.v2(w, strings.TrimPrefix(p, "api/v2/"), q)
	default:
		if data, ok := f.Files[p]; ok {
			w.Write(data)
			return
		}
		f.v1Error(w, 404, "not found: "+p)
	}
}

func (f *Site) space(key string) *Space {
	for i := range f.Spaces {
		if f.Spaces[i].Key == key {
			return &f.Spaces[i]
		}
	}
	return nil
}

func (f *Site) page(id string) *Page {
	for i := range f.Pages {
		if f.Pages[i].ID == id && !f.Pages[i].Hidden {
			return &f.Pages[i]
		}
	}
	return nil
}

func (f *Site) visiblePages(space string) []Page {
	var out []Page
	for _, p := range f.Pages {
		if p.Space == space && !p.Hidden {
			out = append(out, p)
		}
	}
	return out
}

// window applies start/limit with the server's own cap.
func (f *Site) window(q url.Values, n int) (start, end, limit int) {
	start, _ = strconv.Atoi(q.Get("start"))
	limit, _ = strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > f.PageSize {
		limit = f.PageSize
	}
	start = min(start, n)
	return start, min(start+limit, n), limit
}

func (f *Site) v1Envelope(results []any, start, limit int, next string) map[string]any {
	links := map[string]any{"base": f.SiteURL(), "context": f.Prefix, "self": f.SiteURL() + "/rest/api"}
	if next != "" {
		links["next"] = next
	}
	return map[string]any{"results": results, "start": start, "limit": limit, "size": len(results), "_links": links}
}

func (f *Site) v1Space(s Space) map[string]any {
	typ := "global"
	if s.Personal {
		typ = "personal"
	}
	return map[string]any{"id": s.ID, "key": s.Key, "name": "Space " + s.Key, "type": typ, "status": "current",
		"_links": map[string]any{"webui": "/spaces/" + s.Key}, "_expandable": map[string]any{"homepage": ""}}
}

func (f *Site) v1Spaces(w http.ResponseWriter, q url.Values) {
	start, end, limit := f.window(q, len(f.Spaces))
	var res []any
	for _, s := range f.Spaces[start:end] {
		res = append(res, f.v1Space(s))
	}
	next := ""
	if end < len(f.Spaces) {
		next = fmt.Sprintf("/rest/api/space?limit=%d&start=%d", limit, end)
	}
	writeJSON(w, 200, f.v1Envelope(res, start, limit, next))
}

func (f *Site) body(p Page) string {
	return strings.ReplaceAll(p.Body, "{{SITE}}", f.SiteURL())
}

func (f *Site) v1Page(p Page, withBody bool) map[string]any {
	out := map[string]any{"id": p.ID, "type": "page", "status": p.status(), "title": p.Title,
		"history": map[string]any{"latest": true, "createdDate": p.Created, "lastUpdated": map[string]any{"when": p.Modified, "number": p.Version}},
		"version": map[string]any{"when": p.Modified, "number": p.Version, "minorEdit": false},
		"_links":  map[string]any{"webui": "/spaces/" + p.Space + "/pages/" + p.ID}}
	if withBody {
		out["body"] = map[string]any{"view": map[string]any{"value": f.body(p), "representation": "view"}}
	}
	return out
}

func (f *Site) v1Pages(w http.ResponseWriter, q url.Values) {
	if q.Get("type") != "page" {
		f.v1Error(w, 400, "type=page expected by the fake")
		return
	}
	// v1 lists current content unless asked for another status.
	status := q.Get("status")
	if status == "" {
		status = "current"
	}
	var pages []Page
	for _, p := range f.visiblePages(q.Get("spaceKey")) {
		if p.status() == status {
			pages = append(pages, p)
		}
	}
	start, end, limit := f.window(q, len(pages))
	var res []any
	for _, p := range pages[start:end] {
		res = append(res, f.v1Page(p, false))
	}
	next := ""
	if end < len(pages) {
		next = fmt.Sprintf("/rest/api/content?spaceKey=%s&type=page&status=%s&limit=%d&start=%d&expand=%s", q.Get("spaceKey"), status, limit, end, url.QueryEscape(q.Get("expand")))
	}
	writeJSON(w, 200, f.v1Envelope(res, start, limit, next))
}

func (f *Site) restrictions(p Page) map[string]any {
	users := func(ids []string) map[string]any {
		res := []any{}
		for _, id := range ids {
			if f.Cloud {
				res = append(res, map[string]any{"type": "known", "accountId": id, "displayName": "User " + id})
			} else {
				res = append(res, map[string]any{"type": "known", "userKey": id, "username": "user-" + id})
			}
		}
		return map[string]any{"results": res, "start": 0, "limit": 100, "size": len(res)}
	}
	groups := func(ids []string) map[string]any {
		res := []any{}
		for _, id := range ids {
			res = append(res, map[string]any{"type": "group", "name": "group-" + id, "id": id})
		}
		return map[string]any{"results": res, "start": 0, "limit": 100, "size": len(res)}
	}
	op := func(name string, u, g []string) map[string]any {
		return map[string]any{"operation": name, "restrictions": map[string]any{"user": users(u), "group": groups(g)},
			"_links": map[string]any{"self": "x"}, "_expandable": map[string]any{"content": "/rest/api/content/" + p.ID}}
	}
	ops := map[string]any{"read": op("read", p.ReadUsers, p.ReadGroups), "update": op("update", p.EditUsers, p.EditGroups)}
	if f.Cloud {
		ops["_links"] = map[string]any{"base": f.SiteURL(), "context": f.Prefix}
		return ops
	}
	return map[string]any{"restrictions": ops, "_links": map[string]any{"base": f.SiteURL()}}
}

// v2 serves the Cloud v2 endpoints with opaque cursors.
func (f *Site) v2(w http.ResponseWriter, p string, q url.Values) {
	offset := 0
	if c := q.Get("cursor"); c != "" {
		b, err := base64.RawURLEncoding.DecodeString(c)
		if err != nil {
			f.v2Error(w, 400, "INVALID_REQUEST_PARAMETER", "bad cursor")
			return
		}
		offset, _ = strconv.Atoi(strings.TrimPrefix(string(b), "offset:"))
	}
	limit, _ := strconv.Atoi(q.Get("limit"))
	if limit <= 0 || limit > f.PageSize {
		limit = f.PageSize
	}
	page := func(items []any, path string) {
		offset = min(offset, len(items))
		end := min(offset+limit, len(items))
		links := map[string]any{"base": f.SiteURL()}
		if end < len(items) {
			nq := url.Values{}
			for k, v := range q {
				if k != "cursor" {
					nq[k] = v
				}
			}
			nq.Set("cursor", base64.RawURLEncoding.EncodeToString([]byte("offset:"+strconv.Itoa(end))))
			next := f.Prefix + "/api/v2/" + path + "?" + nq.Encode()
			links["next"] = next
			w.Header().Set("Link", "<"+next+`>; rel="next"`)
		}
		writeJSON(w, 200, map[string]any{"results": items[offset:end], "_links": links})
	}
	v2Space := func(s Space) map[string]any {
		typ := "global"
		if s.Personal {
			typ = "personal"
		}
		out := map[string]any{"id": strconv.Itoa(s.ID), "key": s.Key, "name": "Space " + s.Key, "type": typ, "status": "current", "authorId": "a", "createdAt": "2024-01-01T00:00:00.000Z", "homepageId": "1"}
		if s.Alias != "" {
			out["alias"] = s.Alias
		}
		return out
	}
	v2Page := func(pg Page, body bool) map[string]any {
		sp := f.space(pg.Space)
		var parent any
		if pg.Parent != "" {
			parent = pg.Parent
		}
		out := map[string]any{"id": pg.ID, "status": pg.status(), "title": pg.Title, "spaceId": strconv.Itoa(sp.ID), "parentId": parent, "createdAt": pg.Created,
			"version": map[string]any{"number": pg.Version, "createdAt": pg.Modified, "message": "", "minorEdit": false, "authorId": "a"},
			"_links":  map[string]any{"webui": "/spaces/" + pg.Space + "/pages/" + pg.ID}}
		if body {
			out["body"] = map[string]any{"view": map[string]any{"representation": "view", "value": f.body(pg)}}
		}
		return out
	}
	switch {
	case p == "spaces":
		keys := q["keys"]
		var items []any
		for _, s := range f.Spaces {
			if len(keys) > 0 && !slices.Contains(keys, s.Key) {
				continue
			}
			if t := q.Get("type"); t == "personal" && !s.Personal {
				continue
			}
			items = append(items, v2Space(s))
		}
		page(items, "spaces")
	case strings.HasPrefix(p, "spaces/") && strings.HasSuffix(p, "/permissions"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, "spaces/"), "/permissions")
		for _, s := range f.Spaces {
			if strconv.Itoa(s.ID) == id {
				var items []any
				for i, perm := range s.Perms {
					m := map[string]any{"id": strconv.Itoa(i)}
					for k, v := range perm {
						m[k] = v
					}
					items = append(items, m)
				}
				saved := limit
				if limit, _ = strconv.Atoi(q.Get("limit")); limit <= 0 || limit > f.PermPageSize {
					limit = f.PermPageSize
				}
				page(items, p)
				limit = saved
				return
			}
		}
		f.v2Error(w, 404, "NOT_FOUND", "Space not found")
	case p == "pages":
		// v2 lists current and archived pages unless status narrows it.
		statuses := q["status"]
		if len(statuses) == 0 {
			statuses = []string{"current", "archived"}
		}
		var items []any
		for _, pg := range f.Pages {
			if sp := f.space(pg.Space); sp != nil && strconv.Itoa(sp.ID) == q.Get("space-id") && !pg.Hidden && slices.Contains(statuses, pg.status()) {
				items = append(items, v2Page(pg, false))
			}
		}
		page(items, "pages")
	case strings.HasPrefix(p, "pages/") && strings.HasSuffix(p, "/ancestors"):
		// Top-down, at most limit of them (the ones nearest the page); the caller asks again
		// from the first one for more (developer.atlassian.com/cloud/confluence/rest/v2/api-group-ancestors/).
		pg := f.page(strings.TrimSuffix(strings.TrimPrefix(p, "pages/"), "/ancestors"))
		if pg == nil {
			f.v2Error(w, 404, "NOT_FOUND", "Page not found")
			return
		}
		var chain []any
		for id := pg.Parent; id != ""; {
			var parent *Page
			for i := range f.Pages {
				if f.Pages[i].ID == id {
					parent = &f.Pages[i]
				}
			}
			if parent == nil {
				break
			}
			chain = append([]any{map[string]any{"id": parent.ID, "type": "page"}}, chain...)
			id = parent.Parent
		}
		if len(chain) > limit {
			chain = chain[len(chain)-limit:]
		}
		writeJSON(w, 200, map[string]any{"results": chain, "_links": map[string]any{"base": f.SiteURL()}})
	case strings.HasPrefix(p, "pages/") && strings.HasSuffix(p, "/attachments"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, "pages/"), "/attachments")
		var items []any
		for _, a := range f.attachmentList() {
			if a.page == id && (q.Get("filename") == "" || q.Get("filename") == a.title) {
				items = append(items, map[string]any{"id": a.id, "status": "current", "title": a.title, "pageId": id,
					"mediaType": "application/octet-stream", "fileSize": len(f.Files[a.path]),
					"downloadLink": "/download/attachments/" + id + "/" + url.PathEscape(a.title) + "?api=v2"})
			}
		}
		page(items, p)
	case strings.HasPrefix(p, "pages/"):
		if f.Broken[strings.TrimPrefix(p, "pages/")] {
			f.v2Error(w, 500, "INTERNAL_SERVER_ERROR", "Something went wrong")
			return
		}
		pg := f.page(strings.TrimPrefix(p, "pages/"))
		if pg == nil {
			f.v2Error(w, 404, "NOT_FOUND", "Page not found")
			return
		}
		if q.Get("body-format") != "view" {
			f.v2Error(w, 400, "INVALID_REQUEST_PARAMETER", "the fake serves body-format=view only")
			return
		}
		writeJSON(w, 200, v2Page(*pg, true))
	default:
		f.v2Error(w, 404, "NOT_FOUND", "no such endpoint")
	}
}

// perm builds a v2 space permission assignment.
func Perm(ptype, id, op, target string) map[string]any {
	return map[string]any{"principal": map[string]any{"type": ptype, "id": id}, "operation": map[string]any{"key": op, "targetType": target}}
}

// ResetLog forgets the requests recorded so far.
func (f *Site) ResetLog() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = nil
}
