"""Nothing given on awkward inputs: data a user hands over as it comes.

Each case is a small data set with known groups and one awkwardness: units (huge, tiny,
mixed across columns, far from the origin), copies and weights, rounding, one column,
many columns, constant and repeated columns, outliers, a far tight group, very unequal
sizes, few rows, binary codes, heavy tails, and data without clusters (k = 1). Each runs
through ``KernelKGroups(n_clusters="auto", semimetric="auto")`` (nothing given), beside
the graph alone (``semimetric="nearest_neighbors"``) and energy alone (``choose_k(X)``),
and prints the k found and the adjusted Rand index with the truth on the points that
are not noise (rows labelled -1 by the generator are outliers of no group). ``--seeds N``
draws each case N times (seeds 0..N-1) and prints how often each pipeline found the true
k and its mean ARI: one draw's answer may be luck.

Usage: python benchmarks/bench_awkward.py [--cases NAME ...] [--seeds N] [--out FILE]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn.datasets import make_blobs, make_circles, make_moons

from kgroups import KernelKGroups, choose_k
from kgroups.metrics import ari

from _report import header, publish, timed


def _blobs(n=300, k=3, d=2, sd=1.0, seed=0, spacing=8.0):
    """k blobs of standard deviation ``sd`` on a grid of ``spacing`` in the first two of
    d columns (a clear answer: the awkwardness is the case's)."""
    grid = np.array([[i % 3, i // 3] for i in range(k)], dtype=float) * spacing
    centres = np.zeros((k, d))
    centres[:, :2] = grid
    return make_blobs(n, n_features=d, centers=centres, cluster_std=sd, random_state=seed)


def _scaled(factor, shift=0.0):
    def make(seed):
        X, y = _blobs(seed=seed)
        return X * factor + shift, y
    return make


def _mixed_units(seed):
    X, y = _blobs(seed=seed)
    return X * [1.0, 100.0], y


def _copies(seed):
    X, y = _blobs(100, seed=seed)
    return np.repeat(X, 5, axis=0), np.repeat(y, 5)


def _rounded(seed):
    X, y = _blobs(400, 4, sd=1.5, spacing=10.0, seed=1 + seed)
    return np.round(X), y


def _one_column(seed):
    rng = np.random.default_rng(2 + seed)
    X = np.concatenate([rng.normal(m, 1.0, 150) for m in (0.0, 8.0, 16.0)])
    return X[:, None], np.repeat([0, 1, 2], 150)


def _many_columns(seed):
    return _blobs(400, 4, d=200, seed=3 + seed)


def _extra_columns(seed):
    X, y = _blobs(seed=seed)
    return np.column_stack([X, np.full(len(X), 7.0), X[:, 0]]), y


def _outliers(seed):
    X, y = _blobs(600, 3, seed=4 + seed)
    out = np.random.default_rng(4 + seed).uniform(-40.0, 40.0, (12, 2))
    return np.vstack([X, out]), np.r_[y, np.full(12, -1)]


def _far_tight(seed):
    rng = np.random.default_rng(5 + seed)
    X = np.vstack([rng.normal(0.0, 1.0, (1000, 2)), rng.normal(40.0, 0.05, (5, 2))])
    return X, np.repeat([0, 1], [1000, 5])


def _unequal(seed):
    rng = np.random.default_rng(6 + seed)
    X = np.vstack([rng.normal(0.0, 1.0, (1000, 2)), rng.normal(8.0, 0.7, (30, 2))])
    return X, np.repeat([0, 1], [1000, 30])


def _few_rows(seed):
    rng = np.random.default_rng(7 + seed)
    X = np.vstack([rng.normal(c, 0.3, (5, 2)) for c in ([0, 0], [6, 0], [0, 6])])
    return X, np.repeat([0, 1, 2], 5)


def _binary(seed):
    rng = np.random.default_rng(8 + seed)
    protos = rng.integers(0, 2, (3, 30))
    y = np.repeat([0, 1, 2], 100)
    flip = rng.random((300, 30)) < 0.1
    return np.abs(protos[y] - flip).astype(float), y


def _heavy_tails(seed):
    rng = np.random.default_rng(9 + seed)
    centres = np.array([[0, 0], [20, 0], [0, 20]])
    y = np.repeat([0, 1, 2], 150)
    return centres[y] + rng.standard_t(2, (450, 2)), y


def _uniform(seed):
    return np.random.default_rng(10 + seed).uniform(size=(500, 2)), np.zeros(500, np.int64)


def _gaussian(seed):
    X = np.random.default_rng(11 + seed).normal(size=(500, 3)) * [3, 1, 1]
    return X, np.zeros(500, np.int64)


def _anisotropic(seed):
    X, y = _blobs(450, 3, seed=170 + seed)
    return X @ np.array([[0.6, -0.6], [-0.4, 0.8]]), y


def _weighted(seed):
    """Blobs whose even rows weigh 2: ``(X, y, weights)``."""
    X, y = _blobs(300, 3, seed=14 + seed)
    return X, y, np.where(np.arange(len(X)) % 2 == 0, 2.0, 1.0)


CASES = {  # name -> generator of (X, y[, sample_weight]) from a seed
    "huge units (x 1e8)": _scaled(1e8),
    "tiny units (x 1e-8)": _scaled(1e-8),
    "far from the origin (+ 1e6)": _scaled(1.0, 1e6),
    "mixed units (one column x 100)": _mixed_units,
    "every row 5 times": _copies,
    "rounded to integers": _rounded,
    "one column": _one_column,
    "200 columns": _many_columns,
    "a constant and a repeated column": _extra_columns,
    "2 % uniform outliers": _outliers,
    "far tight group of 5": _far_tight,
    "sizes 1000 and 30": _unequal,
    "15 rows": _few_rows,
    "binary codes": _binary,
    "heavy tails (t, 2 d.f.)": _heavy_tails,
    "uniform square (no clusters)": _uniform,
    "one Gaussian (no clusters)": _gaussian,
    "sheared blobs": _anisotropic,
    "two moons": lambda seed: make_moons(400, noise=0.06, random_state=12 + seed),
    "two circles": lambda seed: make_circles(400, noise=0.04, factor=0.4,
                                             random_state=13 + seed),
    "weighted: half the rows, weight 2": _weighted,
}
PIPELINES = ("nothing given", "graph alone", "energy alone (choose_k)")


def _run(X, y, w):
    """The three pipelines on X: [(k, ARI on non-noise, seconds)]."""
    keep = y >= 0
    rows = []
    for how in ("auto", "nearest_neighbors", "energy"):
        if how == "energy":
            r, s = timed(lambda: choose_k(X, sample_weight=w))
            k, labels = r.k, r.labels
        else:
            est, s = timed(lambda: KernelKGroups("auto", semimetric=how, random_state=0).fit(
                X, sample_weight=w))
            k, labels = est.n_clusters_, est.labels_
        rows.append((k, ari(y[keep], labels[keep]), s))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=list(CASES))
    ap.add_argument("--seeds", type=int, default=1, help="draws of each case (seeds 0..N-1)")
    ap.add_argument("--out")
    args = ap.parse_args()
    many = args.seeds > 1
    what = ("true k found / draws, mean ARI" if many else "k found, ARI")
    lines = header("bench_awkward.py") + [
        "", f"Cells: {what}.", "",
        "| case | n x d | true k | " + " | ".join(PIPELINES) + " | seconds (nothing given) |",
        "|---|---|---|---|---|---|---|"]
    found = np.zeros(len(PIPELINES), dtype=int)
    for name in args.cases:
        runs = []
        for seed in range(args.seeds):
            X, y, *w = CASES[name](seed)
            true_k = np.unique(y[y >= 0]).size
            runs.append(_run(X, y, w[0] if w else None))
        hits = np.array([[k == true_k for k, _, _ in r] for r in runs])
        found += hits.all(axis=0)
        if many:
            cells = [f"{hits[:, p].sum()}/{args.seeds} {np.mean([r[p][1] for r in runs]):.2f}"
                     for p in range(len(PIPELINES))]
        else:
            cells = [f"{k} {a:.2f}" for k, a, _ in runs[0]]
        slow = max(r[0][2] for r in runs)
        lines.append(f"| {name} | {X.shape[0]} x {X.shape[1]} | {true_k} | "
                     + " | ".join(cells) + f" | {slow:.1f} |")
        print(lines[-1], file=sys.stderr)
    every = " on every draw" if many else ""
    lines += ["", f"Cases whose true k is found{every}: " + ", ".join(
        f"{p} {n} / {len(args.cases)}" for p, n in zip(PIPELINES, found)) + "."]
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
