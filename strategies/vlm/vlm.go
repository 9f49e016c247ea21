// Package vlm is the vlm strategy: each PDF page (rendered with poppler's pdftoppm) or image is
// sent to a vision-language model with a prompt asking for the page as HTML whose blocks carry
// the reference's element types as class names; the answer becomes elements through the HTML
// partitioner, with page_number set and no coordinates (partition-api.md §7.5).
//
// Providers (vlm_model_provider) and their models (vlm_model) are validated against the
// reference's documented pairs (§2.3); the clients live in the provider package. Pages run
// concurrently up to a per-provider limit shared by every request of the process; 429, 5xx and
// connection failures are retried with exponential backoff honouring Retry-After. A page that
// still fails fails the request with the provider's message, or with vlm_fallback=ocr_only is
// OCR'd by the ocr_only strategy instead (logged). Token usage and latency are logged per page.
// vlm_dry_run=true reports pages, requests and estimated tokens without calling anything.
// README.md lists every knob and environment variable.
package vlm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/element"
	_ "github.com/quarrydocs/quarry/formats/paged" // the PDF and image types it reads
	"github.com/quarrydocs/quarry/pdf"
	"github.com/quarrydocs/quarry/plugins/sdk"
	"github.com/quarrydocs/quarry/strategies/vlm/provider"
)

// Name is the strategy's registered name.
const Name = "vlm"

func init() {
	contract.RegisterStrategy(contract.Strategy{Name: Name, Partitioner: New(Config{}), Options: Options})
}

// Config configures a Strategy beyond what the environment says.
type Config struct {
	// HTTPClient carries provider requests (nil: a default client).
	HTTPClient *http.Client
	// Getenv reads configuration (nil: os.Getenv).
	Getenv func(string) string
	// RetryBase is the first retry delay, doubled per attempt (0: one second).
	RetryBase time.Duration
}

// Strategy is the vlm partitioner. One value serves every request of a process: it holds the
// per-provider limits on requests in flight, which are a property of the account, not of a
// request.
type Strategy struct {
	cfg    Config
	mu     sync.Mutex
	limits map[string]chan struct{}
}

var _ contract.Partitioner = (*Strategy)(nil)

// New returns a Strategy.
func New(cfg Config) *Strategy {
	if cfg.Getenv == nil {
		cfg.Getenv = os.Getenv
	}
	if cfg.RetryBase == 0 {
		cfg.RetryBase = time.Second
	}
	return &Strategy{cfg: cfg, limits: map[string]chan struct{}{}}
}

func (s *Strategy) limit(prov string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.limits[prov]
	if !ok {
		l = make(chan struct{}, providerConcurrency(prov, s.cfg.Getenv))
		s.limits[prov] = l
	}
	return l
}

// job is what the strategy knows about one document before any page is sent.
type job struct {
	prov, model string
	set         settings
	pages       int
	isPDF       bool
	sizes       [][2]float64 // PDF page sizes in points
	data        []byte
	mime        string
	lim         imageLimits
}

func (s *Strategy) prepare(ctx context.Context, doc *contract.Document, opts contract.Options) (*job, error) {
	prov, model, err := resolveModel(opts, s.cfg.Getenv)
	if err != nil {
		return nil, err
	}
	set, err := parseSettings(opts, prov, model, s.cfg.Getenv)
	if err != nil {
		return nil, err
	}
	data, err := doc.Bytes()
	if err != nil {
		return nil, fmt.Errorf("vlm: read document: %w", err)
	}
	j := &job{prov: prov, model: model, set: set, data: data, mime: doc.MIMEType, lim: limitsFor(prov, model)}
	if j.mime == "" {
		j.mime = http.DetectContentType(data)
	}
	j.isPDF = j.mime == "application/pdf"
	if !j.isPDF {
		if !strings.HasPrefix(j.mime, "image/") {
			return nil, contract.Errorf(contract.KindBadRequest, "vlm: the vlm strategy reads PDFs and images, not %s", j.mime)
		}
		j.pages = 1
		return j, nil
	}
	pd, err := pdf.Open(ctx, doc.Content, doc.Size)
	if err != nil {
		var inv *pdf.InvalidError
		if errors.Is(err, pdf.ErrEncrypted) || errors.As(err, &inv) {
			return nil, &contract.Error{Kind: contract.KindUnprocessable, Msg: err.Error(), Err: err}
		}
		return nil, err
	}
	j.pages = pd.NumPages()
	if set.maxPages > 0 && j.pages > set.maxPages && !set.dryRun {
		return nil, contract.Errorf(contract.KindUnprocessable,
			"vlm: the document has %d pages; this server sends at most %d pages to a model (%s)", j.pages, set.maxPages, EnvMaxPages)
	}
	for i := 1; i <= j.pages; i++ {
		w, h := pd.PageSize(i)
		j.sizes = append(j.sizes, [2]float64{w, h})
	}
	return j, nil
}

