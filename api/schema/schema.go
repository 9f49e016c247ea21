// Package schema is the validation vocabulary of Quarry's HTTP APIs, shaped like the reference
// servers' pydantic v2 models: a field error and the 422 list of them, the quoted list of
// choices a literal error names, and truth values read in each of the reference's modes.
//
// It is a leaf (standard library only) so the partition API's schema (api/partitionapi), the
// platform API and every connector's config validation share one implementation without
// importing the engine.
package schema

import (
	"fmt"
	"strings"
)

// FieldError is one schema-validation failure, shaped like the reference's 422 list detail
// items (pydantic v2): type, loc, msg, input and sometimes ctx.
type FieldError struct {
	Type  string         `json:"type"`
	Loc   []string       `json:"loc"`
	Msg   string         `json:"msg"`
	Input any            `json:"input"`
	Ctx   map[string]any `json:"ctx,omitempty"`
}

// ValidationError lists every invalid field of one request.
type ValidationError struct{ Errors []FieldError }

func (e *ValidationError) Error() string {
	msgs := make([]string, len(e.Errors))
	for i, fe := range e.Errors {
		msgs[i] = fmt.Sprintf("%s: %s", fe.Loc[len(fe.Loc)-1], fe.Msg)
	}
	return strings.Join(msgs, "; ")
}

// Choices renders the allowed values of a literal as pydantic's messages do: 'a', 'b' or 'c'.
func Choices(choices []string) string {
	q := make([]string, len(choices))
	for i, c := range choices {
		q[i] = "'" + c + "'"
	}
	switch len(q) {
	case 0:
		return ""
	case 1:
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
