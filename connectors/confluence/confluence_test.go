package confluence

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/connectors/confluence/confluencetest"
	"github.com/quarrydocs/quarry/engine"
	_ "github.com/quarrydocs/quarry/formats/html"
)

func TestValidate(t *testing.T) {
	base := func(kv ...any) map[string]any {
		m := map[string]any{"url": "https://example.atlassian.net"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name   string
		config map[string]any
		want   []string // "key:type"
	}{
		{"cloud api token", base("username", "u", "api_token", "t", "cloud", true), nil},
		{"dc password", base("url", "https://wiki.example.com/confluence", "username", "u", "password", "p"), nil},
		{"dc pat", base("url", "https://wiki.example.com", "token", "pat"), nil},
		{"pat with username ignored", base("url", "https://wiki.example.com", "username", "u", "token", "pat"), nil},
		{"cloud password refused", base("url", "https://wiki.example.com", "cloud", true, "username", "u", "password", "p"), []string{"password:value_error"}},
		{"atlassian.net password refused", base("username", "u", "password", "p"), []string{"password:value_error"}},
		{"atlassian.net pat refused", base("token", "pat"), []string{"cloud:value_error"}},
		{"oauth", base("oauth_token", "o", "cloud", true, "cloud_id", "0c3130ff-1234-4abc-9def-000000000000"), nil},
		{"oauth without cloud_id discovers it", base("oauth_token", "o"), nil},
		{"oauth on data center", base("url", "https://wiki.example.com", "oauth_token", "o"), []string{"oauth_token:value_error"}},
		{"oauth with basic", base("oauth_token", "o", "username", "u", "api_token", "t"), []string{"oauth_token:value_error"}},
		{"scoped token", base("username", "u", "api_token", "t", "scoped_token", true, "include_archived", true, "media_hosts", []any{"media.example.com:8443"}), nil},
		{"cloud_id on data center", base("url", "https://wiki.example.com", "token", "pat", "cloud_id", "abc"), []string{"cloud_id:value_error"}},
		{"cloud_id path", base("username", "u", "api_token", "t", "cloud_id", "../../evil"), []string{"cloud_id:value_error"}},
		{"media host with path", base("username", "u", "api_token", "t", "media_hosts", []any{"evil.example/x"}), []string{"0:value_error"}},
		{"limits and spaces", base("username", "u", "api_token", "t", "max_num_of_spaces", 3.0, "max_num_of_docs_from_each_space", "7", "spaces", []any{"A", "B"}), nil},
		{"nulls", base("username", "u", "api_token", "t", "spaces", nil, "password", nil, "cloud", nil), nil},
		{"missing url", map[string]any{"username": "u", "api_token": "t"}, []string{"url:missing"}},
		{"bad url", base("url", "ftp://x", "username", "u", "api_token", "t"), []string{"url:value_error"}},
		{"password and api_token", base("username", "u", "password", "p", "api_token", "t"), []string{"api_token:value_error"}},
		{"basic and token", base("username", "u", "api_token", "t", "token", "pat"), []string{"token:value_error"}},
		{"cloud with pat", base("token", "pat", "cloud", true), []string{"cloud:value_error"}},
		{"no auth", base("url", "https://wiki.example.com", "username", "u"), []string{"api_token:value_error"}},
		{"password without username", base("url", "https://wiki.example.com", "password", "p"), []string{"username:value_error"}},
		{"types", base("username", 1.0, "cloud", "sometimes", "max_num_of_spaces", 1.5, "spaces", "A"), []string{"username:string_type", "cloud:bool_type", "max_num_of_spaces:int_type", "spaces:list_type"}},
		{"bounds", base("url", "https://wiki.example.com", "token", "x", "max_num_of_spaces", 0.0, "max_num_of_docs_from_each_space", -1.0), []string{"max_num_of_spaces:greater_than_equal", "max_num_of_docs_from_each_space:greater_than_equal"}},
		{"space item type", base("url", "https://wiki.example.com", "token", "x", "spaces", []any{"A", 2.0}), []string{"1:string_type"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.config)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			var ve *schema.ValidationError
			if !errors.As(err, &ve) {
				t.Fatalf("want *schema.ValidationError, got %v", err)
			}
			var got []string
			for _, fe := range ve.Errors {
				if len(fe.Loc) < 3 || fe.Loc[0] != "body" || fe.Loc[1] != "config" {
					t.Errorf("loc %v", fe.Loc)
				}
				got = append(got, fe.Loc[len(fe.Loc)-1]+":"+fe.Type)
				for _, secret := range []string{"pat", "t", "p"} {
					if fe.Input == secret && fe.Type == "value_error" {
						t.Errorf("error echoes a secret: %+v", fe)
					}
				}
			}
			sort.Strings(got)
			want := slices.Clone(tt.want)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Fatalf("errors %v, want %v", got, want)
			}
		})
	}
}

