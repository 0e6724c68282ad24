"""What ``make bench`` runs: install the R peers, then every benchmark, in one run.

The R peers come from ``benchmarks/setup_peers.sh`` (Debian packages); when it
cannot install them (no root, no network) the benchmarks still run and skip R.
"""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    setup = os.path.join(HERE, "setup_peers.sh")
    if os.path.exists(setup):
        rc = subprocess.run(["bash", setup]).returncode
        if rc != 0:
            print(f"run_all: setup_peers.sh exited with {rc}; R peers will be skipped",
                  flush=True)
    benches = [["bench_engines.py", "--scenario", "all"], ["bench_scaling.py"]]
    extra = os.path.join(HERE, "compare_r_kgroups.py")
    if os.path.exists(extra):
        benches.append(["compare_r_kgroups.py"])
    failed = []
    for cmd in benches:
        print(f"\n===== {' '.join(cmd)} =====", flush=True)
        rc = subprocess.run([sys.executable, os.path.join(HERE, cmd[0]), *cmd[1:]]).returncode
        if rc != 0:
            failed.append(cmd[0])
    if failed:
        sys.exit(f"run_all: failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
