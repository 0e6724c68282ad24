"""How often does each method pick the true number of clusters? (public API only)

Issue 13, item 3. For each of 26 synthetic settings with a known k (blobs of
varied k, spread and dimension, unequal sizes and spreads, elongated clusters,
and the papers' generators from :mod:`kgroups.datasets`), ``--seeds`` data sets
each (n = 200 points by default), every method picks k from ``1..10`` and the table gives the fraction of
data sets where it picked the true k:

``gap-pca``    :func:`kgroups.choose_k`, gap statistic over W (energy, alpha=1),
               reference uniform over the principal-axis box (B = ``--refs``)
``gap-box``    the same, reference uniform over the data's coordinate box
``gap-a2``     the same with alpha=2: the classical gap statistic (W = k-means'
               within sum of squares), PCA references
``eigengap``   :func:`kgroups.choose_k` ``method="eigengap"`` (energy, alpha=1),
               k in 2..10 (it cannot say k = 1; see the docs)
``silhouette`` scikit-learn ``KMeans(n_init=10)`` and the largest mean silhouette,
               k in 2..10 (the silhouette is undefined for k = 1: never picked)
``bic``        scikit-learn ``GaussianMixture`` (full covariances, ``n_init=2``)
               and the smallest BIC, k in 1..10

``--timing`` instead times fitting the whole k range on one data set (blobs):
one :class:`KernelKGroups` fit per k with ``n_init=5`` restarts (what
``choose_k`` does; the restarts share the kernel / the pass over the pairs),
against 5 separate single-start fits per k (the same starts, no sharing), one
single-start fit per k (the estimator's default), and a warm-start chain (each
k started from k-1's solution with the cluster of largest W split in two by a
2-cluster fit with 5 restarts): seconds and W's mean excess over the best W
found for each k. Best of 3 runs each (the first also compiles the numba
kernels). Timings are noisy on a shared machine; the ratios are measured in
one process.

Usage: python benchmarks/bench_choose_k.py [--seeds 3] [--n 200] [--refs 10]
       [--only NAME ...] [--rst]
       python benchmarks/bench_choose_k.py --timing [--n 300 3000]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import silhouette_score
from sklearn.mixture import GaussianMixture
from threadpoolctl import threadpool_limits

from kgroups import KernelKGroups, choose_k, total_energy
from kgroups import datasets as ds

K_RANGE = range(1, 11)


# --------------------------------------------------------------------------- settings
def _centres(rng, k, d, min_dist, box=10.0):
    """k centres in [-box, box]^d at least ``min_dist`` apart (rejection)."""
    for _ in range(10_000):
        c = rng.uniform(-box, box, (k, d))
        if k == 1 or min(np.linalg.norm(c[i] - c[j]) for i in range(k)
                         for j in range(i)) >= min_dist:
            return c
    raise RuntimeError(f"no {k} centres {min_dist} apart in d={d}")


def blobs(k, d, sd=1.0, min_dist=6.0, sizes=None, sds=None):
    def make(n, rng):
        c = _centres(rng, k, d, min_dist)
        m = sizes if sizes is not None else [n // k] * k
        m = [max(2, int(round(f * n))) for f in m] if sizes is not None else m
        s = sds if sds is not None else [sd] * k
        return np.vstack([rng.normal(c[j], s[j], (m[j], d)) for j in range(k)])
    return make


def elongated(k, d=2, ratio=6.0):
    """Gaussian clusters stretched by ``ratio`` along a random direction each."""
    def make(n, rng):
        c = _centres(rng, k, d, 9.0, box=12.0)
        out = []
        for j in range(k):
            Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
            scale = np.ones(d)
            scale[0] = ratio
            out.append(rng.normal(size=(n // k, d)) * scale * 0.6 @ Q.T + c[j])
        return np.vstack(out)
    return make


def uniform(d):
    return lambda n, rng: rng.random((n, d))


def paper(fn, **kw):
    """A generator of kgroups.datasets (the papers' data) taking ``n`` per class."""
    def make(n, rng):
        return fn(random_state=rng, **{key: (v(n) if callable(v) else v)
                                       for key, v in kw.items()})[0]
    return make


def settings():
    """``(name, true k, make(n, rng))`` for every setting."""
    half = lambda n: (n // 2, n // 2)  # noqa: E731
    return [
        ("gauss-1-d2", 1, blobs(1, 2)),
        ("gauss-1-d10", 1, blobs(1, 10)),
        ("uniform-1-d2", 1, uniform(2)),
        ("blobs-2-d2", 2, blobs(2, 2)),
        ("blobs-3-d2", 3, blobs(3, 2)),
        ("blobs-4-d2", 4, blobs(4, 2)),
        ("blobs-5-d2", 5, blobs(5, 2)),
        ("blobs-6-d2", 6, blobs(6, 2)),
        ("blobs-8-d2", 8, blobs(8, 2, min_dist=5.0)),
        ("blobs-3-d10", 3, blobs(3, 10)),
        ("blobs-5-d10", 5, blobs(5, 10)),
        ("blobs-4-d2-overlap", 4, blobs(4, 2, sd=1.6)),
        ("blobs-3-unequal-sizes", 3, blobs(3, 2, sizes=[0.1, 0.3, 0.6])),
        ("blobs-4-unequal-spread", 4, blobs(4, 2, sds=[0.4, 0.8, 1.2, 1.6], min_dist=7.0)),
        ("elongated-3-d2", 3, elongated(3)),
        ("elongated-4-d3", 4, elongated(4, d=3)),
        ("cigars-2 (ICML)", 2, paper(ds.make_cigars, n=half)),
        ("circles-2 (ICML)", 2, paper(ds.make_concentric_circles, n=half)),
        ("spirals-2 (arXiv)", 2, paper(ds.make_spirals, n=half)),
        ("normal-1d-2 (TPAMI 1a)", 2, paper(ds.make_normal_1d, n=lambda n: n)),
        ("lognormal-1d-2 (TPAMI 1b)", 2, paper(ds.make_lognormal_1d, n=lambda n: n)),
        ("meanshift-2-d10 (TPAMI 56)", 2, paper(ds.make_mean_shift_gaussians,
                                                n=lambda n: n)),
        ("unequal-cov-2-d10 (TPAMI 57)", 2,
         paper(ds.make_unequal_covariance_gaussians, n=lambda n: n)),
        ("gauss-2-d20 (TPAMI 58)", 2, paper(ds.make_gaussians_20d, n=lambda n: n)),
        ("unbalanced-2-d4 (TPAMI 59)", 2,
         paper(ds.make_unbalanced_gaussians, m=lambda n: n // 4, N=lambda n: n // 2)),
        ("grid-6 (TPAMI 3e)", 6, paper(ds.make_grid_blobs, n_clusters=6,
                                       n_per_cluster=lambda n: n // 6)),
    ]


# --------------------------------------------------------------------------- methods
def silhouette_k(X, seed):
    scores = [silhouette_score(X, KMeans(k, n_init=10, random_state=seed).fit_predict(X))
              for k in K_RANGE if k >= 2]
    return 2 + int(np.argmax(scores))


def bic_k(X, seed):
    bic = [GaussianMixture(k, n_init=2, random_state=seed).fit(X).bic(X) for k in K_RANGE]
    return 1 + int(np.argmin(bic))


def methods(refs):
    return {
        "gap-pca": lambda X, s: choose_k(X, K_RANGE, n_refs=refs, n_init=3, random_state=s).k,
        "gap-box": lambda X, s: choose_k(X, K_RANGE, n_refs=refs, n_init=3, reference="box",
                                         random_state=s).k,
        "gap-a2": lambda X, s: choose_k(X, K_RANGE, alpha=2.0, n_refs=refs, n_init=3,
                                        random_state=s).k,
        "eigengap": lambda X, s: choose_k(X, range(2, 11), method="eigengap").k,
        "silhouette": silhouette_k,
        "bic": bic_k,
    }


def study(n, seeds, refs, only=None):
    """``{setting: {method: [picked k per seed]}}`` and the true k of each setting."""
    meth = methods(refs)
    picked, truth = {}, {}
    for name, k, make in settings():
        if only and not any(o in name for o in only):
            continue
        truth[name] = k
        picked[name] = {m: [] for m in meth}
        t0 = time.perf_counter()
        for seed in range(seeds):
            X = make(n, np.random.default_rng(1000 * seed + k))
            X = X if X.ndim == 2 else X[:, None]
            for m, fn in meth.items():
                picked[name][m].append(fn(X, seed))
        print(f"# {name:30s} true k={k}  "
              + "  ".join(f"{m}={v}" for m, v in picked[name].items())
              + f"  ({time.perf_counter() - t0:.0f} s)", flush=True)
    return picked, truth


def table(picked, truth, rst=False):
    meth = list(next(iter(picked.values())))
    rows = [[name, str(truth[name])]
            + [f"{np.mean(np.array(v[m]) == truth[name]):.2f}" for m in meth]
            for name, v in picked.items()]
    rows.append(["all settings (mean)", ""]
                + [f"{np.mean([np.mean(np.array(v[m]) == truth[s]) for s, v in picked.items()]):.2f}"
                   for m in meth])
    head = ["setting", "true k"] + meth
    widths = [max(len(r[i]) for r in rows + [head]) for i in range(len(head))]
    fmt = lambda r: "  ".join(c.ljust(w) for c, w in zip(r, widths))  # noqa: E731
    if rst:
        rule = "  ".join("=" * w for w in widths)
        return "\n".join([rule, fmt(head), rule] + [fmt(r) for r in rows[:-1]] + [
            "  ".join("-" * w for w in widths), fmt(rows[-1]), rule])
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in rows])


# --------------------------------------------------------------------------- timing
def _warm_chain(X, n_init, seed):
    """k-1's solution with its cluster of largest W split by a 2-cluster fit."""
    rng = np.random.default_rng(seed)
    labels, W = np.zeros(len(X), dtype=np.int64), [total_energy(X)]
    for k in K_RANGE[1:]:
        members = [np.flatnonzero(labels == j) for j in range(k - 1)]
        j = int(np.argmax([total_energy(X[m]) if m.size > 1 else -1.0 for m in members]))
        sub = KernelKGroups(2, n_init=n_init, random_state=int(rng.integers(2**31))
                            ).fit(X[members[j]]).labels_
        init = labels.copy()
        init[members[j][sub == 1]] = k - 1
        est = KernelKGroups(k, init=init).fit(X)
        labels = est.labels_
        W.append(est.within_energy_)
    return np.array(W)


def timing(ns):
    for n in ns:
        rng = np.random.default_rng(0)
        X = blobs(5, 5, sd=1.5)(n, rng)
        runs = {
            "one fit per k, n_init=5 (choose_k)": lambda: [
                KernelKGroups(k, n_init=5, random_state=k).fit(X).within_energy_
                for k in K_RANGE],
            "5 separate 1-start fits per k": lambda: [
                min(KernelKGroups(k, random_state=100 * k + r).fit(X).within_energy_
                    for r in range(5)) for k in K_RANGE],
            "1 fit per k, n_init=1 (default)": lambda: [
                KernelKGroups(k, random_state=k).fit(X).within_energy_ for k in K_RANGE],
            "warm-start chain (split, 5 restarts)": lambda: _warm_chain(X, 5, 0),
        }
        res = {}
        for name, fn in runs.items():  # best of 3 (the first also compiles)
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                W = np.asarray(fn())
                times.append(time.perf_counter() - t0)
            res[name] = (min(times), W)
        best = np.min([W for _, W in res.values()], axis=0)
        base = res["one fit per k, n_init=5 (choose_k)"][0]
        engine = KernelKGroups(2).fit(X).engine_
        print(f"\nn={n}, D=5, 5 blobs, k = 1..10, engine={engine!r}")
        for name, (t, W) in res.items():
            print(f"  {name:40s} {t:7.2f} s  ({t / base:4.2f} x)  mean excess of W over the "
                  f"best: {100 * np.mean(W / best - 1):5.2f}%")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--n", type=int, nargs="+", default=None)
    ap.add_argument("--refs", type=int, default=10)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--rst", action="store_true", help="print the table as reStructuredText")
    ap.add_argument("--timing", action="store_true")
    args = ap.parse_args()
    if args.timing:
        timing(args.n or [300, 3000])
        return
    n = (args.n or [200])[0]
    t0 = time.perf_counter()
    with threadpool_limits(1):  # BLAS threads on small matrices only oversubscribe
        picked, truth = study(n, args.seeds, args.refs, args.only)
    print(f"\nfraction of {args.seeds} data sets (n={n}) where the method picked the true k; "
          f"k in 1..10; {time.perf_counter() - t0:.0f} s\n")
    print(table(picked, truth, rst=args.rst))


if __name__ == "__main__":
    main()
