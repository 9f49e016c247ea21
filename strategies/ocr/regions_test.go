//go:build cgo

package ocr

import "testing"

func TestParseRegions(t *testing.T) {
	got := parseRegions("1:72,100.5,372,300; 3:0,0,10,10;junk;2:5,5,1,1;9:0,0,5,5;2:1,2,3", 3)
	want := []ocrRegion{{1, 72, 100.5, 372, 300}, {3, 0, 0, 10, 10}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("region %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	if pageList(5, "0") != nil {
		t.Error(`ocr_pages "0" should name no page`)
	}
}
