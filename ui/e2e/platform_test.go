package e2e

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/chromedp/chromedp"
)

// TestPlatformFlow is the whole user journey on a real `quarry serve`: an Azure source on
// Azurite (with a validation error first, a connection test and an edit that must keep the
// stored secret), a local-folder destination, a workflow created and run, the job watched to
// completion with its failed file listed, and a result downloaded.
func TestPlatformFlow(t *testing.T) {
	findChromium(t)
	conn := startAzurite(t)
	base, root := quarryServeWithRoot(t)
	requirePlatform(t, base)

	// Three documents: two that partition and one that cannot.
	az, err := azblob.NewClientFromConnectionString(conn, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := az.CreateContainer(ctx, "e2e-docs", nil); err != nil {
		t.Fatal(err)
	}
	pdf, _ := os.ReadFile("../../testdata/reference/docs/multi-column-2p.pdf")
	txt, _ := os.ReadFile("../../testdata/reference/docs/fake-text.txt")
	for name, data := range map[string][]byte{"reports/multi-column-2p.pdf": pdf, "notes/fake-text.txt": txt, "reports/broken.pdf": []byte("%PDF-1.7\nthis is not a PDF")} {
		if _, err := az.UploadBuffer(ctx, "e2e-docs", name, data, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Local connectors are confined to the server's root.
	out := filepath.Join(root, "out")

	b := newTab(t, base)

	// Source: a wrong URL first, so the API's 422 lands next to the field.
	b.open("/ui/sources")
	b.login()
	b.do("new source", chromedp.Click(chromedp.ID("cn-new")), chromedp.WaitVisible(chromedp.ID("cn-form")))
	b.do("fill source",
		chromedp.SendKeys(chromedp.ID("cn-name"), "azurite-docs"),
		setValue("cn-type", "azure"),
		chromedp.SendKeys(chromedp.ID("cf-azure-remote_url"), "https://e2e-docs"),
		setValue("cf-azure-connection_string", conn),
		chromedp.Click(chromedp.ID("cn-save")),
	)
	b.waitJS("remote_url validation message", `document.getElementById("err-azure-remote_url").textContent.length > 0 &&
	  document.getElementById("cf-azure-remote_url").getAttribute("aria-invalid") === "true"`, 15*time.Second)
	t.Logf("validation message: %s", eval[string](b, `document.getElementById("err-azure-remote_url").textContent`))
	b.checkA11y("source form")
	b.checkLayout("source-form-invalid")
	b.do("fix URL", setValue("cf-azure-remote_url", "az://e2e-docs"), chromedp.Click(chromedp.ID("cn-save")))
	b.waitJS("source listed", `[...document.querySelectorAll("#cn-table tbody tr")].some(tr => tr.textContent.includes("azurite-docs"))`, 15*time.Second)

	testConn := func() {
		b.click("test connection", `button[aria-label="Test connection of azurite-docs"]`)
		b.waitJS("connection result", `/success|failure/.test(document.querySelector("#cn-table .check-cell").textContent)`, 60*time.Second)
		if got := eval[string](b, `document.querySelector("#cn-table .check-cell").textContent`); !strings.Contains(got, "success") {
			t.Fatalf("connection check: %q", got)
		}
	}
	testConn()
	b.checkLayout("sources")

	// Edit: the stored secret is never shown, and saving without retyping it keeps it.
	b.click("edit source", `button[aria-label="Edit azurite-docs"]`)
	b.do("edit form", chromedp.WaitVisible(chromedp.ID("cn-form")))
	if v := eval[string](b, `document.getElementById("cf-azure-connection_string").value`); v != "" {
		t.Errorf("the connection string input holds %q after edit; secrets must not be shown", v)
	}
	if eval[bool](b, `document.documentElement.outerHTML.includes("AccountKey=")`) {
		t.Error("the page contains the stored connection string")
	}
	if !eval[bool](b, `!document.querySelector('fieldset[data-kind="azure"] [data-secret-note="connection_string"]').hidden`) {
		t.Error("the form does not say that a connection string is stored")
	}
	b.do("save unchanged", chromedp.Click(chromedp.ID("cn-save")), chromedp.WaitNotVisible(chromedp.ID("cn-editor")))
	testConn()

	// Destination: a local folder.
	b.open("/ui/destinations")
	b.do("new destination", chromedp.Click(chromedp.ID("cn-new")), chromedp.WaitVisible(chromedp.ID("cn-form")))
	b.do("fill destination",
		chromedp.SendKeys(chromedp.ID("cn-name"), "results-folder"),
		setValue("cn-type", "local"),
		setValue("cf-local-path", out),
		chromedp.Click(chromedp.ID("cn-save")),
	)
	b.waitJS("destination listed", `[...document.querySelectorAll("#cn-table tbody tr")].some(tr => tr.textContent.includes("results-folder"))`, 15*time.Second)

	// Workflow.
	b.open("/ui/workflows")
	b.do("new workflow", chromedp.Click(chromedp.ID("wf-new")), chromedp.WaitVisible(chromedp.ID("wf-form")))
	b.waitJS("connector choices", `document.querySelectorAll("#wf-source option").length > 1 && document.querySelectorAll("#wf-destination option").length > 1`, 10*time.Second)
	b.do("fill workflow",
		chromedp.SendKeys(chromedp.ID("wf-name"), "azure-to-folder"),
		chromedp.Evaluate[chromedp.Void](`for (const id of ["wf-source", "wf-destination"]) { const s = document.getElementById(id); s.value = s.options[1].value; }`),
		setValue("wf-strategy", "fast"),
		setValue("wf-schedule", "daily"),
		chromedp.Click(chromedp.ID("wf-save")),
	)
	b.waitJS("workflow listed", `[...document.querySelectorAll("#wf-table tbody tr")].some(tr => tr.textContent.includes("azure-to-folder") && tr.textContent.includes("daily"))`, 15*time.Second)
	b.checkA11y("workflows")
	b.checkLayout("workflows")

	if lr := eval[string](b, `document.querySelector("#wf-table tbody tr td:nth-child(5)").textContent`); lr != "never" {
		t.Errorf("last run of a new workflow = %q, want never", lr)
	}
	b.click("run now", `button[aria-label="Run azure-to-folder now"]`)
	b.waitJS("job link", `document.querySelector("#wf-table .run-note a") !== null`, 15*time.Second)
	b.click("open job", "#wf-table .run-note a")
	b.do("job details", chromedp.WaitVisible(chromedp.ID("jb-detail")))
	b.shot("job-running")
	b.waitJS("job finished", `/completed|failed|stopped/.test(document.querySelector("#jb-facts dd").textContent)`, 120*time.Second)

	status := eval[string](b, `document.querySelector("#jb-facts dd").textContent`)
	if status != "completed" {
		t.Fatalf("job status %q, want completed; page:\n%s", status, b.text())
	}
	b.waitJS("outputs listed", `document.querySelectorAll("#jb-outputs li").length === 2`, 10*time.Second)
	if p := eval[string](b, `document.getElementById("jb-progress-label").textContent`); !strings.Contains(p, "3 of 3") {
		t.Errorf("progress label %q, want 3 of 3 files", p)
	}
	if f := eval[string](b, `document.getElementById("jb-failed").textContent`); !strings.Contains(f, "broken.pdf") {
		t.Errorf("failed files %q do not name broken.pdf", f)
	}
	b.checkA11y("job details")
	b.checkLayout("job-details")

	b.click("download", "#jb-outputs li button")
	f := b.waitDownload(".json", 15*time.Second)
	var els []map[string]any
	if data, err := os.ReadFile(f); err != nil || json.Unmarshal(data, &els) != nil || len(els) == 0 {
		t.Fatalf("downloaded %s: %d elements, err %v", f, len(els), err)
	}
	t.Logf("downloaded %s: %d elements", filepath.Base(f), len(els))

	// The destination folder holds one JSON file per partitioned document.
	var written []string
	filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			written = append(written, p)
		}
		return nil
	})
	if len(written) != 2 {
		t.Errorf("destination folder holds %v, want 2 JSON files", written)
	}
	// Results are named by their source document, with the file the destination wrote.
	outputs := eval[string](b, `document.getElementById("jb-outputs").textContent`)
	for _, w := range written {
		if !strings.Contains(outputs, "written to "+w) {
			t.Errorf("results %q do not name the written file %s", outputs, w)
		}
	}
	if !strings.Contains(outputs, "reports/multi-column-2p.pdf") || !strings.Contains(outputs, "notes/fake-text.txt") {
		t.Errorf("results %q are not named by their source documents", outputs)
	}

	// The jobs list shows the finished job with its progress.
	b.do("close details", chromedp.Click(chromedp.ID("jb-close")))
	b.waitJS("jobs row", `document.querySelector("#jb-table tbody tr[data-status=COMPLETED]") !== null`, 10*time.Second)
	if st := eval[string](b, `document.querySelector("#jb-table tbody tr[data-status=COMPLETED] .badge").textContent`); st != "completed with errors" {
		t.Errorf("the jobs list says %q for a job with a failed file, want completed with errors", st)
	}
	b.checkLayout("jobs")

	// The workflow now shows its last run, linking to its jobs.
	b.open("/ui/workflows")
	// Its broken.pdf failed: the last run says so, not a plain "completed".
	b.waitJS("last run", `/completed with errors.*1 failed/.test(document.querySelector("#wf-table tbody tr td:nth-child(5)").textContent)`, 10*time.Second)
	b.click("jobs of the workflow", `a[aria-label="All jobs of azure-to-folder"]`)
	b.do("jobs page", chromedp.WaitVisible(chromedp.ID("jb-workflow-filter")))
	b.waitJS("filtered jobs", `!document.getElementById("jb-workflow-filter").hidden && document.querySelectorAll("#jb-table tbody tr").length === 1`, 10*time.Second)
	b.checkLayout("workflows-last-run")
}
