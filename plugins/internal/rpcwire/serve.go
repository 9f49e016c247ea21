package rpcwire

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hashicorp/yamux"
)

// ErrNotLaunched means the process was not started by a Quarry host (no magic cookie).
var ErrNotLaunched = errors.New("this program is a Quarry plugin: the quarry host starts it (see plugins/README.md); it does nothing on its own")

// Serve runs the plugin side of the transport for srv: it checks the magic cookie, listens,
// prints the handshake line on stdout and serves until the host says Quit (nil) or ctx ends.
// It fails before the handshake when the process was not launched by a host.
func Serve(ctx context.Context, srv *Server) error {
	if os.Getenv(MagicCookieKey) != MagicCookieValue {
		return ErrNotLaunched
	}
	ln, err := Listen()
	if err != nil {
		return err
	}
	defer ln.Close()
	if _, err := fmt.Fprintln(os.Stdout, ln.Line()); err != nil {
		return fmt.Errorf("rpcwire: write handshake: %w", err)
	}
	// The handshake is the last thing the host reads on stdout; anything a strategy prints
	// goes to stderr, where the host keeps the tail to explain a failure.
	os.Stdout = os.Stderr
	// An interrupt from the terminal reaches the whole process group: the host decides when
	// its plugins stop (go-plugin's plugins ignore it the same way). Notify, not Ignore, so
	// helper processes do not inherit an ignored SIGINT.
	intr := make(chan os.Signal, 1)
	signal.Notify(intr, os.Interrupt)
	go func() {
		for range intr {
		}
	}()
	return ln.Serve(ctx, srv)
}

// Listener is the plugin's socket with what the handshake announces.
type Listener struct {
	ln      net.Listener
	path    string
	version int
	tls     *tls.Config
	cert    string
	// Log receives connection failures (a client without the host's certificate); nil: stderr.
	Log func(format string, args ...any)
}

// Listen negotiates the protocol version, creates the Unix socket (in PLUGIN_UNIX_SOCKET_DIR,
// else the temporary directory, which the Quarry host makes private to the process) and,
// when the host sent its certificate, the TLS configuration that accepts that certificate
// only.
func Listen() (*Listener, error) {
	l := &Listener{version: negotiate(os.Getenv(envProtocolVersions))}
	if pem := os.Getenv(envClientCert); pem != "" {
		cfg, der, err := serverTLS([]byte(pem))
		if err != nil {
			return nil, err
		}
		l.tls, l.cert = cfg, base64.RawStdEncoding.EncodeToString(der)
	}
	// The socket is bound under a fresh random name, never created as a file first: a
	// confined plugin may make sockets in /tmp but not files (and a file removed before the
	// bind would leave a window for another process to take its name).
	dir := socketDir()
	var err error
	for try := 0; ; try++ {
		var b [8]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, fmt.Errorf("rpcwire: socket name: %w", err)
		}
		l.path = filepath.Join(dir, "plugin"+hex.EncodeToString(b[:]))
		if l.ln, err = net.Listen("unix", l.path); err == nil {
			break
		}
		if !errors.Is(err, syscall.EADDRINUSE) || try == 3 {
			return nil, fmt.Errorf("rpcwire: listen: %w", err)
		}
	}
	return l, nil
}

// maxSocketPath is the longest Unix socket path every platform binds: sun_path holds 108
// bytes on Linux and 104 on the BSDs and macOS, the terminating NUL included.
const maxSocketPath = 103

// socketDir is where the socket goes: PLUGIN_UNIX_SOCKET_DIR, else the temporary directory
// (the Quarry host makes it private to the process), unless a socket there would pass
// maxSocketPath ("plugin" and 16 random hex digits are added): then /tmp, where binding
// succeeds whatever TMPDIR is. A socket there is no weaker: only a client holding the host's
// certificate gets a session (mutual TLS), and the confined plugin may create sockets there.
func socketDir() string {
	dir := os.Getenv(envSocketDir)
	if dir == "" {
		dir = os.TempDir()
	}
	if len(filepath.Join(dir, "plugin0123456789abcdef")) > maxSocketPath {
		return "/tmp"
	}
	return dir
}

// negotiate picks the version to announce: ProtocolVersion, which the host offers or not (a
// host that does not speak it refuses the plugin naming both versions; the plugin says so on
// stderr too, whose last line such a host shows).
func negotiate(offered string) int {
	for _, s := range strings.Split(offered, ",") {
		if v, err := strconv.Atoi(strings.TrimSpace(s)); err == nil && v == ProtocolVersion {
			return v
		}
	}
	if offered != "" {
		fmt.Fprintf(os.Stderr, "quarry plugin: this plugin speaks plugin protocol %d and the host offers %s: use a quarry that speaks %d, or build the plugin with that quarry's plugins/sdk\n",
			ProtocolVersion, offered, ProtocolVersion)
	}
	return ProtocolVersion
}

// Line is the handshake line: CORE|VERSION|NETWORK|ADDR|PROTOCOL|CERT.
func (l *Listener) Line() string {
	return fmt.Sprintf("%d|%d|unix|%s|netrpc|%s", CoreProtocol, l.version, l.path, l.cert)
}

// Addr is the socket's path.
func (l *Listener) Addr() string { return l.path }

// Close stops listening and removes the socket.
func (l *Listener) Close() error {
	err := l.ln.Close()
	os.Remove(l.path)
	return err
}

func (l *Listener) logf(format string, args ...any) {
	if l.Log != nil {
		l.Log(format, args...)
		return
	}
	fmt.Fprintf(os.Stderr, "quarry plugin: "+format+"\n", args...)
}

