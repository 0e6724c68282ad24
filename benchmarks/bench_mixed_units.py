"""Nothing given when one column is in other units: the synthetic batteries, the first
column times 100.

Every set of the ``blobs``, ``simple`` and ``draws`` batteries with two columns or more
and at most 2,000 rows, on both halves of :func:`bench_choice.half`, its first column
multiplied by 100 (a column in other units: centimetres beside metres), through
``KernelKGroups(n_clusters="auto", semimetric="auto")`` (nothing given) and energy
alone (``KernelKGroups("auto")``), beside nothing given on the same data with every
column z-scored first (what a user who suspects the units would do) and on the data as
drawn (the units equal: the ceiling). Scores: the mean adjusted Rand index with the
truth and the number of sets whose true k was found, per battery and half.

Usage: python benchmarks/bench_mixed_units.py [--out FILE]
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

import _batteries
from _report import header, publish, timed
from bench_choice import half
from kgroups import KernelKGroups
from kgroups._rescale import standardize
from kgroups.metrics import ari

BATTERIES = ("blobs", "simple", "draws")
PIPELINES = ("nothing given", "energy alone", "nothing given, columns z-scored",
             "nothing given, units equal")


def _run(X, y):
    """``[(k, ARI, seconds)]`` of the pipelines on the set ``(X, y)``."""
    mixed = X * np.r_[100.0, np.ones(X.shape[1] - 1)]
    rows = []
    for data, semimetric in ((mixed, "auto"), (mixed, "energy"), (standardize(mixed), "auto"),
                             (X, "auto")):
        est, s = timed(lambda: KernelKGroups("auto", semimetric=semimetric,
                                             random_state=0).fit(data))
        rows.append((est.n_clusters_, ari(y, est.labels_), s))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out")
    args = ap.parse_args()
    sets = [d for b in BATTERIES for d in _batteries.battery(b)
            if d.X.shape[1] >= 2 and d.X.shape[0] <= 2000]
    runs = {}
    for d in sets:
        X, y = np.asarray(d.X, dtype=np.float64), np.asarray(d.y)
        runs[d.battery, d.name] = _run(X, y)
        print(d.battery, d.name, [(k, round(a, 2)) for k, a, _ in runs[d.battery, d.name]],
              file=sys.stderr)
    lines = header("bench_mixed_units.py") + [
        "", "Mean ARI with the truth, and the sets whose true k was found, per battery and "
        "half; the first column of every set times 100, except in the last column (the "
        "units equal).", "",
        "| battery | half | sets | " + " | ".join(PIPELINES) + " |",
        "|---|---|---|" + "---|" * len(PIPELINES)]
    for b in BATTERIES:
        for h in ("dev", "eval"):
            group = [d for d in sets if d.battery == b and half(d.battery, d.name) == h]
            if not group:
                continue
            cells = []
            for p in range(len(PIPELINES)):
                mean = np.mean([runs[d.battery, d.name][p][1] for d in group])
                hits = sum(runs[d.battery, d.name][p][0] == np.unique(d.y).size for d in group)
                cells.append(f"{mean:.3f} ({hits}/{len(group)})")
            lines.append(f"| {b} | {h} | {len(group)} | " + " | ".join(cells) + " |")
    slow = max(r[0][2] for r in runs.values())
    lines += ["", f"Slowest nothing-given fit: {slow:.1f} s."]
    publish("\n".join(lines) + "\n", args.out)


if __name__ == "__main__":
    main()
