"""Convergence at default settings and the cost of the tail (public API only).

Overlapping blobs ``make_blobs(n, 10, centers=10, cluster_std=2.5)``, k = 10, every
other parameter at its default, from kernel k-means++ starts (the default ``init``)
and from random partitions (``init="random"``). For each size and start: whether a
``ConvergenceWarning`` was raised, the engine ``auto`` chose, the number of starts,
the sweeps of the best run, the moves of its last sweeps and the time per phase
(``engine_stats_["seconds"]``).

The tail (``--tail-n``, one start, ``n_init=1``): the wall time of each sweep, read
from the fit's progress reports, and the share of the sweeps' time spent in the
last 80% of the sweeps. A sweep costs in proportion to the points that can still
move when the engine skips the points its bounds prove settled; without that, the
last sweeps, which move few points, would cost as much as the first.

To compare two versions, run it against each in one session, e.g.
``git worktree add /tmp/before REV && PYTHONPATH=/tmp/before/src python
benchmarks/bench_convergence.py --tail-only``.

Usage: python benchmarks/bench_convergence.py [--sizes 10000,100000] [--tail-n 100000]
       [--seeds 0] [--tail-only] [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
import warnings

from sklearn.datasets import make_blobs
from sklearn.exceptions import ConvergenceWarning

import kgroups
from kgroups import KernelKGroups


def _data(n, seed):
    X, _ = make_blobs(n, 10, centers=10, cluster_std=2.5, random_state=seed)
    return X


def default_fit(n, init, seed):
    """One fit at default settings; its line of the table."""
    X = _data(n, seed)
    est = KernelKGroups(10, init=init, random_state=seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        t0 = time.perf_counter()
        est.fit(X)
        wall = time.perf_counter() - t0
    warned = any(issubclass(w.category, ConvergenceWarning) for w in caught)
    sec = est.engine_stats_["seconds"]
    phases = " ".join(f"{k} {v:.2f}" for k, v in sec.items())
    return (f"| {n:>9,} | {init:9s} | {seed} | {est.engine_:11s} | {est.n_init_:2d} | "
            f"{est.n_iter_:4d} | {est.n_moves_[-3:]} | {'yes' if warned else 'no'} | "
            f"{wall:7.2f} | {phases} |")


class _SweepClock:
    """Times between the progress reports of one run: the wall time of each sweep."""

    def __init__(self):
        self.marks = []

    def install(self):
        from kgroups import _progress

        clock = self
        orig_start, orig_sweep = _progress.FitProgress.start, _progress.FitProgress.__call__

        def start(prog, restart):
            clock.marks = [time.perf_counter()]
            return orig_start(prog, restart)

        def sweep(prog, sweep, moves, objective):  # called once per sweep
            clock.marks.append(time.perf_counter())
            return orig_sweep(prog, sweep, moves, objective)

        _progress.FitProgress.start = start
        _progress.FitProgress.__call__ = sweep

    def sweeps(self):
        return [b - a for a, b in zip(self.marks, self.marks[1:])]


def tail(n, init, seed, clock):
    """The share of the sweeps' time spent in the last 80% of the sweeps, one start."""
    X = _data(n, seed)
    est = KernelKGroups(10, init=init, n_init=1, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est.fit(X)
    t = clock.sweeps()
    first = max(1, round(0.2 * len(t)))
    share = sum(t[first:]) / sum(t) if t else float("nan")
    return (f"| {n:>9,} | {init:9s} | {seed} | {est.engine_:11s} | {len(t):4d} | "
            f"{sum(t):7.2f} | {sum(t[:first]):7.2f} | {sum(t[first:]):7.2f} | {share:6.1%} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--tail-n", type=int, default=100_000)
    ap.add_argument("--seeds", default="0")
    ap.add_argument("--tail-only", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    lines = [f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}",
             f"{platform.machine()}, {os.cpu_count()} cores, "
             f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', 'all')}, "
             f"{time.strftime('%Y-%m-%d')}", f"command: python {' '.join(sys.argv)}", ""]

    def say(line):
        print(line, flush=True)
        lines.append(line)

    for line in lines:
        print(line)
    if not args.tail_only:
        say("| n | init | seed | engine | starts | sweeps | last moves | ConvergenceWarning "
            "| wall s | seconds per phase |")
        say("|---|---|---|---|---|---|---|---|---|---|")
        for n in (int(s) for s in args.sizes.split(",")):
            for init in ("k-means++", "random"):
                for seed in seeds:
                    say(default_fit(n, init, seed))
        say("")
    clock = _SweepClock()
    clock.install()
    say("| n | init | seed | engine | sweeps | sweep s | first 20% s | last 80% s "
        "| last 80% share |")
    say("|---|---|---|---|---|---|---|---|---|")
    for init in ("k-means++", "random"):
        for seed in seeds:
            say(tail(args.tail_n, init, seed, clock))
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
