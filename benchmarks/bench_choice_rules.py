"""The constants of the energy rule's steps 2 and 3, each moved alone, on the
development and evaluation halves of every battery, and why its answers fail.

    python benchmarks/bench_choice_rules.py [--battery NAME ...]      (collect)
    python benchmarks/bench_choice_rules.py --report [--out FILE.md]

**Collect** (minutes, not hours; cached per battery in ``--cache-dir``, resumable;
runs on different batteries may go side by side): per labelled set of up to 5,000
points (:func:`bench_choice.sets_of`), the yardstick curve of ``bench_choice.py`` (the
ARI of ``KernelKGroups(k, random_state=0)`` for k = 2..15; taken from its cache where
that holds the set), KMeans + silhouette's k, ``choose_k(X)``'s answer and the k of its
steps 2 and 3, that of
``choose_k(X, range(2, 16))`` (the rule with the answer 1 taken out, for data known to
hold clusters, as KMeans + silhouette is; a cache without it gains it on the next collect,
and a set cached without the k of steps 2 and 3 is collected again),
and the energy rule's own fits of k = 2..15 in the geometry where it decided: each k's mean
silhouette, the paired standard error of its difference from every larger k's
(:meth:`Fits.silhouette_se`) and the Bonferroni split p-value (the smallest dip p-value of its
clusters times k, :meth:`Fits.bisect` as step 3 draws it). The fits are the rule's:
the collect watches ``kgroups._choose_k.point.decide`` and keeps the geometry it
answered in, then grows that geometry's fits to k = 15.

**Report**: steps 2 and 3 replayed on those fits (:func:`replay`, which follows
``point.scan`` and ``point.split_walk``) with each of ``SILHOUETTE_SE``,
``SILHOUETTE_KEEP``, ``SPLIT_ALPHA`` and ``SCAN_MIN`` moved alone; at the library's
values the replay gives the k those steps answered on every set (the report counts it,
and the sets where ``choose_k(X)`` then answers another k: step 4, tiles of shapes read
against the neighbourhood graph's groups, which the replays leave out). Per
battery group and half: the sets where the k is useful (``bench_choice.useful``), the
exact k, and the mean ARI of the yardstick fit at that k (0 for k = 1). Then the
answers that are not useful, by kind: one cluster (step 1 found no structure),
fewer or more clusters than the curve's best k. Step 1 is not replayed: the labelled
batteries hold no set without clusters (``bench_null.py`` judges that step).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score

import _batteries
from _report import publish
from bench_choice import (CACHE, GROUPS, KS, STUDIED, _dump, _load, ari, half, sets_of,
                          useful)
from kgroups import KernelKGroups, choose_k
from kgroups._choose_k import point
from kgroups._choose_k.constants import value

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE_DIR = os.path.join(HERE, ".data", "choice_rules")
CURRENT = {name: value(name) for name in ("SILHOUETTE_SE", "SILHOUETTE_KEEP", "SPLIT_ALPHA",
                                          "SCAN_MIN")}
FROM_TWO = "choose_k(X, range(2, 16))"
GRID = {"SILHOUETTE_SE": (0.0, 0.25, 0.5, 1.0, 2.0),
        "SILHOUETTE_KEEP": (0.5, 0.6, 0.7, 0.8, 0.9),
        "SPLIT_ALPHA": (0.001, 0.01, 0.05, 0.1, 0.2),
        "SCAN_MIN": (6, 8, 10, 12, 15)}


# --------------------------------------------------------------------------- collect
def rule_fits(X):
    """``choose_k(X)``'s k and its energy rule's fits of k = 2..15 in the geometry it
    answered in (X's own where no geometry showed structure)."""
    seen, decide = [], point.decide

    def watch(f, ks, *args, **kwargs):
        out = decide(f, ks, *args, **kwargs)
        seen.append((f, *out))
        return out

    point.decide = watch
    try:
        r = choose_k(X, range(1, 16), random_state=0)
    finally:
        point.decide = decide
    f, rr, found = ([s for s in seen if s[2]] or seen)[0]
    steps = [s for s in rr.trace.steps if s.step == "silhouette"]
    rec = {"library": r.k, "rule": rr.k, "found": found,
           "lo": min(steps[0].value) if steps else 2, "sil": {}, "p": {}}
    for k in (int(k) for k in KS):
        if k >= np.unique(f.Z, axis=0).shape[0]:
            break
        labels = f.grow(k)[0]
        rec["sil"][k] = f.silhouette(k)
        rec["p"][k] = min(1.0, k * min(f.bisect(labels, j, f.rng(k, 3, j), gap=True)[0]
                                       for j in range(k)))
    rec["se"] = {(k, b): f.silhouette_se(k, b) for k in rec["sil"] for b in rec["sil"] if b > k}
    return rec


def collect_one(d, curves):
    t = time.perf_counter()
    rec = {"battery": d.battery, "name": d.name, "half": half(d.battery, d.name),
           "n": len(d.X), "d": d.X.shape[1], "k": d.k}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec["curve"] = curves.get((d.battery, d.name)) or {
            int(k): ari(d.y, KernelKGroups(int(k), random_state=0).fit(d.X).labels_)
            for k in KS if k < len(d.X)}
        km = {int(k): KMeans(int(k), n_init=10, random_state=0).fit_predict(d.X) for k in KS}
        rec["KMeans + silhouette"] = max(km, key=lambda k: silhouette_score(d.X, km[k]))
        rec.update(rule_fits(d.X.astype(np.float64)))
    rec["seconds"] = time.perf_counter() - t
    return with_from_two(d, rec)


def with_from_two(d, rec):
    """``rec`` with ``choose_k(X, range(2, 16))``'s k, the rule never answering 1 (what a
    user who knows X has clusters asks for)."""
    if FROM_TWO not in rec:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rec[FROM_TWO] = int(choose_k(d.X.astype(np.float64), range(2, 16),
                                         random_state=0).k)
    return rec


def collect(batteries, max_n, cache_dir):
    old = _load(CACHE)           # bench_choice.py's cache: its curves, where it has them
    curves = {key: rec["curve"] for key, rec in old.items()}
    for b in batteries:
        path = os.path.join(cache_dir, f"{b}.pkl")
        done = _load(path)
        for d in sets_of([b], max_n):
            if d.name in done and "rule" in done[d.name]:   # else from before that field
                if FROM_TWO not in done[d.name]:        # a cache from before that field
                    with_from_two(d, done[d.name])
                    _dump(path, done)
                continue
            done[d.name] = rec = collect_one(d, curves)
            _dump(path, done)
            print(f"{b:8s} {d.name[:34]:34s} {rec['half']:4s} n={rec['n']:5d} k={d.k:2d} "
                  f"choose_k {rec['library']:2d} KMeans {rec['KMeans + silhouette']:2d} "
                  f"({rec['seconds']:.1f} s)", flush=True)


# --------------------------------------------------------------------------- replay
def replay(rec, SILHOUETTE_SE, SILHOUETTE_KEEP, SPLIT_ALPHA, SCAN_MIN):
    """Steps 2 and 3 of the energy rule on the collected fits (k = 1 where step 1
    found no structure): the silhouette followed from the first k of step 1's gain to
    ``max(SCAN_MIN, 2 k_b)``, the smallest k within ``SILHOUETTE_SE`` standard errors
    of the best, then one more cluster while the split test's p-value is below
    ``SPLIT_ALPHA`` and the next fit keeps ``SILHOUETTE_KEEP`` of the start's mean
    silhouette."""
    if not rec["found"]:
        return 1
    sil, se = rec["sil"], rec["se"]
    ks = [k for k in sorted(sil) if k >= rec["lo"]]
    best = None
    for k in ks:
        if best is None or sil[k] > sil[best]:
            best = k
        if k >= max(SCAN_MIN, 2 * best):
            break
    k = next(k for k in ks if k <= best and
             sil[k] >= sil[best] - SILHOUETTE_SE * se.get((k, best), 0.0))
    floor = SILHOUETTE_KEEP * sil[k]
    while rec["p"].get(k, 1.0) < SPLIT_ALPHA and k + 1 in sil and sil[k + 1] >= floor:
        k += 1
    return k


# --------------------------------------------------------------------------- report
def _cell(recs, ks):
    u = sum(useful(r, k) for r, k in zip(recs, ks))
    e = sum(k == r["k"] for r, k in zip(recs, ks))
    m = np.mean([r["curve"].get(k, 0.0) if k > 1 else 0.0 for r, k in zip(recs, ks)])
    return f"{u} / {e} / {m:.3f}"


def _kind(r, k):
    if useful(r, k):
        return "useful"
    if k == 1:
        return "one cluster"
    return "fewer" if k < max(r["curve"], key=r["curve"].get) else "more"


def report(cache_dir, out=None):
    recs = [r for name in sorted(os.listdir(cache_dir)) if name.endswith(".pkl")
            for r in _load(os.path.join(cache_dir, name)).values()]
    cols = [(g, h) for g in GROUPS for h in ("dev", "eval")]
    by = {c: [r for r in recs if GROUPS[c[0]](r["battery"]) and r["half"] == c[1]]
          for c in cols}
    same = sum(replay(r, **CURRENT) == r["rule"] for r in recs)
    tiled = sum(r["rule"] != r["library"] for r in recs)
    head = "| " + " | ".join(f"{g}, {h} ({len(by[(g, h)])})" for g, h in cols) + " |"
    text = ["# The energy rule's steps 2 and 3, each constant moved alone", "",
            "`python benchmarks/bench_choice_rules.py` (collect), `--report`.", "",
            f"The replay of steps 2 and 3 at the library's constants gives the k of those "
            f"steps on {same} of {len(recs)} sets; `choose_k(X)` then reads that answer "
            f"against the neighbourhood graph's groups (step 4, tiles of shapes) and "
            f"answers another k on {tiled} (the rows *choose_k(X)*; the replays stop "
            "at step 3). Each cell: sets where the k is useful / exact / mean ARI of the "
            "default fit at that k (0 for k = 1).", "",
            "| constant | value " + head, "|---|---|" + "---|" * len(cols)]
    rows = [("choose_k(X)", "", lambda r: r["library"]),
            (FROM_TWO, "", lambda r: r[FROM_TWO]),
            ("KMeans + silhouette", "", lambda r: r["KMeans + silhouette"])]
    for name, grid in GRID.items():
        for v in grid:
            mark = f"{v:g} (library)" if v == CURRENT[name] else f"{v:g}"
            rows.append((name, mark, lambda r, name=name, v=v:
                         replay(r, **{**CURRENT, name: v})))
    for name, mark, rule in rows:
        text.append(f"| {name} | {mark} | " + " | ".join(
            _cell(by[c], [rule(r) for r in by[c]]) for c in cols) + " |")
    kinds = ("useful", "one cluster", "fewer", "more")
    text += ["", "The answers by kind (*fewer* / *more*: than the k of the curve's best "
             f"ARI), `choose_k(X)`, `{FROM_TWO}` and KMeans + silhouette:", "",
             "| answer | pipeline " + head, "|---|---|" + "---|" * len(cols)]
    for kind in kinds:
        for p in ("library", FROM_TWO, "KMeans + silhouette"):
            text.append(f"| {kind} | {'choose_k(X)' if p == 'library' else p} | " + " | ".join(
                str(sum(_kind(r, r[p]) == kind for r in by[c])) for c in cols) + " |")
    publish("\n".join(text) + "\n", out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--battery", nargs="+", default=list(STUDIED), choices=_batteries.ALL)
    ap.add_argument("--max-n", type=int, default=5000)
    ap.add_argument("--cache-dir", default=CACHE_DIR)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.report:
        report(args.cache_dir, args.out)
    else:
        collect(args.battery, args.max_n, args.cache_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
