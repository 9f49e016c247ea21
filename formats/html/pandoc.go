package html

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/internal/childproc"
)

// PandocTimeout bounds one pandoc conversion.
const PandocTimeout = 2 * time.Minute

// maxPandocOutput caps the HTML read back from pandoc.
const maxPandocOutput = 256 << 20

// PandocPath is the pandoc executable looked up on PATH.
const PandocPath = "pandoc"

// FromPandoc converts a document in pandoc input format from (rtf, org, rst, …) to an HTML
// fragment by running pandoc as a subprocess, as the reference does. pandoc runs sandboxed (no
// file or network access, so include directives cannot read the host), with a heap cap and a
// timeout. A missing pandoc is reported as such.
func FromPandoc(ctx context.Context, input []byte, from string) ([]byte, error) {
	bin, err := exec.LookPath(PandocPath)
	if err != nil {
		return nil, contract.Errorf(contract.KindInternal,
			"pandoc is required to partition %s documents but was not found on PATH (Debian: apt-get install pandoc)", from)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, PandocTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--sandbox", "--from="+from, "--to=html",
		"+RTS", "-M1g", "-RTS")
	cmd.Env = childproc.ConverterEnviron() // it parses untrusted bytes: no credentials
	childproc.DieWithParent(cmd)
	// The parent-death signal fires when the thread that started pandoc exits
	// (golang.org/issue/27505): keep this goroutine on its thread until pandoc is reaped.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	cmd.Stdin = bytes.NewReader(input)
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 64 << 10}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("pandoc: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("pandoc: start: %w", err)
	}
	out, readErr := io.ReadAll(io.LimitReader(stdout, maxPandocOutput+1))
	if int64(len(out)) > maxPandocOutput {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, contract.Errorf(contract.KindUnprocessable, "pandoc: %s conversion produced more than %d bytes", from, maxPandocOutput)
	}
	waitErr := cmd.Wait()
	if err := parent.Err(); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, contract.Errorf(contract.KindUnprocessable, "pandoc: %s conversion timed out after %v", from, PandocTimeout)
	}
	if waitErr != nil {
		msg := pandocMessage(stderr.String())
		if msg == "" {
			msg = waitErr.Error()
		}
		return nil, contract.Errorf(contract.KindUnprocessable, "pandoc: cannot convert %s document: %s", from, msg)
	}
	if readErr != nil {
		return nil, fmt.Errorf("pandoc: read output: %w", readErr)
	}
	return out, nil
}

// limitedWriter keeps the first n bytes written and discards the rest.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		_, _ = l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}

// PartitionPandoc converts a document with pandoc and partitions the resulting HTML. Text
// formats (org, rst) are decoded with opts.Get(contract.KeyEncoding) (or detected) first; pandoc reads UTF-8.
func PartitionPandoc(ctx context.Context, doc *contract.Document, opts contract.Options, from string, decode bool, emit contract.Emit) error {
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("%s: read: %w", from, err)
	}
	if decode {
		enc := ""
		if opts != nil {
			enc = opts.Get(contract.KeyEncoding)
		}
		if data, err = DecodeText(data, enc, false); err != nil {
			return err
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	out, err := FromPandoc(ctx, data, from)
	if err != nil {
		return err
	}
	// pandoc ends each footnote with a link back to its reference, drawn as "↩︎": navigation,
	// not the note's text.
	out = footnoteBack.ReplaceAll(out, nil)
	return PartitionUTF8(ctx, out, emit)
}

// footnoteBack matches the back-reference link pandoc appends to each footnote.
var footnoteBack = regexp.MustCompile(`<a\s[^>]*class="footnote-back"[^>]*>[^<]*</a>`)

// maxMessage bounds the length of a tool's message quoted in an error.
const maxMessage = 400

// pandocMessage makes pandoc's stderr one line: warnings dropped (they precede the error and
// are not why it failed), the error's lines ("Error at (line 3, column 1):" / "unexpected end
// of input") joined, white space collapsed, the whole bounded.
func pandocMessage(stderr string) string {
	var parts []string
	for _, line := range strings.Split(stderr, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" || strings.HasPrefix(line, "[WARNING]") {
			continue
		}
		parts = append(parts, line)
	}
	msg := strings.Join(parts, " ")
	if len(msg) > maxMessage {
		msg = strings.ToValidUTF8(msg[:maxMessage], "") + "…"
	}
	return msg
}
