#!/usr/bin/env bash
# Regenerates docs/ui.png, the screenshot docs/ui.md shows: runs the web UI
# test (a real pipeline rendered in headless Chromium) with
# UPDATE_UI_SCREENSHOT=1, which saves its screenshot there. Needs chromium
# (scripts/install-toolchains.sh installs it).
#   ./scripts/ui-screenshot.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  echo "chromium is not installed: run scripts/install-toolchains.sh first" >&2
  exit 1
fi
UPDATE_UI_SCREENSHOT=1 go test -count=1 -run '^TestWebUIOfARun$' ./internal/engine/
echo "wrote docs/ui.png"
