package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

var (
	secLoadDuration = flag.Duration("secload.duration", 3*time.Second, "TestSecurityLoad: how long clients send requests (bench/security-load.sh: 30s)")
	secLoadClients  = flag.Int("secload.clients", 10, "TestSecurityLoad: concurrent clients, half with the key, half without (bench/security-load.sh: 50)")
)

// loadResult is one run's figures.
type loadResult struct {
	ok, over, refused, unexpected int64
	firstUnexpected               string
	p50, p99                      time.Duration
	reqPerSec                     float64
	peakMiB                       int64
}

// TestSecurityLoad runs `quarry serve` with a key and drives it with keyed clients (small TXT,
// HTML and DOCX documents) while as many keyless clients hammer it: no key, a wrong key, made-up
// methods. Keyed requests must all succeed (or get a deliberate 503 with Retry-After); keyless
// ones must all get 401/405, or 429 once their address has failed too often. It runs twice, formats out of process (the server's default) and
// in process (--in-process), and prints the ratio of keyed throughput.
func TestSecurityLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two servers")
	}
	docsDir := filepath.Join("..", "..", "testdata", "reference", "docs")
	var bodies [][]byte
	var ctypes []string
	for _, name := range []string{"fake-text.txt", "ideas-page.html", "handbook-1p.docx"} {
		data, err := os.ReadFile(filepath.Join(docsDir, name))
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		mw := multipart.NewWriter(&b)
		w, _ := mw.CreateFormFile("files", name)
		w.Write(data)
		mw.Close()
		bodies, ctypes = append(bodies, b.Bytes()), append(ctypes, mw.FormDataContentType())
	}
	run := func(extra ...string) loadResult {
		s := startServerArgs(t, extra...)
		return drive(s, bodies, ctypes, *secLoadClients, *secLoadDuration)
	}
	out := run()
	in := run("--in-process")
	for _, r := range []struct {
		name string
		res  loadResult
	}{{"formats out of process (default)", out}, {"formats in process (--in-process)", in}} {
		t.Logf("%s: %d clients × %s: keyed %d ok (%.1f req/s, p50 %s, p99 %s), %d overload 503; keyless %d refused; %d unexpected; peak RSS of the server tree %d MiB",
			r.name, *secLoadClients, *secLoadDuration, r.res.ok, r.res.reqPerSec, r.res.p50, r.res.p99, r.res.over, r.res.refused, r.res.unexpected, r.res.peakMiB)
		if r.res.unexpected > 0 {
			t.Errorf("%s: %d unexpected answers, first: %s", r.name, r.res.unexpected, r.res.firstUnexpected)
		}
		if r.res.ok == 0 || r.res.refused == 0 {
			t.Errorf("%s: nothing measured", r.name)
		}
	}
	if in.reqPerSec > 0 {
		t.Logf("keyed throughput, out of process / in process: %.2f; p50 ratio %.2f", out.reqPerSec/in.reqPerSec, float64(out.p50)/float64(max(in.p50, 1)))
	}
}

func drive(s *testServer, bodies [][]byte, ctypes []string, clients int, d time.Duration) loadResult {
	var (
		res       loadResult
		mu        sync.Mutex
		latencies []time.Duration
		ok, over  atomic.Int64
		refused   atomic.Int64
		bad       atomic.Int64
	)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}, Timeout: 2 * time.Minute}
	// The keyless clients connect from another loopback address (127.0.0.2; Linux routes all of
	// 127/8 to lo), as an attacker would from another machine: their refused keys get their own
	// address throttled (429), never the keyed clients'.
	attacker := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients,
		DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}, Timeout: 2 * time.Minute}
	url := s.url + "/general/v0/general"
	s.peak.Store(0)
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			keyed := c%2 == 0
			for i := c; time.Now().Before(deadline); i++ {
				k := i % len(bodies)
				method := "POST"
				if !keyed && i%3 == 2 {
					method = fmt.Sprintf("X%d", i) // a made-up method
				}
				req, _ := http.NewRequest(method, url, bytes.NewReader(bodies[k]))
				req.Header.Set("Content-Type", ctypes[k])
				switch {
				case keyed:
					req.Header.Set("unstructured-api-key", "k")
				case i%3 == 1:
					req.Header.Set("unstructured-api-key", "guess-"+strconv.Itoa(i))
				}
				t0 := time.Now()
				do := client.Do
				if !keyed {
					do = attacker.Do
				}
				resp, err := do(req)
				if err != nil {
					if bad.Add(1) == 1 {
						mu.Lock()
						res.firstUnexpected = err.Error()
						mu.Unlock()
					}
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				switch {
				case keyed && resp.StatusCode == 200:
					ok.Add(1)
					mu.Lock()
					latencies = append(latencies, time.Since(t0))
					mu.Unlock()
				case keyed && resp.StatusCode == 503 && resp.Header.Get("Retry-After") != "":
					over.Add(1)
					wait, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
					time.Sleep(time.Duration(max(wait, 1)) * time.Second)
				case !keyed && (resp.StatusCode == 401 || resp.StatusCode == 405 ||
					resp.StatusCode == 429 && resp.Header.Get("Retry-After") != ""):
					refused.Add(1)
				default:
					if bad.Add(1) == 1 {
						mu.Lock()
						res.firstUnexpected = fmt.Sprintf("keyed=%v %s: %d %.200s", keyed, method, resp.StatusCode, body)
						mu.Unlock()
					}
				}
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	slices.Sort(latencies)
	pct := func(p float64) time.Duration {
		if len(latencies) == 0 {
			return 0
		}
		return latencies[min(len(latencies)-1, int(p*float64(len(latencies))))].Round(100 * time.Microsecond)
	}
	res.ok, res.over, res.refused, res.unexpected = ok.Load(), over.Load(), refused.Load(), bad.Load()
	res.p50, res.p99 = pct(0.5), pct(0.99)
	res.reqPerSec = float64(res.ok) / elapsed.Seconds()
	res.peakMiB = s.peak.Load() >> 20
	return res
}
