package vlm

import (
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/strategies/vlm/provider"
)

// Request knobs, read as keys (engine.Options.Extra on the host) (form fields of the same name on the server).
// None of them can change where requests go or which credentials they carry: base URLs and
// credentials come from the environment only.
const (
	// ExtraDryRun ("true") reports pages, requests and an estimate of tokens without
	// calling the provider or rendering pages.
	ExtraDryRun = "vlm_dry_run"
	// ExtraFallback is "fail" (default: a page that still fails after retries fails the
	// request with the provider's message) or "ocr_only" (the page is OCR'd instead, logged).
	ExtraFallback = "vlm_fallback"
	// ExtraDPI is the rendering resolution of PDF pages (default 200), before the
	// provider's size cap.
	ExtraDPI = "vlm_dpi"
	// ExtraConcurrency lowers the number of pages in flight for this request (never above
	// the provider's limit).
	ExtraConcurrency = "vlm_concurrency"
	// ExtraMaxRetries is the number of retries after a 429, 5xx or connection failure
	// (default 4).
	ExtraMaxRetries = "vlm_max_retries"
	// ExtraMaxTokens bounds each answer (default by model).
	ExtraMaxTokens = "vlm_max_tokens"
	// KeyModelProvider and KeyModel are the API's vlm_model_provider and vlm_model.
	KeyModelProvider = "vlm_model_provider"
	KeyModel         = "vlm_model"
)

// Options are the keys the strategy declares: the API's two vlm parameters and its own knobs.
var Options = []contract.KeySpec{
	{Key: KeyModelProvider, Kind: contract.String, Help: "vlm: provider", Since: 2},
	{Key: KeyModel, Kind: contract.String, Help: "vlm: model", Since: 2},
	{Key: ExtraDryRun, Kind: contract.Bool, Help: "vlm: report pages, requests and estimated tokens without calling the provider", Since: 2},
	{Key: ExtraFallback, Kind: contract.String, Help: "vlm: fail (default) or ocr_only for a page that still fails after retries", Since: 2},
	{Key: ExtraDPI, Kind: contract.Int, Help: "vlm: rendering resolution of PDF pages (default 200)", Since: 2},
	{Key: ExtraConcurrency, Kind: contract.Int, Help: "vlm: pages in flight for this request", Since: 2},
	{Key: ExtraMaxRetries, Kind: contract.Int, Help: "vlm: retries after a 429, 5xx or connection failure (default 4)", Since: 2},
	{Key: ExtraMaxTokens, Kind: contract.Int, Help: "vlm: bound on each answer's tokens", Since: 2},
}

// Environment variables.
const (
	// EnvConcurrency sets the number of requests in flight per provider in this process
	// (default 4; 8 for OpenAI and Gemini).
	EnvConcurrency = "QUARRY_VLM_CONCURRENCY"
	// EnvTimeout bounds one provider request (Go duration, default 5m).
	EnvTimeout = "QUARRY_VLM_TIMEOUT"
	// EnvMaxPages refuses documents with more pages (a cost guard; default unlimited).
	EnvMaxPages = "QUARRY_VLM_MAX_PAGES"
)

type settings struct {
	dryRun      bool
	fallback    string
	dpi         float64
	concurrency int
	maxRetries  int
	maxTokens   int
	maxPages    int
	timeout     time.Duration
	// backoff is the first retry delay, doubled each time (tests shorten it).
	backoff    time.Duration
	maxBackoff time.Duration
}

func defaultConcurrency(prov string) int {
	switch prov {
	case provider.OpenAI, provider.Google, provider.VertexAI:
		return 8
	}
	return 4
}

// providerConcurrency is the process-wide limit for prov.
func providerConcurrency(prov string, getenv func(string) string) int {
	if n, err := strconv.Atoi(strings.TrimSpace(getenv(EnvConcurrency))); err == nil && n > 0 {
		return n
	}
	return defaultConcurrency(prov)
}

// defaultMaxTokens leaves room for a dense page of HTML within each model's output limit.
func defaultMaxTokens(model string) int {
	switch {
	case strings.Contains(model, "llama3-2"):
		return 2048
	case strings.Contains(model, "claude-3-"):
		return 4096
	case strings.Contains(model, "nova"):
		return 5000
	case strings.HasPrefix(model, "gpt-5"):
		// Reasoning tokens count against the same limit.
		return 32000
	}
	return 16000
}

// knobs reads the request knobs: the request's keys first, else the environment variable of the
// same name in upper case with a QUARRY_ prefix (QUARRY_VLM_DRY_RUN…), which is how the CLI
// and a whole server are configured.
func knobs(opts contract.Options, getenv func(string) string) map[string]string {
	out := map[string]string{}
	for _, k := range []string{ExtraDryRun, ExtraFallback, ExtraDPI, ExtraConcurrency, ExtraMaxRetries, ExtraMaxTokens} {
		if opts.Has(k) {
			out[k] = opts.Get(k)
		} else if v := getenv("QUARRY_" + strings.ToUpper(k)); v != "" {
			out[k] = v
		}
	}
	return out
}

func parseSettings(opts contract.Options, prov, model string, getenv func(string) string) (settings, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	s := settings{
		fallback:   "fail",
		dpi:        200,
		maxRetries: 4,
		maxTokens:  defaultMaxTokens(model),
		timeout:    5 * time.Minute,
		backoff:    time.Second,
		maxBackoff: time.Minute,
	}
	s.concurrency = providerConcurrency(prov, getenv)
	if v := strings.TrimSpace(getenv(EnvTimeout)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return s, contract.Errorf(contract.KindInternal, "vlm: %s=%q is not a duration", EnvTimeout, v)
		}
		s.timeout = d
	}
	if v := strings.TrimSpace(getenv(EnvMaxPages)); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return s, contract.Errorf(contract.KindInternal, "vlm: %s=%q is not a page count", EnvMaxPages, v)
		}
		s.maxPages = n
	}
	x := knobs(opts, getenv)
	if v, ok := x[ExtraDryRun]; ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return s, contract.Errorf(contract.KindBadRequest, "%s must be true or false, got %q", ExtraDryRun, v)
		}
		s.dryRun = b
	}
	if v, ok := x[ExtraFallback]; ok {
		switch f := strings.ToLower(strings.TrimSpace(v)); f {
		case "", "fail", "none":
			s.fallback = "fail"
		case "ocr_only", "ocr":
			s.fallback = "ocr_only"
		default:
			return s, contract.Errorf(contract.KindBadRequest, "%s must be one of ['fail', 'ocr_only'], got %q", ExtraFallback, v)
		}
	}
	intIn := func(key string, lo, hi int, dst *int) error {
		v, ok := x[key]
		if !ok || strings.TrimSpace(v) == "" {
			return nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < lo || n > hi {
			return contract.Errorf(contract.KindBadRequest, "%s must be an integer from %d to %d, got %q", key, lo, hi, v)
		}
		*dst = n
		return nil
	}
	dpi := int(s.dpi)
	if err := intIn(ExtraDPI, 36, 600, &dpi); err != nil {
		return s, err
	}
	s.dpi = float64(dpi)
	conc := s.concurrency
	if err := intIn(ExtraConcurrency, 1, 64, &conc); err != nil {
		return s, err
	}
	s.concurrency = min(conc, s.concurrency)
	if err := intIn(ExtraMaxRetries, 0, 10, &s.maxRetries); err != nil {
		return s, err
	}
	if err := intIn(ExtraMaxTokens, 256, 128000, &s.maxTokens); err != nil {
		return s, err
	}
	return s, nil
}
