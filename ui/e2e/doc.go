// Package e2e holds the web UI's browser tests: they drive real headless Chromium (Debian's
// chromium, through chromedp) against a real Quarry server, write screenshots to artifacts/
// (or $QUARRY_E2E_ARTIFACTS) and check the layout for overlaps and overflow at desktop and
// phone sizes. Without Chromium they skip, except under CI=true, where they fail.
package e2e
