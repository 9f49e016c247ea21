//go:build cgo

package ocr

import (
	"bufio"
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/quarrydocs/quarry/engine"
)

// maxPeakKB is the resident-memory ceiling for reading a 40-megapixel colour scan.
const maxPeakKB = 300 << 10

// TestLargeImageMemory reads a generated 40-megapixel colour PNG (10,973 × 3,570, the size of
// a wide engineering scan) in a fresh process, the way the OCR plugin does, and bounds that
// process's peak resident memory (VmHWM): the page must not be held as several full-size
// copies (a 32-bit colour raster alone is 157 MB).
func TestLargeImageMemory(t *testing.T) {
	if path := os.Getenv("QUARRY_BIGIMAGE_CHILD"); path != "" {
		largeImageChild(t, path)
		return
	}
	if testing.Short() {
		t.Skip("40-megapixel OCR")
	}
	page := textPage(t, osdLines)
	const w, h = 10973, 3570
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	pb := page.Bounds()
	for y := 0; y < pb.Dy(); y++ {
		for x := 0; x < pb.Dx(); x++ {
			v := page.GrayAt(x, y).Y
			img.SetNRGBA(x+400, y+600, color.NRGBA{v, v / 2, v, 255}) // dark text on white, tinted
		}
	}
	path := filepath.Join(t.TempDir(), "wide.png")
	var buf bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestLargeImageMemory$", "-test.v")
	cmd.Env = append(os.Environ(), "QUARRY_BIGIMAGE_CHILD="+path)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	peak := -1
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "PEAK_KB="); ok {
			peak, _ = strconv.Atoi(v)
		}
	}
	if peak < 0 {
		t.Fatalf("child reported no peak:\n%s", out)
	}
	t.Logf("peak resident memory reading a %d×%d colour PNG: %d MB", w, h, peak>>10)
	if peak > maxPeakKB {
		t.Errorf("peak %d MB, more than %d MB", peak>>10, maxPeakKB>>10)
	}
}

func largeImageChild(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := engine.DefaultOptions()
	opts.Strategy = "hi_res"
	els, err := engine.Partition(t.Context(), engine.NewDocument("wide.png", data), opts)
	if err != nil {
		t.Fatal(err)
	}
	var text []string
	for _, e := range els {
		text = append(text, e.Text)
	}
	if all := strings.Join(text, " "); !strings.Contains(all, "warehouse inventory") {
		t.Errorf("text not read: %q", all)
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc")
	}
	for _, l := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			os.Stdout.WriteString("PEAK_KB=" + strconv.Itoa(kb) + "\n")
		}
	}
}
