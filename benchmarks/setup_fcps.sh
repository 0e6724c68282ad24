#!/usr/bin/env bash
# Fetch the FCPS data sets (Ultsch 2005, "Clustering with SOM: U*C"; Thrun & Ultsch
# 2020, "Clustering benchmark datasets exploiting the fundamental clustering
# problems", Data in Brief 30) for the "fcps" battery of benchmarks/_batteries.py,
# and pyclustering's labelled toy sets (Simple01..15, Elongate: points and answers)
# for its "simple" battery (benchmarks/_simple.py): the source distribution of
# pyclustering 0.10.1.2 (BSD-3-Clause) ships them as text files
# (samples/samples/fcps/*.data, samples/samples/simple/*.data and *.answer). One
# download; only the data files are kept, under benchmarks/.data/fcps/ and
# benchmarks/.data/simple/; nothing is installed.
# Usage: bash benchmarks/setup_fcps.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
PY="${1:-.venv/bin/python}"
HERE="$(cd "$(dirname "$0")" && pwd)"
DEST="$HERE/.data/fcps"
SIMPLE="$HERE/.data/simple"
if [ -f "$DEST/Atom.data" ] && [ -f "$SIMPLE/Simple15.answer" ]; then
    echo "setup_fcps: $DEST already holds the FCPS sets and $SIMPLE the simple sets"
    exit 0
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
"$PY" -m pip download --quiet --no-deps --no-binary :all: "pyclustering==0.10.1.2" -d "$TMP"
mkdir -p "$DEST" "$SIMPLE"
tar -xzf "$TMP"/pyclustering-0.10.1.2.tar.gz -C "$TMP"
SAMPLES="$TMP/pyclustering-0.10.1.2/pyclustering/samples/samples"
cp "$SAMPLES"/fcps/*.data "$DEST"/
cp "$SAMPLES"/simple/*.data "$SAMPLES"/simple/*.answer "$SIMPLE"/
echo "setup_fcps: $(ls "$DEST" | wc -l) FCPS files in $DEST"
echo "setup_fcps: $(ls "$SIMPLE" | wc -l) simple files (.data and .answer) in $SIMPLE"
