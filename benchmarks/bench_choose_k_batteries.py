"""Does ``kgroups.choose_k`` find a useful k on every battery at once? (issue 42)

The seven batteries of ``benchmarks/_batteries.py``: 31 shape sets (rings, spirals,
stripes, touching shapes, 3-D shells and helices), 22 labelled real tables, 14
labelled Gaussian settings, 25 hard sets (noise, outliers, unequal densities,
touching shapes, up to 10,000 points; their noise points, label -1, are clustered
but not scored), the 9 labelled sets of the Fundamental Clustering Problems Suite
and pyclustering's 8 labelled toy sets (``bash benchmarks/setup_fcps.sh`` fetches
both), and 19 labelled UCI and R tables (``bash benchmarks/setup_uci_r.sh``: R
packages from Debian). Every rule chooses k in 1..15 (2..15 where k = 1 is not defined)
on each set, timed on its own; ``silhouette+gap`` only up to 3,000 points (its
n x n matrix per reference sample takes minutes past that: "-").

**The yardstick** (that of ``bench_choose_k_real.py``): the ARI against the labels of
a default ``KernelKGroups(k, random_state=0)`` fit for k = 2..15; a chosen k is
**useful** when the fit at that k reaches 0.75 of the best ARI of that curve (k = 1
has ARI 0; any k counts where no k reaches 0.10). The exact k (the number of
labels) is counted too, though the labels of shapes and tables need not be the
clusters an energy fit can find.

**The rules**:

``auto (default)``              ``choose_k(X, range(1, 16), random_state=0)`` (issue 42,
                                round 5): ``silhouette+split``, then step 4: when the
                                neighbourhood graph's groups are of comparable size
                                and the energy fit of their number cuts across them
                                (rings, moons, spirals), the energy partition that
                                agrees best with them
``silhouette+split``            ``method="silhouette+split"`` (round 2's default): k = 1
                                only without modes (two dip tests) and without a gain
                                over the references above 3.5 standard errors; the
                                silhouette's best k, followed to max(10, 2 k), and the
                                smallest k within 0.5 standard error of it; one more
                                cluster while a cluster's held-out half is multimodal
                                and the silhouette keeps 0.7 of the best
``keep 0.75``                   the default whose split walk goes on while the
                                silhouette keeps 0.75 (round 1's share) instead of 0.7
``keep 0.65``                   ... 0.65
``no split test``               the default without step 3 (its level set to 0)
``structure at 3 s.e.``         the reference test at 3 standard errors instead of 3.5
``balance 0.1``, ``0.5``        step 4 with each graph group at least 0.1 (0.5) / k_g
                                of the weight instead of 0.25 / k_g
``drawn 0.4``, ``0.6``          step 4 keeping the point rule when the energy fit at
                                k_g agrees with the graph's groups at 0.4 (0.6)
                                instead of 0.5
``agree 0.05``, ``0.2``         step 4's least agreement of an answer, 0.05 (0.2)
                                instead of 0.1
``shapes cut 0.5``,             step 4 only when the graph's groups cut the graph
``no shapes cut test``          below 0.5 (instead of 1) times the energy fit of as
                                many clusters, or whatever their cut
``graph floor 0.1``             the graph's eigengap counting a component as 0.1 (not
                                0.2) of the smallest eigenvalue above zero
``silhouette argmax``,          step 2 answering the largest mean silhouette itself,
``silhouette 1 s.e.``           or the smallest k within 1 standard error of it,
                                instead of 0.5
``round 4 default``             the default of round 4 (commit 8867f8a): rings and
                                shells (a radial dip at least twice the dip along a
                                2-cluster line) to the graph's own k and labels; its
                                picks, seconds and usefulness copied from
                                ``results/choose_k_round4.json`` (that round's run,
                                and that commit's code on the uci and simple sets)
``round 1 default``             the default of round 1 (commit bad4ec9; its code is gone):
                                its picks, seconds and usefulness copied from
                                ``results/choose_k_round1.json`` (that round's run)
``silhouette+gap``              the default before (issue 34)
``gap+ps+sphered``              the default before that (``--slow`` only: minutes)
``GMM BIC``                     scikit-learn ``GaussianMixture`` (full covariance),
                                the k of least BIC over k = 1..15
``KMeans + silhouette``         ``KMeans(n_init=10)``, the k of largest silhouette
                                over k = 2..15: the recipe a scikit-learn user tries
                                first
``kernel k-groups + silhouette`` the curve's fits, the k of largest silhouette

The variants of the default change module constants of :mod:`kgroups._choose_k`
(``silsplit``, ``structure``, ``shapes``) for the length of one call (the study's own business,
not an option of the library).

A last table times the default on two 2-D sets of 5,000 points (``--big``),
against one default fit at the true k (``fits' worth``). ``--timing`` times, alone,
the default (k in 1..15) and one default fit at the true k on every set, each after
an untimed call of its kind on the same set, and reports the seconds and their
ratio (the fits' worth) per set, with the median and the largest.

Usage: python benchmarks/bench_choose_k_batteries.py [--only NAME ...] [--slow] [--big]
       [--timing] [--out FILE.md] [--json FILE.json]
       python benchmarks/bench_choose_k_batteries.py --from-json FILE.json [--out FILE.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import sys
import time
import warnings

import numpy as np
from sklearn.cluster import KMeans
from sklearn.metrics import adjusted_rand_score, silhouette_score
from sklearn.mixture import GaussianMixture
from threadpoolctl import threadpool_limits

from kgroups import KernelKGroups, choose_k, config_context

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _batteries  # noqa: E402
from _report import publish  # noqa: E402
from bench_choose_k import VARIANTS, constants  # noqa: E402  (the same variants)

CURVE_KS = range(2, 16)
K_RANGE = range(1, 16)
USEFUL_SHARE = 0.75
NO_SIGNAL_ARI = 0.10
DEFAULT = "auto (default)"
ALONE = "silhouette+split"
SLOW = ("gap+ps+sphered",)
# silhouette+gap is run up to this many points
SILGAP_MAX_N = 3000
ROUND1 = "round 1 default"
ROUND4 = "round 4 default"
# the budget of issue 42: fits' worth (one default fit at the true k) and seconds per set
FITS_BUDGET = 40
SECONDS_BUDGET = 15
_RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
# the saved picks of earlier defaults whose code is gone: column -> file
SAVED = {ROUND1: os.path.join(_RESULTS, "choose_k_round1.json"),
         ROUND4: os.path.join(_RESULTS, "choose_k_round4.json")}


def _variant(values):
    def pick(X, fits):
        with constants(values):
            return choose_k(X, K_RANGE, random_state=0).k
    return pick


def _kmeans_silhouette(X, fits):
    lab = {k: KMeans(k, n_init=10, random_state=0).fit_predict(X) for k in CURVE_KS}
    return max(CURVE_KS, key=lambda k: silhouette_score(X, lab[k]))


def _gmm_bic(X, fits):
    bic = {k: GaussianMixture(k, random_state=0, reg_covar=1e-6).fit(X).bic(X)
           for k in K_RANGE}
    return min(bic, key=bic.get)


def _silhouette_gap(X, fits):
    if len(X) > SILGAP_MAX_N:
        return None
    return choose_k(X, K_RANGE, method="silhouette+gap", random_state=0).k


def rules(slow):
    """Rule name -> function(X, curve fits) returning the chosen k (None: not run;
    ``None`` instead of a function: the saved picks of round 1)."""
    out = {DEFAULT: lambda X, f: choose_k(X, K_RANGE, random_state=0).k,
           ALONE: lambda X, f: choose_k(X, K_RANGE, method="silhouette+split",
                                        random_state=0).k}
    out.update((name, _variant(values)) for name, values in VARIANTS.items())
    out[ROUND4] = None                                  # copied from SAVED[ROUND4]
    out[ROUND1] = None                                  # copied from SAVED[ROUND1]
    out["silhouette+gap"] = _silhouette_gap
    if slow:
        out["gap+ps+sphered"] = lambda X, f: choose_k(X, K_RANGE, method="gap+ps+sphered",
                                                      random_state=0).k
    out["GMM BIC"] = _gmm_bic
    out["KMeans + silhouette"] = _kmeans_silhouette
    out["kernel k-groups + silhouette"] = lambda X, f: max(
        CURVE_KS, key=lambda k: silhouette_score(X, f[k]))
    return out


# --------------------------------------------------------------------------- study
def ari_curve(X, y):
    """ARI of a default fit for each k of CURVE_KS on the scored points (label >= 0),
    and the fits' labels."""
    fits = {k: KernelKGroups(k, random_state=0).fit(X).labels_ for k in CURVE_KS}
    s = y >= 0
    return {k: float(adjusted_rand_score(y[s], lab[s])) for k, lab in fits.items()}, fits


