package pdf

import (
	"context"
	"errors"
	"os"
	"testing"
)

func TestOpenErrors(t *testing.T) {
	for file, want := range map[string]string{
		"failing-invalid.pdf":       "Stream has ended unexpectedly",
		"failing-missing-root.pdf":  "Cannot find Root object in pdf",
		"failing-missing-pages.pdf": "Invalid object in /Pages",
	} {
		f, err := os.Open("../testdata/reference/docs/errors/" + file)
		if err != nil {
			t.Fatal(err)
		}
		st, _ := f.Stat()
		err = Check(context.Background(), f, st.Size())
		f.Close()
		var inv *InvalidError
		if !errors.As(err, &inv) || inv.Reason != want {
			t.Errorf("%s: got %v (%v), want reason %q", file, err, errors.Unwrap(err), want)
		}
	}
}
