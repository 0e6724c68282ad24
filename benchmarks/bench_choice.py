"""The choice of k and of the semimetric from the data, on every battery, split into a
development and an evaluation half (issue 55).

Every labelled set of ``benchmarks/_batteries.py`` of up to ``--max-n`` points (5,000)
but the curve draws and the outside suite (:data:`STUDIED`; ``bench_outside.py`` judges
those, the suite's sets all of its development half) belongs to one half by a fixed hash
of its battery and name (:func:`half`): rules and constants are decided on the
development half; the evaluation half only reports.

**Collect** (slow, cached in ``--cache``, resumable): per set, the peers (HDBSCAN's
defaults; ``KMeans(k, n_init=10)`` for k = 2..15 with the k of largest silhouette;
``GaussianMixture(k)`` for k = 1..15 with the least BIC), the yardstick curve (the ARI
of ``KernelKGroups(k, random_state=0)`` for k = 2..15: a chosen k is **useful** when
its fit reaches 0.75 of the curve's best), the energy candidate's fits of k = 2..15
(the energy rule's fits: five kernel k-means++ starts and a split of the fit of
k - 1) with their silhouettes, the graph
candidate (the 10-nearest-neighbour graph's walk eigenvalues and the graph
semimetric's fits of k = 2..15) with the normalised cuts of both candidates' fits on
that graph, the stability of both semimetrics' fits at the two candidates' k under
resampling (:func:`stability`), and the library's own answers (``choose_k(X)``, its
point rule, ``choose_k(X, semimetric="auto")``) with their seconds.

**Library** (``--library``): the library's answers again, with the code as it is.
**Seeds** (``--seeds``): the k of ``choose_k(X)`` and of ``KernelKGroups(n_clusters="auto",
semimetric="auto")`` for every ``random_state`` of :data:`SEEDS` (cached apart, in
``--seeds-cache``): whether the answer hangs on the seed.
**Report** (``--report``), per battery group and half: the mean ARI of every pipeline,
the better-candidate bound and the oracle (the best of every kgroups fit per set),
and the k chosen, useful / exact; "before" columns where the cache holds the answers
of the library at commit b3fd664. ``bench_arbiter.py`` compares the arbiter with
other yardsticks on the same cache.

Usage: python bench_choice.py [--max-n 5000] [--battery NAME ...] [--cache FILE]
       [--library [--keep-previous]] [--seeds [--seeds-cache FILE]]
       [--report] [--out FILE.md]
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
import warnings
import zlib

import numpy as np
from sklearn.cluster import HDBSCAN, KMeans
from sklearn.metrics import adjusted_rand_score, silhouette_score
from sklearn.mixture import GaussianMixture

import _batteries
from kgroups import KernelKGroups, choose_k

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.path.join(HERE, ".data", "choice.pkl")
SEEDS_CACHE = os.path.join(HERE, ".data", "choice_seeds.pkl")
SEEDS = (0, 1, 2, 3, 4)
STUDIED = tuple(b for b in _batteries.ALL if b not in ("curves", "outside"))
KS = np.arange(2, 16)
USEFUL_SHARE = 0.75
NO_SIGNAL_ARI = 0.10
UNSCORED = -2          # a candidate's label of a row the choice did not run on
N_NEIGHBORS = 10


def half(battery, name):
    """``"dev"`` or ``"eval"``: the parity of the CRC-32 of ``battery/name``.

    >>> half("shapes", "moons"), half("shapes", "moons noisy")
    ('dev', 'eval')
    """
    return "dev" if zlib.crc32(f"{battery}/{name}".encode()) % 2 == 0 else "eval"


def ari(y, labels):
    """The adjusted Rand index on the labelled rows (``y >= 0``) that ``labels`` label."""
    labels = np.asarray(labels)
    s = (y >= 0) & (labels != UNSCORED)
    return float(adjusted_rand_score(y[s], labels[s]))


# --------------------------------------------------------------------------- collect
def _timed(fn):
    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn()
    return out, time.perf_counter() - t


def peers(X):
    out = {}
    out["HDBSCAN"], out["t HDBSCAN"] = _timed(lambda: HDBSCAN().fit_predict(X))

    def km():
        lab = {k: KMeans(k, n_init=10, random_state=0).fit_predict(X) for k in KS}
        return lab[max(lab, key=lambda k: silhouette_score(X, lab[k]))]

    def gmm():
        fits = {k: GaussianMixture(k, random_state=0, reg_covar=1e-6).fit(X)
                for k in range(1, 16)}
        return fits[min(fits, key=lambda k: fits[k].bic(X))].predict(X)

    out["KMeans + silhouette"], out["t KMeans + silhouette"] = _timed(km)
    out["GMM BIC"], out["t GMM BIC"] = _timed(gmm)
    return out


def stability(X, k, semimetric, seed, n_splits=3):
    """Agreement of a semimetric's k-cluster partitions under resampling (Lange, Roth,
    Braun & Buhmann 2004): the points split at random into halves A and B, each half
    fitted, each half's points labelled by the other half's fit (``predict``), and the
    adjusted Rand index of those labels with the half's own fit; the mean over both
    halves of ``n_splits`` splits."""
    rng = np.random.default_rng(seed)
    n, vals = X.shape[0], []
    for _ in range(n_splits):
        perm = rng.permutation(n)
        A, B = np.sort(perm[:n // 2]), np.sort(perm[n // 2:])
        fits = []
        for part in (A, B):
            est = KernelKGroups(int(k), semimetric=semimetric, n_neighbors=N_NEIGHBORS,
                                n_init=3, random_state=int(rng.integers(2**31 - 1)))
            fits.append(est.fit(X[part]))
        for (own, other, part) in ((fits[0], fits[1], A), (fits[1], fits[0], B)):
            vals.append(adjusted_rand_score(own.labels_, other.predict(X[part])))
    return float(np.mean(vals))


def energy_fits(X):
    """The energy rule's fits of k = 2..15 of X (five kernel k-means++ starts and a split
    of the fit of k - 1): labels, W and the points' silhouettes."""
    from kgroups._choose_k.fits import Fits, Setting

    n_distinct = np.unique(X, axis=0).shape[0]
    f = Fits(X, np.ones(len(X)), Setting(), seed=0)
    out = {}
    for k in KS:
        if k >= n_distinct:
            break
        lab, W = f.grow(int(k))
        out[int(k)] = {"labels": lab, "W": W,
                       "sil points": f.point_silhouettes(int(k)).astype(np.float32)}
    return out


