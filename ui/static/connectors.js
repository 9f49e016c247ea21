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
    return cfg;
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
      Q.toast((editing ? "Saved " : "Created ") + saved.name + ".");
      closeEditor();
      await load();
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

  function row(item) {
    const check = Q.el("td", { class: "check-cell", "aria-live": "polite" }, item._check ? Q.badge(item._check) : "—");
    const actions = Q.el("td", { class: "actions-cell" },
      Q.el("button", { type: "button", "aria-label": "Edit " + item.name, onclick: () => openEditor(item) }, "Edit"),
      Q.el("button", { type: "button", "aria-label": "Test connection of " + item.name, onclick: (ev) => testConnection(item, check, ev.currentTarget) }, "Test connection"),
      Q.el("button", { type: "button", class: "danger", "aria-label": "Delete " + item.name, onclick: (ev) => confirmDelete(item, ev.currentTarget.parentElement) }, "Delete"));
    return Q.el("tr", { "data-id": item.id },
      Q.el("td", {}, Q.el("strong", {}, item.name), Q.el("span", { class: "sub" }, "created " + Q.fmtTime(item.created_at))),
      Q.el("td", {}, kindLabel(item.type)),
      Q.el("td", {}, summary(item)),
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
    btn.disabled = true;
    cell.replaceChildren(Q.badge("SCHEDULED"));
    try {
      let check = await Q.api("POST", base + "/" + item.id + "/connection-check");
      const deadline = Date.now() + 60000;
      while (check && check.status === "SCHEDULED" && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 700));
        check = await Q.api("GET", base + "/" + item.id + "/connection-check");
      }
      item._check = check.status;
      const parts = [Q.badge(check.status)];
      if (check.reason) parts.push(Q.el("span", { class: "sub" }, check.reason));
      cell.replaceChildren(...parts);
      Q.toast(item.name + ": connection " + (check.status === "SUCCESS" ? "works." : "failed" + (check.reason ? ": " + check.reason : ".")), check.status !== "SUCCESS");
    } catch (e) {
      cell.replaceChildren(Q.badge("FAILURE"), Q.el("span", { class: "sub" }, Q.errorText(e)));
    } finally {
      btn.disabled = false;
    }
  }

  async function load() {
    try {
      const prev = new Map(items.map((i) => [i.id, i._check]));
      items = (await Q.api("GET", base + "/")) || [];
      items.sort((a, b) => a.name.localeCompare(b.name));
      items.forEach((i) => { i._check = prev.get(i.id); });
      $("cn-table").tBodies[0].replaceChildren(...items.map(row));
      $("cn-empty").hidden = items.length > 0;
      $("cn-table").hidden = items.length === 0;
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
