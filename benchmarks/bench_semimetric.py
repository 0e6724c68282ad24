"""Which semimetric finds the clusters? The study behind ``semimetric="nearest_neighbors"``
and ``semimetric="auto"`` (issue 41).

Every labelled set of ``benchmarks/_batteries.py`` (four batteries: Gaussian settings,
real tables, shape sets, hard shape sets with noise and outliers) is clustered at its
true k by each method below, and scored by the adjusted Rand index (ARI) on its
labelled points (noise points, label -1, are clustered but not scored). Side by side in
one run:

``energy``              ``KernelKGroups(k, random_state=0)`` (the default semimetric)
``nearest_neighbors``   ``KernelKGroups(k, semimetric="nearest_neighbors")``
                        (``n_neighbors=10``), and ``nn=5, 15, 20, 30``
``auto``                ``KernelKGroups(k, semimetric="auto")``; its two candidates'
                        normalised cuts are kept, and the rule is evaluated offline for
                        other values of its constant (``auto, ratio r``)
``oracle``              the better of energy and nearest_neighbors on each set (uses the
                        labels: a ceiling, not a method)
variants of the graph   kgroups' embedding with one choice changed (written here, not
                        in kgroups): every point a node (no core points); weights 1 on
                        every edge of the symmetric graph ("connectivity"), on mutual
                        neighbours only, or 1 on mutual neighbours and 0.1 on edges only
                        one end chose, instead of the locally scaled weights (Zelnik-Manor
                        & Perona 2004); connectivity weights and every point a node (the
                        plain spectral embedding of the symmetric kNN graph); the rows
                        not normalised; the commute-time embedding cut to k - 1
                        eigenvectors; ``||e - e'||`` (alpha = 1) instead of its square
``gaussian (median)``   ``semimetric="gaussian"`` with sigma the median distance
peers                   scikit-learn's ``KMeans(n_init=10)``, ``GaussianMixture``,
                        ``SpectralClustering(affinity="nearest_neighbors")`` and, when
                        the ``genieclust`` package is installed (``bash
                        benchmarks/setup_semimetric.sh``), Genie (Gagolewski et al.
                        2016, Gini threshold 0.3)

The report: the summary per battery (mean ARI of every method, and wins / ties
(within 0.01) / losses against energy), the rule's constant against the batteries, the
cost of ``auto`` against the energy fit (seconds summed over each battery), and one row
per set.

Usage: python benchmarks/bench_semimetric.py [--battery NAME ...] [--only METHOD ...]
       [--seed 0] [--out FILE.md] [--json FILE.json] [--figure FILE.png]
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
import scipy.sparse as sp
from sklearn.cluster import KMeans, SpectralClustering
from sklearn.metrics import adjusted_rand_score
from sklearn.mixture import GaussianMixture
from sklearn.neighbors import NearestNeighbors

from kgroups import KernelKGroups

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _batteries import BATTERIES, battery  # noqa: E402
from _report import publish  # noqa: E402

TIE = 0.01
RATIOS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


# --------------------------------------------------------------------------- variants
def _variant_features(X, k, n_neighbors=10, weights="product", core=True,
                      embedding="normalised rows"):
    """The graph embedding of kgroups' nearest_neighbors semimetric with one choice
    changed (study only): the edges' weights instead of kgroups' local scaling
    (``"connectivity"``: 1 for every edge of the symmetric graph; ``"mutual"``: 1 for
    mutual neighbours only; ``"mutual + one-way"``: 1 for mutual neighbours, 0.1 where
    only one end chose the other), all points as nodes
    (``core=False``), and the embedding (``"rows as they are"``: psi without the rows
    normalised; ``"commute time"``: psi_c / sqrt(1 - lambda_c) without the constant
    eigenvector, the commute-time embedding cut to k - 1 columns)."""
    from kgroups._semimetrics import neighbors as nb

    U, node, wn = nb.distinct_rows(X, np.ones(X.shape[0]))
    keep = np.flatnonzero(nb.core_points(U, n_neighbors, minimum=k + 1)) if core else \
        np.arange(U.shape[0])
    V, n = U[keep], keep.size
    if weights == "product":
        A, _ = nb.knn_graph(V, n_neighbors)
    else:
        dist, idx = NearestNeighbors(n_neighbors=n_neighbors + 1).fit(V).kneighbors(V)
        dist, idx = dist[:, 1:], idx[:, 1:]
        val = np.ones_like(dist)
        D = sp.csr_matrix((val.ravel(), (np.repeat(np.arange(n), n_neighbors), idx.ravel())),
                          shape=(n, n))
        A = (D.minimum(D.T) if weights == "mutual" else D.maximum(D.T)).tocsr()
        if weights == "mutual + one-way":  # an edge only one end chose weighs 0.1
            both = D.minimum(D.T)
            A = (both + 0.1 * (A - both)).tocsr()
        A.eliminate_zeros()
        linked = np.asarray(A.sum(axis=1)).ravel() > 0  # mutual: some points have none
        if not linked.all():  # they are placed afterwards, as the sparse points are
            keep, V, A = keep[linked], V[linked], A[linked][:, linked]
            n = keep.size
    m = k + 1 if embedding == "commute time" else k
    psi, lam, _ = nb.walk_eigenvectors(V, A, wn[keep], m, np.random.default_rng(0))
    if embedding == "commute time":
        psi = psi[:, 1:] / np.sqrt(np.maximum(1.0 - lam[1:], 1e-12))
    elif embedding == "normalised rows":
        psi = nb.normalise_rows(psi)
    where = np.full(U.shape[0], -1)
    where[keep] = np.arange(n)
    out = np.empty((U.shape[0], psi.shape[1]))
    out[keep] = psi
    rest = np.flatnonzero(where < 0)
    if rest.size:
        nbr = NearestNeighbors(n_neighbors=n_neighbors).fit(V).kneighbors(
            U[rest], return_distance=False)
        out[rest] = psi[nbr].mean(axis=1)
        if embedding == "normalised rows":
            out[rest] = nb.normalise_rows(out[rest])
    return out[node]


def _variant(alpha=2.0, **kw):
    def fit(X, k):
        return KernelKGroups(k, alpha=alpha, random_state=0).fit_predict(
            _variant_features(X, k, **kw))
    return fit


def _median_distance(X, rng):
    idx = rng.choice(X.shape[0], min(X.shape[0], 2000), replace=False)
    Z = X[idx]
    d = np.sqrt(np.maximum(((Z[:, None] - Z[None]) ** 2).sum(-1), 0))
    return float(np.median(d[np.triu_indices(len(idx), 1)]))


def _genie():
    try:
        import genieclust
    except ModuleNotFoundError:
        return None
    return lambda X, k: genieclust.Genie(k, gini_threshold=0.3).fit_predict(X)


def _kg(**kw):
    return lambda X, k: KernelKGroups(k, random_state=0, **kw).fit_predict(X)


def methods():
    """name -> fit(X, k) -> labels, in the report's order."""
    out = {
        "energy": _kg(),
        "nearest_neighbors": _kg(semimetric="nearest_neighbors"),
        "auto": None,  # run with its record (run_auto)
    }
    for nn in (5, 15, 20, 30):
        out[f"nn={nn}"] = _kg(semimetric="nearest_neighbors", n_neighbors=nn)
    out.update({
        "all points nodes": _variant(core=False),
        "connectivity weights": _variant(weights="connectivity"),
        "mutual neighbours only": _variant(weights="mutual"),
        "mutual + one-way": _variant(weights="mutual + one-way"),
        "connectivity, all nodes": _variant(weights="connectivity", core=False),
        "rows as they are": _variant(embedding="rows as they are"),
        "commute time (k - 1)": _variant(embedding="commute time"),
        "alpha=1 on e": _variant(alpha=1.0),
        "gaussian (median)": lambda X, k: KernelKGroups(
            k, semimetric="gaussian", sigma=_median_distance(X, np.random.default_rng(0)),
            random_state=0).fit_predict(X),
        "KMeans": lambda X, k: KMeans(k, n_init=10, random_state=0).fit_predict(X),
        "GMM": lambda X, k: GaussianMixture(k, random_state=0).fit_predict(X),
        "spectral (sklearn)": lambda X, k: SpectralClustering(
            k, affinity="nearest_neighbors", n_neighbors=10, random_state=0).fit_predict(X),
    })
    genie = _genie()
    if genie is not None:
        out["Genie"] = genie
    return out


