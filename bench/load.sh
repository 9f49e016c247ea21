#!/usr/bin/env bash
# Load test of the partition API (issue 9 point 7): 100 concurrent clients for 60 s against a
# loopback server, mixing small TXT, HTML, DOCX and PDF requests. Prints p50/p99 latency,
# requests/s and peak RSS; fails on any answer other than 200 or a deliberate overload 503.
# Usage: bench/load.sh [duration] [clients]
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test ./server -run '^TestLoad$' -count=1 -v -timeout 10m \
  -load.duration="${1:-60s}" -load.clients="${2:-100}"
