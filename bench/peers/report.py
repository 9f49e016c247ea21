#!/usr/bin/python3
"""Turns the hyperfine exports and RSS files that bench/run.sh leaves in its output directory
into per-file tables and one summary line per section (perf-baseline.md section 6.7).

Usage: report.py OUTDIR            (reads OUTDIR/*.json, pages.tsv, rss.tsv; prints a report)
       report.py wordacc OUT REF   (word accuracy of an element JSON or text file against REF)

Only ratios taken within one run are printed as goals: absolute numbers drift on a shared VM.
Each ratio is given by wall time (median) and by CPU time (user+sys, mean), the steadier
figure when other processes compete for the cores.
"""
import json
import math
import os
import re
import sys
from collections import Counter

NOISE = 0.20  # (max-min)/median above this marks a command as noisy


def load(out, name):
    path = os.path.join(out, name)
    if not os.path.exists(path):
        return None
    try:
        with open(path) as fp:
            return json.load(fp)["results"]
    except (ValueError, KeyError):
        print(f"({name}: unreadable or incomplete, skipped)")
        return None


def tool(cmd):
    if os.path.basename(cmd.split()[0]) == "quarry":
        return "quarry"
    for key, name in (("-bbox-layout", "bbox"), ("pdftotext", "pdftotext"), ("pdfminer", "pdfminer"),
                      ("tesseract", "tesseract"), ("pandoc", "pandoc"), ("soffice", "soffice"),
                      ("eml_text", "python-email")):
        if key in cmd:
            return name
    return cmd.split()[0]


def cpu(r):
    return r["user"] + r["system"]


def noisy(r):
    return r["median"] > 0 and (r["max"] - r["min"]) / r["median"] > NOISE


def flag(r):
    return "*" if noisy(r) else " "


def geomean(xs):
    xs = [x for x in xs if x and x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def by_file(results, param):
    """{basename: {tool: result}} for a hyperfine -L export."""
    table = {}
    for r in results or []:
        f = os.path.basename(r.get("parameters", {}).get(param, ""))
        table.setdefault(f, {})[tool(r["command"])] = r
    return table


def read_pages(out):
    pages = {}
    path = os.path.join(out, "pages.tsv")
    if os.path.exists(path):
        for line in open(path):
            name, n = line.split("\t")
            pages[name] = int(n)
    return pages


def read_tree(out, name):
    """{label: [(cpu_s, max_rss_kb, sum_rss_kb, wall_s), …]} from a treepeak pass (run.sh cpu_pass)."""
    rows = {}
    path = os.path.join(out, name)
    if os.path.exists(path):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) == 5:
                rows.setdefault(f[0], []).append((float(f[1]), int(f[2]), int(f[3]), float(f[4])))
    return rows


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if xs else float("nan")


def tree_cpu(rows, label):
    return median([r[0] for r in rows.get(label, [])])