def useful(k, curve, X, y):
    if k is None:
        return None
    best = max(curve.values())
    if best < NO_SIGNAL_ARI:
        return True
    if k == 1:
        return False
    s = y >= 0
    a = curve[k] if k in curve else float(adjusted_rand_score(
        y[s], KernelKGroups(k, random_state=0).fit(X).labels_[s]))
    return a >= USEFUL_SHARE * best


def study(only=None, slow=False, names=None):
    saved = {}
    for rule, path in SAVED.items():
        with open(path) as fh:
            saved[rule] = json.load(fh)["batteries"]
    warm = np.random.default_rng(0).normal(size=(60, 3))
    with config_context(kernels="compiled"):          # load the numba kernels first
        choose_k(warm, range(1, 4), random_state=0)
        KernelKGroups(3, random_state=0).fit(warm)
    res = {}
    for name in _batteries.ALL:
        for d in _batteries.battery(name):
            if only and not any(o in d.name for o in only):
                continue
            curve, fits = ari_curve(d.X, d.y)
            picks = {}
            for rule, pick in rules(slow).items():
                if names and rule not in names:
                    continue
                if pick is None:
                    picks[rule] = saved[rule].get(d.name, [None, None, None])
                    continue
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    k = pick(d.X, fits)
                secs = time.perf_counter() - t0
                k = None if k is None else int(k)
                picks[rule] = [k, None if k is None else secs, useful(k, curve, d.X, d.y)]
            res[d.name] = {"battery": name, "n": int(d.X.shape[0]), "d": int(d.X.shape[1]),
                           "k": int(d.k), "note": d.note,
                           "curve": {str(k): v for k, v in curve.items()}, "picks": picks}
            line = "  ".join(f"{r}={p[0]}{'+' if p[2] else '-'}" for r, p in picks.items())
            print(f"# {name} / {d.name}: {line}", file=sys.stderr, flush=True)
    return res


