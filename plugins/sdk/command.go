package sdk

import (
	"context"
	"os/exec"

	"github.com/quarrydocs/quarry/internal/childproc"
)

// Command is exec.CommandContext for a helper program a strategy runs (a renderer, a
// converter), set up so that the helper dies with the plugin however the plugin dies: when
// the host kills a hung or oversized plugin with SIGKILL, nothing can clean up after it, and a
// helper left running would be an orphan holding CPU and memory. The helper gets the plugin's
// environment without anything named like a credential (…KEY…, …TOKEN…, …SECRET…, AWS_*…):
// it runs on untrusted bytes and needs none; set cmd.Env to give it more.
func Command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = childproc.ConverterEnviron()
	childproc.DieWithParent(cmd)
	return cmd
}
