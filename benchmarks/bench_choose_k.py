"""How often does each method of ``kgroups.choose_k`` pick the true k? (public API only)

Issue 28. Every method and decision rule of :func:`kgroups.choose_k` (energy
semimetric, alpha = 1, k from 1 to 10) runs on a battery of synthetic settings with
a known k, ``--draws`` random data sets each, and on the bundled real tables
(z-scored; k = the number of classes, which need not be what the data show; their
draws change only choose_k's random state):

``gap:<rule>``        the gap statistic (B = ``--refs`` PCA-box references) with each
                      decision rule of R's ``cluster::maxSE``
``ps``                prediction strength (cutoff 0.8)
``silhouette``        the silhouette on the semimetric of the data's fits (k >= 2)
``eigengap``          the eigengap of the energy kernel's random-walk Laplacian (k >= 2)
``auto (default)``    ``choose_k(X, range(1, 11))``: the energy rule (is there
                      structure, the silhouette, the split test; the rescaled
                      geometries when X's own shows none)
``KMeans + silhouette``
                      scikit-learn ``KMeans(n_init=10)``, the k of largest silhouette
                      over 2..10 (the recipe a scikit-learn user tries first)
``GMM BIC``           scikit-learn ``GaussianMixture`` (full covariance), the k of least
                      BIC over 1..10

The former defaults (``gap+ps``, ``gap+ps+sphered``, ``silhouette+gap``,
``silhouette+split``) and the variants of their constants left the library with issue
55; their columns are in this study's results at commit b3fd664.

Every cell is one ``choose_k`` call per draw with ``random_state=draw``, timed on
its own. The table has one row per setting, one column per method, and the chosen
k of the draws in each cell (``*`` when right, ``xN`` on N draws); then hit rates
(over all runs, settings right on most draws and on every draw) and seconds per
method. A second table (``--repeat``) runs the default on one data set of the
issue's cases and of two Gaussians with ``--repeat`` random states and 10 or 20
reference samples: the default's draws are seeded from the data, so its answer
should not move with ``random_state``. ``--from-json FILE --rst`` prints a saved
study as reStructuredText without the seconds (the table of the user guide page
"Choosing k"). ``--columns NAME ...`` runs only those columns; ``--reuse FILE.json``
copies the other columns from a saved study of the same settings, draws and seeds (the
report says which). The joint choice of k and the semimetric, and the real tables
with both halves, are studied by ``benchmarks/bench_choice.py``.

Usage: python benchmarks/bench_choose_k.py [--draws 5] [--refs 10] [--splits N] [--repeat 5]
       [--only NAME ...] [--no-real] [--columns NAME ...] [--reuse FILE.json]
       [--out FILE.md] [--json FILE.json]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import sys
import time
import warnings

import numpy as np
from sklearn.datasets import make_blobs
from threadpoolctl import threadpool_limits

from kgroups import choose_k, config_context
from kgroups import datasets as ds

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _report import publish  # noqa: E402

K_RANGE = range(1, 11)
GAP_RULES = ("firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax")


# --------------------------------------------------------------------------- settings
def _centres(rng, k, d, min_dist, box=10.0):
    """k centres uniform in [-box, box]^d, at least ``min_dist`` apart (rejection)."""
    for _ in range(10_000):
        c = rng.uniform(-box, box, (k, d))
        gaps = np.linalg.norm(c[:, None] - c[None], axis=2)[np.triu_indices(k, 1)]
        if k == 1 or gaps.min() >= min_dist:
            return c
    raise RuntimeError(f"no {k} centres {min_dist} apart in d={d}")


def blobs(k, d, n_per=40, sd=1.0, min_dist=7.0, sizes=None, sds=None, box=10.0):
    """Gaussian blobs; ``sizes`` (points per blob) and ``sds`` override the defaults."""
    def make(rng):
        c = _centres(rng, k, d, min_dist, box)
        m = sizes or [n_per] * k
        s = sds or [sd] * k
        return np.vstack([rng.normal(c[j], s[j], (m[j], d)) for j in range(k)])
    return make


def gaussian(n, scales):
    """One Gaussian with the given axis scales, rotated at random (no clusters)."""
    def make(rng):
        d = len(scales)
        Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
        return rng.normal(size=(n, d)) * np.asarray(scales) @ Q.T
    return make


def uniform(n, sides):
    """Uniform over a box with the given sides (no clusters)."""
    return lambda rng: rng.random((n, len(sides))) * np.asarray(sides)


def heavy_tailed(k, d, n_per=60, df=3, scale=0.7, min_dist=12.0):
    """Student-t clusters (``df`` degrees of freedom): heavy tails, outliers."""
    def make(rng):
        c = _centres(rng, k, d, min_dist, box=15.0)
        return np.vstack([c[j] + scale * rng.standard_t(df, (n_per, d)) for j in range(k)])
    return make


def elongated(k, d=2, n_per=60, ratio=6.0, sd=0.6, min_dist=14.0):
    """Gaussian clusters stretched by ``ratio`` along a random direction each."""
    def make(rng):
        c = _centres(rng, k, d, min_dist, box=15.0)
        out = []
        for j in range(k):
            Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
            scale = np.full(d, sd)
            scale[0] *= ratio
            out.append(rng.normal(size=(n_per, d)) * scale @ Q.T + c[j])
        return np.vstack(out)
    return make


def grid(nx, ny, spacing=4.0, sd=0.5, n_per=40):
    """Blobs on an nx x ny grid (the issue's 4 x 2 case: spacing 4, sd 0.5, 40 each)."""
    def make(rng):
        c = [(spacing * i, spacing * j) for i in range(nx) for j in range(ny)]
        return np.vstack([rng.normal(cc, sd, (n_per, 2)) for cc in c])
    return make


def parallel_cigars(n_per=150, sd_x=6.0, sd_y=0.5, apart=4.0, m=2):
    """m parallel elongated clusters along x, ``apart`` apart in y (the issue's case)."""
    def make(rng):
        return np.vstack([rng.normal(0.0, 1.0, (n_per, 2)) * [sd_x, sd_y] + [0.0, apart * j]
                          for j in range(m)])
    return make


def nested(groups=2, sub=2, d=2, n_per=40, sd=0.7, sub_dist=5.0, group_dist=40.0):
    """``groups`` far-apart groups of ``sub`` separated blobs each: true k = groups * sub
    (every blob is separated from every other; the groups are a coarser scale)."""
    def make(rng):
        out = []
        for g in range(groups):
            centre = np.zeros(d)
            centre[0] = group_dist * g
            for s in range(sub):
                angle = 2 * np.pi * s / sub
                off = np.zeros(d)
                off[:2] = 0.5 * sub_dist / np.sin(np.pi / sub) * np.array(
                    [np.cos(angle), np.sin(angle)]) if sub > 2 else [0.5 * sub_dist * (2 * s - 1), 0]
                out.append(rng.normal(centre + off, sd, (n_per, d)))
        return np.vstack(out)
    return make


def fixed(X):
    """The same data on every draw (only choose_k's random_state changes)."""
    return lambda rng: X


SETTINGS = [
    # (name, true k, make(rng))
    ("no structure: Gaussian d=2", 1, gaussian(300, [1.0, 1.0])),
    ("no structure: Gaussian d=10", 1, gaussian(300, [1.0] * 10)),
    ("no structure: Gaussian 3x1", 1, gaussian(300, [3.0, 1.0])),
    ("no structure: Gaussian 6x1", 1, gaussian(300, [6.0, 1.0])),
    ("no structure: Gaussian 3x1x1 d=3", 1, gaussian(300, [3.0, 1.0, 1.0])),
    ("no structure: uniform square", 1, uniform(300, [1.0, 1.0])),
    ("no structure: uniform 3x1 rectangle", 1, uniform(300, [3.0, 1.0])),
    ("no structure: Student t3 d=2", 1, heavy_tailed(1, 2, n_per=300, scale=1.0)),
    ("blobs k=2 d=2", 2, blobs(2, 2, n_per=100)),
    ("blobs k=3 d=2", 3, blobs(3, 2, n_per=60)),
    ("blobs k=4 d=2", 4, blobs(4, 2, n_per=50)),
    ("blobs k=5 d=2", 5, blobs(5, 2)),
    ("blobs k=6 d=2", 6, blobs(6, 2, box=12.0)),
    ("blobs k=8 d=2", 8, blobs(8, 2, min_dist=6.5, box=14.0)),
    ("blobs k=10 d=2", 10, blobs(10, 2, min_dist=6.5, box=16.0)),
    ("blobs k=6 d=3", 6, blobs(6, 3)),
    ("blobs k=3 d=10", 3, blobs(3, 10, n_per=60)),
    ("blobs k=5 d=20", 5, blobs(5, 20)),
    ("blobs k=4 d=50", 4, blobs(4, 50, n_per=50)),
    ("blobs k=10 d=10", 10, blobs(10, 10, min_dist=8.0)),
    ("blobs k=4 overlapping (sd 1.5)", 4, blobs(4, 2, n_per=50, sd=1.5, min_dist=8.0)),
    ("unequal sizes 10x (200/60/20)", 3, blobs(3, 2, sizes=[200, 60, 20], min_dist=8.0)),
    ("unequal sizes 10x (150/150/15/15)", 4, blobs(4, 2, sizes=[150, 150, 15, 15],
                                                   min_dist=8.0)),
    ("unequal spreads (sd 0.5/1/2)", 3, blobs(3, 2, n_per=60, sds=[0.5, 1.0, 2.0],
                                             min_dist=10.0)),
    ("grid 4x2 (issue)", 8, grid(4, 2)),
    ("grid 3x3", 9, grid(3, 3)),
    ("parallel cigars (issue)", 2, parallel_cigars()),
    ("parallel cigars x3", 3, parallel_cigars(n_per=100, m=3)),
    ("elongated k=3 d=2", 3, elongated(3)),
    ("elongated k=4 d=3", 4, elongated(4, d=3)),
    ("heavy-tailed t3 k=3", 3, heavy_tailed(3, 2)),
    ("heavy-tailed t3 k=4 d=5", 4, heavy_tailed(4, 5, min_dist=14.0)),
    ("nested 2 groups x 2", 4, nested(2, 2)),
    ("nested 2 groups x 3", 6, nested(2, 3)),
    ("make_blobs(300, centers=4, random_state=0) (issue)", 4,
     fixed(make_blobs(300, 2, centers=4, random_state=0)[0])),
]

REAL = [("iris", ds.load_iris), ("wine", ds.load_wine), ("seeds", ds.load_seeds),
        ("dermatology", ds.load_dermatology), ("glass", ds.load_glass),
        ("ionosphere", ds.load_ionosphere)]


def real_settings():
    """The bundled real tables, z-scored (constant columns dropped), k = the number of
    classes; the draws change only choose_k's random_state."""
    out = []
    for name, load in REAL:
        X, y = load(standardize=True)
        X = X[:, X.std(axis=0) > 0]
        out.append((f"real: {name} (n={len(X)}, d={X.shape[1]})", int(y.max()) + 1, fixed(X)))
    return out


# --------------------------------------------------------------------------- methods
def methods(refs, splits):
    """Column name -> keyword arguments of one choose_k call (k = 1..10; 2..10 for the
    silhouette and the eigengap, undefined at k = 1). ``splits=None`` keeps choose_k's
    default number of prediction-strength splits."""
    cols = {f"gap:{r}": {"method": "gap", "rule": r, "n_refs": refs} for r in GAP_RULES}
    cols["ps"] = {"method": "prediction_strength"} | (
        {} if splits is None else {"n_splits": splits})
    cols["silhouette"] = {"method": "silhouette"}
    cols["eigengap"] = {"method": "eigengap"}
    cols[DEFAULT] = {"method": "auto", "n_refs": refs}
    cols["KMeans + silhouette"] = {"anchor": "kmeans"}
    cols["GMM BIC"] = {"anchor": "gmm"}
    return cols


DEFAULT = "auto (default)"
# columns renamed since a saved study was made (--reuse)
RENAMED = {}


def anchor(X, name, draw):
    """The scikit-learn recipes: KMeans + silhouette over 2..10, GMM BIC over 1..10."""
    from sklearn.cluster import KMeans
    from sklearn.metrics import silhouette_score
    from sklearn.mixture import GaussianMixture

    if name == "kmeans":
        ks = range(2, 11)
        lab = {k: KMeans(k, n_init=10, random_state=draw).fit_predict(X) for k in ks}
        return max(ks, key=lambda k: silhouette_score(X, lab[k]))
    bic = {k: GaussianMixture(k, random_state=draw, reg_covar=1e-6).fit(X).bic(X)
           for k in K_RANGE}
    return min(bic, key=bic.get)


def _run(X, kw, draw, done):
    """One cell: (chosen k, seconds)."""
    kw = dict(kw)
    if "anchor" in kw:
        t0 = time.perf_counter()
        k = anchor(X, kw["anchor"], draw)
        return (int(k), time.perf_counter() - t0)
    ks = range(2, 11) if kw["method"] in ("silhouette", "eigengap") else K_RANGE
    t0 = time.perf_counter()
    with warnings.catch_warnings():  # answers at the top count
        warnings.simplefilter("ignore")
        r = choose_k(X, ks, random_state=draw, **kw)
    return (r.k, time.perf_counter() - t0)


def study(draws, refs, splits, only=None, real=True, columns=None):
    """``{setting: {"k": true k, column: [(chosen k, seconds) per draw]}}``."""
    cols = methods(refs, splits)
    if columns:
        cols = {c: kw for c, kw in cols.items() if c in columns}
    warm = np.random.default_rng(0).normal(size=(40, 2))
    for c, kw in cols.items():  # compile the numba kernels before anything is timed
        if "anchor" not in kw:
            first = 2 if kw["method"] in ("silhouette", "eigengap") else 1
            with warnings.catch_warnings(), config_context(kernels="compiled"):
                warnings.simplefilter("ignore")         # load the compiled kernels too
                choose_k(warm, range(first, 4), random_state=0, **kw)
    out = {}
    for name, k, make in SETTINGS + (real_settings() if real else []):
        if only and not any(o in name for o in only):
            continue
        out[name] = {"k": k, **{c: [] for c in cols}}
        for draw in range(draws):
            X = make(np.random.default_rng(1000 * draw + 17))
            done = {}
            for c, kw in cols.items():
                done[c] = _run(X, kw, draw, done)
                out[name][c].append(done[c])
        picks = "  ".join(f"{c}={[p for p, _ in out[name][c]]}" for c in cols)
        print(f"# {name} (k={k}): {picks}", file=sys.stderr, flush=True)
    return out


REPEAT_CASES = ["grid 4x2 (issue)", "parallel cigars (issue)",
                "make_blobs(300, centers=4, random_state=0) (issue)",
                "no structure: Gaussian d=2", "no structure: Gaussian 3x1"]


def repeatability(n_states, n_refs=(10, 20)):
    """The default on one data set of each of ``REPEAT_CASES`` with random_state
    0..n_states-1, for several numbers of reference samples: how often the answer
    is right when only choose_k's randomness changes."""
    table = [["data (one draw)", "k"] + [f"n_refs={b}" for b in n_refs]]
    settings = {name: (k, make) for name, k, make in SETTINGS}
    for name in REPEAT_CASES:
        k, make = settings[name]
        X = make(np.random.default_rng(17))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cells = [_cell([choose_k(X, K_RANGE, n_refs=b, random_state=r).k
                            for r in range(n_states)], k) for b in n_refs]
        table.append([name, str(k)] + cells)
        print(f"# repeat {name}: {cells}", file=sys.stderr, flush=True)
    return table


# --------------------------------------------------------------------------- table
def _cell(picks, k):
    counts = {}
    for p in picks:
        counts[p] = counts.get(p, 0) + 1
    order = sorted(counts.items(), key=lambda t: (t[0] is None, t[0] or 0))
    return " ".join(f"{p}{'*' if p == k else ''}x{c}" if len(counts) > 1 or c > 1 else
                    f"{p}{'*' if p == k else ''}" for p, c in order)


def rows(res, timings=True):
    """Header and rows: one per setting (chosen k per draw, ``*`` when right), then
    hit rates over the runs and over the settings, then seconds (``timings``)."""
    cols = [c for c in next(iter(res.values())) if c != "k"]
    out = [["setting", "k"] + cols]
    out += [[name, str(v["k"])] + [_cell([p for p, _ in v[c]], v["k"]) for c in cols]
            for name, v in res.items()]

    def hits(n, c):
        return [p == res[n]["k"] for p, _ in res[n][c]]

    groups = {"synthetic": [n for n in res if not n.startswith("real")],
              "real tables": [n for n in res if n.startswith("real")]}
    for label, names in ((g, n) for g, n in groups.items() if n):
        out.append([f"{label}: hit rate over runs", ""]
                   + [f"{np.mean([h for n in names for h in hits(n, c)]):.3f}" for c in cols])
        out.append([f"{label}: settings right on most draws", ""]
                   + [f"{sum(np.mean(hits(n, c)) > 0.5 for n in names)}/{len(names)}"
                      for c in cols])
        out.append([f"{label}: settings right on every draw", ""]
                   + [f"{sum(all(hits(n, c)) for n in names)}/{len(names)}" for c in cols])
        if label == "synthetic":
            flat = [n for n in names if res[n]["k"] == 1]
            out.append(["synthetic without structure (k = 1): runs right", ""]
                       + [f"{sum(sum(hits(n, c)) for n in flat)}/"
                          f"{sum(len(hits(n, c)) for n in flat)}" for c in cols])
    if timings:
        secs = [sum(t for v in res.values() for _, t in v[c]) for c in cols]
        nrun = sum(len(v[cols[0]]) for v in res.values())
        out.append(["total seconds", ""] + [f"{t:.1f}" for t in secs])
        out.append([f"mean seconds per run ({nrun} runs)", ""] + [f"{t / nrun:.3f}" for t in secs])
    return out, len(res)


def markdown(table):
    head, *body = table
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in body])


