#!/usr/bin/python3
"""Print pdfminer.six's text boxes per page, in its own (LTPage) order, as JSON.

The reading-order benchmark scores the layout against the peer itself rather than our copy of
its grouping. LAParams as Quarry's pdf.DefaultLAParams (the reference's fast strategy:
word_margin 0.185, boxes_flow 0.5). Output: a list of pages, each a list of
{"bbox": [x0, y0, x1, y1], "text": "..."} (PDF space, whitespace collapsed, empty boxes
left out). Run with Debian's /usr/bin/python3 (python3-pdfminer).

    pdfminer_order.py FILE.pdf
"""
import json
import sys

from pdfminer.high_level import extract_pages
from pdfminer.layout import LAParams, LTTextBox


def main():
    pages = []
    for page in extract_pages(sys.argv[1], laparams=LAParams(word_margin=0.185)):
        boxes = []
        for obj in page:
            if isinstance(obj, LTTextBox):
                text = " ".join(obj.get_text().split())
                if text:
                    boxes.append({"bbox": [obj.x0, obj.y0, obj.x1, obj.y1], "text": text})
        pages.append(boxes)
    json.dump(pages, sys.stdout)


if __name__ == "__main__":
    main()
