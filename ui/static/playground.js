// Playground: partition one upload through the public partition API and show the elements as a
// table, as JSON and, for PDFs and images, as boxes over the page image.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const COLORS = { Title: "#b3261e", NarrativeText: "#0b5cad", ListItem: "#1d6b33", Table: "#7b2cbf", Image: "#8a4b00",
    Header: "#4b5563", Footer: "#4b5563", PageNumber: "#4b5563", FigureCaption: "#a4487a", Formula: "#006d77",
    Address: "#5b4b8a", EmailAddress: "#5b4b8a", UncategorizedText: "#374151", CompositeElement: "#0b5cad" };
  const ROW_LIMIT = 5000;
  const state = { file: null, elements: [], raw: "", kind: "", page: 1, pages: 1, images: new Map(), selected: -1, params: null };

  const fieldFor = { files: "pg-file", languages: "pg-languages", max_characters: "pg-maxchars", starting_page_number: "pg-start" };

  function params() {
    const f = new FormData();
    const langs = $("pg-languages").value.split(/[,\s+]+/).filter(Boolean);
    f.append("strategy", $("pg-strategy").value);
    langs.forEach((l) => f.append("languages", l));
    if ($("pg-chunking").value) f.append("chunking_strategy", $("pg-chunking").value);
    if ($("pg-maxchars").value) f.append("max_characters", $("pg-maxchars").value);
    if ($("pg-start").value) f.append("starting_page_number", $("pg-start").value);
    f.append("coordinates", $("pg-coordinates").checked ? "true" : "false");
    f.append("pdf_infer_table_structure", $("pg-tables").checked ? "true" : "false");
    f.append("include_page_breaks", $("pg-breaks").checked ? "true" : "false");
    return f;
  }

  async function partition(extra) {
    const f = params();
    for (const [k, v] of Object.entries(extra || {})) f.append(k, v);
    f.append("files", state.file, state.file.name);
    return Q.api("POST", "/general/v0/general", { form: f, raw: true, headers: { Accept: "application/json" } });
  }

  async function submit(ev) {
    ev.preventDefault();
    const form = $("pg-form");
    Q.clearErrors(form);
    const file = $("pg-file").files[0];
    if (!file) {
      $("pg-file-error").textContent = "Choose a document to partition.";
      $("pg-file").setAttribute("aria-invalid", "true");
      $("pg-file").focus();
      return;
    }
    state.file = file;
    const btn = $("pg-submit");
    btn.disabled = true;
    $("pg-status").textContent = "";
    const t0 = performance.now();
    const stopProgress = startProgress(file, t0);
    try {
      const res = await partition();
      state.raw = await res.text();
      const parsed = JSON.parse(state.raw);
      state.elements = Array.isArray(parsed) ? parsed : [];
      const secs = ((performance.now() - t0) / 1000).toFixed(2);
      $("pg-status").textContent = "Done: " + state.elements.length + " elements in " + secs + " s.";
      await show(secs);
    } catch (e) {
      $("pg-status").textContent = "";
      Q.fieldErrors(e, (loc) => {
        const id = fieldFor[loc[loc.length - 1]];
        return id ? $(id) : null;
      }, $("pg-form-error"));
    } finally {
      stopProgress();
      btn.disabled = false;
    }
  }

  // startProgress shows, while the server works, what is happening and for how long: the API
  // answers once the whole document is done, so the bar runs without a known end, and a
  // large PDF's expected time is said up front from its size.
  function startProgress(file, t0) {
    const mb = file.size / (1 << 20);
    const label = $("pg-progress-label");
    $("pg-progress").removeAttribute("value");
    $("pg-progress-wrap").hidden = false;
    const what = "Partitioning " + file.name + " (" + (mb >= 1 ? mb.toFixed(1) + " MB" : Math.max(1, Math.round(file.size / 1024)) + " KB") + ")";
    const hint = kindOf(file) === "image" || ($("pg-strategy").value === "hi_res" || $("pg-strategy").value === "ocr_only")
      ? "; OCR takes a few seconds a page" : "";
    const tick = () => {
      const s = Math.round((performance.now() - t0) / 1000);
      label.textContent = what + "… " + s + " s" + hint;
    };
    tick();
    const timer = setInterval(tick, 500);
    return () => { clearInterval(timer); $("pg-progress-wrap").hidden = true; };
  }

  // setFile puts a file into the file input, as if chosen, so the form and its checks see it.
  function setFile(file) {
    const dt = new DataTransfer();
    dt.items.add(file);
    $("pg-file").files = dt.files;
    Q.clearErrors($("pg-form"));
  }

  async function trySample() {
    const btn = $("pg-sample");
    btn.disabled = true;
    try {
      const res = await fetch(Q.prefix + "static/samples/sample.pdf");
      if (!res.ok) throw new Error("the sample could not be loaded (" + res.status + ")");
      setFile(new File([await res.blob()], "sample.pdf", { type: "application/pdf" }));
      $("pg-form").requestSubmit();
    } catch (e) {
      Q.toast("Sorry, " + Q.errorText(e) + ".", true);
    } finally {
      btn.disabled = false;
    }
  }

  function kindOf(file) {
    const n = file.name.toLowerCase();
    if (file.type === "application/pdf" || n.endsWith(".pdf")) return "pdf";
    if (/^image\/(png|jpe?g|gif|bmp|webp)$/.test(file.type) || /\.(png|jpe?g|gif|bmp|webp)$/.test(n)) return "image";
    return "";
  }

  async function show(secs) {
    const els = state.elements;
    const types = [...new Set(els.map((e) => e.type))].sort();
    const withBoxes = els.filter((e) => e.metadata && e.metadata.coordinates).length;
    $("pg-summary").textContent = els.length + " elements · " + types.length + " types · " + secs + " s" +
      (withBoxes ? " · " + withBoxes + " with boxes" : "");
    const sel = $("pg-filter-type");
    sel.replaceChildren(Q.el("option", { value: "" }, "All types"), ...types.map((t) => Q.el("option", { value: t }, t)));
    $("pg-filter-text").value = "";
    renderTable();
    $("pg-json").textContent = JSON.stringify(els, null, 2);
    state.selected = -1;
    $("pg-selected-wrap").hidden = true;
    state.images.forEach((u) => URL.revokeObjectURL(u));
    state.images.clear();
    state.kind = kindOf(state.file);
    const pageNums = els.map((e) => e.metadata && e.metadata.page_number).filter((n) => Number.isInteger(n));
    state.first = pageNums.length ? Math.min(...pageNums) : 1;
    state.pages = pageNums.length ? Math.max(...pageNums) : 1;
    state.offset = (parseInt($("pg-start").value, 10) || 1) - 1;
    $("pg-preview-pane").hidden = !state.kind;
    $("pg-results").hidden = false;
    if (state.kind) await showPage(state.first);
    $("pg-results-title").scrollIntoView({ block: "start" });
  }

  function renderTable() {
    const type = $("pg-filter-type").value;
    const q = $("pg-filter-text").value.trim().toLowerCase();
    const rows = [];
    state.elements.forEach((e, i) => {
      if (rows.length >= ROW_LIMIT) return;
      if (type && e.type !== type) return;
      if (q && !(e.text || "").toLowerCase().includes(q)) return;
      const page = e.metadata && e.metadata.page_number;
      const tr = Q.el("tr", { "data-index": i, tabindex: "0", "aria-label": "Element " + (i + 1) + ", " + e.type + (page ? ", page " + page : "") },
        Q.el("td", {}, String(i + 1)),
        Q.el("td", {}, e.type),
        Q.el("td", {}, Q.el("span", { class: "clip" }, e.text || "")),
        Q.el("td", {}, page ? String(page) : ""));
      if (i === state.selected) tr.classList.add("selected");
      rows.push(tr);
    });
    $("pg-table").tBodies[0].replaceChildren(...rows);
  }

  async function showPage(n) {
    state.page = n;
    document.querySelector(".pager").hidden = state.kind !== "pdf";
    // Until the new page's image arrives, show neither the old page's boxes nor its number.
    $("pg-boxes").replaceChildren();
    $("pg-page-view").setAttribute("aria-busy", "true");
    delete $("pg-page-img").dataset.page;
    $("pg-prev").disabled = n <= state.first;
    $("pg-next").disabled = n >= state.pages;
    $("pg-page-label").textContent = "Page " + n + " of " + state.pages;
    $("pg-preview-title").textContent = state.kind === "pdf" ? "Page " + n : "Image";
    const img = $("pg-page-img");
    img.alt = state.kind === "pdf" ? "Page " + n + " of " + state.file.name : state.file.name;
    let url = state.images.get(n);
    if (!url) {
      if (state.kind === "image") {
        url = URL.createObjectURL(state.file);
      } else {
        const f = new FormData();
        f.append("page", String(n - state.offset));
        f.append("dpi", "110");
        f.append("file", state.file, state.file.name);
        try {
          const res = await Q.api("POST", Q.prefix + "render", { form: f, raw: true });
          const count = parseInt(res.headers.get("X-Page-Count"), 10);
          if (count > 0) state.pages = Math.max(state.pages, count + state.offset);
          url = URL.createObjectURL(await res.blob());
        } catch (e) {
          Q.toast("Page image: " + Q.errorText(e), true);
          return;
        }
      }
      state.images.set(n, url);
    }
    if (state.page !== n) return; // the user turned the page again meanwhile
    $("pg-page-label").textContent = "Page " + n + " of " + state.pages;
    $("pg-next").disabled = n >= state.pages;
    await new Promise((resolve) => {
      img.onload = resolve;
      img.onerror = resolve;
      img.src = url;
      if (img.complete && img.src === url) resolve();
    });
    if (state.page !== n) return;
    drawBoxes();
    img.dataset.page = String(n);
    $("pg-page-view").removeAttribute("aria-busy");
  }

  function bounds(c) {
    const xs = c.points.map((p) => p[0]);
    const ys = c.points.map((p) => p[1]);
    return { x: Math.min(...xs), y: Math.min(...ys), w: Math.max(...xs) - Math.min(...xs), h: Math.max(...ys) - Math.min(...ys) };
  }

  function drawBoxes() {
    const svg = $("pg-boxes");
    const NS = "http://www.w3.org/2000/svg";
    svg.replaceChildren();
    const img = $("pg-page-img");
    let vw = img.naturalWidth || 1, vh = img.naturalHeight || 1;
    const used = new Set();
    state.elements.forEach((e, i) => {
      const m = e.metadata || {};
      const c = m.coordinates;
      if (!c || !Array.isArray(c.points) || !c.points.length) return;
      if (state.kind === "pdf" && m.page_number !== state.page) return;
      // Boxes are in the layout's own space (PDF points or image pixels); the viewBox maps it
      // onto the rendered image whatever its resolution.
      if (c.layout_width && c.layout_height) { vw = c.layout_width; vh = c.layout_height; }
      const b = bounds(c);
      const color = COLORS[e.type] || "#374151";
      used.add(e.type);
      const r = document.createElementNS(NS, "rect");
      r.setAttribute("x", b.x); r.setAttribute("y", b.y);
      r.setAttribute("width", Math.max(b.w, 1)); r.setAttribute("height", Math.max(b.h, 1));
      r.setAttribute("stroke", color); r.setAttribute("fill", color);
      r.setAttribute("data-index", i);
      r.setAttribute("data-type", e.type);
      if (i === state.selected) r.classList.add("selected");
      const t = document.createElementNS(NS, "title");
      t.textContent = e.type + ": " + (e.text || "").slice(0, 120);
      r.append(t);
      r.addEventListener("click", () => select(i, true));
      svg.append(r);
    });
    svg.setAttribute("viewBox", "0 0 " + vw + " " + vh);
    svg.setAttribute("preserveAspectRatio", "none");
    $("pg-legend").replaceChildren(...[...used].sort().map((t) => {
      const sw = Q.el("span", { class: "swatch" });
      sw.style.borderColor = COLORS[t] || "#374151"; // CSSOM, which the CSP allows
      return Q.el("li", {}, sw, t);
    }));
  }

  async function select(i, fromBox) {
    state.selected = i;
    const e = state.elements[i];
    $("pg-selected-wrap").hidden = false;
    $("pg-selected-title").textContent = "Element " + (i + 1) + ": " + e.type;
    $("pg-selected").textContent = JSON.stringify(e, null, 2);
    showTableHTML(e.metadata && e.metadata.text_as_html);
    const p = e.metadata && e.metadata.page_number;
    if (state.kind === "pdf" && p && p !== state.page) await showPage(p);
    document.querySelectorAll("#pg-boxes rect").forEach((r) => r.classList.toggle("selected", Number(r.dataset.index) === i));
    document.querySelectorAll("#pg-table tbody tr").forEach((tr) => {
      const on = Number(tr.dataset.index) === i;
      tr.classList.toggle("selected", on);
      if (on && fromBox) { tr.scrollIntoView({ block: "nearest" }); tr.focus(); }
    });
  }

  // showTableHTML previews a Table's text_as_html as a table. The markup comes from the
  // document, so it is rebuilt from text and the span attributes only, never inserted as HTML.
  function showTableHTML(html) {
    const wrap = $("pg-selected-table");
    wrap.replaceChildren();
    wrap.hidden = !html;
    if (!html) return;
    const src = new DOMParser().parseFromString(html, "text/html");
    const table = Q.el("table", { class: "elements preview" });
    src.querySelectorAll("tr").forEach((tr) => {
      const row = Q.el("tr", {});
      tr.querySelectorAll("th, td").forEach((c) => {
        const cell = Q.el(c.tagName === "TH" ? "th" : "td", {}, c.textContent);
        for (const a of ["colspan", "rowspan"]) {
          const n = parseInt(c.getAttribute(a), 10);
          if (n > 1 && n < 1000) cell.setAttribute(a, String(n));
        }
        row.append(cell);
      });
      table.append(row);
    });
    wrap.append(table);
  }

  function selectTab(which) {
    for (const t of ["table", "json"]) {
      const on = t === which;
      $("tab-" + t).setAttribute("aria-selected", on ? "true" : "false");
      $("tab-" + t).tabIndex = on ? 0 : -1;
      $("view-" + t).hidden = !on;
    }
    $("tab-" + which).focus();
  }

  function baseName() {
    return state.file ? state.file.name.replace(/\.[^.]+$/, "") : "elements";
  }

  Q.onReady(() => {
    $("pg-form").addEventListener("submit", submit);
    $("pg-sample").addEventListener("click", trySample);
    // Drag and drop: a file dropped anywhere on the form is the document, and is partitioned.
    const drop = $("pg-form"), zone = $("pg-drop");
    ["dragenter", "dragover"].forEach((t) => drop.addEventListener(t, (ev) => {
      if (!ev.dataTransfer || ![...ev.dataTransfer.types].includes("Files")) return;
      ev.preventDefault();
      zone.classList.add("over");
    }));
    ["dragleave", "dragend"].forEach((t) => drop.addEventListener(t, (ev) => {
      if (!drop.contains(ev.relatedTarget)) zone.classList.remove("over");
    }));
    drop.addEventListener("drop", (ev) => {
      zone.classList.remove("over");
      const f = ev.dataTransfer && ev.dataTransfer.files && ev.dataTransfer.files[0];
      if (!f) return;
      ev.preventDefault();
      setFile(f);
      drop.requestSubmit();
    });
    $("pg-filter-type").addEventListener("change", renderTable);
    $("pg-filter-text").addEventListener("input", renderTable);
    $("pg-prev").addEventListener("click", () => showPage(state.page - 1));
    $("pg-next").addEventListener("click", () => showPage(state.page + 1));
    $("tab-table").addEventListener("click", () => selectTab("table"));
    $("tab-json").addEventListener("click", () => selectTab("json"));
    document.querySelector(".tabs").addEventListener("keydown", (ev) => {
      if (ev.key === "ArrowRight" || ev.key === "ArrowLeft") selectTab($("tab-table").getAttribute("aria-selected") === "true" ? "json" : "table");
    });
    $("pg-table").addEventListener("click", (ev) => {
      const tr = ev.target.closest("tr[data-index]");
      if (tr) select(Number(tr.dataset.index), false);
    });
    $("pg-table").addEventListener("keydown", (ev) => {
      const tr = ev.target.closest("tr[data-index]");
      if (tr && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); select(Number(tr.dataset.index), false); }
    });
    $("pg-download-json").addEventListener("click", () => {
      Q.download(new Blob([state.raw], { type: "application/json" }), baseName() + ".json");
    });
    $("pg-download-csv").addEventListener("click", async () => {
      const btn = $("pg-download-csv");
      btn.disabled = true;
      try {
        const res = await partition({ output_format: "text/csv" });
        Q.download(await res.blob(), baseName() + ".csv");
      } catch (e) {
        Q.toast("CSV: " + Q.errorText(e), true);
      } finally {
        btn.disabled = false;
      }
    });
  });
})();
