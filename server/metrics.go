package server

import (
	"net/http"

	"github.com/quarrydocs/quarry/element"
	"github.com/quarrydocs/quarry/engine"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are registered on a per-Server registry (no global state), so several servers in one
// process (tests) do not collide.
type metrics struct {
	reg              *prometheus.Registry
	requests         *prometheus.CounterVec
	latency          *prometheus.HistogramVec
	inFlight         prometheus.Gauge
	rejected         prometheus.Counter
	documents        *prometheus.CounterVec
	elements         *prometheus.CounterVec
	partitionSeconds *prometheus.HistogramVec
	partitionErrors  *prometheus.CounterVec
}

func newMetrics(reg *prometheus.Registry) *metrics {
	if reg == nil {
		reg = prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	}
	m := &metrics{
		reg: reg,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_http_requests_total", Help: "HTTP requests by route, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quarry_http_request_duration_seconds", Help: "HTTP request latency by route and status code.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"route", "code"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "quarry_partition_requests_in_flight", Help: "Partition requests holding a processing slot.",
		}),
		rejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "quarry_partition_requests_rejected_total", Help: "Partition requests refused with 503 because the server was saturated.",
		}),
		documents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_documents_total", Help: "Documents partitioned successfully, by detected MIME type.",
		}, []string{"filetype"}),
		elements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_elements_total", Help: "Elements produced, by element type.",
		}, []string{"type"}),
		partitionSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "quarry_partition_duration_seconds", Help: "Time to partition one document, by detected MIME type.",
			Buckets: []float64{.001, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 300},
		}, []string{"filetype"}),
		partitionErrors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "quarry_partition_errors_total", Help: "Documents that failed to partition, by response status code.",
		}, []string{"code"}),
	}
	reg.MustRegister(m.requests, m.latency, m.inFlight, m.rejected, m.documents, m.elements, m.partitionSeconds, m.partitionErrors)
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// Label values come from fixed sets: a label taken from the request (an HTTP method, a MIME
// type a plugin reports, an element type) would let clients grow /metrics and the server's
// memory without bound — 200,000 made-up methods once grew /metrics to 24 MB.

var knownMethods = map[string]bool{
	http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true,
}

// methodLabel is the method, or "other" for anything outside the standard set.
func methodLabel(m string) string {
	if knownMethods[m] {
		return m
	}
	return "other"
}

// filetypeLabel is a MIME type the engine knows, "unknown" when none was detected, else "other".
func filetypeLabel(mime string) string {
	if mime == "" {
		return "unknown"
	}
	if _, ok := engine.TypeForMIME(mime); ok {
		return mime
	}
	return "other"
}

var knownElementTypes = func() map[element.Type]bool {
	m := map[element.Type]bool{}
	for _, t := range []element.Type{element.Title, element.NarrativeText, element.ListItem, element.UncategorizedText,
		element.Table, element.Image, element.FigureCaption, element.Header, element.Footer, element.PageBreak,
		element.Formula, element.Address, element.EmailAddress, element.CodeSnippet, element.PageNumber,
		element.FormKeysValues, element.DocumentData, element.CheckBox, element.Form} {
		m[t] = true
	}
	return m
}()

// elementLabel is a known element type, else "other" (third-party plugins may emit any).
func elementLabel(t element.Type) string {
	if knownElementTypes[t] {
		return string(t)
	}
	return "other"
}