func TestDefaults(t *testing.T) {
	got := Defaults(map[string]any{"url": "u", "username": "x", "api_token": "t", "max_num_of_spaces": 3.0})
	want := map[string]any{"url": "u", "username": "x", "api_token": "t", "password": nil, "token": nil, "spaces": nil,
		"cloud": false, "extract_images": false, "extract_files": false, "max_num_of_spaces": 3, "max_num_of_docs_from_each_space": 150}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Defaults = %v\nwant %v", got, want)
	}
	// Keys that are ours, not the reference's, are not added; given, they are normalised.
	got = Defaults(map[string]any{"url": "u", "include_archived": "yes", "cloud_id": "x"})
	if got["include_archived"] != true || got["cloud_id"] != "x" {
		t.Errorf("Defaults = %v", got)
	}
	if _, ok := got["scoped_token"]; ok {
		t.Error("scoped_token defaulted")
	}
}

func TestRegistered(t *testing.T) {
	k, ok := connectors.Lookup("confluence")
	if !ok || k.NewSource == nil || k.NewDestination != nil {
		t.Fatalf("confluence kind: %+v", k)
	}
	if !slices.Equal(k.Secrets, []string{"password", "api_token", "token", "oauth_token"}) {
		t.Errorf("secrets %v", k.Secrets)
	}
}

