"""Nothing given: which k and which semimetric, from the data alone? (issue 47)

Every labelled battery of ``benchmarks/_batteries.py`` at once (shapes, real tables,
Gaussian settings, hard sets, FCPS, UCI and R tables, toy sets; ``bash
benchmarks/setup_fcps.sh`` and ``bash benchmarks/setup_uci_r.sh`` fetch the last
three), the sets of up to ``--max-n`` points (5,000). On each set, with nothing given
(k in 1..15 where a range is needed), the adjusted Rand index (ARI) with the labels,
on the scored points (label >= 0), of:

``HDBSCAN``                 scikit-learn's ``HDBSCAN()`` with its defaults (noise is
                            a cluster of its own)
``KMeans + silhouette``     ``KMeans(k, n_init=10)`` for k = 2..15, the k of largest
                            silhouette
``GMM BIC``                 ``GaussianMixture(k)`` for k = 1..15, the k of least BIC
``energy (point rule)``     the point rule of ``choose_k`` (steps 1-3) and its fit
``energy (default)``        ``choose_k(X)`` with step 4 (the shapes step) as committed
                            before this study (``--old-graph``: the graph's eigengap
                            with zeros floored at 1e-12 of the largest eigenvalue)
``graph (floor f)``         the graph's eigengap over k = 2..max(10, 2 k_e), zeros
                            counted as f times the smallest eigenvalue above zero
                            (``old``: 1e-12 of the largest), and the graph semimetric's
                            fit at that k
``graph silhouette``        the graph semimetric's fit of k = 2..max(10, 2 k_e) whose
                            mean silhouette in the graph's spectral embedding (rows
                            normalised) is largest
``joint (library)``         ``choose_k(X, range(1, 16), semimetric="auto")``, the call
                            of ``KernelKGroups(n_clusters="auto", semimetric="auto")``
``joint (floor f, E, c...)`` variants of its rule read off the candidates: the graph's
                            answer when its partition's normalised cut on the
                            neighbourhood graph is below c times that of the energy
                            partition of as many clusters, else the energy answer E;
                            with ``balance b``, the energy answer first when its
                            clusters lie within the graph's groups and the smallest
                            group holds less than b / k_g of the weight
``oracle``                  the best of the kgroups candidates per set (uses the labels)

The heavy part (the candidates' fits, the peers) is collected once into
``--cache`` (a pickle); the rules are then read off it (``--report`` only).
``--timing`` times the joint choice, ``choose_k(X)`` and HDBSCAN on every set;
``--scale N ...`` times the joint choice on three blobs of N points in 2-D beside
HDBSCAN, and ``semimetric="auto"`` at k = 2 on ``--moons`` two moons beside
``"nearest_neighbors"`` alone.

Usage: python bench_nothing_given.py [--max-n 5000] [--battery NAME ...]
       [--cache FILE] [--report] [--out FILE.md] [--timing] [--scale N ...]
       [--moons N ...]
"""

from __future__ import annotations

import argparse
import os
import pickle
import shlex
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import HDBSCAN, KMeans
from sklearn.metrics import adjusted_rand_score, silhouette_score
from sklearn.mixture import GaussianMixture

import _batteries
from kgroups import KernelKGroups, choose_k
from kgroups._choose_k import graph as graph_mod
from kgroups._choose_k.joint import graph_range
from kgroups._choose_k.silsplit import point_rule
from kgroups._semimetrics.auto import partition_cut
from kgroups._semimetrics.neighbors import NeighborGraphMap

K_RANGE = np.arange(1, 16)
FLOORS = ("old", 0.02, 0.05, 0.1, 0.2, 0.3)
RATIOS = (0.3, 0.5, 0.7, 1.0)
BALANCES = (0.15, 0.25, 0.35)
HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".data", "nothing_given.pkl")


def old_log_eigengaps(mu, ks, floor_share=None):
    """The graph's eigengap before this study: zeros floored at 1e-12 of the largest."""
    floor = 1e-12 * max(float(np.max(mu)), 1e-300)
    m = np.maximum(mu, floor)
    out = np.log(m[ks]) - np.log(m[ks - 1])
    return np.where(ks >= 2, out, np.nan)


def graph_k(mu, gks, floor):
    gaps = (old_log_eigengaps(mu, gks) if floor == "old"
            else graph_mod.log_eigengaps(mu, gks, floor))
    return int(gks[int(np.nanargmax(gaps))])


