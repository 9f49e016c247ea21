#!/usr/bin/python3
"""The layout pass of Unstructured's fast strategy, as a peer for bench/run.sh.

Mirrors unstructured/partition/pdf_image/pdfminer_utils.py::init_pdfminer with
pdfminer_word_margin=0.185 (partition/pdf.py). Copied from perf-baseline.md section 7.
Run with Debian's /usr/bin/python3 (python3-pdfminer); pyenv's python3 lacks pdfminer.
"""
import sys

from pdfminer.converter import PDFPageAggregator
from pdfminer.layout import LAParams, LTTextBox
from pdfminer.pdfinterp import PDFPageInterpreter, PDFResourceManager
from pdfminer.pdfpage import PDFPage

pages = chars = 0
for path in sys.argv[1:]:
    rsrc = PDFResourceManager()
    dev = PDFPageAggregator(rsrc, laparams=LAParams(word_margin=0.185))
    interp = PDFPageInterpreter(rsrc, dev)
    with open(path, "rb") as fp:
        for page in PDFPage.get_pages(fp):
            interp.process_page(page)
            for obj in dev.get_result():
                if isinstance(obj, LTTextBox):
                    chars += len(obj.get_text())
            pages += 1
print(f"pages={pages} chars={chars}")
