#!/usr/bin/env bash
# Screenshots of the built site in headless Chromium (Debian's `chromium` package:
# apt-get install -y chromium), to look at the pages as a reader does, offline.
# Usage: docs/screenshot.sh [HTMLDIR [OUTDIR]]
#   HTMLDIR: the built site (default docs/_build/html, what `make docs` writes)
#   OUTDIR:  where the PNGs go (default docs/_build/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
html="$(cd "${1:-docs/_build/html}" 2>/dev/null && pwd)" \
    || { echo "screenshot.sh: no such folder: ${1:-docs/_build/html}" >&2; exit 1; }
out="${2:-docs/_build/screenshots}"
mkdir -p "$out"
[ -f "$html/index.html" ] || { echo "screenshot.sh: $html has no index.html; build the site first (make docs)" >&2; exit 1; }
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
[ -n "$browser" ] || { echo "screenshot.sh: no chromium; apt-get install -y chromium" >&2; exit 1; }

shoot() {  # shoot NAME PAGE [HEIGHT]: the top HEIGHT pixels (default 1600) of PAGE
    local profile
    profile="$(mktemp -d)"
    [ -f "$html/$2" ] || { echo "screenshot.sh: $html/$2 is missing" >&2; return 1; }
    "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$profile" --window-size="1280,${3:-1600}" \
        --virtual-time-budget=5000 --screenshot="$out/$1.png" "file://$html/$2" \
        >/dev/null 2>&1
    rm -rf "$profile"
    echo "$out/$1.png"
}

shoot index index.html
shoot install install.html
shoot getting_started getting_started.html 2600          # down to its figure
shoot user_guide_semimetrics user_guide/semimetrics.html 2400   # the table, a figure
shoot user_guide_clustering user_guide/clustering.html 5200     # equations and a figure
shoot user_guide_choosing_k user_guide/choosing_k.html 2000
shoot api_kernelkgroups api/generated/kgroups.KernelKGroups.html
shoot performance performance.html
shoot gallery_index auto_examples/index.html
