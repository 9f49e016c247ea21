package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestConnectorForms covers what the happy path does not: a Confluence source whose auth
// settings conflict (the API's messages land next to the fields that caused them, and focus
// moves to the first), a connection test that fails with its reason shown, and a delete done
// with the keyboard only.
func TestConnectorForms(t *testing.T) {
	findChromium(t)
	base := quarryServe(t)
	requirePlatform(t, base)
	b := newTab(t, base)

	b.open("/ui/sources")
	b.login()
	b.click("new source", "#cn-new")
	b.do("fill confluence",
		chromedp.SendKeys(chromedp.ID("cn-name"), "wiki"),
		setValue("cn-type", "confluence"),
		chromedp.WaitVisible(chromedp.ID("cf-confluence-url")),
		chromedp.SendKeys(chromedp.ID("cf-confluence-url"), "http://127.0.0.1:9"),
		chromedp.SendKeys(chromedp.ID("cf-confluence-username"), "me"),
		chromedp.SendKeys(chromedp.ID("cf-confluence-password"), "pw"),
		chromedp.SendKeys(chromedp.ID("cf-confluence-api_token"), "tok"),
		chromedp.SendKeys(chromedp.ID("cf-confluence-spaces"), "ENG, HR"),
	)
	b.click("save", "#cn-save")
	b.waitJS("api_token message", `document.getElementById("err-confluence-api_token").textContent.includes("mutually exclusive")`, 15*time.Second)
	if id := eval[string](b, `document.activeElement.id`); id != "cf-confluence-api_token" {
		t.Errorf("focus after the 422 is on %q, want the api_token field", id)
	}
	if eval[bool](b, `!document.querySelector('fieldset[data-kind="azure"]').disabled`) {
		t.Error("the Azure fieldset is enabled while Confluence is chosen")
	}
	b.checkA11y("confluence form")
	b.checkLayout("confluence-form-invalid")

	b.do("drop the password", setValue("cf-confluence-password", ""))
	b.click("save again", "#cn-save")
	b.waitJS("source listed", `[...document.querySelectorAll("#cn-table tbody tr")].some(tr => tr.textContent.includes("wiki"))`, 15*time.Second)

	// Nothing listens on port 9: the check fails and says why.
	b.click("test connection", `button[aria-label="Test connection of wiki"]`)
	b.waitJS("connection result", `/success|failure/.test(document.querySelector("#cn-table .check-cell").textContent)`, 60*time.Second)
	cell := eval[string](b, `document.querySelector("#cn-table .check-cell").textContent`)
	if !strings.HasPrefix(cell, "failure") || len(cell) < len("failure")+5 {
		t.Errorf("connection cell %q, want a failure with its reason", cell)
	}
	b.shot("sources-check-failed")

	// Delete with the keyboard: Enter on Delete, Shift+Tab from "Keep" to the confirmation.
	b.do("focus delete", chromedp.Focus(chromedp.CSS(`button[aria-label="Delete wiki"]`)), chromedp.KeyEvent(kb.Enter))
	b.waitJS("confirmation", `document.activeElement.textContent === "Keep"`, 5*time.Second)
	b.do("confirm", chromedp.KeyEvent(kb.Tab, chromedp.KeyModifiers(kb.ModifierShift)))
	if txt := eval[string](b, `document.activeElement.textContent`); txt != "Delete wiki" {
		t.Fatalf("focus before confirming is on %q", txt)
	}
	b.do("press Enter", chromedp.KeyEvent(kb.Enter))
	b.waitJS("deleted", `!document.getElementById("cn-empty").hidden && document.activeElement.id === "cn-new"`, 15*time.Second)
}
