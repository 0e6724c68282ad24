"""The GPU engine beside the CPU matrix-free engine (every core), in one run.

    python benchmarks/bench_gpu.py                      # the rows below, on a CUDA device
    python benchmarks/bench_gpu.py --n-pass 20000 --n-fit 20000 --n-big 0   # smaller
    NUMBA_ENABLE_CUDASIM=1 python benchmarks/bench_gpu.py --smoke           # no device

Data: ``make_blobs(n, 10, centers=10, cluster_std=2.5, random_state=0)``, k = 10
(overlapping clusters). Rows:

1. **one exact pass** ``M = B Z`` at ``--n-pass`` points (default 10^6), from a
   k-means++ start: the device's time (the fit's ``"start"`` phase: the pass, with
   the transfer of the labels and of M back), pairs per second (n^2 / time), and
   the relative error of the fit's W (from the device's sums) against the float64 W
   of the same labels computed on the host;
2. **a whole fit** at ``--n-fit`` points (default 400,000): the same k-means++ start
   (given as ``init``) on ``engine="gpu"`` and ``engine="matrix-free"``, per phase
   (``engine_stats_``: prepare = validation and the transfer, start = the build of M,
   sweeps, finish), the speed-up, whether the labels are identical and W's relative
   difference;
3. **a large fit** at ``--n-big`` points (default 10^6) on the GPU alone: time,
   sweeps, converged, and the improving single moves left (0 = a Hartigan optimum),
   counted on the device.

Prints a table for the performance page, with the device, numba's thread count and
the command.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def blobs(n, seed=0):
    from sklearn.datasets import make_blobs

    return make_blobs(n, 10, centers=10, cluster_std=2.5, random_state=seed)[0]


def kpp_start(X, k, seed=0):
    """A k-means++ start in the input space (the same labels for both engines)."""
    from sklearn.cluster import kmeans_plusplus

    centres, _ = kmeans_plusplus(X, k, random_state=seed)
    xc = X - X.mean(0)
    cc = centres - X.mean(0)
    return np.argmin((cc ** 2).sum(1)[None, :] - 2 * xc @ cc.T, axis=1)


def one_pass(n, k):
    """The build of M from a start (the fit's "start" phase, one sweep after it) and the
    relative error of the fit's W (from the device's M) against the float64 W of the
    same labels computed on the host (kgroups.within_energy, blocked)."""
    from kgroups import KernelKGroups, within_energy

    X = blobs(n)
    start = kpp_start(X, k)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # one sweep: stopped by max_iter on purpose
        KernelKGroups(k, engine="gpu", init=start[:2000], max_iter=1).fit(X[:2000])  # compile
        est = KernelKGroups(k, engine="gpu", init=start, max_iter=1).fit(X)
    sec = est.engine_stats_["seconds"]["start"]
    ref = within_energy(X, est.labels_)
    err = abs(est.within_energy_ / ref - 1)
    print(f"one exact pass, n={n}, k={k}: {sec:.3f} s, {n * n / sec / 1e9:.1f} G pairs/s; "
          f"W relative error vs float64 on the host {err:.1e}", flush=True)


def fit(engine, X, k, start):
    from kgroups import KernelKGroups

    t0 = time.perf_counter()
    est = KernelKGroups(k, engine=engine, init=start).fit(X)
    return est, time.perf_counter() - t0


def phases(est):
    s = est.engine_stats_["seconds"]
    return ", ".join(f"{p} {s.get(p, 0.0):.2f}" for p in ("prepare", "start", "sweeps",
                                                            "finish"))


def whole_fit(n, k):
    X = blobs(n)
    start = kpp_start(X, k)
    fit("gpu", X[:2000], k, start[:2000])  # compile
    fit("matrix-free", X[:2000], k, start[:2000])
    g, tg = fit("gpu", X, k, start)
    m, tm = fit("matrix-free", X, k, start)
    same = bool((g.labels_ == m.labels_).all())
    dw = abs(g.within_energy_ / m.within_energy_ - 1)
    print(f"whole fit, n={n}, k={k}, k-means++ start: gpu {tg:.2f} s ({phases(g)}; "
          f"{g.n_iter_} sweeps), matrix-free {tm:.2f} s ({phases(m)}; {m.n_iter_} sweeps); "
          f"speed-up {tm / tg:.1f}x; identical labels {same}; W relative difference {dw:.1e}",
          flush=True)


def large_fit(n, k):
    from kgroups import improving_moves

    X = blobs(n)
    start = kpp_start(X, k)
    g, tg = fit("gpu", X, k, start)
    left = improving_moves(X, g.labels_, engine="gpu")
    print(f"large fit, n={n}, k={k}, k-means++ start, gpu: {tg:.2f} s ({phases(g)}), "
          f"{g.n_iter_} sweeps, converged {g.n_moves_[-1] == 0}, improving moves left {left}",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-pass", type=int, default=1_000_000)
    parser.add_argument("--n-fit", type=int, default=400_000)
    parser.add_argument("--n-big", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--smoke", action="store_true",
                        help="tiny sizes (runs under the CUDA simulator)")
    args = parser.parse_args()
    if args.smoke:
        args.n_pass, args.n_fit, args.n_big = 300, 300, 300
    import numba
    from numba import config, cuda

    device = "CUDA simulator" if config.ENABLE_CUDASIM else cuda.get_current_device().name
    print(f"device: {device}; CPU threads (numba): {numba.get_num_threads()}", flush=True)
    if args.n_pass:
        one_pass(args.n_pass, args.k)
    if args.n_fit:
        whole_fit(args.n_fit, args.k)
    if args.n_big:
        large_fit(args.n_big, args.k)


if __name__ == "__main__":
    main()