PEERS = ("KMeans", "GMM", "spectral (sklearn)", "Genie")


def run_auto(X, k):
    est = KernelKGroups(k, semimetric="auto", random_state=0).fit(X)
    c = est.semimetric_choice_
    return est.labels_, {"choice": c.semimetric, "cut_energy": c.normalized_cut["energy"],
                         "cut_nn": c.normalized_cut["nearest_neighbors"]}


# --------------------------------------------------------------------------- runs
def run_set(d, names, table):
    row = {"battery": d.battery, "name": d.name, "n": int(d.X.shape[0]),
           "d": int(d.X.shape[1]), "k": int(d.k), "ari": {}, "seconds": {}}
    mask = d.scored
    for name in names:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                if name == "auto":
                    labels, row["auto"] = run_auto(d.X, d.k)
                else:
                    labels = table[name](d.X, d.k)
                ari = float(adjusted_rand_score(d.y[mask], np.asarray(labels)[mask]))
            except Exception as exc:  # a peer that fails on a set scores nothing there;
                if name not in PEERS:   # the library failing is a defect, not a score
                    raise
                print(f"  {d.name}: {name} failed: {exc}", file=sys.stderr)
                ari = float("nan")
        row["seconds"][name] = time.perf_counter() - t0
        row["ari"][name] = ari
    return row


