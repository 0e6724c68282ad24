"""The energy statistics on the CPU beside R's ``energy`` package, in one run.

    python benchmarks/bench_stats.py --out benchmarks/results/bench_stats.md

Data: two samples of ``make_blobs(n, 10, centers=10, cluster_std=2.5)`` (seeds 1 and 2,
overlapping), unit weights. Per size, the seconds (best of ``--repeat``) of

* :func:`kgroups.energy_distance` as it runs: from about a thousand points each
  unordered pair is visited once by the matrix-free engine's pass, on every core;
* the same function through the blocks of semimetric values (its path below that
  size, forced here by raising the threshold), to show what the pass brings;
* :func:`kgroups.within_energy` of the pooled sample labelled by sample (each sample's
  own pairs);
* R ``energy::edist(rbind(X, Y), sizes = c(n, n))`` (Rscript, timed inside R by
  ``system.time``; it holds the (2n)^2 distance matrix, so only up to ``--r-max``),

with the ratios and the relative differences of the values (R's ``edist`` is the
e-distance ``n n / (2 n) E``, converted back to E). Then the two-sample **permutation
test**, ``--permutations`` relabellings, per size of ``--test-sizes``:
:func:`kgroups.energy_test` with its phases (the pooled matrix, the relabellings drawn
and sorted, their sums: the pooled matrix times their one-hot codes), beside R
``energy::eqdist.etest(..., R = permutations)`` (timed inside R), with both p-values
(different random relabellings: they agree up to the permutation noise). Skips R when
it is not installed (``benchmarks/setup_peers.sh``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

import kgroups
from kgroups import energy_distance, within_energy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from _report import publish  # noqa: E402


def samples(n):
    from sklearn.datasets import make_blobs

    return [make_blobs(n, 10, centers=10, cluster_std=2.5, random_state=s)[0]
            for s in (1, 2)]


def best(fn, repeat):
    out, secs = None, []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        secs.append(time.perf_counter() - t0)
    return out, min(secs)


@contextlib.contextmanager
def blocks_only():
    """A context in which the statistics take the blocks of semimetric values at any
    size (the pass over the pairs' threshold raised)."""
    from kgroups._stats import pairsum

    old = pairsum.PARALLEL_MIN_WORK
    pairsum.PARALLEL_MIN_WORK = 2**62
    try:
        yield
    finally:
        pairsum.PARALLEL_MIN_WORK = old


def r_energy(X, Y, body):
    """The numbers R prints running ``body`` with ``library(energy)`` and the two
    samples stacked as the matrix ``Z`` (n = ``len(X)`` rows each), or None where R
    (or its package) is not installed."""
    if shutil.which("Rscript") is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "xy.csv")
        np.savetxt(path, np.vstack([X, Y]), delimiter=",")
        code = (f"suppressMessages(library(energy)); Z <- as.matrix(read.csv('{path}', "
                f"header = FALSE)); n <- {len(X)}; {body}")
        res = subprocess.run(["Rscript", "-e", code], capture_output=True, text=True)
    return [float(v) for v in res.stdout.split()] if res.returncode == 0 else None


def r_edist(X, Y, repeat):
    """``(E, seconds)`` of R's ``energy::edist`` on the two samples, or None."""
    out = r_energy(X, Y, f"t <- Inf; for (r in 1:{repeat}) {{ s <- system.time(e <- edist("
                         "Z, sizes = c(n, n)))[['elapsed']]; t <- min(t, s) }; "
                         "cat(sprintf('%.17g %.6f', as.numeric(e), t))")
    if out is None:
        return None
    n = len(X)
    return out[0] * (2 * n) / (n * n), out[1]


def r_etest(X, Y, perms):
    """``(statistic, p-value, seconds)`` of R's ``energy::eqdist.etest``, or None."""
    out = r_energy(X, Y, f"set.seed(0); s <- system.time(r <- eqdist.etest(Z, sizes = c(n, "
                         f"n), R = {perms}))[['elapsed']]; cat(sprintf('%.17g %.6f %.6f', "
                         "as.numeric(r$statistic), r$p.value, s))")
    return None if out is None else tuple(out)


