#!/usr/bin/env bash
# Installs what Quarry needs on a Debian machine, skipping what is there. Idempotent: safe to
# run before every `make run` / `make test`.
#
#   scripts/deps.sh run    what building and running Quarry needs (`make run`)
#   scripts/deps.sh test   that plus the test-only tools (`make test`; the default)
set -euo pipefail
MODE="${1:-test}"
case "$MODE" in
  run|test) ;;
  *) echo "deps: unknown mode '$MODE'; use 'run' or 'test'" >&2; exit 2 ;;
esac

# Go is not installed from here (Debian's golang is older than go.mod's 1.26): say so before
# spending minutes on packages the build could not use. An older Go 1.21+ fetches the toolchain
# go.mod names by itself (GOTOOLCHAIN=auto).
if ! command -v go >/dev/null 2>&1; then
  echo "deps: Go is not on the PATH; install Go 1.26 or newer from https://go.dev/dl/ (e.g. into /usr/local/go) and add its bin folder to PATH, then run this again" >&2
  exit 1
fi

# Run time: pandoc (RTF/ORG/RST), poppler (PDF rendering for OCR), Tesseract with the language
# packs the tests use and its headers (the OCR plugin is cgo), LibreOffice for legacy Office
# files, libheif for HEIC images, a C compiler for the OCR plugin, util-linux for prlimit (plugin
# memory limits), tesseract-ocr-osd for orientation detection (pages scanned sideways), and the
# PNG, JPEG and TIFF headers the OCR plugin decodes large scans a row at a time with.
RUN_PACKAGES=(
  pandoc poppler-utils
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-kor tesseract-ocr-osd libtesseract-dev libleptonica-dev
  libpng-dev libjpeg-dev libtiff-dev
  libreoffice-writer-nogui libreoffice-impress-nogui libreoffice-calc-nogui
  libheif-examples
  g++ pkg-config util-linux
)
# Tests only: PostgreSQL (platform store tests), Chromium (web UI tests), pdfminer.six (the
# reference's PDF engine, which the fast strategy's agreement test compares against), html2text
# (a benchmark peer), DejaVu fonts (OCR fixtures are drawn with them), GNU time (peak memory in
# bench/corpus.sh), qpdf and poppler-data (regenerate pdf/testdata/encrypted and the embedded
# Adobe CMaps: pdf/testdata/encrypted/gen.sh, go generate ./pdf), libopenjp2-tools (opj_compress:
# regenerate the JPEG 2000 fixture, strategies/ocr/auto/testdata/gen.sh).
TEST_PACKAGES=(
  python3-pdfminer html2text postgresql chromium fonts-dejavu-core time qpdf poppler-data
  libopenjp2-tools
)
APT_PACKAGES=("${RUN_PACKAGES[@]}")
[ "$MODE" = test ] && APT_PACKAGES+=("${TEST_PACKAGES[@]}")

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing ${missing[*]}" >&2
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  if ! $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/quarry-apt.log 2>&1; then
    $SUDO apt-get update >/dev/null 2>&1
    $SUDO apt-get install -y --no-install-recommends "${missing[@]}" >/tmp/quarry-apt.log 2>&1 ||
      { tail -20 /tmp/quarry-apt.log >&2; exit 1; }
  fi
fi

[ "$MODE" = run ] && exit 0

# Go tools, pinned (checks only).
GOBIN="$(go env GOPATH)/bin"
export PATH="$GOBIN:$PATH"
command -v staticcheck >/dev/null 2>&1 || go install honnef.co/go/tools/cmd/staticcheck@2026.1 >&2 ||
  go install honnef.co/go/tools/cmd/staticcheck@latest >&2

# npm packages used by tests (each test directory pins its own lock file).
for dir in server/sdktest connectors/azure/testdata/azurite; do
  if [ -f "$dir/package-lock.json" ] && [ ! -d "$dir/node_modules" ]; then
    (cd "$dir" && npm ci --no-audit --no-fund >&2)
  fi
done
