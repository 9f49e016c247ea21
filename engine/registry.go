package engine

import (
	"context"
	"sort"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
)

// Formats and strategies register with package contract (contract.RegisterFormat,
// contract.RegisterStrategy) from init; the engine reads that registry. The functions below
// are the engine's view of it for callers above the engine (the plugin host, the CLI), whose
// partitioners take *Options.

// RegisterStrategy registers p under name (a strategy still written against *Options; new
// strategies call contract.RegisterStrategy).
func RegisterStrategy(name string, p Partitioner) {
	contract.RegisterStrategy(contract.Strategy{Name: name, Partitioner: Contract(p)})
}

// ReplaceStrategy puts p in place of the strategy registered under name (the plugin host puts
// an out-of-process wrapper in front of a built-in; the per-page router wraps fast and
// ocr_only). Start-up only: it panics once the first document has been partitioned.
func ReplaceStrategy(name string, p Partitioner) { contract.ReplaceStrategy(name, Contract(p)) }

// ReplaceFormat puts p in place of the partitioner registered for the canonical MIME type
// (start-up only, as ReplaceStrategy).
func ReplaceFormat(mime string, p Partitioner) { contract.ReplaceFormat(mime, Contract(p)) }

// LookupFormat returns the partitioner registered for a canonical MIME type.
func LookupFormat(mime string) (Partitioner, bool) {
	f, ok := contract.LookupFormat(mime)
	if !ok || f.Partitioner == nil || f.MIME != mime {
		return nil, false
	}
	return FromContract(f.Partitioner), true
}

// LookupStrategy returns the partitioner registered under a strategy name.
func LookupStrategy(name string) (Partitioner, bool) {
	s, ok := contract.LookupStrategy(name)
	if !ok || s.Partitioner == nil {
		return nil, false
	}
	return FromContract(s.Partitioner), true
}

// Strategies lists the registered strategy names, sorted.
func Strategies() []string {
	var names []string
	for _, s := range contract.Strategies() {
		if s.Partitioner != nil {
			names = append(names, s.Name)
		}
	}
	return names
}

// Formats lists the canonical MIME types that have a partitioner, sorted.
func Formats() []string {
	var names []string
	for _, f := range contract.Formats() {
		if f.Partitioner != nil {
			names = append(names, f.MIME)
		}
	}
	sort.Strings(names)
	return names
}

// Contract returns p as a contract.Partitioner: it is given the options as keys and rebuilds
// *Options from them (OptionsFromKeys), taking what never crosses as a key (logger, progress
// hook, InProcess, MaxElements, chunking) from the engine's call. A partitioner written
// against contract directly needs none of this.
func Contract(p Partitioner) contract.Partitioner {
	if c, ok := p.(fromContract); ok {
		return c.p
	}
	return toContract{p}
}

// FromContract returns p as a Partitioner: it is called with the options as keys
// (Options.Keys), and the host-only fields travel in the context to a partitioner adapted by
// Contract.
func FromContract(p contract.Partitioner) Partitioner {
	if c, ok := p.(toContract); ok {
		return c.p
	}
	return fromContract{p}
}

type hostOptionsKey struct{}

type toContract struct{ p Partitioner }

func (c toContract) Partition(ctx context.Context, doc *Document, k contract.Options, emit Emit) error {
	o := c.options(ctx, k)
	return c.p.Partition(ctx, doc, &o, emit)
}

func (c toContract) options(ctx context.Context, k contract.Options) Options {
	o := OptionsFromKeys(k)
	if h, ok := ctx.Value(hostOptionsKey{}).(*Options); ok {
		o.Logger, o.Progress, o.InProcess, o.MaxElements, o.Chunking = h.Logger, h.Progress, h.InProcess, h.MaxElements, h.Chunking
	}
	return o
}

// HasText forwards to p when p probes text layers.
func (c toContract) HasText(ctx context.Context, doc *Document, k contract.Options) (bool, error) {
	if pr, ok := c.p.(TextLayerProber); ok {
		o := c.options(ctx, k)
		return pr.HasText(ctx, doc, &o)
	}
	return false, nil
}

// Unwrap returns the adapted partitioner.
func (c toContract) Unwrap() Partitioner { return c.p }

type fromContract struct{ p contract.Partitioner }

func (c fromContract) Partition(ctx context.Context, doc *Document, opts *Options, emit Emit) error {
	return c.p.Partition(withHostOptions(ctx, opts), doc, opts.Keys(), emit)
}

// HasText forwards to p when p probes text layers.
func (c fromContract) HasText(ctx context.Context, doc *Document, opts *Options) (bool, error) {
	if pr, ok := c.p.(contract.TextLayerProber); ok {
		return pr.HasText(withHostOptions(ctx, opts), doc, opts.Keys())
	}
	return false, nil
}

func withHostOptions(ctx context.Context, opts *Options) context.Context {
	ctx = context.WithValue(ctx, hostOptionsKey{}, opts)
	if opts.Logger != nil {
		ctx = contract.WithLogger(ctx, opts.Logger)
	}
	ctx = contract.WithNested(ctx, func(ctx context.Context, doc *Document, k contract.Options) ([]element.Element, error) {
		// A document inside another is partitioned as one of its own under the request's
		// limits and hooks; the outer document's chunking applies to the whole result.
		sub := OptionsFromKeys(k)
		sub.Logger, sub.Progress, sub.InProcess, sub.MaxElements = opts.Logger, opts.Progress, opts.InProcess, opts.MaxElements
		return Partition(ctx, doc, sub)
	})
	if opts.Progress != nil {
		ctx = contract.WithProgress(ctx, func(page, pages int, stage string) { opts.ReportPage(page, pages, stage) })
		ctx = contract.WithStrategyReports(ctx, func(strategy, reason string, pages []int) {
			opts.Report(Progress{Strategy: strategy, Reason: reason, Pages: pages})
		})
	}
	return ctx
}
