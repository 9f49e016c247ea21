#!/usr/bin/env bash
# Keyless-and-keyed load run (issue 16): `quarry serve` with an API key on loopback, half the
# clients sending small TXT/HTML/DOCX documents with the key, half hammering it without one (no
# key, a wrong key, made-up HTTP methods). Every keyed request must succeed (or get a deliberate
# 503 with Retry-After), every keyless one must get 401/405 (or 429 once its address, 127.0.0.2,
# has failed too often): 0 unexpected answers. Runs twice, formats out of process (the server's
# default) and in process (--in-process), and prints the throughput ratio. Bounded: each run stops by itself after the duration.
# Usage: bench/security-load.sh [duration] [clients]
set -euo pipefail
cd "$(dirname "$0")/.."
exec go test ./cmd/quarry -run '^TestSecurityLoad$' -count=1 -v -timeout 10m \
  -secload.duration="${1:-30s}" -secload.clients="${2:-50}"