# --------------------------------------------------------------------------- peers
def peers(X):
    out = {}
    t = time.perf_counter()
    out["HDBSCAN"] = HDBSCAN().fit_predict(X)
    out["t HDBSCAN"] = time.perf_counter() - t
    t = time.perf_counter()
    lab = {k: KMeans(k, n_init=10, random_state=0).fit_predict(X) for k in range(2, 16)}
    best = max(lab, key=lambda k: silhouette_score(X, lab[k]))
    out["KMeans + silhouette"] = lab[best]
    out["t KMeans + silhouette"] = time.perf_counter() - t
    t = time.perf_counter()
    fits = {k: GaussianMixture(k, random_state=0, reg_covar=1e-6).fit(X) for k in K_RANGE}
    best = min(fits, key=lambda k: fits[k].bic(X))
    out["GMM BIC"] = fits[best].predict(X)
    out["t GMM BIC"] = time.perf_counter() - t
    return out


# --------------------------------------------------------------------------- collect
def candidates(X):
    """The kgroups candidates of one set: labels, ks, cuts and seconds."""
    w = np.ones(len(X))
    n_distinct = np.unique(X, axis=0).shape[0]
    params = {"semimetric": "energy", "alpha": 1.0, "sigma": 1.0, "theta": 1.0,
              "engine": "auto", "n_neighbors": 10, "estimator": KernelKGroups}
    opts = {"n_refs": 10, "reference": "pca", "n_splits": 20, "n_init": 5,
            "follow_shapes": False, "n_distinct": n_distinct}
    out = {}
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e, g, _ = point_rule(X, w, K_RANGE, params, opts, np.random.default_rng(0))
    out["t point"] = time.perf_counter() - t
    out["point"] = (e.k, e.labels)
    t = time.perf_counter()
    saved = graph_mod.log_eigengaps
    graph_mod.log_eigengaps = old_log_eigengaps
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = choose_k(X, range(1, 16), random_state=0)
    finally:
        graph_mod.log_eigengaps = saved
    out["t default"] = time.perf_counter() - t
    out["default"] = (r.k, r.labels)
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        j = choose_k(X, range(1, 16), semimetric="auto", random_state=0)
    out["t joint"] = time.perf_counter() - t
    out["joint"] = (j.k, j.labels, j.semimetric)
    if n_distinct <= params["n_neighbors"] + 1:
        return out
    gks = graph_range(K_RANGE, e.k)
    seed = int(g.rng(0, 9).integers(2**31 - 1))
    t = time.perf_counter()
    fmap = NeighborGraphMap.fit(X, w, n_neighbors=10, n_clusters=int(gks[-1]) + 1,
                                random_state=seed, owner="study")
    mu = np.clip(1.0 - fmap.eigenvalues, 0.0, None)
    out["t graph map"] = time.perf_counter() - t
    out["mu"], out["n_components"], out["gks"] = mu, fmap.n_components, gks
    out["graph"] = (fmap.graph, fmap.weights, fmap.node_of_row)
    out["G"], out["E"], out["cut G"], out["cut E"] = {}, {}, {}, {}
    ks = {graph_k(mu, gks, f) for f in FLOORS} | {e.k, r.k} - {1}
    t = time.perf_counter()
    sil = {}
    for k in range(2, int(gks[-1]) + 1):
        G = KernelKGroups(k, semimetric="nearest_neighbors", n_neighbors=10, n_init=5,
                          random_state=seed).fit(X).labels_
        sil[k] = (silhouette_score(fmap.features, G) if np.unique(G).size > 1 else -1.0, G)
    best = max(sil, key=lambda k: sil[k][0])
    out["graph silhouette"] = (best, sil[best][1])
    out["t graph silhouette"] = time.perf_counter() - t
    for k in sorted(ks):
        t = time.perf_counter()
        G = KernelKGroups(k, semimetric="nearest_neighbors", n_neighbors=10, n_init=5,
                          random_state=seed).fit(X).labels_
        out[f"t G{k}"] = time.perf_counter() - t
        E = g.grow(k)[0]
        out["G"][k], out["E"][k] = G, E
        out["cut G"][k], out["cut E"][k] = partition_cut(fmap, G, k), partition_cut(fmap, E, k)
    return out


