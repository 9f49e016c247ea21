// Package netguard builds the HTTP clients connectors use to reach services named by API users
// (a Confluence URL, an Azure blob endpoint). Such a URL is attacker-controlled input: without a
// guard it can point the server at itself (127.0.0.1, [::1]), at the cloud metadata service
// (169.254.169.254) or at the operator's private network, and carry stored credentials there.
//
// The guard sits in the dialer's Control hook, so it judges the address actually connected to,
// after DNS resolution: a name that resolves to a public address when validated and to 127.0.0.1
// when dialled (DNS rebinding) is still refused. Only http and https are spoken, no proxy from the
// environment is used (a proxy would make the dialled address meaningless), and a redirect to
// another origin never carries credentials.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// EnvAllowPrivate is the environment variable an operator sets (to 1/true) to let connectors reach
// loopback, private and link-local addresses, e.g. an on-premises Confluence or Azurite.
const EnvAllowPrivate = "QUARRY_ALLOW_PRIVATE_NETWORK"

// AllowPrivateFromEnv reports whether EnvAllowPrivate is set to a true value. Callers read it once
// at start-up and pass the answer down as Options; the guard itself holds no global state.
func AllowPrivateFromEnv() bool {
	v, _ := strconv.ParseBool(strings.TrimSpace(os.Getenv(EnvAllowPrivate)))
	return v
}

// Options configure one client.
type Options struct {
	// AllowPrivate lets the client reach loopback, private, link-local and other non-public
	// addresses. Off by default; tests against local fakes and emulators turn it on.
	AllowPrivate bool
	// Timeout bounds a whole request (0 = two minutes).
	Timeout time.Duration
	// MaxRedirects bounds the redirects followed (0 = 5).
	MaxRedirects int
}

// ErrBlocked is wrapped by every refusal of an address or URL.
var ErrBlocked = errors.New("address not allowed")

// BlockedError says which address was refused and why.
type BlockedError struct {
	Addr   string
	Reason string
}

func (e *BlockedError) Error() string {
	return fmt.Sprintf("connection to %s refused: %s address (set %s=1 or --allow-private-network to allow it)", e.Addr, e.Reason, EnvAllowPrivate)
}

// Unwrap lets errors.Is(err, ErrBlocked) match.
func (e *BlockedError) Unwrap() error { return ErrBlocked }

// special lists the non-public ranges that the netip predicates do not name.
var special = []struct {
	p      netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
	{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved"},
	{netip.MustParsePrefix("192.0.2.0/24"), "documentation"},
	{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "documentation"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("2001:db8::/32"), "documentation"},
	{netip.MustParsePrefix("100::/64"), "discard"},
	{netip.MustParsePrefix("192.88.99.0/24"), "reserved (6to4 relay)"},
	// Deprecated site-local (RFC 3879) is still routed inside some networks; netip's
	// IsPrivate names only fc00::/7.
	{netip.MustParsePrefix("fec0::/10"), "site-local"},
	// IPv4-translated (SIIT, RFC 2765/6145): a stateless translator turns ::ffff:0:a.b.c.d into
	// a.b.c.d; Teredo (2001::/32) tunnels to the IPv4 server it embeds; ORCHID is not routed.
	{netip.MustParsePrefix("::ffff:0:0:0/96"), "IPv4-translated"},
	{netip.MustParsePrefix("2001::/32"), "Teredo"},
	{netip.MustParsePrefix("2001:10::/28"), "reserved (ORCHID)"},
	{netip.MustParsePrefix("2001:20::/28"), "reserved (ORCHIDv2)"},
}

// embedded are IPv6 ranges that carry an IPv4 address in their last 32 bits (NAT64) or in bits
// 16–48 (6to4): the embedded address is judged too, or [64:ff9b::7f00:1] would reach 127.0.0.1
// through a NAT64 gateway.
var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	nat64l    = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour = netip.MustParsePrefix("2002::/16")
	compat    = netip.MustParsePrefix("::/96")
)

// Check returns nil when ip is a public unicast address, else a *BlockedError naming the class.
func Check(ip netip.Addr) error {
	if !ip.IsValid() {
		return &BlockedError{Addr: "(invalid)", Reason: "invalid"}
	}
	ip = ip.WithZone("")
	if reason := classify(ip); reason != "" {
		return &BlockedError{Addr: ip.String(), Reason: reason}
	}
	return nil
}

func classify(ip netip.Addr) string {
	if ip.Is4In6() {
		return classify(ip.Unmap())
	}
	switch {
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast(), ip.IsMulticast():
		return "multicast"
	case ip.IsPrivate():
		return "private"
	case ip == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return "broadcast"
	}
	for _, s := range special {
		if s.p.Contains(ip) {
			return s.reason
		}
	}
	if ip.Is6() {
		b := ip.As16()
		var v4 netip.Addr
		switch {
		case nat64.Contains(ip), nat64l.Contains(ip):
			v4 = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		case sixToFour.Contains(ip):
			v4 = netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
		case compat.Contains(ip):
			// IPv4-compatible (deprecated) addresses: ::a.b.c.d.
			v4 = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		}
		if v4.IsValid() {
			if r := classify(v4); r != "" {
				return r + " (embedded in IPv6)"
			}
		}
	}
	return ""
}

