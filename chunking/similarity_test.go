package chunking

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/quarrydocs/quarry/element"
)

// constEmbedder says every text is identical.
type constEmbedder struct{}

func (constEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = []float32{1, 0}
	}
	return out, nil
}

// topicEmbedder puts texts starting with the same letter on the same axis.
type topicEmbedder struct{ calls *int32 }

func (e topicEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	if e.calls != nil {
		atomic.AddInt32(e.calls, 1)
	}
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 26)
		c := strings.ToLower(t)[0]
		if c >= 'a' && c <= 'z' {
			v[c-'a'] = 1
		}
		v[0] += 0.1 // a little shared component, so similarity is never exactly 0
		out[i] = v
	}
	return out, nil
}

// by_similarity (§10.9): neighbours stay together only when similar enough.
func TestBySimilarity(t *testing.T) {
	in := []element.Element{nt("apple one"), nt("apple two"), nt("berry one"), nt("berry two"), nt("apple three")}
	o := opts("by_similarity", 500)
	o.Embedder = topicEmbedder{}
	got := mustChunk(t, in, o)
	want := []string{"apple one\n\napple two", "berry one\n\nberry two", "apple three"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
	// A threshold below the dissimilar pairs' similarity keeps everything together.
	th := 0.01
	o.SimilarityThreshold = &th
	if got := mustChunk(t, in, o); len(got) != 1 {
		t.Errorf("threshold 0.01: got %q", texts(got))
	}
}

// by_similarity: similar neighbours are still separated by max_characters.
func TestBySimilarityMaxCharacters(t *testing.T) {
	in := []element.Element{nt("aaaa"), nt("aaab"), nt("aaac")}
	o := opts("by_similarity", 10)
	o.Embedder = constEmbedder{}
	got := mustChunk(t, in, o)
	want := []string{"aaaa\n\naaab", "aaac"}
	if !reflect.DeepEqual(texts(got), want) {
		t.Errorf("got %q, want %q", texts(got), want)
	}
}

// by_similarity: do_not_break_similarity_on_footer_header lets a section run across a
// page's footer and the next page's header.
func TestBySimilarityFooterHeader(t *testing.T) {
	in := []element.Element{
		nt("apple one"), el(element.Footer, "zz footer"), el(element.Header, "yy header"),
		el(element.PageNumber, "7"), nt("apple two"),
	}
	o := opts("by_similarity", 500)
	o.Embedder = topicEmbedder{}
	if got := mustChunk(t, in, o); len(got) < 3 {
		t.Errorf("without the flag the footer should break: %q", texts(got))
	}
	o.DoNotBreakSimilarityOnFooterHeader = true
	got := mustChunk(t, in, o)
	if len(got) != 1 {
		t.Errorf("with the flag: got %q", texts(got))
	}
}

type failEmbedder struct{}

func (failEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return nil, errors.New("boom")
}

type shortEmbedder struct{}

func (shortEmbedder) Embed(context.Context, []string) ([][]float32, error) {
	return [][]float32{{1}}, nil
}

func TestBySimilarityEmbedderErrors(t *testing.T) {
	in := []element.Element{nt("a"), nt("b")}
	for _, e := range []Embedder{failEmbedder{}, shortEmbedder{}} {
		o := opts("by_similarity", 100)
		o.Embedder = e
		if _, err := Chunk(context.Background(), in, o); err == nil {
			t.Errorf("%T: no error", e)
		}
	}
}

// The offline embedder: deterministic, unit length, and shared vocabulary scores higher than
// unrelated text.
func TestHashEmbedder(t *testing.T) {
	texts := []string{
		"The standing trustee must file the annual report with the court.",
		"Annual reports filed by the standing trustee are reviewed by the court.",
		"Photosynthesis converts light energy into chemical energy in plants.",
		"",
	}
	v, err := HashEmbedder{}.Embed(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	v2, _ := HashEmbedder{}.Embed(context.Background(), texts)
	if !reflect.DeepEqual(v, v2) {
		t.Error("not deterministic")
	}
	if n := cosine(v[0], v[0]); n < 0.999 {
		t.Errorf("self-similarity %v", n)
	}
	related, unrelated := cosine(v[0], v[1]), cosine(v[0], v[2])
	if related < 0.3 || unrelated > 0.15 || related <= unrelated {
		t.Errorf("related %.3f, unrelated %.3f", related, unrelated)
	}
	if cosine(v[0], v[3]) != 0 {
		t.Error("empty text should be the zero vector")
	}
}

// OpenAIEmbedder against a fake server speaking the documented /v1/embeddings shapes.
func TestOpenAIEmbedder(t *testing.T) {
	var requests int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := atomic.AddInt32(&requests, 1)
		if r.Method != http.MethodPost || r.URL.Path != "/v1/embeddings" {
			t.Errorf("request %s %s", r.Method, r.URL.Path)
		}
		if r.URL.Query().Get("api-version") != "2024-10-21" {
			t.Errorf("query %q lost", r.URL.RawQuery)
		}
		if got := r.Header.Get("Authorization"); got != "Bearer sk-test" {
			t.Errorf("Authorization %q", got)
		}
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type %q", ct)
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model          string   `json:"model"`
			Input          []string `json:"input"`
			EncodingFormat string   `json:"encoding_format"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			t.Errorf("body %s: %v", body, err)
		}
		if req.Model != "text-embedding-3-small" || req.EncodingFormat != "float" {
			t.Errorf("request %s", body)
		}
		if n == 1 {
			// The first call is rate limited: the client must retry.
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			_, _ = w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit"}}`))
			return
		}
		type datum struct {
			Object    string    `json:"object"`
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		resp := struct {
			Object string         `json:"object"`
			Data   []datum        `json:"data"`
			Model  string         `json:"model"`
			Usage  map[string]int `json:"usage"`
		}{Object: "list", Model: req.Model, Usage: map[string]int{"prompt_tokens": 3, "total_tokens": 3}}
		// Answer in reverse order: the client must place vectors by index.
		for i := len(req.Input) - 1; i >= 0; i-- {
			resp.Data = append(resp.Data, datum{"embedding", i, []float32{float32(len(req.Input[i])), 1}})
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
	}))
	defer srv.Close()

	e := &OpenAIEmbedder{BaseURL: srv.URL + "/v1/?api-version=2024-10-21", Model: "text-embedding-3-small", APIKey: "sk-test", BatchSize: 2}
	got, err := e.Embed(context.Background(), []string{"a", "bb", "ccc"})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{{1, 1}, {2, 1}, {3, 1}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if requests != 3 {
		t.Errorf("%d requests, want 3 (one retry, two batches)", requests)
	}

	// Used by by_similarity end to end.
	o := opts("by_similarity", 100)
	o.Embedder = e
	if _, err := Chunk(context.Background(), []element.Element{nt("x"), nt("y")}, o); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAIEmbedderErrors(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("api-key") != "azure-key" || r.Header.Get("Authorization") != "" {
			t.Errorf("headers %v", r.Header)
		}
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`))
	}))
	defer srv.Close()
	e := &OpenAIEmbedder{BaseURL: srv.URL, Model: "m", APIKey: "azure-key", APIKeyHeader: "api-key"}
	_, err := e.Embed(context.Background(), []string{"a"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401: Incorrect API key provided") {
		t.Errorf("error %v", err)
	}
	if _, err := (&OpenAIEmbedder{BaseURL: srv.URL}).Embed(context.Background(), []string{"a"}); err == nil {
		t.Error("no model: no error")
	}
	if _, err := (&OpenAIEmbedder{BaseURL: "::bad", Model: "m"}).Embed(context.Background(), []string{"a"}); err == nil {
		t.Error("bad URL: no error")
	}
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(`{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}`))
	}))
	defer bad.Close()
	if _, err := (&OpenAIEmbedder{BaseURL: bad.URL, Model: "m"}).Embed(context.Background(), []string{"a", "b"}); err == nil {
		t.Error("repeated index: no error")
	}
}