def big_sets():
    """The default on 5,000 2-D points (15 Gaussian clusters of 3 spreads, and the
    same points' two outer rings of 2,500 each) against one default fit at the true k."""
    rng = np.random.default_rng(0)
    c = rng.uniform(-30, 30, (15, 2))
    blobs = np.vstack([rng.normal(c[j], [0.8, 1.5, 2.5][j % 3], (334, 2)) for j in range(15)])
    t = rng.uniform(0, 2 * np.pi, 5000)
    r = np.repeat([1.0, 2.0], 2500)
    rings = np.c_[r * np.cos(t), r * np.sin(t)] + rng.normal(0, 0.08, (5000, 2))
    out = []
    for name, X, k in (("15 Gaussian blobs, 2-D", blobs[:5000], 15), ("two rings, 2-D", rings, 2)):
        KernelKGroups(k, random_state=1).fit(X)              # untimed: what this size needs
        t0 = time.perf_counter()
        KernelKGroups(k, random_state=0).fit(X)
        fit = time.perf_counter() - t0
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            got = choose_k(X, K_RANGE, random_state=0)
        secs = time.perf_counter() - t0
        out.append({"name": name, "n": len(X), "k": k, "chosen": got.k, "seconds": secs,
                    "fit_s": fit, "fits": secs / fit, "at_top": got.at_top})
        print(f"# big {name}: k={got.k} {secs:.1f} s, {secs / fit:.1f} fits", file=sys.stderr,
              flush=True)
    return out


