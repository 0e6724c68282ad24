"""Detection of planted noise: ``noise="auto"`` beside HDBSCAN, DBSCAN and R's trimmed
k-means, on every set with planted noise, in one run (issue 89).

The sets:

* the ``"hard"`` battery's sets with label -1 (background noise, far outliers), split
  into the development and evaluation halves of :func:`bench_choice.half`;
* the ``"outside"`` battery's sets with noise (Gagolewski's suite, development half:
  ``graves/zigzag_noisy``);
* synthetic cases (:func:`synthetic`): a blob with ten far strays, four blobs in a
  10 % uniform background, a far tight group (no noise: five points that are a
  cluster of their own), clean blobs (no noise) and a small blob apart (no noise: 30
  points, 8 standard deviations from a blob of 1,000).

The methods (each with ``random_state=0`` where it takes one):

* ``auto at k``: ``KernelKGroups(k, noise="auto")`` at the true k;
* ``nothing given``: ``KernelKGroups("auto", semimetric="auto", noise="auto")``;
* ``share at k``: ``KernelKGroups(k, noise=s)`` with s the true share of the noise;
* ``HDBSCAN``: scikit-learn's ``HDBSCAN()`` with its defaults;
* ``DBSCAN``: scikit-learn's ``DBSCAN(eps, min_samples=2 D)`` (Schubert et al. 2017,
  ACM TODS 42(3)), eps at the knee of the sorted distances to the ``min_samples - 1``-th
  neighbour (:func:`dbscan_eps`: the point of the curve, both axes scaled to [0, 1],
  farthest below the chord joining its ends);
* ``trimkmeans``: R's ``trimcluster::trimkmeans(X, k, trim=s, runs=10)`` at the true
  k and share (10 random starts, not its default 100: its loops are R code, and 100
  runs take minutes per thousand points), through ``Rscript`` when R and the package
  are installed (``bash benchmarks/setup_trimmed.sh``); the column is left out with a
  note otherwise. At ``trim=0`` it still trims the point farthest from its mean (its
  index range ``(nin + 1):n`` runs backwards in R when ``nin = n``).

Scores per set: **recall** (the share of the planted noise labelled -1), **precision**
(the share of the points labelled -1 that are planted noise; ``–`` when none is), the
**ARI** on the points that are not planted noise, where a method's -1 is one more
group (a true point set aside counts against it; ``–`` for the sets of one cluster),
and the number of points set aside. The summary gives the means per group of sets.
A last table times ``KernelKGroups(k)`` with ``noise=None`` and ``noise="auto"`` on
the same data, same k and same starts (the fastest of ``--repeat`` fits each, after
a warm-up fit).

Usage: python benchmarks/bench_noise.py [--out benchmarks/results/noise.md]
       [--only NAME ...] [--repeat 2] [--no-r]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass

import numpy as np
from sklearn.cluster import DBSCAN, HDBSCAN
from sklearn.metrics import adjusted_rand_score
from sklearn.neighbors import NearestNeighbors

import _batteries
import kgroups
from _report import publish
from bench_choice import half
from kgroups import KernelKGroups

GROUPS = ("hard, dev", "hard, eval", "outside, dev", "synthetic")


@dataclass(eq=False)  # compared and hashed by identity: one object per set
class NoisySet:
    """One labelled set: ``y`` is -1 for planted noise; ``k`` counts the clusters."""

    name: str
    group: str
    X: np.ndarray
    y: np.ndarray

    @property
    def k(self):
        return int(self.y.max()) + 1

    @property
    def share(self):
        """The true share of the noise (unit weights)."""
        return float(np.mean(self.y == -1))


# --------------------------------------------------------------------------- the sets
def synthetic(seed=0):
    """The five synthetic cases, ``[(name, X, y)]``."""
    rng = np.random.default_rng(seed)
    strays = rng.uniform(-60, 60, (10, 2))
    strays += np.sign(strays) * 15                       # 15 to 75 standard deviations out
    blob = (np.vstack([rng.normal(0, 1, (1000, 2)), strays]),
            np.r_[np.zeros(1000, int), -np.ones(10, int)])
    centres = np.array([[0, 0], [10, 0], [0, 10], [10, 10]])
    back = (np.vstack([*(rng.normal(c, 1, (225, 2)) for c in centres),
                       rng.uniform(-6, 16, (100, 2))]),
            np.r_[np.repeat(np.arange(4), 225), -np.ones(100, int)])
    tight = (np.vstack([rng.normal(0, 1, (600, 2)), rng.normal(40, 0.1, (5, 2))]),
             np.r_[np.zeros(600, int), np.ones(5, int)])
    clean = (np.vstack([rng.normal(c, 1, (300, 3)) for c in (0, 7, 14)]),
             np.repeat(np.arange(3), 300))
    small = (np.vstack([rng.normal(0, 1, (1000, 2)), rng.normal(8, 0.7, (30, 2))]),
             np.repeat([0, 1], [1000, 30]))
    return [("blob + 10 far strays", *blob), ("4 blobs in 10 % background", *back),
            ("far tight group (no noise)", *tight), ("3 clean blobs (no noise)", *clean),
            ("a small blob apart (no noise)", *small)]


def noisy_sets():
    """Every set of the study, in the order of :data:`GROUPS`."""
    out = []
    for battery in ("hard", "outside"):
        for d in _batteries.battery(battery):
            if (d.y == -1).any():
                group = f"{battery}, {'dev' if battery == 'outside' else half(battery, d.name)}"
                out.append(NoisySet(d.name, group, d.X, d.y))
    out += [NoisySet(name, "synthetic", X, y) for name, X, y in synthetic()]
    return sorted(out, key=lambda d: GROUPS.index(d.group))


# --------------------------------------------------------------------------- methods
def dbscan_eps(X, min_samples):
    """eps at the knee of the sorted distances to the ``min_samples - 1``-th neighbour
    (the point itself not counted): with both axes scaled to [0, 1], the point of the
    increasing curve farthest below the chord joining its ends."""
    d = NearestNeighbors(n_neighbors=min_samples).fit(X).kneighbors(X)[0][:, -1]
    d = np.sort(d)
    x = np.linspace(0.0, 1.0, d.size)
    span = d[-1] - d[0]
    y = (d - d[0]) / span if span > 0 else x
    return float(d[int(np.argmax(x - y))])


def r_trimkmeans_available():
    if shutil.which("Rscript") is None:
        return False
    done = subprocess.run(["Rscript", "-e", "suppressMessages(library(trimcluster))"],
                          capture_output=True, text=True, check=False)
    return done.returncode == 0


R_RUNS = 10  # trimkmeans' random starts


def trimkmeans(X, k, share, seed=0):
    """R's ``trimkmeans(X, k, trim=share, runs=R_RUNS)``, -1 for the points trimmed."""
    with tempfile.TemporaryDirectory() as tmp:
        data, out = os.path.join(tmp, "x.csv"), os.path.join(tmp, "labels.txt")
        np.savetxt(data, X, delimiter=",", fmt="%.17g")
        code = (f"suppressMessages(library(trimcluster)); set.seed({seed}); "
                f"X <- as.matrix(read.csv('{data}', header = FALSE)); "
                f"r <- trimkmeans(X, {k}, trim = {share!r}, runs = {R_RUNS}); "
                f"writeLines(as.character(r$classification), '{out}')")
        subprocess.run(["Rscript", "-e", code], capture_output=True, text=True, check=True)
        labels = np.loadtxt(out, dtype=np.int64) - 1
    labels[labels == k] = -1                             # R labels the trimmed points k + 1
    return labels


