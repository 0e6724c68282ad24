"""The exact engine against the machine's bound: a roofline of a matrix-free fit.

    python benchmarks/bench_roofline.py [--n 100000] [--repeat 2] [--out FILE]

In one process, on the threads numba runs on:

* **the bound**: square roots per second and float64 additions and multiplications
  per second of vectorised numba loops (no fast-math, as kgroups' kernels compile),
  the best of three runs each;
* **the fit** ``KernelKGroups(10, n_init=1, init="k-means++", engine="matrix-free",
  random_state=0)`` of ``make_blobs(n, 10, centers=10, cluster_std=2.5,
  random_state=5)`` (its kernels loaded by a warm-up fit of 3,000 points), the best
  of ``--repeat``, by phase: validation and the engine (*prepare*), the k-means++
  start, the pass over the pairs that builds ``M`` of the start, the sweeps (the
  decisions and the moves applied to ``M``);
* **the pass alone**, ``M`` of the fit's start built again, best of three;
* **the pass's inner loop** on one thread, per 1,024 pairs, in its parts (the
  leading dimensions' passes, the fused loop of the last two with the square root
  and both sides) against the square roots of the same values alone.

Each phase's work is counted, so that its time can be set against the bound: the
pass visits the n (n - 1) / 2 unordered pairs once, each with one square root and
3 D + 4 additions and multiplications (the squared distance by differences, then
the weighted value added to two cluster sums); a move computes its point's n
kernel entries (one square root, 3 D + 3 operations each). *sqrt bound* is the
time of the phase's square roots at the measured rate, *flop bound* that of its
operations; the ratio is the phase's time over its sqrt bound. The last line sets
the whole fit against n (n - 1) square roots (every ordered pair once) at the
measured rate.

Run it with ``PYTHONPATH=<another tree>/src`` to measure another version of kgroups
on the same machine (the benchmark uses ``KernelKGroups`` and the matrix-free
engine's ``build_m``; the inner loop's parts only where ``kgroups._kernels.pairs_sym``
exists).
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


def bound_rates():
    """``(sqrt_per_s, flop_per_s, threads)`` of vectorised loops on numba's threads."""
    import numba

    @numba.njit(parallel=True)
    def sqrts(reps):
        nt = numba.get_num_threads()
        tot = np.zeros(nt)
        for th in numba.prange(nt):
            buf = np.empty(512)
            src = np.arange(512) + 1.0
            for r in range(reps // nt):
                x = r * 1e-9
                for t in range(512):
                    buf[t] = np.sqrt(src[t] + x)
                tot[th] += buf[r % 512]
        return tot.sum()

    @numba.njit(parallel=True)
    def flops(reps):
        # 8 multiply-add steps per element (16 operations), independent across t
        nt = numba.get_num_threads()
        tot = np.zeros(nt)
        for th in numba.prange(nt):
            buf = np.zeros(512)
            src = np.arange(512) + 1.0
            for r in range(reps // nt):
                a = 1.0 + r * 1e-12
                for t in range(512):
                    u = src[t]
                    v = buf[t]
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    v = v + a * u
                    buf[t] = v
            tot[th] = buf[5]
        return tot.sum()

    sqrts(64)
    flops(64)
    reps = 400_000
    best_s = best_f = math.inf
    for _ in range(3):
        t = time.perf_counter()
        sqrts(reps)
        best_s = min(best_s, time.perf_counter() - t)
        t = time.perf_counter()
        flops(reps)
        best_f = min(best_f, time.perf_counter() - t)
    return reps * 512 / best_s, reps * 512 * 16 / best_f, numba.get_num_threads()


def inner_loop(D, reps=20_000):
    """Nanoseconds per 1,024 pairs on one thread of the pass's inner loop, in parts:
    ``(leading, fused, sqrt_alone)`` or None when this kgroups has no such kernels.

    Four rows against one tile of columns in cache, as the pass meets them: the first
    D - 2 dimensions' squared differences in passes of eight, four or two
    (``pairs_sym.leading_dims``), then the loop that adds the last two, takes the square
    root and adds the weighted values to both sides (``pairs_sym.energy_segment``); and
    the square roots of the same 4 x TILE values alone, in a vectorised loop. The best
    of five runs each.
    """
    import numba

    try:
        from kgroups._kernels import pairs_sym
    except ImportError:  # another version of kgroups
        return None
    leading = pairs_sym.leading_dims.dispatcher
    fused = pairs_sym.energy_segment.dispatcher
    m = pairs_sym.TILE

    @numba.njit
    def run(part, XT, idx, out, ws, buf, dst, reps):
        for r in range(reps):
            c0 = 4 + (r % 8) * m
            if part == 0:
                leading(XT, idx, c0, c0 + m, out)
            elif part == 1:
                fused(XT, idx, c0, c0 + m, out, 0, ws, buf, 0, dst)
            else:
                for q in range(4):
                    o, b = out[q], buf[q]
                    for t in range(m):
                        b[t] = np.sqrt(o[t])
        return buf[0, r % m]

    rng = np.random.default_rng(0)
    XT = np.ascontiguousarray(rng.normal(size=(D, 4 + 8 * m)))
    idx = np.arange(4)
    ws, dst = np.ones(XT.shape[1]), np.zeros(XT.shape[1])
    out, buf = np.zeros((4, m)), np.zeros((4, m))
    best = [math.inf] * 3
    for part in range(3):
        run(part, XT, idx, out, ws, buf, dst, 2)
    for _ in range(5):
        for part in range(3):
            out[:] = 1.0 + rng.random(out.shape)
            t = time.perf_counter()
            run(part, XT, idx, out, ws, buf, dst, reps)
            best[part] = min(best[part], time.perf_counter() - t)
    return tuple(b / reps / (4 * m) * 1024 * 1e9 for b in best)


def fit_phases(X, repeat):
    """The fastest of ``repeat`` fits: ``(seconds, phases, estimator)``."""
    from kgroups import KernelKGroups

    kw = dict(n_init=1, init="k-means++", engine="matrix-free", random_state=0)
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
    """Seconds of ``M`` built from ``labels`` by the matrix-free engine (best of 3)."""
    from kgroups._engines.matrix_free import MatrixFreeEngine

    eng = MatrixFreeEngine(X, np.ones(X.shape[0]), "energy", {})
    times = []
    for _ in range(3):
        t = time.perf_counter()
        eng.build_m(labels, k)
        times.append(time.perf_counter() - t)
    return min(times)


def kmeanspp_start(X, k, seed=0):
    """Labels of the k-means++ start the fit makes (the nearest of k seeded centres)."""
    from sklearn.cluster import kmeans_plusplus

    centers, _ = kmeans_plusplus(X, k, random_state=seed)
    d = ((X[:, None, :] - centers[None]) ** 2).sum(-1)
    return np.argmin(d, axis=1)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--out", default=None, help="also write the Markdown table here")
    args = p.parse_args(argv)
    import kgroups
    from sklearn.datasets import make_blobs

    n, D, k = args.n, 10, 10
    X, _ = make_blobs(n, D, centers=k, cluster_std=2.5, random_state=5)
    sqrt_rate, flop_rate, threads = bound_rates()
    total, ph, est = fit_phases(X, args.repeat)
    pairs = n * (n - 1) / 2
    t_pass = pass_alone(X, kmeanspp_start(X, k), k)
    moves = int(sum(est.n_moves_))
    entries = moves * n
    n_trials = 2 + int(np.log(k))
    rows = []

    def row(phase, seconds, work, unit, sqrts, flops):
        s_b = sqrts / sqrt_rate if sqrts else None
        f_b = flops / flop_rate if flops else None
        rows.append((phase, seconds, work, unit, s_b, f_b,
                     seconds / s_b if s_b else None))

    row("prepare (validation, centring)", ph.get("prepare", 0.0), n * D, "values", 0, 0)
    row("k-means++ start", ph.get("init", 0.0), n * k * n_trials, "distances", 0,
        n * k * n_trials * 3 * D)
    row("pass over the pairs (M of the start)", ph.get("start", 0.0), pairs, "pairs", pairs,
        pairs * (3 * D + 4))
    row("sweeps (decisions and moves)", ph.get("sweeps", 0.0) + ph.get("finish", 0.0),
        entries, "kernel entries", entries, entries * (3 * D + 3))
    row("the pass alone, best of 3", t_pass, pairs, "pairs", pairs, pairs * (3 * D + 4))
    fit_bound = n * (n - 1) / sqrt_rate

    def f(x, fmt):
        return "" if x is None else format(x, fmt)

    lines = [f"kgroups {kgroups.__version__} from {os.path.dirname(kgroups.__file__)}",
             f"{platform.machine()}, {os.cpu_count()} cores, python "
             f"{platform.python_version()}, {datetime.date.today().isoformat()}",
             "command: python benchmarks/bench_roofline.py" + (
                 f" --n {n}" if n != 100_000 else "") + (
                 f" --out {args.out}" if args.out else ""),
             "",
             f"Bound on {threads} threads: **{sqrt_rate / 1e9:.2f} G square roots/s**, "
             f"**{flop_rate / 1e9:.1f} G additions and multiplications/s** (vectorised "
             "numba loops, float64).",
             "",
             f"`make_blobs({n}, {D}, centers={k}, cluster_std=2.5)`, k = {k}, one k-means++ "
             f"start, engine=\"matrix-free\": {est.n_iter_} sweeps, {moves} moves.",
             "",
             "| phase | seconds | work | per second | sqrt bound s | flop bound s "
             "| seconds / sqrt bound |",
             "|---|---|---|---|---|---|---|"]
    for phase, sec, work, unit, s_b, f_b, ratio in rows:
        lines.append(f"| {phase} | {sec:.3f} | {work:.3g} {unit} | "
                     f"{work / sec / 1e9 if sec > 0 else 0:.2f} G | {f(s_b, '.3f')} | "
                     f"{f(f_b, '.3f')} | {f(ratio, '.2f')} |")
    lines += ["",
              f"Whole fit: **{total:.2f} s** = **{total / fit_bound:.2f}x** the time of "
              f"n (n - 1) = {n * (n - 1):.3g} square roots at the measured rate "
              f"({fit_bound:.2f} s); the pass over the n (n - 1) / 2 pairs is "
              f"{ph.get('start', 0.0) / fit_bound:.2f}x of it."]
    loop = inner_loop(D)
    if loop is not None:
        lead, fused, alone = loop
        lines += ["",
                  f"The pass's inner loop on one thread, per 1,024 pairs (four rows against "
                  f"a tile of columns in cache, D = {D}): the passes of the first {D - 2} "
                  f"dimensions **{lead:.0f} ns**, the loop of the last two with the "
                  f"square root and both sides **{fused:.0f} ns**, together "
                  f"**{lead + fused:.0f} ns**; the square roots of the same values alone "
                  f"**{alone:.0f} ns** ({(lead + fused) / alone:.2f}x). The arithmetic does "
                  "not run in the square roots' shadow: the fused loop takes "
                  f"{fused - alone:.0f} ns more than its square roots, and the passes "
                  "before it their whole time."]
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
