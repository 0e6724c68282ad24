"""Energy or the graph: the arbiter against other yardsticks, on both halves (issue 55).

For every set of the ``bench_choice.py`` cache (its batteries, ``STUDIED``) that has the
library's answers (``--library``), the two candidates of the joint choice (the energy
rule's labels and k, the graph's rule's labels and k) are judged by:

* the **arbiter** of :mod:`kgroups._choose_k.arbiter` replayed (its ``decide`` given
  the cuts, the shares and the dips of pairs, not energy's split test of the groups, the
  groups' own dips nor energy's tiles step: the library's own answer, which has them, is
  reported beside it) with its constants, and with
  each constant moved (``CUT_RATIO``, ``WITHIN``, ``BALANCE``, ``AGREE``, the level
  ``SPLIT_ALPHA`` of its test of clusters within groups, or without that test), from
  the normalised cuts on the 10-nearest-neighbour graph of the graph's groups and of
  the energy partition of as many clusters (the cached energy fits of k = 2..15), the
  adjusted Rand index of the two and the dip test of energy clusters within the
  graph's groups (:func:`~kgroups._stats.modes.pair_dips`); and without its clause
  of groups not cleanly cut (``CLEAN_CUT``);
* **stability** under resampling (Lange, Roth, Braun & Buhmann 2004; ``stability`` of
  ``bench_choice.py``): the candidate whose semimetric's partitions of its k agree
  more across halves;
* **DBCV** (Moulavi, Jaskowiak, Campello, Zimek & Sander, SDM 2014): the candidate
  whose labels have the larger density-based validity index (:func:`dbcv`, on at most
  1,500 points);
* **energy wherever it refines the graph**: the energy clusters nest in the graph's
  groups (``within_share`` >= ``WITHIN``) and are more (k_e > k_g), without the dip
  test, else the arbiter;
* the **geodesic silhouette**, a third representation: the mean silhouette of each
  candidate on the shortest-path distances of the 10-nearest-neighbour graph (Isomap's
  geodesics; points of different components at twice the largest finite one), on at
  most 1,200 points (:func:`geodesic_silhouette`).

It reports the mean ARI of each pick per battery group and half, with each candidate
alone and the better of the two per set (which uses the labels).

Each set's features are kept in ``--rows`` (``.data/arbiter_rows.pkl``); ``--reuse``
reports from them without fitting again.

Usage: python benchmarks/bench_arbiter.py [--cache FILE] [--out FILE.md] [--reuse]
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import warnings

import numpy as np
from scipy.sparse.csgraph import minimum_spanning_tree, shortest_path
from scipy.spatial.distance import cdist
from scipy.special import logsumexp
from sklearn.metrics import silhouette_score
from sklearn.neighbors import kneighbors_graph

import _batteries
from bench_choice import CACHE, GROUPS, N_NEIGHBORS, STUDIED, UNSCORED, ari, stability
from kgroups._choose_k.arbiter import decide
from kgroups._stats.criteria import within_share
from kgroups._stats.modes import pair_dips
from kgroups._choose_k.constants import value
from kgroups._choose_k.trace import Trace
from kgroups._semimetrics.auto import partition_cut
from kgroups._semimetrics.neighbors import NeighborGraphMap

ROWS = os.path.join(os.path.dirname(CACHE), "arbiter_rows.pkl")


def dbcv(X, labels, max_n=1500, seed=0):
    """Density-based clustering validation (Moulavi et al. 2014): per cluster, the
    sparseness (the largest edge among inner nodes of the minimum spanning tree of
    mutual reachability distances) against the separation (the least such distance to
    another cluster), weighted by cluster size; -1 for one cluster."""
    n, dim = X.shape
    if n > max_n:
        idx = np.sort(np.random.default_rng(seed).choice(n, max_n, replace=False))
        X, labels = X[idx], labels[idx]
    labs = np.unique(labels)
    if labs.size < 2:
        return -1.0
    D = cdist(X, X)
    core = np.full(len(X), np.inf)
    for c in labs:  # the all-points core distance: (mean of (1/d)^dim)^(-1/dim)
        m = np.flatnonzero(labels == c)
        if m.size >= 3:
            with np.errstate(divide="ignore"):
                L = -dim * np.log(np.where(D[np.ix_(m, m)] > 0, D[np.ix_(m, m)], np.inf))
            np.fill_diagonal(L, -np.inf)
            core[m] = np.exp(-(logsumexp(L, axis=1) - np.log(m.size - 1)) / dim)
    sparse, inner = {}, {}
    for c in labs:
        m = np.flatnonzero(labels == c)
        inner[c] = m
        if m.size < 3:
            sparse[c] = 0.0
            continue
        R = np.maximum(D[np.ix_(m, m)], np.maximum(core[m][:, None], core[m][None, :]))
        np.fill_diagonal(R, 0.0)
        T = minimum_spanning_tree(np.where(R > 0, R, 1e-300) - np.diag(np.full(m.size, 1e-300)))
        T = np.maximum(T.toarray(), T.toarray().T)
        keep = (T > 0).sum(axis=1) > 1
        if keep.sum() >= 2:
            sparse[c], inner[c] = T[np.ix_(keep, keep)].max(), m[keep]
        else:
            sparse[c] = T.max()
    total = 0.0
    for c in labs:
        a = inner[c]
        sep = min(np.min(np.maximum(D[np.ix_(a, inner[o])], np.maximum(
            core[a][:, None], core[inner[o]][None, :]))) for o in labs if o != c)
        total += np.mean(labels == c) * (sep - sparse[c]) / max(sep, sparse[c], 1e-300)
    return float(total)


def geodesic_silhouette(X, label_sets, max_n=1200, seed=0):
    """The silhouette of each labelling on the graph's shortest-path distances."""
    idx = np.sort(np.random.default_rng(seed).choice(len(X), min(len(X), max_n),
                                                     replace=False))
    A = kneighbors_graph(X[idx], N_NEIGHBORS, mode="distance")
    D = shortest_path(A.maximum(A.T), directed=False)
    D[~np.isfinite(D)] = 2.0 * D[np.isfinite(D)].max()
    return [silhouette_score(D, L[idx], metric="precomputed")
            if np.unique(L[idx]).size > 1 else -1.0 for L in label_sets]


