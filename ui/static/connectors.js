// Sources and destinations: list, create, edit, delete and test connectors through
// /api/v1/sources and /api/v1/destinations. Secret fields are write-only: the API returns them
// masked and the form never shows a stored value, only that one exists.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const MASK = "**********";
  const role = document.body.dataset.role; // "source" | "destination"
  const base = "/api/v1/" + role + "s";
  let editing = null; // the connector being edited, or null when creating
  let items = [];

  function kindSet(type) { return document.querySelector('fieldset.kind[data-kind="' + type + '"]'); }

  // showKind shows one kind's fieldset; the others are disabled so they leave the tab order and
  // the submitted config.
  function showKind(type) {
    document.querySelectorAll("fieldset.kind").forEach((fs) => {
      const on = fs.dataset.kind === type;
      fs.hidden = !on;
      fs.disabled = !on;
    });
  }

  function resetForm() {
    const form = $("cn-form");
    form.reset();
    Q.clearErrors(form);
    form.querySelectorAll("[data-secret-note]").forEach((n) => { n.hidden = true; });
    form.querySelectorAll("input[data-secret]").forEach((n) => { n.placeholder = ""; });
  }

  function openEditor(item) {
    editing = item || null;
    resetForm();
    $("cn-editor-title").textContent = item ? "Edit " + role + " “" + item.name + "”" : "New " + role;
    $("cn-name").disabled = !!item; // the API cannot rename or retype a connector
    $("cn-type").disabled = !!item;
    if (item) {
      $("cn-name").value = item.name;
      $("cn-type").value = item.type;
    }
    showKind($("cn-type").value);
    if (item) fill(item);
    $("cn-editor").hidden = false;
    $("cn-new").hidden = true;
    (item ? kindSet(item.type).querySelector("input:not([disabled])") : $("cn-name")).focus();
  }

  function closeEditor() {
    $("cn-editor").hidden = true;
    $("cn-new").hidden = false;
    editing = null;
    $("cn-new").focus();
  }

  function fill(item) {
    const cfg = item.config || {};
    kindSet(item.type).querySelectorAll("[data-key]").forEach((input) => {
      const v = cfg[input.dataset.key];
      if (input.dataset.input === "checkbox") input.checked = v === true;
      else if (input.dataset.secret) {
        input.value = "";
        const stored = v !== null && v !== undefined && v !== "";
        input.placeholder = stored ? "•••••••• (stored)" : "";
        const note = document.querySelector('fieldset.kind[data-kind="' + item.type + '"] [data-secret-note="' + input.dataset.key + '"]');
        if (note) note.hidden = !stored;
      } else if (input.dataset.input === "list") input.value = Array.isArray(v) ? v.join(", ") : "";
      else input.value = v === null || v === undefined ? "" : String(v);
    });
  }

  function collect(type) {
    const cfg = {};
    const stored = (editing && editing.config) || {};
    kindSet(type).querySelectorAll("[data-key]").forEach((input) => {
      const k = input.dataset.key;
      const raw = input.value.trim();
      switch (input.dataset.input) {
        case "checkbox": cfg[k] = input.checked; break;
        case "number": cfg[k] = raw === "" ? null : Number(raw); break;
        case "list": cfg[k] = raw === "" ? null : raw.split(/[\s,]+/).filter(Boolean); break;
        default:
          if (input.dataset.secret && raw === "" && stored[k] === MASK) cfg[k] = MASK; // keep the stored secret
          else cfg[k] = raw === "" ? null : raw;
      }
    });
    if (type === "azure") fromPortalURL(cfg);
    return cfg;
  }

  // fromPortalURL accepts the address the Azure portal shows for a container,
  // https://<account>.blob.core.windows.net/<container>/<folder>, and sends the API what it
  // expects: az://<container>/<folder>, with the account name taken from the host.
  function fromPortalURL(cfg) {
    const m = /^https?:\/\/([a-z0-9]{3,24})\.blob\.core\.windows\.net\/([^/?#]+)\/?([^?#]*)/i.exec(cfg.remote_url || "");
    if (!m) return;
    cfg.remote_url = "az://" + m[2] + "/" + m[3];
    if (!cfg.account_name && !cfg.connection_string) cfg.account_name = m[1].toLowerCase();
  }

  async function save(ev) {
    ev.preventDefault();
    const form = $("cn-form");
    Q.clearErrors(form);
    $("cn-form-error").textContent = "";
    const type = editing ? editing.type : $("cn-type").value;
    const name = $("cn-name").value.trim();
    if (!editing && !name) {
      $("err-name").textContent = "Enter a name.";
      $("cn-name").setAttribute("aria-invalid", "true");
      $("cn-name").focus();
      return;
    }
    const config = collect(type);
    $("cn-save").disabled = true;
    try {
      const saved = editing
        ? await Q.api("PUT", base + "/" + editing.id, { json: { config } })
        : await Q.api("POST", base + "/", { json: { name, type, config } });
      Q.toast((editing ? "Saved " : "Created ") + saved.name + "; testing the connection…");
      closeEditor();
      await load();
      // Every save is followed by a connection test; its result is stored by the API and shown
      // in the list from then on.
      const r = document.querySelector('#cn-table tr[data-id="' + saved.id + '"]');
      const item = items.find((i) => i.id === saved.id);
      if (r && item) testConnection(item, r.querySelector(".check-cell"), r.querySelector("button[data-test]"));
    } catch (e) {
      Q.fieldErrors(e, (loc) => {
        const l = loc.filter((x) => x !== "body");
        if (l[0] === "name") return $("cn-name");
        if (l[0] === "type") return $("cn-type");
        if (l[0] === "config" && l[1]) return $("cf-" + type + "-" + l[1]);
        return null;
      }, $("cn-form-error"));
      // A duplicate name comes back as a plain message; it belongs next to the name field.
      if (typeof e.detail === "string" && /name/i.test(e.detail) && !editing) {
        $("err-name").textContent = e.detail;
        $("cn-form-error").textContent = "";
        $("cn-name").setAttribute("aria-invalid", "true");
        $("cn-name").focus();
      }
    } finally {
      $("cn-save").disabled = false;
    }
  }

  function kindLabel(type) {
    const opt = [...$("cn-type").options].find((o) => o.value === type);
    return opt ? opt.textContent : type;
  }

  function summary(item) {
    const c = item.config || {};
    return c.remote_url || c.url || c.path || "";
  }

  // checkCell shows a connection check: its status, the reason of a failure and when it ran.
  function checkParts(check) {
    if (!check) return ["not tested yet"];
    const parts = [Q.badge(check.status)];
    if (check.reason) parts.push(Q.el("span", { class: "sub" }, check.reason));
    const when = check.reported_at || check.created_at;
    if (when && check.status !== "SCHEDULED") parts.push(Q.el("span", { class: "sub" }, "tested " + Q.fmtTime(when)));
    return parts;
  }

  function row(item) {
    const check = Q.el("td", { class: "check-cell", "data-label": "Connection", "aria-live": "polite" }, ...checkParts(item._check));
    const actions = Q.el("td", { class: "actions-cell" },
      Q.el("button", { type: "button", "aria-label": "Edit " + item.name, onclick: () => openEditor(item) }, "Edit"),
      Q.el("button", { type: "button", "data-test": "", "aria-label": "Test connection of " + item.name, onclick: (ev) => testConnection(item, check, ev.currentTarget) }, "Test connection"),
      Q.el("button", { type: "button", class: "danger", "aria-label": "Delete " + item.name, onclick: (ev) => confirmDelete(item, ev.currentTarget.parentElement) }, "Delete"));
    return Q.el("tr", { "data-id": item.id },
      Q.el("td", {}, Q.el("strong", {}, item.name), Q.el("span", { class: "sub" }, "created " + Q.fmtTime(item.created_at))),
      Q.el("td", { "data-label": "Type" }, kindLabel(item.type)),
      Q.el("td", { "data-label": "Location" }, summary(item)),
      check, actions);
  }

  function confirmDelete(item, cell) {
    const keep = [...cell.childNodes];
    const no = Q.el("button", { type: "button", onclick: () => { cell.replaceChildren(...keep); keep[2].focus(); } }, "Keep");
    const yes = Q.el("button", { type: "button", class: "danger", onclick: async () => {
      try {
        await Q.api("DELETE", base + "/" + item.id);
        Q.toast("Deleted " + item.name + ".");
        await load();
        $("cn-new").focus();
      } catch (e) {
        Q.toast("Delete failed: " + Q.errorText(e), true);
        cell.replaceChildren(...keep);
      }
    } }, "Delete " + item.name);
    cell.replaceChildren(Q.el("span", { class: "sr-only" }, "Really delete?"), yes, no);
    no.focus();
  }

  async function testConnection(item, cell, btn) {
    if (btn) btn.disabled = true;
    cell.replaceChildren(Q.badge("SCHEDULED"), Q.el("span", { class: "sub" }, "testing…"));
    try {
      let check = await Q.api("POST", base + "/" + item.id + "/connection-check");
      const deadline = Date.now() + 60000;
      while (check && check.status === "SCHEDULED" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 700));
        check = await Q.api("GET", base + "/" + item.id + "/connection-check");
      }
      item._check = check;
      cell.replaceChildren(...checkParts(check));
      Q.toast(item.name + ": connection " + (check.status === "SUCCESS" ? "works." : "failed" + (check.reason ? ": " + check.reason : ".")), check.status !== "SUCCESS");
    } catch (e) {
      cell.replaceChildren(Q.badge("FAILURE"), Q.el("span", { class: "sub" }, Q.errorText(e)));
    } finally {
      if (btn) btn.disabled = false;
    }
  }

  async function load() {
    try {
      const prev = new Map(items.map((i) => [i.id, i._check]));
      items = (await Q.api("GET", base + "/")) || [];
      items.sort((a, b) => a.name.localeCompare(b.name));
      // The last connection check of each connector is stored by the API: show it.
      await Promise.all(items.map(async (i) => {
        try { i._check = await Q.api("GET", base + "/" + i.id + "/connection-check"); } catch (_) { i._check = prev.get(i.id) || null; }
      }));
      $("cn-table").tBodies[0].replaceChildren(...items.map(row));
      $("cn-table").hidden = items.length === 0;
      if (items.length === 0) await Q.guide($("cn-empty"), role + "s", () => openEditor(null));
      else $("cn-empty").hidden = true;
    } catch (e) {
      $("cn-empty").hidden = false;
      $("cn-empty").textContent = "Could not load " + role + "s: " + Q.errorText(e);
    }
  }

  Q.onReady(() => {
    $("cn-new").addEventListener("click", () => openEditor(null));
    $("cn-cancel").addEventListener("click", closeEditor);
    $("cn-type").addEventListener("change", () => showKind($("cn-type").value));
    $("cn-form").addEventListener("submit", save);
    $("cn-editor").addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeEditor(); });
    showKind($("cn-type").value);
    load();
  });
})();
