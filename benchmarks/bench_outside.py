"""Nothing given, judged where it is used: the choice of k and of the semimetric on the
development half of an outside battery (Gagolewski's suite, :mod:`_external`) and on
the development and evaluation halves of the project's own batteries
(:func:`bench_choice.half`), beside each candidate taken alone and the peers.

Per set, the pipelines (each with ``random_state=0``):

* ``nothing given``: ``KernelKGroups("auto", semimetric="auto")``;
* ``graph alone``: ``KernelKGroups("auto", semimetric="nearest_neighbors")``;
* ``energy alone``: ``KernelKGroups("auto")`` (energy's own choice of k);
* ``choose_k(X)``: its k, **useful** when the fit ``KernelKGroups(k)`` at that k reaches
  0.75 of the best adjusted Rand index of those fits over k = 2..15 (any k where none
  reaches 0.10; k = 1 never otherwise), as :func:`bench_choice.useful`;
* ``auto at the true k``: ``KernelKGroups(k, semimetric="auto")``;
* peers: HDBSCAN (scikit-learn's defaults), Genie at the true k (``genieclust``,
  Gagolewski, Bartoszuk & Cena 2016, ``gini_threshold=0.3``; with
  ``bash benchmarks/setup_semimetric.sh``), KMeans + silhouette (k = 2..15).

Scores: the adjusted Rand index on the points whose reference label is not noise.
The peers and the curve of fixed-k fits are cached (``--cache``); the library's
pipelines run where ``--answers`` holds no answer of theirs (every time with
``--fresh``; ``--pipelines`` chooses some), their answers kept there. The report: the
mean ARI per battery group and half, and the answers per set; ``--out`` writes it.

Usage: python bench_outside.py [--battery outside ...] [--half dev|eval|all]
       [--pipelines NAME ...] [--only NAME ...] [--out FILE.md] [--cache FILE]
       [--answers FILE [--fresh]]
"""

from __future__ import annotations

import argparse
import os
import pickle
import platform
import shlex
import sys
import time
import warnings

import numpy as np
from sklearn.metrics import adjusted_rand_score

import _batteries
from _report import publish
from bench_choice import half

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".data", "outside.pkl")
KS = range(2, 16)
USEFUL_SHARE, NO_SIGNAL_ARI = 0.75, 0.10


def ari(d, labels):
    s = d.scored & (np.asarray(labels) >= -1)
    return float(adjusted_rand_score(d.y[s], np.asarray(labels)[s]))


def n_found(labels):
    lab = np.asarray(labels)
    return int(np.unique(lab[lab >= 0]).size)


def _library(d, name):
    from kgroups import KernelKGroups, choose_k

    if name == "choose_k(X)":
        r = choose_k(d.X)
        return {"k": int(r.k), "labels": np.asarray(r.labels)}
    params = {"nothing given": ("auto", "auto"), "graph alone": ("auto", "nearest_neighbors"),
              "energy alone": ("auto", "energy"), "auto at the true k": (d.k, "auto")}[name]
    est = KernelKGroups(params[0], semimetric=params[1], random_state=0).fit(d.X)
    return {"k": int(est.n_clusters_), "labels": np.asarray(est.labels_),
            "semimetric": str(est.semimetric_)}


PIPELINES = ("nothing given", "graph alone", "energy alone", "choose_k(X)",
             "auto at the true k")


def _peers(d):
    from sklearn.cluster import HDBSCAN, KMeans
    from sklearn.metrics import silhouette_score

    from kgroups import KernelKGroups

    out = {"curve": {}}
    for k in KS:
        if k < d.X.shape[0]:
            out["curve"][k] = ari(d, KernelKGroups(k, random_state=0).fit(d.X).labels_)
    out["HDBSCAN"] = HDBSCAN().fit_predict(d.X)
    best = None
    for k in KS:
        lab = KMeans(k, n_init=10, random_state=0).fit_predict(d.X)
        s = silhouette_score(d.X, lab, sample_size=min(2000, d.X.shape[0]), random_state=0)
        if best is None or s > best[0]:
            best = (s, lab)
    out["KMeans + silhouette"] = best[1]
    try:
        import genieclust
    except ImportError:
        return out
    try:  # an external peer may fail on a set (genieclust refuses one column): it scores 0
        out["Genie at the true k"] = genieclust.Genie(d.k, gini_threshold=0.3).fit_predict(d.X)
    except ValueError as err:
        print(f"{d.battery}/{d.name}: Genie failed ({err}); scored as one cluster",
              file=sys.stderr)
        out["Genie at the true k"] = np.zeros(d.X.shape[0], dtype=np.int64)
    return out


def useful(curve, k):
    best = max(curve.values())
    if best < NO_SIGNAL_ARI:
        return True
    return k != 1 and curve.get(k, -1.0) >= USEFUL_SHARE * best


