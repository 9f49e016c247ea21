package chunking

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Embedder turns texts into vectors. by_similarity compares neighbouring elements by the cosine
// of their vectors, so vectors need not be normalised. Implementations must return exactly one
// vector per text, in order.
type Embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
}

// HashEmbedder is the built-in offline embedder. It is not a language model: each text becomes
// a hashed bag of its lower-cased words (minus common English function words) and of the
// character trigrams of those words, weighted by 1+log(tf) and L2-normalised. The cosine of two
// such vectors measures shared vocabulary (with some tolerance for inflection), so
// by_similarity with it keeps neighbours together when they talk about the same terms and
// separates them when they do not; it does not know synonyms, paraphrase or other languages'
// equivalents. Unrelated paragraphs typically score below 0.2 and paragraphs on one topic
// 0.2–0.5, so thresholds around 0.15–0.3 suit it better than the reference's default of 0.5,
// which was chosen for sentence-transformers/multi-qa-mpnet-base-dot-v1. For semantic
// similarity, use OpenAIEmbedder against a real embedding model.
type HashEmbedder struct {
	// Dims is the vector size; 0 means 1024.
	Dims int
}

// Embed implements Embedder. It never fails except on cancellation.
func (h HashEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	dims := h.Dims
	if dims <= 0 {
		dims = 1024
	}
	out := make([][]float32, len(texts))
	counts := map[uint32]float64{}
	var gram []rune
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("hash embedder: %w", err)
			}
		}
		clear(counts)
		for _, w := range strings.FieldsFunc(strings.ToLower(t), func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsNumber(r)
		}) {
			if stopWords[w] {
				continue
			}
			counts[featureHash(w)] += 1
			gram = append(gram[:0], '^')
			for _, r := range w {
				gram = append(gram, r)
			}
			gram = append(gram, '$')
			for k := 0; k+3 <= len(gram); k++ {
				counts[gramHash(gram[k:k+3])] += 0.5
			}
		}
		v := make([]float32, dims)
		var norm float64
		for hsh, tf := range counts {
			// The top bit picks the sign so that collisions cancel out on average instead of
			// inflating every similarity.
			w := 1 + math.Log(tf)
			if tf < 1 {
				w = tf
			}
			if hsh&0x80000000 != 0 {
				w = -w
			}
			v[int(hsh&0x7fffffff)%dims] += float32(w)
		}
		for _, x := range v {
			norm += float64(x) * float64(x)
		}
		if norm > 0 {
			inv := float32(1 / math.Sqrt(norm))
			for k := range v {
				v[k] *= inv
			}
		}
		out[i] = v
	}
	return out, nil
}

const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// gramHash is FNV-1a over the code points of a character n-gram; word features use the bytes
// of the word, so the two never share a hash by construction of their inputs' shapes.
func gramHash(g []rune) uint32 {
	h := uint32(fnvOffset)
	for _, r := range g {
		h ^= uint32(r)
		h *= fnvPrime
	}
	return h ^ 0x9e3779b9
}

func featureHash(s string) uint32 {
	h := uint32(fnvOffset)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= fnvPrime
	}
	return h
}

