#!/usr/bin/env bash
# Regenerates two.jp2: a 40 x 30 JPEG 2000 picture, red on the left half and blue on the right,
# written by OpenJPEG's encoder (Debian libopenjp2-tools, a test dependency in scripts/deps.sh)
# as a PDF writer embeds one under /JPXDecode. crop_test.go checks the crop's colours.
set -euo pipefail
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 - "$tmp/two.ppm" <<'PY'
import sys
w, h = 40, 30
px = bytearray()
for y in range(h):
    for x in range(w):
        px += bytes([220, 20, 20]) if x < 20 else bytes([20, 20, 220])
open(sys.argv[1], "wb").write(b"P6\n%d %d\n255\n" % (w, h) + px)
PY
opj_compress -i "$tmp/two.ppm" -o two.jp2 -n 3 >/dev/null
