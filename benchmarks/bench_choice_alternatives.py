"""Rules for k that the energy rule could take instead, scored on the cache of
``bench_choice.py`` (its development and evaluation halves).

    python benchmarks/bench_choice_alternatives.py [--out FILE.md]

Every rule picks a k of 2..15 from the energy fits the cache holds (five kernel
k-means++ starts and a split of the fit of k - 1, their points' silhouettes):

* **largest silhouette**: the k of the largest mean silhouette (Rousseeuw 1987);
* **silhouette over references**: the k of the largest mean silhouette less that of
  the same fits of reference samples without clusters (3 per set, of at most 1,000
  points): Gaussian with X's mean and covariance (*Gaussian*), or uniform over the box
  of X's principal axes with its standard deviations (*uniform*, the references of
  step 1). The gap statistic's idea (Tibshirani, Walther & Hastie 2001) applied to
  the silhouette, meant for the rules' too few clusters on overlapping classes: a
  single Gaussian's silhouette also peaks at 2;
* the library's ``choose_k(X)`` and KMeans + silhouette, as the cache has them.

Printed per rule and half: the sets where the k is useful (the default fit at k
reaches 0.75 of the best ARI over k = 2..15, as ``bench_choice.py`` counts) and the
mean ARI of the default fit at that k. The reference fits are cached beside the
choice cache (``choice_references.pkl``).
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import warnings

import numpy as np

import _batteries
from bench_choice import CACHE, KS, TABLES, useful

REFS = os.path.join(os.path.dirname(CACHE), "choice_references.pkl")


def reference_curves(Z, n_refs=3, max_n=1000):
    """Mean silhouette by k of the fits of ``n_refs`` references of each kind."""
    from kgroups._choose_k.fits import Fits, Setting
    from kgroups._rescale import principal_axes
    from kgroups._stats.criteria import reference_sampler

    rng = np.random.default_rng(0)
    if len(Z) > max_n:
        Z = Z[rng.choice(len(Z), max_n, replace=False)]
    w = np.ones(len(Z))
    mean, Vt, sd = principal_axes(Z, w)
    out = {}
    for kind in ("Gaussian", "uniform"):
        curves = []
        for b in range(n_refs):
            r = np.random.default_rng([b, 1])
            R = ((r.normal(size=(len(Z), sd.size)) * sd) @ Vt + mean if kind == "Gaussian"
                 else reference_sampler(Z, w, "moments")(r))
            f, cur = Fits(R, w, Setting(), seed=b), {}
            for k in (int(k) for k in KS):
                try:
                    f.grow(k)
                    cur[k] = f.silhouette(k)
                except ValueError:
                    break
            curves.append(cur)
        ks = set.intersection(*(set(c) for c in curves))
        out[kind] = {k: float(np.mean([c[k] for c in curves])) for k in ks}
    return out


def rules(rec, refs):
    sil = {k: float(np.mean(v["sil points"])) for k, v in rec["energy"].items()}
    out = {"largest silhouette": max(sil, key=sil.get)}
    for kind, curve in refs.items():
        gap = {k: sil[k] - curve[k] for k in sil if k in curve}
        out[f"silhouette over {kind} references"] = max(gap, key=gap.get)
    out["choose_k(X)"] = rec["new"]["default"][0]
    out["KMeans + silhouette"] = len(np.unique(rec["KMeans + silhouette"]))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    with open(CACHE, "rb") as f:
        done = {key: rec for key, rec in pickle.load(f).items() if "new" in rec}
    refs = {}
    if os.path.exists(REFS):
        with open(REFS, "rb") as f:
            refs = pickle.load(f)
    for b in _batteries.ALL:
        for d in _batteries.battery(b):
            key = (b, d.name)
            if key in done and key not in refs:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    refs[key] = reference_curves(np.asarray(d.X, dtype=np.float64))
                print(f"references: {b}/{d.name}", flush=True)
                with open(REFS, "wb") as f:
                    pickle.dump(refs, f)
    score = {}
    for key, rec in done.items():
        group = "real tables" if rec["battery"] in TABLES else "shapes and sets"
        for name, k in rules(rec, refs[key]).items():
            s = score.setdefault((name, group, rec["half"]), [0, 0, []])
            s[0] += useful(rec, k)
            s[1] += 1
            s[2].append(rec["curve"].get(k, 0.0))
    cols = [(g, h) for g in ("real tables", "shapes and sets") for h in ("dev", "eval")]
    names = list(rules(next(iter(done.values())), refs[next(iter(done))]))
    lines = ["| rule | " + " | ".join(f"{g}, {h}" for g, h in cols) + " |",
             "|---|" + "---|" * len(cols)]
    for name in names:
        cells = [f"{score[(name, g, h)][0]}/{score[(name, g, h)][1]} useful, ARI "
                 f"{np.mean(score[(name, g, h)][2]):.3f}" for g, h in cols]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    text = "\n".join(["# Rules for k on the choice cache", "",
                      "`python benchmarks/bench_choice_alternatives.py`: the k of each "
                      "rule from the energy fits of `bench_choice.py`'s cache; useful "
                      "sets and the mean ARI of the default fit at that k.", ""] + lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