def timing(only=None):
    """``{set: [n, d, seconds of the default, seconds of one fit at the true k]}``."""
    out = {}
    for name in _batteries.ALL:
        for d in _batteries.battery(name):
            if only and not any(o in d.name for o in only):
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                KernelKGroups(d.k, random_state=1).fit(d.X)       # untimed
                t0 = time.perf_counter()
                KernelKGroups(d.k, random_state=0).fit(d.X)
                fit = time.perf_counter() - t0
                choose_k(d.X, K_RANGE, random_state=1)            # untimed
                t0 = time.perf_counter()
                choose_k(d.X, K_RANGE, random_state=0)
                secs = time.perf_counter() - t0
            out[d.name] = [int(d.X.shape[0]), int(d.X.shape[1]), secs, fit]
            print(f"# time {d.name}: {secs:.2f} s, {secs / fit:.1f} fits", file=sys.stderr,
                  flush=True)
    return out


def timing_rows(times):
    head = ["set", "n", "d", "default (s)", "one fit at the true k (s)", "fits' worth"]
    rows = [[name, str(n), str(d), f"{s:.2f}", f"{f:.3f}", f"{s / f:.1f}"]
            for name, (n, d, s, f) in times.items()]
    secs = [t[2] for t in times.values()]
    worth = [t[2] / t[3] for t in times.values()]
    rows.append(["median", "", "", f"{statistics.median(secs):.2f}", "",
                 f"{statistics.median(worth):.1f}"])
    rows.append(["largest", "", "", f"{max(secs):.2f}", "", f"{max(worth):.1f}"])
    over = sum(w > FITS_BUDGET for w in worth)
    slow = sum(t[2] > SECONDS_BUDGET for t in times.values() if t[0] <= 5000)
    rows.append([f"sets over {FITS_BUDGET} fits' worth", "", "", "", "",
                 f"{over} of {len(worth)}"])
    rows.append([f"sets of at most 5,000 points over {SECONDS_BUDGET} s", "", "",
                 f"{slow} of {sum(t[0] <= 5000 for t in times.values())}", "", ""])
    return [head] + rows


# --------------------------------------------------------------------------- report
def markdown(table):
    head, *body = table
    return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                     + ["| " + " | ".join(r) + " |" for r in body])


def summary_rows(res):
    rules_ = list(next(iter(res.values()))["picks"])
    head = ["battery"] + rules_
    rows = []
    for b in _batteries.ALL:
        names = [n for n, v in res.items() if v["battery"] == b]
        if not names:
            continue
        rows.append([f"{b}: useful k ({len(names)} sets)"] + [
            _count([res[n]["picks"][r][2] for n in names]) for r in rules_])
        rows.append([f"{b}: exact k"] + [
            _count([None if res[n]["picks"][r][0] is None else
                    res[n]["picks"][r][0] == res[n]["k"] for n in names]) for r in rules_])
    rows.append([f"all: useful k ({len(res)} sets)"] + [
        _count([v["picks"][r][2] for v in res.values()]) for r in rules_])
    rows.append(["all: answers of 15 (the top)"] + [
        str(sum(v["picks"][r][0] == 15 for v in res.values())) for r in rules_])
    secs = {r: [v["picks"][r][1] for v in res.values() if v["picks"][r][1] is not None]
            for r in rules_}
    rows.append(["median seconds per set"] + [f"{statistics.median(secs[r]):.2f}"
                                              for r in rules_])
    rows.append(["largest seconds"] + [f"{max(secs[r]):.1f}" for r in rules_])
    return [head] + rows


def _count(flags):
    """The number of True, and of sets run when some were not ("-": none was)."""
    ran = [f for f in flags if f is not None]
    if not ran:
        return "-"
    return str(sum(ran)) if len(ran) == len(flags) else f"{sum(ran)} (of {len(ran)})"


def set_rows(res):
    rules_ = list(next(iter(res.values()))["picks"])
    head = ["battery", "set", "n", "d", "k", "best ARI (k)"] + rules_
    rows = []
    for name, v in res.items():
        curve = {int(k): a for k, a in v["curve"].items()}
        kb = max(curve, key=curve.get)
        rows.append([v["battery"], name, str(v["n"]), str(v["d"]), str(v["k"]),
                     f"{curve[kb]:.2f} ({kb})"]
                    + ["-" if v["picks"][r][0] is None else
                       f"{v['picks'][r][0]}{'+' if v['picks'][r][2] else ''}" for r in rules_])
    return [head] + rows


