package opc

import (
	"context"
	"errors"
	"fmt"

	"github.com/quarrydocs/quarry/contract"
)

// InvalidError is the reference's answer for bytes that are not a package of the given format
// ("File is not a valid docx").
func InvalidError(format string, err error) error {
	return &contract.Error{Kind: contract.KindUnprocessable, Msg: "File is not a valid " + format, Err: err}
}

// WrapError types a failure met while reading a package (caps, corrupt streams, bad XML) as
// unprocessable; API errors and cancellations pass unchanged.
func WrapError(format, what string, err error) error {
	var ee *contract.Error
	if errors.As(err, &ee) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	msg := fmt.Sprintf("%s: %v", format, err)
	if what != "" {
		msg = fmt.Sprintf("%s: %s: %v", format, what, err)
	}
	return &contract.Error{Kind: contract.KindUnprocessable, Msg: msg, Err: err}
}

// MainPart returns the package's main part: the target of its officeDocument relationship, or
// def when there is none. A package without that part is not a valid file of the format.
func MainPart(pkg *Package, format, def string) (string, error) {
	main := def
	if rels, err := pkg.Rels(""); err == nil {
		if rel, ok := RelByType(rels, "/officeDocument"); ok && pkg.Has(rel.Target) {
			main = rel.Target
		}
	}
	if !pkg.Has(main) {
		return "", InvalidError(format, fmt.Errorf("%w: %s", ErrMissingPart, main))
	}
	return main, nil
}

// Degradable reports whether an error reading one part is damage to work around — a corrupt
// stream, broken markup — rather than a limit, a cancellation or a typed refusal, which stay
// errors: a document with one damaged part keeps what its other parts hold.
func Degradable(err error) bool {
	var ee *contract.Error
	return err != nil && !errors.As(err, &ee) && !errors.Is(err, context.Canceled) &&
		!errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrTooDeep)
}
