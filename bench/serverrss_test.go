package bench

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// BenchmarkServerPDFRSS posts PDFs to a real `quarry serve` (the default configuration: pure-Go
// strategies re-executed as plugin processes) with the API defaults and reports the peak
// resident memory of the server process and of its whole process tree while it answers, next to
// pdftotext's peak on the same file in the same iteration. The files: the 400-page bench file
// and a generated 80 MB PDF of ten text pages, each holding an 8 MB picture (the upload's size
// dominates everything else, so what the request path holds per byte uploaded shows: the
// issue-15 aim is the upload held once per process). Each file is also sent three times at
// once: the server holds what requests waiting for a plugin process keep.
//
//	go test -run '^$' -bench ServerPDFRSS -benchtime 1x -v ./bench/
func BenchmarkServerPDFRSS(b *testing.B) {
	pdftotext, err := exec.LookPath("pdftotext")
	if err != nil {
		b.Skip("pdftotext not installed")
	}
	dir := b.TempDir()
	files := globFiles(filepath.Join(benchCorpus, "pdf", "pdf2image-memory-error-test-400p.pdf"))
	big := filepath.Join(dir, "pictures-80mb.pdf")
	if err := os.WriteFile(big, picturePDF(10, 2896), 0o644); err != nil {
		b.Fatal(err)
	}
	files = append(files, big)
	bin := filepath.Join(dir, "quarry")
	if out, err := exec.Command("go", "build", "-o", bin, "../cmd/quarry").CombinedOutput(); err != nil {
		b.Fatalf("build: %v %s", err, out)
	}
	srv := startServer(b, bin, dir)
	var sb strings.Builder
	for n := 0; n < b.N; n++ {
		sb.Reset()
		fmt.Fprintf(&sb, "%-40s %8s  %12s %12s %6s %12s  %10s  %s\n", "file", "MB", "server MB", "tree MB", "procs", "pdftotext MB", "tree/MB", "tree/pdftotext")
		for _, f := range files {
			st, err := os.Stat(f)
			if err != nil {
				b.Fatal(err)
			}
			ptt, _ := peakOf(b, exec.Command(pdftotext, f, os.DevNull))
			mb := float64(st.Size()) / (1 << 20)
			for _, copies := range []int{1, 3} {
				own, tree, procs := srv.post(b, f, copies)
				name := filepath.Base(f)
				if copies > 1 {
					name = fmt.Sprintf("  %d at once", copies)
				}
				fmt.Fprintf(&sb, "%-40s %8.1f  %12.1f %12.1f %6d %12.1f  %10.2f  %.2f\n", name, mb*float64(copies), own, tree, procs, ptt, tree/mb/float64(copies), tree/ptt)
			}
		}
	}
	b.Log("peak RSS while answering (server = the server process, tree = it and its plugin processes, each one's peak, summed; procs = processes in the tree)\n" + sb.String())
}

// server is a running `quarry serve` started by startServer.
type server struct {
	cmd  *exec.Cmd
	addr string
}

