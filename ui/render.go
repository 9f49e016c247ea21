package ui

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
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
	if !h.authorized(r) {
		writeDetail(w, http.StatusUnauthorized, "API key is invalid")
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
	if n, ok := h.pageCount(ctx, pdfPath); ok {
		if pageNo > n {
			writeDetail(w, http.StatusBadRequest, fmt.Sprintf("page %d is out of range (the document has %d pages)", pageNo, n))
			return
		}
		w.Header().Set("X-Page-Count", strconv.Itoa(n))
	}
	out := filepath.Join(dir, "page")
	cmd := exec.CommandContext(ctx, h.cfg.Pdftoppm, "-png", "-singlefile", "-f", strconv.Itoa(pageNo), "-l", strconv.Itoa(pageNo),
		"-r", strconv.Itoa(dpi), pdfPath, out)
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

// pageCount asks pdfinfo (poppler-utils, next to pdftoppm) for the number of pages.
func (h *Handler) pageCount(ctx context.Context, pdf string) (int, bool) {
	bin := "pdfinfo"
	if dir := filepath.Dir(h.cfg.Pdftoppm); dir != "." {
		bin = filepath.Join(dir, "pdfinfo")
	}
	out, err := exec.CommandContext(ctx, bin, pdf).Output()
	if err != nil {
		return 0, false
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "Pages:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(rest))
			return n, err == nil && n > 0
		}
	}
	return 0, false
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