// Partition implements contract.Partitioner.
func (s *Strategy) Partition(ctx context.Context, doc *contract.Document, opts contract.Options, emit contract.Emit) error {
	j, err := s.prepare(ctx, doc, opts)
	if err != nil {
		return err
	}
	log := logger(ctx).With("strategy", Name, "provider", j.prov, "model", j.model)
	if j.set.dryRun {
		est := j.estimate()
		log.Info("vlm dry run", "pages", est.Pages, "requests", est.Requests, "estimated_input_tokens", est.InputTokens)
		return emitEstimate(est, emit)
	}
	if j.pages == 0 {
		return nil
	}
	client, err := provider.New(ctx, provider.Config{Provider: j.prov, HTTPClient: s.cfg.HTTPClient, Timeout: j.set.timeout, Getenv: s.cfg.Getenv})
	if err != nil {
		return clientError(err)
	}
	var pdfPath string
	if j.isPDF {
		if pdfPath, err = writeTemp(j.data); err != nil {
			return err
		}
		defer os.Remove(pdfPath)
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		elems []element.Element
		err   error
		done  chan struct{}
	}
	results := make([]*result, j.pages)
	for i := range results {
		results[i] = &result{done: make(chan struct{})}
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for i := range j.pages {
			select {
			case next <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	limit := s.limit(j.prov)
	workers := min(j.set.concurrency, j.pages)
	// The first page to fail stops the others at once; its error, not their cancellation, is
	// what the caller gets.
	var failMu sync.Mutex
	var failed error
	firstFailure := func() error {
		failMu.Lock()
		defer failMu.Unlock()
		return failed
	}
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				r := results[i]
				r.elems, r.err = s.page(ctx, j, client, limit, pdfPath, i+1, opts, log)
				if r.err != nil && ctx.Err() == nil {
					failMu.Lock()
					if failed == nil {
						failed = r.err
					}
					failMu.Unlock()
					cancel()
				}
				close(r.done)
			}
		})
	}
	defer wg.Wait()

	start := time.Now()
	for i, r := range results {
		select {
		case <-r.done:
		case <-ctx.Done():
			if err := firstFailure(); err != nil {
				return err
			}
			return ctx.Err()
		}
		if r.err != nil {
			if err := firstFailure(); err != nil {
				return err
			}
			return r.err
		}
		for _, e := range r.elems {
			if err := emit(e); err != nil {
				return err
			}
		}
		if opts.Bool(contract.KeyIncludePageBreaks, false) {
			pb := element.Element{Type: element.PageBreak}
			pb.Metadata.PageNumber = element.Int(i + 1)
			if err := emit(pb); err != nil {
				return err
			}
		}
		results[i] = nil
		sdk.ReportProgress(ctx, i+1, j.pages, Name)
	}
	log.Info("vlm document done", "pages", j.pages, "seconds", time.Since(start).Seconds())
	return nil
}

// logger is the request's logger. Options.Logger does not cross the plugin boundary, so in a
// plugin process (the host sets QUARRY_PLUGIN_HOST_PID) usage and latency go to the process's
// default logger, whose stderr the host collects.
func logger(ctx context.Context) *slog.Logger {
	if _, ok := contract.LoggerFrom(ctx); !ok && os.Getenv("QUARRY_PLUGIN_HOST_PID") != "" {
		return slog.Default()
	}
	return contract.Logger(ctx)
}

