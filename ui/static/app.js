// Shared helpers of the Quarry UI: the session's API key, fetch with errors turned into
// exceptions, field-level validation messages, and small DOM builders. No framework, no build.
"use strict";
(function () {
  const body = document.body;
  const KEY = "quarry.apiKey";
  const authRequired = body.dataset.authRequired === "true";
  const readyFns = [];
  let ready = false;

  class ApiError extends Error {
    constructor(status, detail) {
      super(typeof detail === "string" ? detail : Array.isArray(detail) ? detail.map((d) => d.msg).join("; ") : "HTTP " + status);
      this.status = status;
      this.detail = detail;
    }
  }

  function key() { return sessionStorage.getItem(KEY) || ""; }

  function headers(extra) {
    const h = Object.assign({}, extra || {});
    if (key()) h["unstructured-api-key"] = key();
    return h;
  }

  // api sends a request to the same origin and returns the parsed JSON (or the Response when
  // opts.raw). Non-2xx answers throw ApiError carrying the server's detail.
  async function api(method, path, opts) {
    opts = opts || {};
    const init = { method, headers: headers(opts.headers) };
    if (opts.json !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(opts.json);
    } else if (opts.form) {
      init.body = opts.form;
    }
    let url = path;
    if (opts.query) {
      const q = new URLSearchParams();
      for (const [k, v] of Object.entries(opts.query)) if (v !== undefined && v !== null && v !== "") q.set(k, v);
      const s = q.toString();
      if (s) url += (url.includes("?") ? "&" : "?") + s;
    }
    let res;
    try {
      res = await fetch(url, init);
    } catch (e) {
      throw new ApiError(0, "The server could not be reached: " + e.message);
    }
    if (res.status === 401 && authRequired) {
      sessionStorage.removeItem(KEY);
      showKeyPanel("The API key was not accepted. Enter it again.");
    }
    if (!res.ok) {
      let detail = res.statusText || "HTTP " + res.status;
      try {
        const j = await res.json();
        if (j && j.detail !== undefined) detail = j.detail;
      } catch (_) { /* not JSON */ }
      if (res.status === 404 && path.startsWith("/api/") && typeof detail === "string" && detail === "Not Found") {
        detail = "The platform API is not available on this server (" + path + ").";
      }
      throw new ApiError(res.status, detail);
    }
    if (opts.raw) return res;
    const text = await res.text();
    return text ? JSON.parse(text) : null;
  }

  // el builds an element; attrs starting with "on" are listeners, children are nodes or text.
  function el(tag, attrs, ...children) {
    const n = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on") && typeof v === "function") n.addEventListener(k.slice(2), v);
      else if (k === "class") n.className = v;
      else if (k === "text") n.textContent = v;
      else n.setAttribute(k, v === true ? "" : v);
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      n.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
    return n;
  }

  let toastTimer;
  function toast(msg, isError) {
    const t = document.getElementById("toast");
    t.textContent = msg;
    t.classList.toggle("error", !!isError);
    t.classList.add("show");
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => t.classList.remove("show"), isError ? 7000 : 3500);
  }

  // sentence turns one item of the API's 422 detail (the reference's wording, kept on the wire
  // for compatibility) into a sentence a person can act on.
  function sentence(d) {
    const msg = String(d.msg || "");
    const field = (d.loc || []).filter((x) => x !== "body" && x !== "config" && x !== "query").join(" ").replace(/_/g, " ");
    switch (d.type) {
      case "missing": return "Enter " + (field ? "the " + field : "a value") + "; it is required.";
      case "string_too_short": return "Enter " + (field ? "the " + field : "a value") + "; it cannot be empty.";
      case "int_parsing": case "int_type": return "Enter a whole number.";
      case "float_parsing": case "float_type": return "Enter a number.";
      case "bool_parsing": case "bool_type": return "Enter true or false.";
      case "uuid_parsing": return "Enter a valid ID (a UUID such as 3fa85f64-5717-4562-b3fc-2c963f66afa6).";
      case "enum": case "literal_error": return "Choose one of " + String((d.ctx && d.ctx.expected) || msg.replace(/^Input should be /, "")).replace(/'/g, "") + ".";
      case "json_invalid": return "This is not valid JSON" + (d.ctx && d.ctx.error ? ": " + d.ctx.error : "") + ".";
      case "secret_required": {
        // Shown at the secret's field: the stored value is not sent to a changed target.
        const m = /^Value error, (.+?) changed,/.exec(msg);
        const changed = m ? m[1].replace(/_/g, " ").replace(/, ([^,]+)$/, " and $1") : "connection settings";
        return "The " + changed + " changed, so the stored value is not sent there: enter it again.";
      }
    }
    let s = msg.replace(/^Value error, /, "").replace(/^Assertion failed, /, "");
    s = s.charAt(0).toUpperCase() + s.slice(1);
    return /[.!?]$/.test(s) ? s : s + ".";
  }

  function errorText(e) {
    if (e instanceof ApiError) {
      if (Array.isArray(e.detail)) return e.detail.map((d) => (d.loc && d.loc.length > 1 ? d.loc.slice(1).join(".") + ": " : "") + sentence(d)).join(" ");
      return String(e.detail);
    }
    return e && e.message ? e.message : String(e);
  }

  // clearErrors resets every validation message inside root.
  function clearErrors(root) {
    root.querySelectorAll(".error").forEach((p) => { p.textContent = ""; });
    root.querySelectorAll("[aria-invalid]").forEach((n) => n.removeAttribute("aria-invalid"));
  }

  // fieldErrors puts the 422 list-form detail next to the fields: locate(loc) returns the
  // input for a location or null. Messages without a field go to the form-level element.
  // Focus moves to the first invalid field so keyboard and screen-reader users land on it.
  function fieldErrors(e, locate, formError) {
    let first = null;
    const rest = [];
    if (e instanceof ApiError && Array.isArray(e.detail)) {
      for (const d of e.detail) {
        const input = locate(d.loc || []);
        const msgEl = input && document.getElementById(errorIdFor(input));
        if (msgEl) {
          const text = (input.dataset && input.dataset.hint && /pattern/.test(d.type || "")) ? input.dataset.hint : sentence(d);
          msgEl.textContent = msgEl.textContent ? msgEl.textContent + " " + text : text;
          input.setAttribute("aria-invalid", "true");
          if (!first) first = input;
        } else {
          rest.push((d.loc && d.loc.filter((x) => x !== "body").length ? d.loc.filter((x) => x !== "body").join(".") + ": " : "") + sentence(d));
        }
      }
    } else {
      rest.push(errorText(e));
    }
    if (formError) formError.textContent = rest.join(" ");
    if (first) first.focus();
    else if (formError && rest.length) formError.scrollIntoView({ block: "nearest" });
  }

  function errorIdFor(input) {
    const ids = (input.getAttribute("aria-describedby") || "").split(/\s+/);
    return ids.find((id) => id.startsWith("err-") || id.endsWith("-error")) || "";
  }

  function fmtTime(s) {
    if (!s) return "";
    const d = new Date(s);
    return isNaN(d) ? s : d.toLocaleString();
  }

  function badge(status) {
    const s = String(status || "").toUpperCase();
    const cls = { COMPLETED: "ok", SUCCESS: "ok", ACTIVE: "ok", FAILED: "fail", FAILURE: "fail", COMPLETED_WITH_ERRORS: "fail",
      IN_PROGRESS: "run", SCHEDULED: "wait", STOPPED: "neutral", INACTIVE: "neutral" }[s] || "neutral";
    return el("span", { class: "badge " + cls }, s.replace(/_/g, " ").toLowerCase());
  }

  function download(blob, name) {
    const url = URL.createObjectURL(blob);
    const a = el("a", { href: url, download: name });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  function onReady(fn) {
    if (ready) fn();
    else readyFns.push(fn);
  }

  function markReady() {
    if (ready) return;
    ready = true;
    document.getElementById("key-change").hidden = !authRequired;
    readyFns.splice(0).forEach((fn) => fn());
  }

  function showKeyPanel(msg) {
    const panel = document.getElementById("key-panel");
    panel.hidden = false;
    document.getElementById("main").hidden = true;
    document.getElementById("key-error").textContent = msg || "";
    document.getElementById("key-input").focus();
  }

  async function submitKey(ev) {
    ev.preventDefault();
    const input = document.getElementById("key-input");
    const errEl = document.getElementById("key-error");
    const k = input.value.trim();
    if (!k) {
      errEl.textContent = "Enter the API key.";
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    const res = await fetch(body.dataset.prefix + "session", { method: "POST", headers: { "unstructured-api-key": k } });
    if (res.status === 429) {
      // The server stops checking keys from an address that sent too many wrong ones.
      const wait = res.headers.get("Retry-After") || "60";
      errEl.textContent = "Too many wrong keys from this address: wait " + wait + " seconds, then try again.";
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    if (!res.ok) {
      errEl.textContent = "This key is not accepted by the server.";
      input.setAttribute("aria-invalid", "true");
      input.focus();
      return;
    }
    sessionStorage.setItem(KEY, k);
    input.value = "";
    input.removeAttribute("aria-invalid");
    document.getElementById("key-panel").hidden = true;
    document.getElementById("main").hidden = false;
    if (ready) location.reload();
    else markReady();
    document.getElementById("main").focus();
  }

  // guide fills container with the four steps from nothing to elements in a destination —
  // source, destination, workflow, run — marking the ones done (from the API's own lists) and
  // making the first one left the obvious next action. onHere, when given, is what the step of
  // the current page does instead of linking to it (open the "new" form).
  async function guide(container, page, onHere) {
    const count = async (k) => { try { return ((await api("GET", "/api/v1/" + k + "/")) || []).length; } catch (_) { return 0; } };
    const [sources, destinations, workflows, jobs] = await Promise.all(["sources", "destinations", "workflows", "jobs"].map(count));
    const steps = [
      { page: "sources", n: sources, title: "Add a source", why: "Where documents come from: a folder on this server, Azure Blob Storage or Confluence." },
      { page: "destinations", n: destinations, title: "Add a destination", why: "Where the elements are written: a folder on this server or Azure Blob Storage." },
      { page: "workflows", n: workflows, title: "Create a workflow", why: "Source → partition (and chunk) → destination, run by hand or on a schedule." },
      { page: "jobs", n: jobs, title: "Run the workflow", why: "Press Run on the Workflows page; each run is a job you can follow here, with its results." },
    ];
    const next = steps.findIndex((s) => s.n === 0);
    const items = steps.map((s, i) => {
      let label;
      if (i === next && s.page === page && onHere) {
        label = el("button", { type: "button", class: "primary", onclick: onHere }, s.title);
      } else if (s.page === "jobs") {
        label = el("a", { href: body.dataset.prefix + "workflows" }, s.title);
      } else {
        label = el("a", { href: body.dataset.prefix + s.page }, s.title);
      }
      return el("li", { class: s.n > 0 ? "done" : i === next ? "next" : "" }, label,
        s.n > 0 ? el("span", { class: "why" }, "Done (" + s.n + ").") : el("span", { class: "why" }, s.why));
    });
    container.replaceChildren(el("section", { class: "guide", "aria-labelledby": "guide-title" },
      el("h2", { id: "guide-title" }, next < 0 ? "Everything is set up" : "Getting started"),
      el("p", {}, next < 0 ? "Sources, destinations, workflows and jobs all exist; the lists are below." :
        "Four steps take a collection of documents to elements in a destination. To try one document first, use the ",
        next < 0 ? "" : el("a", { href: body.dataset.prefix }, "Playground"), next < 0 ? "" : "."),
      el("ol", {}, ...items)));
    container.hidden = false;
  }

  window.Q = { api, el, toast, errorText, clearErrors, fieldErrors, fmtTime, badge, download, onReady, headers, ApiError, key, guide, sentence, prefix: body.dataset.prefix };

  document.addEventListener("DOMContentLoaded", () => {
    document.getElementById("key-form").addEventListener("submit", submitKey);
    document.getElementById("key-change").addEventListener("click", () => showKeyPanel(""));
    if (authRequired && !key()) showKeyPanel("");
    else markReady();
  });
})();
