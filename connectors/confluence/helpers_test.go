package confluence

import (
	"context"
	"time"
)

// noSleep is a RetryPolicy.Sleep that returns at once (still honouring cancellation).
func noSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }

// testSource is NewSource with retries that do not really wait and, unless the test sets them,
// media hosts that admit the fakes' media servers (any port of 127.0.0.1).
func testSource(c Config) (*Source, error) {
	if c.Retry.Sleep == nil {
		c.Retry.Sleep = noSleep
	}
	if c.MediaHosts == nil {
		c.MediaHosts = []string{"127.0.0.1"}
	}
	return NewSource(c)
}
