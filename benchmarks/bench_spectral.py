"""The spectral relaxation's eigensolver: ``spectral_kgroups(G, k)`` with the dense
solver (``scipy.linalg.eigh``, the k largest by index) against ARPACK
(``scipy.sparse.linalg.eigsh``), on Gaussian Gram matrices of blobs, beside
scikit-learn's ``spectral_clustering`` on the same matrix (its own relaxation, the
normalised Laplacian), all in one run: seconds, their ratio, and the adjusted Rand
index of each against the blobs and between the two solvers.

``eigen_solver="auto"`` takes ARPACK above ``_spectral._DENSE_MAX_N`` rows; this
table is where that line is drawn.

Usage: python bench_spectral.py [--n 500 1000 2000 4000] [--k 3 10] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn.cluster import spectral_clustering
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score as ari

from kgroups import spectral_kgroups
from kgroups._spectral import _DENSE_MAX_N

from _report import header, publish, timed


def gram(X):
    """Gaussian kernel exp(-d^2 / m), m the median squared distance between rows."""
    sq = (X * X).sum(1)
    D2 = np.maximum(sq[:, None] + sq[None, :] - 2.0 * X @ X.T, 0.0)
    return np.exp(-D2 / np.median(D2))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, nargs="+", default=[500, 1000, 2000, 4000])
    ap.add_argument("--k", type=int, nargs="+", default=[3, 10])
    ap.add_argument("--out")
    args = ap.parse_args(argv)
    lines = [*header("bench_spectral.py", argv), "",
             f"`make_blobs(n, 5, centers=k, cluster_std=2.0)`, the Gaussian Gram matrix of "
             f"bandwidth the median squared distance; one run each, in one process. "
             f"`eigen_solver=\"auto\"` takes ARPACK above {_DENSE_MAX_N} rows.", "",
             "| n | k | dense (s) | ARPACK (s) | dense / ARPACK | ARI dense | ARI ARPACK "
             "| ARI between | sklearn spectral_clustering (s) | its ARI |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for n in args.n:
        for k in args.k:
            X, y = make_blobs(n, n_features=5, centers=k, cluster_std=2.0, random_state=0)
            G = gram(X)
            spectral_kgroups(G[:50, :50], 2)        # numba and scipy loaded before timing
            d, td = timed(lambda: spectral_kgroups(G, k, eigen_solver="dense", random_state=0))
            a, ta = timed(lambda: spectral_kgroups(G, k, eigen_solver="arpack", random_state=0))
            s, ts = timed(lambda: spectral_clustering(G, n_clusters=k, random_state=0))
            row = (f"| {n} | {k} | {td:.2f} | {ta:.2f} | {td / ta:.1f}x | "
                   f"{ari(y, d.labels):.3f} | {ari(y, a.labels):.3f} | "
                   f"{ari(d.labels, a.labels):.3f} | {ts:.2f} | {ari(y, s):.3f} |")
            print(row, file=sys.stderr, flush=True)   # as it goes; the report at the end
            lines.append(row)
    publish("\n".join(lines) + "\n", args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
