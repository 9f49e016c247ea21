package server

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Every password-encrypted variant qpdf writes (pdf/testdata/encrypted) is the reference's 422
// through the API, whatever the strategy, and never a 200 with an empty list.
func TestWireEncryptedVariants(t *testing.T) {
	srv := New(Config{})
	files, _ := filepath.Glob("../pdf/testdata/encrypted/*user-*.pdf")
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, strategy := range []string{"auto", "fast", "hi_res"} {
			rec := post(t, srv, nil, file(filepath.Base(f), data, "application/pdf"), field("strategy", strategy))
			var d struct{ Detail string }
			json.Unmarshal(rec.Body.Bytes(), &d)
			if rec.Code != 422 || d.Detail != "File is encrypted. Please decrypt it with password." {
				t.Errorf("%s strategy=%s: %d %s", filepath.Base(f), strategy, rec.Code, rec.Body)
			}
		}
	}
}
