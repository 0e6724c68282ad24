#!/usr/bin/env bash
# Screenshots of the built site in headless Chromium (Debian's `chromium` package:
# apt-get install -y chromium), to look at the pages as a reader does, offline.
# Usage: docs/screenshot.sh [OUTDIR]   (after `make docs`; default OUTDIR docs/_build/screenshots)
set -euo pipefail
cd "$(dirname "$0")/.."
html="$PWD/docs/_build/html"
out="${1:-docs/_build/screenshots}"
mkdir -p "$out"
[ -f "$html/index.html" ] || { echo "screenshot.sh: build the site first (make docs)" >&2; exit 1; }
browser="$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)"
[ -n "$browser" ] || { echo "screenshot.sh: no chromium; apt-get install -y chromium" >&2; exit 1; }

shoot() {  # shoot NAME PAGE
    local profile
    profile="$(mktemp -d)"
    "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --disable-component-update --disable-sync --no-first-run --hide-scrollbars \
        --user-data-dir="$profile" --window-size=1280,1600 \
        --virtual-time-budget=5000 --screenshot="$out/$1.png" "file://$html/$2" \
        >/dev/null 2>&1
    rm -rf "$profile"
    echo "$out/$1.png"
}

shoot index index.html
shoot api_kernelkgroups api/generated/kgroups.KernelKGroups.html
shoot user_guide_energy user_guide/energy.html
shoot gallery_shapes auto_examples/plot_shapes.html
shoot gallery_index auto_examples/index.html
