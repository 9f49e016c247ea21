package server

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
)

// spoolMemory is the largest upload kept in memory; a larger one goes to a temporary file.
// The request path then holds the upload once per process that reads it, not once in the
// form, again in the PDF reader's buffer and a third time in the plugin's receive buffer (an
// 80 MB PDF: the server peaked at 240 MB, its plugin at 304 MB; with a file, the plugin opens
// it by path).
const spoolMemory = 1 << 20

// spool is one upload's bytes: in memory when small, else in a temporary file removed by
// close.
type spool struct {
	data []byte
	file *os.File
	size int64
}

// spoolDir is the directory one Server keeps its temporary upload files in:
// $TMPDIR/quarry-uploads-PID-RANDOM, made on the first upload that spills. A server killed
// mid-request (SIGKILL, OOM) cannot remove its files; with the PID in the directory's name the
// next server to start finds the directories of dead servers and removes them (sweepSpools).
// The zero value (or nil) puts files directly in $TMPDIR.
type spoolDir struct {
	once sync.Once
	path string
	err  error
}

// spoolDirPrefix starts every spool directory's name; spoolDirName matches it whole.
const spoolDirPrefix = "quarry-uploads-"

var spoolDirName = regexp.MustCompile(`^quarry-uploads-([0-9]+)-[0-9]+$`)

// create makes a temporary file for one upload, in the server's directory.
func (d *spoolDir) create() (*os.File, error) {
	if d == nil {
		return os.CreateTemp("", "quarry-upload-*")
	}
	d.once.Do(func() {
		d.path, d.err = os.MkdirTemp("", spoolDirPrefix+strconv.Itoa(os.Getpid())+"-")
	})
	if d.err != nil {
		return nil, d.err
	}
	return os.CreateTemp(d.path, "upload-*")
}

// remove removes the directory and whatever is left in it (a clean shutdown).
func (d *spoolDir) remove() {
	if d == nil || d.path == "" {
		return
	}
	os.RemoveAll(d.path)
}

// sweepSpools removes from base the spool directories of servers that are gone: only entries
// named like ours (quarry-uploads-PID-N), only real directories (a symbolic link is never
// followed nor removed), only ours (same owner; checked by ownedByUs), only when no process
// PID runs any more. Errors are logged, never fatal: a leftover costs disk, not correctness.
func sweepSpools(base string, log *slog.Logger) {
	entries, err := os.ReadDir(base)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		m := spoolDirName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		pid, err := strconv.Atoi(m[1])
		if err != nil || pid <= 0 || pid == self {
			continue
		}
		path := filepath.Join(base, e.Name())
		fi, err := os.Lstat(path)
		if err != nil || !fi.IsDir() || !ownedByUs(fi) || processAlive(pid) {
			continue
		}
		// RemoveAll removes symbolic links inside rather than following them.
		if err := os.RemoveAll(path); err != nil {
			log.Warn("cannot remove a dead server's temporary uploads", "dir", path, "err", err)
			continue
		}
		log.Info("removed a dead server's temporary uploads", "dir", path, "pid", pid)
	}
}

// newSpool reads r to its end into a spool, a file in dir when it spills. A reader longer
// than limit bytes (limit > 0) fails with errTooLarge once it passes limit, before the rest
// is read.
func newSpool(r io.Reader, limit int64, dir *spoolDir) (*spool, error) {
	if limit > 0 {
		r = io.LimitReader(r, limit+1)
	}
	// Small uploads are the common case: the buffer grows with what comes, up to the spill.
	var head bytes.Buffer
	n, err := io.CopyN(&head, r, spoolMemory+1)
	if err == io.EOF {
		if limit > 0 && n > limit {
			return nil, errTooLarge
		}
		return &spool{data: head.Bytes(), size: n}, nil
	}
	if err != nil {
		return nil, err
	}
	f, err := dir.create()
	if err != nil {
		return nil, &spoolError{err}
	}
	s := &spool{file: f}
	if _, err := f.Write(head.Bytes()); err != nil {
		s.close()
		return nil, &spoolError{err}
	}
	rest, err := io.Copy(writeErrors{f}, r)
	if err != nil {
		s.close()
		var we *writeError
		if errors.As(err, &we) {
			return nil, &spoolError{we.err}
		}
		return nil, err
	}
	s.size = n + rest
	if limit > 0 && s.size > limit {
		s.close()
		return nil, errTooLarge
	}
	return s, nil
}

// spoolError is a failure to store an upload (a full disk): the server's fault, not the
// client's.
type spoolError struct{ err error }

func (e *spoolError) Error() string { return "store the upload in a temporary file: " + e.err.Error() }
func (e *spoolError) Unwrap() error { return e.err }

// writeErrors marks the temporary file's write errors, so that io.Copy's error says whose
// side failed: the client's body or the disk.
type writeErrors struct{ w io.Writer }

type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }

func (w writeErrors) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}

// content is the spool as the engine's document content: the temporary file itself (which
// the plugin host hands to a plugin by path), or the bytes.
func (s *spool) content() (io.ReaderAt, int64) {
	if s.file != nil {
		return s.file, s.size
	}
	return bytes.NewReader(s.data), s.size
}

// reader reads the spool from its start.
func (s *spool) reader() io.Reader {
	r, n := s.content()
	return io.NewSectionReader(r, 0, n)
}

// close removes the temporary file, if any.
func (s *spool) close() {
	if s == nil || s.file == nil {
		return
	}
	s.file.Close()
	os.Remove(s.file.Name())
	s.file = nil
}
