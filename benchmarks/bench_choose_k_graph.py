"""Choosing k with ``semimetric="nearest_neighbors"``: the rule of its graph (issue 41).

On every set of the four batteries of ``benchmarks/_batteries.py`` (shapes, real
tables, Gaussian settings, hard sets; noise points clustered, not scored), k in
1..15, side by side:

``log eigengap (the rule)``  ``choose_k(X, semimetric="nearest_neighbors")``: the k >= 2
                             of largest ``log mu_(k+1) - log mu_k`` of the graph's walk
``eigengap``                 the same eigenvalues, the k of largest ``mu_(k+1) - mu_k``
                             (the gap as the ICML draft and von Luxburg read it)
``silhouette on the graph``  the k of largest mean silhouette of the graph semimetric's
                             fits at k = 2..15, on ``||e(x) - e(y)||`` of their embedding
``point rule``               ``choose_k(X)`` (the energy semimetric's default)

A k is **right** when it is the number of labelled groups, and **useful** when a
``KernelKGroups(k, semimetric="nearest_neighbors", random_state=0)`` fit at that k
reaches 0.75 of the best ARI of such fits over k = 2..15 (any k when none reaches
0.10). The point rule is judged by the same yardstick, the graph semimetric's fits.

Usage: python benchmarks/bench_choose_k_graph.py [--battery NAME ...] [--out FILE.md]
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
from sklearn.metrics import adjusted_rand_score

from kgroups import KernelKGroups, choose_k
from kgroups._semimetrics.neighbors import NeighborGraphMap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _batteries import BATTERIES, battery  # noqa: E402
from _report import publish  # noqa: E402

KS = np.arange(1, 16)
CURVE = range(2, 16)
RULES = ("log eigengap (the rule)", "eigengap", "silhouette on the graph", "point rule")


def _graph_fits(d):
    """ARI and silhouette of the graph semimetric's fit at every k of CURVE."""
    ari, sil = {}, {}
    for k in CURVE:
        est = KernelKGroups(k, semimetric="nearest_neighbors", random_state=0).fit(d.X)
        lab = est.labels_
        ari[k] = adjusted_rand_score(d.y[d.scored], lab[d.scored])
        E = est._feature_map.features
        from sklearn.metrics import silhouette_score
        sil[k] = silhouette_score(E, lab) if np.unique(lab).size > 1 else -1.0
    return ari, sil


def run_set(d):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        rule = choose_k(d.X, range(1, 16), semimetric="nearest_neighbors", random_state=0).k
        seconds = time.perf_counter() - t0
        fmap = NeighborGraphMap.fit(d.X, np.ones(len(d.X)), n_neighbors=10, n_clusters=16,
                                    random_state=0)
        mu = np.clip(1.0 - fmap.eigenvalues, 0, None)
        plain = int(KS[np.argmax(mu[KS] - mu[KS - 1])])
        ari, sil = _graph_fits(d)
        point = choose_k(d.X, range(1, 16), random_state=0).k
    best = max(ari.values())
    chosen = {RULES[0]: rule, RULES[1]: plain, RULES[2]: max(sil, key=sil.get),
              RULES[3]: point}

    def useful(k):
        return best < 0.10 or (k >= 2 and ari[min(k, 15)] >= 0.75 * best)
    return {"battery": d.battery, "name": d.name, "k": d.k, "chosen": chosen,
            "useful": {r: useful(k) for r, k in chosen.items()}, "seconds": seconds,
            "best": best}


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--battery", nargs="+", default=list(BATTERIES), choices=BATTERIES)
    p.add_argument("--out")
    args = p.parse_args(argv)
    rows = []
    t0 = time.perf_counter()
    for b in args.battery:
        for d in battery(b):
            rows.append(run_set(d))
            r = rows[-1]
            print(f"{b:7s} {d.name[:32]:32s} k={d.k:2d} " + " ".join(
                f"{r['chosen'][x]:2d}{'+' if r['useful'][x] else ' '}" for x in RULES),
                flush=True)
    cmd = "python " + " ".join(shlex.quote(a) for a in ["benchmarks/bench_choose_k_graph.py"]
                                + (argv if argv is not None else sys.argv[1:]))
    lines = ["# choose_k with semimetric=\"nearest_neighbors\"\n", f"`{cmd}`\n",
             f"{len(rows)} sets, k in 1..15; {time.perf_counter() - t0:.0f} s on "
             f"{platform.machine()}, {os.cpu_count()} cores. Cells: right (the number of "
             "groups) / useful (a graph fit at that k reaches 0.75 of the best ARI of the "
             "graph fits at k = 2..15).\n",
             "| battery | sets | " + " | ".join(RULES) + " |", "|" + "---|" * (2 + len(RULES))]
    for b in args.battery + ["all"]:
        sub = [r for r in rows if b == "all" or r["battery"] == b]
        cells = [f"{sum(r['chosen'][x] == r['k'] for r in sub)} / "
                 f"{sum(r['useful'][x] for r in sub)}" for x in RULES]
        lines.append(f"| {b} | {len(sub)} | " + " | ".join(cells) + " |")
    secs = np.array([r["seconds"] for r in rows])
    lines += ["", f"Seconds of the rule per set: median {np.median(secs):.2f}, largest "
              f"{secs.max():.2f}.", "", "## Every set\n",
              "| battery | set | k | best ARI | " + " | ".join(RULES) + " |",
              "|" + "---|" * (4 + len(RULES))]
    for r in rows:
        lines.append(f"| {r['battery']} | {r['name']} | {r['k']} | {r['best']:.2f} | " + " | ".join(
            f"{r['chosen'][x]}{'+' if r['useful'][x] else ''}" for x in RULES) + " |")
    text = "\n".join(lines) + "\n"
    publish(text, args.out)


if __name__ == "__main__":
    main()
