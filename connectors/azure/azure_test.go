package azure

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/quarrydocs/quarry/api/schema"
	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/element"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		config map[string]any
		// want lists "key:type" of every expected error; empty means valid.
		want []string
	}{
		{"connection string", map[string]any{"remote_url": "az://c/p", "connection_string": "AccountName=acct;AccountKey=a2V5"}, nil},
		{"junk connection string", map[string]any{"remote_url": "az://c/p", "connection_string": "x"}, []string{"connection_string:value_error"}},
		{"account and key", map[string]any{"remote_url": "abfs://c/", "account_name": "acct", "account_key": "k", "recursive": false}, nil},
		{"account and sas", map[string]any{"remote_url": "az://c", "account_name": "acct", "sas_token": "?sv=1"}, nil},
		{"anonymous with account", map[string]any{"remote_url": "az://c", "account_name": "acct"}, nil},
		{"nulls are unset", map[string]any{"remote_url": "az://c", "account_name": "acct", "account_key": nil, "recursive": nil}, nil},
		{"lenient bool", map[string]any{"remote_url": "az://c", "account_name": "acct", "recursive": "yes"}, nil},
		{"missing remote_url", map[string]any{"account_name": "acct"}, []string{"remote_url:missing"}},
		{"empty config", map[string]any{}, []string{"remote_url:missing", "account_name:value_error"}},
		{"bad scheme", map[string]any{"remote_url": "s3://c/p", "account_name": "acct"}, []string{"remote_url:string_pattern_mismatch"}},
		{"two schemes", map[string]any{"remote_url": "az://c/abfs://x", "account_name": "acct"}, []string{"remote_url:value_error"}},
		{"no container", map[string]any{"remote_url": "az://", "account_name": "acct"}, []string{"remote_url:value_error"}},
		{"wrong types", map[string]any{"remote_url": 5.0, "account_name": true, "recursive": "maybe"}, []string{"remote_url:string_type", "account_name:string_type", "recursive:bool_type"}},
		{"no auth target", map[string]any{"remote_url": "az://c", "account_key": "k"}, []string{"account_name:value_error"}},
		{"account in ADLS URL", map[string]any{"remote_url": "abfs://c@acct.dfs.core.windows.net/dir", "account_key": "k"}, nil},
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
				if len(fe.Loc) != 3 || fe.Loc[0] != "body" || fe.Loc[1] != "config" {
					t.Errorf("loc %v, want [body config key]", fe.Loc)
				}
				got = append(got, fe.Loc[len(fe.Loc)-1]+":"+fe.Type)
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
	got := Defaults(map[string]any{"remote_url": "az://c", "account_key": "k"})
	for _, k := range []string{"account_name", "connection_string", "sas_token"} {
		if v, ok := got[k]; !ok || v != nil {
			t.Errorf("%s = %v, %v; want present null", k, v, ok)
		}
	}
	if got["recursive"] != true || got["account_key"] != "k" {
		t.Errorf("defaults %v", got)
	}
	if got := Defaults(map[string]any{"recursive": "false"}); got["recursive"] != false {
		t.Errorf("recursive %v, want false", got["recursive"])
	}
}

func TestSplitRemoteURL(t *testing.T) {
	tests := []struct{ in, protocol, container, prefix, account string }{
		{"az://c", "az", "c", "", ""},
		{"abfs://container1/", "abfs", "container1", "", ""},
		{"az://c/a/b/", "az", "c", "a/b/", ""},
		{"abfs://c@acct.dfs.core.windows.net/dir/x.pdf", "abfs", "c", "dir/x.pdf", "acct"},
	}
	for _, tt := range tests {
		p, c, pre, acct, err := splitRemoteURL(tt.in)
		if err != nil || p != tt.protocol || c != tt.container || pre != tt.prefix || acct != tt.account {
			t.Errorf("%s: %q %q %q %q %v", tt.in, p, c, pre, acct, err)
		}
	}
	src, err := NewSource(Config{RemoteURL: "abfs://c@acct.dfs.core.windows.net/dir", AccountKey: devKey})
	if err != nil {
		t.Fatal(err)
	}
	if got := src.c.cc.URL(); got != "https://acct.blob.core.windows.net/c" {
		t.Errorf("container URL %s", got)
	}
}

