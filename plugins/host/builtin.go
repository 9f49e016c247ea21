package host

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/quarrydocs/quarry/engine"
)

// WrapBuiltins puts each named in-process strategy behind a plugin that re-executes exe with
// args followed by the strategy name (quarry plugin serve <name>), so a pathological document
// kills a child process rather than the host. Options.InProcess still runs the strategy in
// process. Names without an in-process registration are skipped.
func (h *Host) WrapBuiltins(exe string, args []string, names ...string) error {
	for _, n := range names {
		local, ok := engine.LookupStrategy(n)
		if !ok {
			continue
		}
		if b, ok := local.(*Builtin); ok {
			local = b.Local
		}
		spec := Spec{Name: n, Path: exe, Args: append(append([]string(nil), args...), n), Strategies: []string{n}}
		p, err := h.Add(spec)
		if err != nil {
			return fmt.Errorf("wrap built-in strategy %s: %w", n, err)
		}
		p.local = local
		engine.ReplaceStrategy(n, &Builtin{Local: local, Remote: p.Partitioner(n)})
	}
	return nil
}

// FormatsStrategy is the plugin strategy name under which the built-in formats are served: one
// plugin process partitions any registered format, chosen by the document's MIME type.
const FormatsStrategy = "formats"

// WrapFormats puts every registered in-process format (text, HTML, DOCX, XLSX, JSON, email…)
// behind one plugin that re-executes exe with args followed by FormatsStrategy (quarry plugin
// serve formats), under memoryLimit (0: the host's). A document that inflates to gigabytes, or
// nests a hundred thousand levels deep, then exhausts a child process's budget, not the
// server: the child is killed, the request gets an error, the next request a fresh process.
// Options.InProcess still runs the formats in process (the library default).
func (h *Host) WrapFormats(exe string, args []string, memoryLimit uint64) error {
	spec := Spec{Name: FormatsStrategy, Path: exe, Args: append(append([]string(nil), args...), FormatsStrategy),
		Strategies: []string{FormatsStrategy}, MemoryLimit: memoryLimit}
	p, err := h.Add(spec)
	if err != nil {
		return fmt.Errorf("wrap built-in formats: %w", err)
	}
	p.internal, p.budgetEnv = true, EnvFormatMemory
	remote := p.Partitioner(FormatsStrategy)
	for _, m := range engine.Formats() {
		local, _ := engine.LookupFormat(m)
		if b, ok := local.(*Builtin); ok {
			local = b.Local
		}
		engine.ReplaceFormat(m, &Builtin{Local: local, Remote: remote})
	}
	return nil
}

// EnvFormatMemory sets the formats plugin's per-document memory budget (MiB).
const EnvFormatMemory = "QUARRY_FORMAT_MEMORY_LIMIT_MB"

// WrapInternal runs local, a partitioner the host's own strategies call rather than a strategy
// users select (hi_res's layout pass), in a plugin process that re-executes exe with args
// followed by name (quarry plugin serve <name>), under memoryLimit (0: the host's). The limit is
// a per-document budget: a document that exhausts it gets a 422 naming budgetEnv, the child is
// replaced, the host keeps serving. The returned partitioner still runs local in process when
// a call asks for it (Options.InProcess).
func (h *Host) WrapInternal(name, exe string, args []string, memoryLimit uint64, budgetEnv string, local engine.Partitioner) (engine.Partitioner, error) {
	spec := Spec{Name: name, Path: exe, Args: append(append([]string(nil), args...), name),
		Strategies: []string{name}, MemoryLimit: memoryLimit}
	p, err := h.Add(spec)
	if err != nil {
		return nil, fmt.Errorf("wrap %s: %w", name, err)
	}
	p.internal, p.budgetEnv, p.local = true, budgetEnv, local
	return &Builtin{Local: local, Remote: p.Partitioner(name)}, nil
}

// PartitionFormat is what the formats plugin serves: the in-process format registered for the
// document's MIME type (sent by the host, which detected it).
func PartitionFormat(ctx context.Context, doc *engine.Document, opts *engine.Options, emit engine.Emit) error {
	p, ok := engine.LookupFormat(doc.MIMEType)
	if !ok {
		return engine.UnsupportedError(doc.MIMEType)
	}
	if b, ok := p.(*Builtin); ok {
		p = b.Local
	}
	// The host counts too; counting here stops the format at the first element over the
	// budget instead of after the millionth.
	return p.Partition(ctx, doc, opts, engine.LimitElements(opts.MaxElements, emit))
}

// DefaultDirs are the plugin directories used when none is configured: the directory of the
// running executable (plugins shipped beside quarry, like the OCR plugin) and
// ~/.quarry/plugins.
func DefaultDirs() []string {
	var dirs []string
	if exe, err := os.Executable(); err == nil {
		dirs = append(dirs, filepath.Dir(exe))
	}
	if home, err := os.UserHomeDir(); err == nil {
		dirs = append(dirs, filepath.Join(home, ".quarry", "plugins"))
	}
	return dirs
}