// control is the net.Dialer Control hook: address is the resolved ip:port about to be connected.
func control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return &BlockedError{Addr: address, Reason: "unparseable"}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return &BlockedError{Addr: address, Reason: "unparseable"}
	}
	return Check(ip)
}

// NewTransport returns a transport whose every connection goes through the guard (unless
// AllowPrivate) and that ignores proxy environment variables.
func NewTransport(o Options) *http.Transport {
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if !o.AllowPrivate {
		d.Control = control
	}
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           d.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          20,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   15 * time.Second,
		ResponseHeaderTimeout: time.Minute,
		ExpectContinueTimeout: time.Second,
	}
}

// NewClient returns a client with the guarded transport, the timeout and the redirect policy.
func NewClient(o Options) *http.Client {
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 2 * time.Minute
	}
	return &http.Client{Transport: NewTransport(o), Timeout: timeout, CheckRedirect: CheckRedirect(o.MaxRedirects)}
}

// safeHeaders survive a redirect to another origin; everything else (Authorization, Cookie,
// x-ms-*, X-Atlassian-Token, any custom auth header) is dropped.
var safeHeaders = map[string]bool{
	"Accept": true, "Accept-Encoding": true, "Accept-Language": true, "User-Agent": true,
	"Content-Type": true, "Cache-Control": true,
}

// CheckRedirect is an http.Client.CheckRedirect that follows at most max (0 = 5) redirects, only to
// http(s), refuses a downgrade from https to http, and on a change of origin (scheme, host or port)
// keeps only a few harmless headers, so no credential is carried to a host it was not meant for.
func CheckRedirect(max int) func(req *http.Request, via []*http.Request) error {
	if max <= 0 {
		max = 5
	}
	return func(req *http.Request, via []*http.Request) error {
		if len(via) >= max {
			return fmt.Errorf("stopped after %d redirects", max)
		}
		if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
			return fmt.Errorf("redirect to a %q URL refused", req.URL.Scheme)
		}
		first := via[0].URL
		if first.Scheme == "https" && req.URL.Scheme == "http" {
			return errors.New("redirect from https to http refused")
		}
		if origin(req.URL) != origin(first) {
			for k := range req.Header {
				if !safeHeaders[http.CanonicalHeaderKey(k)] {
					req.Header.Del(k)
				}
			}
		}
		return nil
	}
}

func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

// CheckURL validates a URL given in a connector config before anything is dialled: http or https,
// a host, no user information, and — unless allowPrivate — a host that is not a literal
// non-public address nor "localhost". Names are judged again at connect time by the transport,
// so this is the early, friendly answer (a 422), not the guard itself.
func CheckURL(raw string, allowPrivate bool) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return errors.New("not a valid URL")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return errors.New("only http and https URLs are allowed")
	}
	if u.Host == "" || u.Hostname() == "" {
		return errors.New("the URL names no host")
	}
	if u.User != nil {
		return errors.New("credentials in the URL are not allowed; use the credential fields")
	}
	if allowPrivate {
		return nil
	}
	return CheckHost(u.Hostname())
}

// CheckHost refuses a host that is a literal non-public address or a name for the local machine.
func CheckHost(host string) error {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return &BlockedError{Addr: host, Reason: "loopback"}
	}
	if ip, err := netip.ParseAddr(h); err == nil {
		return Check(ip)
	}
	// Forms netip refuses but resolvers accept (0x7f.1, 2130706433, 127.1) are numeric hosts; no
	// public service is named that way.
	if numeric(h) {
		return &BlockedError{Addr: host, Reason: "numeric (non-canonical)"}
	}
	return nil
}

// numeric reports whether every dot-separated label of h is a decimal, octal or 0x-hex number.
func numeric(h string) bool {
	if h == "" {
		return false
	}
	for _, l := range strings.Split(h, ".") {
		digits := "0123456789"
		if len(l) > 2 && (l[:2] == "0x") {
			l, digits = l[2:], "0123456789abcdef"
		}
		if l == "" || strings.Trim(l, digits) != "" {
			return false
		}
	}
	return true
}

// StatusError is an upstream failure summarised by its status alone: an upstream's body is not
// trusted text (it may echo request headers, or be a page of HTML), so it never reaches check
// reasons, job messages or logs.
type StatusError struct {
	// Op names what was attempted ("list spaces").
	Op         string
	StatusCode int
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("%s: upstream answered %d %s", e.Op, e.StatusCode, http.StatusText(e.StatusCode))
}

// Summarize drains (a bounded amount of) resp's body, closes it and returns a *StatusError.
func Summarize(op string, resp *http.Response) error {
	if resp.Body != nil {
		var buf [4096]byte
		for i := 0; i < 16; i++ {
			if _, err := resp.Body.Read(buf[:]); err != nil {
				break
			}
		}
		resp.Body.Close()
	}
	return &StatusError{Op: op, StatusCode: resp.StatusCode}
}
