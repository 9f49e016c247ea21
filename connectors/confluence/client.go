package confluence

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/quarrydocs/quarry/internal/netguard"
)

// maxJSONBytes bounds one REST response: a page body is rarely more than a few MB.
const maxJSONBytes = 64 << 20

// defaultGateway is where scoped API tokens, service accounts and OAuth 2.0 tokens must call
// Confluence Cloud: https://api.atlassian.com/ex/confluence/{cloudId}/wiki/… ("Manage API tokens
// for your Atlassian account", support.atlassian.com/atlassian-account/docs/manage-api-tokens-for-your-atlassian-account).
const defaultGateway = "https://api.atlassian.com"

// defaultCloudMediaHost serves the signed URLs the REST attachment download endpoint redirects to
// on Cloud.
const defaultCloudMediaHost = "api.media.atlassian.com"

// RetryPolicy bounds how a request is retried after 429, 5xx or a network error. Atlassian
// documents 429 (and some transient 5xx, e.g. 503) with Retry-After in seconds, and asks for
// exponential backoff with jitter otherwise (developer.atlassian.com/cloud/confluence/rate-limiting/).
type RetryPolicy struct {
	// MaxAttempts is the number of tries of one request, first included (default 6).
	MaxAttempts int
	// MaxWait bounds the total time one request spends waiting between tries (default 2 min);
	// a Retry-After beyond what is left ends the retries at once.
	MaxWait time.Duration
	// BaseDelay is the first backoff when the server gives no Retry-After (default 1 s); it
	// doubles with each try up to MaxDelay (default 30 s), with jitter.
	BaseDelay, MaxDelay time.Duration
	// Sleep waits d or until ctx ends; tests replace it so nothing really sleeps.
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock Retry-After dates are read against.
	Now func() time.Time
}

func (p RetryPolicy) withDefaults() RetryPolicy {
	if p.MaxAttempts <= 0 {
		p.MaxAttempts = 6
	}
	if p.MaxWait <= 0 {
		p.MaxWait = 2 * time.Minute
	}
	if p.BaseDelay <= 0 {
		p.BaseDelay = time.Second
	}
	if p.MaxDelay <= 0 {
		p.MaxDelay = 30 * time.Second
	}
	if p.Sleep == nil {
		p.Sleep = sleepCtx
	}
	if p.Now == nil {
		p.Now = time.Now
	}
	return p
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// client speaks Confluence REST with the configured credentials.
type client struct {
	// base is the REST root: the configured URL (plus /wiki for Atlassian Cloud sites), or the
	// gateway's /ex/confluence/{cloudId}/wiki once the cloud id is known.
	base *url.URL
	// site is the configured site (with /wiki on Cloud): links in page markup are relative to it.
	site *url.URL
	// cloud selects the v2 REST API for spaces, pages and bodies (Data Center has only v1).
	cloud  bool
	http   *http.Client
	auth   string // the Authorization header value; never logged or put in errors
	origin string // scheme://host of the site
	// gateway is the gateway root when requests go through it ("" otherwise); discover is true
	// while its cloud id is still to be read from the site's /_edge/tenant_info.
	gateway  string
	discover bool
	mu       sync.Mutex // guards base and discover during discovery
	// allowed are the hosts credentials may be sent to (the site, or the gateway).
	allowed map[string]bool
	// media are hosts a download may be redirected to, without credentials.
	media []string
	retry RetryPolicy
	log   *slog.Logger
}

func newClient(cfg Config) (*client, error) {
	u, err := url.Parse(strings.TrimSpace(cfg.URL))
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("confluence: url %q is not an http(s) URL", cfg.URL)
	}
	u.RawQuery, u.Fragment, u.User = "", "", nil
	u.Path = strings.TrimRight(u.Path, "/")
	cloud := cfg.Cloud
	// As the reference client does: an Atlassian-hosted site is Cloud and serves under /wiki.
	if isAtlassianHost(u.String()) {
		cloud = true
		if !strings.Contains(u.Path, "/wiki") {
			u.Path += "/wiki"
		}
	}
	site := *u
	c := &client{base: u, site: &site, cloud: cloud, origin: u.Scheme + "://" + u.Host,
		retry: cfg.Retry.withDefaults(), log: cfg.Logger}
	if c.log == nil {
		c.log = slog.Default()
	}
	useGateway := cfg.CloudID != "" || cfg.ScopedToken || cfg.OAuthToken != ""
	if useGateway {
		if !cloud {
			return nil, errors.New("confluence: cloud_id, scoped_token and oauth_token need Confluence Cloud")
		}
		c.gateway = strings.TrimRight(firstNonEmpty(cfg.GatewayURL, defaultGateway), "/")
		g, err := url.Parse(c.gateway)
		if err != nil || g.Host == "" || (g.Scheme != "http" && g.Scheme != "https") {
			return nil, fmt.Errorf("confluence: gateway %q is not an http(s) URL", c.gateway)
		}
		c.allowed = map[string]bool{g.Host: true}
		if cfg.CloudID != "" {
			if !validCloudID(cfg.CloudID) {
				return nil, fmt.Errorf("confluence: cloud_id %q is not a cloud id", cfg.CloudID)
			}
			c.base = gatewayBase(g, cfg.CloudID)
		} else {
			c.discover = true
		}
	} else {
		c.allowed = map[string]bool{u.Host: true}
	}
	c.media = append(c.media, cfg.MediaHosts...)
	if cloud && len(cfg.MediaHosts) == 0 {
		c.media = []string{defaultCloudMediaHost}
	}
	hc := http.Client{Timeout: 2 * time.Minute}
	if cfg.HTTPClient != nil {
		hc = *cfg.HTTPClient
	}
	// The connector's policy (allowed hosts, credentials dropped across hosts) runs first, then
	// the given client's own (netguard's: redirect count, scheme, headers across origins).
	prev := hc.CheckRedirect
	hc.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if err := c.checkRedirect(req, via); err != nil {
			return err
		}
		if prev != nil {
			return prev(req, via)
		}
		return nil
	}
	c.http = &hc
	switch secret := firstNonEmpty(cfg.Password, cfg.APIToken); {
	case strings.TrimSpace(cfg.OAuthToken) != "":
		c.auth = "Bearer " + strings.TrimSpace(cfg.OAuthToken)
	case cfg.Username != "" && secret != "":
		req := &http.Request{Header: http.Header{}}
		req.SetBasicAuth(cfg.Username, secret)
		c.auth = req.Header.Get("Authorization")
	case strings.TrimSpace(cfg.Token) != "":
		c.auth = "Bearer " + strings.TrimSpace(cfg.Token)
	default:
		return nil, errors.New("confluence: no credentials: give username with api_token or password, token, or oauth_token")
	}
	return c, nil
}