def collect(sets, cache):
    done = {}
    if os.path.exists(cache):
        with open(cache, "rb") as f:
            done = pickle.load(f)
    for d in sets:
        key = (d.battery, d.name)
        if key in done:
            continue
        t = time.perf_counter()
        rec = {"n": len(d.X), "d": d.X.shape[1], "k": d.k, "y": d.y}
        rec.update(candidates(d.X))
        rec.update(peers(d.X))
        done[key] = rec
        print(f"{d.battery:7s} {d.name[:34]:34s} n={len(d.X):5d} k={d.k:2d} "
              f"point {rec['point'][0]:2d} default {rec['default'][0]:2d} "
              f"({time.perf_counter() - t:.1f} s)", flush=True)
        with open(cache, "wb") as f:
            pickle.dump(done, f)
    return done


# --------------------------------------------------------------------------- rules
def ari(rec, labels):
    s = rec["y"] >= 0
    return float(adjusted_rand_score(rec["y"][s], np.asarray(labels)[s]))


def within_share(P, G):
    table = np.zeros((P.max() + 1, G.max() + 1))
    np.add.at(table, (P, G), 1.0)
    return table.max(axis=1).sum() / len(P)


def joint(rec, floor, energy, ratio, balance=0.0, within=0.95, none_ratio=None):
    """The joint rule's labels on one record: the energy answer when its clusters lie
    within the graph's groups (share ``within``) and the smallest group holds less than
    ``balance / k_g``; else the graph's when its cut is below ``ratio`` times that of the
    energy partition of k_g (``none_ratio`` when the energy answer is k = 1)."""
    if "mu" not in rec:
        return rec[energy][1]
    kg = graph_k(rec["mu"], rec["gks"], floor)
    G, (ke, P) = rec["G"][kg], rec[energy]
    small = np.bincount(G).min() / len(G) < balance / kg
    if ke > 1 and small and within_share(np.asarray(P), G) >= within:
        return P
    c = ratio if ke > 1 or none_ratio is None else none_ratio
    if rec["cut G"][kg] < c * rec["cut E"][kg]:
        return G
    return P


def pipelines(rec):
    """Name -> labels of every pipeline on one record."""
    out = {p: rec[p] for p in ("HDBSCAN", "KMeans + silhouette", "GMM BIC")}
    out["energy (point rule)"] = rec["point"][1]
    out["energy (default)"] = rec["default"][1]
    for f in FLOORS:
        out[f"graph (floor {f})"] = (rec["G"][graph_k(rec["mu"], rec["gks"], f)]
                                     if "mu" in rec else rec["point"][1])
    out["graph silhouette"] = (rec["graph silhouette"][1] if "graph silhouette" in rec
                               else rec["point"][1])
    for f in FLOORS:
        for e in ("point", "default"):
            for c in RATIOS:
                out[f"joint ({f}, {e}, {c})"] = joint(rec, f, e, c)
    for b in BALANCES:
        for c in RATIOS:
            for f in (0.1, 0.2):
                out[f"joint ({f}, point, {c}, balance {b})"] = joint(
                    rec, f, "point", c, balance=b, none_ratio=0.5)
    out["joint (0.2, point, 1.0, balance 0.25, within 0.9)"] = joint(
        rec, 0.2, "point", 1.0, balance=0.25, within=0.9, none_ratio=0.5)
    out["joint (0.2, point, 1.0, balance 0.25, k=1 at 1.0)"] = joint(
        rec, 0.2, "point", 1.0, balance=0.25)
    out["joint (library)"] = rec["joint"][1]
    return out


def table(done, max_n):
    recs = {key: rec for key, rec in done.items() if rec["n"] <= max_n}
    scores = {key: {p: ari(rec, lab) for p, lab in pipelines(rec).items()}
              for key, rec in recs.items()}
    kg_cands = [p for p in next(iter(scores.values())) if p.startswith(("energy", "graph"))]
    for key, s in scores.items():
        s["oracle"] = max(s[p] for p in kg_cands)
    names = list(next(iter(scores.values())))
    batteries = sorted({b for b, _ in scores})
    rows = []
    for p in names:
        row = [p]
        for b in batteries:
            vals = [s[p] for (bb, _), s in scores.items() if bb == b]
            row.append(f"{np.mean(vals):.3f}")
        allv = [s[p] for s in scores.values()]
        ahead = sum(s[p] > s["HDBSCAN"] + 1e-9 for s in scores.values())
        behind = sum(s[p] < s["HDBSCAN"] - 1e-9 for s in scores.values())
        row += [f"{np.mean(allv):.3f}", f"{ahead} / {behind}"]
        rows.append(row)
    head = (["pipeline"] + [f"{b} ({sum(bb == b for bb, _ in scores)})" for b in batteries]
            + [f"all ({len(scores)})", "vs HDBSCAN ahead / behind"])
    return head, rows, scores