// The reference's example (platform.md §2.8) and each rule of the algorithm.
func TestComputePermissions(t *testing.T) {
	restr := func(readU, readG, editU, editG []string) map[string]any {
		op := func(u, g []string) map[string]any {
			us, gs := []any{}, []any{}
			for _, id := range u {
				us = append(us, map[string]any{"type": "known", "accountId": id})
			}
			for _, id := range g {
				gs = append(gs, map[string]any{"type": "group", "id": id, "name": "n"})
			}
			return map[string]any{"restrictions": map[string]any{"user": map[string]any{"results": us}, "group": map[string]any{"results": gs}}}
		}
		return map[string]any{"read": op(readU, readG), "update": op(editU, editG), "_links": map[string]any{"base": "x"}}
	}
	space := func(ps ...map[string]any) []any {
		out := []any{}
		for _, p := range ps {
			out = append(out, p)
		}
		return out
	}
	shape := func(ru, rg, uu, ug, du, dg []any) any {
		return []any{
			map[string]any{"read": map[string]any{"users": ru, "groups": rg}},
			map[string]any{"update": map[string]any{"users": uu, "groups": ug}},
			map[string]any{"delete": map[string]any{"users": du, "groups": dg}},
		}
	}
	e := []any{}
	tests := []struct {
		name  string
		restr map[string]any
		space []any
		want  any // nil: permissions dropped
	}{
		{"reference example: space read and admin group, no restrictions",
			restr(nil, nil, nil, nil),
			space(confluencetest.Perm("user", "712020:ee20", "read", "space"), confluencetest.Perm("group", "f866838e", "administer", "space"), confluencetest.Perm("group", "f866838e", "read", "space")),
			shape([]any{"712020:ee20"}, []any{"f866838e"}, e, []any{"f866838e"}, e, e)},
		{"view restriction overrides space read",
			restr([]string{"u1"}, nil, nil, nil),
			space(confluencetest.Perm("user", "u2", "read", "space"), confluencetest.Perm("group", "g1", "administer", "space")),
			shape([]any{"u1"}, e, e, e, e, e)},
		{"edit restriction: editors can read, admins may read but not edit",
			restr(nil, nil, []string{"u3"}, []string{"g9"}),
			space(confluencetest.Perm("group", "g1", "administer", "space")),
			shape([]any{"u3"}, []any{"g1", "g9"}, []any{"u3"}, []any{"g9"}, e, e)},
		{"delete only for readers, whatever the order (the reference depends on it)",
			restr(nil, nil, nil, nil),
			space(confluencetest.Perm("user", "late", "delete", "page"), confluencetest.Perm("user", "a", "read", "space"), confluencetest.Perm("user", "a", "delete", "page"), confluencetest.Perm("user", "late", "read", "space"), confluencetest.Perm("user", "nobody", "delete", "page")),
			shape([]any{"a", "late"}, e, e, e, []any{"a", "late"}, e)},
		{"other operations ignored",
			restr(nil, nil, nil, nil),
			space(confluencetest.Perm("user", "a", "read", "space"), confluencetest.Perm("user", "b", "create", "page"), confluencetest.Perm("group", "g", "read", "blogpost")),
			shape([]any{"a"}, e, e, e, e, e)},
		{"role principal left out (the reference drops all permissions: null reads as public)", restr(nil, nil, nil, nil), space(confluencetest.Perm("role", "r1", "read", "space"), confluencetest.Perm("user", "a", "read", "space")), shape([]any{"a"}, e, e, e, e, e)},
		{"role principal harmless when not reached", restr([]string{"u1"}, nil, nil, nil), space(confluencetest.Perm("role", "r1", "read", "space")), shape([]any{"u1"}, e, e, e, e, e)},
		{"data center users have no accountId",
			map[string]any{"read": map[string]any{"restrictions": map[string]any{"user": map[string]any{"results": []any{map[string]any{"userKey": "k"}}}}}},
			space(confluencetest.Perm("user", "a", "read", "space")), nil},
		// Not the Cloud shape: refused, never read as "no restriction" (it once gave every
		// space reader read).
		{"data center nesting is refused",
			map[string]any{"restrictions": map[string]any{"read": map[string]any{}}},
			space(confluencetest.Perm("user", "a", "read", "space")), nil},
		{"user restrictions left unexpanded are refused",
			map[string]any{"read": map[string]any{"restrictions": map[string]any{"group": map[string]any{"results": []any{}}, "_expandable": map[string]any{"user": "/rest/api/x"}}},
				"update": map[string]any{"restrictions": map[string]any{"user": map[string]any{"results": []any{}}, "group": map[string]any{"results": []any{}}}}},
			space(confluencetest.Perm("user", "a", "read", "space")), nil},
		{"an answer without the read operation is refused",
			map[string]any{"update": map[string]any{"restrictions": map[string]any{"user": map[string]any{"results": []any{}}, "group": map[string]any{"results": []any{}}}}},
			space(confluencetest.Perm("user", "a", "read", "space")), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := computePermissions([]map[string]any{tt.restr}, tt.space)
			if tt.want == nil {
				if err == nil {
					t.Fatalf("want no permissions, got %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				gj, _ := json.Marshal(got)
				wj, _ := json.Marshal(tt.want)
				t.Fatalf("got  %s\nwant %s", gj, wj)
			}
		})
	}
	// The cap: once 250 entries were counted no more space assignments are added.
	var many []any
	for i := 0; i < 300; i++ {
		many = append(many, confluencetest.Perm("user", fmt.Sprintf("u%03d", i), "read", "space"))
	}
	got, err := computePermissions([]map[string]any{restr(nil, nil, nil, nil)}, many)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(got.([]any)[0].(map[string]any)["read"].(map[string]any)["users"].([]any)); n != 250 {
		t.Errorf("capped read users = %d, want 250", n)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// cloudSite is a Cloud fake with three spaces (one personal), five pages in DEV (one hidden by
// restrictions), permissions, images and attachments.
func cloudSite(t *testing.T) *confluencetest.Site {
	f := confluencetest.New(t, true)
	f.Spaces = []confluencetest.Space{
		{ID: 101, Key: "DEV", Perms: []map[string]any{
			confluencetest.Perm("user", "acc-alice", "read", "space"),
			confluencetest.Perm("group", "grp-staff", "read", "space"),
			confluencetest.Perm("group", "grp-admins", "administer", "space"),
			confluencetest.Perm("user", "acc-alice", "delete", "page"),
		}},
		{ID: 102, Key: "OPS", Perms: []map[string]any{confluencetest.Perm("role", "r", "read", "space")}},
		{ID: 103, Key: "~712020abcdef", Personal: true, Alias: "~bob"},
	}
	f.Pages = []confluencetest.Page{
		{ID: "11", Space: "DEV", Title: "Welcome & hello", Version: 3, Created: "2024-11-19T17:18:57.112Z", Modified: "2024-12-01T08:00:00.000Z",
			Body: `<p>This is the development space. It holds the design notes for the team.</p>` +
				`<p><img class="confluence-embedded-image" src="/wiki/download/attachments/11/diagram.png?version=1"></p>` +
				`<p><img src="{{SITE}}/download/attachments/11/abs.png"></p>` +
				`<p><img src="https://cdn.example.invalid/emoji.png"></p>` +
				`<p><img src="data:image/png;base64,AAAA"></p>` +
				`<p><a class="confluence-embedded-file" data-linked-resource-type="attachment" href="/wiki/download/attachments/11/report%20v2.pdf?version=2&amp;modificationDate=1700000000000&amp;api=v2">report</a></p>` +
				`<p><a class="confluence-embedded-file" data-linked-resource-type="attachment" href="#anchor">x</a>` +
				`<a class="confluence-embedded-file" data-linked-resource-type="attachment" href="/wiki/download/attachments/11/noext">y</a>` +
				`<a href="/wiki/download/attachments/11/plainlink.txt">plain links are not files</a>` +
				`<a class="confluence-embedded-file" data-linked-resource-type="attachment" href="https://evil.example.invalid/x.pdf">z</a></p>`},
		{ID: "12", Space: "DEV", Title: "Restricted plan", Version: 1, Created: "2024-01-01T00:00:00.000Z", Modified: "2024-01-02T00:00:00.000Z",
			Body: "<p>Only a few people may read this plan.</p>", ReadUsers: []string{"acc-carol"}, EditGroups: []string{"grp-leads"}},
		{ID: "13", Space: "DEV", Title: "Third", Version: 1, Created: "2024-01-01T00:00:00.000Z", Modified: "2024-01-01T00:00:00.000Z", Body: "<p>third</p>"},
		{ID: "14", Space: "DEV", Title: "Secret", Version: 1, Body: "<p>hidden</p>", Hidden: true},
		{ID: "15", Space: "DEV", Title: "Fourth", Version: 2, Created: "2024-01-01T00:00:00.000Z", Modified: "2024-01-01T00:00:00.000Z", Body: "<p>fourth</p>"},
		{ID: "21", Space: "OPS", Title: "Runbook", Version: 7, Created: "2024-01-01T00:00:00.000Z", Modified: "2024-01-01T00:00:00.000Z", Body: "<p>ops</p>"},
		{ID: "31", Space: "~712020abcdef", Title: "Bob's notes", Version: 1, Created: "2024-01-01T00:00:00.000Z", Modified: "2024-01-01T00:00:00.000Z", Body: "<p>bob</p>"},
	}
	f.Files["download/attachments/11/diagram.png"] = []byte("\x89PNG fake diagram")
	f.Files["download/attachments/11/abs.png"] = []byte("\x89PNG absolute")
	f.Files["download/attachments/11/report v2.pdf"] = []byte("%PDF-1.4 fake report")
	return f
}

func listDocs(t *testing.T, src *Source) ([]connectors.Document, error) {
	t.Helper()
	var docs []connectors.Document
	err := src.List(context.Background(), func(d connectors.Document) error {
		docs = append(docs, d)
		return nil
	})
	return docs, err
}

func ids(docs []connectors.Document) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.ID
	}
	return out
}

func open(t *testing.T, src *Source, d connectors.Document) string {
	t.Helper()
	rc, err := src.Open(context.Background(), d)
	if err != nil {
		t.Fatalf("Open %s: %v", d.ID, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestCloudListing(t *testing.T) {
	f := cloudSite(t)
	tests := []struct {
		name string
		cfg  Config
		want []string
	}{
		{"all spaces, pagination", Config{}, []string{"DEV/11.html", "DEV/12.html", "DEV/13.html", "DEV/15.html", "OPS/21.html", "~712020abcdef/31.html"}},
		{"max spaces", Config{MaxSpaces: 1}, []string{"DEV/11.html", "DEV/12.html", "DEV/13.html", "DEV/15.html"}},
		{"max docs per space", Config{MaxDocs: 3}, []string{"DEV/11.html", "DEV/12.html", "DEV/13.html", "OPS/21.html", "~712020abcdef/31.html"}},
		{"named spaces (max spaces ignored)", Config{Spaces: []string{"OPS", "DEV"}, MaxSpaces: 1, MaxDocs: 1}, []string{"OPS/21.html", "DEV/11.html"}},
		{"personal space by alias", Config{Spaces: []string{"~bob"}}, []string{"~712020abcdef/31.html"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.URL, cfg.Username, cfg.APIToken, cfg.Cloud = f.SiteURL(), f.User, f.Secret, true
			src, err := testSource(cfg)
			if err != nil {
				t.Fatal(err)
			}
			docs, err := listDocs(t, src)
			if err != nil {
				t.Fatal(err)
			}
			if got := ids(docs); !slices.Equal(got, tt.want) {
				t.Fatalf("listed %v, want %v", got, tt.want)
			}
		})
	}
	// Every listing above was paginated by the server (page size 2) through cursors.
	var cursors int
	for _, r := range f.Log() {
		if strings.Contains(r, "cursor=") {
			cursors++
		}
	}
	if cursors == 0 {
		t.Error("no cursor-paginated request was made")
	}
}

func TestCloudMetadataAndPermissions(t *testing.T) {
	f := cloudSite(t)
	src, err := testSource(Config{URL: f.SiteURL() + "/", Username: f.User, APIToken: f.Secret, Cloud: true})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]connectors.Document{}
	for _, d := range docs {
		byID[d.ID] = d
	}
	welcome := byID["DEV/11.html"]
	if welcome.Filename != "11.html" || !strings.HasPrefix(welcome.Version, "3+acl.") || welcome.ContentType != "text/html" {
		t.Errorf("document %+v", welcome)
	}
	ds := welcome.DataSource
	want := map[string]any{
		"url":            f.SiteURL() + "/pages/11",
		"version":        "3",
		"record_locator": map[string]any{"space_id": "DEV", "document_id": "11"},
		"date_created":   "2024-11-19T17:18:57.112Z",
		"date_modified":  "2024-12-01T08:00:00.000Z",
		"filesize_bytes": nil,
		"permissions_data": []any{
			map[string]any{"read": map[string]any{"users": []any{"acc-alice"}, "groups": []any{"grp-admins", "grp-staff"}}},
			map[string]any{"update": map[string]any{"users": []any{}, "groups": []any{"grp-admins"}}},
			map[string]any{"delete": map[string]any{"users": []any{"acc-alice"}, "groups": []any{}}},
		},
	}
	for k, v := range want {
		if !reflect.DeepEqual(ds[k], v) {
			t.Errorf("data_source[%s] = %#v, want %#v", k, ds[k], v)
		}
	}
	if s, _ := ds["date_processed"].(string); !strings.Contains(s, ".") {
		t.Errorf("date_processed %v", ds["date_processed"])
	}
	// The restricted page: readers are the restriction's plus editors, space readers excluded.
	restricted := byID["DEV/12.html"].DataSource["permissions_data"]
	wantR := []any{
		map[string]any{"read": map[string]any{"users": []any{"acc-carol"}, "groups": []any{"grp-leads"}}},
		map[string]any{"update": map[string]any{"users": []any{}, "groups": []any{"grp-leads"}}},
		map[string]any{"delete": map[string]any{"users": []any{}, "groups": []any{}}},
	}
	if !reflect.DeepEqual(restricted, wantR) {
		gj, _ := json.Marshal(restricted)
		t.Errorf("restricted page permissions %s", gj)
	}
	// OPS grants only to a role: the reference gives up (null, which reads as "no access
	// control"); roles cannot be written in this shape, so nobody is listed.
	empty := []any{
		map[string]any{"read": map[string]any{"users": []any{}, "groups": []any{}}},
		map[string]any{"update": map[string]any{"users": []any{}, "groups": []any{}}},
		map[string]any{"delete": map[string]any{"users": []any{}, "groups": []any{}}},
	}
	if v := byID["OPS/21.html"].DataSource["permissions_data"]; !reflect.DeepEqual(v, empty) {
		t.Errorf("OPS permissions_data = %v, want every list empty", v)
	}
	// Every Cloud page carries permissions; none is left null.
	for _, d := range docs {
		if d.DataSource["permissions_data"] == nil {
			t.Errorf("%s: null permissions_data on Cloud", d.ID)
		}
	}
	// data_source must survive JSON (it becomes element metadata).
	if _, err := json.Marshal(ds); err != nil {
		t.Fatal(err)
	}
}

func TestOpenPartitionsAsHTML(t *testing.T) {
	f := cloudSite(t)
	src, err := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true, Spaces: []string{"DEV"}, MaxDocs: 1})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := listDocs(t, src)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%v %v", ids(docs), err)
	}
	html := open(t, src, docs[0])
	if !strings.Contains(html, `<body class="Document"><h1>Welcome &amp; hello</h1>`) {
		t.Fatalf("page HTML lacks the title h1:\n%s", html)
	}
	// Without extract_images the img tags are untouched and no image was fetched.
	if strings.Contains(html, "data:image/png;base64,iVBO") || slices.ContainsFunc(f.Log(), func(r string) bool { return strings.Contains(r, ".png") }) {
		t.Error("images fetched without extract_images")
	}
	// The platform partitions the bytes as an HTML document named like the reference's file.
	doc := &engine.Document{Filename: docs[0].Filename, ContentType: docs[0].ContentType, Content: bytes.NewReader([]byte(html)), Size: int64(len(html))}
	els, err := engine.Partition(context.Background(), doc, engine.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(els) < 2 || els[0].Type != "Title" || els[0].Text != "Welcome & hello" {
		t.Fatalf("elements %+v", els)
	}
	if els[1].Type != "NarrativeText" || !strings.HasPrefix(els[1].Text, "This is the development space.") || els[1].Metadata.Filename != "11.html" {
		t.Errorf("second element %+v", els[1])
	}
}

func TestExtractImages(t *testing.T) {
	f := cloudSite(t)
	var external atomic.Int32
	ext := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { external.Add(1) }))
	defer ext.Close()
	f.Pages[0].Body += `<img src="` + ext.URL + `/tracker.png">`
	src, err := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true, Spaces: []string{"DEV"}, MaxDocs: 1, ExtractImages: true})
	if err != nil {
		t.Fatal(err)
	}
	// On Cloud a page opens only as listed (with the permissions it is checked against).
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	html := open(t, src, byID(docs)["DEV/11.html"])
	for _, img := range []string{"\x89PNG fake diagram", "\x89PNG absolute"} {
		if !strings.Contains(html, `src="data:image/png;base64,`+base64.StdEncoding.EncodeToString([]byte(img))+`"`) {
			t.Errorf("image %q not inlined:\n%s", img, html)
		}
	}
	for _, kept := range []string{`src="https://cdn.example.invalid/emoji.png"`, `src="data:image/png;base64,AAAA"`, `src="` + ext.URL + `/tracker.png"`} {
		if !strings.Contains(html, kept) {
			t.Errorf("%s should be left as is", kept)
		}
	}
	if external.Load() != 0 {
		t.Error("an image outside the allow-list was downloaded")
	}
	// Images went through the REST download and the media host, never the legacy path (which
	// answers 401 to API tokens on Cloud), and no credentials reached the media host.
	for _, r := range f.Log() {
		if strings.Contains(r, "/download/attachments/") {
			t.Errorf("legacy download path requested: %s", r)
		}
	}
	if n := f.MediaAuth.Load(); n != 0 {
		t.Errorf("%d media requests carried credentials", n)
	}
	// A broken image is skipped with a warning naming it; the page still opens and partitions.
	var logs bytes.Buffer
	src.c.log = slog.New(slog.NewTextHandler(&logs, nil))
	delete(f.Files, "download/attachments/11/abs.png")
	html = open(t, src, byID(docs)["DEV/11.html"])
	if !strings.Contains(html, base64.StdEncoding.EncodeToString([]byte("\x89PNG fake diagram"))) || !strings.Contains(html, `/download/attachments/11/abs.png"`) {
		t.Errorf("with a broken image: %s", html)
	}
	if w := logs.String(); !strings.Contains(w, "image skipped") || !strings.Contains(w, "abs.png") || !strings.Contains(w, "page=11") {
		t.Errorf("warning %q", w)
	}
	if strings.Contains(logs.String(), f.Secret) {
		t.Error("warning leaks the token")
	}
	doc := &engine.Document{Filename: "11.html", ContentType: "text/html", Content: strings.NewReader(html), Size: int64(len(html))}
	if els, err := engine.Partition(context.Background(), doc, engine.DefaultOptions()); err != nil || len(els) < 2 {
		t.Errorf("page with a skipped image does not partition: %v %d", err, len(els))
	}
}

