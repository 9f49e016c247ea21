package azure

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quarrydocs/quarry/connectors"
	"github.com/quarrydocs/quarry/internal/netguard"
)

// The attacks: an API user points the connector (and the stored key) at the server itself, the
// cloud metadata service or the private network. Each must be refused at validation (422) and,
// should validation be bypassed, at connect time.
func TestAttackEndpointsRefused(t *testing.T) {
	k, _ := connectors.Lookup("azure")
	env := connectors.Env{}
	for _, cfg := range []map[string]any{
		{"remote_url": "az://c", "account_name": "127.0.0.1:9911/x?"},
		{"remote_url": "az://c", "account_name": "evil.com/x?"},
		{"remote_url": "az://c", "account_name": "AB"},
		{"remote_url": "abfs://c@127.0.0.1:9911/x"},
		{"remote_url": "az://c", "connection_string": "DefaultEndpointsProtocol=http;AccountName=a1b2c;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:9911/x;"},
		{"remote_url": "az://c", "connection_string": "AccountName=a1b2c;AccountKey=a2V5;BlobEndpoint=http://169.254.169.254/;"},
		{"remote_url": "az://c", "connection_string": "AccountName=a1b2c;AccountKey=a2V5;BlobEndpoint=http://[::1]:10000/;"},
		{"remote_url": "az://c", "connection_string": "AccountName=a1b2c;AccountKey=a2V5;BlobEndpoint=file:///etc/passwd;"},
		{"remote_url": "az://c", "connection_string": "AccountName=127.0.0.1:9911/x?;AccountKey=a2V5;"},
		{"remote_url": "az://c", "connection_string": "AccountName=acct;AccountKey=a2V5;EndpointSuffix=x@127.0.0.1:9911/;"},
	} {
		if err := k.Validate(cfg, env); err == nil {
			t.Errorf("Validate accepted %v", cfg)
		} else if strings.Contains(err.Error(), "a2V5") {
			t.Errorf("validation error echoes the key: %v", err)
		}
		if _, err := k.NewSource(cfg, env); err == nil {
			t.Errorf("NewSource accepted %v", cfg)
		}
	}
	// The operator's switch lets an emulator's endpoint through validation.
	emu := map[string]any{"remote_url": "az://c", "connection_string": "AccountName=devstoreaccount1;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"}
	if err := k.Validate(emu, connectors.Env{AllowPrivateNetwork: true}); err != nil {
		t.Errorf("allowed emulator refused: %v", err)
	}
	if err := k.Validate(emu, env); err == nil {
		t.Error("emulator endpoint accepted without the switch")
	}
}

// A public-looking name that resolves to loopback is refused when dialled: the service is never
// reached, whatever the name.
func TestAttackConnectTimeGuard(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	// ServiceURL is the Go-level override; "localhost" stands for a rebinding DNS name.
	for _, u := range []string{srv.URL, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)} {
		src, err := NewSource(Config{AccountName: "acct", AccountKey: devKey, ServiceURL: u, RemoteURL: "az://c/in"})
		if err != nil {
			continue
		}
		err = src.Check(context.Background())
		if err == nil {
			t.Errorf("%s: check passed", u)
		}
	}
	// Bypass CheckEndpoint entirely: build the client for a public name, then dial loopback.
	c, err := newClient(Config{AccountName: "acct", AccountKey: devKey, RemoteURL: "az://c"})
	if err != nil {
		t.Fatal(err)
	}
	_ = c
	tr := netguard.NewClient(netguard.Options{})
	if _, err := tr.Get(srv.URL); !errors.Is(err, netguard.ErrBlocked) {
		t.Errorf("guarded transport reached loopback: %v", err)
	}
	if hits.Load() != 0 {
		t.Errorf("loopback service reached %d times", hits.Load())
	}
}

// A document's ID named another document's blob: dot segments were resolved, so a Confluence
// attachment linked as "..\..\OPS\21.html" from page DEV/11 (any editor of that page can write
// such a link) was written over the output of page OPS/21. They are dropped now.
func TestAttackDocumentIDCannotNameAnotherBlob(t *testing.T) {
	dst, err := NewDestination(Config{AccountName: "acct", RemoteURL: "az://c/out/"})
	if err != nil {
		t.Fatal(err)
	}
	victim := dst.BlobName(connectors.Document{ID: "OPS/21.html"})
	for _, id := range []string{`DEV/11/..\..\OPS\21.html`, "DEV/11/../../OPS/21.html", "DEV/11/./../../OPS/21.html"} {
		got := dst.BlobName(connectors.Document{ID: id})
		if got == victim || !strings.HasPrefix(got, "out/") || strings.Contains(got, "..") {
			t.Errorf("ID %q → blob %q (the victim's is %q)", id, got, victim)
		}
	}
	if got := dst.BlobName(connectors.Document{ID: "a/b.txt"}); got != "out/a/b.txt.json" {
		t.Errorf("plain ID → %q", got)
	}
}
