package apikey

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func request(addr, key string) *http.Request {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.RemoteAddr = addr
	if key != "" {
		r.Header.Set("unstructured-api-key", key)
	}
	return r
}

// TestAuthorizeLimitsFailures: N refused keys from one address are answered 401, the next
// request from it 429 with Retry-After, whatever key it carries; a valid key from another address
// is unaffected; after the cool-down the address may try again.
func TestAuthorizeLimitsFailures(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := NewLimiter(LimiterConfig{Failures: 5, Window: time.Minute, CoolDown: 30 * time.Second, Now: c.now})
	k := New([]string{"good"})
	for i := 1; i <= 5; i++ {
		if out, _ := k.Authorize(l, httptest.NewRecorder(), request("203.0.113.7:4000", fmt.Sprint("guess", i))); out != Refused {
			t.Fatalf("failure %d: %v, want Refused", i, out)
		}
	}
	for _, key := range []string{"guess6", "good", ""} {
		w := httptest.NewRecorder()
		if out, _ := k.Authorize(l, w, request("203.0.113.7:4001", key)); out != TooManyTries {
			t.Fatalf("after 5 failures, key %q: %v, want TooManyTries", key, out)
		}
		if ra, err := strconv.Atoi(w.Header().Get("Retry-After")); err != nil || ra != 30 {
			t.Errorf("Retry-After %q, want 30", w.Header().Get("Retry-After"))
		}
	}
	if out, _ := k.Authorize(l, httptest.NewRecorder(), request("198.51.100.1:1", "good")); out != Allowed {
		t.Errorf("a valid key from another address: %v", out)
	}
	c.t = c.t.Add(31 * time.Second)
	if out, _ := k.Authorize(l, httptest.NewRecorder(), request("203.0.113.7:4000", "good")); out != Allowed {
		t.Errorf("after the cool-down a valid key: %v", out)
	}
	// Failures spread wider than the window never block.
	for i := 0; i < 20; i++ {
		c.t = c.t.Add(15 * time.Second)
		if out, _ := k.Authorize(l, httptest.NewRecorder(), request("192.0.2.9:1", "bad")); out != Refused {
			t.Fatalf("slow failure %d: %v", i, out)
		}
	}
	// IPv6 peers in one /64 share a budget; X-Forwarded-For is not trusted.
	for i := 0; i < 5; i++ {
		r := request(fmt.Sprintf("[2001:db8:1:2::%x]:443", i+1), "bad")
		r.Header.Set("X-Forwarded-For", fmt.Sprintf("10.0.0.%d", i))
		k.Authorize(l, httptest.NewRecorder(), r)
	}
	if out, _ := k.Authorize(l, httptest.NewRecorder(), request("[2001:db8:1:2:ffff::1]:443", "good")); out != TooManyTries {
		t.Errorf("another address of the same /64: %v, want TooManyTries", out)
	}
	if out, _ := k.Authorize(nil, httptest.NewRecorder(), request("203.0.113.7:1", "good")); out != Allowed {
		t.Errorf("no limiter: %v", out)
	}
	off := NewLimiter(LimiterConfig{Failures: -1})
	for i := 0; i < 100; i++ {
		if out, _ := k.Authorize(off, httptest.NewRecorder(), request("203.0.113.8:1", "bad")); out != Refused {
			t.Fatalf("limit off, failure %d: %v", i, out)
		}
	}
	if off.Len() != 0 {
		t.Errorf("limit off remembers %d addresses", off.Len())
	}
	if out, _ := Keys(nil).Authorize(l, httptest.NewRecorder(), request("[2001:db8:1:2::1]:1", "")); out != Allowed {
		t.Errorf("authentication off: %v", out)
	}
}

// TestLimiterBounded: failures from 100k distinct addresses leave at most MaxAddrs entries, and
// an address still knocking while blocked is not the one forgotten.
func TestLimiterBounded(t *testing.T) {
	c := &clock{t: time.Unix(1e9, 0)}
	l := NewLimiter(LimiterConfig{Failures: 3, MaxAddrs: 1000, Now: c.now})
	k := New([]string{"good"})
	for i := 0; i < 3; i++ {
		k.Authorize(l, httptest.NewRecorder(), request("203.0.113.7:1", "bad"))
	}
	for i := 0; i < 100000; i++ {
		addr := fmt.Sprintf("10.%d.%d.%d:1", i>>16, (i>>8)&255, i&255)
		k.Authorize(l, httptest.NewRecorder(), request(addr, "bad"))
		if i%500 == 0 {
			k.Authorize(l, httptest.NewRecorder(), request("203.0.113.7:1", "bad"))
		}
		if n := l.Len(); n > 1000 {
			t.Fatalf("%d addresses remembered after %d, want at most 1000", n, i+1)
		}
	}
	if _, blocked := l.Blocked("203.0.113.7"); !blocked {
		t.Error("the flood evicted a blocked address that kept knocking")
	}
}

// TestLimiterBurst: 2000 wrong keys sent at once from one address get at most Failures answers
// (plus those checked at the very same instant on other CPUs); the rest are 429.
func TestLimiterBurst(t *testing.T) {
	l := NewLimiter(LimiterConfig{Failures: 10})
	k := New([]string{"good"})
	var refused atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < 2000; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if out, _ := k.Authorize(l, httptest.NewRecorder(), request("203.0.113.7:1", "bad")); out == Refused {
				refused.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := refused.Load(); n < 10 || n > int64(10+runtime.GOMAXPROCS(0)) {
		t.Errorf("%d of 2000 simultaneous guesses answered, want 10 (+ at most %d)", n, runtime.GOMAXPROCS(0))
	}
}