TOP_VARIANTS = 15
MAIN = ("HDBSCAN", "KMeans + silhouette", "GMM BIC", "energy (point rule)",
        "energy (default)", "graph (floor old)", "graph (floor 0.2)", "graph silhouette",
        "joint (library)", "oracle")


def timing(sets):
    """Seconds of ``choose_k(X, semimetric="auto")`` (the joint choice), of
    ``choose_k(X)`` (the energy default) and of HDBSCAN on each set, each after an
    untimed call of its kind (the numba kernels loaded)."""
    warm = np.random.default_rng(0).normal(size=(300, 2))
    choose_k(warm, semimetric="auto", random_state=0)
    rows = []
    for d in sets:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, tj = _timed(lambda: choose_k(d.X, range(1, 16), semimetric="auto",
                                            random_state=0))
            _, te = _timed(lambda: choose_k(d.X, range(1, 16), random_state=0))
            _, th = _timed(lambda: HDBSCAN().fit_predict(d.X))
        rows.append([d.battery, d.name, len(d.X), tj, te, th])
        print(f"{d.battery:7s} {d.name[:34]:34s} n={len(d.X):5d} joint {tj:6.2f} s  "
              f"choose_k(X) {te:6.2f} s  HDBSCAN {th:6.2f} s", flush=True)
    return rows


def timing_report(rows, command):
    tj = np.array([r[3] for r in rows])
    te = np.array([r[4] for r in rows])
    th = np.array([r[5] for r in rows])
    ratio = tj / te
    worst = sorted(rows, key=lambda r: -r[3])[:5]
    head = ["", "joint choice", "choose_k(X)", "HDBSCAN"]
    body = [["median seconds per set", f"{np.median(tj):.2f}", f"{np.median(te):.2f}",
             f"{np.median(th):.3f}"],
            ["largest seconds", f"{tj.max():.1f}", f"{te.max():.1f}", f"{th.max():.2f}"],
            ["sets over 15 s", str(int((tj > 15).sum())), str(int((te > 15).sum())),
             str(int((th > 15).sum()))]]
    return (f"# Time of the joint choice\n\n`{command}`\n\n{len(rows)} sets of up to "
            "5,000 points, each timed after an untimed call of its kind.\n\n"
            f"{markdown(head, body)}\n\nJoint choice / choose_k(X) per set: median "
            f"{np.median(ratio):.2f}, largest {ratio.max():.2f} "
            f"({rows[int(np.argmax(ratio))][1]}). The five slowest sets for the joint choice: "
            + ", ".join(f"{r[1]} ({r[2]} points, {r[3]:.1f} s)" for r in worst) + ".\n")


def set_rows(scores, done):
    head = ["battery", "set", "n", "d", "k", "joint chose"] + list(MAIN)
    rows = []
    for (b, name), s in scores.items():
        rec = done[(b, name)]
        j = rec["joint"]
        rows.append([b, name, str(rec["n"]), str(rec["d"]), str(rec["k"]),
                     f"{j[0]} {j[2]}"] + [f"{s[p]:.2f}" for p in MAIN])
    return head, rows


def report(done, max_n, command):
    head, rows, scores = table(done, max_n)
    main = [r for r in rows if r[0] in MAIN]
    main.sort(key=lambda r: MAIN.index(r[0]))
    variants = [r for r in rows if r[0].startswith("joint (") and r[0] != "joint (library)"]
    n_variants = len(variants)
    variants.sort(key=lambda r: -float(r[-2]))
    variants = variants[:TOP_VARIANTS]
    eh, er = set_rows(scores, done)
    return (f"# Nothing given: k and the semimetric from the data\n\n`{command}`\n\n"
            f"Mean ARI with the labels (scored points) per battery, sets of up to {max_n} "
            "points; the last column counts the sets where the pipeline's ARI is above / "
            "below HDBSCAN's.\n\n"
            f"{markdown(head, main)}\n\n## Variants of the joint rule\n\n"
            "joint (floor, energy answer, cut ratio[, balance b]): the graph's eigengap "
            "with zeros counted as `floor` of the smallest eigenvalue above them; the "
            "energy answer of the point rule (`point`) or of `choose_k(X)` as committed "
            "before (`default`); the graph's answer when its cut is below `ratio` times "
            "the energy partition's at its k; with `balance b`, the energy answer first "
            "when its clusters lie within the graph's groups and the smallest group holds "
            "less than b / k_g of the weight (and a ratio of 0.5 when the point rule "
            f"answers k = 1); the {TOP_VARIANTS} of largest mean ARI of the "
            f"{n_variants} variants.\n\n{markdown(head, variants)}\n\n"
            f"## Every set\n\n{markdown(eh, er)}\n")


