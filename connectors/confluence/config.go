package confluence

import (
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/quarrydocs/quarry/api/schema"
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
	Token string
	// OAuthToken is an OAuth 2.0 (3LO) access token: sent as a Bearer token, always through the
	// API gateway (it is not accepted by the site itself).
	OAuthToken string
	// CloudID routes every REST call through the API gateway
	// (https://api.atlassian.com/ex/confluence/{cloudId}/wiki/…), as scoped API tokens, service
	// accounts and OAuth tokens require; metadata URLs still name the site.
	CloudID string
	// ScopedToken asks for the gateway without a known CloudID: it is read from the site's
	// /_edge/tenant_info before the first call.
	ScopedToken bool
	// IncludeArchived also indexes archived pages (both flavours); by default only current ones.
	IncludeArchived bool
	// MediaHosts are the hosts an attachment download may be redirected to (the REST download
	// endpoint answers 302 with a signed URL on Atlassian's media service). Credentials are never
	// sent there. Default for Cloud: api.media.atlassian.com.
	MediaHosts    []string
	Cloud         bool
	ExtractImages bool
	ExtractFiles  bool
	// MaxInlineImageBytes bounds the images inlined into one page, all together (default
	// 64 MiB); images past it are skipped with a warning. Each image is bounded on its own
	// (32 MiB), but a page may show one attachment any number of times.
	MaxInlineImageBytes int
	// MaxSpaces caps the spaces listed when Spaces is empty.
	MaxSpaces int
	// MaxDocs caps the pages listed in each space.
	MaxDocs int
	// Spaces are space keys; empty means every space the user can see, up to MaxSpaces.
	Spaces []string

	// The fields below are not part of the API config.

	// HTTPClient replaces the default client (two-minute timeout). Its CheckRedirect is replaced
	// by the connector's own policy.
	HTTPClient *http.Client
	// GatewayURL replaces https://api.atlassian.com (tests point it at a fake).
	GatewayURL string
	// Retry bounds retries of 429, 5xx and network errors; zero values take the defaults.
	Retry RetryPolicy
	// Logger receives warnings (a skipped image); nil means slog.Default().
	Logger *slog.Logger
}

const (
	defaultMaxSpaces = 500
	defaultMaxDocs   = 150
)

var secretKeys = []string{"password", "api_token", "token", "oauth_token"}

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
		if b, ok := schema.JSONBool(out[k], schema.Pydantic); ok {
			out[k] = b
		} else if out[k] == nil {
			out[k] = false
		}
	}
	// Our own booleans are echoed only when given, normalised like the reference's.
	for _, k := range []string{"scoped_token", "include_archived"} {
		if b, ok := schema.JSONBool(out[k], schema.Pydantic); ok {
			out[k] = b
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
	var errs []schema.FieldError
	add := func(key, typ, msg string, input any, ctx map[string]any) {
		errs = append(errs, schema.FieldError{Type: typ, Loc: []string{"body", "config", key}, Msg: msg, Input: input, Ctx: ctx})
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
			if b, ok := schema.JSONBool(v, schema.Pydantic); ok {
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
	str("oauth_token", &c.OAuthToken)
	str("cloud_id", &c.CloudID)
	boolean("scoped_token", &c.ScopedToken)
	boolean("include_archived", &c.IncludeArchived)
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
				errs = append(errs, schema.FieldError{Type: "string_type", Loc: []string{"body", "config", "spaces", strconv.Itoa(i)}, Msg: "Input should be a valid string", Input: item})
				continue
			}
			if s = strings.TrimSpace(s); s != "" {
				c.Spaces = append(c.Spaces, s)
			}
		}
	}
	if v, ok := config["media_hosts"]; ok && v != nil {
		list, ok := v.([]any)
		if !ok {
			add("media_hosts", "list_type", "Input should be a valid list", v, nil)
		}
		for i, item := range list {
			s, ok := item.(string)
			if !ok || strings.ContainsAny(s, "/@ ") || s == "" {
				errs = append(errs, schema.FieldError{Type: "value_error", Loc: []string{"body", "config", "media_hosts", strconv.Itoa(i)}, Msg: "Value error, a media host is a host name (optionally with :port)", Input: item})
				continue
			}
			c.MediaHosts = append(c.MediaHosts, strings.ToLower(s))
		}
	}
	if c.CloudID != "" && !validCloudID(c.CloudID) {
		add("cloud_id", "value_error", "Value error, cloud_id is the site's cloud id (letters, digits and dashes), as /_edge/tenant_info reports it", c.CloudID, nil)
	}
	if len(errs) == 0 {
		// The auth rules of the reference connector, checked once the types are right, plus
		// the combinations that cannot work against a real site.
		basic := c.Username != "" && (c.Password != "" || c.APIToken != "")
		cloud := c.Cloud || isAtlassianHost(c.URL)
		switch {
		case c.OAuthToken != "" && (basic || c.Token != ""):
			add("oauth_token", "value_error", "Value error, oauth_token is exclusive with username/api_token/password and token", nil, nil)
		case c.OAuthToken != "" && !cloud:
			add("oauth_token", "value_error", "Value error, OAuth 2.0 tokens work only with Confluence Cloud (cloud: true)", nil, nil)
		case c.OAuthToken != "":
			// Valid: a Bearer token through the gateway.
		case cloud && c.Password != "" && c.APIToken == "":
			// Atlassian removed password Basic auth from Cloud REST APIs: it always answers 401.
			add("password", "value_error", "Value error, Confluence Cloud does not accept passwords for REST calls: give an api_token with the username", nil, nil)
		case (c.CloudID != "" || c.ScopedToken) && !cloud:
			add("cloud_id", "value_error", "Value error, cloud_id and scoped_token apply to Confluence Cloud only (cloud: true)", nil, nil)
		case c.Password != "" && c.APIToken != "":
			add("api_token", "value_error", "Value error, password and api_token are mutually exclusive: give one of them", nil, nil)
		case basic && c.Token != "":
			add("token", "value_error", "Value error, basic authentication (username with password or api_token) and token are mutually exclusive", nil, nil)
		case cloud && !basic:
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
		return Config{}, &schema.ValidationError{Errors: errs}
	}
	return c, nil
}

// isAtlassianHost reports whether a site URL is Atlassian-hosted, which the client treats as
// Cloud whatever the cloud flag says (as the reference client does).
func isAtlassianHost(raw string) bool {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return false
	}
	host := strings.ToLower(u.Hostname())
	return strings.HasSuffix(host, ".atlassian.net") || strings.HasSuffix(host, ".jira.com")
}

// validCloudID accepts what Atlassian issues (a UUID) and nothing that could change the
// gateway path it is pasted into.
func validCloudID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
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
