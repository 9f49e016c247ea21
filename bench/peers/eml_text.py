#!/usr/bin/python3
"""A peer for e-mail partitioning in bench/run.sh and bench/office_test.go: parse each message
with the standard library's MIME parser, decode every text part (HTML reduced to its text with
html.parser) and count characters. pandoc has no e-mail reader, so this is the closest
everyday tool doing comparable work (MIME walk, transfer decoding, charset decoding, HTML text).
"""
import email
import email.policy
import sys
from html.parser import HTMLParser


class _Text(HTMLParser):
    def __init__(self):
        super().__init__()
        self.parts = []

    def handle_data(self, data):
        self.parts.append(data)


chars = parts = 0
for path in sys.argv[1:]:
    with open(path, "rb") as fp:
        msg = email.message_from_binary_file(fp, policy=email.policy.default)
    for part in msg.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        body = part.get_content()
        if part.get_content_subtype() == "html":
            p = _Text()
            p.feed(body)
            body = "".join(p.parts)
        chars += len(body)
        parts += 1
print(f"parts={parts} chars={chars}")
