"""The exact engine against the machine's bound, in float64 and float32: a roofline of a
matrix-free fit.

    python benchmarks/bench_roofline.py [--n 100000] [--repeat 2] [--dtype DTYPE] [--out FILE]

In one process, on the threads numba runs on:

* **the bound**, in float64 and in float32: square roots per second and additions
  and multiplications per second of vectorised numba loops (no fast-math, as
  kgroups' kernels compile), the best of three runs each, measured before and after
  the fits (the faster kept: other jobs may share the cores);
* **the fit** ``KernelKGroups(10, n_init=1, init="k-means++", engine="matrix-free",
  random_state=0)`` of ``make_blobs(n, 10, centers=10, cluster_std=2.5,
  random_state=5)`` with the estimator's default ``dtype`` (or ``--dtype``), its
  kernels loaded by a warm-up fit of 3,000 points, the best of ``--repeat``, by
  phase: validation and the engine (*prepare*), the k-means++ start, the pass over
  the pairs that builds ``M`` of the start, the sweeps (the decisions and the moves
  applied to ``M``) and the finish (W, exact after a float32 pass);
* **the pass alone**, ``M`` of the fit's start built again, best of three: the
  float64 pass and, where this kgroups has it, the certified float32 pass (the
  pairs of a cluster in float64, the others in float32, or left out where the
  clusters' means bound their sums);
* **the pass's inner loop** on one thread, per 1,024 pairs, in its parts (the
  leading dimensions' passes, the fused loop of the last two with the square root
  and both sides) against the square roots of the same values alone, in float64 and
  (where this kgroups has it) in float32.

Each phase's work is counted, so that its time can be set against both bounds: the
pass visits the n (n - 1) / 2 unordered pairs once (less those it leaves out), each
with one square root and
3 D + 4 additions and multiplications (the squared distance by differences, then
the weighted value added to two cluster sums); a move computes its point's n
kernel entries (one square root, 3 D + 3 operations each). *sqrt64* and *sqrt32*
are the times of the phase's square roots at the measured float64 and float32
rates, *flop64* and *flop32* those of its operations; the two ratios are the
phase's time over each square-root bound. The last lines set the whole fit against
n (n - 1) square roots (every ordered pair once) at the measured float64 rate (the
yardstick of the exact engine's speed) and at the float32 rate, and compare its labels
and W with the same fit in ``dtype="float64"``.

Run it with ``PYTHONPATH=<another tree>/src`` to measure another version of kgroups
on the same machine (the benchmark uses ``KernelKGroups`` and the matrix-free
engine's ``build_m``; the float32 pass and the inner loop's parts only where this
kgroups has them).
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def bound_rates(dtype=np.float64):
    """``(sqrt_per_s, flop_per_s, threads)`` of vectorised loops in ``dtype`` on numba's
    threads."""
    import numba

    @numba.njit(parallel=True)
    def sqrts(reps, buf, src):
        nt = buf.shape[0]
        tot = np.zeros(nt)
        for th in numba.prange(nt):
            b = buf[th]
            for r in range(reps // nt):
                x = src[r % 7]
                for t in range(512):
                    b[t] = np.sqrt(src[t] + x)
                tot[th] += b[r % 512]
        return tot.sum()

    @numba.njit(parallel=True)
    def flops(reps, buf, src):
        # 8 multiply-add steps per element (16 operations), independent across t
        nt = buf.shape[0]
        tot = np.zeros(nt)
        for th in numba.prange(nt):
            b = buf[th]
            for r in range(reps // nt):
                a = src[r % 3]
                for t in range(512):
                    u = src[t]
                    v = b[t]
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    b[t] = v
            tot[th] = b[5]
        return tot.sum()

    nt = numba.get_num_threads()
    src = (np.arange(512) + 1.0).astype(dtype)
    buf = np.zeros((nt, 512), dtype=dtype)
    sqrts(64, buf, src)
    flops(64, buf, src)
    reps = 400_000
    best_s = best_f = math.inf
    for _ in range(3):
        t = time.perf_counter()
        sqrts(reps, buf, src)
        best_s = min(best_s, time.perf_counter() - t)
        buf[:] = 0
        t = time.perf_counter()
        flops(reps, buf, src)
        best_f = min(best_f, time.perf_counter() - t)
    return reps * 512 / best_s, reps * 512 * 16 / best_f, nt


def inner_loop(D, reps=20_000, dtype=np.float64):
    """Nanoseconds per 1,024 pairs on one thread of the pass's inner loop, in parts:
    ``(leading, fused, sqrt_alone)`` in ``dtype``, or None when this kgroups has no such
    kernels (float32: ``pairs_mixed.energy_segment32``).

    Four rows against one tile of columns in cache, as the pass meets them: the first
    D - 2 dimensions' squared differences in passes of eight, four or two
    (``pairs_sym.leading_dims``; ``pairs_mixed.leading32`` in float32), then the loop
    that adds the last two, takes the square root and adds the weighted values to both
    sides (``pairs_sym.energy_segment``, ``pairs_mixed.energy_segment32``); and the
    square roots of the same 4 x TILE values alone, in a vectorised loop. The best of
    five runs each.
    """
    import numba

    try:
        from kgroups._kernels import pairs_sym
        if dtype == np.float64:
            leading = pairs_sym.leading_dims.dispatcher
            seg = pairs_sym.energy_segment.dispatcher
        else:
            from kgroups._kernels import pairs_mixed
            leading = pairs_mixed.leading32.dispatcher
            seg = pairs_mixed.energy_segment32.dispatcher
    except (ImportError, AttributeError):  # another version of kgroups
        return None
    m = pairs_sym.TILE
    f64 = dtype == np.float64

    @numba.njit
    def run(part, XT, idx, out, ws, w4, buf, dst, reps):
        for r in range(reps):
            c0 = 4 + (r % 8) * m
            if part == 0:
                leading(XT, idx, c0, c0 + m, out)
            elif part == 1:
                if f64:
                    seg(XT, idx, c0, c0 + m, out, 0, ws, buf, 0, dst)
                else:
                    seg(XT, idx, c0, c0 + m, out, 0, ws, w4, buf, 0, dst)
            else:
                for q in range(4):
                    o, b = out[q], buf[q]
                    for t in range(m):
                        b[t] = np.sqrt(o[t])
        return buf[0, r % m]

    rng = np.random.default_rng(0)
    XT = np.ascontiguousarray(rng.normal(size=(D, 4 + 8 * m))).astype(dtype)
    idx = np.arange(4)
    ws, dst = np.ones(XT.shape[1], dtype=dtype), np.zeros(XT.shape[1])
    w4 = np.ones(4, dtype=dtype)
    out, buf = np.zeros((4, m), dtype=dtype), np.zeros((4, m), dtype=dtype)
    best = [math.inf] * 3
    for part in range(3):
        run(part, XT, idx, out, ws, w4, buf, dst, 2)
    for _ in range(5):
        for part in range(3):
            out[:] = 1.0 + rng.random(out.shape)
            t = time.perf_counter()
            run(part, XT, idx, out, ws, w4, buf, dst, reps)
            best[part] = min(best[part], time.perf_counter() - t)
    return tuple(b / reps / (4 * m) * 1024 * 1e9 for b in best)


def fit_phases(X, repeat, dtype=None):
    """The fastest of ``repeat`` fits (``dtype`` None: the estimator's default):
    ``(seconds, phases, estimator)``."""
    from kgroups import KernelKGroups

    kw = dict(n_init=1, init="k-means++", engine="matrix-free", random_state=0)
    if dtype is not None:
        kw["dtype"] = dtype
    KernelKGroups(10, **kw).fit(X[:3000])  # load (or compile) the kernels
    best = None
    for _ in range(repeat):
        est = KernelKGroups(10, **kw)
        t = time.perf_counter()
        est.fit(X)
        total = time.perf_counter() - t
        if best is None or total < best[0]:
            best = (total, dict(est.engine_stats_["seconds"]), est)
    return best


def pass_alone(X, labels, k):
    """Seconds of ``M`` built from ``labels`` by the matrix-free engine (best of 3):
    ``(float64 pass, certified float32 pass or None)``."""
    from kgroups._engines.matrix_free import MatrixFreeEngine

    eng = MatrixFreeEngine(X, np.ones(X.shape[0]), "energy", {})
    mixed = None
    try:
        eng32 = MatrixFreeEngine(X, np.ones(X.shape[0]), "energy", {}, float32=True)
        if getattr(eng32, "_f32", None) is not None:
            mixed = eng32
    except TypeError:  # another version of kgroups
        pass
    times = {"f64": [], "f32": []}
    for _ in range(3):
        t = time.perf_counter()
        eng.build_m(labels, k)
        times["f64"].append(time.perf_counter() - t)
        if mixed is not None:
            t = time.perf_counter()
            mixed._build_certified(np.asarray(labels, dtype=np.int64)[None], k)
            times["f32"].append(time.perf_counter() - t)
    return min(times["f64"]), (min(times["f32"]) if times["f32"] else None)


def kmeanspp_start(X, k, seed=0):
    """Labels of the k-means++ start the fit makes (the nearest of k seeded centres)."""
    from sklearn.cluster import kmeans_plusplus

    centers, _ = kmeans_plusplus(X, k, random_state=seed)
    d = ((X[:, None, :] - centers[None]) ** 2).sum(-1)
    return np.argmin(d, axis=1)


def table(rows, rates):
    """The Markdown rows of the phases against both bounds."""
    s64, s32, f64, f32 = rates

    def f(x, fmt):
        return "" if x is None else format(x, fmt)

    lines = ["| phase | seconds | work | per second | sqrt64 s | sqrt32 s | flop64 s "
             "| flop32 s | / sqrt64 | / sqrt32 |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for phase, sec, work, unit, sqrts, flops in rows:
        b = [sqrts / s64 if sqrts else None, sqrts / s32 if sqrts else None,
             flops / f64 if flops else None, flops / f32 if flops else None]
        lines.append(
            f"| {phase} | {sec:.3f} | {work:.3g} {unit} | "
            f"{work / sec / 1e9 if sec > 0 else 0:.2f} G | {f(b[0], '.3f')} | "
            f"{f(b[1], '.3f')} | {f(b[2], '.3f')} | {f(b[3], '.3f')} | "
            f"{f(sec / b[0] if b[0] else None, '.2f')} | "
            f"{f(sec / b[1] if b[1] else None, '.2f')} |")
    return lines


def loop_lines(D):
    """The inner loop's parts in float64 and float32, as text."""
    lines = []
    for dtype, name in ((np.float64, "float64"), (np.float32, "float32")):
        loop = inner_loop(D, dtype=dtype)
        if loop is None:
            continue
        lead, fused, alone = loop
        lines += ["",
                  f"The pass's inner loop in {name} on one thread, per 1,024 pairs (four rows "
                  f"against a tile of columns in cache, D = {D}): the passes of the first "
                  f"{D - 2} dimensions **{lead:.0f} ns**, the loop of the last two with the "
                  f"square root and both sides **{fused:.0f} ns**, together "
                  f"**{lead + fused:.0f} ns**; the square roots of the same values alone "
                  f"**{alone:.0f} ns** ({(lead + fused) / alone:.2f}x)."]
    return lines


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--dtype", default=None, help="the fit's dtype (default: the estimator's)")
    p.add_argument("--out", default=None, help="also write the Markdown table here")
    args = p.parse_args(argv)
    import kgroups
    from sklearn.datasets import make_blobs

    n, D, k = args.n, 10, 10
    X, _ = make_blobs(n, D, centers=k, cluster_std=2.5, random_state=5)
    # the bound before and after the fits, the fastest kept (other jobs share the cores)
    s64, f64, threads = bound_rates(np.float64)
    s32, f32, _ = bound_rates(np.float32)
    total, ph, est = fit_phases(X, args.repeat, args.dtype)
    pairs = n * (n - 1) / 2
    t_pass, t_pass32 = pass_alone(X, kmeanspp_start(X, k), k)
    after64, after32 = bound_rates(np.float64), bound_rates(np.float32)
    s64, f64 = max(s64, after64[0]), max(f64, after64[1])
    s32, f32 = max(s32, after32[0]), max(f32, after32[1])
    moves = int(sum(est.n_moves_))
    entries = moves * n
    n_trials = 2 + int(np.log(k))
    stats = {key: v for key, v in est.engine_stats_.items() if key != "seconds"}
    # the pairs the pass sums (the certified pass leaves out the pairs of start clusters
    # whose sums the clusters' means bound)
    summed = pairs * (1.0 - float(stats.get("pairs_left_out", 0.0)))
    pass_name = "pass over the pairs (M of the start)" + (
        f"; {100 * stats['pairs_left_out']:.0f} % of them left out"
        if stats.get("pairs_left_out") else "")
    rows = [("prepare (validation, centring)", ph.get("prepare", 0.0), n * D, "values", 0, 0),
            ("k-means++ start", ph.get("init", 0.0), n * k * n_trials, "distances", 0,
             n * k * n_trials * 3 * D),
            (pass_name, ph.get("start", 0.0), summed, "pairs", summed, summed * (3 * D + 4)),
            ("sweeps (decisions and moves)", ph.get("sweeps", 0.0), entries,
             "kernel entries", entries, entries * (3 * D + 3)),
            ("finish (W)", ph.get("finish", 0.0), n, "points", 0, 0),
            ("the float64 pass alone, best of 3", t_pass, pairs, "pairs", pairs,
             pairs * (3 * D + 4))]
    if t_pass32 is not None:
        rows.append(("the certified float32 pass alone, best of 3", t_pass32, summed, "pairs",
                     summed, summed * (3 * D + 4)))
    lines = [f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}",
             f"{platform.machine()}, {os.cpu_count()} cores, python "
             f"{platform.python_version()}, {datetime.date.today().isoformat()}",
             "command: python benchmarks/bench_roofline.py" + (
                 f" --n {n}" if n != 100_000 else "") + (
                 f" --dtype {args.dtype}" if args.dtype else "") + (
                 f" --out {args.out}" if args.out else ""),
             "",
             f"Bound on {threads} threads: float64 **{s64 / 1e9:.2f} G square roots/s**, "
             f"**{f64 / 1e9:.1f} G additions and multiplications/s**; float32 "
             f"**{s32 / 1e9:.2f} G square roots/s** ({s32 / s64:.2f}x), **{f32 / 1e9:.1f} G "
             f"additions and multiplications/s** ({f32 / f64:.2f}x) (vectorised numba loops).",
             "",
             f"`make_blobs({n}, {D}, centers={k}, cluster_std=2.5)`, k = {k}, one k-means++ "
             f"start, engine=\"matrix-free\", dtype={est.dtype!r}: {est.n_iter_} sweeps, "
             f"{moves} moves" + (f"; {stats}" if stats else "") + ".",
             ""]
    lines += table(rows, (s64, s32, f64, f32))
    bound64, bound32 = n * (n - 1) / s64, n * (n - 1) / s32
    lines += ["",
              f"Whole fit: **{total:.2f} s** = **{total / bound64:.2f}x** the time of "
              f"n (n - 1) = {n * (n - 1):.3g} float64 square roots at the measured rate "
              f"({bound64:.2f} s), **{total / bound32:.2f}x** that of as many float32 square "
              f"roots ({bound32:.2f} s); the pass over the n (n - 1) / 2 pairs is "
              f"{ph.get('start', 0.0) / bound64:.2f}x of the float64 bound."]
    if args.dtype != "float64":
        from kgroups import KernelKGroups

        ref = KernelKGroups(k, n_init=1, init="k-means++", engine="matrix-free",
                            random_state=0, dtype="float64").fit(X)
        same = bool(np.array_equal(ref.labels_, est.labels_))
        rel = abs(est.within_energy_ - ref.within_energy_) / abs(ref.within_energy_)
        lines += ["", f"Against `dtype=\"float64\"`: labels identical **{same}**, W relative "
                  f"difference {rel:.1e}."]
    lines += loop_lines(D)
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