def graph_fits(X, fits_e):
    """The neighbourhood graph (eigenvalues of the walk's Laplacian) and the graph
    semimetric's fits of k = 2..15, with the normalised cuts of both candidates'."""
    from kgroups._semimetrics.auto import partition_cut
    from kgroups._semimetrics.neighbors import NeighborGraphMap

    w = np.ones(len(X))
    if np.unique(X, axis=0).shape[0] <= N_NEIGHBORS + 1:
        return None
    fmap = NeighborGraphMap.fit(X, w, n_neighbors=N_NEIGHBORS, n_clusters=int(KS[-1]) + 1,
                                random_state=0, owner="study")
    out = {"mu": np.clip(1.0 - fmap.eigenvalues, 0.0, None),
           "n_components": fmap.n_components, "fits": {}}
    for k in KS:
        est = KernelKGroups(int(k), semimetric="nearest_neighbors", n_neighbors=N_NEIGHBORS,
                            n_init=5, random_state=0)
        try:
            G = est.fit(X).labels_
        except ValueError:
            break
        rec = {"labels": G, "cut": partition_cut(fmap, G, int(k))}
        if int(k) in fits_e:
            rec["cut energy"] = partition_cut(fmap, fits_e[int(k)]["labels"], int(k))
        out["fits"][int(k)] = rec
    return out


