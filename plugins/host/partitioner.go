package host

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/quarrydocs/quarry/engine"
	"github.com/quarrydocs/quarry/plugins/internal/wire"
)

// Remote is a plugin strategy as an engine.Partitioner.
type Remote struct {
	p        *Plugin
	strategy string
}

var _ engine.Partitioner = (*Remote)(nil)

// Partitioner returns the plugin's strategy as an engine.Partitioner.
func (p *Plugin) Partitioner(strategy string) *Remote { return &Remote{p: p, strategy: strategy} }

// Partition runs the strategy in a pooled plugin process under the plugin's deadline.
func (r *Remote) Partition(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	p := r.p
	// Waiting for a free process is bounded by the caller's context only; the plugin's
	// deadline starts when it gets the document.
	pr, err := p.pool.acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return err
	}
	callCtx, cancel := context.WithTimeout(ctx, p.spec.Timeout)
	defer cancel()
	log := opts.Log()
	start := time.Now()
	doc, done := pr.document(doc)
	defer done()
	err = pr.client.Partition(callCtx, r.strategy, doc, wire.Options{Keys: opts.Keys(), LegacyJSON: func() ([]byte, error) { return legacyOptions(opts) }}, emit, func(page, pages int, stage string) {
		log.Debug("plugin progress", "plugin", p.spec.Name, "page", page, "pages", pages, "stage", stage)
		opts.ReportPage(page, pages, stage)
	})
	pr.calls++
	var remote *wire.RemoteError
	switch {
	case err == nil:
		p.pool.release(pr, false)
		return nil
	case errors.As(err, &remote):
		p.pool.release(pr, false)
		if remote.Err.Kind == engine.KindInternal {
			// An internal error means nothing to the caller without knowing whose it is; the
			// other kinds carry the reference's own messages and stay as they are.
			remote.Err.Msg = fmt.Sprintf("plugin %s (strategy %s): %s", p.spec.Name, r.strategy, remote.Err.Msg)
		}
		return remote.Err
	}
	// Anything else leaves the process in an unknown state: stop it; the next call starts a
	// fresh one.
	exited := pr.gp.Exited()
	p.pool.release(pr, true)
	switch {
	case wire.IsEmitError(err):
		return errors.Unwrap(err)
	case ctx.Err() != nil:
		return ctx.Err()
	case callCtx.Err() != nil:
		log.Warn("plugin timed out", "plugin", p.spec.Name, "after", time.Since(start))
		return &engine.Error{Kind: engine.KindInternal,
			Msg: fmt.Sprintf("plugin %s (strategy %s) did not finish within %s; the process was killed and will be restarted", p.spec.Name, r.strategy, p.spec.Timeout),
			Err: err}
	}
	why := describeFailure(err, exited, pr)
	if p.spec.MemoryLimit > 0 && (strings.Contains(why, "out of memory") || strings.Contains(why, "cannot allocate memory") || strings.Contains(why, "pthread_create failed") || nearLimit(pr, p.spec.MemoryLimit)) {
		why = fmt.Sprintf("ran out of memory (limit %d MiB): %s", p.spec.MemoryLimit>>20, why)
		if p.budgetEnv != "" {
			// A per-document budget (the built-in formats, hi_res's layout pass): exceeding it
			// is the document's doing (an inflating archive, a huge part, millions of glyphs),
			// so the answer is a 4xx.
			log.Warn("document over the memory budget", "plugin", p.spec.Name, "limit_mib", p.spec.MemoryLimit>>20, "err", why)
			return &engine.Error{Kind: engine.KindUnprocessable,
				Msg: fmt.Sprintf("The document needs more memory than this server allows per document (%d MiB); split it or ask the operator to raise %s", p.spec.MemoryLimit>>20, p.budgetEnv),
				Err: err}
		}
	}
	log.Warn("plugin failed", "plugin", p.spec.Name, "err", why)
	return &engine.Error{Kind: engine.KindInternal,
		Msg: fmt.Sprintf("plugin %s (strategy %s) %s; the process was stopped and will be restarted", p.spec.Name, r.strategy, why),
		Err: err}
}

// describeFailure says in one phrase what happened to the process.
func describeFailure(err error, exited bool, pr *proc) string {
	reason := pr.stderr.reason()
	if exited || status.Code(err) == codes.Unavailable || wire.IsIncomplete(err) {
		// Let the process be reaped so its exit status is known.
		for i := 0; i < 20 && !pr.gp.Exited(); i++ {
			time.Sleep(5 * time.Millisecond)
		}
		return "crashed" + describeExit(pr) + reason
	}
	return fmt.Sprintf("failed: %v%s", err, reason)
}

// Builtin wraps an in-process strategy so that it runs in a plugin process unless the caller
// asks for in-process execution (Options.InProcess). Optional capabilities of the in-process
// strategy that the engine discovers by type assertion stay available.
type Builtin struct {
	Local  engine.Partitioner
	Remote *Remote
}

var _ engine.Partitioner = (*Builtin)(nil)

// Partition implements engine.Partitioner.
func (b *Builtin) Partition(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	if opts.InProcess || b.Remote == nil {
		return b.Local.Partition(ctx, doc, opts, emit)
	}
	return b.Remote.Partition(ctx, doc, opts, emit)
}

// HasText forwards the text-layer probe to the in-process strategy: it is a cheap read the
// engine makes before choosing a strategy.
func (b *Builtin) HasText(ctx context.Context, doc *engine.Document, opts *engine.Options) (bool, error) {
	if pr, ok := b.Local.(engine.TextLayerProber); ok {
		return pr.HasText(ctx, doc, opts)
	}
	return false, nil
}

var _ engine.TextLayerProber = (*Builtin)(nil)
