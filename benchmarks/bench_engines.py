"""kgroups engines against R energy::kgroups, kernlab kkmeans and scikit-learn, same run.

Scenarios (``--scenario``):

``20k``   n=20,000, D=10, k=10 blobs. R ``energy::kgroups`` (default ``iter.max=10``),
          kernlab ``kkmeans``, scikit-learn ``KMeans``/``GaussianMixture`` and every
          kgroups engine; kgroups engines and R start from the same random labels.
          Then ``n_init=10`` against one start (k-means++ starts, engine="auto").
``100k``  n=100,000: engine="dense" must refuse with the memory error,
          engine="auto" (matrix-free, exact) must run; KMeans for reference.
``1m``    n=1,000,000: engine="low-rank" (m=256); and on a 20,000-point
          subsample, the exact W of the low-rank labels against the exact engine's.

For each method: time of the clustering call, wall time of its process, peak
memory of its process, exact W of its labels (recomputed here by the
matrix-free engine, n <= 200,000), the number of points with a W-lowering
single move (0 = Hartigan optimum), ARI against the blob labels, and the time
ratio R / method measured in this run.

Usage: python benchmarks/bench_engines.py [--scenario 20k|100k|1m|all]
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np
from sklearn.datasets import make_blobs
from sklearn.metrics import adjusted_rand_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _peers  # noqa: E402


RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def data(n, d, k, seed=0):
    X, y = make_blobs(n, n_features=d, centers=k, random_state=seed)
    start = np.random.default_rng(seed).integers(0, k, n)
    return X, y, start


def row(name, res, X, y, k, t_ref):
    W, left = _peers.exact_quality(X, res["labels"], k)
    ari = adjusted_rand_score(y, res["labels"]) if res["labels"] is not None else None
    t = res.get("time")
    return {"method": name, "time_s": t, "wall_s": res["wall"],
            "peak_MB": None if res["peak"] is None else res["peak"] / 2**20,
            "W": W, "W_own": res.get("W_own", res.get("W_R")), "moves_left": left, "ARI": ari,
            "R_over_method": (t_ref / t) if (t_ref and t) else None,
            "error": res["error"]}


def show(rows):
    print(f"{'method':<36}{'time s':>9}{'wall s':>9}{'peak MB':>9}{'W':>16}"
          f"{'moves left':>11}{'ARI':>7}{'R/this':>8}")
    for r in rows:
        def f(v, fmt):
            width = int(fmt.split(".")[0].rstrip("df"))
            return format(v, fmt) if v is not None else "-".rjust(width)
        print(f"{r['method'][:36]:<36}{f(r['time_s'], '9.2f')}{f(r['wall_s'], '9.2f')}"
              f"{f(r['peak_MB'], '9.0f')}{f(r['W'], '16.2f')}{f(r['moves_left'], '11d')}"
              f"{f(r['ARI'], '7.3f')}{f(r['R_over_method'], '8.1f')}")
        if r["error"]:
            print(f"    {r['method']}: {r['error']}")
    sys.stdout.flush()


def scenario_20k(args):
    n, d, k = 20_000, 10, 10
    X, y, start = data(n, d, k)
    wd = _peers.Workdir(X, start)
    rows, t_r = [], None
    try:
        if _peers.have_r("energy"):
            res = _peers.run_r_energy(wd, k, iter_max=10)
            t_r = res.get("time")
            rows.append(row("R energy::kgroups", res, X, y, k, t_r))
        for eng in ("dense", "matrix-free", "low-rank"):
            spec = {"method": "kgroups", "k": k, "engine": eng, "init": "start"}
            rows.append(row(f"kgroups {eng}", _peers.run_python(wd, eng, spec), X, y, k, t_r))
        for m in ("sklearn-kmeans", "sklearn-gmm"):
            rows.append(row(m, _peers.run_python(wd, m, {"method": m, "k": k}), X, y, k, t_r))
        if _peers.have_r("kernlab") and not args.skip_kernlab:
            # exp(-||x-y||^2 / (2 D)): bandwidth^2 = D, the blobs' within-cluster scale
            # (kernlab's automatic sigest empties clusters and stops on this data)
            res = _peers.run_r_kernlab(wd, k, 1.0 / (2.0 * d), timeout=args.kernlab_timeout)
            rows.append(row("R kernlab::kkmeans", res, X, y, k, t_r))
        # Restarts: the dense kernel is built once and shared by all starts; "auto"
        # takes the matrix-free engine for one start and the dense one for ten.
        for eng in ("dense", "auto"):
            for n_init in (1, 10):
                spec = {"method": "kgroups", "k": k, "engine": eng, "init": "k-means++",
                        "n_init": n_init}
                res = _peers.run_python(wd, f"{eng}-ninit{n_init}", spec)
                rows.append(row(f"kgroups {eng} k-means++ n_init={n_init}", res, X, y, k, t_r))
    finally:
        wd.close()
    show(rows)
    for eng in ("dense", "auto"):
        one, ten = (next(r["time_s"] for r in rows
                         if r["method"] == f"kgroups {eng} k-means++ n_init={i}") for i in (1, 10))
        if one and ten:
            print(f"engine={eng}: n_init=10 / n_init=1 time: {ten / one:.2f}")
    return rows


def scenario_100k(args):
    n, d, k = 100_000, 10, 10
    X, y, start = data(n, d, k)
    wd = _peers.Workdir(X, start)
    rows = []
    try:
        for eng in ("dense", "auto"):
            spec = {"method": "kgroups", "k": k, "engine": eng, "init": "start"}
            rows.append(row(f"kgroups {eng} (random start)", _peers.run_python(wd, eng, spec),
                            X, y, k, None))
        spec = {"method": "kgroups", "k": k, "engine": "auto", "init": "k-means++"}
        rows.append(row("kgroups auto k-means++", _peers.run_python(wd, "kpp", spec),
                        X, y, k, None))
        rows.append(row("sklearn-kmeans", _peers.run_python(
            wd, "km", {"method": "sklearn-kmeans", "k": k}), X, y, k, None))
    finally:
        wd.close()
    show(rows)
    return rows


def scenario_1m(args):
    n, d, k, m = 1_000_000, 10, 10, 256
    X, y, start = data(n, d, k)
    rows = []
    wd = _peers.Workdir(X, start)
    try:
        for init in ("start", "k-means++"):
            spec = {"method": "kgroups", "k": k, "engine": "low-rank", "n_components": m,
                    "init": init}
            rows.append(row(f"kgroups low-rank m={m} init={init}",
                            _peers.run_python(wd, f"lr-{init}", spec), X, y, k, None))
    finally:
        wd.close()
    sub = np.random.default_rng(1).choice(n, 20_000, replace=False)
    wd = _peers.Workdir(X[sub], start[sub])
    try:
        for eng in ("matrix-free", "low-rank"):
            spec = {"method": "kgroups", "k": k, "engine": eng, "n_components": m,
                    "init": "start"}
            rows.append(row(f"subsample 20k: kgroups {eng}", _peers.run_python(wd, eng, spec),
                            X[sub], y[sub], k, None))
    finally:
        wd.close()
    show(rows)
    w_ex, w_lr = rows[-2]["W"], rows[-1]["W"]
    print(f"subsample: exact W of low-rank labels / exact engine W = {w_lr / w_ex:.4f}")
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", default="all", choices=["20k", "100k", "1m", "all"])
    ap.add_argument("--skip-kernlab", action="store_true")
    ap.add_argument("--kernlab-timeout", type=int, default=900)
    args = ap.parse_args()
    os.makedirs(RESULTS, exist_ok=True)
    todo = ["20k", "100k", "1m"] if args.scenario == "all" else [args.scenario]
    funcs = {"20k": scenario_20k, "100k": scenario_100k, "1m": scenario_1m}
    for name in todo:
        print(f"\n== scenario {name} ==")
        rows = funcs[name](args)
        with open(os.path.join(RESULTS, f"engines_{name}.json"), "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
