package schema

import (
	"encoding/json"
	"strings"
)

// BoolMode says which strings are truth values. The reference reads booleans more than one way
// (partition-api.md §2.1: "strict" and "lenient" form fields; pydantic's lax mode for JSON
// configs), and a caller must keep the set its reference accepts, so the mode is explicit.
type BoolMode int

const (
	// Pydantic is pydantic's coercion of a string to bool: true, 1, yes, on, t, y and false, 0,
	// no, off, f, n, in any case; anything else is not a truth value. Connector configs read
	// string values this way.
	Pydantic BoolMode = iota
	// PydanticTrimmed is Pydantic after dropping white space around the value: the partition
	// form's "strict bool" fields, whose values arrive as raw form text.
	PydanticTrimmed
	// TrueOnly is the partition form's "lenient bool": the lower-cased value compared to "true",
	// so "true" in any case is true and every other string is false ("1" included), never an
	// error.
	TrueOnly
	// Strict is pydantic's strict mode: only a JSON boolean is one, no string or number is. The
	// local connector, which has no reference to follow, reads its config this way.
	Strict
)

// ParseBool reads s as a truth value in mode m; ok is false when s is none in that mode
// (never for TrueOnly, always for Strict).
func ParseBool(s string, m BoolMode) (v, ok bool) {
	switch m {
	case TrueOnly:
		return strings.ToLower(s) == "true", true
	case Strict:
		return false, false
	case PydanticTrimmed:
		s = strings.TrimSpace(s)
	}
	switch strings.ToLower(s) {
	case "true", "1", "yes", "on", "t", "y":
		return true, true
	case "false", "0", "no", "off", "f", "n":
		return false, true
	}
	return false, false
}

// JSONBool reads a decoded JSON value as a bool in mode m: a boolean always; in Strict mode
// nothing else; otherwise also the numbers 0 and 1 (pydantic's lax mode; an int too, for configs
// built in Go rather than decoded) and a string as ParseBool reads it in m. Connector configs
// modelled on the reference's read with Pydantic.
func JSONBool(v any, m BoolMode) (b, ok bool) {
	var f float64
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		return ParseBool(x, m)
	case float64:
		f = x
	case int:
		f = float64(x)
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return false, false
		}
	default:
		return false, false
	}
	if m == Strict {
		return false, false
	}
	if f == 0 || f == 1 {
		return f == 1, true
	}
	return false, false
}
