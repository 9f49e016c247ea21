package confluence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// maxJSONBytes bounds one REST response: a page body is rarely more than a few MB.
const maxJSONBytes = 64 << 20

// client speaks Confluence REST with the configured credentials.
type client struct {
	// base is the REST root: the configured URL, plus /wiki for Atlassian Cloud sites.
	base *url.URL
	// cloud selects the v2 REST API for spaces, pages and bodies (Data Center has only v1).
	cloud  bool
	http   *http.Client
	auth   string // the Authorization header value; never logged or put in errors
	origin string // scheme://host of the configured URL: the only host credentials go to
}

func newClient(cfg Config) (*client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("confluence: url %q is not an http(s) URL", cfg.URL)
	}
	u.RawQuery, u.Fragment = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	cloud := cfg.Cloud
	// As the reference client does: an Atlassian-hosted site is Cloud and serves under /wiki.
	host := strings.ToLower(u.Hostname())
	if strings.Contains(host, "atlassian.net") || strings.Contains(host, "jira.com") {
		cloud = true
		if !strings.Contains(u.Path, "/wiki") {
			u.Path += "/wiki"
		}
	}
	c := &client{base: u, cloud: cloud, http: cfg.HTTPClient, origin: u.Scheme + "://" + u.Host}
	if c.http == nil {
		c.http = &http.Client{Timeout: 2 * time.Minute}
	}
	switch secret := firstNonEmpty(cfg.Password, cfg.APIToken); {
	case cfg.Username != "" && secret != "":
		req := &http.Request{Header: http.Header{}}
		req.SetBasicAuth(cfg.Username, secret)
		c.auth = req.Header.Get("Authorization")
	case strings.TrimSpace(cfg.Token) != "":
		c.auth = "Bearer " + strings.TrimSpace(cfg.Token)
	default:
		return nil, errors.New("confluence: no credentials: give username with api_token or password, or token")
	}
	return c, nil
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// HTTPError is a failed Confluence request. Its message names the resource, never a credential.
type HTTPError struct {
	StatusCode int
	// What names the resource ("space \"DEV\"", "page 123").
	What    string
	Message string
}

func (e *HTTPError) Error() string {
	switch e.StatusCode {
	case http.StatusUnauthorized:
		return fmt.Sprintf("confluence: %s: unauthorized (401): check username and api_token/password, or token", e.What)
	case http.StatusForbidden:
		return fmt.Sprintf("confluence: %s: forbidden (403): the user lacks permission%s", e.What, suffix(e.Message))
	case http.StatusNotFound:
		return fmt.Sprintf("confluence: %s: not found (404), or not visible to this user%s", e.What, suffix(e.Message))
	}
	return fmt.Sprintf("confluence: %s: HTTP %d%s", e.What, e.StatusCode, suffix(e.Message))
}

func suffix(msg string) string {
	if msg == "" {
		return ""
	}
	return ": " + msg
}

// resolve turns a path relative to the REST root (or an absolute URL on the site) into a URL,
// refusing other hosts so credentials never leave the configured site.
func (c *client) resolve(ref string) (*url.URL, error) {
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		u, err := url.Parse(ref)
		if err != nil {
			return nil, fmt.Errorf("confluence: bad URL %q: %w", ref, err)
		}
		if u.Scheme+"://"+u.Host != c.origin {
			return nil, fmt.Errorf("confluence: refusing to send credentials to %s (configured site is %s)", u.Scheme+"://"+u.Host, c.origin)
		}
		return u, nil
	}
	// ref is already escaped (a next link, or a path built with url.PathEscape).
	u, err := url.Parse(strings.TrimRight(c.base.String(), "/") + "/" + strings.TrimLeft(ref, "/"))
	if err != nil {
		return nil, fmt.Errorf("confluence: bad path %q: %w", ref, err)
	}
	return u, nil
}

// get performs an authenticated GET and returns the response for a 2xx status.
func (c *client) get(ctx context.Context, u *url.URL, what string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("confluence: %s: %w", what, err)
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("confluence: %s: %w", what, ctx.Err())
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("confluence: %s: cannot reach %s: %v", what, c.origin, err)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return nil, &HTTPError{StatusCode: resp.StatusCode, What: what, Message: errorMessage(resp, body)}
	}
	return resp, nil
}

// getJSON GETs ref (relative to the REST root) and decodes the JSON answer into out.
func (c *client) getJSON(ctx context.Context, ref, what string, out any) error {
	u, err := c.resolve(ref)
	if err != nil {
		return err
	}
	resp, err := c.get(ctx, u, what)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(io.LimitReader(resp.Body, maxJSONBytes))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("confluence: %s: decode response: %w", what, err)
	}
	return nil
}

// errorMessage extracts the server's explanation: v1 bodies carry "message", v2 bodies an
// "errors" list with title and detail. Non-JSON bodies (a proxy's HTML page) are not echoed.
func errorMessage(resp *http.Response, body []byte) string {
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt != "application/json" {
		return ""
	}
	var v struct {
		Message string `json:"message"`
		Errors  []struct {
			Title  string `json:"title"`
			Detail any    `json:"detail"`
		} `json:"errors"`
	}
	if json.Unmarshal(body, &v) != nil {
		return ""
	}
	msg := v.Message
	if msg == "" && len(v.Errors) > 0 {
		msg = v.Errors[0].Title
		if d, ok := v.Errors[0].Detail.(string); ok && d != "" {
			msg += " (" + d + ")"
		}
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// nextRef turns a pagination link into a path relative to the REST root. v1 links are relative
// to _links.base, which already holds the context path; v2 links start with the context path
// ("/wiki/api/v2/pages?cursor=…"), which the reference strips up to and including "/wiki/".
func (c *client) nextRef(next string, v2 bool) string {
	if next == "" {
		return ""
	}
	if strings.HasPrefix(next, "http://") || strings.HasPrefix(next, "https://") {
		return next
	}
	if v2 {
		if i := strings.Index(next, "/wiki/"); i >= 0 {
			return next[i+len("/wiki/"):]
		}
		// A Data Center-style context (or none): drop the configured base path if repeated.
		if p := c.base.Path; p != "" && strings.HasPrefix(next, p+"/") {
			return strings.TrimPrefix(next, p+"/")
		}
	}
	return strings.TrimLeft(next, "/")
}
