"""KernelKGroups(engine="dask") at scale on a LocalCluster: time per phase, memory,
bytes moved per sweep and the ARI to the generating labels (issue 12).

Overlapping blobs (``cluster_std=2.5``, centres uniform in [-10, 10]^D as
``sklearn.datasets.make_blobs`` draws them) are generated chunk by chunk on the
workers: the data never exist in one process. The workers get a memory limit
(``--memory-limit``), so Dask spills to disk when they would exceed it.

    python benchmarks/bench_dask.py                       # 10^7 x 10, k = 10, 2 workers
    python benchmarks/bench_dask.py --n 1000000 --single  # and the in-memory low-rank engine
    python benchmarks/bench_dask.py --n 1000000 --workers 1
    python benchmarks/bench_dask.py --energy 200000       # exact energy distance, 1 and 2 workers
    python benchmarks/bench_dask.py --auto --n 1000000 --k 5 --std 1.0
                                   # n_clusters="auto": dask beside in memory

Uses the public API only (``kgroups.KernelKGroups``, ``kgroups.energy_distance``).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np


def blobs_chunk(i, rows, d, k, std, seed, centres):
    """Rows and generating labels of chunk ``i`` (a seed per chunk)."""
    rng = np.random.default_rng([seed, i])
    y = rng.integers(0, k, size=rows)
    X = centres[y] + std * rng.standard_normal((rows, d))
    return X, y


def dask_blobs(n, d, k, std, seed, chunk):
    """``(X, y)`` as dask arrays built chunk by chunk from :func:`blobs_chunk`."""
    import dask
    import dask.array as da

    centres = np.random.default_rng(seed).uniform(-10.0, 10.0, size=(k, d))
    xs, ys = [], []
    for i, a in enumerate(range(0, n, chunk)):
        rows = min(chunk, n - a)
        part = dask.delayed(blobs_chunk, pure=True, nout=2)(i, rows, d, k, std, seed, centres)
        xs.append(da.from_delayed(part[0], shape=(rows, d), dtype=np.float64))
        ys.append(da.from_delayed(part[1], shape=(rows,), dtype=np.int64))
    return da.concatenate(xs), da.concatenate(ys), centres


def peak_rss():
    """Peak resident memory of this process, bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def nearest_centre(X, centres):
    return np.argmin(((X[:, None, :] - centres[None]) ** 2).sum(-1), axis=1)


def run_fit(args, client):
    import dask.array as da
    from sklearn.metrics import adjusted_rand_score

    from kgroups import KernelKGroups

    X, y, centres = dask_blobs(args.n, args.d, args.k, args.std, args.seed, args.chunk)
    t0 = time.perf_counter()
    est = KernelKGroups(args.k, engine="dask", n_components=args.m, random_state=0,
                        verbose=args.verbose)
    est.fit(X)
    fit_s = time.perf_counter() - t0
    stats = est.engine_stats_
    t1 = time.perf_counter()
    labels = est.labels_.compute()
    truth = y.compute()
    bayes = da.map_blocks(nearest_centre, X, centres, dtype=np.int64, drop_axis=1).compute()
    post_s = time.perf_counter() - t1
    worker_peaks = client.run(peak_rss)
    sweeps = max(est.n_iter_, 1)
    print(f"n={args.n} D={args.d} k={args.k} cluster_std={args.std} m={args.m} "
          f"workers={args.workers} memory_limit={args.memory_limit} chunk={args.chunk}")
    print(f"fit: {fit_s:.1f} s  ({est.n_iter_} sweeps, moves {est.n_moves_[:6]}...)")
    for phase, sec in stats["seconds"].items():
        print(f"  {phase:>12}: {sec:.1f} s")
    print(f"  round trips {stats['round_trips']}; per sweep: "
          f"{stats['bytes_to_blocks'] / sweeps / 2**20:.2f} MiB to the blocks, "
          f"{stats['bytes_from_blocks'] / sweeps / 2**20:.2f} MiB of proposals back "
          f"({stats['blocks']} blocks)")
    print(f"ARI to the generating labels: {adjusted_rand_score(truth, labels):.4f} "
          f"(nearest true centre: {adjusted_rand_score(truth, bayes):.4f}); "
          f"W = {est.within_energy_:.6g}")
    total = sum(worker_peaks.values()) + peak_rss()
    print("peak RSS: driver {:.2f} GB, workers {} GB, sum {:.2f} GB  (labels/ARI {:.1f} s)"
          .format(peak_rss() / 1e9, [round(v / 1e9, 2) for v in worker_peaks.values()],
                  total / 1e9, post_s))
    return est, fit_s


def run_single(args):
    """The in-memory low-rank engine on the same generator (n must fit in memory)."""
    from sklearn.metrics import adjusted_rand_score

    from kgroups import KernelKGroups

    X, y, _ = dask_blobs(args.n, args.d, args.k, args.std, args.seed, args.chunk)
    X, y = X.compute(scheduler="threads"), y.compute(scheduler="threads")
    t0 = time.perf_counter()
    est = KernelKGroups(args.k, engine="low-rank", n_components=args.m, random_state=0).fit(X)
    t = time.perf_counter() - t0
    print(f"single-machine low-rank: {t:.1f} s, {est.n_iter_} sweeps, ARI "
          f"{adjusted_rand_score(y, est.labels_):.4f}, W = {est.within_energy_:.6g}, "
          f"peak RSS of this process {peak_rss() / 1e9:.2f} GB")


