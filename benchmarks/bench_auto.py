"""Calibrate and check ``engine="auto"``: the exact engines timed on a grid.

Grid: n in {2000, 5000, 10000, 20000} x D in {2, 10, 50, 100, 200} x n_init in
{1, 10}, k = 10, ``make_blobs(n, D, centers=10, cluster_std=2.5)`` (overlapping),
``KernelKGroups(10, init="k-means++", n_init=n_init, random_state=0)`` with
``engine="dense"``, ``"matrix-free"`` and ``"auto"``. Only exact engines compete (``"low-rank"`` is approximate and
``"auto"`` stays exact). Each cell is fitted ``--repeat`` times and the fastest kept
(the max/min spread is printed: other jobs share the cores), after a warm-up fit
that loads numba's code; an engine whose first fit is over 3 times the faster
engine's is clearly the slower one and is not repeated.

Then:

* ``--fit``: fits the cost model of :mod:`kgroups._engines` (seconds as a
  non-negative combination of the work terms of ``cost_features``; least squares
  on the relative error) to the measured times and prints the constants to put in
  ``COST_CONSTANTS``;
* always: for every cell, the engine ``"auto"`` ran, its time and its ratio to the
  best forced engine (the target: <= 1.2 everywhere, 20k x 50 included).

Usage: python benchmarks/bench_auto.py [--quick] [--repeat 3] [--fit]
       [--ns 2000,5000,10000,20000] [--ds 2,10,50,100,200] [--ninits 1,10]
       [--engines dense,matrix-free,auto] [--save auto_grid.json | --load FILE]
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results")
K = 10


def ints(text):
    return [int(v) for v in text.split(",") if v]


def time_fit(X, n_init, engine, repeat):
    """Best and max wall time of ``repeat`` fits, and the engine that ran."""
    from kgroups import KernelKGroups

    times, used = [], None
    for _ in range(repeat):
        est = KernelKGroups(K, init="k-means++", n_init=n_init, engine=engine, random_state=0)
        gc.collect()
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # ConvergenceWarning at max_iter: same for all
            est.fit(X)
        times.append(time.perf_counter() - t0)
        used = est.engine_
        del est
    return min(times), max(times), used


def measure(args):
    from sklearn.datasets import make_blobs

    from kgroups import KernelKGroups

    Xw, _ = make_blobs(500, n_features=3, centers=K, random_state=0)
    for engine in ("dense", "matrix-free"):  # load numba's code before the clock starts
        for n_init in (1, 2):
            KernelKGroups(K, init="k-means++", n_init=n_init, engine=engine,
                          random_state=0).fit(Xw)
    rows = []
    print(f"{'n':>6}{'D':>5}{'n_init':>7}" + "".join(f"{e + ' s':>14}{'spread':>7}"
                                                   for e in args.engines), flush=True)
    for n in args.ns:
        for d in args.ds:
            X, _ = make_blobs(n, n_features=d, centers=K, cluster_std=2.5, random_state=0)
            for n_init in args.ninits:
                row = {"n": n, "D": d, "n_init": n_init}
                line = f"{n:>6}{d:>5}{n_init:>7}"
                for engine in args.engines:
                    # best of --repeat; an engine whose first fit takes more than 3 times
                    # the best so far is clearly the slower one: not repeated
                    so_far = min([row[e] for e in args.engines if row.get(e)] or [np.inf])
                    try:
                        best, worst, used = time_fit(X, n_init, engine, 1)
                        if best < 3 * so_far:
                            b2, w2, used = time_fit(X, n_init, engine, args.repeat - 1)
                            best, worst = min(best, b2), max(worst, w2)
                    except ValueError as err:  # a forced dense engine that does not fit
                        best, worst, used = None, None, f"refused: {err}"[:60]
                    row[engine], row[f"{engine}_spread"] = best, (worst / best if best else None)
                    row[f"{engine}_ran"] = used
                    line += f"{fmt(best):>14}{fmt2(row[f'{engine}_spread']):>7}"
                rows.append(row)
                print(line, flush=True)
            del X
    return rows


def fmt2(v):
    return f"{v:.2f}" if v is not None else "-"


def fmt(v):
    return f"{v:>9.3f}" if v is not None else f"{'-':>9}"


MULTI_STARTS = 10  # starts per pass over the pairs of the matrix-free engine


def cost_features(engine, n, d, r):
    """The work terms of the cost model, as ``kgroups._engines.cost_features`` (the
    benchmarks use the public API only; tests/engines/test_select_engine.py checks
    that the two agree)."""
    n, d, r = float(n), float(max(d, 1)), float(max(r, 1))
    if engine == "dense":
        return (n * n * d, n * n, r * n * n, r * n)
    passes = float(-(-int(r) // MULTI_STARTS))
    return (n * n * d * passes, r * n * n, r * n * n * d, r * n)


def fit_constants(rows):
    """Least squares, on the relative error, of the cost model's constants; prints
    them and the choice they make in every cell."""
    from scipy.optimize import nnls

    out = {}
    for engine in ("dense", "matrix-free"):
        A = np.asarray([np.asarray(cost_features(engine, r["n"], r["D"], r["n_init"]))
                        / r[engine] for r in rows])
        coef, _ = nnls(A, np.ones(len(A)))
        pred = A @ coef  # predicted / measured
        out[engine] = coef
        print(f"{engine}: constants ({', '.join(f'{c:.3g}' for c in coef)}); "
              f"predicted/measured min {pred.min():.2f} median {np.median(pred):.2f} "
              f"max {pred.max():.2f}")
    worst, bad = 1.0, []
    for r in rows:
        pd, pm = (float(np.dot(out[e], cost_features(e, r["n"], r["D"], r["n_init"])))
                  for e in ("dense", "matrix-free"))
        pick = "matrix-free" if pm < pd else "dense"
        ratio = r[pick] / min(r["dense"], r["matrix-free"])
        worst = max(worst, ratio)
        if ratio > 1.2:
            bad.append(f"n={r['n']} D={r['D']} n_init={r['n_init']} ({ratio:.2f})")
    print(f"these constants pick an engine within {worst:.2f}x of the faster one; "
          f"above 1.2x: {', '.join(bad) or 'none'}")
    return out


def check(rows):
    """What ``"auto"`` ran (it was timed as an engine of its own) against the best
    forced engine of the same cell."""
    worst, wrong, seen = 1.0, 0, 0
    print(f"\n{'n':>6}{'D':>5}{'n_init':>7}  {'auto ran':<12}{'dense s':>9}{'mf s':>9}"
          f"{'auto s':>9}{'auto/best':>10}{'its engine/best':>16}")
    for r in rows:
        forced = [r.get(e) for e in ("dense", "matrix-free") if r.get(e)]
        if not r.get("auto") or not forced:
            continue
        ran = r.get("auto_ran")
        ratio = r["auto"] / min(forced)
        same = r[ran] / min(forced) if r.get(ran) else None
        seen += 1
        worst = max(worst, ratio)
        wrong += ratio > 1.2
        print(f"{r['n']:>6}{r['D']:>5}{r['n_init']:>7}  {ran:<12}{fmt(r.get('dense'))}"
              f"{fmt(r.get('matrix-free'))}{fmt(r['auto'])}{ratio:>10.2f}{fmt2(same):>16}")
    if seen:
        print(f"\nauto / best forced engine: worst {worst:.2f} over {seen} cells; "
              f"{wrong} cells above 1.2 (noise: see the spread columns)")
    return wrong == 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="n in {1000, 2000}, D in {2, 50}")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--ns", type=ints, default=[2000, 5000, 10_000, 20_000])
    p.add_argument("--ds", type=ints, default=[2, 10, 50, 100, 200])
    p.add_argument("--ninits", type=ints, default=[1, 10])
    p.add_argument("--engines", type=lambda t: t.split(","),
                   default=["dense", "matrix-free", "auto"],
                   help="engines to time (add auto to time it too)")
    p.add_argument("--fit", action="store_true", help="fit and print the cost constants")
    p.add_argument("--save", default="auto_grid.json", help="file in results/")
    p.add_argument("--load", help="re-use the measurements of a saved JSON instead of timing")
    args = p.parse_args(argv)
    if args.quick:
        args.ns, args.ds = [1000, 2000], [2, 50]
    if args.load:
        with open(args.load) as fh:
            rows = json.load(fh)
    else:
        rows = measure(args)
        os.makedirs(RESULTS, exist_ok=True)
        name = "auto_grid_quick.json" if args.quick else args.save
        with open(os.path.join(RESULTS, name), "w") as fh:
            json.dump(rows, fh, indent=1)
    if args.fit:
        fit_constants(rows)
    ok = check(rows)
    return 0 if (ok or args.quick) else 1


if __name__ == "__main__":
    sys.exit(main())
