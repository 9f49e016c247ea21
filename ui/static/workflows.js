// Workflows: create and edit (source, partition and chunking settings, destination, schedule),
// run now, delete, through /api/v1/workflows.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const CRON = { "*/15 * * * *": "every 15 minutes", "0 * * * *": "every hour", "0 */2 * * *": "every 2 hours",
    "0 */4 * * *": "every 4 hours", "0 */6 * * *": "every 6 hours", "0 */8 * * *": "every 8 hours",
    "0 */10 * * *": "every 10 hours", "0 */12 * * *": "every 12 hours", "0 0 * * *": "daily", "0 0 * * 0": "weekly", "0 0 1 * *": "monthly" };
  const CHUNK_SUBTYPE = { basic: "chunk_by_character", by_title: "chunk_by_title", by_page: "chunk_by_page", by_similarity: "chunk_by_similarity" };
  const CHUNK_VALUE = Object.fromEntries(Object.entries(CHUNK_SUBTYPE).map(([k, v]) => [v, k]));
  let sources = [], destinations = [], workflows = [], editing = null;
  const lastJob = new Map(); // workflow id → its newest job

  function schedulePhrase(s) {
    if (!s) return "";
    if (typeof s === "string") return s;
    const e = s.crontab_entries && s.crontab_entries[0];
    return e ? CRON[e.cron_expression] || e.cron_expression : "";
  }

  function nameOf(list, id) {
    const c = list.find((x) => x.id === id);
    return c ? c.name : id ? id.slice(0, 8) + "…" : "—";
  }

  function options(select, list, what) {
    const keep = select.value;
    select.replaceChildren(Q.el("option", { value: "" }, list.length ? "Choose a " + what : "No " + what + "s yet — create one first"),
      ...list.map((c) => Q.el("option", { value: c.id }, c.name + " (" + c.type + ")")));
    select.value = keep;
  }

  function nodes() {
    const settings = { strategy: $("wf-strategy").value, pdf_infer_table_structure: $("wf-tables").checked };
    const langs = $("wf-languages").value.split(/[\s,+]+/).filter(Boolean);
    if (langs.length) settings.languages = langs;
    const out = [{ name: "Partitioner", type: "partition", subtype: $("wf-strategy").value === "vlm" ? "vlm" : "unstructured_api", settings }];
    const chunk = $("wf-chunking").value;
    if (chunk) {
      const cs = {};
      for (const [id, key] of [["wf-maxchars", "max_characters"], ["wf-newafter", "new_after_n_chars"], ["wf-overlap", "overlap"]]) {
        if ($(id).value !== "") cs[key] = Number($(id).value);
      }
      out.push({ name: "Chunker", type: "chunk", subtype: CHUNK_SUBTYPE[chunk], settings: cs });
    }
    return out;
  }

  function fill(w) {
    $("wf-name").value = w.name;
    $("wf-source").value = (w.sources || [])[0] || "";
    $("wf-destination").value = (w.destinations || [])[0] || "";
    $("wf-schedule").value = schedulePhrase(w.schedule);
    $("wf-reprocess").checked = !!w.reprocess_all;
    for (const n of w.workflow_nodes || []) {
      const s = n.settings || {};
      if (n.type === "partition") {
        $("wf-strategy").value = s.strategy || (n.subtype === "vlm" ? "vlm" : "auto");
        $("wf-languages").value = (s.languages || []).join(", ");
        $("wf-tables").checked = s.pdf_infer_table_structure !== false;
      } else if (n.type === "chunk") {
        $("wf-chunking").value = CHUNK_VALUE[n.subtype] || "";
        $("wf-maxchars").value = s.max_characters ?? "";
        $("wf-newafter").value = s.new_after_n_chars ?? "";
        $("wf-overlap").value = s.overlap ?? "";
      }
    }
  }

  function openEditor(w) {
    editing = w || null;
    $("wf-form").reset();
    Q.clearErrors($("wf-form"));
    $("wf-editor-title").textContent = w ? "Edit workflow “" + w.name + "”" : "New workflow";
    if (w) fill(w);
    $("wf-editor").hidden = false;
    $("wf-new").hidden = true;
    $("wf-name").focus();
  }

  function closeEditor() {
    $("wf-editor").hidden = true;
    $("wf-new").hidden = false;
    editing = null;
    $("wf-new").focus();
  }

  async function save(ev) {
    ev.preventDefault();
    const form = $("wf-form");
    Q.clearErrors(form);
    const missing = [];
    if (!$("wf-name").value.trim()) missing.push(["wf-name", "err-wf-name", "Enter a name."]);
    if (!$("wf-source").value) missing.push(["wf-source", "err-wf-source", "Choose a source."]);
    if (!$("wf-destination").value) missing.push(["wf-destination", "err-wf-destination", "Choose a destination."]);
    if (missing.length) {
      for (const [f, e, m] of missing) { $(e).textContent = m; $(f).setAttribute("aria-invalid", "true"); }
      $(missing[0][0]).focus();
      return;
    }
    const body = {
      name: $("wf-name").value.trim(),
      workflow_type: "custom",
      source_id: $("wf-source").value,
      destination_id: $("wf-destination").value,
      workflow_nodes: nodes(),
      schedule: $("wf-schedule").value || null,
      reprocess_all: $("wf-reprocess").checked,
    };
    $("wf-save").disabled = true;
    try {
      const w = editing
        ? await Q.api("PUT", "/api/v1/workflows/" + editing.id, { json: body })
        : await Q.api("POST", "/api/v1/workflows/", { json: body });
      Q.toast((editing ? "Saved " : "Created ") + w.name + ".");
      closeEditor();
      await load();
    } catch (e) {
      const map = { name: "wf-name", source_id: "wf-source", destination_id: "wf-destination", schedule: "wf-schedule" };
      Q.fieldErrors(e, (loc) => {
        const l = loc.filter((x) => x !== "body");
        return map[l[0]] ? $(map[l[0]]) : null;
      }, $("wf-form-error"));
    } finally {
      $("wf-save").disabled = false;
    }
  }

  async function run(w, btn) {
    btn.disabled = true;
    try {
      const job = await Q.api("POST", "/api/v1/workflows/" + w.id + "/run");
      const link = Q.el("a", { href: Q.prefix + "jobs#" + job.id }, "View job");
      const cell = btn.closest("tr").querySelector(".run-note");
      cell.replaceChildren("Job started. ", link);
      Q.toast("Started a job for " + w.name + ".");
    } catch (e) {
      Q.toast("Run failed: " + Q.errorText(e), true);
    } finally {
      btn.disabled = false;
    }
  }

  function confirmDelete(w, cell) {
    const keep = [...cell.childNodes];
    const no = Q.el("button", { type: "button", onclick: () => { cell.replaceChildren(...keep); keep[2].focus(); } }, "Keep");
    const yes = Q.el("button", { type: "button", class: "danger", onclick: async () => {
      try {
        await Q.api("DELETE", "/api/v1/workflows/" + w.id);
        Q.toast("Deleted " + w.name + ".");
        await load();
        $("wf-new").focus();
      } catch (e) {
        Q.toast("Delete failed: " + Q.errorText(e), true);
        cell.replaceChildren(...keep);
      }
    } }, "Delete " + w.name);
    cell.replaceChildren(Q.el("span", { class: "sr-only" }, "Really delete?"), yes, no);
    no.focus();
  }

  function row(w) {
    const steps = (w.workflow_nodes || []).map((n) => n.type + (n.settings && n.settings.strategy ? " (" + n.settings.strategy + ")" : n.subtype ? " (" + n.subtype + ")" : "")).join(" → ");
    return Q.el("tr", { "data-id": w.id },
      Q.el("td", {}, Q.el("strong", {}, w.name), Q.el("span", { class: "sub" }, steps), Q.el("span", { class: "sub run-note", "aria-live": "polite" })),
      Q.el("td", { "data-label": "From → to" }, nameOf(sources, (w.sources || [])[0]), " → ", nameOf(destinations, (w.destinations || [])[0])),
      Q.el("td", { "data-label": "Schedule" }, schedulePhrase(w.schedule) || "by hand"),
      Q.el("td", { "data-label": "Status" }, Q.badge(w.status || "active")),
      Q.el("td", { "data-label": "Last run" }, lastRun(w)),
      Q.el("td", { class: "actions-cell" },
        Q.el("button", { type: "button", class: "primary", "aria-label": "Run " + w.name + " now", onclick: (ev) => run(w, ev.currentTarget) }, "Run now"),
        Q.el("button", { type: "button", "aria-label": "Edit " + w.name, onclick: () => openEditor(w) }, "Edit"),
        Q.el("button", { type: "button", class: "danger", "aria-label": "Delete " + w.name, onclick: (ev) => confirmDelete(w, ev.currentTarget.parentElement) }, "Delete")));
  }

  function lastRun(w) {
    const j = lastJob.get(w.id);
    if (!j) return "never";
    // A run whose files partly failed is COMPLETED for the API; say so here, or the failures
    // are seen only on the job's page.
    const failed = (j.progress && j.progress.failed) || 0;
    const status = String(j.status).toUpperCase() === "COMPLETED" && failed > 0 ? "COMPLETED_WITH_ERRORS" : j.status;
    return [Q.badge(status), failed ? Q.el("span", { class: "sub" }, " " + failed + " failed ") : "", Q.el("a", { class: "sub", href: Q.prefix + "jobs?workflow_id=" + encodeURIComponent(w.id), "aria-label": "All jobs of " + w.name }, Q.fmtTime(j.created_at))];
  }

  async function load() {
    try {
      const jobs = (await Q.api("GET", "/api/v1/jobs/").catch(() => [])) || [];
      lastJob.clear();
      for (const j of jobs) {
        const cur = lastJob.get(j.workflow_id);
        if (!cur || String(j.created_at) > String(cur.created_at)) lastJob.set(j.workflow_id, j);
      }
      [sources, destinations, workflows] = await Promise.all([
        Q.api("GET", "/api/v1/sources/"), Q.api("GET", "/api/v1/destinations/"),
        Q.api("GET", "/api/v1/workflows/", { query: { page_size: 100 } })]);
      sources = sources || []; destinations = destinations || []; workflows = workflows || [];
      workflows.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
      options($("wf-source"), sources, "source");
      options($("wf-destination"), destinations, "destination");
      $("wf-table").tBodies[0].replaceChildren(...workflows.map(row));
      $("wf-table").hidden = workflows.length === 0;
      if (workflows.length === 0) await Q.guide($("wf-empty"), "workflows", () => openEditor(null));
      else $("wf-empty").hidden = true;
    } catch (e) {
      $("wf-empty").hidden = false;
      $("wf-empty").textContent = "Could not load workflows: " + Q.errorText(e);
    }
  }

  Q.onReady(() => {
    $("wf-new").addEventListener("click", () => openEditor(null));
    $("wf-cancel").addEventListener("click", closeEditor);
    $("wf-form").addEventListener("submit", save);
    $("wf-editor").addEventListener("keydown", (ev) => { if (ev.key === "Escape") closeEditor(); });
    load();
  });
})();