// Serve accepts the host's connections and serves each until the host says Quit (nil), ctx
// ends (its error) or the listener fails.
func (l *Listener) Serve(ctx context.Context, srv *Server) error {
	quit := make(chan struct{})
	var once sync.Once
	stop := func() { once.Do(func() { close(quit) }) }
	errc := make(chan error, 1)
	go func() {
		for {
			c, err := l.ln.Accept()
			if err != nil {
				errc <- fmt.Errorf("rpcwire: accept: %w", err)
				return
			}
			go l.serveConn(c, srv, stop)
		}
	}()
	select {
	case <-quit:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case err := <-errc:
		return err
	}
}

// serveConn authenticates one connection and serves go-plugin's session on it.
func (l *Listener) serveConn(c net.Conn, srv *Server, quit func()) {
	if l.tls != nil {
		tc := tls.Server(c, l.tls)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			l.logf("refused a connection: %v", err)
			c.Close()
			return
		}
		c = tc
	}
	if err := serveSession(c, srv, quit); err != nil {
		l.logf("%v", err)
	}
}

// serveSession serves one host connection: the control stream, the two standard streams and
// the dispensed Strategy service.
func serveSession(c io.ReadWriteCloser, srv *Server, quit func()) error {
	cfg := yamux.DefaultConfig()
	cfg.LogOutput = io.Discard
	sess, err := yamux.Server(c, cfg)
	if err != nil {
		c.Close()
		return fmt.Errorf("rpcwire: session: %w", err)
	}
	defer sess.Close()
	control, err := sess.Accept()
	if err != nil {
		return nil // the host went away before it started
	}
	// go-plugin streams the plugin's stdout and stderr to the host over these; a Quarry plugin
	// leaves them on the process's own stderr, which the host reads directly. Closing them
	// tells the host's copiers that nothing comes.
	for range 2 {
		s, err := sess.Accept()
		if err != nil {
			return nil
		}
		s.Close()
	}
	b := &broker{sess: sess, pending: map[uint32]bool{}}
	go b.run(func(conn net.Conn) {
		if err := srv.serveStream(conn); err != nil {
			fmt.Fprintf(os.Stderr, "quarry plugin: %v\n", err)
			sess.Close() // a broken Strategy stream leaves nothing to serve
		}
	})
	methods := map[string]method{
		"Control.Ping": handle(func(bool) (struct{}, error) { return struct{}{}, nil }),
		"Control.Quit": handle(func(bool) (struct{}, error) { return struct{}{}, nil }),
		"Dispenser.Dispense": handle(func(name string) (uint32, error) {
			if name != PluginKey {
				return 0, fmt.Errorf("unknown plugin type: %s", name)
			}
			return b.reserve(), nil
		}),
	}
	// When the host closes the control stream it goes on to close its other streams and the
	// session: closing the connection first would make those writes fail (go-plugin's client
	// logs each on the host's stderr), so the session ends from the host's side.
	defer func() {
		select {
		case <-sess.CloseChan():
		case <-time.After(time.Second):
		}
	}()
	return serveRPC(control, methods, func(name string) {
		if name != "Control.Quit" {
			return
		}
		// go-plugin's client closes its streams and the session after Quit: exiting before it
		// has would make its writes fail and log errors on the host's stderr. (It kills a
		// process that has not exited 2 seconds after Quit.)
		go func() {
			select {
			case <-sess.CloseChan():
			case <-time.After(time.Second):
			}
			quit()
		}()
	})
}

// broker accepts the streams the host opens for dispensed services: each starts with the
// little-endian uint32 id Dispense returned, which the plugin writes back to acknowledge it.
type broker struct {
	sess    *yamux.Session
	mu      sync.Mutex
	next    uint32
	pending map[uint32]bool
}

func (b *broker) reserve() uint32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.next++
	b.pending[b.next] = true
	return b.next
}

func (b *broker) take(id uint32) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	ok := b.pending[id]
	delete(b.pending, id)
	return ok
}

func (b *broker) run(serve func(net.Conn)) {
	for {
		s, err := b.sess.AcceptStream()
		if err != nil {
			return
		}
		go func() {
			_ = s.SetReadDeadline(time.Now().Add(10 * time.Second))
			var id uint32
			if err := binary.Read(s, binary.LittleEndian, &id); err != nil || !b.take(id) {
				s.Close()
				return
			}
			_ = s.SetReadDeadline(time.Time{})
			if err := binary.Write(s, binary.LittleEndian, id); err != nil {
				s.Close()
				return
			}
			serve(s)
		}()
	}
}

// serverTLS is the plugin's side of go-plugin's AutoMTLS: a fresh self-signed certificate for
// "localhost" (the name the host verifies), and a configuration that requires the client to
// present the certificate the host passed in the environment.
func serverTLS(clientPEM []byte) (*tls.Config, []byte, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(clientPEM) {
		return nil, nil, fmt.Errorf("rpcwire: %s holds no certificate", envClientCert)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("rpcwire: key: %w", err)
	}
	sn, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, nil, fmt.Errorf("rpcwire: serial: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          sn,
		Subject:               pkix.Name{CommonName: "localhost"},
		DNSNames:              []string{"localhost"},
		NotBefore:             time.Now().Add(-time.Minute),
		NotAfter:              time.Now().Add(10 * 365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("rpcwire: certificate: %w", err)
	}
	cfg := &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
		MinVersion:   tls.VersionTLS12,
	}
	return cfg, der, nil
}

// ServeConn serves one host connection that is already authenticated (or needs no TLS: tests
// over an in-memory pipe) until the host hangs up or says Quit.
func ServeConn(c io.ReadWriteCloser, srv *Server) error { return serveSession(c, srv, func() {}) }