def section_pdf(out, summary):
    res = load(out, "pdf1c.json")
    if not res:
        return
    pages = read_pages(out)
    table = by_file(res, "f")
    miner = by_file(load(out, "pdfminer.json"), "f")
    tcpu = read_tree(out, "cpu.tsv")
    print("\n## 1-2. PDF fast, one core (GOMAXPROCS=1), per file: pages/s from the median wall time")
    print("   (* = noisy: (max-min)/median > 20%); ratios: quarry speed ÷ peer speed; cpu = by user+sys of")
    print("   the whole process tree, median of 3 runs (peers/treepeak.py; quarry's plugin processes included)")
    hdr = f"{'file':38} {'pages':>5} {'quarry':>8} {'pdftotext':>9} {'bbox':>7} {'q/ptt':>6} {'q/ptt cpu':>9} {'q/bbox':>6} {'pdfminer':>8} {'pm-time/q':>9}"
    print(hdr)
    ratios, ratios_cpu, ratios_bbox, miner_ratios, miner_ratios_cpu = [], [], [], [], []
    sums = {"quarry": 0.0, "pdftotext": 0.0, "bbox": 0.0}
    cpus = {"quarry": 0.0, "pdftotext": 0.0}
    total = 0
    msum, mpages, mq = 0.0, 0, 0.0
    for f in sorted(table, key=lambda f: -pages.get(f, 0)):
        t, n = table[f], pages.get(f, 0)
        if not n or "quarry" not in t or "pdftotext" not in t:
            continue
        q, p, b = t["quarry"], t["pdftotext"], t.get("bbox")
        total += n
        for k in sums:
            if k in t:
                sums[k] += t[k]["median"]
        qc, pc = tree_cpu(tcpu, "quarry " + f), tree_cpu(tcpu, "pdftotext " + f)
        cpus["quarry"] += qc
        cpus["pdftotext"] += pc
        r = p["median"] / q["median"]
        rc = pc / qc if qc > 0 else float("nan")
        ratios.append(r)
        ratios_cpu.append(rc)
        rb = b["median"] / q["median"] if b else float("nan")
        if b:
            ratios_bbox.append(rb)
        m = miner.get(f, {}).get("pdfminer")
        mps, mr = "", ""
        if m:
            mr_v = m["median"] / q["median"]
            miner_ratios.append(mr_v)
            if qc > 0:
                miner_ratios_cpu.append(cpu(m) / qc)
            msum += m["median"]
            mpages += n
            mq += q["median"]
            mps, mr = f"{n / m['median']:8.1f}{flag(m)}", f"{mr_v:9.1f}"
        print(f"{f:38} {n:5d} {n / q['median']:7.1f}{flag(q)} {n / p['median']:8.1f}{flag(p)} "
              f"{(n / b['median']) if b else float('nan'):6.1f}{flag(b) if b else ' '} {r:6.2f} {rc:9.2f} {rb:6.2f} "
              f"{mps:>9} {mr:>9}")
    if not total:
        return
    qps, pps = total / sums["quarry"], total / sums["pdftotext"]
    print(f"{'whole set (Σpages ÷ Σmedian)':38} {total:5d} {qps:8.1f} {pps:9.1f} "
          f"{(total / sums['bbox']) if sums['bbox'] else float('nan'):7.1f} {pps and qps / pps:6.2f} "
          f"{cpus['pdftotext'] / cpus['quarry']:9.2f}")
    g, gc, gb = geomean(ratios), geomean(ratios_cpu), geomean(ratios_bbox)
    print(f"geomean of per-file ratios: quarry ÷ pdftotext {g:.2f} (cpu {gc:.2f}); "
          f"quarry ÷ pdftotext -bbox-layout {gb:.2f}")
    print(f"quarry pages per CPU-second {total / cpus['quarry']:.0f}; pdftotext {total / cpus['pdftotext']:.0f}")
    line = (f"pdf-fast {total}p  engine 1c {qps:.0f} p/s | pdftotext {pps:.0f} p/s  ratio {g:.2f} geomean, "
            f"{qps / pps:.2f} whole set, cpu {gc:.2f} (goal ≥0.5) | bbox ratio {gb:.2f}")
    if miner_ratios:
        gm = geomean(miner_ratios)
        print(f"pdfminer time ÷ quarry time: geomean {gm:.1f} (cpu {geomean(miner_ratios_cpu):.1f}) over "
              f"{len(miner_ratios)} files, {mpages} pages; whole subset {msum / mq:.1f}")
        line += (f" | pdfminer {mpages / msum:.1f} p/s  ratio {gm:.1f} geomean, {msum / mq:.1f} whole "
                 f"(floor ≥13, goal ≥30)")
    else:
        line += " | pdfminer skipped"
    summary.append(line)


