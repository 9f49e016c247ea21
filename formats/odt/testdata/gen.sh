#!/bin/sh
# Regenerates the frame fixtures from frames.fodt with LibreOffice (needs soffice):
# frames.odt (captioned image, linked captioned image, text box) and frames.docx, the same
# document as Word writes it (text boxes as DrawingML shapes with a VML fallback).
set -e
cd "$(dirname "$0")"
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
soffice -env:UserInstallation=file://"$profile" --headless --convert-to odt frames.fodt >/dev/null
soffice -env:UserInstallation=file://"$profile" --headless --convert-to docx:"MS Word 2007 XML" frames.fodt >/dev/null
mv frames.docx ../../docx/testdata/frames.docx
