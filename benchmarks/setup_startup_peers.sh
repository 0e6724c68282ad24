#!/usr/bin/env bash
# A throwaway venv with the numba-based peers of benchmarks/bench_startup.py's first-use
# rows: UMAP (umap-learn) and pynndescent, from PyPI, at benchmarks/.data/startup-peers
# (or $1). bench_startup.py --peers-python PATH/bin/python times their first fits there
# from empty numba caches, in the same run as kgroups'. Idempotent: does nothing when
# both import.
set -euo pipefail

VENV="${1:-$(dirname "$0")/.data/startup-peers}"
PY="$VENV/bin/python"
if [ -x "$PY" ] && "$PY" -c "import umap, pynndescent" >/dev/null 2>&1; then
    echo "setup_startup_peers: umap and pynndescent already in $VENV"
    exit 0
fi
python3 -m venv "$VENV"
"$PY" -m pip install -q --upgrade pip
"$PY" -m pip install -q umap-learn pynndescent
"$PY" -c "import umap, pynndescent, numba; print('setup_startup_peers: umap', umap.__version__, \
'pynndescent', pynndescent.__version__, 'numba', numba.__version__, 'in', '$VENV')"
