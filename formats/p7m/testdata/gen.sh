#!/bin/sh
# Regenerates the signed envelopes with OpenSSL: a throwaway self-signed key, a short text and an
# HTML page, signed in the forms signing tools write. Run from this directory.
set -e
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/k.pem" -out "$tmp/c.pem" -subj /CN=quarry-test -days 3650 2>/dev/null
printf 'Signed minutes of the harbour committee.\n\nThe committee approved the new breakwater budget.\n' > "$tmp/minutes.txt"
printf '<html><body><h1>Invoice 42</h1><p>Total due: 120 EUR.</p></body></html>\n' > "$tmp/invoice.html"
sign() { openssl cms -sign -binary -nodetach -md sha256 -signer "$tmp/c.pem" -inkey "$tmp/k.pem" -nocerts "$@"; }
# BER with indefinite lengths and the content in chunks (what -stream and smart-card tools write).
sign -stream -in "$tmp/minutes.txt" -outform DER -out minutes.txt.p7m
# PEM armour.
sign -in "$tmp/invoice.html" -outform PEM -out invoice.html.p7m
# Counter-signed: an envelope inside an envelope.
sign -in minutes.txt.p7m -outform DER -out minutes.txt.p7m.p7m
# A detached signature (no content inside) and an encrypted envelope: both refused.
openssl cms -sign -binary -md sha256 -signer "$tmp/c.pem" -inkey "$tmp/k.pem" -nocerts -in "$tmp/minutes.txt" -outform DER -out detached.p7s
openssl cms -encrypt -aes256 -in "$tmp/minutes.txt" -outform DER -out encrypted.p7m "$tmp/c.pem"
# Opaque-signed S/MIME: the signed content is a MIME entity.
printf 'Content-Type: text/plain; charset=utf-8\r\n\r\nThe body of an opaquely signed message.\r\n' > "$tmp/entity.txt"
sign -in "$tmp/entity.txt" -outform DER -out smime.p7m
