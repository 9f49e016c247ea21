package openapi

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// Validate checks an OpenAPI 3.1 document's structure: version and info, operations with an
// operationId (unique), responses and a success status, path parameters declared for every
// {name} in the path, and every $ref resolving to a component. It returns every problem found.
func Validate(raw []byte) error {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("openapi: not JSON: %w", err)
	}
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		fail("openapi version %q is not 3.1.x", v)
	}
	info, _ := doc["info"].(map[string]any)
	if info["title"] == nil || info["version"] == nil {
		fail("info needs title and version")
	}
	schemas := map[string]any{}
	if comps, ok := doc["components"].(map[string]any); ok {
		schemas, _ = comps["schemas"].(map[string]any)
	}
	var walk func(where string, v any)
	walk = func(where string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok {
				name, found := strings.CutPrefix(ref, "#/components/schemas/")
				if !found || schemas[name] == nil {
					fail("%s: $ref %s does not resolve", where, ref)
				}
			}
			if t, ok := x["type"]; ok && !strings.Contains(where, "/securitySchemes/") {
				checkType(where, t, fail)
			}
			for k, c := range x {
				walk(where+"/"+k, c)
			}
		case []any:
			for i, c := range x {
				walk(fmt.Sprintf("%s/%d", where, i), c)
			}
		}
	}
	walk("#", doc)
	paths, _ := doc["paths"].(map[string]any)
	if len(paths) == 0 {
		fail("no paths")
	}
	ids := map[string]string{}
	param := regexp.MustCompile(`\{([^}]+)\}`)
	for path, item := range paths {
		if !strings.HasPrefix(path, "/") {
			fail("path %q does not start with /", path)
		}
		ops, _ := item.(map[string]any)
		for method, o := range ops {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				fail("%s: %q is not an HTTP method", path, method)
				continue
			}
			op, _ := o.(map[string]any)
			where := strings.ToUpper(method) + " " + path
			id, _ := op["operationId"].(string)
			if id == "" {
				fail("%s: no operationId", where)
			} else if prev, dup := ids[id]; dup {
				fail("%s: operationId %s already used by %s", where, id, prev)
			} else {
				ids[id] = where
			}
			responses, _ := op["responses"].(map[string]any)
			ok := false
			for code, r := range responses {
				if strings.HasPrefix(code, "2") {
					ok = true
				}
				if rm, _ := r.(map[string]any); rm["description"] == nil {
					fail("%s: response %s has no description", where, code)
				}
			}
			if !ok {
				fail("%s: no success response", where)
			}
			declared := map[string]bool{}
			params, _ := op["parameters"].([]any)
			for _, p := range params {
				pm, _ := p.(map[string]any)
				if pm["in"] == "path" {
					if pm["required"] != true {
						fail("%s: path parameter %v must be required", where, pm["name"])
					}
					declared[fmt.Sprint(pm["name"])] = true
				}
			}
			for _, m := range param.FindAllStringSubmatch(path, -1) {
				if !declared[m[1]] {
					fail("%s: path parameter %s is not declared", where, m[1])
				}
			}
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("openapi: %d problems: %s", len(problems), strings.Join(problems, "; "))
	}
	return nil
}

var jsonTypes = map[string]bool{"string": true, "number": true, "integer": true, "boolean": true, "array": true, "object": true, "null": true}

func checkType(where string, t any, fail func(string, ...any)) {
	switch x := t.(type) {
	case string:
		if !jsonTypes[x] && !strings.Contains(where, "/properties/type") {
			fail("%s: unknown type %q", where, x)
		}
	case []any:
		for _, e := range x {
			if s, _ := e.(string); !jsonTypes[s] {
				fail("%s: unknown type %v", where, e)
			}
		}
	case map[string]any:
		// a property named "type" (e.g. an element's type field), not a type keyword
	default:
		fail("%s: type is %T", where, t)
	}
}
