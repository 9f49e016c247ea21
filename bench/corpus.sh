#!/usr/bin/env bash
# corpus.sh: run `quarry partition` over every file of a folder, one process per file, and
# report per format how many came out ok, failed with a clear error, came out empty, crashed or
# timed out, with the peak memory and the time taken. The tool to run on your own documents
# before trusting Quarry with them. See bench/README.md ("corpus.sh").
#
#   bench/corpus.sh [-t SECONDS] [-j JOBS] [-q QUARRY] [-o OUTDIR] FOLDER [-- PARTITION FLAGS…]
#
#   -t  timeout per file in seconds (default 300); the process group is killed after it
#   -j  files run at once (default 1: peak memory and time are then each file's own)
#   -q  the quarry binary (default: bin/quarry, else quarry on PATH)
#   -o  where results go (default: a new temporary directory); it gets results.tsv (one line
#       per file: status, format, seconds, peak KB, elements, path, message) and out/ with each
#       file's JSON output and standard error
#
# Statuses: ok (exit 0, at least one element) · empty (exit 0, no element: `[]`) · error (exit
# 1 with a message: a clear, deliberate refusal such as an encrypted PDF) · crash (killed by a
# signal, a Go panic or fatal error, or any other exit status) · timeout (still running after
# -t seconds). The exit status is 1 when any file crashed or timed out, else 0.
set -euo pipefail

timeout_s=300 jobs=1 quarry="" outdir=""
while getopts "t:j:q:o:h" opt; do
  case "$opt" in
    t) timeout_s="$OPTARG" ;;
    j) jobs="$OPTARG" ;;
    q) quarry="$OPTARG" ;;
    o) outdir="$OPTARG" ;;
    *) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { echo "usage: $0 [-t SECONDS] [-j JOBS] [-q QUARRY] [-o OUTDIR] FOLDER [-- FLAGS…]" >&2; exit 2; }
folder="$1"; shift
[ "${1:-}" = "--" ] && shift
[ -d "$folder" ] || { echo "corpus: $folder is not a folder" >&2; exit 2; }

if [ -z "$quarry" ]; then
  here="$(cd "$(dirname "$0")/.." && pwd)"
  if [ -x "$here/bin/quarry" ]; then quarry="$here/bin/quarry"; else quarry="$(command -v quarry || true)"; fi
fi
[ -n "$quarry" ] && [ -x "$quarry" ] || { echo "corpus: no quarry binary (make build, or -q PATH)" >&2; exit 2; }
quarry="$(cd "$(dirname "$quarry")" && pwd)/$(basename "$quarry")"
command -v timeout >/dev/null || { echo "corpus: needs timeout(1) (coreutils)" >&2; exit 2; }
gnutime=""
[ -x /usr/bin/time ] && /usr/bin/time -f %M true 2>/dev/null && gnutime=/usr/bin/time
[ -n "$gnutime" ] || echo "corpus: GNU time (Debian package 'time') not found: no peak memory column" >&2

[ -n "$outdir" ] || outdir="$(mktemp -d "${TMPDIR:-/tmp}/quarry-corpus.XXXXXX")"
mkdir -p "$outdir/out"
results="$outdir/results.tsv"
: > "$results"

