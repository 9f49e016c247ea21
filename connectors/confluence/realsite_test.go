package confluence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/connectors/confluence/confluencetest"
	"github.com/quarrydocs/quarry/internal/netguard"
)

// sleeper records the waits asked of RetryPolicy.Sleep without waiting.
type sleeper struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (s *sleeper) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.waits = append(s.waits, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeper) total() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t time.Duration
	for _, d := range s.waits {
		t += d
	}
	return t
}

var testNow = time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)

func cloudConfig(f *confluencetest.Site, sl *sleeper) Config {
	return Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true,
		Retry: RetryPolicy{Sleep: sl.sleep, Now: func() time.Time { return testNow }}}
}

// perms is the permissions_data shape for read/update/delete users and groups.
func perms(ru, rg, uu, ug, du, dg []string) any {
	l := func(ids []string) []any {
		out := []any{}
		for _, id := range ids {
			out = append(out, id)
		}
		return out
	}
	return []any{
		map[string]any{"read": map[string]any{"users": l(ru), "groups": l(rg)}},
		map[string]any{"update": map[string]any{"users": l(uu), "groups": l(ug)}},
		map[string]any{"delete": map[string]any{"users": l(du), "groups": l(dg)}},
	}
}

func byID(docs []connectors.Document) map[string]connectors.Document {
	out := map[string]connectors.Document{}
	for _, d := range docs {
		out[d.ID] = d
	}
	return out
}

func wantPerms(t *testing.T, d connectors.Document, want any) {
	t.Helper()
	got := d.DataSource["permissions_data"]
	if !reflect.DeepEqual(got, want) {
		gj, _ := json.Marshal(got)
		wj, _ := json.Marshal(want)
		t.Errorf("%s permissions_data\n got  %s\n want %s (error: %v)", d.ID, gj, wj, d.DataSource[permissionsErrorKey])
	}
}

var (
	welcomePerms    = perms([]string{"acc-alice"}, []string{"grp-admins", "grp-staff"}, nil, []string{"grp-admins"}, []string{"acc-alice"}, nil)
	restrictedPerms = perms([]string{"acc-carol"}, []string{"grp-leads"}, nil, []string{"grp-leads"}, nil, nil)
	openPagePerms   = welcomePerms
)

// 429 and 503 with Retry-After (seconds, and an HTTP date), and a 502 without it, on the
// permission requests: the job gets exact permissions after the documented waits.
func TestRetryAfterOnPermissions(t *testing.T) {
	f := cloudSite(t)
	f.Fail("restriction/byOperation", 429, "2", 2)
	f.Fail("spaces/101/permissions", 503, testNow.Add(3*time.Second).Format(http.TimeFormat), 1)
	f.Fail("pages/13/ancestors", 502, "", 1)
	sl := &sleeper{}
	cfg := cloudConfig(f, sl)
	cfg.Spaces = []string{"DEV"}
	src, err := NewSource(cfg)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(docs)
	wantPerms(t, m["DEV/11.html"], welcomePerms)
	wantPerms(t, m["DEV/12.html"], restrictedPerms)
	wantPerms(t, m["DEV/13.html"], openPagePerms)
	wantPerms(t, m["DEV/15.html"], openPagePerms)
	if len(sl.waits) != 4 || sl.waits[0] != 3*time.Second || sl.waits[1] != 2*time.Second || sl.waits[2] != 2*time.Second {
		t.Errorf("waits %v, want 3s (HTTP date), 2s, 2s (Retry-After seconds), then a backoff", sl.waits)
	}
	if b := sl.waits[len(sl.waits)-1]; b < 500*time.Millisecond || b > time.Second {
		t.Errorf("first backoff %v, want within [0.5s, 1s]", b)
	}
}

