"""Scaling curves: time and peak memory against n for each method, same run.

Blobs with D=10, k=10, n = 1k ... 1M; all methods start from the same random
labels where they accept them. A method is not run at larger n once it took
more than ``--cap`` seconds (or failed). The growth exponent is the slope of
log(time) on log(n) over the points with n >= 5,000. Writes
``results/scaling.csv`` and ``results/scaling.png``.

Usage: python benchmarks/bench_scaling.py [--cap 120] [--max-n 1000000]
"""

from __future__ import annotations

import argparse
import csv
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _peers  # noqa: E402
from bench_engines import RESULTS, data  # noqa: E402

SIZES = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000]
K = 10


def methods(have_r):
    out = []
    if have_r:
        out.append(("R energy::kgroups", lambda wd: _peers.run_r_energy(wd, K, iter_max=10)))
    for eng in ("dense", "matrix-free", "low-rank"):
        spec = {"method": "kgroups", "k": K, "engine": eng, "init": "start"}
        out.append((f"kgroups {eng}", lambda wd, s=spec, e=eng: _peers.run_python(wd, e, s)))
    for m in ("sklearn-kmeans", "sklearn-gmm"):
        out.append((m, lambda wd, m=m: _peers.run_python(wd, m, {"method": m, "k": K})))
    return out


def exponent(ns, ts):
    ns, ts = np.asarray(ns, float), np.asarray(ts, float)
    keep = ns >= 5_000
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns[keep]), np.log(ts[keep]), 1)[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=float, default=120.0)
    ap.add_argument("--max-n", type=int, default=1_000_000)
    args = ap.parse_args()
    os.makedirs(RESULTS, exist_ok=True)
    todo = methods(_peers.have_r("energy"))
    alive = {name: True for name, _ in todo}
    rows = []
    for n in [s for s in SIZES if s <= args.max_n]:
        X, _, start = data(n, 10, K)
        wd = _peers.Workdir(X, start)
        try:
            for name, run in todo:
                if not alive[name]:
                    continue
                res = run(wd)
                t = res.get("time")
                peak = None if res["peak"] is None else res["peak"] / 2**20
                rows.append({"method": name, "n": n, "time_s": t, "peak_MB": peak,
                             "error": res["error"]})
                print(f"{name:<22} n={n:>8}  time={t if t is None else round(t, 3)}  "
                      f"peak MB={peak if peak is None else round(peak)}  {res['error'] or ''}",
                      flush=True)
                if t is None or t > args.cap:
                    alive[name] = False
        finally:
            wd.close()
    with open(os.path.join(RESULTS, "scaling.csv"), "w", newline="") as fh:
        wr = csv.DictWriter(fh, fieldnames=["method", "n", "time_s", "peak_MB", "error"])
        wr.writeheader()
        wr.writerows(rows)
    print("\ngrowth exponents (time ~ n^b, n >= 5,000):")
    for name, _ in todo:
        pts = [(r["n"], r["time_s"]) for r in rows if r["method"] == name and r["time_s"]]
        if pts:
            print(f"  {name:<22} b = {exponent(*zip(*pts)):.2f}  (largest n run: {pts[-1][0]})")
    plot(rows, [name for name, _ in todo])


def plot(rows, names):
    try:
        import matplotlib
    except ModuleNotFoundError as err:
        raise SystemExit("bench_scaling.py draws scaling.png with matplotlib: "
                         "pip install 'kgroups[plot]'") from err

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 2, figsize=(11, 4.2))
    for name in names:
        pts = [(r["n"], r["time_s"], r["peak_MB"]) for r in rows
               if r["method"] == name and r["time_s"]]
        if not pts:
            continue
        n, t, m = zip(*pts)
        ax[0].loglog(n, t, "o-", label=f"{name} (b={exponent(n, t):.2f})")
        ax[1].loglog(n, m, "o-", label=name)
    ax[0].set(xlabel="n", ylabel="time of the clustering call (s)", title="time")
    ax[1].set(xlabel="n", ylabel="peak memory of the process (MB)", title="memory")
    for a in ax:
        a.grid(True, which="both", alpha=0.3)
    ax[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(RESULTS, "scaling.png"), dpi=120)


if __name__ == "__main__":
    main()