func TestExtractFiles(t *testing.T) {
	f := cloudSite(t)
	src, err := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true, Spaces: []string{"DEV"}, MaxDocs: 2, ExtractFiles: true})
	if err != nil {
		t.Fatal(err)
	}
	docs, err := listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(docs), []string{"DEV/11/report v2.pdf", "DEV/11.html", "DEV/12.html"}; !slices.Equal(got, want) {
		t.Fatalf("listed %v, want %v", got, want)
	}
	att, page := docs[0], docs[1]
	attURL := f.Srv.URL + "/wiki/download/attachments/11/report%20v2.pdf?version=2&modificationDate=1700000000000&api=v2"
	if att.Filename != "report v2.pdf" || att.DataSource["url"] != attURL || att.Version != page.Version+"/2/1700000000000" {
		t.Errorf("attachment %+v", att)
	}
	rl := att.DataSource["record_locator"].(map[string]any)
	if rl["parent_url"] != attURL || rl["space_id"] != "DEV" || rl["document_id"] != "11" {
		t.Errorf("attachment record_locator %v", rl)
	}
	if _, ok := page.DataSource["record_locator"].(map[string]any)["parent_url"]; ok {
		t.Error("the page's record_locator was modified")
	}
	if !reflect.DeepEqual(att.DataSource["permissions_data"], page.DataSource["permissions_data"]) || att.DataSource["permissions_data"] == nil {
		t.Error("attachment should inherit the page's permissions")
	}
	if got := open(t, src, att); got != "%PDF-1.4 fake report" {
		t.Errorf("attachment content %q", got)
	}
	// From the ID alone (no data_source, so no permissions to check it against): refused on
	// Cloud rather than indexed without access control.
	if _, err := src.Open(context.Background(), connectors.Document{ID: att.ID}); err == nil || !strings.Contains(err.Error(), "without a permissions digest") {
		t.Errorf("attachment by ID alone: %v", err)
	}
	// A page whose body cannot be fetched is still listed (its Open fails on its own).
	f.Broken = map[string]bool{"11": true}
	docs, err = listDocs(t, src)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ids(docs), []string{"DEV/11.html", "DEV/12.html"}; !slices.Equal(got, want) {
		t.Fatalf("listed %v with a broken page, want %v", got, want)
	}
	if _, err := src.Open(context.Background(), docs[0]); err == nil || !strings.Contains(err.Error(), "page 11: HTTP 500 Internal Server Error (gave up after 6 attempts)") || strings.Contains(err.Error(), "Something went wrong") {
		t.Errorf("Open of a broken page: %v", err)
	}
	for _, r := range f.Log() {
		if strings.Contains(r, "noext") || strings.Contains(r, "plainlink") || strings.Contains(r, "x.pdf") {
			t.Errorf("unexpected request %s", r)
		}
	}
}

