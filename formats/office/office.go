// Package office partitions legacy binary Office documents (.doc, .ppt, .xls) as the reference
// does: LibreOffice converts them to their Office Open XML counterparts (DOCX, PPTX, XLSX),
// whose registered partitioners then produce the elements. OpenDocument spreadsheets and
// presentations (.ods, .odp, their templates and flat XML variants) go the same way, to XLSX
// and PPTX.
//
// LibreOffice runs headless with a private profile directory per conversion (so concurrent
// conversions never share state), under a memory limit (prlimit: DefaultMemoryLimit,
// QUARRY_OFFICE_MEMORY_MB, lowered to this process's own hard limits, which in the server are
// the plugin host's) and a deadline. A conversion never outlives its request or its
// process:
//   - soffice.bin is started directly, not through the soffice launcher (a shell script that
//     execs oosplash, which forks soffice.bin), so the parent-death signal (Linux) lands on
//     the process that converts; its restart after creating the profile (exit status 81) is
//     done here, as oosplash would;
//   - it leads its own process group, killed whole when the context ends, at the deadline and
//     after it exits, which takes the helpers it forks with it;
//   - a small shell guard, holding one end of a pipe to this process, kills that group and
//     removes the conversion's temporary directory if this process dies first (SIGKILL from
//     the plugin host, a crash), which no deferred cleanup could do;
//   - the single-instance socket LibreOffice binds in /tmp (whatever TMPDIR says) and leaves
//     when killed is removed too, by the cleanup or the guard.
//
// The Debian packages libreoffice-writer-nogui, libreoffice-impress-nogui and
// libreoffice-calc-nogui provide LibreOffice.
package office

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/internal/childproc"
)

// Canonical MIME types of the formats converted and of their conversion targets.
const (
	MIMEDOC = "application/msword"
	MIMEPPT = "application/vnd.ms-powerpoint"
	MIMEXLS = "application/vnd.ms-excel"
	// OpenDocument spreadsheets and presentations: the ZIP packages (their "mimetype" member
	// names the type), their templates, and the single-file flat XML variants (whose MIME
	// types are those of shared-mime-info, which LibreOffice writes).
	MIMEODS  = "application/vnd.oasis.opendocument.spreadsheet"
	MIMEODP  = "application/vnd.oasis.opendocument.presentation"
	MIMEOTS  = "application/vnd.oasis.opendocument.spreadsheet-template"
	MIMEOTP  = "application/vnd.oasis.opendocument.presentation-template"
	MIMEFODS = "application/vnd.oasis.opendocument.spreadsheet-flat-xml"
	MIMEFODP = "application/vnd.oasis.opendocument.presentation-flat-xml"
	MIMEDOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
	MIMEPPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
	MIMEXLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
)

// DefaultTimeout bounds one conversion. A cold LibreOffice start takes a few seconds; large
// presentations take tens.
const DefaultTimeout = 120 * time.Second

// maxOutput bounds the converted file read back.
const maxOutput = 512 << 20

// conversion says how one legacy type is converted.
type conversion struct {
	ext    string // extension given to the input file, which LibreOffice uses to pick a filter
	format string // --convert-to argument and output extension
	target string // MIME type of the converted document
}

var conversions = map[string]conversion{
	MIMEDOC: {".doc", "docx", MIMEDOCX},
	MIMEPPT: {".ppt", "pptx", MIMEPPTX},
	MIMEXLS: {".xls", "xlsx", MIMEXLSX},
	// The reference's detection knows no OpenDocument type but ODT; its hosted service
	// converts what LibreOffice reads. A spreadsheet is read as the XLSX it converts to, a
	// presentation as the PPTX.
	MIMEODS:  {".ods", "xlsx", MIMEXLSX},
	MIMEOTS:  {".ots", "xlsx", MIMEXLSX},
	MIMEFODS: {".fods", "xlsx", MIMEXLSX},
	MIMEODP:  {".odp", "pptx", MIMEPPTX},
	MIMEOTP:  {".otp", "pptx", MIMEPPTX},
	MIMEFODP: {".fodp", "pptx", MIMEPPTX},
}

