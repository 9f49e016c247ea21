package host

import (
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