var stopWords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a about above after again against all am an and any are as at be
		because been before being below between both but by can could did do does doing down during
		each few for from further had has have having he her here hers herself him himself his how i
		if in into is it its itself just me more most my myself no nor not now of off on once only or
		other our ours ourselves out over own same she should so some such than that the their theirs
		them themselves then there these they this those through to too under until up very was we
		were what when where which while who whom why will with would you your yours yourself`) {
		m[w] = true
	}
	return m
}()

// OpenAIEmbedder calls an OpenAI-compatible embeddings endpoint (POST {BaseURL}/embeddings with
// {"model", "input": [...], "encoding_format": "float"}), which OpenAI, Azure OpenAI (v1 API),
// Ollama, vLLM and Hugging Face TEI all serve.
type OpenAIEmbedder struct {
	// BaseURL includes the API version path, e.g. https://api.openai.com/v1 (the default) or
	// http://localhost:11434/v1 for Ollama. A query string (Azure's api-version) is kept.
	BaseURL string
	Model   string
	// APIKey is sent as "Authorization: Bearer <key>", or in the header named by
	// APIKeyHeader (Azure OpenAI uses "api-key"). Empty sends no key (local servers).
	APIKey       string
	APIKeyHeader string
	// Dimensions asks models that support it for shorter vectors; 0 omits the field.
	Dimensions int
	// BatchSize is the number of texts per request; 0 means 128.
	BatchSize int
	// MaxInputChars truncates each text before sending, to stay under the model's token
	// limit; 0 means 8000 characters.
	MaxInputChars int
	// MaxRetries is how often a 429 or 5xx answer is retried; 0 means 3, negative none.
	MaxRetries int
	// Client is the HTTP client; nil means a client with a 60-second timeout.
	Client *http.Client
}

type embeddingRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type embeddingResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

type apiError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	} `json:"error"`
}

// Embed implements Embedder, sending the texts in batches.
func (o *OpenAIEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if o.Model == "" {
		return nil, errors.New("openai embedder: no model configured")
	}
	endpoint, err := o.endpoint()
	if err != nil {
		return nil, err
	}
	batch := o.BatchSize
	if batch <= 0 {
		batch = 128
	}
	limit := o.MaxInputChars
	if limit <= 0 {
		limit = 8000
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		end := min(start+batch, len(texts))
		in := make([]string, end-start)
		for i, t := range texts[start:end] {
			if runeLen(t) > limit {
				t = string([]rune(t)[:limit])
			}
			if t == "" {
				// Some servers reject empty inputs; a space embeds as "nothing" everywhere.
				t = " "
			}
			in[i] = t
		}
		vecs, err := o.embedBatch(ctx, endpoint, in)
		if err != nil {
			return nil, fmt.Errorf("openai embedder: texts %d-%d: %w", start, end-1, err)
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (o *OpenAIEmbedder) endpoint() (string, error) {
	base := o.BaseURL
	if base == "" {
		base = "https://api.openai.com/v1"
	}
	u, err := url.Parse(base)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("openai embedder: invalid base URL %q", base)
	}
	u.Path = strings.TrimRight(u.Path, "/") + "/embeddings"
	u.RawPath = ""
	return u.String(), nil
}

func (o *OpenAIEmbedder) embedBatch(ctx context.Context, endpoint string, in []string) ([][]float32, error) {
	body, err := json.Marshal(embeddingRequest{Model: o.Model, Input: in, EncodingFormat: "float", Dimensions: o.Dimensions})
	if err != nil {
		return nil, err
	}
	retries := o.MaxRetries
	if retries == 0 {
		retries = 3
	}
	client := o.Client
	if client == nil {
		client = &http.Client{Timeout: 60 * time.Second}
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		if o.APIKey != "" {
			if o.APIKeyHeader != "" && !strings.EqualFold(o.APIKeyHeader, "Authorization") {
				req.Header.Set(o.APIKeyHeader, o.APIKey)
			} else {
				req.Header.Set("Authorization", "Bearer "+o.APIKey)
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
		resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read response: %w", err)
		}
		if resp.StatusCode == http.StatusOK {
			return decodeEmbeddings(data, len(in))
		}
		retryable := resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500
		if !retryable || attempt >= retries {
			return nil, statusError(resp.StatusCode, data)
		}
		wait := time.Duration(1<<attempt) * 500 * time.Millisecond
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 && s <= 60 {
			wait = time.Duration(s) * time.Second
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(wait):
		}
	}
}

func statusError(code int, data []byte) error {
	var ae apiError
	if json.Unmarshal(data, &ae) == nil && ae.Error.Message != "" {
		return fmt.Errorf("HTTP %d: %s", code, ae.Error.Message)
	}
	msg := strings.TrimSpace(string(data))
	if len(msg) > 200 {
		msg = msg[:200]
	}
	return fmt.Errorf("HTTP %d: %s", code, msg)
}

func decodeEmbeddings(data []byte, n int) ([][]float32, error) {
	var r embeddingResponse
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("decode response: %w", err)
	}
	if len(r.Data) != n {
		return nil, fmt.Errorf("got %d embeddings for %d inputs", len(r.Data), n)
	}
	out := make([][]float32, n)
	for _, d := range r.Data {
		if d.Index < 0 || d.Index >= n || out[d.Index] != nil {
			return nil, fmt.Errorf("bad or repeated embedding index %d", d.Index)
		}
		if len(d.Embedding) == 0 {
			return nil, fmt.Errorf("empty embedding at index %d", d.Index)
		}
		out[d.Index] = d.Embedding
	}
	return out, nil
}
