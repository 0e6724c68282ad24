"""Data without clusters: how often each way of choosing k answers one cluster.

The labelled batteries of ``bench_choice.py`` cannot score an answer of 1 (every set
has two or more classes there), so the rules that say "no structure" are checked
here: the eight clouds without clusters of ``bench_choose_k.py`` (Gaussians in 2, 3
and 10 dimensions, round and elongated; uniform squares and rectangles; a Student t
with 3 degrees of freedom), and samples on a line, where the neighbourhood graph of
10 neighbours falls apart wherever a gap is wider than the 10 nearest points on both
sides (a Gaussian of 100, 300 and 1,000 points, an exponential, a Student t3, a
uniform), and rounded data, whose repeated values make a comb of every projection (a
Gaussian in 2-D rounded to half and a quarter of its standard deviation, counts,
integer codes of five and of three levels, independent fair bits, whose levels are two
modes along any line near one bit). Four settings with clusters (two and three
Gaussians on a line, 8 standard deviations apart; three 2-D Gaussians rounded to half
their standard deviation; three binary prototypes of 30 bits, a tenth flipped) check
that the answer there is not 1. Samples on a near-line (a second
column 10^-3 or 10^-6 times as wide, as data whose columns differ in scale by orders
of magnitude) are two columns, so the rule of one column does not hold there: one
Gaussian, and two and three Gaussians 8 standard deviations apart, check that the
pieces a near-line's graph falls into are not taken for clusters.

Columns, each with k in 1..15:

``energy rule``       ``choose_k(X)``
``nothing given``     ``choose_k(X, semimetric="auto")``: the energy rule and the
                      graph's eigengap, one kept by the arbiter (what
                      ``KernelKGroups(n_clusters="auto", semimetric="auto")`` chooses)
``GMM BIC``           scikit-learn ``GaussianMixture``, the k of least BIC
``HDBSCAN``           scikit-learn ``HDBSCAN()`` with its defaults: its number of
                      clusters (noise left out; none counts as 1)

KMeans + silhouette is not a column: the silhouette is not defined for one cluster.
Cells: the answers of the draws (``*`` when right, ``xN`` on N draws).

Usage: python benchmarks/bench_null.py [--draws 10] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import HDBSCAN
from sklearn.mixture import GaussianMixture

from kgroups import choose_k

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import publish  # noqa: E402
from bench_choose_k import SETTINGS, _cell  # noqa: E402

K_RANGE = range(1, 16)


def on_a_line(n, draw):
    """n points of one distribution on a line (``draw(rng, n)``), as a column."""
    return lambda rng: draw(rng, n)[:, None]


def groups_on_a_line(m, n_per=100, apart=8.0):
    """m unit Gaussians on a line, ``apart`` standard deviations apart."""
    return lambda rng: np.concatenate([rng.normal(apart * j, 1.0, n_per)
                                       for j in range(m)])[:, None]


LINE = [
    ("no structure: Gaussian on a line, n=100", 1, on_a_line(100, lambda g, n: g.normal(size=n))),
    ("no structure: Gaussian on a line, n=300", 1, on_a_line(300, lambda g, n: g.normal(size=n))),
    ("no structure: Gaussian on a line, n=1000", 1,
     on_a_line(1000, lambda g, n: g.normal(size=n))),
    ("no structure: exponential on a line", 1, on_a_line(300, lambda g, n: g.exponential(size=n))),
    ("no structure: Student t3 on a line", 1, on_a_line(300, lambda g, n: g.standard_t(3, n))),
    ("no structure: uniform on a line", 1, on_a_line(300, lambda g, n: g.random(n))),
    ("2 Gaussians on a line", 2, groups_on_a_line(2)),
    ("3 Gaussians on a line", 3, groups_on_a_line(3)),
]


def near_line(make, width):
    """The column of ``make(rng)`` beside a second, Gaussian, ``width`` times as wide."""
    def draw(rng):
        x = make(rng)
        return np.c_[x, width * rng.normal(size=x.shape[0])]
    return draw


NEAR_LINE = [
    ("no structure: Gaussian on a near-line (1e-3), n=300", 1,
     near_line(on_a_line(300, lambda g, n: g.normal(size=n)), 1e-3)),
    ("2 Gaussians on a near-line (1e-3)", 2, near_line(groups_on_a_line(2, 200), 1e-3)),
    ("3 Gaussians on a near-line (1e-3)", 3, near_line(groups_on_a_line(3, 150), 1e-3)),
    ("2 Gaussians on a near-line (1e-6)", 2, near_line(groups_on_a_line(2, 200), 1e-6)),
]


def rounded(make, step):
    """The rows of ``make(rng)`` rounded to multiples of ``step``."""
    return lambda rng: np.round(make(rng) / step) * step


ROUNDED = [
    ("no structure: 2-D Gaussian rounded to 1/2 sd, n=1000", 1,
     rounded(lambda g: g.normal(size=(1000, 2)), 0.5)),
    ("no structure: 2-D Gaussian rounded to 1/4 sd, n=2000", 1,
     rounded(lambda g: g.normal(size=(2000, 2)), 0.25)),
    ("no structure: counts, 4 Poisson(3) columns, n=1000", 1,
     lambda g: g.poisson(3.0, size=(1000, 4)).astype(float)),
    ("no structure: codes 0..4, 3 uniform columns, n=1000", 1,
     lambda g: g.integers(0, 5, size=(1000, 3)).astype(float)),
    ("no structure: 10 independent fair bits, n=300", 1,
     lambda g: g.integers(0, 2, size=(300, 10)).astype(float)),
    ("no structure: 3 ternary codes 0..2, n=500", 1,
     lambda g: g.integers(0, 3, size=(500, 3)).astype(float)),
    ("3 prototypes of 30 bits, a tenth flipped", 3, lambda g: np.abs(
        g.integers(0, 2, (3, 30))[np.repeat([0, 1, 2], 100)] - (g.random((300, 30)) < 0.1)
    ).astype(float)),
    ("3 2-D Gaussians 6 sd apart, rounded to 1/2 sd", 3, rounded(
        lambda g: np.vstack([g.normal(c, 1.0, (300, 2)) for c in ((0, 0), (6, 0), (0, 6))]),
        0.5)),
]


def columns():
    """Column name -> a function of X giving its k."""
    def gmm(X):
        bic = {k: GaussianMixture(k, random_state=0, reg_covar=1e-6).fit(X).bic(X)
               for k in K_RANGE}
        return min(bic, key=bic.get)

    def hdbscan(X):
        labels = HDBSCAN().fit(X).labels_
        return max(1, np.unique(labels[labels >= 0]).size)

    return {"energy rule": lambda X: choose_k(X, K_RANGE).k,
            "nothing given": lambda X: choose_k(X, K_RANGE, semimetric="auto").k,
            "GMM BIC": gmm, "HDBSCAN": hdbscan}


def study(draws):
    cols = columns()
    settings = [s for s in SETTINGS if s[1] == 1] + LINE + NEAR_LINE + ROUNDED
    rows, right, seconds = [], {c: [0, 0, 0, 0] for c in cols}, {c: 0.0 for c in cols}
    for name, k, make in settings:
        picks = {c: [] for c in cols}
        for draw in range(draws):
            X = make(np.random.default_rng(1000 * draw + 17))
            for c, f in cols.items():
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    picks[c].append(int(f(X)))
                seconds[c] += time.perf_counter() - t0
        for c in cols:
            hit = sum(p == k for p in picks[c])
            at = 0 if k == 1 else 2
            right[c][at] += hit
            right[c][at + 1] += draws
        rows.append([name, str(k)] + [_cell(picks[c], k) for c in cols])
        print(f"# {name}: " + "  ".join(f"{c}={picks[c]}" for c in cols), file=sys.stderr,
              flush=True)
    return rows, right, seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=10)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    rows, right, seconds = study(args.draws)
    cols, machine = list(right), platform.processor() or platform.machine()
    lines = ["# Data without clusters", "",
             f"`python benchmarks/bench_null.py {shlex.join(sys.argv[1:])}`".replace(" `", "`"),
             "", f"{args.draws} draws per setting, k in 1..15; {machine}, {os.cpu_count()} "
             "cores. Cells: the answers of the draws (`*` when right, `xN` on N draws).", "",
             "| setting | k | " + " | ".join(cols) + " |",
             "|---|---|" + "---|" * len(cols)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += ["", "| | " + " | ".join(cols) + " |", "|---|" + "---|" * len(cols),
              "| without clusters: answered 1 | " + " | ".join(
                  f"{right[c][0]} / {right[c][1]}" for c in cols) + " |",
              "| with clusters: right | " + " | ".join(
                  f"{right[c][2]} / {right[c][3]}" for c in cols) + " |",
              "| seconds per draw | " + " | ".join(
                  f"{seconds[c] / (len(rows) * args.draws):.2f}" for c in cols) + " |"]
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