// dcSite is a Data Center fake at a context path, serving v1 only.
func dcSite(t *testing.T) *confluencetest.Site {
	f := confluencetest.New(t, false)
	f.Spaces = []confluencetest.Space{{ID: 98305, Key: "ENG", Perms: []map[string]any{confluencetest.Perm("user", "x", "read", "space")}}, {ID: 98306, Key: "HR"}}
	for i := 1; i <= 5; i++ {
		id := itoa(200 + i)
		f.Pages = append(f.Pages, confluencetest.Page{ID: id, Space: "ENG", Title: "Page " + id, Version: i, Created: "2023-05-0" + itoa(i) + "T10:00:00.000+02:00", Modified: "2023-06-01T10:00:00.000+02:00", Body: "<p>Body of page " + id + ".</p>", ReadUsers: []string{"u"}})
	}
	f.Pages = append(f.Pages, confluencetest.Page{ID: "301", Space: "HR", Title: "Policies", Version: 1, Body: "<ul><li>one</li></ul>"})
	return f
}

func TestDataCenter(t *testing.T) {
	f := dcSite(t)
	auths := []struct {
		name string
		cfg  Config
	}{
		{"personal access token", Config{Token: " " + f.PAT + " "}},
		{"password", Config{Username: f.User, Password: f.Secret}},
	}
	for _, a := range auths {
		t.Run(a.name, func(t *testing.T) {
			cfg := a.cfg
			cfg.URL, cfg.MaxDocs = f.SiteURL(), 4
			src, err := testSource(cfg)
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
			if got, want := ids(docs), []string{"ENG/201.html", "ENG/202.html", "ENG/203.html", "ENG/204.html", "HR/301.html"}; !slices.Equal(got, want) {
				t.Fatalf("listed %v, want %v", got, want)
			}
			d := docs[1]
			if d.Version != "2" || d.DataSource["date_created"] != "2023-05-02T10:00:00.000+02:00" || d.DataSource["date_modified"] != "2023-06-01T10:00:00.000+02:00" {
				t.Errorf("document %+v", d)
			}
			// Data Center has no v2 space-permissions endpoint: no permissions, as the reference.
			if v, ok := d.DataSource["permissions_data"]; !ok || v != nil {
				t.Errorf("permissions_data = %v, want null", v)
			}
			if html := open(t, src, d); !strings.Contains(html, "<h1>Page 202</h1><p>Body of page 202.</p>") {
				t.Errorf("page HTML %s", html)
			}
		})
	}
	// v1 pagination used start/limit with the server's cap.
	if !slices.ContainsFunc(f.Log(), func(r string) bool { return strings.Contains(r, "start=2") }) {
		t.Error("v1 listing did not follow the next link")
	}
}