def with_derived(rows):
    """The oracle and the rule at other constants, from the recorded fits."""
    for r in rows:
        a = r["ari"]
        if "energy" in a and "nearest_neighbors" in a:
            a["oracle"] = max(a["energy"], a["nearest_neighbors"])
        if "auto" in r:
            rec = r["auto"]
            for ratio in RATIOS:
                pick = rec["cut_nn"] < ratio * rec["cut_energy"]
                a[f"auto, ratio {ratio:g}"] = a["nearest_neighbors"] if pick else a["energy"]
    return rows


# --------------------------------------------------------------------------- report
def summary(rows, names):
    bats = [b for b in BATTERIES if any(r["battery"] == b for r in rows)]
    head = ["method"] + [f"{b} (mean ARI)" for b in bats] + ["all (mean ARI)"] + \
        [f"{b}: vs energy" for b in bats]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name in names:
        cells = [name]
        for b in bats + [None]:
            v = [r["ari"].get(name, np.nan) for r in rows if b is None or r["battery"] == b]
            cells.append(f"{np.nanmean(v):.3f}" if np.isfinite(v).any() else "")
        for b in bats:
            sub = [r for r in rows if r["battery"] == b and name in r["ari"]]
            diff = np.array([r["ari"][name] - r["ari"]["energy"] for r in sub])
            cells.append(f"{(diff > TIE).sum()} / {(abs(diff) <= TIE).sum()} / "
                         f"{(diff < -TIE).sum()}" if name != "energy" else "")
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def cost(rows):
    lines = ["| battery | energy (s) | nearest_neighbors (s) | auto (s) | auto / energy |",
             "|---|---|---|---|---|"]
    for b in BATTERIES:
        sub = [r for r in rows if r["battery"] == b and "auto" in r["seconds"]]
        if not sub:
            continue
        e, g, a = (sum(r["seconds"][m] for r in sub)
                   for m in ("energy", "nearest_neighbors", "auto"))
        lines.append(f"| {b} | {e:.1f} | {g:.1f} | {a:.1f} | {a / e:.2f} |")
    return lines


def detail(rows, names):
    head = ["battery", "set", "n", "d", "k"] + names + ["auto chose", "cut ratio"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        rec = r.get("auto", {})
        ratio = (rec["cut_nn"] / rec["cut_energy"] if rec and rec["cut_energy"] > 0
                 else float("nan"))
        cells = [r["battery"], r["name"], str(r["n"]), str(r["d"]), str(r["k"])]
        cells += [f"{r['ari'].get(m, np.nan):.2f}" for m in names]
        cells += [rec.get("choice", ""), f"{ratio:.3f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def figure(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bats = [b for b in BATTERIES if any(r["battery"] == b for r in rows)]
    show = [m for m in ("energy", "nearest_neighbors", "auto", "oracle", "KMeans", "GMM",
                        "spectral (sklearn)", "Genie") if m in rows[0]["ari"]]
    fig, ax = plt.subplots(figsize=(9, 3.9))
    width = 0.8 / len(show)
    for j, m in enumerate(show):
        vals = [np.nanmean([r["ari"][m] for r in rows if r["battery"] == b]) for b in bats]
        ax.bar(np.arange(len(bats)) + j * width, vals, width, label=m)
    ax.set_xticks(np.arange(len(bats)) + 0.4 - width / 2, bats)
    ax.set_ylabel("mean ARI at the true k")
    ax.set_ylim(0, 1)
    ax.legend(ncol=8, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1),
              frameon=False)
    ax.set_title("Semimetrics on four batteries (benchmarks/bench_semimetric.py)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--battery", nargs="+", default=list(BATTERIES), choices=BATTERIES)
    p.add_argument("--only", nargs="+", default=None, help="methods to run")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out")
    p.add_argument("--json")
    p.add_argument("--figure")
    args = p.parse_args(argv)
    table = methods()
    names = args.only or list(table)
    t0 = time.perf_counter()
    rows = []
    for b in args.battery:
        for d in battery(b, seed=args.seed):
            rows.append(run_set(d, names, table))
            print(f"{b:7s} {d.name[:34]:34s} " + " ".join(
                f"{rows[-1]['ari'][m]:5.2f}" for m in names), flush=True)
    rows = with_derived(rows)
    shown = list(rows[0]["ari"])
    cmd = "python " + " ".join(shlex.quote(a) for a in ["benchmarks/bench_semimetric.py"]
                                + (argv if argv is not None else sys.argv[1:]))
    text = [f"# Semimetrics on four batteries\n", f"`{cmd}`\n",
            f"{len(rows)} sets at their true k, ARI on the labelled points; "
            f"{time.perf_counter() - t0:.0f} s on {platform.machine()}, "
            f"{os.cpu_count()} cores.\n", "## Summary\n", *summary(rows, shown), "",
            "## Cost (seconds summed over each battery, in this run)\n", *cost(rows), "",
            "## Every set\n", *detail(rows, shown)]
    out = "\n".join(text) + "\n"
    publish(out, args.out, args.json, {"command": cmd, "rows": rows})
    if args.figure:
        figure(rows, args.figure)


if __name__ == "__main__":
    main()