// Permissions that stay unavailable after every retry: the page is listed but fails as a file
// with the reason; it is never emitted with null permissions_data, and the next run retries it.
func TestPermissionsUnknownFailTheFile(t *testing.T) {
	f := cloudSite(t)
	f.Fail("content/12/restriction", 429, "1", -1)
	sl := &sleeper{}
	cfg := cloudConfig(f, sl)
	cfg.Spaces = []string{"DEV"}
	src, _ := NewSource(cfg)
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(docs)
	d := m["DEV/12.html"]
	if d.DataSource["permissions_data"] != nil || !strings.HasSuffix(d.Version, "+acl.unknown") {
		t.Fatalf("page 12: %+v", d)
	}
	_, err = src.Open(context.Background(), d)
	if err == nil || !strings.Contains(err.Error(), "permissions could not be determined") || !strings.Contains(err.Error(), "429") || !strings.Contains(err.Error(), "6 attempts") {
		t.Errorf("Open: %v", err)
	}
	if len(sl.waits) != 5 {
		t.Errorf("%d waits, want 5 (6 attempts)", len(sl.waits))
	}
	wantPerms(t, m["DEV/11.html"], welcomePerms)
	// Space permissions unavailable: every page of the space fails, none is null-but-open.
	f2 := cloudSite(t)
	f2.Fail("spaces/101/permissions", 403, "", -1)
	src2, _ := NewSource(cloudConfig(f2, &sleeper{}))
	docs, err = listDocs(t, src2)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if !strings.HasPrefix(d.ID, "DEV/") {
			continue
		}
		if _, err := src2.Open(context.Background(), d); err == nil || !strings.Contains(err.Error(), "permissions of space 101") {
			t.Errorf("%s opened without permissions: %v", d.ID, err)
		}
	}
}

// Listing errors after retries fail the listing (the platform fails the job's listing step), not
// a silently short listing; a Retry-After beyond the budget is not waited for.
func TestListingErrorsAfterRetries(t *testing.T) {
	f := cloudSite(t)
	f.Fail("api/v2/pages$", 503, "", -1)
	sl := &sleeper{}
	src, _ := NewSource(cloudConfig(f, sl))
	docs, err := listDocs(t, src)
	var he *HTTPError
	if !errors.As(err, &he) || he.StatusCode != 503 || he.Attempts != 6 || !strings.Contains(err.Error(), "list pages of space") {
		t.Fatalf("List: %v (%d docs)", err, len(docs))
	}
	if len(docs) != 0 {
		t.Errorf("yielded %v before failing", ids(docs))
	}
	if tot := sl.total(); tot <= 0 || tot > 2*time.Minute {
		t.Errorf("backoff total %v", tot)
	}

	f2 := cloudSite(t)
	f2.Fail("api/v2/spaces$", 429, "3600", -1)
	sl2 := &sleeper{}
	src2, _ := NewSource(cloudConfig(f2, sl2))
	if _, err := listDocs(t, src2); err == nil || !strings.Contains(err.Error(), "beyond the retry budget") || !strings.Contains(err.Error(), "rate limited (429)") {
		t.Errorf("List: %v", err)
	}
	if len(sl2.waits) != 0 {
		t.Errorf("waited %v for a Retry-After beyond the budget", sl2.waits)
	}
}

// A body cut short after a 200 is retried like a 503; a body that is not JSON is not.
func TestTruncatedAnswers(t *testing.T) {
	f := cloudSite(t)
	f.Fail("api/v2/pages$", 200, "", 2)
	f.Fail("content/12/restriction", 200, "", 1)
	sl := &sleeper{}
	cfg := cloudConfig(f, sl)
	cfg.Spaces = []string{"DEV"}
	src, _ := NewSource(cfg)
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	wantPerms(t, byID(docs)["DEV/12.html"], restrictedPerms)
	if len(docs) != 4 || len(sl.waits) != 3 {
		t.Errorf("listed %v after %d waits, want 4 pages after 3", ids(docs), len(sl.waits))
	}
	f.Fail("api/v2/pages$", 200, "", -1)
	if _, err := listDocs(t, src); err == nil || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("always truncated: %v", err)
	}
}

// A cancelled context ends a Retry-After wait at once.
func TestRetryWaitCancellable(t *testing.T) {
	f := cloudSite(t)
	f.Fail("api/v2/spaces", 429, "30", -1)
	src, _ := NewSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := src.Check(ctx)
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("Check: %v after %v", err, time.Since(start))
	}
}

