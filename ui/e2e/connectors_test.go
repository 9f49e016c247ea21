package e2e

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestConnectorForms covers what the happy path does not: a Confluence source whose auth
// settings conflict (the API's messages land next to the fields that caused them, and focus
// moves to the first), a connection test that fails with its reason shown, a delete done
// with the keyboard only, then the Confluence gateway settings (OAuth token, cloud id,
// archived pages, media hosts): refused values shown at their fields, stored as typed, the
// OAuth token write-only, and not reused once the cloud id changes.
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

	confluenceGateway(t, b, base)
}

func confluenceGateway(t *testing.T, b *tab, base string) {
	b.click("new source", "#cn-new")
	b.do("fill confluence gateway",
		chromedp.SendKeys(chromedp.ID("cn-name"), "cloudwiki"),
		setValue("cn-type", "confluence"),
		chromedp.WaitVisible(chromedp.ID("cf-confluence-oauth_token")),
		chromedp.SendKeys(chromedp.ID("cf-confluence-url"), "http://127.0.0.1:9"),
		chromedp.SendKeys(chromedp.ID("cf-confluence-username"), "me"),
		chromedp.SendKeys(chromedp.ID("cf-confluence-api_token"), "tok"),
		chromedp.SendKeys(chromedp.ID("cf-confluence-oauth_token"), "oat"),
		chromedp.Click(chromedp.ID("cf-confluence-cloud")),
		chromedp.SendKeys(chromedp.ID("cf-confluence-cloud_id"), "abc-123"),
		chromedp.Click(chromedp.ID("cf-confluence-include_archived")),
		chromedp.SendKeys(chromedp.ID("cf-confluence-media_hosts"), "media.example.com, https://bad/x"),
	)
	b.click("save", "#cn-save")
	b.waitJS("media_hosts message", `document.getElementById("err-confluence-media_hosts").textContent.includes("host name")`, 15*time.Second)
	if id := eval[string](b, `document.activeElement.id`); id != "cf-confluence-media_hosts" {
		t.Errorf("focus after the 422 is on %q, want the media_hosts field", id)
	}

	b.do("fix the hosts", setValue("cf-confluence-media_hosts", "media.example.com, cdn.example.com"))
	b.click("save with two auths", "#cn-save")
	b.waitJS("oauth_token message", `document.getElementById("err-confluence-oauth_token").textContent.includes("exclusive")`, 15*time.Second)
	if id := eval[string](b, `document.activeElement.id`); id != "cf-confluence-oauth_token" {
		t.Errorf("focus after the 422 is on %q, want the oauth_token field", id)
	}

	b.do("OAuth only", setValue("cf-confluence-username", ""), setValue("cf-confluence-api_token", ""))
	b.click("save OAuth", "#cn-save")
	b.waitJS("gateway source listed", `[...document.querySelectorAll("#cn-table tbody tr")].some(tr => tr.textContent.includes("cloudwiki"))`, 15*time.Second)
	cfg := sourceConfig(t, base, "cloudwiki")
	for k, want := range map[string]any{"oauth_token": "**********", "cloud": true, "cloud_id": "abc-123", "scoped_token": false,
		"include_archived": true, "media_hosts": []any{"media.example.com", "cdn.example.com"}, "username": nil, "api_token": nil} {
		if !reflect.DeepEqual(cfg[k], want) {
			t.Errorf("stored %s = %#v, want %#v", k, cfg[k], want)
		}
	}

	// Editing shows what is stored, except the token: only that one is stored.
	b.click("edit", `button[aria-label="Edit cloudwiki"]`)
	b.waitJS("editor filled", `document.getElementById("cf-confluence-cloud_id").value === "abc-123"`, 10*time.Second)
	if got := eval[string](b, `[document.getElementById("cf-confluence-oauth_token").value, document.getElementById("cf-confluence-oauth_token").placeholder,
		document.querySelector('[data-secret-note="oauth_token"]').hidden, document.getElementById("cf-confluence-include_archived").checked,
		document.getElementById("cf-confluence-scoped_token").checked, document.getElementById("cf-confluence-media_hosts").value].join("|")`); got != "|•••••••• (stored)|false|true|false|media.example.com, cdn.example.com" {
		t.Errorf("edit form (token|placeholder|note hidden|archived|scoped|hosts) = %q", got)
	}

	// A new cloud id is a new target: the stored token is not sent there.
	b.do("new cloud id", setValue("cf-confluence-cloud_id", "def-456"))
	b.click("save retargeted", "#cn-save")
	b.waitJS("token required again", `document.getElementById("err-confluence-oauth_token").textContent === "The cloud id changed, so the stored value is not sent there: enter it again."`, 15*time.Second)
	b.checkA11y("confluence gateway form")
	b.checkLayout("confluence-gateway-invalid")
	b.do("token again", chromedp.SendKeys(chromedp.ID("cf-confluence-oauth_token"), "oat2"))
	b.click("save with the token", "#cn-save")
	b.waitJS("editor closed", `document.getElementById("cn-editor").hidden`, 15*time.Second)
	if cfg := sourceConfig(t, base, "cloudwiki"); cfg["cloud_id"] != "def-456" || cfg["oauth_token"] != "**********" {
		t.Errorf("after the edit: cloud_id %v, oauth_token %v", cfg["cloud_id"], cfg["oauth_token"])
	}
}

// sourceConfig returns the config the API returns for the source named name.
func sourceConfig(t *testing.T, base, name string) map[string]any {
	t.Helper()
	for _, s := range apiList(t, base, "/api/v1/sources/") {
		if s["name"] == name {
			cfg, _ := s["config"].(map[string]any)
			return cfg
		}
	}
	t.Fatalf("no source %q", name)
	return nil
}
