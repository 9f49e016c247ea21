package e2e

import (
	"fmt"
	"strings"
	"time"

	"github.com/chromedp/chromedp"
)

// layoutCheck finds, in the rendered page, visible elements that stick out of the viewport,
// text that overflows its own box, and controls, headings and images that overlap each other.
// Content inside a scrolling container (wide tables) is measured against that container.
const layoutCheck = `(() => {
  const vw = document.documentElement.clientWidth;
  const problems = [];
  const desc = (e) => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "") + (e.className && typeof e.className === "string" ? "." + e.className.trim().split(/\s+/).join(".") : "") +
    " «" + (e.innerText || e.value || e.getAttribute("aria-label") || "").trim().slice(0, 40) + "»";
  if (document.documentElement.scrollWidth > vw + 1) {
    // Name the outermost elements that reach past the viewport, which cause the scrolling.
    const wide = [...document.body.querySelectorAll("*")].filter((e) => e.getBoundingClientRect().right > vw + 1 && !e.closest(".skip") &&
      !(e.parentElement && e.parentElement.getBoundingClientRect().right > vw + 1));
    problems.push("page scrolls sideways: " + document.documentElement.scrollWidth + " > " + vw + "; widest: " + wide.slice(0, 5).map(desc).join(", ") +
      " in " + (() => { const out = []; for (let p = wide[0] && wide[0].parentElement; p; p = p.parentElement) out.push(p.tagName + "." + p.className + ":" + Math.round(p.getBoundingClientRect().width) + "/" + getComputedStyle(p).overflowX); return out.join(" < "); })());
  }
  const shown = (e) => {
    if (e.closest("[hidden], .sr-only, .skip, .toast:not(.show)")) return false;
    const s = getComputedStyle(e);
    if (s.visibility === "hidden" || s.display === "none") return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const clipOf = (e) => {
    for (let p = e.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden") return p.getBoundingClientRect();
    }
    return { left: 0, right: vw, top: -1e9, bottom: 1e9 };
  };
  const clipped = (e) => {
    const r = e.getBoundingClientRect(), c = clipOf(e);
    return { left: Math.max(r.left, c.left), right: Math.min(r.right, c.right), top: Math.max(r.top, c.top), bottom: Math.min(r.bottom, c.bottom) };
  };
  const all = [...document.querySelectorAll("a, button, input, select, textarea, label, h1, h2, h3, p, legend, th, td, li, dt, dd, progress, img, pre, .badge")].filter(shown);
  for (const e of all) {
    const r = e.getBoundingClientRect(), c = clipOf(e);
    if (r.left < c.left - 1 && r.right > c.left || r.right > c.right + 1 && c.right === vw && r.left < c.right) {
      if (c.right === vw) problems.push("sticks out of the viewport (" + Math.round(r.left) + ".." + Math.round(r.right) + " of " + vw + "): " + desc(e));
    }
    const s = getComputedStyle(e);
    if (!e.matches("input, select, textarea, pre, progress, img, td, th") && s.overflowX === "visible" && e.scrollWidth > e.clientWidth + 2 && e.clientWidth > 0) {
      problems.push("content wider than its box (" + e.scrollWidth + " > " + e.clientWidth + "): " + desc(e));
    }
  }
  const leaves = all.filter((e) => e.matches("a, button, input, select, textarea, progress, img, h1, h2, h3, legend, .badge"));
  for (let i = 0; i < leaves.length; i++) {
    for (let j = i + 1; j < leaves.length; j++) {
      const a = leaves[i], b = leaves[j];
      if (a.contains(b) || b.contains(a)) continue;
      const ra = clipped(a), rb = clipped(b);
      const w = Math.min(ra.right, rb.right) - Math.max(ra.left, rb.left);
      const h = Math.min(ra.bottom, rb.bottom) - Math.max(ra.top, rb.top);
      if (w > 1 && h > 1) problems.push("overlap " + Math.round(w) + "×" + Math.round(h) + ": " + desc(a) + " / " + desc(b));
    }
  }
  return problems.slice(0, 30);
})()`

var viewports = []struct {
	name string
	w, h int64
}{{"desktop", 1280, 800}, {"phone", 390, 844}}