// startServer starts bin as a server on a free loopback port, its data and plugin folders in
// dir, one core, and waits for its health check; it is stopped when the benchmark ends.
func startServer(b *testing.B, bin, dir string) *server {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve", "--addr", addr, "--log-level", "warn")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "QUARRY_PLUGIN_DIR="+dir, "GOMAXPROCS=1")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	for i := 0; ; i++ {
		resp, err := http.Get("http://" + addr + "/healthcheck")
		if err == nil {
			resp.Body.Close()
			break
		}
		if i > 300 {
			b.Fatalf("server did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return &server{cmd: cmd, addr: addr}
}

// post sends file to the partition endpoint copies times at once, streaming each upload, and
// returns the peak RSS (MB) of the server process and the sum of the peaks of its process tree
// during the requests. The peaks are reset before (clear_refs), so start-up and earlier
// requests do not count.
func (s *server) post(b *testing.B, file string, copies int) (own, tree float64, procs int) {
	for _, pid := range treePIDs(s.cmd.Process.Pid) {
		_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
	}
	type result struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan result, copies)
	for range copies {
		pr, pw := io.Pipe()
		mw := multipart.NewWriter(pw)
		go func() {
			part, err := mw.CreateFormFile("files", filepath.Base(file))
			if err == nil {
				var f *os.File
				if f, err = os.Open(file); err == nil {
					_, err = io.Copy(part, f)
					f.Close()
				}
			}
			if err == nil {
				err = mw.Close()
			}
			pw.CloseWithError(err)
		}()
		req, err := http.NewRequest(http.MethodPost, "http://"+s.addr+"/general/v0/general", pr)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", mw.FormDataContentType())
		go func() {
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				done <- result{err: err}
				return
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			done <- result{resp.StatusCode, body, err}
		}()
	}
	peaks := map[int]float64{}
	for left := copies; left > 0; {
		for _, pid := range treePIDs(s.cmd.Process.Pid) {
			peaks[pid] = max(peaks[pid], vmHWM(pid))
		}
		select {
		case r := <-done:
			if r.err != nil || r.status != http.StatusOK {
				b.Fatalf("%s: %d %v %.300s", file, r.status, r.err, r.body)
			}
			left--
		case <-time.After(5 * time.Millisecond):
		}
	}
	own = peaks[s.cmd.Process.Pid]
	for _, v := range peaks {
		tree += v
	}
	return own, tree, len(peaks)
}

// treePIDs lists pid and its descendants, from /proc.
func treePIDs(pid int) []int {
	parent := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The command name may hold spaces and parentheses: the fields start after the last ')'.
		i := bytes.LastIndexByte(st, ')')
		if f := strings.Fields(string(st[i+1:])); i > 0 && len(f) > 1 {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	out := []int{pid}
	for i := 0; i < len(out); i++ {
		for p, pp := range parent {
			if pp == out[i] {
				out = append(out, p)
			}
		}
	}
	return out
}

// peakOf runs cmd to the end and returns its peak RSS (MB, VmHWM polled from /proc) and time.
func peakOf(b *testing.B, cmd *exec.Cmd) (float64, time.Duration) {
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// A peer that reads a file of pictures without decoding them may finish in a few
	// milliseconds: polled often enough to see it at all (a peak of 0 is a missed one).
	hwm := 0.0
	for {
		hwm = max(hwm, vmHWM(cmd.Process.Pid))
		select {
		case err := <-done:
			if err != nil {
				b.Fatalf("%s: %v", cmd.Path, err)
			}
			return hwm, time.Since(start)
		case <-time.After(200 * time.Microsecond):
		}
	}
}

// picturePDF is a PDF of pages pages, each a line of text above a side × side 8-bit grey
// picture of noise, stored uncompressed (so the file is about pages × side² bytes and no
// decoder shrinks it).
func picturePDF(pages, side int) []byte {
	var buf bytes.Buffer
	var offs []int
	obj := func(body string, stream []byte) {
		offs = append(offs, buf.Len())
		fmt.Fprintf(&buf, "%d 0 obj\n%s", len(offs), body)
		if stream != nil {
			buf.WriteString("\nstream\n")
			buf.Write(stream)
			buf.WriteString("\nendstream")
		}
		buf.WriteString("\nendobj\n")
	}
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	// 1 catalog, 2 pages, 3 font, then per page: page, contents, image.
	kids := make([]string, pages)
	for i := range kids {
		kids[i] = fmt.Sprintf("%d 0 R", 4+3*i)
	}
	obj("<< /Type /Catalog /Pages 2 0 R >>", nil)
	obj(fmt.Sprintf("<< /Type /Pages /Count %d /Kids [%s] >>", pages, strings.Join(kids, " ")), nil)
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>", nil)
	rng := rand.New(rand.NewPCG(1, 2))
	pix := make([]byte, side*side)
	for p := 0; p < pages; p++ {
		n := 4 + 3*p
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> /XObject << /Im1 %d 0 R >> >> /Contents %d 0 R >>", n+2, n+1), nil)
		content := fmt.Sprintf("BT /F1 14 Tf 72 740 Td (Page %d of a document of pictures, each a scan of noise.) Tj ET\nq 468 0 0 468 72 200 cm /Im1 Do Q\n", p+1)
		obj(fmt.Sprintf("<< /Length %d >>", len(content)), []byte(content))
		for i := 0; i+8 <= len(pix); i += 8 {
			v := rng.Uint64()
			for k := 0; k < 8; k++ {
				pix[i+k] = byte(v >> (8 * k))
			}
		}
		obj(fmt.Sprintf("<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Length %d >>", side, side, len(pix)), pix)
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offs)+1)
	for _, o := range offs {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offs)+1, xref)
	return buf.Bytes()
}
