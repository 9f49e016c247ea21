package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/chunking"
	"github.com/quarrydocs/quarry/element"
)

// chunkingElements builds n elements by cycling through real partition outputs of the reference
// (the ingest chunker fixtures and the handbook's elements), with page numbers.
func chunkingElements(b *testing.B, n int) []element.Element {
	b.Helper()
	files, _ := filepath.Glob("../testdata/reference/expected/ingest-assets-2024/*.json")
	var pool []element.Element
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		var els []element.Element
		if err := json.Unmarshal(data, &els); err != nil {
			b.Fatalf("%s: %v", f, err)
		}
		pool = append(pool, els...)
	}
	if len(pool) == 0 {
		b.Fatal("no elements")
	}
	out := make([]element.Element, n)
	for i := range out {
		e := pool[i%len(pool)]
		e.Metadata.PageNumber = element.Int(1 + i/40)
		out[i] = e
	}
	return out
}

// BenchmarkChunkingVsLangChain chunks 100 000 elements with every Quarry strategy
// (max_characters 500, orig_elements kept; and basic without orig_elements) and splits the same texts, joined by blank lines,
// with LangChain's RecursiveCharacterTextSplitter (chunkSize 500) in Node.js, reporting
// elements/s for both and the ratio. The peer needs `npm ci --prefix bench/chunking_langchain`
// (make deps); without it only Quarry's figures are reported.
func BenchmarkChunkingVsLangChain(b *testing.B) {
	const n, size = 100_000, 500
	in := chunkingElements(b, n)
	texts := make([]string, len(in))
	for i, e := range in {
		texts[i] = e.Text
	}
	peer, peerCPU := langChainElementsPerSecond(b, texts, size)
	for _, s := range []string{chunking.Basic, chunking.ByTitle, chunking.ByPage, chunking.BySimilarity, "basic-no-orig"} {
		b.Run(s, func(b *testing.B) {
			o := chunking.Options{Strategy: s, MaxCharacters: element.Int(size), MultipageSections: true, IncludeOrigElements: true}
			if s == "basic-no-orig" {
				// Closest to the peer's job: no orig_elements copies.
				o.Strategy, o.IncludeOrigElements = chunking.Basic, false
			}
			var elapsed, cpu time.Duration
			for b.Loop() {
				start, cpu0 := time.Now(), cpuTime()
				if _, err := chunking.Chunk(context.Background(), in, o); err != nil {
					b.Fatal(err)
				}
				elapsed += time.Since(start)
				cpu += cpuTime() - cpu0
			}
			quarry := float64(n) * float64(b.N) / elapsed.Seconds()
			quarryCPU := float64(n) * float64(b.N) / cpu.Seconds()
			b.ReportMetric(quarry, "elements/s")
			if peer > 0 {
				b.ReportMetric(peer, "langchain-elements/s")
				b.ReportMetric(quarry/peer, "ratio")
				b.ReportMetric(quarryCPU/peerCPU, "cpu-ratio")
				// On a shared machine wall time is noisy; CPU time (all threads, GC included on
				// both sides) is the steadier comparison.
				b.Logf("%s: Quarry %.0f elements/s (%.0f per CPU-second), LangChain RecursiveCharacterTextSplitter %.0f elements/s (%.0f per CPU-second), ratio %.2f× wall, %.2f× CPU",
					s, quarry, quarryCPU, peer, peerCPU, quarry/peer, quarryCPU/peerCPU)
			}
		})
	}
}

// langChainElementsPerSecond runs the Node peer once (after its own warm-up) and converts its
// time for splitting the whole text into elements per second; 0 when Node or the package is
// missing.
func langChainElementsPerSecond(b *testing.B, texts []string, size int) (wall, cpu float64) {
	dir := "chunking_langchain"
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@langchain", "textsplitters")); err != nil {
		b.Log("LangChain peer not installed: npm ci --prefix bench/chunking_langchain")
		return 0, 0
	}
	node, err := exec.LookPath("node")
	if err != nil {
		b.Log("node not installed")
		return 0, 0
	}
	input, err := json.Marshal(map[string]any{"texts": texts, "chunkSize": size, "chunkOverlap": 0, "iterations": 5})
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(node, "split.mjs")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("langchain peer: %v: %s", err, stderr.String())
	}
	var res struct {
		MS     float64 `json:"ms"`
		CPUMS  float64 `json:"cpuMs"`
		Chunks int     `json:"chunks"`
	}
	if err := json.Unmarshal(out, &res); err != nil || res.MS <= 0 || res.CPUMS <= 0 {
		b.Fatalf("langchain peer output %q: %v", out, err)
	}
	b.Logf("LangChain: %.1f ms (%.1f ms CPU) per split of %d elements into %d chunks", res.MS, res.CPUMS, len(texts), res.Chunks)
	return float64(len(texts)) / (res.MS / 1000), float64(len(texts)) / (res.CPUMS / 1000)
}
