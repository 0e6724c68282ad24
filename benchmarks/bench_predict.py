"""``predict`` on new rows at scale: kernel k-groups' sums of each new row over the
training rows of each cluster, taken pair by pair on every core (the predictor of the
exact engines on raw data), against the same sums from a block of semimetric values
then summed by cluster (how they were taken before: ``pairwise`` block by block), on
the same fit and rows, beside scikit-learn's ``KMeans.predict`` (nearest centroid, a
different and far cheaper rule: the floor, not a peer of equal work). Per row of the
table: the seconds, pairs per second, the ratio, and whether the labels agree.

Usage: python bench_predict.py [--train 20000 60000] [--new 100000] [--dims 5 20]
       [--out FILE.md]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn.cluster import KMeans
from sklearn.datasets import make_blobs

from kgroups import KernelKGroups, pairwise
from kgroups._placement import insertion_scores, predict_rows

from _report import header, publish, timed


class BlockPredictor:
    """The sums from a block of ``-rho / 2`` values (:func:`kgroups.pairwise`, 64 MiB of
    them at a time), then by cluster (the block times the weighted one-hot labels)."""

    def __init__(self, X_fit, w, labels, k, semimetric, params, center):
        self.X_fit, self.semimetric, self.params, self.center = X_fit, semimetric, params, center
        self.onehot = np.zeros((X_fit.shape[0], k))
        self.onehot[np.arange(X_fit.shape[0]), labels] = w
        self.block_rows = max(1, 64 * 2**20 // (8 * X_fit.shape[0]))

    def cross_sums(self, Xb):
        K = pairwise(Xb, self.X_fit, self.semimetric, center=self.center, scale=-0.5,
                     **self.params)
        return K @ self.onehot, 0.0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--train", type=int, nargs="+", default=[20000, 60000])
    ap.add_argument("--new", type=int, default=100000)
    ap.add_argument("--dims", type=int, nargs="+", default=[5, 20])
    ap.add_argument("--k", type=int, default=8)
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    lines = [*header("bench_predict.py", argv), "",
             f"`make_blobs(n, D, centers={args.k}, cluster_std=3.0)` for the training rows "
             f"and {args.new} new rows of the same law; `KernelKGroups({args.k}, "
             "engine=\"matrix-free\", n_init=1)`, energy distance. One run each, in one "
             "process (numba compiled before).", "",
             "| training rows | D | pair by pair (s) | G pairs/s | block of values (s) | "
             "G pairs/s | block / pair by pair | same labels | KMeans.predict (s) |",
             "|---|---|---|---|---|---|---|---|---|"]
    for n in args.train:
        for D in args.dims:
            X, _ = make_blobs(n + args.new, n_features=D, centers=args.k, cluster_std=3.0,
                              random_state=0)
            X, Z = X[:n], X[n:]
            est = KernelKGroups(args.k, engine="matrix-free", n_init=1, random_state=0).fit(X)
            est.predict(Z[:10])
            fused, tf = timed(lambda: est.predict(Z))
            p = est._predictor
            old = BlockPredictor(X * est._scale, p.w, p.labels, p.k, p.semimetric, p.params,
                                 p.center)
            block, tb = timed(lambda: predict_rows(Z * est._scale, old, est._s, est._q,
                                                   insertion_scores))
            km = KMeans(args.k, n_init=1, random_state=0).fit(X)
            _, tk = timed(lambda: km.predict(Z))
            pairs = n * args.new / 1e9
            row = (f"| {n} | {D} | {tf:.2f} | {pairs / tf:.2f} | {tb:.2f} | {pairs / tb:.2f} | "
                   f"{tb / tf:.1f}x | {bool(np.array_equal(fused, block))} | {tk:.3f} |")
            print(row, file=sys.stderr, flush=True)
            lines.append(row)
    publish("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