def methods(with_r):
    """``{name: fn(NoisySet) -> (labels, note)}`` (``note``: the k chosen, or eps)."""
    def auto_at_k(d):
        return KernelKGroups(d.k, noise="auto", random_state=0).fit(d.X).labels_, ""

    def nothing_given(d):
        est = KernelKGroups("auto", semimetric="auto", noise="auto", random_state=0).fit(d.X)
        return est.labels_, f"k={est.n_clusters_}"

    def share_at_k(d):
        return KernelKGroups(d.k, noise=d.share, random_state=0).fit(d.X).labels_, ""

    def hdbscan(d):
        return HDBSCAN(copy=True).fit_predict(d.X), ""  # the defaults (copy: no warning)

    def dbscan(d):
        m = 2 * d.X.shape[1]
        eps = dbscan_eps(d.X, m)
        return DBSCAN(eps=eps, min_samples=m).fit_predict(d.X), f"eps={eps:.3g}"

    out = {"auto at k": auto_at_k, "nothing given": nothing_given, "share at k": share_at_k,
           "HDBSCAN": hdbscan, "DBSCAN": dbscan}
    if with_r:
        out["trimkmeans (R)"] = lambda d: (trimkmeans(d.X, d.k, d.share), "")
    return out


# --------------------------------------------------------------------------- scores
def scores(d, labels):
    """``{recall, precision, ari, aside}`` of ``labels`` on ``d`` (None where undefined)."""
    labels = np.asarray(labels)
    planted, aside = d.y == -1, labels == -1
    keep = ~planted
    return {"recall": float(aside[planted].mean()) if planted.any() else None,
            "precision": float(planted[aside].mean()) if aside.any() else None,
            "ari": float(adjusted_rand_score(d.y[keep], labels[keep])) if d.k > 1 else None,
            "aside": int(aside.sum())}


