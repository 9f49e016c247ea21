package server

import (
	"io"
	"net"
	"sync"
	"time"
)

// Connections are capped per client address and in all. An idle keep-alive connection costs
// the client nothing and the server about 19 KB and a file descriptor until IdleTimeout: one
// keyless client held 8,000 of them (150 MB), and at the open-file limit every accept, plugin
// start, database file and connector dial of the process fails. A connection past a cap is
// answered 503 at once and closed; the others are untouched.

const (
	defaultMaxConnsPerAddr = 256
	defaultMaxConns        = 4096
)

// connRefusal is the whole answer to a connection past a cap (it is written before any request
// is read, so it cannot depend on one).
const connRefusal = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 5\r\nConnection: close\r\nContent-Length: 60\r\n\r\n" +
	`{"detail":"Too many connections; close idle ones and retry"}`

// connLimiter counts open connections by client address.
type connLimiter struct {
	perAddr, total int // <= 0: no cap

	mu     sync.Mutex
	n      int
	byAddr map[string]int
}

func (l *connLimiter) take(key string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total > 0 && l.n >= l.total || l.perAddr > 0 && l.byAddr[key] >= l.perAddr {
		return false
	}
	l.n++
	l.byAddr[key]++
	return true
}

func (l *connLimiter) give(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n--
	if l.byAddr[key]--; l.byAddr[key] <= 0 {
		delete(l.byAddr, key)
	}
}

// connKey is the address a connection is counted under: the peer's IP, an IPv6 peer's /64
// (the block one subscriber usually holds), as the refused-key limiter counts them.
func connKey(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip := net.ParseIP(host)
	switch {
	case ip == nil:
		return host
	case ip.To4() != nil:
		return ip.To4().String()
	}
	return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
}

// limitListener applies a connLimiter to a listener.
type limitListener struct {
	net.Listener
	l *connLimiter
}

func (ln *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := connKey(c.RemoteAddr().String())
		if ln.l.take(key) {
			return &countedConn{Conn: c, release: func() { ln.l.give(key) }}, nil
		}
		go refuseConn(c)
	}
}

// refuseConn answers 503 and closes. The request is drained for a moment after the answer so
// closing with unread bytes does not reset the connection before the client reads the 503.
func refuseConn(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(c, connRefusal); err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		tc.CloseWrite()
	}
	io.Copy(io.Discard, io.LimitReader(c, 64<<10))
}

// countedConn gives its place back once, when closed.
type countedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *countedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}
