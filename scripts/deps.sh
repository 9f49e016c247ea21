#!/usr/bin/env bash
# Installs what Quarry's build, tests and run need on a Debian machine, skipping what is there.
# Idempotent: safe to run before every `make run` / `make test`.
set -euo pipefail

# Debian packages: pandoc (RTF/ORG/RST), poppler (PDF rendering, peer tool), Tesseract with the
# language packs the tests use, LibreOffice for legacy Office files, libheif for HEIC images,
# PostgreSQL (platform store tests), Chromium (web UI tests) and pdfminer.six (the reference's
# PDF engine, which the fast strategy's agreement test compares against); qpdf and poppler-data
# regenerate pdf/ fixtures and CMap tables (pdf/testdata/encrypted/gen.sh, pdf/gen_cmaps.go).
APT_PACKAGES=(
  pandoc poppler-utils python3-pdfminer qpdf poppler-data
  tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-kor libtesseract-dev libleptonica-dev
  libreoffice-writer-nogui libreoffice-impress-nogui libreoffice-calc-nogui
  libheif-examples
  html2text
  postgresql chromium
  g++ pkg-config util-linux
)

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

# Go tools, pinned.
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