func TestParseRetryAfter(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"120", 2 * time.Minute, true},
		{" 0 ", 0, true},
		{testNow.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{testNow.Add(-time.Hour).Format(http.TimeFormat), 0, true},
		{"-1", 0, false},
		{"soon", 0, false},
		{"", 0, false},
	} {
		got, ok := parseRetryAfter(tt.in, testNow)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseRetryAfter(%q) = %v %v, want %v %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

// A view restriction on a parent only restricts every descendant; view restrictions along the
// path intersect; edit restrictions apply to the page alone. The fake caps ancestor answers at 2
// so the walk up a deep tree needs several calls.
func TestInheritedRestrictions(t *testing.T) {
	f := cloudSite(t)
	tree := []confluencetest.Page{
		{ID: "40", Title: "Root (restricted)", ReadUsers: []string{"acc-alice", "u1", "u2"}, ReadGroups: []string{"g1"}},
		{ID: "41", Parent: "40", Title: "Child, no own restriction"},
		{ID: "42", Parent: "41", Title: "Grandchild, narrower", ReadUsers: []string{"u2", "u3"}, ReadGroups: []string{"g1", "g2"}},
		{ID: "43", Parent: "40", Title: "Edit-restricted child", EditUsers: []string{"u1", "u9"}},
		{ID: "44", Parent: "42", Title: "Deep"},
		{ID: "45", Parent: "44", Title: "Deeper"},
		{ID: "46", Parent: "13", Title: "Under an open page"},
	}
	for _, p := range tree {
		p.Space, p.Version, p.Body = "DEV", 1, "<p>x</p>"
		f.Pages = append(f.Pages, p)
	}
	cfg := cloudConfig(f, &sleeper{})
	cfg.Spaces = []string{"DEV"}
	src, _ := NewSource(cfg)
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	m := byID(docs)
	root := perms([]string{"acc-alice", "u1", "u2"}, []string{"g1"}, nil, nil, []string{"acc-alice"}, nil)
	narrow := perms([]string{"u2"}, []string{"g1"}, nil, nil, nil, nil)
	wantPerms(t, m["DEV/40.html"], root)
	wantPerms(t, m["DEV/41.html"], root)
	wantPerms(t, m["DEV/42.html"], narrow)
	wantPerms(t, m["DEV/43.html"], perms([]string{"acc-alice", "u1", "u2"}, []string{"g1"}, []string{"u1"}, nil, []string{"acc-alice"}, nil))
	wantPerms(t, m["DEV/44.html"], narrow)
	wantPerms(t, m["DEV/45.html"], narrow)
	wantPerms(t, m["DEV/46.html"], openPagePerms)
	// Restrictions of a shared ancestor are read once per run.
	n := 0
	for _, r := range f.Log() {
		if strings.Contains(r, "content/40/restriction") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("restrictions of page 40 read %d times", n)
	}
}

// More than 25 space permission assignments, across pages of results: all of them count (the
// reference reads the first 25 only).
func TestSpacePermissionsPaginated(t *testing.T) {
	f := cloudSite(t)
	var ps []map[string]any
	var users []string
	for i := range 40 {
		id := fmt.Sprintf("u%02d", i)
		users = append(users, id)
		ps = append(ps, confluencetest.Perm("user", id, "read", "space"))
	}
	f.Spaces[0].Perms = append(ps, confluencetest.Perm("group", "grp-late", "read", "space"))
	cfg := cloudConfig(f, &sleeper{})
	cfg.Spaces, cfg.MaxDocs = []string{"DEV"}, 1
	src, _ := NewSource(cfg)
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	wantPerms(t, docs[0], perms(users, []string{"grp-late"}, nil, nil, nil, nil))
	var pages int
	for _, r := range f.Log() {
		if strings.Contains(r, "spaces/101/permissions") {
			pages++
		}
	}
	if pages != 2 {
		t.Errorf("%d permission pages read, want 2 (25 + 16)", pages)
	}
}

// Attachments: the legacy path answers 401 on Cloud, the REST endpoint redirects to the media
// host, which gets no credentials; a redirect to a host not allowed is refused, and neither
// failure blames the credentials.
func TestAttachmentDownloads(t *testing.T) {
	f := cloudSite(t)
	cfg := cloudConfig(f, &sleeper{})
	cfg.Spaces, cfg.MaxDocs, cfg.ExtractFiles, cfg.MediaHosts = []string{"DEV"}, 1, true, []string{f.MediaHost()}
	src, _ := NewSource(cfg)
	docs, err := listDocs(t, src)
	if err != nil || len(docs) != 2 {
		t.Fatalf("%v %v", ids(docs), err)
	}
	att := docs[0]
	wantPerms(t, att, welcomePerms)
	if got := open(t, src, att); got != "%PDF-1.4 fake report" {
		t.Errorf("attachment %q", got)
	}
	if f.MediaAuth.Load() != 0 {
		t.Error("credentials sent to the media host")
	}
	// The legacy path itself answers 401: reported as a refused download, not bad credentials.
	u, _ := src.c.absolute("/wiki/download/attachments/11/report%20v2.pdf")
	_, err = src.c.download(context.Background(), u, "legacy")
	if err == nil || !strings.Contains(err.Error(), "download was refused (401)") || strings.Contains(err.Error(), "check username") {
		t.Errorf("legacy download: %v", err)
	}
	// A media host that is not allowed: the redirect is refused.
	cfg.MediaHosts = []string{"media.example.invalid"}
	src2, _ := NewSource(cfg)
	_, err = src2.Open(context.Background(), att)
	if err == nil || !strings.Contains(err.Error(), "refusing redirect") || strings.Contains(err.Error(), "check username") {
		t.Errorf("redirect to a host not allowed: %v", err)
	}
}

// Archived pages are left out on both flavours unless include_archived is set.
func TestArchivedPages(t *testing.T) {
	f := cloudSite(t)
	f.Pages = append(f.Pages, confluencetest.Page{ID: "16", Space: "DEV", Title: "Old", Version: 1, Status: "archived", Body: "<p>old</p>"})
	d := dcSite(t)
	d.Pages = append(d.Pages, confluencetest.Page{ID: "399", Space: "HR", Title: "Old", Version: 1, Status: "archived", Body: "<p>old</p>"})
	for _, tt := range []struct {
		name     string
		cfg      Config
		archived string
	}{
		{"cloud", cloudConfig(f, &sleeper{}), "DEV/16.html"},
		{"data center", Config{URL: d.SiteURL(), Token: d.PAT, Retry: RetryPolicy{Sleep: noSleep}}, "HR/399.html"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, include := range []bool{false, true} {
				cfg := tt.cfg
				cfg.IncludeArchived = include
				src, _ := NewSource(cfg)
				docs, err := listDocs(t, src)
				if err != nil {
					t.Fatal(err)
				}
				if got := slices.Contains(ids(docs), tt.archived); got != include {
					t.Errorf("include_archived=%v: listed %v", include, ids(docs))
				}
				if include && tt.name == "cloud" {
					wantPerms(t, byID(docs)[tt.archived], openPagePerms)
				}
			}
		})
	}
}

