"""What ``make bench`` runs: install the R peers, then every benchmark, in one run.

The R peers come from ``benchmarks/setup_peers.sh`` (Debian packages); when it
cannot install them (no root, no network) the benchmarks still run and skip R.
Each benchmark's output is echoed and kept in ``benchmarks/results/<name>.txt``.
"""

from __future__ import annotations

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def run_and_keep(cmd):
    """Run one benchmark, echo its output and keep it in ``results/<name>.txt``."""
    log = os.path.join(HERE, "results", cmd[0].replace(".py", ".txt"))
    with open(log, "w") as fh, subprocess.Popen(
            [sys.executable, os.path.join(HERE, cmd[0]), *cmd[1:]],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        for line in proc.stdout:
            print(line, end="", flush=True)
            fh.write(line)
    return proc.returncode


def main():
    setup = os.path.join(HERE, "setup_peers.sh")
    if os.path.exists(setup):
        rc = subprocess.run(["bash", setup]).returncode
        if rc != 0:
            print(f"run_all: setup_peers.sh exited with {rc}; R peers will be skipped",
                  flush=True)
    benches = [["compare_r_kgroups.py"], ["bench_realistic.py"],
               ["bench_engines.py", "--scenario", "all"], ["bench_auto.py", "--fit"],
               ["bench_scaling.py", "--cap", "60"], ["bench_graph_scale.py"],
               ["bench_dask.py"], ["bench_targets.py"],
               ["bench_startup.py", "--out", os.path.join(HERE, "results", "bench_startup.md")]]
    failed = []
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    for cmd in benches:
        print(f"\n===== {' '.join(cmd)} =====", flush=True)
        rc = run_and_keep(cmd)
        if rc != 0:
            failed.append(cmd[0])
    if failed:
        sys.exit(f"run_all: failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
