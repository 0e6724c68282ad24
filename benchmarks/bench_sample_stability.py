"""Whether the choice made on a sample of large data holds from one sample to the next.

Past 5,000 rows, ``choose_k`` and ``KernelKGroups(n_clusters="auto")`` choose k on one
uniform sample of 5,000 rows. This study draws ``--draws x --n`` rows of one
distribution once, cuts them into ``--draws`` disjoint samples of ``--n`` rows (what
the choice reads of large data) and runs on each, side by side: nothing given
(``choose_k(X, semimetric="auto")``) and its graph candidate alone
(``semimetric="nearest_neighbors"``). It prints per sample the k, the semimetric
(``n``: the graph, ``e``: energy) and the adjusted Rand index with the truth, and per
distribution the number of distinct answers (1: the choice holds across samples).

Data: ``make_moons`` (noise 0.06 and 0.1), ``make_circles`` (noise 0.05, factor 0.5),
three blobs of standard deviations 1, 2.5 and 0.5, the same blobs sheared, and five
blobs of standard deviation 1 (scikit-learn's generators, fixed seeds).

Usage: python benchmarks/bench_sample_stability.py [--n 5000] [--draws 5] [--sets moons ...]
       [--out FILE]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np
from sklearn.datasets import make_blobs, make_circles, make_moons

from kgroups import choose_k
from kgroups.metrics import ari

from _report import header, publish, timed


def _sheared(n):
    X, y = make_blobs(n, centers=3, random_state=170)
    return X @ np.array([[0.6, -0.6], [-0.4, 0.8]]), y


SETS = {
    "moons": lambda n: make_moons(n, noise=0.06, random_state=0),
    "noisy moons": lambda n: make_moons(n, noise=0.1, random_state=0),
    "circles": lambda n: make_circles(n, noise=0.05, factor=0.5, random_state=0),
    "varied blobs": lambda n: make_blobs(n, centers=3, cluster_std=[1.0, 2.5, 0.5],
                                         random_state=170),
    "sheared blobs": _sheared,
    "five blobs": lambda n: make_blobs(n, centers=5, random_state=0),
}
PIPELINES = {"nothing given": "auto", "graph alone": "nearest_neighbors"}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=5000, help="rows of each sample")
    p.add_argument("--draws", type=int, default=5, help="disjoint samples per distribution")
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    p.add_argument("--out", help="also write the report to this file")
    a = p.parse_args()
    lines = header("bench_sample_stability.py") + [
        "", f"{a.draws} disjoint samples of {a.n} rows of one draw of {a.draws * a.n} rows.", "",
        "| distribution | pipeline | per sample: k, semimetric, ARI | distinct answers | "
        "seconds per choice |", "|---|---|---|---|---|"]
    for name in a.sets:
        X_all, y_all = SETS[name](a.n * a.draws)
        perm = np.random.default_rng(1).permutation(y_all.size)
        for pipeline, semimetric in PIPELINES.items():
            answers, cells, seconds = set(), [], []
            for s in range(a.draws):
                rows = perm[s * a.n:(s + 1) * a.n]
                r, t = timed(lambda: choose_k(X_all[rows], semimetric=semimetric))
                seconds.append(t)
                sem = "n" if r.semimetric == "nearest_neighbors" else "e"
                answers.add((r.k, sem))
                cells.append(f"{r.k}{sem} {ari(y_all[rows], r.labels):.2f}")
            lines.append(f"| {name} | {pipeline} | {' / '.join(cells)} | {len(answers)} | "
                         f"{np.median(seconds):.1f} |")
            print(lines[-1], file=sys.stderr, flush=True)    # progress: a row at a time
    publish("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
