// The docs page's "try it": one form per operation of /openapi.json, sent to this page's own
// origin with fetch. Plain JavaScript, no dependencies, so the page works offline.
(function () {
  "use strict";
  var keyInput = document.getElementById("apikey");
  try { keyInput.value = localStorage.getItem("quarry-api-key") || ""; } catch (e) { /* storage off */ }
  keyInput.addEventListener("change", function () {
    try { localStorage.setItem("quarry-api-key", keyInput.value); } catch (e) { /* storage off */ }
  });

  function el(tag, attrs, children) {
    var n = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) {
      if (k === "text") n.textContent = attrs[k]; else n.setAttribute(k, attrs[k]);
    });
    (children || []).forEach(function (c) { if (c) n.appendChild(c); });
    return n;
  }

  var doc;
  function resolve(s) {
    var seen = 0;
    while (s && s.$ref && seen++ < 20) s = doc.components.schemas[s.$ref.split("/").pop()];
    return s || {};
  }
  // example builds a request body from a schema: examples first, then required fields.
  function example(s, depth) {
    s = resolve(s);
    if (s.examples) return s.examples[0];
    if (s.allOf) return example(s.allOf[0], depth);
    if (s.default !== undefined) return s.default;
    if (s.enum) return s.enum[0];
    var t = Array.isArray(s.type) ? s.type[0] : s.type;
    if (depth > 4) return null;
    switch (t) {
      case "object":
        var o = {};
        (s.required || []).forEach(function (k) { o[k] = example((s.properties || {})[k] || {}, depth + 1); });
        return o;
      case "array": return [];
      case "integer": case "number": return 0;
      case "boolean": return false;
      case "string": return "";
    }
    return null;
  }

  function field(name, input, help) {
    input.id = "f" + Math.random().toString(36).slice(2);
    return el("div", { class: "field" }, [el("label", { for: input.id, text: name }), input, help ? el("small", { text: help }) : null]);
  }

  function operation(path, method, op) {
    var params = op.parameters || [];
    var inputs = [];
    var form = el("div");
    params.forEach(function (p) {
      var i = el("input", { type: "text", "data-in": p.in, "data-name": p.name, placeholder: p.required ? "required" : "" });
      inputs.push(i);
      form.appendChild(field(p.name + " (" + p.in + ")", i, p.description));
    });
    var body = op.requestBody && op.requestBody.content || {};
    var json = body["application/json"], multi = body["multipart/form-data"];
    var textarea, parts = [];
    if (json) {
      textarea = el("textarea", { "aria-label": "request body (JSON)" });
      textarea.value = JSON.stringify(example(json.schema, 0), null, 2);
      form.appendChild(el("div", {}, [el("div", { text: "Body (JSON)" }), textarea]));
    } else if (multi) {
      var props = resolve(multi.schema).properties || {};
      Object.keys(props).forEach(function (name) {
        var s = resolve(props[name]);
        var isFile = s.type === "array" && s.items && s.items.format === "binary";
        var i;
        if (isFile) i = el("input", { type: "file", multiple: "" });
        else if (s.enum) {
          i = el("select", {}, [el("option", { value: "", text: "(default)" })].concat(s.enum.map(function (v) { return el("option", { value: v, text: v }); })));
        } else i = el("input", { type: "text", placeholder: s.default !== undefined ? "default " + JSON.stringify(s.default) : "" });
        i.setAttribute("data-name", name);
        parts.push(i);
        form.appendChild(field(name, i, s.description));
      });
    }
    var status = el("div", { class: "status", role: "status" });
    var out = el("pre", { hidden: "" });
    var curl = el("pre", { hidden: "" });
    var send = el("button", { type: "button", text: "Send" });
    send.addEventListener("click", function () {
      var url = path, missing = [];
      var query = new URLSearchParams();
      inputs.forEach(function (i) {
        var v = i.value.trim(), name = i.getAttribute("data-name");
        if (i.getAttribute("data-in") === "path") {
          if (!v) missing.push(name);
          url = url.replace("{" + name + "}", encodeURIComponent(v));
        } else if (v) query.append(name, v);
      });
      if (missing.length) { status.textContent = "Fill in " + missing.join(", ") + " first."; return; }
      if ([...query].length) url += "?" + query.toString();
      var opts = { method: method.toUpperCase(), headers: {} };
      var curlParts = ["curl -s -X " + opts.method + " '" + location.origin + url + "'"];
      if (keyInput.value) { opts.headers["unstructured-api-key"] = keyInput.value; curlParts.push("-H 'unstructured-api-key: $KEY'"); }
      if (textarea) {
        try { JSON.parse(textarea.value); } catch (e) { status.textContent = "The body is not valid JSON: " + e.message; return; }
        opts.headers["Content-Type"] = "application/json";
        opts.body = textarea.value;
        curlParts.push("-H 'Content-Type: application/json' -d '" + textarea.value.replace(/\s*\n\s*/g, " ") + "'");
      } else if (parts.length) {
        var fd = new FormData();
        parts.forEach(function (i) {
          var name = i.getAttribute("data-name");
          if (i.type === "file") { for (var f of i.files) { fd.append(name, f); curlParts.push("-F " + name + "=@" + f.name); } }
          else if (i.value) { fd.append(name, i.value); curlParts.push("-F '" + name + "=" + i.value + "'"); }
        });
        opts.body = fd;
      }
      curl.textContent = curlParts.join(" \\\n  ");
      curl.hidden = false;
      status.textContent = "Sending…";
      var started = performance.now();
      fetch(url, opts).then(function (resp) {
        var ms = Math.round(performance.now() - started);
        return resp.text().then(function (text) {
          status.textContent = resp.status + " " + resp.statusText + " in " + ms + " ms";
          status.setAttribute("data-status", resp.status);
          try { text = JSON.stringify(JSON.parse(text), null, 2); } catch (e) { /* not JSON */ }
          out.textContent = text.length > 200000 ? text.slice(0, 200000) + "\n… (" + text.length + " characters)" : text;
          out.hidden = false;
        });
      }).catch(function (e) { status.textContent = "The request did not reach the server: " + e.message; });
    });
    form.appendChild(el("p", {}, [send]));
    var summary = el("summary", {}, [el("span", { class: "m " + method, text: method.toUpperCase() }), el("code", { text: path }), document.createTextNode(" — " + (op.summary || ""))]);
    return el("details", { class: "op", "data-op": op.operationId || "" }, [summary, form, status, curl, out]);
  }

  var ops = document.getElementById("ops");
  fetch("/openapi.json", { headers: keyInput.value ? { "unstructured-api-key": keyInput.value } : {} })
    .then(function (r) { if (!r.ok) throw new Error("status " + r.status); return r.json(); })
    .then(function (d) {
      doc = d;
      var byTag = {};
      Object.keys(d.paths).sort().forEach(function (path) {
        ["get", "post", "put", "delete"].forEach(function (m) {
          var op = d.paths[path][m];
          if (!op) return;
          var tag = (op.tags && op.tags[0]) || "other";
          (byTag[tag] = byTag[tag] || []).push(operation(path, m, op));
        });
      });
      // The partition API first: it is what most visitors came for.
      Object.keys(byTag).sort(function (a, b) { return (b === "general") - (a === "general"); }).forEach(function (tag) {
        ops.appendChild(el("h3", { text: tag }));
        byTag[tag].forEach(function (n) { ops.appendChild(n); });
      });
    })
    .catch(function (e) { ops.textContent = "Could not load /openapi.json (" + e.message + "); reload the page to try again."; });
})();