func TestEpochString(t *testing.T) {
	tests := []struct {
		t    time.Time
		want string
	}{
		{time.Unix(1678442150, 0), "1678442150.0"},
		{time.Unix(1678442150, 250_000_000), "1678442150.25"},
	}
	for _, tt := range tests {
		if got := epochString(tt.t); got != tt.want {
			t.Errorf("epochString(%v) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func TestRegistered(t *testing.T) {
	k, ok := connectors.Lookup("azure")
	if !ok || k.NewSource == nil || k.NewDestination == nil || k.Validate == nil {
		t.Fatalf("azure kind not registered completely: %+v", k)
	}
	if !slices.Equal(k.Secrets, []string{"account_key", "sas_token", "connection_string"}) {
		t.Errorf("secrets %v", k.Secrets)
	}
	if _, err := k.NewSource(map[string]any{"remote_url": "gs://x"}, connectors.Env{}); err == nil {
		t.Error("NewSource accepted an invalid config")
	}
}

// fixture fills an Azurite container and returns an admin client.
type fixture struct {
	az    *azurite
	admin *service.Client
	n     int
}

func newFixture(t *testing.T) *fixture {
	az := startAzurite(t)
	admin, err := service.NewClientFromConnectionString(az.connectionString(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{az: az, admin: admin}
}

// container creates a uniquely named container holding blobs (name → content).
func (f *fixture) container(t *testing.T, access *container.PublicAccessType, blobs map[string]string) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	f.n++
	name = fmt.Sprintf("%s-%d-%d", strings.Trim(name, "-"), time.Now().UnixNano()%1e6, f.n)
	ctx := context.Background()
	if _, err := f.admin.CreateContainer(ctx, name, &service.CreateContainerOptions{Access: access}); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	cc := f.admin.NewContainerClient(name)
	for b, content := range blobs {
		if _, err := cc.NewBlockBlobClient(b).UploadBuffer(ctx, []byte(content), nil); err != nil {
			t.Fatalf("upload %s: %v", b, err)
		}
	}
	return name
}

var sampleBlobs = map[string]string{
	"top.txt":             "top level text",
	"empty.txt":           "",
	"docs/a.txt":          "alpha",
	"docs/b.html":         "<p>beta</p>",
	"docs/empty-dir/":     "",
	"docs/sub/c.md":       "# gamma",
	"docs/sub/deep/d.csv": "a,b\n1,2\n",
	"docsish/e.txt":       "not under docs/",
}

func listAll(t *testing.T, src connectors.Source) map[string]connectors.Document {
	t.Helper()
	docs := map[string]connectors.Document{}
	err := src.List(context.Background(), func(d connectors.Document) error {
		if _, dup := docs[d.ID]; dup {
			t.Errorf("document %s listed twice", d.ID)
		}
		docs[d.ID] = d
		return nil
	})
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return docs
}

func keys(m map[string]connectors.Document) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func readAll(t *testing.T, src connectors.Source, d connectors.Document) string {
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

func TestSourceListing(t *testing.T) {
	f := newFixture(t)
	cont := f.container(t, nil, sampleBlobs)
	cs := f.az.connectionString()
	tests := []struct {
		name   string
		url    string
		recurs bool
		want   []string
	}{
		{"container recursive", "az://" + cont, true, []string{"docs/a.txt", "docs/b.html", "docs/sub/c.md", "docs/sub/deep/d.csv", "docsish/e.txt", "top.txt"}},
		{"container root only", "az://" + cont + "/", false, []string{"top.txt"}},
		{"prefix recursive", "abfs://" + cont + "/docs", true, []string{"a.txt", "b.html", "sub/c.md", "sub/deep/d.csv"}},
		{"prefix one level", "abfs://" + cont + "/docs/", false, []string{"a.txt", "b.html"}},
		{"nested prefix", "az://" + cont + "/docs/sub", true, []string{"c.md", "deep/d.csv"}},
		{"single blob", "az://" + cont + "/docs/sub/c.md", true, []string{"c.md"}},
		{"empty single blob", "az://" + cont + "/empty.txt", true, nil},
		{"missing prefix", "az://" + cont + "/nothing/here", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, err := connectorsSource(map[string]any{"remote_url": tt.url, "connection_string": cs, "recursive": tt.recurs})
			if err != nil {
				t.Fatal(err)
			}
			docs := listAll(t, src)
			if got := keys(docs); !slices.Equal(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
				t.Fatalf("listed %v, want %v", got, tt.want)
			}
			// Every listed document opens to its uploaded content.
			for id, d := range docs {
				name := strings.TrimPrefix(d.DataSource["url"].(string), strings.SplitN(tt.url, "://", 2)[0]+"://"+cont+"/")
				if got := readAll(t, src, d); got != sampleBlobs[name] {
					t.Errorf("%s: content %q, want %q", id, got, sampleBlobs[name])
				}
				// Open also works from the ID alone (a document rebuilt from a job record).
				if got := readAll(t, src, connectors.Document{ID: d.ID}); got != sampleBlobs[name] {
					t.Errorf("%s by ID: content %q, want %q", id, got, sampleBlobs[name])
				}
			}
		})
	}
}

func connectorsSource(config map[string]any) (connectors.Source, error) {
	k, _ := connectors.Lookup("azure")
	return k.NewSource(config, connectors.Env{AllowPrivateNetwork: true})
}

func TestDataSource(t *testing.T) {
	f := newFixture(t)
	cont := f.container(t, nil, map[string]string{"dir/report.txt": "some report text"})
	remote := "abfs://" + cont + "/dir/"
	before := time.Now().Add(-time.Minute).Unix()
	src, err := connectorsSource(map[string]any{"remote_url": remote, "connection_string": f.az.connectionString()})
	if err != nil {
		t.Fatal(err)
	}
	docs := listAll(t, src)
	d, ok := docs["report.txt"]
	if !ok {
		t.Fatalf("listed %v", keys(docs))
	}
	props, err := f.admin.NewContainerClient(cont).NewBlobClient("dir/report.txt").GetProperties(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	etag := strings.Trim(string(*props.ETag), `"`)
	if d.Filename != "report.txt" || d.Size != 16 || d.Version != etag || !strings.HasPrefix(etag, "0x") {
		t.Errorf("document %+v (etag %s)", d, etag)
	}
	ds := d.DataSource
	if ds["url"] != "abfs://"+cont+"/dir/report.txt" || ds["version"] != etag || ds["filesize_bytes"] != int64(16) {
		t.Errorf("data_source %v", ds)
	}
	if v, ok := ds["permissions_data"]; !ok || v != nil {
		t.Errorf("permissions_data should be present and null: %v", ds)
	}
	rl, _ := ds["record_locator"].(map[string]any)
	if rl["protocol"] != "abfs" || rl["remote_file_path"] != remote {
		t.Errorf("record_locator %v", rl)
	}
	for _, k := range []string{"date_created", "date_modified", "date_processed"} {
		s, _ := ds[k].(string)
		if !strings.Contains(s, ".") {
			t.Errorf("%s = %q, want an epoch-seconds string like 1678442150.0", k, s)
			continue
		}
		var sec float64
		if err := json.Unmarshal([]byte(s), &sec); err != nil || int64(sec) < before {
			t.Errorf("%s = %q, want a recent epoch", k, s)
		}
	}
	if want := epochString(*props.LastModified); ds["date_modified"] != want {
		t.Errorf("date_modified %v, want %s", ds["date_modified"], want)
	}
	// data_source survives the JSON round trip the platform makes into element metadata.
	if _, err := json.Marshal(ds); err != nil {
		t.Fatal(err)
	}
}

func TestAuthModes(t *testing.T) {
	f := newFixture(t)
	blobs := map[string]string{"in/x.txt": "x content", "in/y.txt": "y content"}
	private := f.container(t, nil, blobs)
	public := f.container(t, to.Ptr(container.PublicAccessTypeContainer), blobs)

	cred, err := service.NewSharedKeyCredential(devAccount, devKey)
	if err != nil {
		t.Fatal(err)
	}
	sasFor := func(cont string, perms sas.ContainerPermissions) string {
		cc, err := container.NewClientWithSharedKeyCredential(f.az.endpoint+"/"+cont, cred, nil)
		if err != nil {
			t.Fatal(err)
		}
		u, err := cc.GetSASURL(perms, time.Now().Add(time.Hour), nil)
		if err != nil {
			t.Fatal(err)
		}
		pu, _ := url.Parse(u)
		return "?" + pu.RawQuery
	}
	readSAS := sasFor(private, sas.ContainerPermissions{Read: true, List: true})
	writeSAS := sasFor(private, sas.ContainerPermissions{Read: true, List: true, Write: true, Create: true})
	wrongKey := "AAAA" + devKey[4:]

	tests := []struct {
		name     string
		cfg      Config
		srcOK    bool
		dstOK    bool
		errHas   string
		noSecret string
	}{
		{"connection string", Config{AllowPrivateNetwork: true, ConnectionString: f.az.connectionString(), RemoteURL: "az://" + private + "/in"}, true, true, "", ""},
		{"account key", Config{AllowPrivateNetwork: true, AccountName: devAccount, AccountKey: devKey, ServiceURL: f.az.endpoint, RemoteURL: "az://" + private + "/in"}, true, true, "", ""},
		{"wrong account key", Config{AllowPrivateNetwork: true, AccountName: devAccount, AccountKey: wrongKey, ServiceURL: f.az.endpoint, RemoteURL: "az://" + private + "/in"}, false, false, "403", wrongKey},
		{"read SAS", Config{AllowPrivateNetwork: true, AccountName: devAccount, SASToken: readSAS, ServiceURL: f.az.endpoint, RemoteURL: "az://" + private + "/in"}, true, false, "403", readSAS[5:]},
		{"write SAS without ?", Config{AllowPrivateNetwork: true, AccountName: devAccount, SASToken: writeSAS[1:], ServiceURL: f.az.endpoint, RemoteURL: "az://" + private + "/in"}, true, true, "", ""},
		{"anonymous public container", Config{AllowPrivateNetwork: true, AccountName: devAccount, ServiceURL: f.az.endpoint, RemoteURL: "az://" + public + "/in"}, true, false, "", ""},
		{"anonymous private container", Config{AllowPrivateNetwork: true, AccountName: devAccount, ServiceURL: f.az.endpoint, RemoteURL: "az://" + private + "/in"}, false, false, private, ""},
		{"missing container", Config{AllowPrivateNetwork: true, ConnectionString: f.az.connectionString(), RemoteURL: "az://no-such-container/in"}, false, false, "no-such-container", ""},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.cfg.Recursive = true
			src, err := NewSource(tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkErr := src.Check(ctx)
			var listed []string
			listErr := src.List(ctx, func(d connectors.Document) error {
				listed = append(listed, d.ID)
				if got := readAll(t, src, d); got != blobs["in/"+d.ID] {
					t.Errorf("%s: %q", d.ID, got)
				}
				return nil
			})
			if tt.srcOK {
				if checkErr != nil || listErr != nil {
					t.Fatalf("source: check %v, list %v", checkErr, listErr)
				}
				sort.Strings(listed)
				if !slices.Equal(listed, []string{"x.txt", "y.txt"}) {
					t.Fatalf("listed %v", listed)
				}
			} else {
				if checkErr == nil || listErr == nil {
					t.Fatalf("source should fail: check %v, list %v", checkErr, listErr)
				}
				for _, err := range []error{checkErr, listErr} {
					if !strings.Contains(err.Error(), tt.errHas) {
						t.Errorf("error %q should mention %q", err, tt.errHas)
					}
				}
			}
			dstCfg := tt.cfg
			dstCfg.RemoteURL = strings.TrimSuffix(dstCfg.RemoteURL, "/in") + "/out"
			dst, err := NewDestination(dstCfg)
			if err != nil {
				t.Fatal(err)
			}
			dstErr := dst.Check(ctx)
			if tt.dstOK != (dstErr == nil) {
				t.Fatalf("destination check: %v (want ok=%v)", dstErr, tt.dstOK)
			}
			writeErr := dst.Write(ctx, connectors.Document{ID: "auth/" + strings.ReplaceAll(tt.name, " ", "-") + ".txt"}, []element.Element{{Type: "Title", ID: "t", Text: tt.name}})
			if tt.dstOK != (writeErr == nil) {
				t.Fatalf("destination write: %v (want ok=%v)", writeErr, tt.dstOK)
			}
			if writeErr == nil {
				name := dst.BlobName(connectors.Document{ID: "auth/" + strings.ReplaceAll(tt.name, " ", "-") + ".txt"})
				if _, err := f.admin.NewContainerClient(dst.c.container).NewBlobClient(name).GetProperties(ctx, nil); err != nil {
					t.Errorf("written blob %s: %v", name, err)
				}
			}
			for _, err := range []error{checkErr, listErr, dstErr, writeErr} {
				if err == nil {
					continue
				}
				msg := err.Error()
				if tt.noSecret != "" && strings.Contains(msg, tt.noSecret) || strings.Contains(msg, devKey) || strings.Contains(msg, "sig=") {
					t.Errorf("error leaks a secret: %s", msg)
				}
			}
		})
	}
}

func TestDestinationWrite(t *testing.T) {
	f := newFixture(t)
	cont := f.container(t, nil, nil)
	cfg := Config{AllowPrivateNetwork: true, ConnectionString: f.az.connectionString(), RemoteURL: "az://" + cont + "/out/"}
	dst, err := NewDestination(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := dst.Check(ctx); err != nil {
		t.Fatalf("Check: %v", err)
	}
	pn := 1
	elems := []element.Element{
		{Type: "Title", ID: "id1", Text: "Hello", Metadata: element.Metadata{Filename: "a.txt", PageNumber: &pn}},
		{Type: "NarrativeText", ID: "id2", Text: "World is big.", Metadata: element.Metadata{Filename: "a.txt", ParentID: "id1"}},
	}
	docs := []connectors.Document{
		{ID: "sub/a.txt", Filename: "a.txt"},
		{ID: "../../escape.txt", Filename: "escape.txt"},
		{Filename: "noid.pdf"},
	}
	for _, d := range docs {
		if err := dst.Write(ctx, d, elems); err != nil {
			t.Fatalf("Write %v: %v", d, err)
		}
	}
	// The destination's own zero-byte probe and the outputs, read back through a source.
	src, err := NewSource(Config{AllowPrivateNetwork: true, ConnectionString: cfg.ConnectionString, RemoteURL: "az://" + cont, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	listed := listAll(t, src)
	if got, want := keys(listed), []string{"out/escape.txt.json", "out/noid.pdf.json", "out/sub/a.txt.json"}; !slices.Equal(got, want) {
		t.Fatalf("written %v, want %v", got, want)
	}
	var back []element.Element
	if err := json.Unmarshal([]byte(readAll(t, src, listed["out/sub/a.txt.json"])), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 2 || back[0].Text != "Hello" || back[1].Metadata.ParentID != "id1" || *back[0].Metadata.PageNumber != 1 {
		t.Fatalf("round trip %+v", back)
	}
	// Writing again replaces the output.
	if err := dst.Write(ctx, docs[0], elems[:1]); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(readAll(t, src, listed["out/sub/a.txt.json"])), &back); err != nil || len(back) != 1 {
		t.Fatalf("rewrite: %v, %d elements", err, len(back))
	}
}

func TestCancellation(t *testing.T) {
	f := newFixture(t)
	blobs := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d"} {
		blobs[n+".txt"] = n
	}
	cont := f.container(t, nil, blobs)
	src, err := NewSource(Config{AllowPrivateNetwork: true, ConnectionString: f.az.connectionString(), RemoteURL: "az://" + cont, Recursive: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := src.List(ctx, func(connectors.Document) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("List with a cancelled context: %v", err)
	}
	// A yield error stops the listing and comes back unchanged.
	stop := errors.New("stop")
	n := 0
	err = src.List(context.Background(), func(connectors.Document) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("List after yield error: %v after %d documents", err, n)
	}
}

// The portal's https:// container address is accepted as its az:// form with the account taken
// from the host; other https:// URLs keep the reference's pattern error.
func TestPortalURL(t *testing.T) {
	c, err := ParseConfig(map[string]any{"remote_url": "https://Quarry01.blob.core.windows.net/reports/2026/q3"})
	if err != nil || c.RemoteURL != "az://reports/2026/q3" || c.AccountName != "quarry01" {
		t.Errorf("got %+v, %v", c, err)
	}
	c, err = ParseConfig(map[string]any{"remote_url": "https://quarry01.blob.core.windows.net/reports", "account_name": "other1"})
	if err != nil || c.RemoteURL != "az://reports/" || c.AccountName != "other1" {
		t.Errorf("explicit account: got %+v, %v", c, err)
	}
	for _, bad := range []string{"https://example.com/reports", "https://quarry01.blob.core.windows.net/", "https://quarry01.blob.core.windows.net.evil.com/c"} {
		if _, err := ParseConfig(map[string]any{"remote_url": bad, "account_name": "quarry01"}); err == nil || !strings.Contains(err.Error(), "remote_url") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
