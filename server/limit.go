package server

import (
	"context"
	"time"
)

// limiter bounds concurrent partition requests: up to n run, up to queue more wait at most
// wait for a slot, the rest are refused at once (503), so overload degrades into fast refusals
// instead of unbounded memory and latency.
type limiter struct {
	slots chan struct{}
	queue chan struct{}
	wait  time.Duration
}

func newLimiter(n, queue int, wait time.Duration) *limiter {
	return &limiter{slots: make(chan struct{}, n), queue: make(chan struct{}, queue), wait: wait}
}

// acquire takes a slot; ok is false when the server is saturated or ctx ends first.
func (l *limiter) acquire(ctx context.Context) (release func(), ok bool) {
	release = func() { <-l.slots }
	select {
	case l.slots <- struct{}{}:
		return release, true
	default:
	}
	select {
	case l.queue <- struct{}{}:
	default:
		return nil, false
	}
	defer func() { <-l.queue }()
	t := time.NewTimer(l.wait)
	defer t.Stop()
	select {
	case l.slots <- struct{}{}:
		return release, true
	case <-t.C:
		return nil, false
	case <-ctx.Done():
		return nil, false
	}
}