def _rows(labels, sample, n):
    """A candidate's labels on every row: those of the rows the choice ran on (``sample``:
    the distinct rows less lone outliers; None: every row), ``UNSCORED`` elsewhere."""
    if sample is None:
        return labels
    out = np.full(n, UNSCORED, dtype=np.int64)
    out[sample] = labels
    return out


def library(X, y=None, k_true=None):
    """The library's answers: ``choose_k(X)`` (energy), the joint choice with its two
    candidates, ``KernelKGroups(n_clusters="auto", semimetric="auto")`` (k = 1..K_MAX,
    then the fit of X from the choice's labels: what a user gets), and
    ``semimetric="auto"`` at the true k, with their seconds."""
    out = {}
    r, out["t default"] = _timed(lambda: choose_k(X, range(1, 16), random_state=0))
    out["default"] = (r.k, r.labels)
    j, out["t joint"] = _timed(lambda: choose_k(X, range(1, 16), semimetric="auto",
                                                random_state=0))
    out["joint"] = (j.k, j.labels, j.semimetric)
    cand = j.candidates or {}
    out["point"] = (cand["energy"].k, _rows(cand["energy"].labels, j.sample, len(X))) \
        if "energy" in cand else (j.k, j.labels)
    if "nearest_neighbors" in cand:
        out["graph rule"] = (cand["nearest_neighbors"].k,
                             _rows(cand["nearest_neighbors"].labels, j.sample, len(X)))
    est, out["t estimator"] = _timed(lambda: KernelKGroups(
        "auto", semimetric="auto", random_state=0).fit(X))
    out["estimator"] = (est.n_clusters_, est.labels_)
    if k_true is not None and k_true < len(X):
        est, out["t auto at k"] = _timed(lambda: KernelKGroups(
            k_true, semimetric="auto", random_state=0).fit(X))
        out["auto at k"] = (est.labels_, est.semimetric_)
    return out


def collect_one(d):
    rec = {"battery": d.battery, "name": d.name, "half": half(d.battery, d.name),
           "n": len(d.X), "d": d.X.shape[1], "k": d.k, "y": d.y}
    t0 = time.perf_counter()
    rec["curve"] = {int(k): ari(d.y, KernelKGroups(int(k), random_state=0).fit(d.X).labels_)
                    for k in KS if k < len(d.X)}
    rec["energy"], rec["t energy fits"] = _timed(lambda: energy_fits(d.X))
    rec["graph"], rec["t graph fits"] = _timed(lambda: graph_fits(d.X, rec["energy"]))
    rec["new"] = library(d.X, d.y, d.k)
    rec.update(peers(d.X))
    ks = {rec["new"]["point"][0], rec["new"]["joint"][0]} - {1}
    if rec["graph"] is not None:
        from kgroups._choose_k.constants import COMPONENT_FLOOR
        from kgroups._stats.criteria import log_eigengaps
        mu = rec["graph"]["mu"]
        gaps = log_eigengaps(mu, KS[KS <= max(10, 2 * rec["new"]["point"][0])],
                             COMPONENT_FLOOR)
        rec["k graph"] = int(KS[int(np.nanargmax(gaps))])
        ks.add(rec["k graph"])
    rec["stability"] = {}
    for k in sorted(ks):
        for s in ("energy", "nearest_neighbors"):
            if s == "nearest_neighbors" and rec["graph"] is None:
                continue
            try:
                rec["stability"][(s, k)], _ = _timed(lambda: stability(d.X, k, s, seed=k))
            except ValueError:
                pass
    rec["t collect"] = time.perf_counter() - t0
    return rec


def collect(sets, cache):
    done = _load(cache)
    for d in sets:
        key = (d.battery, d.name)
        if key in done:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            rec = collect_one(d)
        done[key] = rec
        print(f"{d.battery:8s} {d.name[:34]:34s} {rec['half']:4s} n={rec['n']:5d} "
              f"k={d.k:2d} default {rec['new']['default'][0]:2d} joint "
              f"{rec['new']['joint'][0]:2d} {rec['new']['joint'][2][:6]} "
              f"({rec['t collect']:.1f} s)",
              flush=True)
        _dump(cache, done)
    return done