// Data Center: no v2 request (and so no 404 per space) for permissions it cannot have.
func TestDataCenterAsksNoV2(t *testing.T) {
	d := dcSite(t)
	src, _ := NewSource(Config{URL: d.SiteURL(), Token: d.PAT, Retry: RetryPolicy{Sleep: noSleep}})
	docs, err := listDocs(t, src)
	if err != nil || len(docs) == 0 {
		t.Fatalf("%v %v", ids(docs), err)
	}
	for _, r := range d.Log() {
		if strings.Contains(r, "/api/v2/") {
			t.Errorf("Data Center was asked %s", r)
		}
	}
}

const testCloudID = "0c3130ff-1111-4222-8333-444455556666"

// Scoped tokens and OAuth: every REST call goes through the gateway path (the site refuses
// them), with the cloud id given or read from /_edge/tenant_info; metadata still names the site.
func TestGateway(t *testing.T) {
	f := cloudSite(t)
	f.CloudID, f.ScopedOnly, f.OAuth = testCloudID, true, "oauth-access-token"
	for _, tt := range []struct {
		name string
		mod  func(*Config)
	}{
		{"cloud_id", func(c *Config) { c.CloudID = testCloudID }},
		{"discovered", func(c *Config) { c.ScopedToken = true }},
		{"oauth", func(c *Config) { c.Username, c.APIToken, c.OAuthToken = "", "", f.OAuth }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f.ResetLog()
			cfg := cloudConfig(f, &sleeper{})
			cfg.GatewayURL, cfg.Spaces, cfg.ExtractImages, cfg.MediaHosts = f.Srv.URL, []string{"DEV"}, true, []string{f.MediaHost()}
			tt.mod(&cfg)
			src, err := NewSource(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := src.Check(context.Background()); err != nil {
				t.Fatalf("Check: %v", err)
			}
			docs, err := listDocs(t, src)
			if err != nil {
				t.Fatal(err)
			}
			m := byID(docs)
			wantPerms(t, m["DEV/11.html"], welcomePerms)
			wantPerms(t, m["DEV/12.html"], restrictedPerms)
			if u := m["DEV/11.html"].DataSource["url"]; u != f.SiteURL()+"/pages/11" {
				t.Errorf("metadata url %v, want the site's", u)
			}
			html := open(t, src, m["DEV/11.html"])
			if !strings.Contains(html, "data:image/png;base64,iVBORyBmYWtlIGRpYWdyYW0=") {
				t.Errorf("image not inlined through the gateway: %s", html)
			}
			tenant := 0
			for _, r := range f.Log() {
				switch {
				case r == "/_edge/tenant_info":
					tenant++
				case !strings.HasPrefix(r, "/ex/confluence/"+testCloudID+"/wiki/"):
					t.Errorf("request outside the gateway: %s", r)
				}
			}
			if want := map[bool]int{true: 1, false: 0}[tt.name != "cloud_id"]; tenant != want {
				t.Errorf("tenant_info read %d times, want %d", tenant, want)
			}
		})
	}
	// Without the gateway the site refuses a scoped token.
	src, _ := NewSource(cloudConfig(f, &sleeper{}))
	var he *HTTPError
	if err := src.Check(context.Background()); !errors.As(err, &he) || he.StatusCode != 401 || !strings.Contains(err.Error(), "cloud_id") {
		t.Errorf("scoped token on the site: %v", err)
	}
}