def section_p2(out, summary):
    res = load(out, "p2.json")
    if not res:
        return
    pages = sum(read_pages(out).values())
    named = {r["command"]: r for r in res}
    print("\n## 3. Two cores: all files, one process at a time vs two at once (xargs -P2)")
    print(f"{'command':28} {'wall s':>7} {'(min)':>7} {'pages/s':>8} {'pages/CPU-s':>11}")
    for name, r in named.items():
        # hyperfine's user/sys miss quarry's plugin processes (never waited for), so no CPU figure
        per_cpu = "n/a" if name.startswith("quarry") else f"{pages / cpu(r):.0f}"
        print(f"{name:28} {r['median']:7.2f} {r['min']:7.2f}{flag(r)}{pages / r['median']:8.0f} {per_cpu:>11}")
    parts = []
    for t in ("quarry", "pdftotext"):
        s, p = named.get(t + "-serial"), named.get(t + "-xargsP2")
        if s and p:
            parts.append(f"{t} 2p {pages / p['median']:.0f} p/s scaling {s['median'] / p['median']:.2f}×")
    one = named.get("quarry-1proc-all")
    if one:
        parts.append(f"quarry 1 process all files {pages / one['median']:.0f} p/s")
    qp, pp = named.get("quarry-xargsP2"), named.get("pdftotext-xargsP2")
    if qp and pp:
        parts.append(f"ratio {pp['median'] / qp['median']:.2f}")
    summary.append(f"pdf-2cores {pages}p  " + " | ".join(parts))


def section_rss(out, summary):
    rows = read_tree(out, "rss.tsv")
    if not rows:
        return
    print("\n## 4. Peak memory (whole process tree, polled from /proc: largest single process, and sum)")
    for label, runs in rows.items():
        c, mx, sm, wall = runs[0]
        print(f"{label:48} {mx / 1024:7.1f} MB  (sum {sm / 1024:6.1f} MB)  {c:6.2f} CPU-s {wall:7.2f} s")
    q = [runs[0] for label, runs in rows.items() if label.startswith("quarry") and "400p" in label]
    others = "; ".join(f"{label.split()[0]} {runs[0][1] / 1024:.1f} MB" for label, runs in rows.items()
                       if "400p" in label and not label.startswith("quarry"))
    if q:
        summary.append(f"memory 400p  quarry {q[0][1] / 1024:.1f} MB largest process, {q[0][2] / 1024:.1f} MB "
                       f"all processes (goal <100 MB) | {others}")


def section_ocr(out, summary):
    img = by_file(load(out, "ocr-img.json"), "img")
    if not img:
        return
    print("\n## 5. OCR, one image at a time: tesseract (OMP_THREAD_LIMIT=1, hOCR + char boxes) vs quarry ocr_only")
    print(f"{'image':34} {'tesseract s':>11} {'quarry s':>9} {'ratio':>6} {'ratio cpu':>9}  (cpu: one run, whole process tree)")
    rs, rcs, tsum, qsum = [], [], 0.0, 0.0
    tcpu = read_tree(out, "ocr-cpu.tsv")
    for f, t in sorted(img.items()):
        if "tesseract" not in t or "quarry" not in t:
            continue
        p, q = t["tesseract"], t["quarry"]
        qc, pc = tree_cpu(tcpu, "quarry " + f), tree_cpu(tcpu, "tesseract " + f)
        r, rc = p["median"] / q["median"], (pc / qc if qc > 0 else float("nan"))
        rs.append(r)
        rcs.append(rc)
        tsum += p["median"]
        qsum += q["median"]
        print(f"{f:34} {p['median']:10.2f}{flag(p)} {q['median']:8.2f}{flag(q)} {r:6.2f} {rc:9.2f}")
    line = f"ocr {len(rs)} images  engine {qsum:.1f} s | tesseract {tsum:.1f} s  ratio {tsum / qsum:.2f} set, {geomean(rs):.2f} geomean, cpu {geomean(rcs):.2f} (goal ≥0.9)"
    p2 = {r["command"]: r for r in load(out, "ocr-p2.json") or []}
    if p2:
        print(f"{'two at once (xargs -P2)':34} " + "  ".join(f"{k} {v['median']:.2f} s" for k, v in p2.items()))
        q2, t2 = p2.get("quarry-xargsP2"), p2.get("tesseract-xargsP2")
        if q2 and t2:
            line += f" | 2p: engine {q2['median']:.1f} s ({qsum / q2['median']:.2f}× its 1p), tesseract {t2['median']:.1f} s, ratio {t2['median'] / q2['median']:.2f}"
    e2e = by_file(load(out, "ocr-e2e.json"), "f")
    if e2e:
        print("end to end on the scan PDFs (peer: pdftoppm PGM + tesseract hOCR at the engine's DPI):")
        ps, qs = 0.0, 0.0
        for f, t in sorted(e2e.items()):
            peer = next((v for k, v in t.items() if k != "quarry"), None)
            q = t.get("quarry")
            if peer and q:
                ps += peer["median"]
                qs += q["median"]
                print(f"  {f:32} peer {peer['median']:6.2f}{flag(peer)} quarry {q['median']:6.2f}{flag(q)} ratio {peer['median'] / q['median']:.2f}")
        if qs:
            line += f" | e2e ratio {ps / qs:.2f}"
    acc = os.path.join(out, "linn.wordacc")
    if os.path.exists(acc):
        line += f" | linn word accuracy {open(acc).read().strip()}"
    summary.append(line)


