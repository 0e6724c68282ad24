"""Scaling curves: time and peak memory against n for each method, same run.

Blobs with D=10, k=10, n = 1k ... 1M; all methods start from the same random
labels where they accept them. A method is not run at larger n once it took
more than ``--cap`` seconds (or failed). The growth exponent is the slope of
log(time) on log(n) over the points with n >= 5,000. Each row also holds the ARI
of the labels against the generating blobs and, up to 20,000 points, their
within energy W (the Performance page's summary table reads them). Writes
``scaling.csv``, ``scaling.png`` (time against n, log-log, the machine in one
line under it) and ``scaling_memory.png`` into ``--results`` (default
``benchmarks/results``).

``--quick``: n = 500 and 2,000 only (a smoke run, about half a minute);
``--plot-only``: redraw the figures from the CSV already in ``--results``, with
the machine line given by ``--machine``.

Usage: python benchmarks/bench_scaling.py [--cap 120] [--max-n 1000000] [--quick]
       [--results DIR] [--plot-only] [--machine TEXT]
"""

from __future__ import annotations

import argparse
import csv
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _peers  # noqa: E402
from bench_engines import RESULTS, data  # noqa: E402

SIZES = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000]
QUICK_SIZES = [500, 2_000]
K = 10
W_MAX_N = 20_000  # W is recomputed exactly (O(n^2 D)) up to this n
FIELDS = ["method", "n", "time_s", "peak_MB", "W", "ARI", "error"]


def machine():
    """This machine in one line: CPU, cores, memory, system, Python, date."""
    try:
        mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
        memory = f", {mem:.0f} GB of memory"
    except (ValueError, OSError, AttributeError):
        memory = ""
    return (f"{platform.machine()} {platform.system()}, {os.cpu_count()} cores{memory}, "
            f"Python {platform.python_version()}, {time.strftime('%Y-%m-%d')}")


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


def quality(X, y, labels, n):
    """(W or None, ARI or None) of ``labels``."""
    from sklearn.metrics import adjusted_rand_score

    if labels is None:
        return None, None
    W = _peers.exact_quality(X, labels, K)[0] if n <= W_MAX_N else None
    return W, float(adjusted_rand_score(y, labels))


def measure(sizes, cap):
    """One row per method and n, every method on the same data and start."""
    todo = methods(_peers.have_r("energy"))
    alive = {name: True for name, _ in todo}
    rows = []
    for n in sizes:
        X, y, start = data(n, 10, K)
        wd = _peers.Workdir(X, start)
        try:
            for name, run in todo:
                if not alive[name]:
                    continue
                res = run(wd)
                t = res.get("time")
                peak = None if res["peak"] is None else res["peak"] / 2**20
                W, ari = quality(X, y, res["labels"], n)
                rows.append({"method": name, "n": n, "time_s": t, "peak_MB": peak, "W": W,
                             "ARI": ari, "error": res["error"]})
                print(f"{name:<22} n={n:>8}  time={t if t is None else round(t, 3)}  "
                      f"peak MB={peak if peak is None else round(peak)}  "
                      f"ARI={ari if ari is None else round(ari, 3)}  {res['error'] or ''}",
                      flush=True)
                if t is None or t > cap:
                    alive[name] = False
        finally:
            wd.close()
    return rows, [name for name, _ in todo]


def read_rows(path):
    """The rows of a scaling CSV, numbers as floats (None when empty)."""
    with open(path, newline="") as fh:
        rows = list(csv.DictReader(fh))
    for r in rows:
        r["n"] = int(r["n"])
        for key in ("time_s", "peak_MB", "W", "ARI"):
            r[key] = float(r[key]) if r.get(key) else None
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cap", type=float, default=120.0)
    ap.add_argument("--max-n", type=int, default=1_000_000)
    ap.add_argument("--quick", action="store_true", help="n = 500 and 2000 only")
    ap.add_argument("--results", default=RESULTS, help="folder of the CSV and figures")
    ap.add_argument("--plot-only", action="store_true",
                    help="redraw the figures from the CSV in --results")
    ap.add_argument("--machine", default=None, help="the machine line under the figure")
    args = ap.parse_args()
    os.makedirs(args.results, exist_ok=True)
    path = os.path.join(args.results, "scaling.csv")
    if args.plot_only:
        rows = read_rows(path)
        names = list(dict.fromkeys(r["method"] for r in rows))
    else:
        sizes = QUICK_SIZES if args.quick else [s for s in SIZES if s <= args.max_n]
        rows, names = measure(sizes, args.cap)
        with open(path, "w", newline="") as fh:
            wr = csv.DictWriter(fh, fieldnames=FIELDS)
            wr.writeheader()
            wr.writerows(rows)
    print("\ngrowth exponents (time ~ n^b, n >= 5,000):")
    for name in names:
        pts = [(r["n"], r["time_s"]) for r in rows if r["method"] == name and r["time_s"]]
        if pts:
            print(f"  {name:<22} b = {exponent(*zip(*pts)):.2f}  (largest n run: {pts[-1][0]})")
    plot(rows, names, args.results, args.machine or machine())


def _curves(rows, names, key):
    for name in names:
        pts = [(r["n"], r[key]) for r in rows if r["method"] == name and r["time_s"]
               and r[key]]
        if pts:
            yield name, list(zip(*pts))


def plot(rows, names, folder, where):
    """``scaling.png`` (time) and ``scaling_memory.png`` (peak memory) against n."""
    try:
        import matplotlib
    except ModuleNotFoundError as err:
        raise SystemExit("bench_scaling.py draws scaling.png with matplotlib (the plot "
                         "extra)") from err

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for key, name, ylabel in (("time_s", "scaling.png", "time of the clustering call (s)"),
                              ("peak_MB", "scaling_memory.png",
                               "peak memory of the process (MB)")):
        fig, ax = plt.subplots(figsize=(7.2, 4.6))
        for method, (n, v) in _curves(rows, names, key):
            style = "s--" if method.startswith(("R ", "sklearn")) else "o-"
            b = exponent(n, v) if key == "time_s" else float("nan")
            label = method if np.isnan(b) else f"{method} (b={b:.2f})"
            ax.loglog(n, v, style, ms=4, label=label)
        ax.set(xlabel="n (points; blobs, D = 10, k = 10)", ylabel=ylabel)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8, loc="upper left")
        fig.text(0.01, 0.01, f"Measured in one run on {where}.", fontsize=7.5,
                 color="0.3")
        fig.tight_layout(rect=(0, 0.04, 1, 1))
        fig.savefig(os.path.join(folder, name), dpi=120)
        plt.close(fig)


if __name__ == "__main__":
    main()