def relibrary(sets, cache, keep_previous=False):
    """``--library``: the library's answers again (the code as it is now), kept beside
    the slow parts of each record; with ``keep_previous`` the answers they replace are
    kept as ``"previous"`` (the report's "previous" rows: an A/B of a change)."""
    with open(cache, "rb") as f:
        done = pickle.load(f)
    for d in sets:
        key = (d.battery, d.name)
        if key not in done:
            continue
        if keep_previous and "new" in done[key]:
            done[key]["previous"] = done[key]["new"]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            done[key]["new"] = library(d.X, d.y, d.k)
        new = done[key]["new"]
        print(f"{d.battery:8s} {d.name[:34]:34s} default {new['default'][0]:2d} joint "
              f"{new['joint'][0]:2d} {new['joint'][2][:6]} ({new['t joint']:.1f} s)", flush=True)
        _dump(cache, done)


def _load(path):
    """The pickled dict at ``path``; empty where there is none yet."""
    if not os.path.exists(path):
        return {}
    with open(path, "rb") as f:
        return pickle.load(f)


def _dump(path, done):
    """Pickle ``done`` to ``path`` whole or not at all (a run cut off keeps the last)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "wb") as f:
        pickle.dump(done, f)
    os.replace(path + ".tmp", path)


def _store(path, key, value):
    """``path[key] = value`` in a pickled dict, under a lock (runs over several
    batteries may share the file)."""
    import fcntl

    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = _load(path)
        done[key] = value
        _dump(path, done)


def seeds(sets, path):
    """``--seeds``: per set, ``{seed: (k of choose_k(X), k of n_clusters="auto")}`` for
    every seed of :data:`SEEDS`, with the code as it is (resumable)."""
    for d in sets:
        key = (d.battery, d.name)
        if key in _load(path):          # done, here or by a run beside this one
            continue
        t, ks = time.perf_counter(), {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for s in SEEDS:
                ks[s] = (choose_k(d.X, range(1, 16), random_state=s).k, KernelKGroups(
                    "auto", semimetric="auto", random_state=s).fit(d.X).n_clusters_)
        _store(path, key, ks)
        print(f"{d.battery:8s} {d.name[:34]:34s} choose_k {[k for k, _ in ks.values()]} "
              f"auto {[k for _, k in ks.values()]} ({time.perf_counter() - t:.1f} s)",
              flush=True)


def seeds_report(done, per_seed, cols):
    """The table of :func:`seeds`: per pipeline, group and half, the sets whose k is one
    for every seed; then the sets where it is not, with their k by seed."""
    text = ["", f"The same k for every `random_state` in {list(SEEDS)} (`--seeds`):", "",
            "| pipeline | " + " | ".join(f"{g}, {h}" for g, h in cols) + " |",
            "|" + "---|" * (len(cols) + 1)]
    varied = []
    for i, p in enumerate(("choose_k(X)", "n_clusters='auto'")):
        cells = [p]
        for g, h in cols:
            keys = [key for key, rec in done.items() if key in per_seed and rec["half"] == h
                    and GROUPS[g](rec["battery"])]
            same = [len({ks[i] for ks in per_seed[key].values()}) == 1 for key in keys]
            cells.append(f"{sum(same)} / {len(keys)}")
            varied += [f"{p} on {key[0]} / {key[1]} ({h}, {done[key]['k']} labels): k = "
                       f"{[ks[i] for ks in per_seed[key].values()]}"
                       for key, s in zip(keys, same) if not s]
        text.append("| " + " | ".join(cells) + " |")
    return text + ([""] + [f"- {v}" for v in varied] if varied else [])


# --------------------------------------------------------------------------- report
TABLES = ("tables", "uci", "ztables", "keel")
GROUPS = {"real tables": lambda b: b in TABLES, "shapes and sets": lambda b: b not in TABLES}


def useful(rec, k, labels=None):
    """Usefulness: the default fit at k reaches 0.75 of
    the curve's best ARI (any k where no k reaches 0.10; k = 1 never otherwise); past
    the curve's k (n_clusters='auto' compares up to 30), the pipeline's own ``labels``."""
    best = max(rec["curve"].values())
    if best < NO_SIGNAL_ARI:
        return True
    at = rec["curve"].get(k, -1.0 if labels is None or k == 1 else ari(rec["y"], labels))
    return k != 1 and at >= USEFUL_SHARE * best


def pipelines(rec):
    """Name -> (labels, k) of every pipeline of one record."""
    new = rec["new"]
    out = {p: (rec[p], len(np.unique(rec[p][rec[p] >= 0]))) for p in
           ("HDBSCAN", "KMeans + silhouette", "GMM BIC")}
    out["energy rule"] = new["point"][::-1]
    out["graph rule"] = new.get("graph rule", new["point"])[::-1]
    out["choose_k(X)"] = new["default"][::-1]
    out["nothing given"] = (new["joint"][1], new["joint"][0])
    if "estimator" in new:
        out["n_clusters='auto' fit"] = new["estimator"][::-1]
    if "default" in rec:  # the answers of the library before (commit b3fd664)
        out["before: choose_k(X)"] = rec["default"][::-1]
        out["before: nothing given"] = (rec["joint"][1], rec["joint"][0])
    if "previous" in rec:  # the answers replaced by the last --library --keep-previous
        out["previous: choose_k(X)"] = rec["previous"]["default"][::-1]
        out["previous: nothing given"] = (rec["previous"]["joint"][1],
                                          rec["previous"]["joint"][0])
        if "estimator" in rec["previous"]:
            out["previous: n_clusters='auto' fit"] = rec["previous"]["estimator"][::-1]
    return out


def scores(rec):
    y = rec["y"]
    out = {p: ari(y, lab) for p, (lab, _) in pipelines(rec).items()}
    out["better candidate"] = max(out["energy rule"], out["graph rule"])
    fits = [v["labels"] for v in rec["energy"].values()]
    if rec["graph"] is not None:
        fits += [v["labels"] for v in rec["graph"]["fits"].values()]
    out["oracle (every fit)"] = max([out["better candidate"]] + [ari(y, f) for f in fits])
    if "auto at k" in rec["new"]:
        out["auto at the true k"] = ari(y, rec["new"]["auto at k"][0])
    return out


def report(done, out=None, seeds_cache=SEEDS_CACHE):
    rows = {}
    for rec in done.values():
        if "new" not in rec:
            continue
        for g, sel in GROUPS.items():
            if sel(rec["battery"]):
                rows.setdefault((g, rec["half"]), []).append(rec)
    cols = [(g, h) for g in GROUPS for h in ("dev", "eval")]
    head = ["pipeline"] + [f"{g}, {h} ({len(rows.get((g, h), []))})" for g, h in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    names = list(scores(next(iter(rows.values()))[0]))
    for p in names:
        cells = [p]
        for c in cols:
            vals = [scores(r).get(p) for r in rows.get(c, [])]
            vals = [v for v in vals if v is not None]
            part = f" ({len(vals)} sets)" if 0 < len(vals) < len(rows.get(c, [])) else ""
            cells.append(f"{np.mean(vals):.3f}{part}" if vals else "-")
        lines.append("| " + " | ".join(cells) + " |")
    text = ["# The choice of k and of the semimetric, development and evaluation halves", "",
            "`python benchmarks/bench_choice.py` (collect), `--library` (the library's "
            "answers of the code as it is), `--report --out benchmarks/results/choice.md`.",
            "", "Mean ARI with the labels (scored points), sets of up to 5,000 points "
            "(*nothing given*: the labels of `choose_k(X, range(1, 16), "
            "semimetric=\"auto\")`; *n_clusters='auto' fit*: `KernelKGroups(n_clusters="
            "\"auto\", semimetric=\"auto\")`, k = 1..30, its `labels_` the fit from the "
            "choice's labels in the geometry where k was found):", ""]
    text += lines
    text += ["", "A chosen k is **useful** when the default fit at that k reaches 0.75 of "
             "the best ARI over k = 2..15; exact when it is the number of labels "
             "(*energy rule*: the joint choice's energy candidate, which is what "
             "choose_k(X) answers" + ("; *previous*: the answers that the last `--library "
                                      "--keep-previous` replaced" if any(
                                          "previous" in r for r in done.values()) else "")
             + "):", ""]
    head = ["k of"] + [f"{g}, {h}" for g, h in cols]
    text += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    have = pipelines(next(iter(rows.values()))[0])
    for p in ("choose_k(X)", "energy rule", "previous: choose_k(X)", "before: choose_k(X)",
              "nothing given", "n_clusters='auto' fit", "previous: n_clusters='auto' fit",
              "previous: nothing given", "KMeans + silhouette", "GMM BIC"):
        if p not in have:
            continue
        cells = [p]
        for c in cols:
            recs = [r for r in rows.get(c, []) if p in pipelines(r)]
            ks = [pipelines(r)[p][1] for r in recs]
            u = sum(useful(r, k, pipelines(r)[p][0]) for r, k in zip(recs, ks))
            e = sum(k == r["k"] for r, k in zip(recs, ks))
            cells.append(f"{u} useful, {e} exact / {len(recs)}")
        text.append("| " + " | ".join(cells) + " |")
    secs = [rec["new"]["t joint"] for rec in done.values() if "new" in rec]
    fit = [rec["new"]["t estimator"] for rec in done.values() if "t estimator" in rec.get(
        "new", {})]
    text += ["", f"Seconds of the joint choice per set: median {np.median(secs):.1f}, "
             f"largest {max(secs):.1f}" + (f"; of n_clusters='auto' (the choice and the fit): "
                                           f"median {np.median(fit):.1f}, largest "
                                           f"{max(fit):.1f}" if fit else "")
             + " (n up to 5,000, this machine)."]
    if os.path.exists(seeds_cache):
        text += seeds_report(done, _load(seeds_cache), cols)
    text = "\n".join(text) + "\n"
    print(text)
    if out:
        with open(out, "w") as f:
            f.write(text)


def sets_of(batteries, max_n):
    out = []
    for b in batteries:
        out += [d for d in _batteries.battery(b) if len(d.X) <= max_n]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-n", type=int, default=5000)
    ap.add_argument("--battery", nargs="+", default=list(STUDIED), choices=_batteries.ALL)
    ap.add_argument("--cache", default=CACHE)
    ap.add_argument("--only", nargs="*", default=None, help="set names to collect")
    ap.add_argument("--library", action="store_true",
                    help="the library's answers again, with the code as it is")
    ap.add_argument("--keep-previous", action="store_true",
                    help="with --library: keep the answers replaced, as 'previous'")
    ap.add_argument("--seeds", action="store_true",
                    help="the k of every random_state of SEEDS, into --seeds-cache")
    ap.add_argument("--seeds-cache", default=SEEDS_CACHE)
    ap.add_argument("--report", action="store_true")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if args.report:
        done = {key: rec for key, rec in _load(args.cache).items()
                if rec["battery"] in args.battery}
        report(done, args.out, args.seeds_cache)
        return 0
    sets = sets_of(args.battery, args.max_n)
    if args.only:
        sets = [d for d in sets if d.name in args.only]
    if args.library:
        relibrary(sets, args.cache, args.keep_previous)
        return 0
    if args.seeds:
        seeds(sets, args.seeds_cache)
        return 0
    collect(sets, args.cache)
    return 0


if __name__ == "__main__":
    sys.exit(main())