func TestErrors(t *testing.T) {
	f := cloudSite(t)
	d := dcSite(t)
	ctx := context.Background()
	t.Run("401", func(t *testing.T) {
		src, _ := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: "wrong-token-value", Cloud: true})
		for _, err := range []error{src.Check(ctx), func() error { _, err := listDocs(t, src); return err }()} {
			var he *HTTPError
			if !errors.As(err, &he) || he.StatusCode != 401 || !strings.Contains(err.Error(), "unauthorized") {
				t.Errorf("want 401 error, got %v", err)
			}
			if strings.Contains(err.Error(), "wrong-token-value") || strings.Contains(err.Error(), "Basic ") {
				t.Errorf("error leaks credentials: %v", err)
			}
		}
		dc, _ := testSource(Config{URL: d.SiteURL(), Token: "bad-pat"})
		if err := dc.Check(ctx); err == nil || strings.Contains(err.Error(), "bad-pat") {
			t.Errorf("DC bad PAT: %v", err)
		}
	})
	t.Run("unknown spaces", func(t *testing.T) {
		src, _ := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true, Spaces: []string{"NOPE", "DEV", "~ghost"}})
		err := src.Check(ctx)
		if err == nil || !strings.Contains(err.Error(), `"NOPE"`) || !strings.Contains(err.Error(), `"~ghost"`) || strings.Contains(err.Error(), `"DEV"`) {
			t.Errorf("Check: %v", err)
		}
		if _, err := listDocs(t, src); err == nil || !strings.Contains(err.Error(), `"NOPE"`) {
			t.Errorf("List: %v", err)
		}
		dc, _ := testSource(Config{URL: d.SiteURL(), Token: d.PAT, Spaces: []string{"MISSING"}})
		var he *HTTPError
		if _, err := listDocs(t, dc); !errors.As(err, &he) || he.StatusCode != 404 || !strings.Contains(err.Error(), `space "MISSING"`) || strings.Contains(err.Error(), "No space with key") {
			t.Errorf("DC List: %v", err)
		}
	})
	t.Run("404 page and restricted page", func(t *testing.T) {
		src, _ := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true})
		for _, id := range []string{"DEV/999.html", "DEV/14.html"} {
			_, err := src.Open(ctx, connectors.Document{ID: id})
			var he *HTTPError
			if !errors.As(err, &he) || he.StatusCode != 404 || !strings.Contains(err.Error(), "page "+strings.TrimSuffix(strings.TrimPrefix(id, "DEV/"), ".html")) {
				t.Errorf("Open %s: %v", id, err)
			}
		}
		if _, err := src.Open(ctx, connectors.Document{ID: "garbage"}); err == nil {
			t.Error("Open of a malformed id succeeded")
		}
	})
	t.Run("wrong site path", func(t *testing.T) {
		src, _ := testSource(Config{URL: f.Srv.URL + "/elsewhere", Username: f.User, APIToken: f.Secret, Cloud: true})
		if err := src.Check(ctx); err == nil || !strings.Contains(err.Error(), "404") {
			t.Errorf("Check: %v", err)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		src, _ := testSource(Config{URL: "http://127.0.0.1:1", Token: "x"})
		if err := src.Check(ctx); err == nil || !strings.Contains(err.Error(), "cannot reach") {
			t.Errorf("Check: %v", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		src, _ := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true})
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		if err := src.List(cctx, func(connectors.Document) error { return nil }); !errors.Is(err, context.Canceled) {
			t.Errorf("List: %v", err)
		}
		stop := errors.New("stop")
		n := 0
		if err := src.List(ctx, func(connectors.Document) error { n++; return stop }); !errors.Is(err, stop) || n != 1 {
			t.Errorf("List after yield error: %v after %d", err, n)
		}
	})
}

