package server

import (
	"bytes"
	"errors"
	"io"
	"os"
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

// newSpool reads r to its end into a spool. A reader longer than limit bytes (limit > 0)
// fails with errTooLarge once it passes limit, before the rest is read.
func newSpool(r io.Reader, limit int64) (*spool, error) {
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
	f, err := os.CreateTemp("", "quarry-upload-*")
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
