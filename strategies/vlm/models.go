package vlm

import (
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/quarrydocs/quarry/contract"
	"github.com/quarrydocs/quarry/strategies/vlm/provider"
)

// models lists the accepted model names per provider. The reference documents pairs for
// anthropic, bedrock, openai and vertexai (partition-api.md §2.3); the other three providers get
// the same models through their own endpoints: anthropic_bedrock the Claude models of the
// Bedrock list, google the Gemini model, azure_openai the OpenAI models (as deployment names).
// QUARRY_VLM_EXTRA_MODELS adds more without a rebuild.
var models = map[string][]string{
	provider.Anthropic: {"claude-sonnet-4-20250514"},
	provider.Bedrock: {
		"us.amazon.nova-lite-v1:0",
		"us.amazon.nova-pro-v1:0",
		"us.anthropic.claude-3-haiku-20240307-v1:0",
		"us.anthropic.claude-3-opus-20240229-v1:0",
		"us.anthropic.claude-3-sonnet-20240229-v1:0",
		"us.anthropic.claude-sonnet-4-20250514-v1:0",
		"us.meta.llama3-2-11b-instruct-v1:0",
		"us.meta.llama3-2-90b-instruct-v1:0",
	},
	provider.AnthropicBedrock: {
		"us.anthropic.claude-3-haiku-20240307-v1:0",
		"us.anthropic.claude-3-opus-20240229-v1:0",
		"us.anthropic.claude-3-sonnet-20240229-v1:0",
		"us.anthropic.claude-sonnet-4-20250514-v1:0",
	},
	provider.OpenAI:      {"gpt-4o", "gpt-5-mini-2025-08-07"},
	provider.AzureOpenAI: {"gpt-4o", "gpt-5-mini-2025-08-07"},
	provider.VertexAI:    {"gemini-2.0-flash-001"},
	provider.Google:      {"gemini-2.0-flash-001"},
}

// Default provider and model when a request names neither (the hosted API picks one too).
const (
	defaultProvider = provider.Anthropic
	defaultModel    = "claude-sonnet-4-20250514"
)

// EnvExtraModels adds accepted models: "provider:model,provider:model" (a model may contain
// colons; the provider is everything before the first one).
const EnvExtraModels = "QUARRY_VLM_EXTRA_MODELS"

// catalogue returns the accepted models per provider, with the environment's additions.
func catalogue(getenv func(string) string) map[string][]string {
	out := make(map[string][]string, len(models))
	for p, ms := range models {
		out[p] = slices.Clone(ms)
	}
	for _, item := range strings.Split(getenv(EnvExtraModels), ",") {
		p, m, ok := strings.Cut(strings.TrimSpace(item), ":")
		p, m = strings.TrimSpace(p), strings.TrimSpace(m)
		if !ok || m == "" {
			continue
		}
		if _, known := out[p]; known && !slices.Contains(out[p], m) {
			out[p] = append(out[p], m)
		}
	}
	return out
}

// resolveModel validates the provider/model pair of a request. Errors are 422-class and list
// the valid values, as the hosted API's validation does.
func resolveModel(opts contract.Options, getenv func(string) string) (prov, model string, err error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	prov = strings.ToLower(strings.TrimSpace(opts.Get(KeyModelProvider)))
	model = strings.TrimSpace(opts.Get(KeyModel))
	cat := catalogue(getenv)
	if prov == "" && model == "" {
		prov, model = strings.TrimSpace(getenv("QUARRY_VLM_PROVIDER")), strings.TrimSpace(getenv("QUARRY_VLM_MODEL"))
		if prov == "" && model == "" {
			prov, model = defaultProvider, defaultModel
		}
	}
	names := make([]string, 0, len(cat))
	for p := range cat {
		names = append(names, p)
	}
	sort.Strings(names)
	if prov == "" {
		return "", "", contract.Errorf(contract.KindUnprocessable,
			"vlm_model_provider is required with vlm_model %q: must be one of %s", model, quoteList(names))
	}
	valid, ok := cat[prov]
	if !ok {
		return "", "", contract.Errorf(contract.KindUnprocessable,
			"Invalid vlm_model_provider: %q. Must be one of %s", prov, quoteList(names))
	}
	if model == "" {
		return "", "", contract.Errorf(contract.KindUnprocessable,
			"vlm_model is required with vlm_model_provider %q: must be one of %s", prov, quoteList(valid))
	}
	if !slices.Contains(valid, model) {
		return "", "", contract.Errorf(contract.KindUnprocessable,
			"Invalid vlm_model %q for vlm_model_provider %q. Must be one of %s", model, prov, quoteList(valid))
	}
	return prov, model, nil
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return "[" + strings.Join(q, ", ") + "]"
}
