package engine

import (
	"fmt"

	"github.com/quarrydocs/quarry/contract"
)

// Kind classifies errors so the HTTP layer can map them to the reference's status codes. It is
// contract.Kind: formats, strategies and plugins return the same errors.
type Kind = contract.Kind

// The error kinds (see contract.Kind).
const (
	KindInternal      = contract.KindInternal
	KindUnsupported   = contract.KindUnsupported
	KindBadRequest    = contract.KindBadRequest
	KindUnprocessable = contract.KindUnprocessable
	KindUnavailable   = contract.KindUnavailable
)

// Error is an error with a Kind (contract.Error). Its message is the reference's detail text.
type Error = contract.Error

// Errorf builds an *Error of the given kind.
func Errorf(kind Kind, format string, args ...any) *Error {
	return contract.Errorf(kind, format, args...)
}

// UnsupportedError is the reference's answer for a type that cannot be partitioned.
func UnsupportedError(mime string) *Error {
	return &Error{Kind: KindUnsupported, Msg: fmt.Sprintf("File type %s is not supported.", mime)}
}