def big_rows(big):
    head = ["set", "n", "true k", "chosen k", "seconds", "one fit at the true k (s)",
            "fits' worth"]
    return [head] + [[b["name"], str(b["n"]), str(b["k"]),
                      f"{b['chosen']}{' (top)' if b['at_top'] else ''}", f"{b['seconds']:.1f}",
                      f"{b['fit_s']:.2f}", f"{b['fits']:.1f}"] for b in big]


def _threads():
    """The thread settings of the run, as the report states them."""
    return ", ".join(f"{v}={os.environ.get(v, 'unset')}" for v in
                     ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS"))


def report(res, big, command, seconds):
    machine = platform.processor() or platform.machine()
    text = (f"# choose_k on seven batteries\n\n`{command}`\n\nk in 1..15 (2..15 where k = 1 "
            f"is not defined). A chosen k is useful when a default "
            f"`KernelKGroups(k, random_state=0)` fit at that k reaches {USEFUL_SHARE} of the "
            f"best ARI over k = 2..15 (any k where no k reaches {NO_SIGNAL_ARI}). Cells of "
            "the second table: the chosen k, `+` when useful.\n\n"
            f"{markdown(summary_rows(res))}\n\n## Every set\n\n{markdown(set_rows(res))}\n\n")
    if big:
        text += ("## Time on 5,000 points\n\nSeconds of `choose_k(X, range(1, 16), "
                 "random_state=0)` and of one default fit at the true k (after an untimed "
                 f"fit of the same size).\n\n{markdown(big_rows(big))}\n\n")
    return text + (f"{seconds:.0f} s in all on {machine}, {os.cpu_count()} cores "
                   f"({_threads()}; BLAS limited to 1 thread by threadpoolctl).\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--rules", nargs="*", help="run only these rules (default: all)")
    ap.add_argument("--slow", action="store_true", help=f"add {', '.join(SLOW)}")
    ap.add_argument("--big", action="store_true", help="time the default on 5,000 points")
    ap.add_argument("--timing", action="store_true",
                    help="only time the default and one fit at the true k on every set")
    ap.add_argument("--out", default=None)
    ap.add_argument("--json", default=None)
    ap.add_argument("--from-json", default=None,
                    help="render a saved study again (to --out when given)")
    args = ap.parse_args()
    if args.from_json:
        with open(args.from_json) as fh:
            saved = json.load(fh)
        publish(report(saved["sets"], saved["big"], saved["command"], saved["seconds"]),
                args.out)
        return
    t0 = time.perf_counter()
    if args.timing:
        with threadpool_limits(1):
            times = timing(args.only)
            big = big_sets() if args.big else []
        machine = platform.processor() or platform.machine()
        text = (f"# Time of choose_k's default on the seven batteries\n\n"
                f"`python {shlex.join(sys.argv)}`\n\n"
                "Seconds of `choose_k(X, range(1, 16), random_state=0)` and of one default "
                "fit at the true k, each after an untimed call of its kind on the same set; "
                "fits' worth = their ratio.\n\n"
                f"{markdown(timing_rows(times))}\n\n"
                + (f"## Time on 5,000 points\n\n{markdown(big_rows(big))}\n\n" if big else "")
                + f"{time.perf_counter() - t0:.0f} s in all on {machine}, {os.cpu_count()} "
                f"cores ({_threads()}; BLAS limited to 1 thread by threadpoolctl).\n")
        publish(text, args.out, args.json, {"times": times, "big": big})
        return
    with threadpool_limits(1):
        res = study(args.only, args.slow, args.rules)
        big = big_sets() if args.big else []
    command, seconds = "python " + shlex.join(sys.argv), time.perf_counter() - t0
    publish(report(res, big, command, seconds), args.out, args.json,
            {"sets": res, "big": big, "command": command, "seconds": seconds})


if __name__ == "__main__":
    main()