# one FILE: partition it and append one line to results.tsv.
one() {
  eval "set -- $flags_q"
  local f="$file" base key ext fmt out err tm start end secs rc status kb n msg
  key="$(printf '%s' "$f" | md5sum | cut -c1-12)"
  base="$(basename "$f")"
  out="$outdir/out/$key.json" err="$outdir/out/$key.err" tm="$outdir/out/$key.time"
  ext="${base##*.}"
  if [ "$ext" = "$base" ] || [ -z "$ext" ]; then fmt="(none)"; else fmt="$(printf '%s' "$ext" | tr 'A-Z' 'a-z')"; fi
  start=$(date +%s.%N)
  set +e
  if [ -n "$gnutime" ]; then
    # timeout signals its whole process group (quarry and its plugins); -k: what ignores
    # TERM is killed 5 s later.
    timeout -k 5 "$timeout_s" "$gnutime" -o "$tm" -f "%M" "$quarry" partition "$@" "$f" >"$out" 2>"$err"
  else
    timeout -k 5 "$timeout_s" "$quarry" partition "$@" "$f" >"$out" 2>"$err"
  fi
  rc=$?
  set -e
  end=$(date +%s.%N)
  secs=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
  kb="-"
  [ -s "$tm" ] && kb="$(grep -E '^[0-9]+$' "$tm" | tail -1)" && [ -n "$kb" ] || kb="-"
  msg="$(grep -v '^Command \(exited\|terminated\)' "$err" | grep -m1 -E 'quarry: |panic:|fatal error:|SIG[A-Z]+' || true)"
  [ -n "$msg" ] || msg="$(grep -v '^Command \(exited\|terminated\)' "$err" | grep -m1 . || true)"
  n=0
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    status=timeout
  elif grep -q -E '^(panic:|fatal error:)|SIGSEGV|SIGBUS|goroutine [0-9]+ \[' "$err"; then
    status=crash
  elif [ "$rc" -eq 0 ]; then
    # JSON (the default) counts elements; other output formats count non-empty lines.
    if [ "$(head -c 1 "$out")" = "[" ]; then n="$(grep -c '"type"' "$out" || true)"; else n="$(grep -c . "$out" || true)"; fi
    if [ "$n" -gt 0 ]; then status=ok; else status=empty; fi
  elif [ "$rc" -eq 1 ] && [ -n "$msg" ]; then
    status=error
  else
    status=crash
    [ -n "$msg" ] || msg="exit status $rc"
  fi
  msg="$(printf '%s' "$msg" | tr '\t\r\n' '   ' | cut -c1-300)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$status" "$fmt" "$secs" "$kb" "$n" "$f" "$msg" >>"$results"
}
flags_q=""
[ $# -eq 0 ] || flags_q="$(printf '%q ' "$@")"
export -f one
export outdir quarry gnutime timeout_s results flags_q

started=$(date +%s)
find "$folder" -type f -print0 | sort -z |
  xargs -0 -r -n 1 -P "$jobs" bash -c 'file="$1" one' _ || true
wall=$(( $(date +%s) - started ))

printf "%-10s %6s %6s %6s %6s %6s %8s %10s %9s %9s\n" format files ok error empty crash timeout "peak RSS" time slowest
# (plain POSIX awk: mawk has no asorti, so rows are sorted by sort(1))
awk -F'\t' '
  {
    f = $2; files[f]++; count[f, $1]++
    t[f] += $3
    if ($3 + 0 > tmax[f]) tmax[f] = $3 + 0
    if ($4 != "-" && $4 + 0 > rss[f]) rss[f] = $4 + 0
  }
  END {
    for (f in files)
      printf "%-10s %6d %6d %6d %6d %6d %8d %7.0f MB %8.1fs %8.1fs\n", f, files[f], count[f, "ok"], count[f, "error"], count[f, "empty"], count[f, "crash"], count[f, "timeout"], rss[f] / 1024, t[f], tmax[f]
  }' "$results" | sort
awk -F'\t' -v wall="$wall" '
  {
    all++; total[$1]++; tt += $3
    if ($4 != "-" && $4 + 0 > rss) rss = $4 + 0
  }
  END {
    printf "%-10s %6d %6d %6d %6d %6d %8d %7.0f MB %8.1fs  (wall %ds)\n", "all", all, total["ok"], total["error"], total["empty"], total["crash"], total["timeout"], rss / 1024, tt, wall
  }' "$results"

if grep -q -v '^ok' "$results"; then
  echo
  echo "not ok (status, format, file, message):"
  grep -v '^ok' "$results" | sort | awk -F'\t' '{ printf "  %-8s %-8s %s  %s\n", $1, $2, $6, $7 }'
fi
echo
echo "results: $results"
if grep -q -E '^(crash|timeout)' "$results"; then exit 1; fi
