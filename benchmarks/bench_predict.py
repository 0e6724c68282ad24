"""``predict`` on new rows at scale: kernel k-groups' sums of each new row over the
training rows of each cluster, by the predictor's two paths on the same fit and rows:
pair by pair on every core (direct differences, the training rows sorted by cluster)
and from blocks of semimetric values (a BLAS product on centred rows, then summed by
cluster), beside scikit-learn's ``KMeans.predict`` (nearest centroid, a different and
far cheaper rule: the floor, not a peer of equal work). Per row of the table: the
seconds, pairs per second, the ratio, the path ``predict`` takes at that D
(``PREDICT_BLAS_MIN_D``), and whether the two paths' labels agree.

Usage: python bench_predict.py [--train 20000 60000] [--new 100000] [--dims 5 20 64 128]
       [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from kgroups import KernelKGroups
from kgroups._engines import engine
from kgroups._placement import insertion_scores, predict_rows

from _report import header, publish, timed


def predictor(est, X, blocks):
    """The fit's :class:`~kgroups._engines.engine.RawDataPredictor` of the training rows
    X, on the block path (``blocks``) or pair by pair, whatever the columns."""
    p, keep = est._predictor, engine.PREDICT_BLAS_MIN_D
    engine.PREDICT_BLAS_MIN_D = 0 if blocks else np.inf
    try:
        q = engine.RawDataPredictor(X * est._scale, p.w, p.labels, p.k, p.semimetric, p.params)
    finally:
        engine.PREDICT_BLAS_MIN_D = keep
    assert q.from_blocks == blocks
    return q


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=int, nargs="+", default=[20000, 60000])
    ap.add_argument("--new", type=int, default=100000)
    ap.add_argument("--dims", type=int, nargs="+", default=[5, 20, 64, 128])
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    lines = [*header("bench_predict.py", argv), "",
             f"`make_blobs(n, D, centers={args.k}, cluster_std=3.0)` for the training rows "
             f"and {args.new} new rows of the same law; `KernelKGroups({args.k}, "
             "engine=\"matrix-free\", n_init=1)`, energy distance. One run each, in one "
             "process (numba compiled before).", "",
             "| training rows | D | pair by pair (s) | G pairs/s | block of values (s) | "
             "G pairs/s | block / pair by pair | predict takes | same labels | "
             "KMeans.predict (s) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for n in args.train:
        for D in args.dims:
            X, _ = make_blobs(n + args.new, n_features=D, centers=args.k, cluster_std=3.0,
                              random_state=0)
            X, Z = X[:n], X[n:]
            est = KernelKGroups(args.k, engine="matrix-free", n_init=1, random_state=0).fit(X)
            Zs, out = Z * est._scale, {}
            for blocks in (False, True):
                p = predictor(est, X, blocks)
                predict_rows(Zs[:10], p, est._s, est._q, insertion_scores)  # compiled first
                out[blocks] = timed(lambda: predict_rows(Zs, p, est._s, est._q,
                                                         insertion_scores))
            (pair, tp), (block, tb) = out[False], out[True]
            km = KMeans(args.k, n_init=1, random_state=0).fit(X)
            _, tk = timed(lambda: km.predict(Z))
            pairs = n * args.new / 1e9
            takes = "block" if est._predictor.from_blocks else "pair by pair"
            row = (f"| {n} | {D} | {tp:.2f} | {pairs / tp:.2f} | {tb:.2f} | {pairs / tb:.2f} | "
                   f"{tb / tp:.1f}x | {takes} | {bool(np.array_equal(pair, block))} | "
                   f"{tk:.3f} |")
            print(row, file=sys.stderr, flush=True)
            lines.append(row)
    publish("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
