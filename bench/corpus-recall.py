#!/usr/bin/env python3
"""corpus-recall.py OUTDIR: word recall of Quarry's output against a peer reader, per file.

Run after bench/corpus.sh -o OUTDIR: for each file that came out ok (and each empty one, at
recall 0), the peer reads the same file now, in this run, and the share of the peer's words
(a multiset, case-folded; CJK characters one word each) found in Quarry's elements' text is
that file's recall. Peers: pdftotext (poppler-utils) for PDF, pandoc for DOCX/ODT/EPUB/RTF,
Python's html.parser for HTML (script and style left out), Python's email package for .eml
(every text part), ElementTree for XML and for the body of OpenDocument spreadsheets and
presentations (content.xml of .ods/.odp/.ots/.otp, the flat .fods/.fodp). Other formats have no peer and are not scored; files
whose peer finds fewer than 5 words are left out. Prints per format the files scored, the
median recall and how many are below 0.8, then the 15 lowest files; writes OUTDIR/recall.tsv.
Run it from the folder corpus.sh was run in (results.tsv holds the paths as given).
"""
import collections, email, email.policy, hashlib, html.parser, json, os, re, statistics, subprocess, sys, zipfile
import xml.etree.ElementTree as ET

TOK = re.compile(r'[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]|[^\W_]+', re.U)


def words(s):
    return collections.Counter(t.lower() for t in TOK.findall(s))


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, timeout=300).stdout.decode('utf-8', 'replace')
    except (OSError, subprocess.TimeoutExpired):
        return None


class _Text(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.out, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ('script', 'style', 'head'):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ('script', 'style', 'head'):
            self.skip = max(0, self.skip - 1)

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def peer(path):
    ext = path.rsplit('.', 1)[-1].lower() if '.' in os.path.basename(path) else ''
    if ext == 'pdf':
        return run(['pdftotext', '-q', '-enc', 'UTF-8', path, '-'])
    if ext in ('docx', 'odt', 'epub', 'rtf'):
        return run(['pandoc', '-f', ext, '-t', 'plain', path])
    if ext in ('html', 'htm'):
        p = _Text()
        with open(path, encoding='utf-8', errors='replace') as f:
            p.feed(f.read())
        return ' '.join(p.out)
    if ext == 'eml':
        with open(path, 'rb') as f:
            m = email.message_from_binary_file(f, policy=email.policy.default)
        out = []
        for part in m.walk():
            if part.get_content_maintype() == 'text':
                try:
                    out.append(part.get_content())
                except (LookupError, ValueError):
                    pass
        return '\n'.join(out)
    if ext == 'xml':
        try:
            return ' '.join(ET.parse(path).getroot().itertext())
        except ET.ParseError:
            return None
    if ext in ('ods', 'odp', 'ots', 'otp', 'fods', 'fodp'):
        # The text of <office:body>: cells, frames and notes, not styles or settings.
        try:
            if ext.startswith('f'):
                root = ET.parse(path).getroot()
            else:
                with zipfile.ZipFile(path) as z:
                    root = ET.fromstring(z.read('content.xml'))
        except (OSError, KeyError, zipfile.BadZipFile, ET.ParseError):
            return None
        body = root.find('{urn:oasis:names:tc:opendocument:xmlns:office:1.0}body')
        return None if body is None else ' '.join(body.itertext())
    return None


def quarry_text(path):
    try:
        with open(path, encoding='utf-8') as f:
            return '\n'.join(e.get('text') or '' for e in json.load(f))
    except (OSError, ValueError):
        return ''


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    outdir = sys.argv[1]
    rows, missing = [], 0
    with open(os.path.join(outdir, 'results.tsv'), encoding='utf-8', errors='replace') as f:
        for line in f:
            status, fmt, _, _, _, path, *_ = line.rstrip('\n').split('\t') + [''] * 7
            if status not in ('ok', 'empty'):
                continue
            if not os.path.exists(path):
                missing += 1
                continue
            text = peer(path)
            if text is None:
                continue
            want = words(text)
            n = sum(want.values())
            if n < 5:
                continue
            key = hashlib.md5(path.encode()).hexdigest()[:12]  # how corpus.sh names outputs
            got = words(quarry_text(os.path.join(outdir, 'out', key + '.json')))
            rows.append((fmt, sum(min(c, got[w]) for w, c in want.items()) / n, n, path))
    with open(os.path.join(outdir, 'recall.tsv'), 'w', encoding='utf-8') as f:
        for r in rows:
            f.write('%s\t%.4f\t%d\t%s\n' % r)
    if missing:
        print('%d files not found: run from the folder corpus.sh was run in' % missing)
    by = collections.defaultdict(list)
    for fmt, rec, _, _ in rows:
        by[fmt].append(rec)
    print('%-10s %6s %8s %6s' % ('format', 'scored', 'median', '<0.8'))
    for fmt in sorted(by):
        v = by[fmt]
        print('%-10s %6d %8.3f %6d' % (fmt, len(v), statistics.median(v), sum(x < 0.8 for x in v)))
    if rows:
        v = [r[1] for r in rows]
        print('%-10s %6d %8.3f %6d' % ('all', len(v), statistics.median(v), sum(x < 0.8 for x in v)))
        print('\nlowest (recall, peer words, file):')
        for fmt, rec, n, path in sorted(rows, key=lambda r: r[1])[:15]:
            print('  %.3f %7d  %s' % (rec, n, path))


if __name__ == '__main__':
    main()
