"""Where the certified float32 pass pays: dtype="float32" and the default dtype="auto"
against dtype="float64" on the matrix-free engine, across n, D, k, alpha, the overlap
of the clusters, the semimetrics and the starts, in one run.

    python benchmarks/bench_dtype.py [--rounds 3] [--quick] [--out FILE]

Every row fits ``make_blobs(n, D, centers=k, cluster_std=std, random_state=7)``
(``std`` 2.5, and a k-means++ start, unless the row says otherwise) with
``engine="matrix-free"`` in float64, in float32 and with ``dtype="auto"``, alternated
``--rounds`` times in this process (the fastest of each kept: other jobs share the
cores), after a warm-up fit of each. Printed per row: the times, float32 / float64,
whether the labels are identical, the relative difference of W, the share of the
pairs the float32 pass left out, the decisions made again from exact values and the
times q was made exact (``engine_stats_``), then the pass ``dtype="auto"`` ran on
the row's data and its time over float64's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

BASE = {"n": 20_000, "D": 10, "k": 10, "semimetric": "energy", "alpha": 1.0, "init":
        "k-means++", "n_init": 1, "std": 2.5}


def grid(quick):
    """The rows: the base configuration, then one parameter varied at a time."""
    rows = [{}]
    ns = (2000, 5000, 10_000, 50_000) if not quick else (2000, 5000)
    rows += [{"n": n} for n in ns]
    rows += [{"D": d} for d in ((2, 3, 30, 100) if not quick else (2,))]
    rows += [{"k": k} for k in ((2, 5, 30) if not quick else (3,))]
    rows += [{"alpha": a} for a in ((0.5, 1.5, 2.0) if not quick else (0.5,))]
    rows += [{"semimetric": "gaussian", "sigma": 4.0}, {"semimetric": "laplacian", "sigma": 2.0}]
    rows += [{"n_init": 10}, {"init": "random", "n_init": 3}]
    if not quick:  # the default start; overlapping clusters; few features
        rows += [{"init": "kernel-k-means++"}, {"n": 50_000, "init": "kernel-k-means++"},
                 {"std": 4.0}, {"n": 50_000, "std": 4.0}, {"n": 50_000, "D": 4}]
    if quick:
        rows = [dict(r, n=min(r.get("n", 3000), 3000)) for r in rows]
    return [{**BASE, **r} for r in rows]


def fit(X, cfg, dtype):
    from kgroups import KernelKGroups

    kw = {key: cfg[key] for key in ("init", "n_init", "alpha") if key in cfg}
    if "sigma" in cfg:
        kw["sigma"] = cfg["sigma"]
    est = KernelKGroups(cfg["k"], engine="matrix-free", semimetric=cfg["semimetric"],
                        dtype=dtype, random_state=0, **kw)
    t = time.perf_counter()
    est.fit(X)
    return time.perf_counter() - t, est


def run_row(cfg, rounds):
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(cfg["n"], cfg["D"], centers=cfg["k"], cluster_std=cfg["std"],
                      random_state=7)
    for dtype in ("float64", "float32"):
        fit(X[:min(len(X), 2000)], cfg, dtype)  # load (or compile) the kernels
    best = {}
    order = ("float64", "float32", "auto")
    for r in range(rounds):
        for dtype in (order if r % 2 == 0 else order[::-1]):
            t, est = fit(X, cfg, dtype)
            if dtype not in best or t < best[dtype][0]:
                best[dtype] = (t, est)
    (t64, a), (t32, b), (tau, c) = best["float64"], best["float32"], best["auto"]
    st = b.engine_stats_
    return {"t64": t64, "t32": t32, "same": bool(np.array_equal(a.labels_, b.labels_)),
            "dW": abs(b.within_energy_ / a.within_energy_ - 1.0),
            "left": st.get("pairs_left_out", 0.0),
            "fallbacks": st.get("float64_decisions", 0), "exact_q": st.get("exact_q", 0),
            "groups64": st.get("float64_groups", 0),
            "auto": c.engine_stats_.get("pass_dtype", "float64").split(" ")[0],
            "tau": tau}


def label(cfg):
    parts = [f"n={cfg['n']}", f"D={cfg['D']}", f"k={cfg['k']}"]
    parts.append(cfg["semimetric"] if cfg["semimetric"] != "energy" else f"alpha={cfg['alpha']}")
    parts.append(f"{cfg['init']} x{cfg['n_init']}")
    if cfg["std"] != BASE["std"]:
        parts.append(f"std={cfg['std']}")
    return " ".join(parts)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--quick", action="store_true")
    p.add_argument("--out", default=None)
    args = p.parse_args(argv)
    import kgroups

    lines = [f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}, "
             f"{os.cpu_count()} cores; {args.rounds} rounds alternated, fastest kept",
             "",
             "| configuration | float64 s | float32 s | f32/f64 | same labels | W rel diff "
             "| pairs left out | float64 decisions | exact q | float64 groups | auto | "
             "auto/f64 |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(lines), flush=True)
    for cfg in grid(args.quick):
        r = run_row(cfg, args.rounds)
        line = (f"| {label(cfg)} | {r['t64']:.3f} | {r['t32']:.3f} | {r['t32'] / r['t64']:.2f} "
                f"| {r['same']} | {r['dW']:.1e} | {r['left']:.2f} | {r['fallbacks']} | "
                f"{r['exact_q']} | {r['groups64']} | {r['auto']} | {r['tau'] / r['t64']:.2f} |")
        print(line, flush=True)
        lines.append(line)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