def collect(sets, pipelines, cache_path, answers=None, again=True):
    """Every set's row: the cached peers and curve, and each pipeline's answer (run
    again unless ``again`` is False and ``answers`` holds it)."""
    kept = {}
    if answers and os.path.exists(answers):
        with open(answers, "rb") as f:
            kept = pickle.load(f)
    cache = {}
    if os.path.exists(cache_path):
        with open(cache_path, "rb") as f:
            cache = pickle.load(f)
    rows = []
    for d in sets:
        key = f"{d.battery}/{d.name}"
        if key not in cache:
            cache[key] = _peers(d)
            os.makedirs(os.path.dirname(cache_path), exist_ok=True)
            with open(cache_path, "wb") as f:
                pickle.dump(cache, f)
        row = {"set": key, "half": "dev" if d.battery == "outside" else half(d.battery, d.name),
               "k": d.k, "n": d.X.shape[0],
               "d": d, **cache[key]}
        for p in pipelines:
            if not again and (key, p) in kept:
                row[p] = kept[key, p]
                continue
            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                row[p] = _library(d, p)
            row[p]["seconds"] = time.perf_counter() - t
            kept[key, p] = row[p]
        if answers:
            with open(answers, "wb") as f:
                pickle.dump(kept, f)
        rows.append(row)
        said = "  ".join(f"{p}: k={row[p]['k']} {ari(d, row[p]['labels']):.2f}"
                         f"{' ' + row[p]['semimetric'][:5] if 'semimetric' in row[p] else ''}"
                         f" ({row[p]['seconds']:.1f}s)" for p in pipelines)
        print(f"{key:32s} k={d.k:2d} {said}", file=sys.stderr, flush=True)
    return rows


def _group(r):
    """``(battery group, half)``: the outside battery and the curve draws apart; the
    project's other batteries as real tables or shapes and sets, as bench_choice.py
    groups them."""
    from bench_choice import GROUPS

    if r["d"].battery == "outside":
        return "outside (Gagolewski's suite)", "dev"
    if r["d"].battery == "curves":
        return "own: curve draws", r["half"]
    own = next(g for g, test in GROUPS.items() if test(r["d"].battery))
    return f"own: {own}", r["half"]


def report(rows, pipelines):
    """The mean ARI per battery group and half of every pipeline and peer, the better of
    the two candidates per set (which needs the labels), the number of useful
    ``choose_k(X)`` answers beside KMeans + silhouette's, the slowest set of nothing
    given; then every set's answers."""
    peers = [p for p in ("HDBSCAN", "Genie at the true k", "KMeans + silhouette")
             if all(p in r for r in rows)]
    groups = {}
    for r in rows:
        groups.setdefault(_group(r), []).append(r)
    head = ("| battery | half | sets | " + " | ".join(list(pipelines) + peers) +
            " | better of graph and energy | choose_k(X) useful | KMeans + silhouette useful "
            "| slowest nothing given (s) |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    km_k = {id(r): n_found(r["KMeans + silhouette"]) for r in rows}
    for (b, h), rs in sorted(groups.items()):
        cells = []
        for p in list(pipelines) + peers:
            lab = (lambda r: r[p]["labels"]) if p in pipelines else (lambda r: r[p])
            cells.append(f"{np.mean([ari(r['d'], lab(r)) for r in rs]):.3f}")
        both = "graph alone" in pipelines and "energy alone" in pipelines
        better = (f"{np.mean([max(ari(r['d'], r['graph alone']['labels']), ari(r['d'], r['energy alone']['labels'])) for r in rs]):.3f}"
                  if both else "")
        use = (f"{sum(useful(r['curve'], r['choose_k(X)']['k']) for r in rs)} / {len(rs)}"
               if "choose_k(X)" in pipelines else "")
        km = f"{sum(useful(r['curve'], km_k[id(r)]) for r in rs)} / {len(rs)}"
        slow = (f"{max(r['nothing given']['seconds'] for r in rs):.1f}"
                if "nothing given" in pipelines else "")
        lines.append(f"| {b} | {h} | {len(rs)} | " + " | ".join(cells) +
                     f" | {better} | {use} | {km} | {slow} |")
    lines += ["", "Every set: k found and ARI (*U*: a useful `choose_k(X)`; the "
              "semimetric of the pipelines that choose it).", "",
              "| set | half | k | " + " | ".join(pipelines) + " | HDBSCAN |",
              "|" + "---|" * (4 + len(pipelines))]
    for r in rows:
        cells = [f"{r[p]['k']} {ari(r['d'], r[p]['labels']):.2f}"
                 + (f" {r[p]['semimetric'][:5]}" if "semimetric" in r[p] else "")
                 + (" U" if p == "choose_k(X)" and useful(r["curve"], r[p]["k"]) else "")
                 for p in pipelines]
        cells.append(f"{n_found(r['HDBSCAN'])} {ari(r['d'], r['HDBSCAN']):.2f}")
        lines.append(f"| {r['set']} | {r['half']} | {r['k']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--battery", nargs="+", default=["outside"])
    ap.add_argument("--half", choices=("dev", "eval", "all"), default="all")
    ap.add_argument("--pipelines", nargs="+", default=list(PIPELINES))
    ap.add_argument("--only", nargs="+")
    ap.add_argument("--max-n", type=int, default=5000)
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--out")
    ap.add_argument("--answers", help="pickle of the library's answers (kept and read)")
    ap.add_argument("--fresh", action="store_true",
                    help="run the library again where --answers holds an answer")
    a = ap.parse_args(argv)
    sets = [d for b in a.battery for d in _batteries.battery(b)
            if d.X.shape[0] <= a.max_n and (a.only is None or d.name in a.only)
            and (a.half == "all" or b == "outside" or half(d.battery, d.name) == a.half)]
    rows = collect(sets, a.pipelines, a.cache, a.answers, again=a.fresh)
    import kgroups

    machine = platform.processor() or platform.machine()
    command = "python benchmarks/bench_outside.py " + shlex.join(sys.argv[1:] if argv is None
                                                                  else argv)
    text = (f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}\n"
            f"{machine}, {os.cpu_count()} cores, python {platform.python_version()}, "
            f"{time.strftime('%Y-%m-%d')}\ncommand: {command}\n\n"
            f"{len(rows)} sets of up to {a.max_n} points. Mean adjusted Rand index on the "
            "points that are not noise.\n\n" + report(rows, a.pipelines) + "\n")
    publish(text, a.out)


if __name__ == "__main__":
    main()