func gatewayBase(g *url.URL, cloudID string) *url.URL {
	b := *g
	b.Path = strings.TrimRight(b.Path, "/") + "/ex/confluence/" + cloudID + "/wiki"
	return &b
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// checkRedirect follows a redirect only to a host credentials may go to or to an allowed media
// host, and never carries the Authorization header to another host (Go keeps it for any port of
// the same host name, which is not the same server).
func (c *client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= 5 {
		return errors.New("stopped after 5 redirects")
	}
	host := req.URL.Host
	if req.URL.Scheme != "https" && req.URL.Scheme != "http" {
		return fmt.Errorf("refusing redirect to a %s URL", req.URL.Scheme)
	}
	if via[0].URL.Scheme == "https" && req.URL.Scheme != "https" {
		return fmt.Errorf("refusing redirect from https to %s://%s", req.URL.Scheme, host)
	}
	if host != via[0].URL.Host {
		if !c.allowed[host] && !c.mediaHost(req.URL) {
			return fmt.Errorf("refusing redirect to %s (not the site, nor an allowed media host)", host)
		}
		req.Header.Del("Authorization")
		req.Header.Del("Cookie")
	}
	return nil
}

func (c *client) mediaHost(u *url.URL) bool {
	for _, m := range c.media {
		if strings.EqualFold(m, u.Host) || strings.EqualFold(m, u.Hostname()) {
			return true
		}
	}
	return false
}

// HTTPError is a failed Confluence request. Its message names the resource and the status,
// never a credential nor the upstream's body (untrusted text that may echo request headers).
type HTTPError struct {
	StatusCode int
	// What names the resource ("space \"DEV\"", "page 123").
	What string
	// Attempts is how many times the request was tried (more than one after retries).
	Attempts int
	// Download marks a file download: a 401 there is not a sign of wrong credentials (Cloud
	// refuses API tokens on the legacy /download path while the REST API accepts them).
	Download bool
}

func (e *HTTPError) Error() string {
	var s string
	switch {
	case e.StatusCode == http.StatusUnauthorized && e.Download:
		s = fmt.Sprintf("confluence: %s: the download was refused (401)", e.What)
	case e.StatusCode == http.StatusUnauthorized:
		s = fmt.Sprintf("confluence: %s: unauthorized (401): check username and api_token/password, token or oauth_token (scoped tokens need cloud_id or scoped_token)", e.What)
	case e.StatusCode == http.StatusForbidden:
		s = fmt.Sprintf("confluence: %s: forbidden (403): the user (or the token's scopes) lacks permission", e.What)
	case e.StatusCode == http.StatusNotFound:
		s = fmt.Sprintf("confluence: %s: not found (404), or not visible to this user", e.What)
	case e.StatusCode == http.StatusTooManyRequests:
		s = fmt.Sprintf("confluence: %s: rate limited (429)", e.What)
	default:
		s = fmt.Sprintf("confluence: %s: HTTP %d %s", e.What, e.StatusCode, http.StatusText(e.StatusCode))
	}
	if e.Attempts > 1 {
		s += fmt.Sprintf(" (gave up after %d attempts)", e.Attempts)
	}
	return s
}

// restBase returns the REST root, reading the cloud id from the site first when the gateway is
// asked for without one. A failed discovery is retried by the next call.
func (c *client) restBase(ctx context.Context) (*url.URL, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.discover {
		return c.base, nil
	}
	id, err := c.tenantCloudID(ctx)
	if err != nil {
		return nil, err
	}
	g, _ := url.Parse(c.gateway)
	c.base, c.discover = gatewayBase(g, id), false
	return c.base, nil
}

// tenantCloudID reads {"cloudId": "…"} from the site's /_edge/tenant_info, which Atlassian
// documents as the way to find a site's cloud id ("How to Find Your Atlassian Cloud Site's
// Cloud ID", support.atlassian.com/jira/kb/retrieve-my-atlassian-sites-cloud-id). It is public:
// no credentials are sent.
func (c *client) tenantCloudID(ctx context.Context) (string, error) {
	u, err := url.Parse(c.origin + "/_edge/tenant_info")
	if err != nil {
		return "", fmt.Errorf("confluence: tenant_info: %w", err)
	}
	resp, err := c.do(ctx, u, "the site's cloud id (/_edge/tenant_info)", false, false)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var v struct {
		CloudID string `json:"cloudId"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&v); err != nil {
		return "", fmt.Errorf("confluence: the site's cloud id (/_edge/tenant_info): decode: %w", err)
	}
	if !validCloudID(v.CloudID) {
		return "", fmt.Errorf("confluence: the site's /_edge/tenant_info gave no usable cloudId (%q); set cloud_id", v.CloudID)
	}
	return v.CloudID, nil
}

// resolve turns a path relative to the REST root (or an absolute URL on an allowed host) into a
// URL, refusing other hosts so credentials never leave the site or gateway.
func (c *client) resolve(ctx context.Context, ref string) (*url.URL, error) {
	if strings.HasPrefix(ref, "http://") || strings.HasPrefix(ref, "https://") {
		u, err := url.Parse(ref)
		if err != nil {
			return nil, fmt.Errorf("confluence: bad URL %q: %w", ref, err)
		}
		if !c.allowed[u.Host] {
			return nil, fmt.Errorf("confluence: refusing to send credentials to %s://%s", u.Scheme, u.Host)
		}
		return u, nil
	}
	base, err := c.restBase(ctx)
	if err != nil {
		return nil, err
	}
	// ref is already escaped (a next link, or a path built with url.PathEscape).
	u, err := url.Parse(strings.TrimRight(base.String(), "/") + "/" + strings.TrimLeft(ref, "/"))
	if err != nil {
		return nil, fmt.Errorf("confluence: bad path %q: %w", ref, err)
	}
	return u, nil
}

// get performs an authenticated GET, with retries, and returns the response for a 2xx status.
func (c *client) get(ctx context.Context, u *url.URL, what string) (*http.Response, error) {
	return c.do(ctx, u, what, true, false)
}

// download is get for file bytes: the response may come from a media host after a redirect,
// and a 401 is reported as a refused download rather than as bad credentials.
func (c *client) download(ctx context.Context, u *url.URL, what string) (*http.Response, error) {
	return c.do(ctx, u, what, true, true)
}

// do sends one GET, retrying 429, 500, 502, 503, 504 and network errors: after the server's
// Retry-After (seconds or an HTTP date) when given, else after a jittered exponential backoff,
// within the policy's attempt and total-wait bounds. ctx ends the waiting at once.
func (c *client) do(ctx context.Context, u *url.URL, what string, withAuth, isDownload bool) (*http.Response, error) {
	if withAuth && !c.allowed[u.Host] {
		return nil, fmt.Errorf("confluence: %s: refusing to send credentials to %s://%s", what, u.Scheme, u.Host)
	}
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
		if err != nil {
			return nil, fmt.Errorf("confluence: %s: %w", what, err)
		}
		if withAuth {
			req.Header.Set("Authorization", c.auth)
		}
		if !isDownload {
			req.Header.Set("Accept", "application/json")
		}
		resp, err := c.http.Do(req)
		var failure error
		var retryAfter time.Duration
		hasRetryAfter := false
		if err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("confluence: %s: %w", what, ctx.Err())
			}
			var ue *url.Error
			if errors.As(err, &ue) {
				err = ue.Err
			}
			failure = fmt.Errorf("confluence: %s: cannot reach %s: %w", what, u.Scheme+"://"+u.Host, err)
			if isPolicyError(err) {
				return nil, failure
			}
		} else {
			if resp.StatusCode/100 == 2 {
				return resp, nil
			}
			// Drained (bounded) so the connection is reused; never echoed.
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
			he := &HTTPError{StatusCode: resp.StatusCode, What: what, Attempts: attempt, Download: isDownload}
			if !retryable(resp.StatusCode) {
				return nil, he
			}
			failure = he
			retryAfter, hasRetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), c.retry.Now())
		}
		if attempt >= c.retry.MaxAttempts {
			return nil, failure
		}
		delay := retryAfter
		if !hasRetryAfter {
			delay = c.backoff(attempt)
		}
		if waited+delay > c.retry.MaxWait {
			if hasRetryAfter {
				return nil, fmt.Errorf("%w (Retry-After %s is beyond the retry budget of %s)", failure, delay.Round(time.Second), c.retry.MaxWait)
			}
			return nil, failure
		}
		c.log.Debug("confluence: retrying", "what", what, "attempt", attempt, "delay", delay)
		if err := c.retry.Sleep(ctx, delay); err != nil {
			return nil, fmt.Errorf("confluence: %s: %w", what, err)
		}
		waited += delay
	}
}

// isPolicyError reports a refused redirect or address: not transient, not worth retrying.
func isPolicyError(err error) bool {
	return errors.Is(err, netguard.ErrBlocked) || err != nil && strings.Contains(err.Error(), "refusing redirect")
}

func retryable(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusInternalServerError, http.StatusBadGateway,
		http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// backoff is the wait before try attempt+1 without Retry-After: BaseDelay doubled per try,
// capped at MaxDelay, drawn uniformly from its upper half so that parallel clients spread out.
func (c *client) backoff(attempt int) time.Duration {
	d := c.retry.BaseDelay << min(attempt-1, 20)
	if d <= 0 || d > c.retry.MaxDelay {
		d = c.retry.MaxDelay
	}
	return d/2 + rand.N(d/2+1)
}

// parseRetryAfter reads Retry-After as delta-seconds or an HTTP date (RFC 9110 §10.2.3).
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n < 0 {
			return 0, false
		}
		if n > 1<<31 {
			n = 1 << 31
		}
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		d := t.Sub(now)
		if d < 0 {
			d = 0
		}
		return d, true
	}
	return 0, false
}

// getJSON GETs ref (relative to the REST root) and decodes the JSON answer into out.
func (c *client) getJSON(ctx context.Context, ref, what string, out any) error {
	u, err := c.resolve(ctx, ref)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		resp, err := c.get(ctx, u, what)
		if err != nil {
			return err
		}
		dec := json.NewDecoder(io.LimitReader(resp.Body, maxJSONBytes))
		dec.UseNumber()
		err = dec.Decode(out)
		resp.Body.Close()
		if err == nil {
			return nil
		}
		err = fmt.Errorf("confluence: %s: decode response: %w", what, err)
		// A body cut short (connection reset, proxy timeout) is transient like a 503; a body
		// that is not the expected JSON is not.
		var ne net.Error
		if !(errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne)) || attempt >= c.retry.MaxAttempts {
			return err
		}
		if err := c.retry.Sleep(ctx, c.backoff(attempt)); err != nil {
			return fmt.Errorf("confluence: %s: %w", what, err)
		}
	}
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
		if p := c.site.Path; p != "" && strings.HasPrefix(next, p+"/") {
			return strings.TrimPrefix(next, p+"/")
		}
	}
	return strings.TrimLeft(next, "/")
}
