#!/usr/bin/env bash
# The benchmark protocol of ../shared/reference/perf-baseline.md §6, end to end: Quarry and its
# peers side by side in one run on the bench corpus, ratios taken within the run.
#
#   bench/run.sh [--quick] [SECTION…]      SECTION: pdf pdfminer p2 rss ocr office (default: all)
#
# --quick: 3 runs instead of 5, pdfminer only on the 309-page quick set (six SEC filings plus
# multi-column), tesseract 2 runs. Environment: BENCH_CORPUS (default ../shared/corpus/bench),
# BENCH_BIN (where quarry is built; default bin), BENCH_OUT (default bench/out/<time>),
# OCR_STRATEGY (default ocr_only), OCR_DPI (default 300, also given to the peer).
# Raw hyperfine exports and the report stay in BENCH_OUT; bench/peers/report.py prints them.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

QUICK=0
SECTIONS=()
for a in "$@"; do
  case "$a" in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    pdf|pdfminer|p2|rss|ocr|office) SECTIONS+=("$a") ;;
    *) echo "run.sh: unknown argument $a" >&2; exit 2 ;;
  esac
done
[ ${#SECTIONS[@]} -eq 0 ] && SECTIONS=(pdf pdfminer p2 rss ocr office)
want() { [[ " ${SECTIONS[*]} " == *" $1 "* ]]; }

CORPUS=$(cd "${BENCH_CORPUS:-../shared/corpus/bench}" 2>/dev/null && pwd || true)
BIN=$(mkdir -p "${BENCH_BIN:-bin}" && cd "${BENCH_BIN:-bin}" && pwd)
OUT=${BENCH_OUT:-bench/out/$(date +%Y%m%d-%H%M%S)}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd)
TMP=$OUT/tmp && mkdir -p "$TMP"
Q=$BIN/quarry
RUNS=5 MINER_RUNS=3 OCR_RUNS=5 OFFICE_RUNS=5
[ $QUICK = 1 ] && RUNS=3 MINER_RUNS=3 OCR_RUNS=2 OFFICE_RUNS=3
OCR_STRATEGY=${OCR_STRATEGY:-ocr_only}
OCR_DPI=${OCR_DPI:-300}
PY=/usr/bin/python3 # Debian's python carries python3-pdfminer; pyenv's python3 does not

skip() { echo "== skipped: $*"; }

# --- peers -------------------------------------------------------------------------------------
need=()
command -v hyperfine >/dev/null || need+=(hyperfine)
command -v pdftotext >/dev/null || need+=(poppler-utils)
$PY -c 'import pdfminer' 2>/dev/null || need+=(python3-pdfminer)
command -v pandoc >/dev/null || need+=(pandoc)
command -v tesseract >/dev/null || need+=(tesseract-ocr tesseract-ocr-eng)
[ -x /usr/bin/time ] || need+=(time)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    echo "== installing peers: ${need[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y "${need[@]}" >"$OUT/apt.log" 2>&1 ||
      { apt-get update >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y "${need[@]}" >"$OUT/apt.log" 2>&1; } ||
      echo "== apt-get failed (see $OUT/apt.log); sections needing ${need[*]} are skipped"
  else
    echo "== not root: install the peers with: sudo apt-get install -y ${need[*]}"
  fi
fi
command -v hyperfine >/dev/null || { echo "run.sh: hyperfine is required" >&2; exit 1; }
have() { command -v "$1" >/dev/null; }

# --- build -------------------------------------------------------------------------------------
echo "== building $Q"
CGO_ENABLED=0 go build -o "$Q" ./cmd/quarry

# --- header ------------------------------------------------------------------------------------
{
  echo "date        $(date -u +%FT%TZ)   quarry $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . 2>/dev/null || echo '+dirty')"
  echo "machine     nproc $(nproc), $(lscpu | sed -n 's/^Model name: *//p' | head -1), load $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "go          $(go version | cut -d' ' -f3-)"
  echo "hyperfine   $(hyperfine --version | cut -d' ' -f2)"
  have pdftotext && echo "pdftotext   $(pdftotext -v 2>&1 | head -1 | awk '{print $3}')"
  $PY -c 'import pdfminer; print("pdfminer   ", pdfminer.__version__)' 2>/dev/null || true
  have pandoc && echo "pandoc      $(pandoc --version | head -1 | cut -d' ' -f2)"
  have tesseract && echo "tesseract   $(tesseract --version 2>&1 | head -1 | cut -d' ' -f2)"
  have soffice && echo "soffice     $(soffice --version 2>/dev/null | head -1 | cut -d' ' -f2)"
  [ -n "$CORPUS" ] && echo "corpus      $CORPUS, MANIFEST.md sha256 $(sha256sum "$CORPUS/MANIFEST.md" | cut -c1-16)"
  echo "runs        $RUNS (pdfminer $MINER_RUNS, ocr $OCR_RUNS, office $OFFICE_RUNS), warm-up 1; output $OUT"
} | tee "$OUT/header.txt"

if [ -z "$CORPUS" ]; then
  skip "everything: bench corpus not found (set BENCH_CORPUS)"
  exit 0
fi
H=(hyperfine --warmup 1 --style basic)
# Only the OCR section needs a plugin; the others run with an empty plugin directory so that no
# plugin installed on the machine takes part (--strategy=fast never starts the plugin host).
mkdir -p "$TMP/noplugins" "$TMP/plugins"
export QUARRY_PLUGIN_DIR=$TMP/noplugins
# CPU seconds and peak memory of a whole process tree: quarry's plugin processes are never
# waited for, so hyperfine's user/sys and /usr/bin/time miss them (peers/treepeak.py).
TREE="$PY bench/peers/treepeak.py"
cpu_pass() { # out.tsv label runs cmd… : append "label<TAB>cpu_s<TAB>max_rss_kb<TAB>sum_rss_kb<TAB>wall_s" per run
  local out=$1 label=$2 runs=$3 line; shift 3
  for ((i = 0; i < runs; i++)); do
    line=$($TREE --interval 0.01 "$@" 2>/dev/null) || { echo "   $label failed"; return; }
    printf '%s\t%s\n' "$label" "$(sed -E 's/max_rss_kb=([0-9]+) sum_rss_kb=([0-9]+) cpu_s=([0-9.]+) wall_s=([0-9.]+).*/\3\t\1\t\2\t\4/' <<<"$line")" >>"$out"
  done
}

# --- PDF files, largest page count first ---------------------------------------------------------
PDFS=()
: >"$OUT/pages.tsv"
if have pdfinfo && [ -d "$CORPUS/pdf" ]; then
  while read -r n f; do
    PDFS+=("$f")
    printf '%s\t%s\n' "$(basename "$f")" "$n" >>"$OUT/pages.tsv"
  done < <(for f in "$CORPUS"/pdf/*.pdf; do
    echo "$(pdfinfo "$f" 2>/dev/null | awk '/^Pages:/{print $2}') $f"
  done | sort -rn)
fi
join() { local IFS=,; echo "$*"; }

# 1. PDF fast, one core, per file.
if want pdf; then
  if [ ${#PDFS[@]} -eq 0 ] || ! have pdftotext; then skip "pdf: no PDFs or no pdftotext"; else
    echo "== 1. pdf fast, 1 core, ${#PDFS[@]} files"
    GOMAXPROCS=1 "${H[@]}" -N --runs $RUNS --export-json "$OUT/pdf1c.json" -L f "$(join "${PDFS[@]}")" \
      "pdftotext {f} /dev/null" "pdftotext -bbox-layout {f} /dev/null" \
      "$Q partition --strategy=fast {f}" >"$OUT/pdf1c.log"
    echo "   CPU time per file (process trees, 3 runs each)"
    : >"$OUT/cpu.tsv"
    for f in "${PDFS[@]}"; do
      b=$(basename "$f")
      GOMAXPROCS=1 cpu_pass "$OUT/cpu.tsv" "quarry $b" 3 "$Q" partition --strategy=fast "$f"
      cpu_pass "$OUT/cpu.tsv" "pdftotext $b" 3 pdftotext "$f" /dev/null
      cpu_pass "$OUT/cpu.tsv" "bbox $b" 3 pdftotext -bbox-layout "$f" /dev/null
    done
  fi
fi

# 2. pdfminer (the reference's engine) on the same files.
if want pdfminer; then
  if [ ${#PDFS[@]} -eq 0 ] || ! $PY -c 'import pdfminer' 2>/dev/null; then skip "pdfminer: python3-pdfminer missing"; else
    MINER=("${PDFS[@]}")
    if [ $QUICK = 1 ]; then
      MINER=()
      for f in "${PDFS[@]}"; do [[ $(basename "$f") == 2023_* || $(basename "$f") == multi-column.pdf ]] && MINER+=("$f"); done
    fi
    echo "== 2. pdfminer.six, ${#MINER[@]} files (slow: about 45 s a pass over all files)"
    "${H[@]}" -N --runs $MINER_RUNS --export-json "$OUT/pdfminer.json" -L f "$(join "${MINER[@]}")" \
      "$PY bench/peers/pdfminer_fast.py {f}" >"$OUT/pdfminer.log"
  fi
fi

# 3. Two cores: two processes at once against one at a time; one process over all files.
if want p2; then
  if [ ${#PDFS[@]} -eq 0 ] || ! have pdftotext; then skip "p2: no PDFs or no pdftotext"; else
    echo "== 3. pdf fast, 2 cores"
    L="${PDFS[*]}"
    "${H[@]}" --runs $RUNS --export-json "$OUT/p2.json" \
      -n quarry-serial "for f in $L; do $Q partition --strategy=fast \$f >/dev/null; done" \
      -n quarry-xargsP2 "printf '%s\n' $L | xargs -P2 -n1 $Q partition --strategy=fast >/dev/null" \
      -n quarry-1proc-all "$Q partition --strategy=fast $L >/dev/null" \
      -n pdftotext-serial "for f in $L; do pdftotext \$f /dev/null; done" \
      -n pdftotext-xargsP2 "printf '%s\n' $L | xargs -P2 -I{} pdftotext {} /dev/null" >"$OUT/p2.log"
  fi
fi

# 4. Peak memory on the 400-page file and over all files in one process.
if want rss; then
  BIG=$CORPUS/pdf/pdf2image-memory-error-test-400p.pdf
  if [ ! -f "$BIG" ]; then skip "rss: 400-page file missing"; else
    echo "== 4. peak RSS"
    : >"$OUT/rss.tsv"
    cpu_pass "$OUT/rss.tsv" "quarry fast 400p" 1 "$Q" partition --strategy=fast "$BIG"
    cpu_pass "$OUT/rss.tsv" "quarry fast all ${#PDFS[@]} files, one process" 1 "$Q" partition --strategy=fast "${PDFS[@]}"
    have pdftotext && cpu_pass "$OUT/rss.tsv" "pdftotext 400p" 1 pdftotext "$BIG" /dev/null
    have pdftotext && cpu_pass "$OUT/rss.tsv" "pdftotext-bbox 400p" 1 pdftotext -bbox-layout "$BIG" /dev/null
    $PY -c 'import pdfminer' 2>/dev/null && cpu_pass "$OUT/rss.tsv" "pdfminer 400p" 1 $PY bench/peers/pdfminer_fast.py "$BIG"
  fi
fi

# 5. OCR: the same images through tesseract and through Quarry's OCR plugin.
if want ocr; then
  OCRPLUG=$TMP/plugins/quarry-plugin-ocr
  if [ ! -d strategies/ocr ] || [ ! -d cmd/quarry-plugin-ocr ]; then skip "ocr: no OCR plugin in this tree"
  elif ! have tesseract || ! have pdftoppm || [ ! -d "$CORPUS/scan" ]; then skip "ocr: tesseract, pdftoppm or scan corpus missing"
  elif ! go build -o "$OCRPLUG" ./cmd/quarry-plugin-ocr 2>"$OUT/ocr-build.log" || ! "$Q" plugin checksum "$OCRPLUG" >/dev/null; then
    skip "ocr: the OCR plugin does not build (cgo, libtesseract-dev; see $OUT/ocr-build.log)"
  elif ! QUARRY_PLUGIN_DIR=$TMP/plugins "$Q" partition --strategy="$OCR_STRATEGY" "$CORPUS/scan/typewriter.png" >/dev/null 2>"$OUT/ocr-probe.err"; then
    skip "ocr: quarry --strategy=$OCR_STRATEGY fails: $(tail -1 "$OUT/ocr-probe.err")"
  else
    echo "== 5. OCR ($OCR_STRATEGY, $OCR_DPI DPI)"
    S=$TMP/scans && mkdir -p "$S"
    IMGS=("$CORPUS/scan/typewriter.png")
    SCANS=()
    for f in "$CORPUS"/scan/*.pdf; do # rendered once, outside the timing
      b=$(basename "$f" .pdf)
      pdftoppm -r "$OCR_DPI" -gray -png -singlefile "$f" "$S/$b"
      IMGS+=("$S/$b.png")
      SCANS+=("$(basename "$f")")
    done
    export OMP_THREAD_LIMIT=1 QUARRY_OCR_DPI=$OCR_DPI QUARRY_PLUGIN_DIR=$TMP/plugins
    "${H[@]}" -N --runs $OCR_RUNS --export-json "$OUT/ocr-img.json" -L img "$(join "${IMGS[@]}")" \
      "tesseract {img} $TMP/tess -c hocr_char_boxes=1 hocr" \
      "$Q partition --strategy=$OCR_STRATEGY {img}" >"$OUT/ocr-img.log" 2>&1
    "${H[@]}" --runs $OCR_RUNS --export-json "$OUT/ocr-p2.json" \
      -n tesseract-xargsP2 "printf '%s\n' ${IMGS[*]} | xargs -P2 -I{} tesseract {} {}.out -c hocr_char_boxes=1 hocr 2>/dev/null" \
      -n quarry-xargsP2 "printf '%s\n' ${IMGS[*]} | xargs -P2 -n1 $Q partition --strategy=$OCR_STRATEGY >/dev/null" >"$OUT/ocr-p2.log" 2>&1
    "${H[@]}" --runs $OCR_RUNS --export-json "$OUT/ocr-e2e.json" -L f "$(join "${SCANS[@]}")" \
      "pdftoppm -r $OCR_DPI -gray -singlefile $CORPUS/scan/{f} $TMP/e2e && tesseract $TMP/e2e.pgm $TMP/e2e -c hocr_char_boxes=1 hocr 2>/dev/null" \
      "$Q partition --strategy=$OCR_STRATEGY $CORPUS/scan/{f} >/dev/null" >"$OUT/ocr-e2e.log" 2>&1
    if [ -f "$CORPUS/scan/linn.txt" ]; then
      "$Q" partition --strategy="$OCR_STRATEGY" "$CORPUS/scan/linn.pdf" >"$OUT/linn.json"
      acc=$($PY bench/peers/report.py wordacc "$OUT/linn.json" "$CORPUS/scan/linn.txt")
      tesseract "$S/linn.png" "$TMP/linn-tess" 2>/dev/null &&
        acc="$acc (tesseract alone $($PY bench/peers/report.py wordacc "$TMP/linn-tess.txt" "$CORPUS/scan/linn.txt"))"
      echo "$acc" >"$OUT/linn.wordacc"
    fi
    : >"$OUT/ocr-cpu.tsv"
    for img in "${IMGS[@]}"; do
      cpu_pass "$OUT/ocr-cpu.tsv" "quarry $(basename "$img")" 1 "$Q" partition --strategy="$OCR_STRATEGY" "$img"
      cpu_pass "$OUT/ocr-cpu.tsv" "tesseract $(basename "$img")" 1 tesseract "$img" "$TMP/tess" -c hocr_char_boxes=1 hocr
    done
    unset OMP_THREAD_LIMIT
    export QUARRY_PLUGIN_DIR=$TMP/noplugins
  fi
fi

# 6. Office and markup against pandoc (docx, html), LibreOffice (xlsx, pptx) and Python's e-mail
# parser (eml); txt has no peer and is timed alone.
if want office; then
  if [ ! -d "$CORPUS/office" ]; then skip "office: corpus missing"; else
    echo "== 6. office"
    LO=(soffice "-env:UserInstallation=file://$TMP/lo-profile" --headless)
    for f in "$CORPUS"/office/*; do
      b=$(basename "$f")
      peer=() runs=$OFFICE_RUNS
      case "$b" in
        *.docx) have pandoc && peer=("pandoc -f docx -t plain $f -o /dev/null") ;;
        *.html) have pandoc && peer=("pandoc -f html -t plain $f -o /dev/null") ;;
        *.xlsx) have soffice && peer=("${LO[*]} --convert-to csv --outdir $TMP/lo $f") && runs=3 ;;
        *.pptx) have soffice && peer=("${LO[*]} --convert-to html --outdir $TMP/lo $f") && runs=3 ;;
        *.eml) peer=("$PY bench/peers/eml_text.py $f") ;;
      esac
      "${H[@]}" -N --runs $runs --export-json "$OUT/office-$b.json" \
        "$Q partition $f" "${peer[@]}" >"$OUT/office-$b.log" 2>&1 || echo "   $b failed (see $OUT/office-$b.log)"
    done
  fi
fi

echo
{ cat "$OUT/header.txt"; $PY bench/peers/report.py "$OUT"; } | tee "$OUT/report.txt"