def features(rec, X):
    """The arbiter's inputs for one set, each candidate's ARI, stability and DBCV."""
    new = rec["new"]
    (ke, E), (kg, G) = new["point"], new["graph rule"]
    Ekg = rec["energy"].get(kg, {}).get("labels")
    if Ekg is None:
        return None
    on = E != UNSCORED          # the rows the choice ran on (less copies and lone outliers)
    X, E, G, Ekg, y = X[on], E[on], G[on], Ekg[on], rec["y"][on]
    w = np.ones(len(X))
    fmap = NeighborGraphMap.fit(X, w, n_neighbors=N_NEIGHBORS, n_clusters=3, random_state=0,
                                owner="study")
    f = {"half": rec["half"], "battery": rec["battery"], "ke": ke, "kg": kg,
         "ae": ari(y, E), "ag": ari(y, G), "an": ari(y, new["joint"][1][on]),
         "cg": partition_cut(fmap, G, kg), "ce": partition_cut(fmap, Ekg, kg),
         "within": within_share(E, G, w) if ke > 1 else 0.0, "agree": ari(G, Ekg),
         "small": float(np.bincount(G).min() / len(G))}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f["stab e"] = stability(X, ke, "energy", seed=ke) if ke > 1 else -np.inf
        f["stab g"] = stability(X, kg, "nearest_neighbors", seed=kg)
    f["dbcv e"], f["dbcv g"] = dbcv(X, E), dbcv(X, G)
    f["geo e"], f["geo g"] = geodesic_silhouette(X, [E, G])
    f["refines"] = ke > kg and f["within"] >= value("WITHIN")
    f["pair p"] = pair_dips(X, w, E, G) if f["refines"] else 1.0
    return f


def arbiter(cut_ratio=None, within=None, balance=None, agree=None, split_alpha=None,
            clean_cut=None):
    """The library's rule with some constants moved (None: the library's)."""
    import kgroups._choose_k.arbiter as a
    names = ("CUT_RATIO", "WITHIN", "BALANCE", "AGREE", "SPLIT_ALPHA", "CLEAN_CUT")
    moved = (cut_ratio, within, balance, agree, split_alpha, clean_cut)

    def pick(f):
        saved = [getattr(a, n) for n in names]
        for n, v, old in zip(names, moved, saved):
            setattr(a, n, old if v is None else v)
        try:
            return decide(f["cg"], f["ce"], f["ke"], f["kg"], f["within"], f["small"],
                          Trace(), f["agree"], f["pair p"]) == "energy"
        finally:
            for n, old in zip(names, saved):
                setattr(a, n, old)
    return pick


