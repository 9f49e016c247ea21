package server

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	loadDuration = flag.Duration("load.duration", 5*time.Second, "TestLoad: how long clients send requests (bench/load.sh: 60s)")
	loadClients  = flag.Int("load.clients", 20, "TestLoad: concurrent clients (bench/load.sh: 100)")
	loadMaxRSS   = flag.Int64("load.maxrss", 1536, "TestLoad: fail when the process RSS exceeds this many MiB")
)

// rssMiB reads the process's resident set size (Linux); 0 elsewhere.
func rssMiB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb / 1024
		}
	}
	return 0
}

// TestLoad drives a loopback server with concurrent clients mixing small TXT, HTML, DOCX and
// PDF requests. Every answer must be 200 or a deliberate overload 503 (after which the client
// waits Retry-After, as the SDKs do); it prints latency percentiles, throughput and peak RSS.
func TestLoad(t *testing.T) {
	type doc struct {
		name, ctype string
		data        []byte
	}
	docs := []doc{
		{"fake-text.txt", "text/plain", readDoc(t, "fake-text.txt")},
		{"ideas-page.html", "text/html", readDoc(t, "ideas-page.html")},
		{"handbook-1p.docx", "application/octet-stream", readDoc(t, "handbook-1p.docx")},
		{"five.pdf", "application/pdf", fivePagePDF()},
	}
	bodies := make([][]byte, len(docs))
	ctypes := make([]string, len(docs))
	for i, d := range docs {
		b, ct := multipartBody(t, file(d.name, d.data, d.ctype), field("strategy", "fast"))
		bodies[i], ctypes[i] = b.Bytes(), ct
	}

	srv := New(Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln, 30*time.Second) }()
	url := "http://" + ln.Addr().String() + "/general/v0/general"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: *loadClients}, Timeout: time.Minute}

	var (
		mu        sync.Mutex
		latencies []time.Duration
		ok, over  atomic.Int64
		failures  []string
		peakRSS   atomic.Int64
	)
	deadline := time.Now().Add(*loadDuration)
	sampler := make(chan struct{})
	go func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			if r := rssMiB(); r > peakRSS.Load() {
				peakRSS.Store(r)
			}
			select {
			case <-sampler:
				return
			case <-tick.C:
			}
		}
	}()
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < *loadClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for i := c; time.Now().Before(deadline); i++ {
				k := i % len(docs)
				req, _ := http.NewRequest("POST", url, bytes.NewReader(bodies[k]))
				req.Header.Set("Content-Type", ctypes[k])
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					mu.Lock()
					failures = append(failures, err.Error())
					mu.Unlock()
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch resp.StatusCode {
				case 200:
					ok.Add(1)
					mu.Lock()
					latencies = append(latencies, time.Since(t0))
					mu.Unlock()
				case 503:
					over.Add(1)
					wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
					time.Sleep(time.Duration(max(wait, 1)) * time.Second)
				default:
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%s: %d %s", docs[k].name, resp.StatusCode, body))
					mu.Unlock()
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(sampler)
	stop()
	if err := <-served; err != nil {
		t.Error(err)
	}

	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))]
	}
	t.Logf("load: %d clients for %s: %d ok, %d overload 503s, %d failed; %.1f ok req/s; latency p50 %s p99 %s; peak RSS %d MiB",
		*loadClients, elapsed.Round(time.Millisecond), ok.Load(), over.Load(), len(failures),
		float64(ok.Load())/elapsed.Seconds(), pct(0.50).Round(time.Millisecond), pct(0.99).Round(time.Millisecond), peakRSS.Load())
	if len(failures) > 0 {
		t.Errorf("%d failed requests, first: %s", len(failures), failures[0])
	}
	if ok.Load() == 0 {
		t.Error("no request succeeded")
	}
	if peakRSS.Load() > *loadMaxRSS {
		t.Errorf("peak RSS %d MiB over the %d MiB bound", peakRSS.Load(), *loadMaxRSS)
	}
}