def run_auto(args, client):
    """``KernelKGroups(n_clusters="auto")`` on the dask blobs (k and the semimetric
    chosen on a sample drawn from the partitions, then k fitted on every row by the
    Dask engine), beside the same call on the data in memory."""
    from sklearn.metrics import adjusted_rand_score

    from kgroups import KernelKGroups

    X, y, _ = dask_blobs(args.n, args.d, args.k, args.std, args.seed, args.chunk)
    X = X.persist()
    t0 = time.perf_counter()
    est = KernelKGroups("auto", n_components=args.m, random_state=0,
                        verbose=args.verbose).fit(X)
    fit_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    labels = np.asarray(est.labels_.compute())
    label_s = time.perf_counter() - t1
    truth = y.compute()
    print(f"n={args.n} D={args.d} k={args.k} cluster_std={args.std} workers={args.workers}")
    print(f"dask, n_clusters='auto': k={est.n_clusters_} semimetric={est.semimetric_} "
          f"engine={est.engine_}, {labels.size} labels, ARI "
          f"{adjusted_rand_score(truth, labels):.4f}; {fit_s:.1f} s to fit (the choice on "
          f"{est.n_clusters_choice_.sample.size} rows, then every row), {label_s:.1f} s to "
          "gather the labels")
    for phase, sec in est.engine_stats_["seconds"].items():
        print(f"  {phase:>12}: {sec:.1f} s")
    Xm = X.compute()
    t0 = time.perf_counter()
    mem = KernelKGroups("auto", random_state=0).fit(Xm)
    mem_s = time.perf_counter() - t0
    print(f"in memory, n_clusters='auto': k={mem.n_clusters_} semimetric={mem.semimetric_} "
          f"engine={mem.engine_}, ARI {adjusted_rand_score(truth, mem.labels_):.4f}; "
          f"{mem_s:.1f} s")
    print(f"dask / in memory: {(fit_s + label_s) / mem_s:.2f}")


def run_energy(args, cluster_kw):
    """Exact energy distance of two dask samples against the in-memory value, 1 and 2 workers."""
    from distributed import Client, LocalCluster

    import dask.array as da

    from kgroups import energy_distance

    rng = np.random.default_rng(args.seed)
    n = args.energy
    X = rng.normal(size=(n, args.d))
    Y = rng.normal(0.05, 1.0, size=(n, args.d))
    t0 = time.perf_counter()
    ref = energy_distance(X, Y)
    t_mem = time.perf_counter() - t0
    print(f"energy distance, 2 x {n} x {args.d}: in memory {ref:.15g} ({t_mem:.1f} s)")
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, **cluster_kw) as cl, \
                Client(cl):
            Xd = da.from_array(X, chunks=(args.energy_chunk, -1)).persist()
            Yd = da.from_array(Y, chunks=(args.energy_chunk, -1)).persist()
            energy_distance(Xd[:1000], Yd[:1000])  # warm the workers (numba)
            t0 = time.perf_counter()
            val = energy_distance(Xd, Yd)
            t = time.perf_counter() - t0
        print(f"  dask, {workers} worker(s): {val:.15g}  |diff| / value = "
              f"{abs(val - ref) / abs(ref):.2e}  ({t:.1f} s)")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10_000_000)
    p.add_argument("--d", type=int, default=10)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--m", type=int, default=256, help="n_components (default 256)")
    p.add_argument("--std", type=float, default=2.5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--chunk", type=int, default=125_000, help="rows per generated chunk")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--memory-limit", default="4GiB", help="per worker (default 4GiB)")
    p.add_argument("--single", action="store_true",
                   help="also run the in-memory low-rank engine on the same data")
    p.add_argument("--energy", type=int, default=0,
                   help="instead: exact energy distance of two samples of this size")
    p.add_argument("--energy-chunk", type=int, default=25_000)
    p.add_argument("--auto", action="store_true",
                   help="instead: n_clusters='auto' on the dask blobs and in memory")
    p.add_argument("--verbose", type=int, default=0)
    args = p.parse_args(argv)

    import warnings

    warnings.filterwarnings("ignore", message=".*large graph.*")
    from distributed import Client, LocalCluster

    # one core per worker: Dask already sets its BLAS threads to 1; numba too
    cluster_kw = {"processes": True, "memory_limit": args.memory_limit,
                  "dashboard_address": None, "env": {"NUMBA_NUM_THREADS": "1"}}
    if args.energy:
        run_energy(args, cluster_kw)
        return 0
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, **cluster_kw) as cl, \
            Client(cl) as client:
        if args.auto:
            run_auto(args, client)
            return 0
        run_fit(args, client)
    if args.single:
        run_single(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