// Incremental runs, as the platform drives them: a document is processed when its version
// differs from the one recorded. Unchanged pages are skipped; a new page version, or a change of
// permissions alone (on the page or an ancestor), re-emits the page with its new permissions.
func TestIncrementalVersions(t *testing.T) {
	f := cloudSite(t)
	f.Pages = append(f.Pages, confluencetest.Page{ID: "50", Space: "DEV", Title: "Parent", Version: 1}, confluencetest.Page{ID: "51", Space: "DEV", Parent: "50", Title: "Child", Version: 1})
	cfg := cloudConfig(f, &sleeper{})
	cfg.Spaces = []string{"DEV"}
	recorded := map[string]string{}
	run := func() map[string]connectors.Document {
		src, _ := NewSource(cfg)
		docs, err := listDocs(t, src)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]connectors.Document{}
		for _, d := range docs {
			if recorded[d.ID] != d.Version {
				out[d.ID] = d
				recorded[d.ID] = d.Version
			}
		}
		return out
	}
	if n := len(run()); n != 6 {
		t.Fatalf("first run processed %d pages, want 6", n)
	}
	if got := run(); len(got) != 0 {
		t.Fatalf("unchanged re-run processed %v", got)
	}
	f.Pages[2].Version = 2 // page 13: new content
	if got := run(); len(got) != 1 || got["DEV/13.html"].DataSource["version"] != "2" {
		t.Fatalf("after a new version of 13: %v", got)
	}
	f.Pages[4].ReadUsers = []string{"acc-dave"} // page 15: permissions alone
	got := run()
	if len(got) != 1 {
		t.Fatalf("after a restriction on 15: %v", got)
	}
	wantPerms(t, got["DEV/15.html"], perms([]string{"acc-dave"}, nil, nil, nil, nil, nil))
	if v := got["DEV/15.html"].DataSource["permissions_version"]; v == nil || !strings.HasSuffix(got["DEV/15.html"].Version, "+acl."+v.(string)) || got["DEV/15.html"].DataSource["version"] != "2" {
		t.Errorf("page 15: permissions_version %v, version %q", v, got["DEV/15.html"].Version)
	}
	f.Pages[len(f.Pages)-2].ReadGroups = []string{"grp-leads"} // page 50, inherited by 51
	got = run()
	if len(got) != 2 {
		t.Fatalf("after a restriction on 50: %v", got)
	}
	wantPerms(t, got["DEV/51.html"], perms(nil, []string{"grp-leads"}, nil, nil, nil, nil))
}

