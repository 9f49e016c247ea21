// Jobs: list with status and live progress (polled while anything runs), details with step
// counts, failed files and their errors, download of the results, cancel.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const ACTIVE = new Set(["SCHEDULED", "IN_PROGRESS"]);
  const POLL_MS = 1500;
  let jobs = [], open = null, timer = null;
  const workflowFilter = new URLSearchParams(location.search).get("workflow_id") || "";
  const details = new Map(); // job id → JobDetails

  // progress returns {done, total} in files: the API's own counts when it gives them, else the
  // partition step's node stats.
  function progress(job, d) {
    const p = job.progress || (d && d.progress);
    if (p && (p.total !== undefined || p.files_total !== undefined)) {
      const total = p.total ?? p.files_total, done = p.done ?? p.files_done ?? ((p.succeeded || 0) + (p.failed || 0));
      return { done, total, failed: p.failed || 0, listing: !!p.listing, skipped: p.skipped || 0 };
    }
    const stats = (d && d.node_stats) || [];
    const n = stats.find((s) => s.node_type === "partition") || stats[0];
    if (!n) return null;
    const total = (n.ready || 0) + (n.in_progress || 0) + (n.success || 0) + (n.failure || 0);
    return { done: (n.success || 0) + (n.failure || 0), total, failed: n.failure || 0 };
  }

  function progressCell(job) {
    const p = progress(job, details.get(job.id));
    if (!p) return ACTIVE.has(job.status) ? "starting…" : "—";
    const label = p.done + " / " + p.total + " files" + (p.listing ? ", listing…" : "") + (p.failed ? " (" + p.failed + " failed)" : "") +
      (p.skipped ? ", " + p.skipped + " unchanged" : "");
    return [Q.el("progress", { max: Math.max(p.total, 1), value: p.done, "aria-label": "Progress: " + label }), Q.el("span", { class: "sub" }, label)];
  }

  function runtime(job) {
    if (job.runtime) return String(job.runtime).replace(/^PT/, "").toLowerCase();
    if (ACTIVE.has(job.status) && job.created_at) return Math.round((Date.now() - new Date(job.created_at)) / 1000) + "s";
    return "";
  }

  function row(job) {
    return Q.el("tr", { "data-id": job.id, "data-status": job.status },
      Q.el("td", {}, Q.el("a", { href: "#" + job.id, onclick: (ev) => { ev.preventDefault(); openDetail(job.id, true); } },
        Q.el("strong", {}, job.workflow_name || "—")), Q.el("span", { class: "sub" }, job.job_type || "")),
      // A completed job whose files partly failed says so in its status, as its details do.
      Q.el("td", { "data-label": "Status" }, Q.badge(String(job.status).toUpperCase() === "COMPLETED" && job.progress && job.progress.failed > 0 ? "COMPLETED_WITH_ERRORS" : job.status)),
      Q.el("td", { "data-label": "Progress" }, progressCell(job)),
      Q.el("td", { "data-label": "Started" }, Q.fmtTime(job.created_at)),
      Q.el("td", { "data-label": "Runtime" }, runtime(job)),
      Q.el("td", { class: "actions-cell" },
        Q.el("button", { type: "button", "aria-label": "Details of the job of " + (job.workflow_name || job.id), onclick: () => openDetail(job.id, true) }, "Details")));
  }

  async function load() {
    try {
      jobs = (await Q.api("GET", "/api/v1/jobs/", { query: { status: $("jb-status").value, workflow_id: workflowFilter } })) || [];
      jobs.sort((a, b) => String(b.created_at).localeCompare(String(a.created_at)));
      await Promise.all(jobs.filter((j) => ACTIVE.has(j.status) || !details.has(j.id)).slice(0, 20).map(async (j) => {
        try { details.set(j.id, await Q.api("GET", "/api/v1/jobs/" + j.id + "/details")); } catch (_) { /* progress stays unknown */ }
      }));
      $("jb-table").tBodies[0].replaceChildren(...jobs.map(row));
      $("jb-table").hidden = jobs.length === 0;
      if (jobs.length === 0 && !workflowFilter && !$("jb-status").value) await Q.guide($("jb-empty"), "jobs");
      else {
        $("jb-empty").hidden = jobs.length > 0;
        if (jobs.length === 0) $("jb-empty").textContent = "No jobs match; choose another status or show all jobs.";
      }
    } catch (e) {
      $("jb-empty").hidden = false;
      $("jb-empty").textContent = "Could not load jobs: " + Q.errorText(e);
    }
    if (open) await refreshDetail();
    schedule();
  }

  function schedule() {
    clearTimeout(timer);
    const busy = jobs.some((j) => ACTIVE.has(j.status)) || (open && ACTIVE.has(open.status));
    if (busy) timer = setTimeout(load, POLL_MS);
  }

  function fact(dt, dd) { return [Q.el("dt", {}, dt), Q.el("dd", {}, dd)]; }

  async function openDetail(id, focus) {
    open = { id, status: "" };
    $("jb-detail").hidden = false;
    await refreshDetail();
    if (focus) $("jb-detail").focus();
    history.replaceState(null, "", location.pathname + location.search + "#" + id);
    schedule();
  }

  async function refreshDetail() {
    const id = open.id;
    let job, d, failed;
    try {
      [job, d, failed] = await Promise.all([
        Q.api("GET", "/api/v1/jobs/" + id),
        Q.api("GET", "/api/v1/jobs/" + id + "/details").catch(() => null),
        Q.api("GET", "/api/v1/jobs/" + id + "/failed-files").catch(() => null)]);
    } catch (e) {
      $("jb-facts").replaceChildren(...fact("Error", Q.errorText(e)));
      return;
    }
    if (!open || open.id !== id) return;
    open.status = job.status;
    if (d) details.set(id, d);
    $("jb-detail-title").textContent = "Job of " + (job.workflow_name || "workflow");
    $("jb-facts").replaceChildren(
      ...fact("Status", Q.badge(job.status)),
      ...(d && d.processing_status ? fact("Outcome", Q.badge(d.processing_status)) : []),
      ...fact("Job ID", job.id),
      ...fact("Started", Q.fmtTime(job.created_at)),
      ...(runtime(job) ? fact("Runtime", runtime(job)) : []),
      ...(d && d.message ? fact("Message", d.message) : []));
    const p = progress(job, d);
    $("jb-progress-wrap").hidden = !p;
    if (p) {
      $("jb-progress").max = Math.max(p.total, 1);
      $("jb-progress").value = p.done;
      $("jb-progress-label").textContent = "Files processed: " + p.done + " of " + p.total + (p.listing ? " (still listing the source)" : "") +
        (p.failed ? " — " + p.failed + " failed" : "") + (p.skipped ? " — " + p.skipped + " unchanged, skipped" : "");
    }
    $("jb-nodes").tBodies[0].replaceChildren(...((d && d.node_stats) || []).map((n) => Q.el("tr", {},
      Q.el("td", {}, n.node_name || n.node_type), Q.el("td", {}, String(n.ready ?? 0)), Q.el("td", {}, String(n.in_progress ?? 0)),
      Q.el("td", {}, String(n.success ?? 0)), Q.el("td", {}, String(n.failure ?? 0)))));
    const ff = (failed && failed.failed_files) || [];
    $("jb-failed").replaceChildren(...ff.map((f) => Q.el("li", {}, Q.el("strong", {}, f.document), Q.el("span", { class: "err" }, f.error))));
    $("jb-failed-empty").hidden = ff.length > 0;
    const outs = job.output_node_files || [];
    // Results are named by their source document, with where the destination wrote them.
    $("jb-outputs").replaceChildren(...outs.map((o) => {
      const name = o.document || o.file_id;
      return Q.el("li", {},
        Q.el("button", { type: "button", "aria-label": "Download the elements of " + name, onclick: (ev) => downloadOutput(job, o, ev.currentTarget) }, "Download"),
        " ", Q.el("strong", {}, name),
        o.destination ? Q.el("span", { class: "sub" }, "written to " + o.destination) : null);
    }));
    $("jb-outputs-empty").hidden = outs.length > 0;
    $("jb-cancel").hidden = !ACTIVE.has(job.status);
  }

  async function downloadOutput(job, o, btn) {
    btn.disabled = true;
    try {
      const res = await Q.api("GET", "/api/v1/jobs/" + job.id + "/download", { query: { file_id: o.file_id, node_id: o.node_id }, raw: true });
      const name = String(o.document || o.file_id).split(/[\\/]/).pop().replace(/\.json$/i, "") + ".json";
      Q.download(await res.blob(), name);
    } catch (e) {
      Q.toast("Download failed: " + Q.errorText(e), true);
    } finally {
      btn.disabled = false;
    }
  }

  Q.onReady(() => {
    $("jb-status").addEventListener("change", load);
    $("jb-close").addEventListener("click", () => {
      $("jb-detail").hidden = true;
      const id = open && open.id;
      open = null;
      history.replaceState(null, "", location.pathname + location.search);
      const b = id && document.querySelector('#jb-table tr[data-id="' + id + '"] button');
      if (b) b.focus();
    });
    $("jb-cancel").addEventListener("click", async () => {
      try {
        await Q.api("POST", "/api/v1/jobs/" + open.id + "/cancel");
        Q.toast("Job cancelled.");
      } catch (e) {
        Q.toast("Cancel failed: " + Q.errorText(e), true);
      }
      load();
    });
    if (workflowFilter) {
      $("jb-workflow-filter").hidden = false;
      $("jb-workflow-clear").href = location.pathname;
    }
    // Only a job ID (a UUID) is taken from the address: a crafted link's "#../sources/ID?" was
    // spliced into the API paths below as dot segments and a query, reaching other endpoints.
    const hash = location.hash.slice(1);
    if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(hash)) openDetail(hash, false);
    load();
  });
})();