func TestCredentialsStayOnSite(t *testing.T) {
	f := cloudSite(t)
	var leaked atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
	}))
	defer other.Close()
	src, _ := testSource(Config{URL: f.SiteURL(), Username: f.User, APIToken: f.Secret, Cloud: true})
	// A data_source url pointing elsewhere is not followed with credentials.
	rc, err := src.Open(context.Background(), connectors.Document{ID: "DEV/11/report v2.pdf", DataSource: map[string]any{"url": other.URL + "/x.pdf"}})
	if err == nil {
		b, _ := io.ReadAll(rc)
		rc.Close()
		if string(b) != "%PDF-1.4 fake report" {
			t.Errorf("content %q", b)
		}
	}
	if _, err := src.c.resolve(context.Background(), other.URL+"/api/v2/spaces"); err == nil {
		t.Error("resolve accepted another host")
	}
	if leaked.Load() != 0 {
		t.Error("credentials were sent to another host")
	}
}

func TestAtlassianBase(t *testing.T) {
	tests := []struct{ url, base string }{
		{"https://acme.atlassian.net", "https://acme.atlassian.net/wiki"},
		{"https://acme.atlassian.net/wiki/", "https://acme.atlassian.net/wiki"},
		{"https://confluence.example.com/confluence", "https://confluence.example.com/confluence"},
	}
	for _, tt := range tests {
		c, err := newClient(Config{URL: tt.url, Token: "x"})
		if err != nil {
			t.Fatal(err)
		}
		if c.base.String() != tt.base {
			t.Errorf("%s: base %s, want %s", tt.url, c.base, tt.base)
		}
	}
	src, _ := testSource(Config{URL: "https://acme.atlassian.net/", Username: "u", APIToken: "t"})
	if !src.c.cloud || src.siteURL != "https://acme.atlassian.net" {
		t.Errorf("cloud %v site %s", src.c.cloud, src.siteURL)
	}
}
