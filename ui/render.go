package ui

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/internal/childproc"
)

const (
	defaultDPI = 96
	maxDPI     = 200
)

// handleRender renders one PDF page to PNG: multipart fields "file" (the PDF), "page" (1-based)
// and optionally "dpi". The page count goes back in X-Page-Count when pdfinfo is available, so
// the playground can offer pages that produced no elements.
func (h *Handler) handleRender(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", "POST")
		writeDetail(w, http.StatusMethodNotAllowed, "Method Not Allowed")
		return
	}
	if status, msg := h.keys.Deny(h.cfg.AuthLimiter, w, r); status != 0 {
		writeDetail(w, status, msg)
		return
	}
	// At most RenderConcurrency renders at once: each may use up to RenderMemory.
	wait := time.NewTimer(h.cfg.RenderTimeout)
	select {
	case h.renders <- struct{}{}:
		wait.Stop()
		defer func() { <-h.renders }()
	case <-wait.C:
		w.Header().Set("Retry-After", "5")
		writeDetail(w, http.StatusServiceUnavailable, "Too many pages are being rendered; try again shortly")
		return
	case <-r.Context().Done():
		wait.Stop()
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, h.cfg.MaxUpload)
	dir, err := os.MkdirTemp("", "quarry-ui-render-*")
	if err != nil {
		h.cfg.Logger.Error("ui: render: temp dir", "err", err)
		writeDetail(w, http.StatusInternalServerError, "Internal server error")
		return
	}
	defer os.RemoveAll(dir)

	pdfPath := filepath.Join(dir, "in.pdf")
	pageNo, dpi, err := readRenderForm(r, pdfPath)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			writeDetail(w, http.StatusRequestEntityTooLarge, "Document too large")
			return
		}
		writeDetail(w, http.StatusBadRequest, err.Error())
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), h.cfg.RenderTimeout)
	defer cancel()
	info, ok := h.pdfInfo(ctx, pdfPath, pageNo)
	if ok {
		if pageNo > info.pages {
			writeDetail(w, http.StatusBadRequest, fmt.Sprintf("page %d is out of range (the document has %d pages)", pageNo, info.pages))
			return
		}
		w.Header().Set("X-Page-Count", strconv.Itoa(info.pages))
	}
	out := filepath.Join(dir, "page")
	args := []string{"-png", "-singlefile", "-f", strconv.Itoa(pageNo), "-l", strconv.Itoa(pageNo)}
	if ok && info.w > 0 && info.h > 0 {
		dpi = capDPI(dpi, info.w, info.h, h.cfg.RenderMaxPixels)
		args = append(args, "-r", strconv.Itoa(dpi))
	} else {
		// The page size is unknown: bound the long side instead (scale-to overrides -r).
		args = append(args, "-scale-to", strconv.Itoa(int(math.Sqrt(float64(h.cfg.RenderMaxPixels)))))
	}
	cmd := h.command(ctx, dir, h.cfg.Pdftoppm, append(args, pdfPath, out)...)
	var stderr bytes.Buffer
	cmd.Stderr = &limitedWriter{w: &stderr, n: 4 << 10}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			writeDetail(w, http.StatusServiceUnavailable, "Rendering the page took too long")
			return
		}
		if errors.Is(err, exec.ErrNotFound) {
			writeDetail(w, http.StatusNotImplemented, "Page rendering needs pdftoppm (poppler-utils) on the server")
			return
		}
		h.cfg.Logger.Warn("ui: render: pdftoppm failed", "err", err, "stderr", stderr.String())
		writeDetail(w, http.StatusUnprocessableEntity, "The page could not be rendered: the file is not a readable PDF")
		return
	}
	png, err := os.ReadFile(out + ".png")
	if err != nil {
		writeDetail(w, http.StatusUnprocessableEntity, "The page could not be rendered")
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(png)
}