def section_office(out, summary):
    rows = []
    for name in sorted(os.listdir(out)):
        if name.startswith("office-") and name.endswith(".json"):
            rows.append((name[len("office-"):-len(".json")], load(out, name)))
    if not rows:
        return
    print("\n## 6. Office and markup: quarry partition FILE vs a peer converting the same file to text")
    print(f"{'file':44} {'quarry s':>9} {'peer':>13} {'peer s':>8} {'ratio':>6} {'ratio cpu':>9}")
    ratios, ratios_cpu, abs_parts = [], [], []
    for f, res in rows:
        t = {tool(r["command"]): r for r in res}
        q = t.pop("quarry", None)
        if not q:
            continue
        peer = next(iter(t.items()), None)
        if peer:
            pn, p = peer
            r, rc = p["median"] / q["median"], cpu(p) / cpu(q)
            if pn == "pandoc":
                ratios.append(r)
                ratios_cpu.append(rc)
            print(f"{f:44} {q['median']:8.3f}{flag(q)} {pn:>13} {p['median']:7.3f}{flag(p)} {r:6.1f} {rc:9.1f}")
        else:
            print(f"{f:44} {q['median']:8.3f}{flag(q)} {'-':>13}")
        ext = f.rsplit(".", 1)[-1]
        if ext in ("pptx", "xlsx", "eml", "txt"):
            abs_parts.append(f"{ext} {q['median'] * 1000:.0f} ms" + (f" ({peer[0]} ×{peer[1]['median'] / q['median']:.0f})" if peer else ""))
    line = "office"
    if ratios:
        line += f"  pandoc docx/html ratio {geomean(ratios):.1f} geomean, cpu {geomean(ratios_cpu):.1f} (goal ≥10)"
    summary.append(line + " | " + ", ".join(abs_parts))


def words(text):
    return re.findall(r"\w+", text.lower())


def wordacc(out_path, ref_path):
    """1 - word-level edit distance ÷ reference words (the ISRI/ocreval definition), which also
    counts reading-order differences, and the order-free bag-of-words recall."""
    raw = open(out_path, encoding="utf-8", errors="replace").read()
    try:
        data = json.loads(raw)
        raw = "\n".join(e.get("text", "") for e in data)
    except ValueError:
        pass
    hyp, ref = words(raw), words(open(ref_path, encoding="utf-8", errors="replace").read())
    prev = list(range(len(hyp) + 1))
    for i, rw in enumerate(ref, 1):
        cur = [i] + [0] * len(hyp)
        for j, hw in enumerate(hyp, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (rw != hw))
        prev = cur
    bag = sum((Counter(hyp) & Counter(ref)).values()) / max(1, len(ref))
    return max(0.0, 1 - prev[-1] / max(1, len(ref))), bag


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "wordacc":
        acc, bag = wordacc(sys.argv[2], sys.argv[3])
        print(f"{acc:.3f} in order, {bag:.3f} order-free")
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = sys.argv[1]
    summary = []
    for section in (section_pdf, section_p2, section_rss, section_ocr, section_office):
        section(out, summary)
    print("\n## Summary (ratios within this run; medians; * in the tables = noisy)")
    for line in summary:
        print(line)
    with open(os.path.join(out, "summary.txt"), "w") as fp:
        fp.write("\n".join(summary) + "\n")


if __name__ == "__main__":
    main()
