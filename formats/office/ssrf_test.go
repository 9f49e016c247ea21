package office_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// LibreOffice fetches what a document links to while converting it. An uploaded .fods whose
// image points at http://127.0.0.1:…/ made the server send OPTIONS and GET requests there (or
// to 169.254.169.254, or anywhere on the internal network), outside every outbound check the
// connectors have. Conversions now run with a proxy that does not answer.
func TestAttackLinkedResourcesAreNotFetched(t *testing.T) {
	needSoffice(t)
	var hits atomic.Int32
	var mu sync.Mutex
	var paths []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		mu.Lock()
		paths = append(paths, r.Method+" "+r.URL.Path)
		mu.Unlock()
		http.NotFound(w, r)
	}))
	defer srv.Close()
	doc := `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.2" office:mimetype="application/vnd.oasis.opendocument.spreadsheet">
<office:body><office:spreadsheet><table:table table:name="S1">
<table:table-row><table:table-cell office:value-type="string"><text:p>quarterly figures</text:p></table:table-cell></table:table-row>
<table:table-row><table:table-cell><draw:frame svg:width="2cm" svg:height="2cm"><draw:image xlink:href="SRV/latest/meta-data/" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></table:table-cell></table:table-row>
</table:table></office:spreadsheet></office:body></office:document>`
	els, err := partition(t, "linked.fods", []byte(strings.ReplaceAll(doc, "SRV", srv.URL)))
	if err != nil {
		t.Fatal(err)
	}
	if n := hits.Load(); n != 0 {
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("converting the document sent %d requests to the address it links to: %v", n, paths)
	}
	found := false
	for _, e := range els {
		found = found || strings.Contains(e.Text, "quarterly figures")
	}
	if !found {
		t.Errorf("the document's text is missing: %+v", els)
	}
}