// Partitioner converts with LibreOffice and partitions the result with the partitioner
// registered for the target type.
type Partitioner struct {
	Converter Converter
}

var _ contract.Partitioner = Partitioner{}

func init() {
	// One LibreOffice process needs a core and a few hundred MB: bound the conversions the
	// registered partitioner runs at once.
	p := Partitioner{Converter: Converter{Slots: make(chan struct{}, max(2, runtime.NumCPU()))}}
	// The root stream that names each legacy type, in the order detection tries them.
	contract.RegisterFormat(contract.Format{Name: "doc", MIME: MIMEDOC, Extensions: []string{".doc"}, CFBStreams: []string{"WordDocument"}, Partitioner: p})
	contract.RegisterFormat(contract.Format{Name: "ppt", MIME: MIMEPPT, Extensions: []string{".ppt"}, CFBStreams: []string{"PowerPoint Document"}, Partitioner: p,
		Options: []contract.KeySpec{{Key: "include_slide_notes", Kind: contract.Bool, Help: "PPT: emit speaker notes (default true)", Since: 2}}})
	contract.RegisterFormat(contract.Format{Name: "xls", MIME: MIMEXLS, Extensions: []string{".xls"}, CFBStreams: []string{"Workbook", "Book"}, Partitioner: p})
	// An OpenDocument package names its type in its "mimetype" member, which detection reads:
	// Container says a hint naming the type is believed only for a ZIP. A flat XML document
	// sniffs as XML; AcceptsXML makes XML under its extension this type.
	notes := []contract.KeySpec{{Key: "include_slide_notes", Kind: contract.Bool, Help: "ODP: emit speaker notes (default true)", Since: 2}}
	contract.RegisterFormat(contract.Format{Name: "ods", MIME: MIMEODS, Extensions: []string{".ods"}, Container: true, Partitioner: p})
	contract.RegisterFormat(contract.Format{Name: "ots", MIME: MIMEOTS, Extensions: []string{".ots"}, Container: true, Partitioner: p})
	contract.RegisterFormat(contract.Format{Name: "fods", MIME: MIMEFODS, Extensions: []string{".fods"}, AcceptsXML: true, Partitioner: p})
	contract.RegisterFormat(contract.Format{Name: "odp", MIME: MIMEODP, Extensions: []string{".odp"}, Container: true, Partitioner: p, Options: notes})
	contract.RegisterFormat(contract.Format{Name: "otp", MIME: MIMEOTP, Extensions: []string{".otp"}, Container: true, Partitioner: p, Options: notes})
	contract.RegisterFormat(contract.Format{Name: "fodp", MIME: MIMEFODP, Extensions: []string{".fodp"}, AcceptsXML: true, Partitioner: p, Options: notes})
}

// Partition implements contract.Partitioner.
func (p Partitioner) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	mime := doc.MIMEType
	if mime == "" {
		mime = byExtension(doc.BaseName())
	}
	conv, ok := conversions[mime]
	if !ok {
		return contract.Errorf(contract.KindUnsupported, "File type %s is not supported.", mime)
	}
	next, ok := contract.LookupFormat(conv.target)
	if !ok || next.Partitioner == nil {
		return contract.Errorf(contract.KindInternal, "office: no partitioner registered for %s", conv.target)
	}
	data, err := doc.Bytes()
	if err != nil {
		return fmt.Errorf("office: read: %w", err)
	}
	out, err := p.Converter.Convert(ctx, data, conv.ext, conv.format)
	if err != nil {
		return err
	}
	name := strings.TrimSuffix(doc.BaseName(), filepath.Ext(doc.BaseName())) + "." + conv.format
	converted := contract.NewDocument(name, out)
	converted.MIMEType = conv.target
	return next.Partitioner.Partition(ctx, converted, opts, emit)
}

// byExtension names the legacy type of a document given without a detected type (a direct
// call) by its extension.
func byExtension(name string) string {
	ext := strings.ToLower(filepath.Ext(name))
	for mime, c := range conversions {
		if c.ext == ext {
			return mime
		}
	}
	return "application/octet-stream"
}

