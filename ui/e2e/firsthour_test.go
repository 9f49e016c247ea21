package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestFirstHour follows a new user: empty pages walk them source → destination → workflow →
// run; a saved connector is tested at once and the result is still there after a reload; the
// Azure portal's https:// container address is accepted; on a 390-px screen every list action
// is in view; the playground takes a dropped file and a sample document and shows progress.
func TestFirstHour(t *testing.T) {
	findChromium(t)
	base := quarryServe(t)
	requirePlatform(t, base)
	b := newTab(t, base)

	b.open("/ui/sources")
	b.login()
	b.waitJS("getting started", `(() => { const g = document.querySelector("#cn-empty .guide"); return g && !document.getElementById("cn-empty").hidden && g.querySelectorAll("li").length === 4; })()`, 15*time.Second)
	steps := eval[string](b, `[...document.querySelectorAll("#cn-empty .guide li")].map(li => li.className + ":" + li.textContent).join("\n")`)
	for _, want := range []string{"next:Add a source", "Add a destination", "Create a workflow", "Run the workflow"} {
		if !strings.Contains(steps, want) {
			t.Errorf("getting-started steps lack %q:\n%s", want, steps)
		}
	}
	b.checkA11y("getting started")
	b.checkLayout("getting-started")
	for _, page := range []string{"/ui/workflows", "/ui/jobs"} {
		b.open(page)
		b.waitJS("guide on "+page, `document.querySelector(".guide li.next") !== null`, 15*time.Second)
		b.shot("getting-started-" + strings.TrimPrefix(page, "/ui/"))
	}

	// The guide's next step opens the form; saving tests the connection by itself.
	b.open("/ui/sources")
	b.waitJS("guide", `document.querySelector("#cn-empty .guide li.next button") !== null`, 15*time.Second)
	b.click("guide: add a source", "#cn-empty .guide li.next button")
	b.do("fill local source",
		chromedp.WaitVisible(chromedp.ID("cn-form")),
		chromedp.SendKeys(chromedp.ID("cn-name"), "inbox"),
		setValue("cn-type", "local"),
		chromedp.WaitVisible(chromedp.ID("cf-local-path")),
		setValue("cf-local-path", "."),
	)
	b.click("save", "#cn-save")
	b.waitJS("tested on save", `/success|failure/.test((document.querySelector("#cn-table .check-cell") || {}).textContent || "")`, 60*time.Second)
	first := eval[string](b, `document.querySelector("#cn-table .check-cell .badge").textContent`)
	b.open("/ui/sources")
	b.waitJS("check kept after reload", `/success|failure/.test((document.querySelector("#cn-table .check-cell") || {}).textContent || "")`, 15*time.Second)
	if again := eval[string](b, `document.querySelector("#cn-table .check-cell").textContent`); !strings.HasPrefix(again, first) || !strings.Contains(again, "tested") {
		t.Errorf("after a reload the connection cell says %q, want %q with when it was tested", again, first)
	}

	// The Azure portal's container address is what the form asks for, and it is accepted.
	b.click("new source", "#cn-new")
	help := eval[string](b, `document.getElementById("help-azure-remote_url").textContent`)
	if !strings.Contains(help, "https://<account>.blob.core.windows.net/<container>") {
		t.Errorf("remote_url help %q does not say what it expects", help)
	}
	b.do("fill azure",
		chromedp.SendKeys(chromedp.ID("cn-name"), "portal"),
		setValue("cn-type", "azure"),
		chromedp.WaitVisible(chromedp.ID("cf-azure-remote_url")),
		setValue("cf-azure-remote_url", "https://quarrydocs.blob.core.windows.net/reports/2026"),
	)
	b.click("save azure", "#cn-save")
	b.waitJS("azure source listed", `[...document.querySelectorAll("#cn-table tbody tr")].some(tr => tr.textContent.includes("portal"))`, 15*time.Second)
	var cfg map[string]any
	for _, src := range apiList(t, base, "/api/v1/sources/") {
		if src["name"] == "portal" {
			cfg, _ = src["config"].(map[string]any)
		}
	}
	if cfg["remote_url"] != "az://reports/2026" || cfg["account_name"] != "quarrydocs" {
		t.Errorf("stored config %v, want az://reports/2026 on account quarrydocs", cfg)
	}

	// On a phone every action of every row is in view, without scrolling sideways.
	b.checkLayout("sources-with-rows")
	b.do("phone", chromedp.EmulateViewport(390, 844, chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch), chromedp.Sleep(300*time.Millisecond))
	out := eval[[]string](b, `[...document.querySelectorAll("td.actions-cell button")].filter(x => { const r = x.getBoundingClientRect(); return r.width === 0 || r.left < 0 || r.right > document.documentElement.clientWidth; }).map(x => x.getAttribute("aria-label"))`)
	if len(out) > 0 {
		t.Errorf("actions out of view at 390 px: %v", out)
	}
	b.viewShot("sources-phone-actions")
	b.do("desktop", chromedp.EmulateViewport(1280, 800))

	// Playground: the sample document, with a progress display while it partitions.
	b.open("/ui/")
	b.waitJS("playground", `document.getElementById("pg-progress-wrap") !== null`, 10*time.Second)
	eval[bool](b, `window.__sawProgress = false; new MutationObserver(() => {
	  if (!document.getElementById("pg-progress-wrap").hidden) window.__sawProgress = document.getElementById("pg-progress-label").textContent; })
	  .observe(document.getElementById("pg-progress-wrap"), { attributes: true, subtree: true, childList: true, characterData: true }); true`)
	b.click("sample", "#pg-sample")
	b.waitJS("sample partitioned", `document.querySelectorAll("#pg-table tbody tr").length > 0`, 60*time.Second)
	if p := eval[any](b, `window.__sawProgress`); p == false || !strings.Contains(p.(string), "Partitioning sample.pdf") {
		t.Errorf("no progress shown while partitioning: %v", p)
	}
	b.checkLayout("playground-sample")

	// A file dropped on the form is partitioned.
	eval[bool](b, `(() => {
	  const dt = new DataTransfer();
	  dt.items.add(new File(["Dropped Title\n\nA paragraph that came in by drag and drop, long enough to be narrative text."], "dropped.txt", { type: "text/plain" }));
	  const form = document.getElementById("pg-form");
	  form.dispatchEvent(new DragEvent("dragover", { dataTransfer: dt, bubbles: true, cancelable: true }));
	  form.dispatchEvent(new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true }));
	  return true;
	})()`)
	b.waitJS("dropped file partitioned", `document.getElementById("pg-status").textContent.startsWith("Done") && document.getElementById("pg-file").files[0].name === "dropped.txt" && document.getElementById("pg-table").textContent.includes("drag and drop")`, 30*time.Second)
	b.shot("playground-dropped")
}

func apiList(t *testing.T, base, path string) []map[string]any {
	t.Helper()
	req, _ := http.NewRequest("GET", base+path, nil)
	req.Header.Set("unstructured-api-key", testKey)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("%s: %v %s", path, err, b)
	}
	return out
}
