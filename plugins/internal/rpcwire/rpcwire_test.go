package rpcwire

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/gob"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/rpc"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/yamux"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
)

// selfSigned makes a certificate as go-plugin's host does for AutoMTLS.
func selfSigned(t *testing.T) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Minute), NotAfter: time.Now().Add(time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth, x509.ExtKeyUsageServerAuth}, BasicConstraintsValid: true, IsCA: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// logs collects what a Listener logs.
type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, format)
}

func (l *logs) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.lines)
}

// The socket accepts the host that launched the plugin only: a client without a certificate,
// with another certificate or without TLS is refused; the host's certificate gets a session
// whose control stream answers Control.Ping.
func TestSocketRefusesOtherClients(t *testing.T) {
	hostCert, hostPEM := selfSigned(t)
	otherCert, _ := selfSigned(t)
	t.Setenv(envClientCert, string(hostPEM))
	t.Setenv(envSocketDir, t.TempDir())
	t.Setenv(envProtocolVersions, "1,2,3")
	l, err := Listen()
	if err != nil {
		t.Fatal(err)
	}
	log := &logs{}
	l.Log = log.logf
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan error, 1)
	go func() { served <- l.Serve(ctx, &Server{Name: "t"}) }()
	defer l.Close()

	parts := strings.Split(l.Line(), "|")
	if len(parts) != 6 || parts[0] != "1" || parts[1] != "3" || parts[2] != "unix" || parts[3] != l.Addr() || parts[4] != "netrpc" {
		t.Fatalf("handshake line %q", l.Line())
	}
	der, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		t.Fatal(err)
	}
	serverCert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(serverCert)

	// connect runs TLS with certs and reads once: with TLS 1.3 a refused client certificate
	// shows on the first read.
	connect := func(certs []tls.Certificate) (net.Conn, error) {
		c, err := net.DialTimeout("unix", l.Addr(), 5*time.Second)
		if err != nil {
			return nil, err
		}
		tc := tls.Client(c, &tls.Config{RootCAs: roots, ServerName: "localhost", Certificates: certs, MinVersion: tls.VersionTLS12})
		_ = tc.SetDeadline(time.Now().Add(5 * time.Second))
		if err := tc.Handshake(); err != nil {
			tc.Close()
			return nil, err
		}
		return tc, nil
	}
	for name, certs := range map[string][]tls.Certificate{"no certificate": nil, "another certificate": {otherCert}} {
		before := log.count()
		c, err := connect(certs)
		if err == nil {
			_, err = c.Read(make([]byte, 1))
			c.Close()
		}
		if err == nil || errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "timeout") {
			t.Errorf("%s: not refused (%v)", name, err)
		}
		waitFor(t, func() bool { return log.count() > before }, name+": refusal not logged")
	}
	// Plain yamux, no TLS: the plugin reads it as a TLS handshake and hangs up.
	before := log.count()
	c, err := net.Dial("unix", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	sess, _ := yamux.Client(c, quietYamux())
	if s, err := sess.Open(); err == nil {
		_ = s.SetDeadline(time.Now().Add(5 * time.Second))
		if err := rpc.NewClient(s).Call("Control.Ping", true, new(struct{})); err == nil {
			t.Error("a client without TLS was served")
		}
	}
	sess.Close()
	waitFor(t, func() bool { return log.count() > before }, "plain connection: refusal not logged")

	// The host's own certificate is served.
	tc, err := connect([]tls.Certificate{hostCert})
	if err != nil {
		t.Fatal(err)
	}
	_ = tc.SetDeadline(time.Time{})
	sess, err = yamux.Client(tc, quietYamux())
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	control, err := sess.Open()
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := sess.Open(); err != nil {
			t.Fatal(err)
		}
	}
	rc := rpc.NewClient(control)
	if err := rc.Call("Control.Ping", true, new(struct{})); err != nil {
		t.Fatalf("ping with the host's certificate: %v", err)
	}
	if err := rc.Call("Control.Quit", true, new(struct{})); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve after Quit: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("Quit did not end Serve")
	}
}

func quietYamux() *yamux.Config {
	cfg := yamux.DefaultConfig()
	cfg.LogOutput = io.Discard
	return cfg
}

func waitFor(t *testing.T, ok func() bool, msg string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Error(msg)
			return
		}
	}
}

