package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestAPIDocsPage: /docs lists every operation of /openapi.json, partition and platform, and
// its forms send real requests to the page's own server: a document partitioned, a source
// created from the example body, the list read back.
func TestAPIDocsPage(t *testing.T) {
	findChromium(t)
	base := quarryServe(t)
	requirePlatform(t, base)
	b := newTab(t, base)
	b.open("/docs")
	b.do("key", setValue("apikey", testKey))
	eval[bool](b, `document.getElementById("apikey").dispatchEvent(new Event("change")); true`)
	b.open("/docs") // the key is kept in this browser and used to load the document
	b.waitJS("operations", `document.querySelectorAll("details.op").length >= 20`, 15*time.Second)
	ops := eval[string](b, `[...document.querySelectorAll("details.op")].map(d => d.dataset.op).join(" ")`)
	for _, want := range []string{"partition", "healthcheck", "post_sources", "get_workflows", "post_workflows_id_run", "get_jobs_id_download"} {
		if !strings.Contains(" "+ops+" ", " "+want+" ") {
			t.Errorf("docs page lacks operation %s (has %s)", want, ops)
		}
	}
	if page := eval[string](b, `document.body.innerText`); !strings.Contains(page, base+"/general/v0/general") {
		t.Errorf("the curl example does not use this server's address %s", base)
	}

	// Partition a document from the page.
	op := `details.op[data-op="partition"]`
	eval[bool](b, `document.querySelector('`+op+`').open = true`)
	b.do("attach", chromedp.SetUploadFiles(op+` input[type=file]`, []string{abs(t, "../../testdata/reference/docs/fake-text.txt")}))
	b.click("send partition", op+` button`)
	b.waitJS("partition answered", `document.querySelector('`+op+` .status').dataset.status === "200"`, 30*time.Second)
	if out := eval[string](b, `document.querySelector('`+op+` pre:last-of-type').textContent`); !strings.Contains(out, "NarrativeText") {
		t.Errorf("partition answer: %.200s", out)
	}

	// Create a source from the example body, then list sources.
	op = `details.op[data-op="post_sources"]`
	eval[bool](b, `document.querySelector('`+op+`').open = true`)
	body := eval[string](b, `document.querySelector('`+op+` textarea').value`)
	if !strings.Contains(body, `"type": "local"`) {
		t.Errorf("example body %s", body)
	}
	eval[bool](b, `document.querySelector('`+op+` textarea').value = '{"name": "from-docs", "type": "local", "config": {"path": "."}}'; true`)
	b.click("send create", op+` button`)
	b.waitJS("created", `document.querySelector('`+op+` .status').dataset.status === "200"`, 15*time.Second)
	op = `details.op[data-op="get_sources"]`
	eval[bool](b, `document.querySelector('`+op+`').open = true`)
	b.click("send list", op+` button`)
	b.waitJS("listed", `document.querySelector('`+op+` pre:last-of-type').textContent.includes("from-docs")`, 15*time.Second)
	b.checkA11y("api docs")
	b.shot("api-docs")
}

func abs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}