def markdown(head, rows):
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


# --------------------------------------------------------------------------- scale
SCALE_HDBSCAN_MAX = 200_000


def _timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def scale_rows(sizes, moons_sizes):
    """Seconds and ARI with nothing given at the sizes users bring: three Gaussian blobs
    in 2-D (``KernelKGroups(n_clusters="auto", semimetric="auto")`` beside HDBSCAN), and
    two moons at k = 2 (``semimetric="auto"`` beside ``"nearest_neighbors"`` alone)."""
    from sklearn.datasets import make_blobs, make_moons

    warm = make_blobs(2000, 2, centers=3, random_state=1)[0]
    KernelKGroups("auto", semimetric="auto", random_state=0).fit(warm)
    rows = []
    for n in sizes:
        X, y = make_blobs(n, 2, centers=[[0, 0], [6, 0], [0, 6]], random_state=0)
        est, t = _timed(lambda: KernelKGroups("auto", semimetric="auto",
                                              random_state=0).fit(X))
        row = ["3 blobs, 2-D", f"{n:,}", "auto, auto", f"{t:.1f}",
               f"k={est.n_clusters_} {est.semimetric_}",
               f"{adjusted_rand_score(y, est.labels_):.3f}"]
        if n <= SCALE_HDBSCAN_MAX:
            lab, th = _timed(lambda: HDBSCAN().fit_predict(X))
            row += [f"{th:.1f}", f"{adjusted_rand_score(y, lab):.3f}", f"{t / th:.2f}"]
        else:
            row += ["-", "-", "-"]
        rows.append(row)
        print(" | ".join(row), flush=True)
    for n in moons_sizes:
        X, y = make_moons(n, noise=0.05, random_state=0)
        graph, tg = _timed(lambda: KernelKGroups(2, semimetric="nearest_neighbors",
                                                 random_state=0).fit(X))
        est, t = _timed(lambda: KernelKGroups(2, semimetric="auto", random_state=0).fit(X))
        rows.append(["two moons", f"{n:,}", "2, auto", f"{t:.1f}", f"{est.semimetric_}",
                     f"{adjusted_rand_score(y, est.labels_):.3f}", "-", "-",
                     f"{t / tg:.2f} (nearest_neighbors alone {tg:.1f} s)"])
        print(" | ".join(rows[-1]), flush=True)
    head = ["data", "n", "n_clusters, semimetric", "kgroups seconds", "chose", "kgroups ARI",
            "HDBSCAN seconds", "HDBSCAN ARI", "ratio"]
    return head, rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max-n", type=int, default=5000)
    ap.add_argument("--battery", nargs="*", default=list(_batteries.ALL))
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--report", action="store_true", help="read the cache only")
    ap.add_argument("--top", type=int, default=0, help="print only the best N rows by mean")
    ap.add_argument("--out")
    ap.add_argument("--scale", nargs="*", type=int, default=None,
                    help="only the rows at scale: sizes of the blobs (then --moons)")
    ap.add_argument("--moons", nargs="*", type=int, default=[1_000_000])
    ap.add_argument("--timing", action="store_true",
                    help="only time the joint choice, choose_k(X) and HDBSCAN per set")
    args = ap.parse_args()
    if args.timing:
        sets = [d for b in args.battery for d in _batteries.battery(b)
                if len(d.X) <= args.max_n]
        text = timing_report(timing(sets), "python " + shlex.join(sys.argv))
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        return
    if args.scale is not None:
        head, rows = scale_rows(args.scale, args.moons)
        text = (f"# Nothing given at scale\n\n`python {shlex.join(sys.argv)}`\n\n"
                f"{markdown(head, rows)}\n")
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        return
    os.makedirs(os.path.dirname(args.cache), exist_ok=True)
    if args.report:
        with open(args.cache, "rb") as f:
            done = pickle.load(f)
    else:
        sets = [d for b in args.battery for d in _batteries.battery(b)
                if len(d.X) <= args.max_n]
        done = collect(sets, args.cache)
    head, rows, _ = table(done, args.max_n)
    if args.top:
        rows = sorted(rows, key=lambda r: -float(r[-2]))[:args.top]
    print(markdown(head, rows))
    if args.out:
        with open(args.out, "w") as f:
            f.write(report(done, args.max_n, "python " + shlex.join(sys.argv)))


if __name__ == "__main__":
    main()