// deadProxy is where LibreOffice's network requests are sent: port 9 (discard) on loopback,
// where nothing answers, so every fetch fails at once.
const deadProxy = "127.0.0.1:9"

// noNetworkEnv overrides the proxy variables LibreOffice (and the curl it fetches with) reads,
// last in the environment so they win over the operator's own proxy.
var noNetworkEnv = []string{
	"http_proxy=http://" + deadProxy, "https_proxy=http://" + deadProxy, "ftp_proxy=http://" + deadProxy,
	"all_proxy=http://" + deadProxy, "HTTP_PROXY=http://" + deadProxy, "HTTPS_PROXY=http://" + deadProxy,
	"FTP_PROXY=http://" + deadProxy, "ALL_PROXY=http://" + deadProxy, "no_proxy=", "NO_PROXY=",
}

// profileSettings are written into each conversion's fresh profile. LibreOffice fetches what a
// document links to while converting it: an .fods with <draw:image xlink:href="http://…"> made
// the server send GET (and OPTIONS) requests to any address the uploader chose — loopback, the
// cloud metadata service, the internal network — bypassing the connectors' outbound checks.
// Every HTTP, HTTPS and FTP request now goes to a manual proxy that does not answer, with no
// exceptions.
const profileSettings = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetProxyType" oor:op="fuse"><value>2</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPProxyName" oor:op="fuse"><value>127.0.0.1</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPProxyPort" oor:op="fuse"><value>9</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPSProxyName" oor:op="fuse"><value>127.0.0.1</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetHTTPSProxyPort" oor:op="fuse"><value>9</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetFTPProxyName" oor:op="fuse"><value>127.0.0.1</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetFTPProxyPort" oor:op="fuse"><value>9</value></prop></item>
<item oor:path="/org.openoffice.Inet/Settings"><prop oor:name="ooInetNoProxy" oor:op="fuse"><value></value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
</oor:items>
`

// writeProfile seeds a new LibreOffice profile directory with profileSettings.
func writeProfile(profile string) error {
	user := filepath.Join(profile, "user")
	if err := os.MkdirAll(user, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(user, "registrymodifications.xcu"), []byte(profileSettings), 0o600)
}

// Converter runs LibreOffice. The zero value looks soffice up on PATH and uses DefaultTimeout.
type Converter struct {
	// Binary is the LibreOffice executable; "" means $QUARRY_SOFFICE, else soffice (or
	// libreoffice) on PATH.
	Binary string
	// Timeout bounds one conversion; 0 means $QUARRY_OFFICE_TIMEOUT (a Go duration such as
	// "90s"), else DefaultTimeout. Time spent waiting for a slot does not count.
	Timeout time.Duration
	// Slots, when not nil, bounds concurrent conversions: each holds one element while
	// LibreOffice runs.
	Slots chan struct{}
	// MemoryLimit bounds LibreOffice's writable memory (RLIMIT_DATA, bytes, applied with
	// prlimit(1) when installed); 0 means $QUARRY_OFFICE_MEMORY_MB, else DefaultMemoryLimit.
	MemoryLimit uint64
}

// DefaultMemoryLimit bounds one LibreOffice conversion's writable memory. A conversion of an
// ordinary presentation peaks near 220 MB resident; a document that needs more than this is
// refused with an error rather than allowed to take the machine's memory.
const DefaultMemoryLimit = 1 << 30

// addressSpaceHeadroom is added to the memory limit for the RLIMIT_AS backstop: LibreOffice
// maps hundreds of MB of libraries and reserved address space it never writes.
const addressSpaceHeadroom = 4 << 30

func (c Converter) memoryLimit() uint64 {
	if c.MemoryLimit > 0 {
		return c.MemoryLimit
	}
	if mb, err := strconv.ParseUint(os.Getenv("QUARRY_OFFICE_MEMORY_MB"), 10, 64); err == nil && mb > 0 {
		return mb << 20
	}
	return DefaultMemoryLimit
}

// restartExit is the exit status with which soffice.bin asks its launcher to start it again
// (EXITHELPER_NORMAL_RESTART: it has just created the user profile); maxStarts bounds the
// restarts.
const (
	restartExit = 81
	maxStarts   = 3
)

// direct returns the soffice.bin beside bin when bin is LibreOffice's launcher, else bin.
// The launcher (soffice, libreoffice) is a shell script that execs oosplash, which forks
// soffice.bin: the parent-death signal set on the process started would not reach
// soffice.bin, and oosplash's restart after profile creation is done here instead.
func direct(bin string) string {
	real, err := filepath.EvalSymlinks(bin)
	if err != nil || filepath.Base(real) != "soffice" {
		return bin
	}
	exe := filepath.Join(filepath.Dir(real), "soffice.bin")
	if fi, err := os.Stat(exe); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return exe
	}
	return bin
}

// ipcSockets returns where LibreOffice may bind its single-instance socket for a profile. It
// ignores TMPDIR: sal/osl/unx/pipe.cxx binds in /tmp (/var/tmp when /tmp is not writable),
// named OSL_PIPE_<uid>_SingleOfficeIPC_<MD5 of the profile URL in UTF-16LE, each byte in hex
// without padding> (desktop/source/app/officeipcthread.cxx). LibreOffice removes it when it
// exits; a killed one leaves it, and each conversion's profile, hence name, is new.
func ipcSockets(profileURL string) []string {
	units := utf16.Encode([]rune(profileURL))
	b := make([]byte, 2*len(units))
	for i, u := range units {
		binary.LittleEndian.PutUint16(b[2*i:], u)
	}
	var name strings.Builder
	name.WriteString("OSL_PIPE_" + strconv.Itoa(os.Getuid()) + "_SingleOfficeIPC_")
	for _, x := range md5.Sum(b) {
		name.WriteString(strconv.FormatUint(uint64(x), 16))
	}
	return []string{filepath.Join("/tmp", name.String()), filepath.Join("/var/tmp", name.String())}
}

// removeSockets removes the sockets a killed LibreOffice left (sockets only: the names are
// derived from this conversion's own directory, but a file of another kind is not ours).
func removeSockets(paths []string) {
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSocket != 0 {
			_ = os.Remove(p)
		}
	}
}

// ErrNotInstalled is returned (wrapped in a *contract.Error) when LibreOffice cannot be found.
var ErrNotInstalled = errors.New("soffice command was not found. Please install libreoffice on your system and try again")

func (c Converter) binary() (string, error) {
	if c.Binary == "" {
		c.Binary = os.Getenv("QUARRY_SOFFICE")
	}
	if c.Binary != "" {
		if p, err := exec.LookPath(c.Binary); err == nil {
			return p, nil
		}
		return "", ErrNotInstalled
	}
	for _, name := range []string{"soffice", "libreoffice"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", ErrNotInstalled
}

// Available reports whether LibreOffice can be run.
func (c Converter) Available() bool {
	_, err := c.binary()
	return err == nil
}

// Convert converts data, a document whose type LibreOffice recognises from extension ext
// (".doc"), to format ("docx") and returns the converted bytes.
func (c Converter) Convert(ctx context.Context, data []byte, ext, format string) ([]byte, error) {
	bin, err := c.binary()
	if err != nil {
		return nil, &contract.Error{Kind: contract.KindInternal, Msg: err.Error(), Err: err}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
		if d, err := time.ParseDuration(os.Getenv("QUARRY_OFFICE_TIMEOUT")); err == nil && d > 0 {
			timeout = d
		}
	}
	if c.Slots != nil {
		select {
		case c.Slots <- struct{}{}:
			defer func() { <-c.Slots }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	dir, err := os.MkdirTemp("", "quarry-office-")
	if err != nil {
		return nil, fmt.Errorf("office: temp dir: %w", err)
	}
	// The guard removes dir and kills LibreOffice's process group should this process die
	// before the deferred cleanup runs. It is released after dir is gone, so there is no
	// moment at which neither would remove it.
	outDir := filepath.Join(dir, "out")
	profileURL := "file://" + filepath.ToSlash(filepath.Join(dir, "profile"))
	sockets := ipcSockets(profileURL)
	g, err := startGuard(dir, sockets)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("office: %w", err)
	}
	defer func() {
		_ = os.RemoveAll(dir)
		removeSockets(sockets)
		g.release()
	}()
	if err := writeProfile(filepath.Join(dir, "profile")); err != nil {
		return nil, fmt.Errorf("office: profile: %w", err)
	}
	in := filepath.Join(dir, "document"+ext)
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, fmt.Errorf("office: write input: %w", err)
	}

	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	limit := c.memoryLimit()
	// The parent-death signal is sent when the thread that started the child exits, not the
	// process (golang.org/issue/27505): keep this goroutine on its thread while LibreOffice
	// runs, so no other goroutine can lock the thread and end it.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	stderr := &capped{max: 8 << 10}
	var runErr error
	for attempt := 1; ; attempt++ {
		// prlimit sets the limits (lowered to this process's own hard limits: the plugin host
		// sets those on the process formats run in) before LibreOffice's first instruction.
		path, args := childproc.Limited(limit, addressSpaceHeadroom, direct(bin),
			"-env:UserInstallation="+profileURL,
			"--headless", "--norestore", "--nolockcheck", "--nodefault", "--nologo",
			"--convert-to", format, "--outdir", outDir, in)
		cmd := exec.CommandContext(runCtx, path, args...)
		cmd.Dir = dir
		// HOME points into the temporary directory so nothing is written to the user's home.
		// No credentials either: LibreOffice parses untrusted bytes (childproc.ConverterEnviron).
		cmd.Env = append(append(childproc.ConverterEnviron(), "HOME="+dir, "TMPDIR="+dir), noNetworkEnv...)
		setGroup(cmd)
		// soffice.bin is started directly so the parent-death signal reaches the converting
		// process; what it forks is covered by the guard.
		childproc.DieWithParent(cmd)
		// LibreOffice forks helpers (soffice.bin runs `sh -c paperconf`; the launcher forks
		// soffice.bin): kill the whole process group, not just the process started, so a hung
		// conversion leaves nothing behind.
		cmd.Cancel = func() error { return killGroup(cmd) }
		cmd.WaitDelay = 5 * time.Second
		stderr.Reset()
		cmd.Stdout = stderr
		cmd.Stderr = stderr
		if runErr = cmd.Start(); runErr != nil {
			break
		}
		g.watch(cmd.Process.Pid)
		runErr = cmd.Wait()
		_ = killGroup(cmd) // reap any child that outlived it
		g.watch(0)
		// soffice.bin exits with restartExit after creating a fresh profile, expecting its
		// launcher to start it again.
		if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != restartExit || attempt == maxStarts || runCtx.Err() != nil {
			break
		}
	}

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if runCtx.Err() == context.DeadlineExceeded {
		return nil, contract.Errorf(contract.KindUnprocessable, "office: LibreOffice conversion to %s timed out after %s", format, timeout)
	}
	out := filepath.Join(outDir, "document."+format)
	fi, statErr := os.Stat(out)
	if statErr != nil || fi.Size() == 0 {
		detail := strings.TrimSpace(lastLine(stderr.String()))
		if runErr != nil {
			detail = runErr.Error() + ": " + detail
		}
		return nil, contract.Errorf(contract.KindUnprocessable,
			"office: LibreOffice could not convert the document to %s (damaged, password-protected, not a valid %s file or over the %d MiB memory limit): %s",
			format, ext, limit>>20, oneLine(detail))
	}
	if fi.Size() > maxOutput {
		return nil, contract.Errorf(contract.KindUnprocessable, "office: converted document is %d bytes, more than %d", fi.Size(), maxOutput)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, fmt.Errorf("office: read converted document: %w", err)
	}
	return b, nil
}

// capped keeps the first max bytes written to it and discards the rest.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// oneLine keeps a message on one line (a tool's multi-line error becomes one).
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}