// waitServer is a server whose "wait" strategy runs until its context ends, then says so.
func waitServer(stopped chan<- error) *Server {
	return &Server{Name: "t", Strategies: []Strategy{{Name: "wait", Partition: func(ctx context.Context, _ *contract.Document, _ contract.Options, _ contract.Emit) error {
		contract.ReportProgress(ctx, 1, 1, "waiting")
		<-ctx.Done()
		stopped <- ctx.Err()
		return ctx.Err()
	}}}}
}

// rawClient speaks net/rpc's gob framing by hand, to send what a well-behaved client would not.
type rawClient struct {
	conn net.Conn
	enc  *gob.Encoder
	dec  *gob.Decoder
}

func newRaw(c net.Conn) *rawClient {
	return &rawClient{conn: c, enc: gob.NewEncoder(c), dec: gob.NewDecoder(c)}
}

func (r *rawClient) send(t *testing.T, seq uint64, method string, arg any) {
	t.Helper()
	if err := r.enc.Encode(request{ServiceMethod: method, Seq: seq}); err != nil {
		t.Fatal(err)
	}
	if err := r.enc.Encode(arg); err != nil {
		t.Fatal(err)
	}
}

func (r *rawClient) recv(t *testing.T, reply any) response {
	t.Helper()
	var resp response
	if err := r.dec.Decode(&resp); err != nil {
		t.Fatal(err)
	}
	if resp.Error != "" {
		reply = nil
	}
	if reply == nil {
		if err := r.dec.DecodeValue(reflectZero); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if err := r.dec.Decode(reply); err != nil {
		t.Fatal(err)
	}
	return resp
}

// Whatever a client sends on the Strategy stream, the plugin answers or hangs up with an error:
// it neither panics nor waits, and a partition call in progress is cancelled when the stream
// ends. A message longer than MaxMessage is refused from its length prefix, before its bytes
// arrive.
func TestHostileStream(t *testing.T) {
	huge := []byte{0xFC, 0x06, 0x00, 0x00, 0x00} // a message of 100 663 296 bytes
	cases := map[string]struct {
		garbage []byte
		want    string
	}{
		"oversized":         {huge, "message too long"},
		"bad length prefix": {[]byte{0xF0, 1, 2, 3}, "bad message length prefix"},
		"truncated":         {[]byte{0x40, 1, 2, 3}, "unexpected EOF"},
		"not gob":           {[]byte("\x10GET / HTTP/1.1\r\n\r\n"), "read request"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			stopped := make(chan error, 1)
			srv := waitServer(stopped)
			a, b := net.Pipe()
			done := make(chan error, 1)
			go func() { done <- srv.serveStream(a) }()
			rc := newRaw(b)
			rc.send(t, 1, MethodStart, Start{Strategy: "wait"})
			var id uint64
			if resp := rc.recv(t, &id); resp.Error != "" {
				t.Fatal(resp.Error)
			}
			rc.send(t, 2, MethodNext, id)
			var evs Events
			if rc.recv(t, &evs); len(evs.Events) != 1 || evs.Events[0].Kind != EventProgress {
				t.Fatalf("first events %+v", evs)
			}
			rc.send(t, 3, MethodNext, id) // pending while the garbage arrives
			go func() {
				b.Write(tc.garbage)
				if name == "truncated" {
					b.Close()
				}
			}()
			go io.Copy(io.Discard, b) // the plugin may still write replies
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("stream ended with %v, want %q", err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the plugin kept waiting")
			}
			select {
			case err := <-stopped:
				if !errors.Is(err, context.Canceled) {
					t.Errorf("strategy ended with %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the call in progress was not cancelled")
			}
			b.Close()
		})
	}
}

// A malformed argument is answered with an error, then the stream ends (gob's state cannot be
// trusted after it); an unknown method is answered and the stream goes on.
func TestMalformedArgument(t *testing.T) {
	srv := &Server{Name: "t"}
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.serveStream(a) }()
	rc := newRaw(b)
	rc.send(t, 1, "Plugin.Nothing", 42)
	if resp := rc.recv(t, nil); !strings.Contains(resp.Error, "unknown method") || resp.Seq != 1 {
		t.Errorf("unknown method: %+v", resp)
	}
	var d Description
	rc.send(t, 2, MethodDescribe, true)
	if resp := rc.recv(t, &d); resp.Error != "" || d.Protocol != ProtocolVersion {
		t.Errorf("describe after an unknown method: %+v %+v", resp, d)
	}
	rc.send(t, 3, MethodWrite, "not a chunk")
	if resp := rc.recv(t, nil); !strings.Contains(resp.Error, "bad argument") || resp.Seq != 3 {
		t.Errorf("malformed argument: %+v", resp)
	}
	select {
	case err := <-done:
		if err == nil {
			t.Error("stream went on after a malformed argument")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the plugin kept waiting")
	}
	b.Close()
}

// frameLimit passes a gob stream of messages up to its limit unchanged, and stops at the first
// longer one.
func TestFrameLimit(t *testing.T) {
	var buf bytes.Buffer
	enc := gob.NewEncoder(&buf)
	small := Chunk{Call: 1, Data: make([]byte, 1000)}
	for range 3 {
		if err := enc.Encode(small); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Encode(Chunk{Call: 2, Data: make([]byte, 5000)}); err != nil {
		t.Fatal(err)
	}
	dec := gob.NewDecoder(&frameLimit{r: bufioReader(&buf), max: 2000})
	for i := range 3 {
		var c Chunk
		if err := dec.Decode(&c); err != nil || c.Call != 1 || len(c.Data) != 1000 {
			t.Fatalf("message %d: %v %d", i, err, len(c.Data))
		}
	}
	var c Chunk
	if err := dec.Decode(&c); !errors.Is(err, ErrTooBig) {
		t.Errorf("long message: %v", err)
	}
}

// The batcher sends one batch per page, progress before the elements of a later page, and a
// page over BatchBytes in several batches.
func TestBatchesPerPage(t *testing.T) {
	var evs []Event
	b := &batcher{send: func(ev Event) error { evs = append(evs, ev); return nil }}
	big := strings.Repeat("x", BatchBytes/3)
	for p := 1; p <= 3; p++ {
		b.progress(p, 3, "t")
		n, text := 100, "e"
		if p == 3 {
			n, text = 5, big
		}
		for range n {
			if err := b.add(element.Element{Type: element.NarrativeText, Text: text, Metadata: element.Metadata{PageNumber: element.Int(p)}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := b.flush(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, ev := range evs {
		switch ev.Kind {
		case EventProgress:
			got = append(got, fmt.Sprintf("p%d", ev.Page))
		case EventBatch:
			got = append(got, fmt.Sprintf("b%d:%d", ev.Page, len(ev.Elements)))
		}
	}
	// Page 3's five large elements fill a batch after the third.
	if strings.Join(got, " ") != "p1 b1:100 p2 b2:100 p3 b3:3 b3:2" {
		t.Errorf("events %v", got)
	}
	if b.count != 205 {
		t.Errorf("count %d", b.count)
	}
}

var reflectZero = reflect.Value{}

func bufioReader(r io.Reader) *bufio.Reader { return bufio.NewReader(r) }

// Every error kind crosses as a name of its own and reads back as itself; a name a later
// protocol might add reads as an internal error.
func TestKindNames(t *testing.T) {
	seen := map[string]bool{}
	for _, k := range []contract.Kind{contract.KindInternal, contract.KindUnsupported, contract.KindBadRequest, contract.KindUnprocessable, contract.KindUnavailable} {
		n := KindName(k)
		if seen[n] || KindOf(n) != k {
			t.Errorf("kind %d: name %q reads back as %d", k, n, KindOf(n))
		}
		seen[n] = true
	}
	if KindOf("teapot") != contract.KindInternal {
		t.Error("an unknown kind is not internal")
	}
}

// A temporary directory too deep for a Unix socket path (a long TMPDIR, a test's directory)
// still gives a socket the host can dial: it goes to /tmp instead of failing to bind.
func TestSocketInLongTempDir(t *testing.T) {
	deep := filepath.Join(t.TempDir(), strings.Repeat("d", 60), strings.Repeat("e", 60))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv(envSocketDir, deep)
	t.Setenv(envProtocolVersions, "3")
	l, err := Listen()
	if err != nil {
		t.Fatalf("listen with a %d-byte socket directory: %v", len(deep), err)
	}
	defer l.Close()
	if len(l.Addr()) > maxSocketPath {
		t.Errorf("socket path %q is %d bytes", l.Addr(), len(l.Addr()))
	}
	c, err := net.Dial("unix", l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	short := t.TempDir()
	t.Setenv(envSocketDir, short)
	if got := socketDir(); got != short {
		t.Errorf("a short socket directory %q became %q", short, got)
	}
}