def test_phases(X, Y, perms):
    """Seconds of :func:`kgroups.energy_test`'s phases on the two samples, from its own
    parts: the pooled matrix, the relabellings (keys drawn and each row sorted), and
    the sums of every relabelling (the product and the statistic)."""
    from kgroups._stats import dispatch, pairsum

    n = len(X) + len(Y)
    prep = dispatch.prepare([pairsum.Part(X, "X"), pairsum.Part(Y, "Y")],
                            pairsum.semimetric_spec("bench", "energy", 1.0, 1.0, 1.0), "bench")
    t0 = time.perf_counter()
    D = prep.backend.pooled(prep)
    t1 = time.perf_counter()
    rs = np.random.RandomState(0)
    batch = dispatch.relabel_batch(prep.backend, n, prep.k, perms)  # as energy_test's
    for b in range(0, perms, batch):
        dispatch.relabellings(rs, prep.codes, min(batch, perms - b))
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000],
                        help="points per sample")
    parser.add_argument("--r-max", type=int, default=5000,
                        help="largest sample R is run on (it holds the distance matrix)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--test-sizes", type=int, nargs="+", default=[500, 1000, 2000],
                        help="points per sample of the permutation test")
    parser.add_argument("--permutations", type=int, default=999)
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    energy_distance(*samples(600))  # compile outside the timings
    within_energy(np.vstack(samples(600)), np.repeat([0, 1], 600))
    rows = []
    for n in args.sizes:
        X, Y = samples(n)
        Z, lab = np.vstack([X, Y]), np.repeat([0, 1], n)
        e, t = best(lambda: energy_distance(X, Y), args.repeat)
        with blocks_only():
            eb, tb = best(lambda: energy_distance(X, Y), args.repeat)
        _, tw = best(lambda: within_energy(Z, lab), args.repeat)
        r = r_edist(X, Y, args.repeat) if n <= args.r_max else None
        pairs = (2 * n) ** 2 / 2
        rows.append(
            f"| 2 × {n:,} | {t:.3f} s ({pairs / t / 1e9:.2f} G pairs/s) | {tb:.3f} s "
            f"({tb / t:.1f}×; rel. diff {abs(eb - e) / e:.0e}) | {tw:.3f} s | "
            + (f"{r[1]:.3f} s ({r[1] / t:.1f}×; rel. diff {abs(r[0] - e) / e:.0e})"
               if r else "not run") + " |")
        print(rows[-1], flush=True)
    from kgroups import energy_test

    energy_test(*samples(300), n_permutations=9, random_state=0)  # compiled first
    tests = []
    for n in args.test_sizes:
        X, Y = samples(n)
        res, t = best(lambda: energy_test(X, Y, n_permutations=args.permutations,
                                          random_state=0), args.repeat)
        pooled, codes = test_phases(X, Y, args.permutations)
        r = r_etest(X, Y, args.permutations)
        rate = (2 * n) ** 2 * args.permutations / t / 1e9
        tests.append(
            f"| 2 × {n:,} | {t:.3f} s ({rate:.1f} G pair-permutations/s; pooled matrix "
            f"{pooled:.3f} s, relabellings {codes:.3f} s, sums {t - pooled - codes:.3f} s) "
            f"| {res.pvalue:.3f} | " + (f"{r[2]:.3f} s ({r[2] / t:.1f}×) | {r[1]:.3f} | "
                                        f"{abs(r[0] - res.statistic) / res.statistic:.0e}"
                                        if r else "not run | | ") + " |")
        print(tests[-1], flush=True)
    lines = [f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}",
             f"{platform.machine()}, {os.cpu_count()} cores, python "
             f"{platform.python_version()}, {datetime.date.today().isoformat()}",
             "command: python benchmarks/bench_stats.py" + " ".join(
                 [""] + (argv if argv is not None else sys.argv[1:])),
             "",
             f"Two samples of `make_blobs(n, 10, centers=10, cluster_std=2.5)`, unit "
             f"weights, {numba.get_num_threads()} numba threads; best of {args.repeat}. "
             "*Pairs/s*: unordered pairs, (2n)^2 / 2, over the seconds.",
             "",
             "| samples | energy_distance | through the blocks (× its time) | "
             "within_energy of the two | R energy::edist (× kgroups) |",
             "|---|---|---|---|---|", *rows, "",
             f"The two-sample energy test with {args.permutations} permutations (one run "
             f"each; best of {args.repeat} for kgroups). Both statistics are the e-distance, "
             "n m / (n + m) times the energy distance (rel. diff: between them); the "
             "p-values come from different random relabellings.",
             "",
             "| samples | kgroups energy_test (phases) | p-value | R energy::eqdist.etest "
             "(× kgroups) | R p-value | statistic rel. diff |",
             "|---|---|---|---|---|---|", *tests, ""]
    publish("\n".join(lines), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