// page produces the elements of page n: render, ask with retries, convert; or fall back.
func (s *Strategy) page(ctx context.Context, j *job, client provider.Client, limit chan struct{}, pdfPath string, n int, opts contract.Options, log *slog.Logger) ([]element.Element, error) {
	var img provider.Image
	var err error
	if j.isPDF {
		sz := j.sizes[n-1]
		img, err = renderPage(ctx, pdfPath, n, j.set.dpi, sz[0], sz[1], j.lim)
	} else {
		img, err = prepareImage(ctx, j.data, j.mime, j.lim)
	}
	if err != nil {
		return nil, err
	}
	req := provider.Request{
		Model:     j.model,
		System:    systemPrompt,
		Prompt:    userPrompt(n, j.pages, opts.Values(contract.KeyLanguages)),
		Image:     img,
		MaxTokens: j.set.maxTokens,
	}
	start := time.Now()
	resp, attempts, err := s.generate(ctx, client, limit, req, j.set)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if j.set.fallback == "ocr_only" {
			log.Warn("vlm page failed, falling back to OCR", "page", n, "attempts", attempts, "error", err.Error())
			return s.ocrPage(ctx, img, n, opts)
		}
		return nil, pageError(n, err)
	}
	log.Info("vlm page", "page", n, "seconds", time.Since(start).Seconds(), "attempts", attempts,
		"input_tokens", resp.InputTokens, "output_tokens", resp.OutputTokens, "stop_reason", resp.StopReason,
		"image_bytes", len(img.Data))
	if resp.Truncated {
		log.Warn("vlm answer truncated at the token limit; the page may be incomplete", "page", n, "max_tokens", j.set.maxTokens)
	}
	return pageElements(ctx, resp.Text, n)
}

// generate sends req, retrying what a retry can fix. It waits for a slot of the provider's
// limit for each attempt, so a page backing off does not hold one.
func (s *Strategy) generate(ctx context.Context, client provider.Client, limit chan struct{}, req provider.Request, set settings) (*provider.Response, int, error) {
	for attempt := 0; ; attempt++ {
		select {
		case limit <- struct{}{}:
		case <-ctx.Done():
			return nil, attempt, ctx.Err()
		}
		resp, err := client.Generate(ctx, req)
		<-limit
		if err == nil {
			return resp, attempt + 1, nil
		}
		var ae *provider.APIError
		if !errors.As(err, &ae) || !ae.Retryable() || attempt >= set.maxRetries || ctx.Err() != nil {
			return nil, attempt + 1, err
		}
		wait := backoff(s.cfg.RetryBase, attempt)
		if ae.RetryAfter > 0 {
			wait = ae.RetryAfter
		}
		if wait > set.maxBackoff {
			if ae.RetryAfter > 0 {
				// The provider asks for a longer pause than a request should wait.
				return nil, attempt + 1, err
			}
			wait = set.maxBackoff
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, attempt + 1, ctx.Err()
		}
	}
}

// backoff is base·2^attempt with ±25 % jitter, so pages throttled together do not retry
// together.
func backoff(base time.Duration, attempt int) time.Duration {
	d := base << min(attempt, 10)
	return time.Duration(float64(d) * (0.75 + rand.Float64()/2))
}

