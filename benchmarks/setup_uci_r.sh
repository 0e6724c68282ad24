#!/usr/bin/env bash
# Fetch the labelled R tables of the "uci" battery of benchmarks/_batteries.py
# (benchmarks/_uci_tables.py): installs R and the R packages that ship them from
# Debian when they are missing (apt-get, as root: r-base-core, r-cran-mlbench,
# r-cran-mclust, r-cran-factoextra, r-cran-rrcov, r-cran-hsaur3, r-cran-mass,
# r-cran-kernlab, r-cran-gclus (the last two for the "ztables" battery), r-cran-cardata,
# r-cran-caret, r-cran-boot), then
# runs benchmarks/export_r_tables.R, which writes each table as a CSV file (features
# and a column "label") into benchmarks/.data/r/. Exits early when the files are
# there. [PYTHON] then loads them all once (python benchmarks/_uci_tables.py).
# Usage: bash benchmarks/setup_uci_r.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
PY="${1:-.venv/bin/python}"
HERE="$(cd "$(dirname "$0")" && pwd)"
DEST="$HERE/.data/r"
complete() {  # every table export_r_tables.R lists (an older export lacks the new ones)
    [ -f "$DEST/index.txt" ] || return 1
    while read -r f; do [ -f "$DEST/$f" ] || return 1; done < "$DEST/index.txt"
    for f in $(sed -n 's/^ *c("\([^"]*\)", "[^"]*", .*/\1/p' "$HERE/export_r_tables.R"); do
        [ -f "$DEST/$f.csv" ] || return 1
    done
}
if complete; then
    echo "setup_uci_r: $DEST already holds the $(wc -l < "$DEST/index.txt") R tables"
    exit 0
fi
# R package -> Debian package
declare -A DEB=([mlbench]=r-cran-mlbench [mclust]=r-cran-mclust
                [factoextra]=r-cran-factoextra [rrcov]=r-cran-rrcov
                [HSAUR3]=r-cran-hsaur3 [MASS]=r-cran-mass [kernlab]=r-cran-kernlab
                [gclus]=r-cran-gclus [carData]=r-cran-cardata [caret]=r-cran-caret
                [boot]=r-cran-boot)
missing=()
if ! command -v Rscript >/dev/null 2>&1; then
    missing=(r-base-core "${DEB[@]}")
else
    for p in "${!DEB[@]}"; do
        Rscript -e "quit(status = !requireNamespace('$p', quietly = TRUE))" \
            >/dev/null 2>&1 || missing+=("${DEB[$p]}")
    done
fi
if [ "${#missing[@]}" -gt 0 ]; then
    echo "setup_uci_r: installing ${missing[*]} (apt-get)"
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "setup_uci_r: R and its packages are installed"
fi
rm -f "$DEST/index.txt"
Rscript "$HERE/export_r_tables.R" "$DEST"
if command -v "$PY" >/dev/null 2>&1; then
    "$PY" "$HERE/_uci_tables.py"
fi
