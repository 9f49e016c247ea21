#!/usr/bin/env bash
# Regenerates the encrypted variants of plain.pdf (one page reading "Secret words inside") with
# qpdf (Debian `qpdf`, scripts/deps.sh). user-* need the password "user"; owner-* open with the
# empty user password; direct-* carry the /Encrypt dictionary directly in the trailer, which
# pdfcpu does not notice (made by moving the object's text into the trailer).
set -euo pipefail
cd "$(dirname "$0")"
W=--allow-weak-crypto
enc() { qpdf $W --encrypt "$1" owner "${@:3}" -- plain.pdf "$2"; }
enc user user-rc4-40.pdf 40
enc user user-rc4-128.pdf 128 --use-aes=n
enc user user-rc4-128-clearmeta.pdf 128 --use-aes=n --cleartext-metadata
enc user user-aes-128.pdf 128 --use-aes=y
enc user user-aes-128-clearmeta.pdf 128 --use-aes=y --cleartext-metadata
enc user user-aes-256-r5.pdf 256 --force-R5
enc user user-aes-256-r6.pdf 256
enc user user-aes-256-r6-clearmeta.pdf 256 --cleartext-metadata
qpdf $W --object-streams=generate --encrypt user owner 128 --use-aes=y -- plain.pdf user-aes-128-objstm.pdf
enc "" owner-aes-256-r5.pdf 256 --force-R5
enc "" owner-aes-256-r6.pdf 256
enc "" owner-rc4-40.pdf 40
python3 - <<'PY'
import re
for src, dst in [("user-rc4-40.pdf", "direct-user-rc4-40.pdf"), ("user-aes-256-r6.pdf", "direct-user-aes-256-r6.pdf"),
                 ("owner-rc4-40.pdf", "direct-owner-rc4-40.pdf"), ("owner-aes-256-r6.pdf", "direct-owner-aes-256-r6.pdf")]:
    d = open(src, "rb").read()
    m = re.search(rb"/Encrypt (\d+) 0 R", d)
    body = re.search(rb"\n" + m.group(1) + rb" 0 obj\s*(<<.*?>>)\s*endobj", d, re.S).group(1)
    i = d.rfind(b"trailer")
    open(dst, "wb").write(d[:i] + d[i:].replace(m.group(0), b"/Encrypt " + body, 1))
PY
