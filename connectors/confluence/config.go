package confluence

import (
	"encoding/json"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/engine"
)

// Config is a parsed Confluence source config (platform.md §1.10).
type Config struct {
	// URL is the site URL as configured (https://<site>.atlassian.net, or a Data Center base
	// with its context path).
	URL      string
	Username string
	Password string
	APIToken string
	// Token is a Data Center personal access token (sent as a Bearer token).
	Token         string
	Cloud         bool
	ExtractImages bool
	ExtractFiles  bool
	// MaxSpaces caps the spaces listed when Spaces is empty.
	MaxSpaces int
	// MaxDocs caps the pages listed in each space.
	MaxDocs int
	// Spaces are space keys; empty means every space the user can see, up to MaxSpaces.
	Spaces []string

	// HTTPClient replaces the default client (two-minute timeout); not part of the API config.
	HTTPClient *http.Client
}

const (
	defaultMaxSpaces = 500
	defaultMaxDocs   = 150
)

var secretKeys = []string{"password", "api_token", "token"}

// Defaults returns config with every key of the API's response schema present: unset strings
// and spaces as null, the booleans false, the two limits at their defaults.
func Defaults(config map[string]any) map[string]any {
	out := make(map[string]any, len(config)+11)
	for k, v := range config {
		out[k] = v
	}
	for _, k := range []string{"username", "password", "api_token", "token", "spaces"} {
		if _, ok := out[k]; !ok {
			out[k] = nil
		}
	}
	for _, k := range []string{"cloud", "extract_images", "extract_files"} {
		if b, ok := lenientBool(out[k]); ok {
			out[k] = b
		} else if out[k] == nil {
			out[k] = false
		}
	}
	for k, def := range map[string]int{"max_num_of_spaces": defaultMaxSpaces, "max_num_of_docs_from_each_space": defaultMaxDocs} {
		if n, ok := lenientInt(out[k]); ok {
			out[k] = n
		} else if out[k] == nil {
			out[k] = def
		}
	}
	return out
}

// Validate checks a Confluence config: the schema's types and bounds, then the connector's auth
// rules (exactly one of Basic with an API token, Basic with a password, or a personal access
// token; cloud requires Basic).
func Validate(config map[string]any) error {
	_, err := ParseConfig(config)
	return err
}

// ParseConfig validates config and returns it typed, with defaults applied.
func ParseConfig(config map[string]any) (Config, error) {
	if config == nil {
		config = map[string]any{}
	}
	c := Config{MaxSpaces: defaultMaxSpaces, MaxDocs: defaultMaxDocs}
	var errs []engine.FieldError
	add := func(key, typ, msg string, input any, ctx map[string]any) {
		errs = append(errs, engine.FieldError{Type: typ, Loc: []string{"body", "config", key}, Msg: msg, Input: input, Ctx: ctx})
	}
	str := func(key string, dst *string) bool {
		v, ok := config[key]
		if !ok || v == nil {
			return false
		}
		s, ok := v.(string)
		if !ok {
			add(key, "string_type", "Input should be a valid string", v, nil)
			return false
		}
		*dst = s
		return true
	}
	boolean := func(key string, dst *bool) {
		if v, ok := config[key]; ok && v != nil {
			if b, ok := lenientBool(v); ok {
				*dst = b
			} else {
				add(key, "bool_type", "Input should be a valid boolean", v, nil)
			}
		}
	}
	positive := func(key string, dst *int) {
		v, ok := config[key]
		if !ok || v == nil {
			return
		}
		n, ok := lenientInt(v)
		switch {
		case !ok:
			add(key, "int_type", "Input should be a valid integer", v, nil)
		case n < 1:
			add(key, "greater_than_equal", "Input should be greater than or equal to 1", v, map[string]any{"ge": 1})
		default:
			*dst = n
		}
	}
	if !str("url", &c.URL) {
		if v, ok := config["url"]; !ok || v == nil {
			add("url", "missing", "Field required", config, nil)
		}
	} else if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		add("url", "value_error", "Value error, url must be an http:// or https:// URL of the Confluence site", c.URL, nil)
	}
	str("username", &c.Username)
	str("password", &c.Password)
	str("api_token", &c.APIToken)
	str("token", &c.Token)
	boolean("cloud", &c.Cloud)
	boolean("extract_images", &c.ExtractImages)
	boolean("extract_files", &c.ExtractFiles)
	positive("max_num_of_spaces", &c.MaxSpaces)
	positive("max_num_of_docs_from_each_space", &c.MaxDocs)
	if v, ok := config["spaces"]; ok && v != nil {
		list, ok := v.([]any)
		if !ok {
			add("spaces", "list_type", "Input should be a valid list", v, nil)
		}
		for i, item := range list {
			s, ok := item.(string)
			if !ok {
				errs = append(errs, engine.FieldError{Type: "string_type", Loc: []string{"body", "config", "spaces", strconv.Itoa(i)}, Msg: "Input should be a valid string", Input: item})
				continue
			}
			if s = strings.TrimSpace(s); s != "" {
				c.Spaces = append(c.Spaces, s)
			}
		}
	}
	if len(errs) == 0 {
		// The auth rules of the reference connector, checked once the types are right.
		basic := c.Username != "" && (c.Password != "" || c.APIToken != "")
		switch {
		case c.Password != "" && c.APIToken != "":
			add("api_token", "value_error", "Value error, password and api_token are mutually exclusive: give one of them", nil, nil)
		case basic && c.Token != "":
			add("token", "value_error", "Value error, basic authentication (username with password or api_token) and token are mutually exclusive", nil, nil)
		case c.Cloud && !basic:
			add("cloud", "value_error", "Value error, cloud authentication requires username and API token (a personal access token works only with cloud: false)", c.Cloud, nil)
		case !basic && c.Token == "":
			if c.Username == "" {
				add("username", "value_error", "Value error, no form of auth provided: give username with api_token or password, or a personal access token in token", nil, nil)
			} else {
				add("api_token", "value_error", "Value error, no form of auth provided: give api_token or password with the username, or a personal access token in token", nil, nil)
			}
		}
	}
	if len(errs) > 0 {
		return Config{}, &engine.ValidationError{Errors: errs}
	}
	return c, nil
}

// lenientBool accepts what pydantic's lax mode accepts for a bool in JSON input.
func lenientBool(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case string:
		switch strings.ToLower(x) {
		case "0", "off", "f", "false", "n", "no":
			return false, true
		case "1", "on", "t", "true", "y", "yes":
			return true, true
		}
	case float64:
		if x == 0 || x == 1 {
			return x == 1, true
		}
	case int:
		if x == 0 || x == 1 {
			return x == 1, true
		}
	case json.Number:
		if f, err := x.Float64(); err == nil && (f == 0 || f == 1) {
			return f == 1, true
		}
	}
	return false, false
}

// lenientInt accepts integers, integral floats and numeric strings, as pydantic's lax mode does.
func lenientInt(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case string:
		n, err := strconv.Atoi(strings.TrimSpace(x))
		return n, err == nil
	default:
		return 0, false
	}
	if f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<31 {
		return 0, false
	}
	return int(f), true
}