// Check proves on Cloud that space permissions can be read: without them no page is indexed.
func TestCheckProbesSpacePermissions(t *testing.T) {
	f := cloudSite(t)
	src, _ := NewSource(cloudConfig(f, &sleeper{}))
	if err := src.Check(context.Background()); err != nil {
		t.Fatalf("Check: %v", err)
	}
	f.Fail("/permissions", 403, "", -1)
	for _, spaces := range [][]string{nil, {"OPS"}} {
		cfg := cloudConfig(f, &sleeper{})
		cfg.Spaces = spaces
		src, _ := NewSource(cfg)
		err := src.Check(context.Background())
		if err == nil || !strings.Contains(err.Error(), "forbidden (403)") || !strings.Contains(err.Error(), "read:space.permission:confluence") {
			t.Errorf("spaces %v: Check: %v", spaces, err)
		}
	}
	if !slices.ContainsFunc(f.Log(), func(r string) bool { return strings.Contains(r, "spaces/102/permissions") }) {
		t.Error("the configured space was not the one probed")
	}
}

// Through the registry, the operator's network policy applies: the fake (on loopback) is refused
// up front with a 422 on url unless private networks are allowed, and then reached through the
// guarded client, permissions and all.
func TestRegistryNetworkPolicy(t *testing.T) {
	f := cloudSite(t)
	k, _ := connectors.Lookup("confluence")
	config := map[string]any{"url": f.SiteURL(), "username": f.User, "api_token": f.Secret, "cloud": true, "spaces": []any{"DEV"},
		"media_hosts": []any{f.MediaHost()}}
	var ve *schema.ValidationError
	if err := k.Validate(config, connectors.Env{}); !errors.As(err, &ve) || len(ve.Errors) != 2 ||
		strings.Join(ve.Errors[0].Loc, ".") != "body.config.url" || strings.Join(ve.Errors[1].Loc, ".") != "body.config.media_hosts.0" {
		t.Fatalf("Validate without private networks: %v", err)
	}
	if _, err := k.NewSource(config, connectors.Env{}); err == nil {
		t.Fatal("NewSource accepted a loopback site")
	}
	if err := k.Validate(config, connectors.Env{AllowPrivateNetwork: true}); err != nil {
		t.Fatalf("Validate with private networks: %v", err)
	}
	src, err := k.NewSource(config, connectors.Env{AllowPrivateNetwork: true})
	if err != nil {
		t.Fatal(err)
	}
	var docs []connectors.Document
	if err := src.List(context.Background(), func(d connectors.Document) error { docs = append(docs, d); return nil }); err != nil {
		t.Fatal(err)
	}
	wantPerms(t, byID(docs)["DEV/12.html"], restrictedPerms)

	// A name that resolves to loopback passes the early check but not the connection guard, and
	// a refused address is not retried.
	sl := &sleeper{}
	cfg := cloudConfig(f, sl)
	cfg.URL = strings.Replace(f.SiteURL(), "127.0.0.1", "localhost", 1)
	cfg.HTTPClient = netguard.NewClient(netguard.Options{})
	s2, _ := NewSource(cfg)
	if err := s2.Check(context.Background()); !errors.Is(err, netguard.ErrBlocked) || len(sl.waits) != 0 {
		t.Errorf("Check of a loopback name: %v after %d waits", err, len(sl.waits))
	}
}

