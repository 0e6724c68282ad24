"""Whether the choice made on samples of large data holds from one draw to the next.

Past 5,000 rows, ``choose_k`` and ``KernelKGroups(n_clusters="auto")`` choose k on each
of up to three disjoint uniform samples of 5,000 rows and keep the answer of most of them
(from 15,000 rows on; below, the first sample's). This study draws ``--draws x --n``
rows of one distribution once, cuts them into ``--draws`` disjoint draws of ``--n`` rows
and runs on each, side by side: nothing given (``choose_k(X, semimetric="auto")``) and
its graph candidate alone (``semimetric="nearest_neighbors"``). It prints per draw the
k, the semimetric (``n``: the graph, ``e``: energy) and the adjusted Rand index with the
truth, and per distribution the number of distinct answers (1: the choice holds across
draws).
``--n 5000`` (a draw the size of one sample): the choice of a single sample.

``--votes M`` measures the vote itself: nothing given on each of M disjoint samples of
5,000 rows, and the share of the most common answer for one sample against a vote of
three (over every three of the M samples: the answer of two, or the first's), the
choice's rule with the sampling noise of many draws.

Data: ``make_moons`` (noise 0.06 and 0.1), ``make_circles`` (noise 0.05, factor 0.5),
three blobs of standard deviations 1, 2.5 and 0.5, the same blobs sheared, and five
blobs of standard deviation 1 (scikit-learn's generators, fixed seeds).

Usage: python benchmarks/bench_sample_stability.py [--n 15000] [--draws 5] [--sets moons ...]
       [--votes M] [--out FILE]
"""

from __future__ import annotations

import argparse
import collections
import itertools
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
    p.add_argument("--n", type=int, default=15000, help="rows of each draw")
    p.add_argument("--draws", type=int, default=5, help="disjoint draws per distribution")
    p.add_argument("--sets", nargs="+", default=list(SETS), choices=list(SETS))
    p.add_argument("--votes", type=int, help="instead: one sample against a vote of three, "
                   "over this many disjoint samples of 5,000 rows")
    p.add_argument("--out", help="also write the report to this file")
    a = p.parse_args()
    if a.votes:
        return votes(a)
    lines = header("bench_sample_stability.py") + [
        "", f"{a.draws} disjoint draws of {a.n} rows of one draw of {a.draws * a.n} rows.", "",
        "| distribution | pipeline | per draw: k, semimetric, ARI | distinct answers | "
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


def votes(a, m=5000):
    """The share of the most common answer, one sample against a vote of three."""
    lines = header("bench_sample_stability.py") + [
        "", f"Nothing given on {a.votes} disjoint samples of {m} rows; the vote of three over "
        f"all {len(list(itertools.combinations(range(a.votes), 3)))} triples.", "",
        "| distribution | answers of the samples | most common share: one sample | "
        "vote of three |", "|---|---|---|---|"]
    for name in a.sets:
        X_all, _ = SETS[name](m * a.votes)
        perm = np.random.default_rng(2).permutation(X_all.shape[0])
        said = []
        for s in range(a.votes):
            r = choose_k(X_all[perm[s * m:(s + 1) * m]], semimetric="auto")
            said.append(f"{r.k}{'n' if r.semimetric == 'nearest_neighbors' else 'e'}")
        vote = collections.Counter()
        for t in itertools.combinations(said, 3):
            top, count = collections.Counter(t).most_common(1)[0]
            vote[top if count > 1 else t[0]] += 1
        one = collections.Counter(said)
        lines.append(f"| {name} | {dict(one.most_common())} | "
                     f"{one.most_common(1)[0][1] / len(said):.2f} | "
                     f"{vote.most_common(1)[0][1] / sum(vote.values()):.2f} |")
        print(lines[-1], file=sys.stderr, flush=True)
    publish("\n".join(lines) + "\n", a.out)


if __name__ == "__main__":
    main()