// checkLayout measures the current page at each viewport, writes a screenshot per size and
// fails on any problem found.
func (b *tab) checkLayout(name string) {
	b.t.Helper()
	for _, vp := range viewports {
		opts := []chromedp.EmulateViewportOption{}
		if vp.w < 600 {
			opts = append(opts, chromedp.EmulatePortrait, chromedp.EmulateMobile, chromedp.EmulateTouch)
		}
		b.do("viewport "+vp.name, chromedp.EmulateViewport(vp.w, vp.h, opts...), chromedp.Sleep(300*time.Millisecond))
		problems := eval[[]string](b, layoutCheck)
		shot := b.shot(fmt.Sprintf("%s-%s", name, vp.name))
		b.viewShot(fmt.Sprintf("%s-%s-viewport", name, vp.name))
		if len(problems) > 0 {
			b.t.Errorf("%s at %d×%d (%s):\n  %s", name, vp.w, vp.h, shot, strings.Join(problems, "\n  "))
		}
	}
	b.do("reset viewport", chromedp.EmulateViewport(1280, 800))
}

// checkA11y asserts axe-style basics on the current page: every visible control has an
// accessible name, ids are unique, images have alt text, the tab order follows the document
// (no positive tabindex), and text contrast is at least 4.5:1.
func (b *tab) checkA11y(name string) {
	b.t.Helper()
	problems := eval[[]string](b, `(() => {
  const out = [];
  const visible = (e) => !e.closest("[hidden]") && e.getClientRects().length > 0;
  for (const e of document.querySelectorAll("input, select, textarea, button")) {
    if (!visible(e) || e.type === "hidden") continue;
    const named = (e.labels && e.labels.length) || e.getAttribute("aria-label") || e.getAttribute("aria-labelledby") || (e.tagName === "BUTTON" && e.textContent.trim());
    if (!named) out.push("no accessible name: " + e.outerHTML.slice(0, 80));
  }
  const ids = {};
  for (const e of document.querySelectorAll("[id]")) { if (ids[e.id]) out.push("duplicate id " + e.id); ids[e.id] = 1; }
  for (const e of document.querySelectorAll("img")) if (visible(e) && !e.hasAttribute("alt")) out.push("img without alt");
  for (const e of document.querySelectorAll("[tabindex]")) if (e.tabIndex > 0) out.push("positive tabindex: " + e.outerHTML.slice(0, 60));
  const lum = (c) => { const m = c.match(/[\d.]+/g).map(Number); const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return [0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]), m.length > 3 ? m[3] : 1]; };
  const bg = (e) => { for (let p = e; p; p = p.parentElement) { const c = getComputedStyle(p).backgroundColor; const [l, a] = lum(c); if (a > 0.9) return l; } return 1; };
  for (const e of document.querySelectorAll("a, button, label, p, h1, h2, h3, th, td, li, legend, dt, dd, span, strong")) {
    if (!visible(e) || !e.textContent.trim() || e.closest(".sr-only, .skip, .toast, pre")) continue;
    if (getComputedStyle(e).opacity < 1 || e.disabled) continue;
    const [fl] = lum(getComputedStyle(e).color), bl = bg(e);
    const ratio = (Math.max(fl, bl) + 0.05) / (Math.min(fl, bl) + 0.05);
    if (ratio < 4.5) out.push("contrast " + ratio.toFixed(2) + ": " + e.tagName + " «" + e.textContent.trim().slice(0, 30) + "»");
  }
  return [...new Set(out)].slice(0, 30);
})()`)
	if len(problems) > 0 {
		b.t.Errorf("%s accessibility:\n  %s", name, strings.Join(problems, "\n  "))
	}
}

// tabOrder presses Tab n times and returns the ids (or tag names) that took focus.
func (b *tab) tabOrder(n int) []string {
	b.t.Helper()
	var out []string
	for i := 0; i < n; i++ {
		b.do("press Tab", chromedp.KeyEvent("\t"))
		out = append(out, eval[string](b, `(() => { const e = document.activeElement; return e ? (e.id || e.tagName.toLowerCase() + ":" + (e.textContent || "").trim().slice(0, 20)) : ""; })()`))
	}
	return out
}