// Property: whatever the tree, permissions_data never lets a user read what Confluence would not
// show them. Model: the space grants view to everyone through group "all" (the connector does
// not resolve membership, see the README) or to some users by name, and a user may view a page
// when they hold that and, on the page and every ancestor that has a view restriction, they are
// named among its viewers or editors or belong to a group named there. A listed user, or any member of a listed group, must
// pass that rule. It also checks that an unrestricted tree keeps the space's readers.
func TestPermissionsNeverExposeMore(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	users := []string{"u0", "u1", "u2", "u3", "u4", "u5"}
	groups := []string{"g0", "g1", "g2"}
	pick := func(from []string) []string {
		var out []string
		for _, x := range from {
			if rng.IntN(3) == 0 {
				out = append(out, x)
			}
		}
		return out
	}
	type node struct{ vu, vg, eu, eg []string }
	restr := func(n node) map[string]any {
		op := func(u, g []string) map[string]any {
			us, gs := []any{}, []any{}
			for _, id := range u {
				us = append(us, map[string]any{"accountId": id})
			}
			for _, id := range g {
				gs = append(gs, map[string]any{"id": id})
			}
			return map[string]any{"restrictions": map[string]any{"user": map[string]any{"results": us}, "group": map[string]any{"results": gs}}}
		}
		return map[string]any{"read": op(n.vu, n.vg), "update": op(n.eu, n.eg)}
	}
	for iter := range 3000 {
		member := map[string]map[string]bool{"all": {}}
		for _, g := range groups {
			member[g] = map[string]bool{}
			for _, u := range pick(users) {
				member[g][u] = true
			}
		}
		for _, u := range users {
			member["all"][u] = true
		}
		var chain []node
		for range 1 + rng.IntN(4) {
			n := node{}
			if rng.IntN(2) == 0 {
				n.vu, n.vg = pick(users), pick(groups)
			}
			if rng.IntN(3) == 0 {
				n.eu, n.eg = pick(users), pick(groups)
			}
			chain = append(chain, n)
		}
		// The space grants view to everyone through a group, or to some users by name.
		space := []any{confluencetest.Perm("group", "all", "read", "space")}
		spaceRead := func(string) bool { return true }
		if rng.IntN(3) == 0 {
			granted := pick(users)
			space = nil
			for _, u := range granted {
				space = append(space, confluencetest.Perm("user", u, "read", "space"))
			}
			spaceRead = func(u string) bool { return slices.Contains(granted, u) }
		}
		for _, u := range pick(users) {
			space = append(space, confluencetest.Perm("user", u, "delete", "page"))
		}
		var maps []map[string]any
		for _, n := range chain {
			maps = append(maps, restr(n))
		}
		out, err := computePermissions(maps, space)
		if err != nil {
			t.Fatal(err)
		}
		canView := func(u string) bool {
			if !spaceRead(u) {
				return false
			}
			for _, n := range chain {
				if len(n.vu)+len(n.vg) == 0 {
					continue
				}
				ok := slices.Contains(n.vu, u) || slices.Contains(n.eu, u)
				for _, g := range append(slices.Clone(n.vg), n.eg...) {
					ok = ok || member[g][u]
				}
				if !ok {
					return false
				}
			}
			return true
		}
		page := chain[len(chain)-1]
		canEdit := func(u string) bool {
			if !canView(u) {
				return false
			}
			if len(page.eu)+len(page.eg) == 0 {
				return false // no space admins in this model
			}
			ok := slices.Contains(page.eu, u)
			for _, g := range page.eg {
				ok = ok || member[g][u]
			}
			return ok
		}
		for i, op := range []string{"read", "update", "delete"} {
			b := out.([]any)[i].(map[string]any)[op].(map[string]any)
			allowed := canView
			if op == "update" {
				allowed = canEdit
			}
			for _, u := range b["users"].([]any) {
				if !allowed(u.(string)) {
					t.Fatalf("iteration %d: %s lists user %s\nchain %+v\nmembers %v", iter, op, u, chain, member)
				}
			}
			for _, g := range b["groups"].([]any) {
				for u := range member[g.(string)] {
					if !allowed(u) {
						t.Fatalf("iteration %d: %s lists group %s with member %s who may not\nchain %+v\nmembers %v", iter, op, g, u, chain, member)
					}
				}
			}
		}
		restricted := false
		for _, n := range chain {
			restricted = restricted || len(n.vu)+len(n.vg) > 0
		}
		if read := out.([]any)[0].(map[string]any)["read"].(map[string]any); !restricted && len(space) > 0 && space[0].(map[string]any)["principal"].(map[string]any)["id"] == "all" && !slices.Contains(read["groups"].([]any), any("all")) {
			t.Fatalf("iteration %d: unrestricted page lost the space's readers: %v", iter, read)
		}
	}
}
