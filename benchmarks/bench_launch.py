"""What running a kernel's ranges at once costs: kgroups' worker threads, each waiting
on a lock of its own (``kgroups._kernels.parallel.spread``), against the standard
library's thread pool (``concurrent.futures.ThreadPoolExecutor``, a future per
range), in one process with the same compiled kernels.

    python benchmarks/bench_launch.py [--n 400000] [--rounds 2] [--out FILE]

Printed, alternated ``--rounds`` times:

* the launch alone: a trivial compiled part (one add per item) over 64 items cut
  into 2, 4, 8 and every thread's ranges, the mean of 2,000 calls, in microseconds;
* the matrix-free fit of ``make_blobs(n, 10, centers=10, cluster_std=2.5,
  random_state=0)``, k = 10, from a k-means++ start in the input space (the data
  and start of ``bench_gpu.py``), with its phases (``engine_stats_``), and whether
  both launchers give the same labels (they must: a range's results do not depend
  on the thread that runs it).

The pool stands in for every module's ``spread`` while it is timed; the kernels and
their cuts into ranges are the same.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import time
import warnings
from concurrent.futures import ThreadPoolExecutor, wait

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

_POOL = {"executor": None, "size": 0}


def spread_pool(part, n_items, n_workers, *args):
    """``spread`` with a future per range on a ThreadPoolExecutor (the peer). A call of
    one range starts no thread: it goes to kgroups' own ``spread``, which makes it."""
    from kgroups._kernels import parallel

    run, n_workers = part.target(), min(int(n_workers), int(n_items))
    if n_workers < 2 or run is part.py_func:
        return parallel.spread(part, n_items, n_workers, *args)
    bounds = [(n_items * t // n_workers, n_items * (t + 1) // n_workers)
              for t in range(n_workers)]
    if _POOL["size"] < n_workers - 1:
        _POOL["executor"], _POOL["size"] = ThreadPoolExecutor(n_workers - 1), n_workers - 1
    futures = [_POOL["executor"].submit(run, *args, lo, hi) for lo, hi in bounds[1:]]
    try:
        run(*args, *bounds[0])
    finally:
        wait(futures)
    for f in futures:
        f.result()


def launchers():
    """``{name: spread}`` and a function that puts one in every kernel module."""
    import kgroups._kernels as kernels
    from kgroups._kernels import parallel

    mods = [importlib.import_module(f"kgroups._kernels.{m.name}")
            for m in pkgutil.iter_modules(kernels.__path__)]
    users = [m for m in mods if getattr(m, "spread", None) is parallel.spread
             and m is not parallel]

    def use(fn):
        for m in users:
            m.spread = fn

    return {"pool": spread_pool, "locks": parallel.spread}, use


def launch_costs(spreads, rounds, out):
    import numba

    from kgroups._kernels.jit import njit

    @njit(cache=False, nogil=True)
    def part(a, lo, hi):
        for i in range(lo, hi):
            a[i] += 1.0

    a = np.zeros(64)
    for nw in sorted({2, 4, 8, numba.get_num_threads()}):
        for _ in range(rounds):
            for name, fn in spreads.items():
                fn(part, 64, nw, a)
                t = time.perf_counter()
                for _ in range(2000):
                    fn(part, 64, nw, a)
                out(f"launch, {nw:2d} workers, {name:5s}: "
                    f"{(time.perf_counter() - t) / 2000 * 1e6:7.1f} us")


def fits(spreads, use, n, rounds, out):
    from bench_gpu import blobs, kpp_start

    from kgroups import KernelKGroups

    def fit(X, start, **kw):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # max_iter=1 stops on purpose
            return KernelKGroups(10, engine="matrix-free", init=start, **kw).fit(X)

    small = blobs(3000)
    fit(small, kpp_start(small, 10))
    X = blobs(n)
    start = kpp_start(X, 10)
    fit(X, start, max_iter=1)  # compiled for this size's passes before the timings
    labels = {}
    for _ in range(rounds):
        for name, fn in spreads.items():
            use(fn)
            t0 = time.perf_counter()
            est = fit(X, start)
            labels.setdefault(name, est.labels_)
            phases = {k: round(v, 2) for k, v in est.engine_stats_["seconds"].items()}
            out(f"fit, {name:5s}: {time.perf_counter() - t0:6.2f} s, {est.n_iter_} sweeps, "
                f"phases {phases}")
    out(f"same labels: {bool((labels['pool'] == labels['locks']).all())}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=400_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--out", default=None, help="also write the lines to this file")
    a = parser.parse_args()
    import numba

    lines = [f"$ python benchmarks/bench_launch.py --n {a.n} --rounds {a.rounds}   "
             f"({numba.get_num_threads()} threads, {os.cpu_count()} cores)"]

    def out(line):
        print(line, flush=True)
        lines.append(line)

    spreads, use = launchers()
    launch_costs(spreads, a.rounds, out)
    fits(spreads, use, a.n, a.rounds, out)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
