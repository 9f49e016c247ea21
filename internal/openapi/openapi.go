// Package openapi derives OpenAPI 3.1 schemas from the Go types handlers encode and decode, and
// assembles operations into one document, so the API description is generated from the same
// definitions the server uses and cannot drift from them.
package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"time"
)

// Components collects the named schemas a document refers to.
type Components map[string]any

// Schema returns the JSON schema of v's type: named structs become a $ref to a component
// (added to c), pointers are nullable, slices arrays, maps objects; json tags give the names,
// and fields without omitempty are required.
func (c Components) Schema(v any) map[string]any {
	return c.schema(reflect.TypeOf(v))
}

var timeType = reflect.TypeOf(time.Time{})

func (c Components) schema(t reflect.Type) map[string]any {
	if t == nil {
		return map[string]any{}
	}
	switch t.Kind() {
	case reflect.Pointer:
		inner := c.schema(t.Elem())
		if typ, ok := inner["type"].(string); ok {
			out := clone(inner)
			out["type"] = []any{typ, "null"}
			return out
		}
		return map[string]any{"anyOf": []any{inner, map[string]any{"type": "null"}}}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": c.schema(t.Elem())}
	case reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{"type": "object", "additionalProperties": true}
		}
		return map[string]any{"type": "object", "additionalProperties": c.schema(t.Elem())}
	case reflect.Interface:
		return map[string]any{}
	case reflect.Struct:
		if t == timeType {
			return map[string]any{"type": "string", "format": "date-time"}
		}
		if t.Name() == "" {
			return c.object(t)
		}
		name := t.Name()
		if _, done := c[name]; !done {
			c[name] = map[string]any{} // placeholder against recursion
			c[name] = c.object(t)
		}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	return map[string]any{}
}

func (c Components) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		s := c.schema(f.Type)
		if doc := f.Tag.Get("doc"); doc != "" {
			s = clone(s)
			if _, isRef := s["$ref"]; isRef {
				s = map[string]any{"allOf": []any{s}, "description": doc}
			} else {
				s["description"] = doc
			}
		}
		if ex := f.Tag.Get("example"); ex != "" {
			var v any
			if json.Unmarshal([]byte(ex), &v) == nil {
				s = clone(s)
				s["examples"] = []any{v}
			}
		}
		props[name] = s
		if !strings.Contains(opts, "omitempty") && f.Tag.Get("required") != "false" {
			required = append(required, name)
		}
	}
	out := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

func clone(m map[string]any) map[string]any {
	out := make(map[string]any, len(m)+1)
	for k, v := range m {
		out[k] = v
	}
	return out
}