def run(sets, fns):
    """Every method on every set: ``[{set, method, seconds, note, scores...}]``."""
    rows = []
    for d in sets:
        for name, fn in fns.items():
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                labels, note = fn(d)
            seconds = time.perf_counter() - start
            rows.append({"set": d, "method": name, "seconds": seconds, "note": note,
                         **scores(d, labels)})
            r = rows[-1]
            print(f"{d.name:32s} {name:15s} recall {_f(r['recall'])} precision "
                  f"{_f(r['precision'])} ARI {_f(r['ari'])} aside {r['aside']:5d} "
                  f"{note} ({seconds:.1f} s)", file=sys.stderr, flush=True)
    return rows


def _best_of(fit, repeat):
    best = np.inf
    for _ in range(repeat):
        start = time.perf_counter()
        est = fit()
        best = min(best, time.perf_counter() - start)
    return best, est


def times(sets, repeat):
    """``[(set, engine, seconds without noise, seconds with noise="auto", n aside)]``:
    the same data, k and starts, the fastest of ``repeat`` fits each."""
    warm = np.random.default_rng(0).normal(size=(300, 2))
    for noise in (None, "auto"):                         # numba's code loaded first
        KernelKGroups(2, noise=noise, random_state=0).fit(warm)
    out = []
    for d in sets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            plain, est = _best_of(lambda: KernelKGroups(d.k, random_state=0).fit(d.X), repeat)
            auto, est_auto = _best_of(
                lambda: KernelKGroups(d.k, noise="auto", random_state=0).fit(d.X), repeat)
        out.append((d, est.engine_, plain, auto, est_auto.n_noise_))
    return out


# --------------------------------------------------------------------------- report
def _f(x, digits=2):
    return "–" if x is None else f"{x:.{digits}f}"


def _mean(values):
    values = [v for v in values if v is not None]
    return (float(np.mean(values)), len(values)) if values else (None, 0)


def summary_table(rows, names):
    """Means per group of sets with planted noise and method (over the sets where a
    score is defined); the sets without noise are :func:`clean_table`'s."""
    lines = ["| group | sets | method | recall | precision | ARI | points set aside / "
             "planted |", "|---|---|---|---|---|---|---|"]
    for group in GROUPS:
        mine = [r for r in rows if r["set"].group == group and (r["set"].y == -1).any()]
        n_sets = len({id(r["set"]) for r in mine})
        if not n_sets:
            continue
        planted = sum(int((d.y == -1).sum()) for d in {id(r["set"]): r["set"]
                                                        for r in mine}.values())
        for name in names:
            these = [r for r in mine if r["method"] == name]
            cells = [_f(_mean([r[key] for r in these])[0]) for key in ("recall", "precision",
                                                                       "ari")]
            aside = sum(r["aside"] for r in these)
            lines.append(f"| {group} | {n_sets} | {name} | " + " | ".join(cells)
                         + f" | {aside:,} / {planted:,} |")
    return lines


