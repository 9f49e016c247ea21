#!/usr/bin/python3
"""Dump pdfminer.six's text boxes per page, for the fast strategy's agreement test.

Same LAParams as the reference's fast strategy (word_margin=0.185, see pdfminer_fast.py).
For each PDF given, writes OUTDIR/<name>.txt: per page, the page's objects in pdfminer's order
(text boxes, then figures) as lines of text with whitespace collapsed, pages separated by form
feeds. Figure text is the figure's characters with a line break at every non-character item,
split into lines. Run with Debian's /usr/bin/python3 (python3-pdfminer).

    pdfminer_dump.py OUTDIR FILE.pdf...
"""
import os
import re
import sys

from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import LAParams, LTChar, LTFigure, LTTextBox
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage

SPLIT = re.compile(r"\s*\n\s*")


def clean(s):
    s = s.replace("\u00a0", " ").replace("\n", " ")
    return re.sub(r" +", " ", s).strip()


def figure_text(fig):
    out = []
    for item in fig:
        if isinstance(item, LTChar):
            out.append(item.get_text())
        elif isinstance(item, LTFigure):
            out.append(figure_text(item))
        else:
            out.append("\n")
    return "".join(out)


def page_lines(objs):
    lines = []
    for obj in objs:
        if isinstance(obj, LTTextBox):
            s = clean(obj.get_text())
            if s.strip():
                lines.append(s)
    for obj in objs:
        if isinstance(obj, LTFigure):
            for snip in SPLIT.split(figure_text(obj)):
                s = clean(snip)
                if s.strip():
                    lines.append(s)
    return lines


def main():
    outdir, paths = sys.argv[1], sys.argv[2:]
    for path in paths:
        rsrc = PDFResourceManager()
        dev = PDFPageAggregator(rsrc, laparams=LAParams(word_margin=0.185))
        interp = PDFPageInterpreter(rsrc, dev)
        pages = []
        with open(path, "rb") as fp:
            for page in PDFPage.get_pages(fp):
                interp.process_page(page)
                pages.append("\n".join(page_lines(dev.get_result())))
        name = os.path.basename(path) + ".txt"
        with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
            f.write("\f".join(pages))


if __name__ == "__main__":
    main()
