package bench

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/quarrydocs/quarry/engine"
)

// benchCorpus is the bench corpus beside the repository (../shared/corpus/bench), which the
// benchmarks use when it is present.
const benchCorpus = "../../shared/corpus/bench"

// globFiles returns the files matching any of the patterns, in pattern order.
func globFiles(patterns ...string) []string {
	var files []string
	for _, p := range patterns {
		m, _ := filepath.Glob(p)
		files = append(files, m...)
	}
	return files
}

// peerCommand builds the peer's command for one input file. It must write its result somewhere
// that costs nothing (/dev/null, a temporary directory): the benchmark times the process only.
type peerCommand func(path string) *exec.Cmd

// peerResult is what one benchmark measured for Quarry and the peer over the same files.
type peerResult struct {
	bytes              int64
	elements           int
	quarryWall, quarry time.Duration // wall and CPU (user+sys, all threads, GC included)
	peerWall, peer     time.Duration // wall and CPU (the peer process and the children it waited for)
}

// compareWithPeer partitions files with Quarry (in process, default options plus set) and runs
// the peer on the same files in the same iteration, so both see the same machine state. It
// reports MB/s and elements/s of Quarry, MB/s of the peer and the ratio by wall and by CPU time;
// on a shared machine the CPU ratio is the steadier figure.
func compareWithPeer(b *testing.B, peerName string, files []string, set func(*engine.Options), peer peerCommand) peerResult {
	b.Helper()
	data := make([][]byte, len(files))
	var r peerResult
	for i, f := range files {
		var err error
		if data[i], err = os.ReadFile(f); err != nil {
			b.Fatal(err)
		}
		r.bytes += int64(len(data[i]))
	}
	opts := engine.DefaultOptions()
	if set != nil {
		set(&opts)
	}
	ctx := context.Background()
	b.ResetTimer()
	for n := 0; n < b.N; n++ {
		start, cpu0 := time.Now(), cpuTime()
		for i, f := range files {
			elems, err := engine.Partition(ctx, engine.NewDocument(filepath.Base(f), data[i]), opts)
			if err != nil {
				b.Fatalf("%s: %v", f, err)
			}
			r.elements += len(elems)
		}
		r.quarryWall += time.Since(start)
		r.quarry += cpuTime() - cpu0
		for _, f := range files {
			cmd := peer(f)
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%s %s: %v: %.500s", peerName, f, err, out)
			}
			r.peerWall += time.Since(start)
			r.peer += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
	}
	b.StopTimer()
	mb := float64(r.bytes) * float64(b.N) / (1 << 20)
	qMBs, pMBs := mb/r.quarryWall.Seconds(), mb/r.peerWall.Seconds()
	cpuRatio := r.peer.Seconds() / r.quarry.Seconds()
	b.ReportMetric(qMBs, "quarry-MB/s")
	b.ReportMetric(float64(r.elements)/r.quarryWall.Seconds(), "quarry-elements/s")
	b.ReportMetric(pMBs, peerName+"-MB/s")
	b.ReportMetric(qMBs/pMBs, "ratio")
	b.ReportMetric(cpuRatio, "cpu-ratio")
	b.Logf("%d files, %.2f MB per pass: quarry %.2f MB/s (%.0f elements/s), %s %.2f MB/s; ratio %.1f× wall, %.1f× CPU",
		len(files), float64(r.bytes)/(1<<20), qMBs, float64(r.elements)/r.quarryWall.Seconds(), peerName, pMBs,
		qMBs/pMBs, cpuRatio)
	return r
}