// ocrPage partitions a page image with the ocr_only strategy.
func (s *Strategy) ocrPage(ctx context.Context, img provider.Image, n int, opts contract.Options) ([]element.Element, error) {
	p, ok := contract.LookupStrategy(contract.StrategyOCROnly)
	if !ok || p.Partitioner == nil {
		return nil, contract.Errorf(contract.KindInternal, "vlm: page %d failed and the ocr_only fallback is not installed", n)
	}
	ext := ".png"
	if img.MIME == "image/jpeg" {
		ext = ".jpg"
	}
	doc := contract.NewDocument(fmt.Sprintf("page-%d%s", n, ext), img.Data)
	doc.MIMEType = img.MIME
	o := opts.Clone()
	o[contract.KeyStrategy] = []string{contract.StrategyOCROnly}
	o[contract.KeyIncludePageBreaks] = []string{"false"}
	var out []element.Element
	err := p.Partitioner.Partition(ctx, doc, o, func(e element.Element) error {
		e.Metadata.PageNumber = element.Int(n)
		out = append(out, e)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("vlm: OCR fallback for page %d: %w", n, err)
	}
	return out, nil
}

// clientError maps a client construction failure: missing credentials are the server's
// configuration, not the caller's request.
func clientError(err error) error {
	var ce *provider.CredentialsError
	if errors.As(err, &ce) {
		return &contract.Error{Kind: contract.KindInternal, Msg: ce.Error(), Err: err}
	}
	return &contract.Error{Kind: contract.KindInternal, Msg: err.Error(), Err: err}
}

// pageError maps a provider failure to the API's error classes: throttling and outages are
// temporary (503), a rejected page is unprocessable (422), anything else is ours (500). The
// provider's own message is kept.
func pageError(n int, err error) error {
	msg := fmt.Sprintf("vlm: page %d: %v", n, err)
	var ae *provider.APIError
	if !errors.As(err, &ae) {
		var ee *contract.Error
		if errors.As(err, &ee) {
			return &contract.Error{Kind: ee.Kind, Msg: fmt.Sprintf("vlm: page %d: %s", n, ee.Msg), Err: err}
		}
		return &contract.Error{Kind: contract.KindInternal, Msg: msg, Err: err}
	}
	kind := contract.KindInternal
	switch {
	case ae.Status == http.StatusTooManyRequests || ae.Status == http.StatusRequestTimeout || ae.Status == 529 || ae.Status >= 500 || ae.Status == 0:
		kind = contract.KindUnavailable
	case ae.Status == http.StatusBadRequest || ae.Status == http.StatusRequestEntityTooLarge || ae.Status == http.StatusUnprocessableEntity:
		kind = contract.KindUnprocessable
	}
	return &contract.Error{Kind: kind, Msg: msg, Err: err}
}

// Estimate is the dry-run report.
type Estimate struct {
	Provider string `json:"provider"`
	Model    string `json:"model"`
	Pages    int    `json:"pages"`
	// Requests is one per page; MaxRequests counts every retry allowed.
	Requests    int `json:"requests"`
	MaxRequests int `json:"max_requests"`
	Concurrency int `json:"concurrency"`
	// InputTokens is an estimate of prompt and image tokens over all pages;
	// MaxOutputTokens is the answer limit over all pages.
	InputTokens     int    `json:"estimated_input_tokens"`
	MaxOutputTokens int    `json:"max_output_tokens"`
	DPI             int    `json:"dpi,omitempty"`
	MaxImageSide    int    `json:"max_image_side"`
	Fallback        string `json:"fallback"`
}

func (j *job) estimate() Estimate {
	e := Estimate{
		Provider: j.prov, Model: j.model, Pages: j.pages, Requests: j.pages,
		MaxRequests: j.pages * (1 + j.set.maxRetries), Concurrency: min(j.set.concurrency, max(j.pages, 1)),
		MaxOutputTokens: j.pages * j.set.maxTokens, MaxImageSide: j.lim.MaxSide, Fallback: j.set.fallback,
	}
	promptTokens := (len(systemPrompt) + 80) / 4
	for i := range j.pages {
		w, h := 0, 0
		if j.isPDF {
			e.DPI = int(j.set.dpi)
			w, h = fitBox(j.sizes[i][0]*j.set.dpi/72, j.sizes[i][1]*j.set.dpi/72, j.lim.MaxSide)
		} else {
			w, h = imageSize(j.data, j.lim.MaxSide)
		}
		e.InputTokens += promptTokens + imageTokens(j.prov, w, h)
	}
	return e
}

func emitEstimate(est Estimate, emit contract.Emit) error {
	raw, err := json.Marshal(est)
	if err != nil {
		return fmt.Errorf("vlm: encode estimate: %w", err)
	}
	e := element.Element{Type: element.DocumentData, Text: fmt.Sprintf(
		"vlm dry run: %d page(s), %d request(s) to %s model %s (up to %d with retries, %d at a time); about %d input tokens, at most %d output tokens; nothing was sent",
		est.Pages, est.Requests, est.Provider, est.Model, est.MaxRequests, est.Concurrency, est.InputTokens, est.MaxOutputTokens)}
	e.Metadata.Extra = map[string][]byte{"vlm_estimate": raw}
	return emit(e)
}
