package apikey

import (
	"container/list"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Limiter slows down key guessing: after Failures refused keys within Window from one client
// address, every request from that address is answered 429 for CoolDown, whatever key it carries
// (otherwise a blocked client could go on guessing and read the answer: 429 or success). A
// client with a valid key from another address is never affected. The table holds at most
// MaxAddrs addresses; the least recently seen is forgotten first, so a flood from many addresses
// costs bounded memory (it can only make the limiter forget, never grow).
//
// The address is the connection's peer (http.Request.RemoteAddr): Quarry has no trusted-proxy
// setting, so X-Forwarded-For, which any client can write, is ignored. Behind a reverse proxy
// every client shares the proxy's address; rate-limit failed authentication at the proxy then.
// IPv6 peers are counted per /64, the block one subscriber usually holds.
//
// A key is checked outside the limiter's lock (so one long key cannot stall everyone's checks):
// of a burst of simultaneous guesses, those checked at the very same instant as the one that
// reaches Failures also get their answer, at most one per CPU more.
type Limiter struct {
	failures int
	window   time.Duration
	coolDown time.Duration
	max      int
	now      func() time.Time

	mu    sync.Mutex
	addrs map[string]*list.Element
	lru   *list.List // front: most recently seen
}

type entry struct {
	addr         string
	count        int
	windowStart  time.Time
	blockedUntil time.Time
}

// LimiterConfig sets a Limiter; zero fields take the defaults.
type LimiterConfig struct {
	Failures int           // refused keys allowed per Window (0: 10; negative: no limit)
	Window   time.Duration // default 1 minute
	CoolDown time.Duration // default 1 minute
	MaxAddrs int           // addresses remembered (default 10000, about 2 MB)
	Now      func() time.Time
}

// NewLimiter builds a Limiter.
func NewLimiter(cfg LimiterConfig) *Limiter {
	if cfg.Failures == 0 {
		cfg.Failures = 10
	}
	if cfg.Window <= 0 {
		cfg.Window = time.Minute
	}
	if cfg.CoolDown <= 0 {
		cfg.CoolDown = time.Minute
	}
	if cfg.MaxAddrs <= 0 {
		cfg.MaxAddrs = 10000
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Limiter{failures: cfg.Failures, window: cfg.Window, coolDown: cfg.CoolDown, max: cfg.MaxAddrs, now: cfg.Now,
		addrs: map[string]*list.Element{}, lru: list.New()}
}

// Len is the number of addresses remembered.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

// Blocked reports whether requests from addr are refused, and for how long still.
func (l *Limiter) Blocked(addr string) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	el, ok := l.addrs[addr]
	if !ok {
		return 0, false
	}
	e := el.Value.(*entry)
	if left := e.blockedUntil.Sub(l.now()); left > 0 {
		// A client still knocking stays recent, so a flood of other addresses evicts idle
		// entries before it.
		l.lru.MoveToFront(el)
		return left, true
	}
	return 0, false
}

// Fail records a refused key from addr.
func (l *Limiter) Fail(addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	var e *entry
	if l.failures < 0 {
		return // no limit: nothing to remember
	}
	if el, ok := l.addrs[addr]; ok {
		l.lru.MoveToFront(el)
		e = el.Value.(*entry)
	} else {
		for l.lru.Len() >= l.max {
			old := l.lru.Back()
			delete(l.addrs, old.Value.(*entry).addr)
			l.lru.Remove(old)
		}
		e = &entry{addr: addr, windowStart: now}
		l.addrs[addr] = l.lru.PushFront(e)
	}
	if now.Sub(e.windowStart) >= l.window {
		e.count, e.windowStart = 0, now
	}
	e.count++
	if e.count >= l.failures && l.failures > 0 {
		e.blockedUntil = now.Add(l.coolDown)
		e.count, e.windowStart = 0, now.Add(l.coolDown)
	}
}

// ClientAddr is the address a request is counted under: the peer's IP (IPv6: its /64).
func ClientAddr(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip := net.ParseIP(host)
	if ip == nil {
		return host
	}
	if ip.To4() == nil {
		return ip.Mask(net.CIDRMask(64, 128)).String() + "/64"
	}
	return ip.String()
}

// Outcome is what Authorize decided.
type Outcome int

const (
	Allowed      Outcome = iota // the key is valid (or authentication is off)
	Refused                     // 401: no key or a wrong key
	TooManyTries                // 429: this address failed too often; Retry-After is set
)

// Authorize checks the request's key through the limiter (nil: no limit). On TooManyTries it
// sets Retry-After on w; the caller writes the body in its own shape. received is Check's.
func (k Keys) Authorize(l *Limiter, w http.ResponseWriter, r *http.Request) (out Outcome, received string) {
	if !k.Enabled() {
		return Allowed, ""
	}
	addr := ""
	if l != nil {
		addr = ClientAddr(r)
		if left, blocked := l.Blocked(addr); blocked {
			w.Header().Set("Retry-After", strconv.Itoa(int((left+time.Second-1)/time.Second)))
			return TooManyTries, ""
		}
	}
	ok, received := k.Check(r.Header)
	if ok {
		return Allowed, ""
	}
	if l != nil {
		l.Fail(addr)
	}
	return Refused, received
}

// Deny is Authorize as an answer: the status to refuse the request with (0: it may go on) and
// the detail, which each caller writes in its own body shape.
func (k Keys) Deny(l *Limiter, w http.ResponseWriter, r *http.Request) (status int, detail string) {
	switch out, received := k.Authorize(l, w, r); out {
	case TooManyTries:
		return http.StatusTooManyRequests, TooManyDetail
	case Refused:
		return http.StatusUnauthorized, Refusal(received)
	}
	return 0, ""
}

// TooManyDetail is the 429 detail for TooManyTries.
const TooManyDetail = "Too many requests with an invalid API key from this address; retry later"
