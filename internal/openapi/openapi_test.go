package openapi

import (
	"encoding/json"
	"strings"
	"testing"
)

type inner struct {
	N int `json:"n"`
}

type sample struct {
	Name   string         `json:"name" doc:"a name" example:"\"x\""`
	Opt    *string        `json:"opt"`
	Maybe  string         `json:"maybe,omitempty"`
	Items  []inner        `json:"items"`
	Config map[string]any `json:"config"`
	Ptr    *inner         `json:"ptr"`
	Skip   string         `json:"-"`
}

func TestSchemaFromTypes(t *testing.T) {
	c := Components{}
	s := c.Schema(sample{})
	if s["$ref"] != "#/components/schemas/sample" {
		t.Fatalf("ref %v", s)
	}
	obj := c["sample"].(map[string]any)
	props := obj["properties"].(map[string]any)
	if _, ok := props["Skip"]; ok || len(props) != 6 {
		t.Errorf("properties %v", props)
	}
	b, _ := json.Marshal(obj)
	for _, want := range []string{`"required":["name","opt","items","config","ptr"]`, `"type":["string","null"]`, `"description":"a name"`, `"examples":["x"]`,
		`"items":{"$ref":"#/components/schemas/inner"}`, `"anyOf":[{"$ref":"#/components/schemas/inner"},{"type":"null"}]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s: %s", want, b)
		}
	}
	if c["inner"] == nil {
		t.Error("inner not a component")
	}
}

func TestValidateFindsProblems(t *testing.T) {
	bad := `{"openapi":"3.0.0","info":{},"paths":{"/a/{id}":{"get":{"operationId":"x","responses":{"404":{"description":"no"}}},
	"post":{"operationId":"x","responses":{"200":{"description":"ok","content":{"application/json":{"schema":{"$ref":"#/components/schemas/Nope"}}}}}}},
	"b":{"fetch":{}}}}`
	err := Validate([]byte(bad))
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"version", "title and version", "no success response", "already used", "does not resolve", "path parameter id is not declared", "does not start with /", "not an HTTP method"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	good := `{"openapi":"3.1.0","info":{"title":"t","version":"1"},"paths":{"/a/{id}":{"get":{"operationId":"x",
	"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],"responses":{"200":{"description":"ok"}}}}}}`
	if err := Validate([]byte(good)); err != nil {
		t.Error(err)
	}
}