def rst(table, n_settings):
    """reStructuredText simple table; the summary rows below a rule."""
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]

    def fmt(r):
        return "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()

    rule = "  ".join("=" * w for w in widths)
    head, body = table[0], table[1:]
    return "\n".join([rule, fmt(head), rule] + [fmt(r) for r in body[:n_settings]]
                     + ["  ".join("-" * w for w in widths)]
                     + [fmt(r) for r in body[n_settings:]] + [rule])


def reuse(res, path, refs, splits):
    """Copy into ``res`` the columns of the saved study ``path`` that ``res`` lacks
    (same settings and draws), in the order of :func:`methods`; their names."""
    with open(path) as fh:
        old = json.load(fh)
    order = list(methods(refs, splits))
    copied = []
    for name, v in res.items():
        saved = {RENAMED.get(c, c): cells for c, cells in old.get(name, {}).items()}
        merged = {"k": v["k"]}
        for c in order:
            if c in v:
                merged[c] = v[c]
            elif c in saved and len(saved[c]) == len(next(x for a, x in v.items() if a != "k")):
                merged[c] = saved[c]
                copied.append(c)
        res[name] = merged
    return sorted(set(copied), key=order.index)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=5)
    ap.add_argument("--refs", type=int, default=10)
    ap.add_argument("--splits", type=int, default=None,
                    help="prediction-strength splits (default: choose_k's)")
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--no-real", action="store_true")
    ap.add_argument("--out", default=None, help="also write the report to this file")
    ap.add_argument("--json", default=None, help="write the chosen k and seconds as JSON")
    ap.add_argument("--from-json", default=None,
                    help="render a study saved with --json instead of running one")
    ap.add_argument("--rst", action="store_true",
                    help="print the table as reStructuredText, without the seconds")
    ap.add_argument("--repeat", type=int, default=5,
                    help="random states of the repeatability table (0: none)")
    ap.add_argument("--columns", nargs="*", help="run only these columns")
    ap.add_argument("--reuse", default=None,
                    help="copy the columns not run from this saved study (--json)")
    args = ap.parse_args()
    if args.from_json:
        with open(args.from_json) as fh:
            res = json.load(fh)
        print(rst(*rows(res, timings=False)) if args.rst else markdown(rows(res)[0]))
        return
    t0 = time.perf_counter()
    with threadpool_limits(1):  # BLAS threads on small matrices only oversubscribe
        res = study(args.draws, args.refs, args.splits, args.only, not args.no_real,
                    args.columns)
        repeat = repeatability(args.repeat) if args.repeat else None
    total = time.perf_counter() - t0
    reused = reuse(res, args.reuse, args.refs, args.splits) if args.reuse else []
    if args.rst:
        print(rst(*rows(res, timings=False)))
        return
    machine = platform.processor() or platform.machine()
    threads = ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in
                        ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"))
    report = (f"# choose_k study\n\n`python {shlex.join(sys.argv)}`\n\n{args.draws} draws per "
              "setting, k in 1..10 (2..10 for silhouette and eigengap), energy semimetric "
              f"(alpha = 1), B = {args.refs} references, {args.splits or 'default'} splits, "
              "n_init = 5. Cells: the chosen k of each draw, `*` when right, `xN` = on N "
              "draws." + (f" Columns {', '.join(reused)}: copied from `{args.reuse}`, a "
                          "saved run of the same settings, draws and seeds; their seconds "
                          "are those of that run." if reused else "")
              + f"\n\n{markdown(rows(res)[0])}\n\n")
    if repeat:
        report += (f"## Repeatability of the default\n\nOne data set per row; the default "
                   f"with random_state 0..{args.repeat - 1} and 10 or 20 reference "
                   f"samples.\n\n{markdown(repeat)}\n\n")
    report += (f"{total:.0f} s in all on {machine}, {os.cpu_count()} cores "
               f"({threads}; BLAS limited to 1 thread by threadpoolctl).\n")
    publish(report, args.out, args.json, res)


if __name__ == "__main__":
    main()