def set_table(rows, names):
    """Every set: recall / precision / ARI of each method (and the k or eps chosen)."""
    lines = ["| set | group | n | k | noise | " + " | ".join(names) + " |",
             "|---|---|---|---|---|" + "---|" * len(names)]
    sets = list(dict.fromkeys(r["set"] for r in rows))
    for d in sets:
        cells = []
        for name in names:
            r = next(r for r in rows if r["set"] is d and r["method"] == name)
            note = f" ({r['note']})" if r["note"] and name != "DBSCAN" else ""
            cells.append(f"{_f(r['recall'])} / {_f(r['precision'])} / {_f(r['ari'])}{note}")
        lines.append(f"| {d.name} | {d.group} | {len(d.y):,} | {d.k} | "
                     f"{int((d.y == -1).sum())} | " + " | ".join(cells) + " |")
    return lines


def clean_table(rows, names):
    """The sets without planted noise: the points each method set aside."""
    lines = ["| set | n | " + " | ".join(names) + " |", "|---|---|" + "---|" * len(names)]
    for d in dict.fromkeys(r["set"] for r in rows if not (r["set"].y == -1).any()):
        counts = [next(r["aside"] for r in rows if r["set"] is d and r["method"] == name)
                  for name in names]
        lines.append(f"| {d.name} | {len(d.y):,} | " + " | ".join(map(str, counts)) + " |")
    return lines


def time_table(timed):
    lines = ["| set | n | k | engine | noise=None | noise=\"auto\" | auto / None | set aside |",
             "|---|---|---|---|---|---|---|---|"]
    for d, engine, plain, auto, aside in timed:
        lines.append(f"| {d.name} | {len(d.y):,} | {d.k} | {engine} | {plain:.2f} s | "
                     f"{auto:.2f} s | {auto / plain:.2f}× | {aside} |")
    ratios = [auto / plain for _, _, plain, auto, _ in timed]
    lines += ["", f"Median ratio noise=\"auto\" / noise=None: {np.median(ratios):.2f}×."]
    return lines


def report(rows, timed, names, argv, r_note):
    seconds = {name: sum(r["seconds"] for r in rows if r["method"] == name) for name in names}
    lines = [f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}",
             f"{platform.machine()}, {os.cpu_count()} cores, python "
             f"{platform.python_version()}, {datetime.date.today().isoformat()}",
             "command: python benchmarks/bench_noise.py" + " ".join([""] + argv), "",
             "## Detection of the planted noise, by group of sets", "",
             "The sets with planted noise. Recall: the share of the planted noise labelled "
             "-1. Precision: the share of the points labelled -1 that are planted noise "
             "(its mean over the sets where a method set some aside). ARI: on the points "
             "that are not planted noise, a method's -1 counted as one more group (over "
             "the sets of more than one cluster). Each a mean over the group's sets. "
             "DBSCAN: `min_samples` = 2 D, `eps` at the knee of the sorted "
             f"distances to the (2 D - 1)-th neighbour. {r_note}", "",
             *summary_table(rows, names), "",
             "## Sets without planted noise: points set aside", "",
             *clean_table(rows, names), "",
             "## Every set: recall / precision / ARI", "",
             *set_table(rows, names), "",
             "Seconds of each method over all the sets: "
             + ", ".join(f"{name} {s:.0f} s" for name, s in seconds.items()) + ".", "",
             "## The cost of noise=\"auto\"", "",
             "`KernelKGroups(k, random_state=0)` with `noise=None` and `noise=\"auto\"`, the "
             "same data, k and starts; the fastest of the repeated fits of each.", "",
             *time_table(timed), ""]
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help="write the Markdown report there")
    ap.add_argument("--only", nargs="*", default=None, help="run these sets only")
    ap.add_argument("--repeat", type=int, default=2, help="fits per timing (the fastest)")
    ap.add_argument("--no-r", action="store_true", help="leave R's trimkmeans out")
    args = ap.parse_args(argv)
    argv = list(sys.argv[1:] if argv is None else argv)
    sets = noisy_sets()
    if args.only:
        sets = [d for d in sets if d.name in args.only]
    with_r = not args.no_r and r_trimkmeans_available()
    r_note = (f"trimkmeans (R): {R_RUNS} random starts at the true k and share; at trim = 0 "
              "(the sets without noise) it still trims the point farthest from its mean."
              if with_r else "R's trimkmeans was not run (Rscript with the trimcluster "
              "package not found, or --no-r).")
    fns = methods(with_r)
    rows = run(sets, fns)
    timed = times(sets, args.repeat)
    publish(report(rows, timed, list(fns), argv, r_note), args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
