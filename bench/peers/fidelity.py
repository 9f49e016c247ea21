#!/usr/bin/env python3
"""Text fidelity of Quarry against pandoc on the same documents, in the same run.

    bench/peers/fidelity.py [--quarry bin/quarry] FILE...

For each DOCX, ODT, HTML, EPUB, RTF or Markdown file: the words of Quarry's elements (default
options) next to the words of `pandoc -t plain`, and difflib's similarity ratio of the two word
sequences (1.0 = the same words in the same order). pandoc is a peer, not ground truth: where
it drops text (text boxes, image captions) Quarry scores lower while reading more; the word
counts show which side has more.
"""
import argparse, difflib, json, os, re, subprocess, sys

PANDOC = {'docx': 'docx', 'odt': 'odt', 'html': 'html', 'htm': 'html', 'epub': 'epub', 'rtf': 'rtf', 'md': 'markdown'}


def words(s):
    return re.findall(r"\w+", s.lower())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--quarry', default='bin/quarry')
    ap.add_argument('files', nargs='+')
    a = ap.parse_args()
    ratios = []
    for f in a.files:
        ext = f.rsplit('.', 1)[-1].lower()
        if ext not in PANDOC:
            continue
        peer = subprocess.run(['pandoc', '-f', PANDOC[ext], '-t', 'plain', '--wrap=none', f],
                              capture_output=True, text=True, timeout=600).stdout
        q = subprocess.run([a.quarry, 'partition', f], capture_output=True, text=True, timeout=600)
        if q.returncode != 0:
            print(f"{os.path.basename(f):45s} quarry failed: {q.stderr.strip()[:100]}")
            continue
        qw, pw = words(' '.join(e['text'] for e in json.loads(q.stdout))), words(peer)
        r = difflib.SequenceMatcher(None, qw, pw, autojunk=False).ratio()
        ratios.append(r)
        print(f"{os.path.basename(f):45s} {ext:5s} quarry {len(qw):7d} words  pandoc {len(pw):7d} words  similarity {r:.3f}", flush=True)
    if ratios:
        ratios.sort()
        print(f"median similarity {ratios[len(ratios) // 2]:.3f} over {len(ratios)} files")


if __name__ == '__main__':
    sys.exit(main())
