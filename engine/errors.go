package engine

import "fmt"

// Kind classifies errors so the HTTP layer can map them to the reference's status codes.
type Kind int

const (
	// KindInternal is an unexpected failure (HTTP 500).
	KindInternal Kind = iota
	// KindUnsupported is a file type without a partitioner (HTTP 400).
	KindUnsupported
	// KindBadRequest is a bad parameter value (HTTP 400).
	KindBadRequest
	// KindUnprocessable is a document that cannot be read: invalid or encrypted PDF, a DOCX
	// that is not a zip (HTTP 422).
	KindUnprocessable
	// KindUnavailable is a temporary overload (HTTP 503).
	KindUnavailable
)

// Error is an error with a Kind. Its message is the reference's detail text.
type Error struct {
	Kind Kind
	Msg  string
	Err  error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an *Error of the given kind.
func Errorf(kind Kind, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	return &Error{Kind: kind, Msg: err.Error(), Err: err}
}

// UnsupportedError is the reference's answer for a type that cannot be partitioned.
func UnsupportedError(mime string) *Error {
	return &Error{Kind: KindUnsupported, Msg: fmt.Sprintf("File type %s is not supported.", mime)}
}