RULES = {
    "energy rule alone": lambda f: True,
    "graph rule alone": lambda f: False,
    "arbiter (replayed)": arbiter(),
    f"arbiter, CUT_RATIO 0.5 (not {value('CUT_RATIO'):g})": arbiter(cut_ratio=0.5),
    "arbiter, CUT_RATIO 0.7": arbiter(cut_ratio=0.7),
    "arbiter, CUT_RATIO 1.5": arbiter(cut_ratio=1.5),
    f"arbiter, WITHIN 0.9 (not {value('WITHIN'):g})": arbiter(within=0.9),
    f"arbiter, BALANCE 0.25 (not {value('BALANCE'):g})": arbiter(balance=0.25),
    "arbiter, BALANCE 0.5": arbiter(balance=0.5),
    f"arbiter, AGREE 0.9 (not {value('AGREE'):g})": arbiter(agree=0.9),
    "arbiter, AGREE 0.99": arbiter(agree=0.99),
    "arbiter without AGREE (rules 2 and 3)": arbiter(agree=np.inf),
    "stability (Lange et al. 2004)": lambda f: f["stab e"] >= f["stab g"],
    "DBCV (Moulavi et al. 2014)": lambda f: f["dbcv e"] >= f["dbcv g"],
    "geodesic silhouette (third representation)": lambda f: f["geo e"] >= f["geo g"],
    "arbiter without the test of clusters within groups": arbiter(split_alpha=0.0),
    f"arbiter, that test at p < 0.01 (not {value('SPLIT_ALPHA'):g})": arbiter(split_alpha=0.01),
    "arbiter, that test at p < 0.001": arbiter(split_alpha=0.001),
    "arbiter, that test at p < 0.1": arbiter(split_alpha=0.1),
    "arbiter, and energy wherever its clusters nest in more than k_g (no test)": lambda f: (
        f["refines"] or arbiter()(f)),
    "arbiter without the clause of groups not cleanly cut": arbiter(clean_cut=np.inf),
    f"arbiter, CLEAN_CUT 0.005 (not {value('CLEAN_CUT'):g})": arbiter(clean_cut=0.005),
    "arbiter, CLEAN_CUT 0.01": arbiter(clean_cut=0.01),
    "arbiter, CLEAN_CUT 0.05": arbiter(clean_cut=0.05),
}


def report(rows, out=None):
    cols = [(g, h) for g in GROUPS for h in ("dev", "eval")]
    sel = {c: [f for f in rows if GROUPS[c[0]](f["battery"]) and f["half"] == c[1]]
           for c in cols}
    head = ["pick"] + [f"{g}, {h} ({len(sel[(g, h)])})" for g, h in cols]
    lines = ["# Energy or the graph: the arbiter against other yardsticks", "",
             "`python benchmarks/bench_arbiter.py --out benchmarks/results/arbiter.md` (after `bench_choice.py --library`).",
             "", "Mean ARI of the candidate each yardstick picks, per battery group and "
             "half (the sets where both candidates answered), on the rows the choice ran "
             "on. *Replayed*: rules 1 to 4 of the arbiter decided from the cuts, the "
             "shares and the dips of pairs alone (not energy's split test of the groups, "
             "the groups' own dips nor energy's tiles step), each constant moved alone; "
             "the library's own answer, which has them all, is the last row but one:", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, rule in RULES.items():
        cells = [f"{np.mean([f['ae'] if rule(f) else f['ag'] for f in sel[c]]):.3f}"
                 for c in cols]
        lines.append("| " + " | ".join([name] + cells) + " |")
    cells = [f"{np.mean([f['an'] for f in sel[c]]):.3f}" for c in cols]
    lines.append("| " + " | ".join(["the library's answer (nothing given, its own labels)"]
                                   + cells) + " |")
    cells = [f"{np.mean([max(f['ae'], f['ag']) for f in sel[c]]):.3f}" for c in cols]
    lines.append("| " + " | ".join(["better candidate (uses the labels)"] + cells) + " |")
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        with open(out, "w") as fh:
            fh.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--out", default=None)
    ap.add_argument("--rows", default=ROWS, help="where each set's features are kept")
    ap.add_argument("--reuse", action="store_true",
                    help="report from the features kept by the last run (no fits)")
    args = ap.parse_args()
    if args.reuse:
        with open(args.rows, "rb") as fh:
            report(pickle.load(fh), args.out)
        return 0
    with open(args.cache, "rb") as fh:
        done = pickle.load(fh)
    rows, data = [], {}
    for (battery, name), rec in done.items():
        if "new" not in rec or "graph rule" not in rec["new"] or battery not in STUDIED:
            continue
        if battery not in data:
            data[battery] = {d.name: d for d in _batteries.battery(battery)}
        f = features(rec, data[battery][name].X)
        if f is not None:
            rows.append(f)
            print(f"{battery:8s} {name[:34]:34s} {f['half']:4s} energy {f['ae']:.2f} graph "
                  f"{f['ag']:.2f}", file=sys.stderr, flush=True)
    with open(args.rows, "wb") as fh:
        pickle.dump(rows, fh)
    report(rows, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