// readRenderForm streams the multipart body, writing the file part to path.
func readRenderForm(r *http.Request, path string) (page, dpi int, err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return 0, 0, fmt.Errorf("expected a multipart/form-data body: %w", err)
	}
	page, dpi = 1, defaultDPI
	gotFile := false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, 0, fmt.Errorf("read form: %w", err)
		}
		switch part.FormName() {
		case "file":
			f, err := os.Create(path)
			if err != nil {
				return 0, 0, fmt.Errorf("store upload: %w", err)
			}
			_, cerr := io.Copy(f, part)
			if err := f.Close(); cerr == nil {
				cerr = err
			}
			if cerr != nil {
				return 0, 0, fmt.Errorf("read file: %w", cerr)
			}
			gotFile = true
		case "page", "dpi":
			b, err := io.ReadAll(io.LimitReader(part, 32))
			if err != nil {
				return 0, 0, fmt.Errorf("read form: %w", err)
			}
			n, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil || n < 1 {
				return 0, 0, fmt.Errorf("%s must be a positive integer", part.FormName())
			}
			if part.FormName() == "page" {
				page = n
			} else {
				dpi = min(n, maxDPI)
			}
		}
		part.Close()
	}
	if !gotFile {
		return 0, 0, errors.New("no file: send the PDF as the \"file\" field")
	}
	return page, dpi, nil
}

// pageInfo is what pdfinfo says about a document and one of its pages.
type pageInfo struct {
	pages int
	w, h  float64 // the page's size in points, rotation applied
}

// pdfInfo asks pdfinfo (poppler-utils, next to pdftoppm) for the number of pages and the size of
// page n.
func (h *Handler) pdfInfo(ctx context.Context, pdf string, n int) (pageInfo, bool) {
	bin := "pdfinfo"
	if dir := filepath.Dir(h.cfg.Pdftoppm); dir != "." {
		bin = filepath.Join(dir, "pdfinfo")
	}
	// Without a page range pdfinfo reports page 1's size; a range beyond the last page fails,
	// so the range is asked only for a page that exists.
	info, ok := h.runPdfInfo(ctx, bin, pdf)
	if ok && n > 1 && n <= info.pages {
		if pi, ok := h.runPdfInfo(ctx, bin, "-f", strconv.Itoa(n), "-l", strconv.Itoa(n), pdf); ok {
			info.w, info.h = pi.w, pi.h
		} else {
			info.w, info.h = 0, 0
		}
	}
	return info, ok
}

func (h *Handler) runPdfInfo(ctx context.Context, bin string, args ...string) (pageInfo, bool) {
	out, err := h.command(ctx, filepath.Dir(args[len(args)-1]), bin, args...).Output()
	if err != nil {
		return pageInfo{}, false
	}
	var info pageInfo
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "Pages:"); ok {
			info.pages, _ = strconv.Atoi(strings.TrimSpace(rest))
			continue
		}
		// "Page size: 612 x 792 pts (letter)" or, with a range, "Page    3 size: …"
		if strings.HasPrefix(line, "Page ") && strings.Contains(line, "size:") {
			_, rest, _ := strings.Cut(line, "size:")
			var w, hh float64
			if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%g x %g", &w, &hh); err == nil {
				info.w, info.h = w, hh
			}
		}
	}
	return info, info.pages > 0
}

// capDPI lowers dpi so that a page of w×h points renders to at most maxPixels pixels: a
// 600-byte PDF can declare a 9000-point page, which at 200 dpi is 625 million pixels (2.4 GB).
func capDPI(dpi int, w, h float64, maxPixels int64) int {
	px := func(d int) float64 { return (w / 72 * float64(d)) * (h / 72 * float64(d)) }
	if px(dpi) <= float64(maxPixels) {
		return dpi
	}
	d := int(math.Floor(72 * math.Sqrt(float64(maxPixels)/(w*h))))
	return max(1, min(d, dpi))
}

// command builds a helper's command under the renderer's memory limit (prlimit, as the plugin
// host does for plugins), set to die with the server and, where the kernel has Landlock,
// confined to the request's own directory dir and the system's (childproc.Confine): it
// renders an untrusted PDF in the server's own name.
func (h *Handler) command(ctx context.Context, dir, name string, args ...string) *exec.Cmd {
	read := slices.Clone(childproc.SystemRead)
	if p, err := exec.LookPath(name); err == nil {
		read = append(read, p) // a poppler outside the system's directories
	}
	name, args = childproc.Limited(h.cfg.RenderMemory, 1<<30, name, args...)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = childproc.ConverterEnviron() // it renders untrusted bytes: no credentials
	childproc.DieWithParent(cmd)
	if err := childproc.Confine(cmd, childproc.Confinement{Read: read, Write: append([]string{dir}, childproc.SystemWrite...)}); err != nil {
		h.confineOnce.Do(func() { h.cfg.Logger.Warn("ui: render: pdftoppm runs unconfined", "err", err) })
	}
	return cmd
}

// limitedWriter keeps the first n bytes of a subprocess's stderr for the log.
type limitedWriter struct {
	w io.Writer
	n int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
