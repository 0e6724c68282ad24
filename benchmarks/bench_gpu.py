"""The GPU engine and the device statistics beside the CPU (every core), in one run.

    make gpu-check                                     # on a machine with a CUDA device
    python benchmarks/bench_gpu.py --out benchmarks/results/bench_gpu.md
    NUMBA_ENABLE_CUDASIM=1 python benchmarks/bench_gpu.py --smoke   # no device: format only

Data: ``make_blobs(n, 10, centers=10, cluster_std=2.5, random_state=0)``, k = 10
(overlapping clusters), the same k-means++ start (input space, scikit-learn's
``kmeans_plusplus``) given as ``init`` to every engine. Each row is a target of the
GPU engine, measured on the device and, in the same run, on the CPU:

1. **exact pass** (the build of ``M``, the fit's ``"start"`` phase with one sweep
   after it): ordered pairs per second, n^2 / seconds, on the GPU at ``--n-pass``
   and on the matrix-free engine at ``--n-pass-cpu``; the GPU's other build of
   ``M`` beside it (over the unordered pairs, or over the ordered ones compiled for
   D: ``SYMMETRIC_BUILD``) and the ordered one with one row a thread; W's relative
   error (from the engine's ``M``) against
   the float64 W of the same labels summed pair by pair (``within_energy`` of the
   device array);
2. **exact pass in float32** (``dtype="float32"``: each rho in float32, sums in
   float64, the decisions certified or made again in float64) at ``--n-pass``:
   pairs per second of both builds and of the ordered one with one, two and four
   rows a thread, against twice the float64 pass's (the goal), the labels after
   one sweep against the float64 fit's, and whether the group went on in float64;
3. **whole exact fit** at ``--n-big`` on the GPU: seconds, sweeps, and the improving
   single moves left (0: a Hartigan optimum), counted on the device;
4. **fit against the matrix-free engine** at ``--n-fit``, both engines from the same
   start: seconds, speed-up, identical labels; and the GPU fit from device arrays;
   rows 3 and 4 also time the GPU's other way to sweep host data (``HOST_M_SWEEPS``:
   decided on the host from its copy of M, the device applying the moves; or decided
   and applied on the device, the host told once per sweep, as data on the device
   are); and the GPU fit with the host's M in the other kind of memory
   (``PINNED_M``: page-locked, or pageable);
5. **energy_distance** of two samples of ``--n-ed`` (device arrays) and, on the
   host, of ``--n-ed-cpu``: pairs per second; and two samples of ``--n-ed-ab`` on
   the device by the pass compiled for D and by the generic one;
6. **energy_test** of two samples of ``--n-et`` with 999 permutations on the device
   and ``--n-et-cpu`` on the host: seconds, and pair-permutations per second; of
   those seconds, the device's sums of the relabellings (each unordered pair's rho
   computed once a batch, the indicators packed as bits on the host) and, timed
   apart, the host's relabellings of that many points;
7. **engine="auto"** on a grid of n (``--n-auto`` and a quarter of it), D (2, 20) and
   starts (1, 4): the engine it chooses, and the GPU, matrix-free and chosen engines'
   predicted seconds and fits timed; right where it chose the fastest (or one within
   1.25x or 0.05 s of it);
8. **the device sweeps' constants** at ``--n-fit`` (the pending list's length, the
   budget of its corrections, the threads of a decide block, the movers kept in its
   shared memory or not): each fit's sweep seconds, last so that a run cut short by
   ``--budget`` still measures the goals.

After the two pass rows, **the passes profiled**: each kernel's registers, spilled
bytes and shared memory with its theoretical occupancy on the device, the passes'
floating-point rate against the device's peak, and their multiprocessor cycles a pair
against the floors of their instruction counts (the float64 pass bound by its FP64
pipe, the float32 one by the issue of its instructions; ``benchmarks/profile_gpu.py``
measures the same with Nsight Compute's counters); and **a round trip from Python**: a
launch and a synchronisation, with twelve array arguments, a window of M copied back,
an event, in microseconds.

Everything is compiled first, outside the timings (each call on small inputs, and
one sweep of each engine at 50,000 points, where ``dtype="auto"`` takes kernels of
its own); the CPU's pass is timed twice and the faster kept. Prints a Markdown
table (device, numba's CPU threads, the command) and writes it to ``--out`` after
each row (a run cut short keeps the rows it finished); rows past ``--budget``
seconds say "skipped (time budget)". With
``--smoke`` every size is tiny, for the CUDA simulator: the numbers mean nothing,
only the format does.
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from unittest.mock import patch

import numpy as np

GOALS = {
    "pass": "≥ 300 G pairs/s",
    "pass32": "≥ 2× the float64 pass, the float64 labels",
    "big": "≤ 20 s, no improving move left",
    "fit": "≥ 10× the matrix-free engine, identical labels",
    "ed": "≤ 5 s",
    "et": "≤ 2 s",
    "auto": "the fastest engine chosen, or one within 1.25× (or 0.05 s) of it",
}
FULL = {"n_pass": 1_000_000, "n_pass_cpu": 100_000, "n_big": 1_000_000, "n_fit": 400_000,
        "n_ed": 500_000, "n_ed_cpu": 20_000, "n_ed_ab": 100_000, "n_et": 20_000,
        "n_et_cpu": 2_000, "perms": 999, "n_auto": 40_000}
SMOKE = {"n_pass": 40, "n_pass_cpu": 40, "n_big": 40, "n_fit": 40, "n_ed": 40,
         "n_ed_cpu": 40, "n_ed_ab": 40, "n_et": 24, "n_et_cpu": 24, "perms": 9,
         "n_auto": 40}


# The float64 pass's rate of this run, which the float32 row compares with.
RATES = {}


def blobs(n, seed=0):
    from sklearn.datasets import make_blobs

    return make_blobs(n, 10, centers=10, cluster_std=2.5, random_state=seed)[0]


def kpp_start(X, k, seed=0):
    """A k-means++ start in the input space (the same labels for every engine)."""
    from sklearn.cluster import kmeans_plusplus

    centres, _ = kmeans_plusplus(X, k, random_state=seed)
    xc, cc = X - X.mean(0), centres - X.mean(0)
    return np.argmin((cc ** 2).sum(1)[None, :] - 2 * xc @ cc.T, axis=1)


def fit(engine, X, k, start, **kw):
    from kgroups import KernelKGroups

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # max_iter=1 stops on purpose
        t0 = time.perf_counter()
        est = KernelKGroups(k, engine=engine, init=start, **kw).fit(X)
    return est, time.perf_counter() - t0


def warm_up(k, n=300, n_pass=50_000):
    """Compile the CPU and device code outside the timings: every call on ``n`` points,
    and one sweep of each engine on ``n_pass`` (past the sizes where ``dtype="auto"``
    and the left-out pairs take kernels of their own; None: no such sweep, as in the
    smoke run, whose sizes cross no threshold); the GPU's builds that only the
    comparisons take (the other build, one row a thread: :func:`other_pass`) too."""
    from kgroups import energy_distance, energy_test

    sizes = [(n, {})] + ([(n_pass, {"max_iter": 1})] if n_pass else [])
    for m, kw in sizes:
        X = blobs(m)
        start = kpp_start(X, k)
        for engine in ("gpu", "matrix-free"):
            fit(engine, X, k, start, **kw)
            fit(engine, X, k, start, dtype="float32", **kw)
    for dtype in ("float64", "float32"):
        other_pass(X, k, start, dtype=dtype)
        other_pass(X, k, start, False, 1, dtype=dtype)
    X = blobs(n)
    h = n // 2
    dX, dY = device(X[:h]), device(X[h:])
    energy_distance(dX, dY)
    energy_test(dX, dY, n_permutations=9, random_state=0)
    X = blobs(8 * n)  # on the host, past the size where the pass over pairs takes over
    energy_distance(X[:4 * n], X[4 * n:])
    energy_test(X[:4 * n], X[4 * n:], n_permutations=9, random_state=0)


def device(A):
    """``A`` on the device (numba.cuda as kgroups imports it: NumPy names restored)."""
    from kgroups._kernels.numba_cuda import numba_cuda

    return numba_cuda().to_device(np.ascontiguousarray(A))


def row_pass(a, k):
    """Pairs per second of one exact build of M on each engine; W's error on the GPU."""
    from kgroups import within_energy

    out = {}
    for engine, n in (("gpu", a["n_pass"]), ("matrix-free", a["n_pass_cpu"])):
        X = blobs(n)
        start = kpp_start(X, k)
        # the CPU's pass twice (its first run at a size may still compile), the best
        runs = [fit(engine, X, k, start, max_iter=1)[0]
                for _ in range(1 if engine == "gpu" else 2)]
        est = min(runs, key=lambda e: e.engine_stats_["seconds"]["start"])
        sec = est.engine_stats_["seconds"]["start"]
        out[engine] = (n * n / sec / 1e9, sec, n)
        if engine == "gpu":  # the float64 W of the labels, summed pair by pair
            err = abs(est.within_energy_ / within_energy(device(X), est.labels_) - 1)
            other = other_pass(X, k, start)
            ab = rows_ab(X, k, start)
            RATES["float64"], RATES["labels"] = n * n / sec / 1e9, est.labels_
    g, c = out["gpu"], out["matrix-free"]
    return {"row": "exact pass, float64", "size": f"n = {g[2]:,}, D = 10, k = {k}",
            "goal": GOALS["pass"],
            "gpu": f"{g[0]:.1f} G pairs/s ({g[1]:.2f} s; {BUILD_NAMES[symmetric_default()]}; "
                   f"{BUILD_NAMES[not symmetric_default()]}: {g[2] ** 2 / other / 1e9:.1f}{ab}); "
                   f"W rel. error {err:.0e}",
            "cpu": f"{c[0]:.2f} G pairs/s at n = {c[2]:,} ({c[1]:.2f} s)",
            "ratio": f"{g[0] / c[0]:.0f}×", "met": g[0] >= 300}


def row_pass32(a, k):
    """The float32 mode's pass (and one certified sweep) beside the float64 pass: met
    when it is at least twice as fast with the float64 fit's labels."""
    from kgroups._kernels import cuda as kk

    n = a["n_pass"]
    X = blobs(n)
    start = kpp_start(X, k)
    est, _ = fit("gpu", X, k, start, max_iter=1, dtype="float32")
    sec = est.engine_stats_["seconds"]["start"]
    other = other_pass(X, k, start, dtype="float32")
    ab = rows_ab(X, k, start, dtype="float32")
    if kk.ROWS_PER_THREAD != 4:  # four rows a thread: compiled first, then timed
        m = min(n, 2_000)
        other_pass(X[:m], k, start[:m], False, 4, dtype="float32")
        ab += f", 4 rows: {n * n / other_pass(X, k, start, False, 4, dtype='float32') / 1e9:.1f}"
    rate, info = n * n / sec / 1e9, est.engine_stats_.get("float32", {})
    RATES["float32"] = rate
    same = bool((est.labels_ == RATES.get("labels")).all()) if "labels" in RATES else None
    ratio = f"{rate / RATES['float64']:.2f}× the float64 pass" if "float64" in RATES else ""
    return {"row": "exact pass, float32", "size": f"n = {n:,}, D = 10, k = {k}",
            "goal": GOALS["pass32"],
            "gpu": f"{rate:.1f} G pairs/s ({sec:.2f} s; {BUILD_NAMES[symmetric_default()]}; "
                   f"{BUILD_NAMES[not symmetric_default()]}: {n * n / other / 1e9:.1f}{ab}); "
                   f"labels after a sweep equal the float64 fit's: {same}; kernel error bound "
                   f"{info.get('kernel_error_bound', 0):.1e}, "
                   f"went on in float64: {info.get('groups_gone_float64')}",
            "cpu": "", "ratio": ratio,
            "met": "float64" in RATES and rate >= 2 * RATES["float64"] and bool(same)}


# Fused multiply-adds per clock and multiprocessor, float64 and float32, by compute
# capability (NVIDIA's CUDA C++ Programming Guide, "Arithmetic Instructions").
FMA_PER_CLOCK = {(8, 0): (32, 64), (9, 0): (64, 128)}
# Floating-point operations per pair of the energy distance's pass at D = 10: per
# feature a difference and a fused multiply-add (3), the square root, the weight and
# the sum (about 3).
FLOPS_PER_PAIR = 3 * 10 + 3
# The floors of the passes over ordered pairs at D = 10 (the energy distance, alpha = 1,
# whole tiles of one label), in multiprocessor cycles a pair, from their sm_90 code
# (SASS of the loop over two columns and two rows): float64, 29 FP64 instructions a
# pair on an FP64 pipe of 64 lanes a multiprocessor (its 45 instructions issue in the
# pipe's shadow); float32, 38 instructions a pair (24 FP32, 2 on the XU pipe, the
# float64 sum, shared-memory reads, square-root range checks, the loop), one issued a
# cycle by each of the 4 schedulers of 32 lanes. Their ratio, about 1.5, bounds what
# float32 gains on this pass while its sums stay float64.
CYCLE_FLOORS = {"float64": 29 / 64, "float32": 38 / 128}


def device_attributes():
    """The device's multiprocessors, their threads, registers and shared memory, its
    clock (kHz) and compute capability; None for what the driver (or the simulator)
    does not say."""
    from numba import config, cuda

    dev = None if config.ENABLE_CUDASIM else cuda.get_current_device()
    out = {}
    for name in ("MULTIPROCESSOR_COUNT", "MAX_THREADS_PER_MULTI_PROCESSOR",
                 "MAX_REGISTERS_PER_MULTIPROCESSOR", "MAX_SHARED_MEMORY_PER_MULTIPROCESSOR",
                 "MAX_BLOCKS_PER_MULTIPROCESSOR", "CLOCK_RATE"):
        try:
            out[name] = int(getattr(dev, name))
        except Exception:  # noqa: BLE001 - an attribute the driver or simulator lacks
            out[name] = None
    out["cc"] = tuple(getattr(dev, "compute_capability", None) or ()) or None
    return out


def occupancy(regs, static_shared, dynamic_shared, threads, dev):
    """Theoretical occupancy (resident warps over the most a multiprocessor holds) of a
    kernel using ``regs`` registers a thread (allocated by 8 per thread, 256 per warp)
    and that much shared memory a block (1 KiB more reserved per block)."""
    sm_threads, sm_regs = dev["MAX_THREADS_PER_MULTI_PROCESSOR"], dev[
        "MAX_REGISTERS_PER_MULTIPROCESSOR"]
    sm_shared, sm_blocks = dev["MAX_SHARED_MEMORY_PER_MULTIPROCESSOR"], dev[
        "MAX_BLOCKS_PER_MULTIPROCESSOR"] or 32
    if None in (sm_threads, sm_regs, sm_shared):
        return None
    warps = -(-threads // 32)
    per_warp = -(-max(regs, 1) * 32 // 256) * 256
    limits = [sm_blocks, sm_threads // (32 * warps), sm_regs // (per_warp * warps)]
    shared = static_shared + dynamic_shared + 1024
    limits.append(sm_shared // shared)
    return max(0, min(limits)) * warps * 32 / sm_threads


def row_profile(a, k):
    """The resources of the kernels the pass rows ran (registers and spilled bytes a
    thread, shared memory a block) with their theoretical occupancy on this device, and
    the passes' arithmetic rate against the device's peak (from the pass rows' pairs
    per second): where the float32 pass's missing factor of 2 goes."""
    from kgroups._kernels import cuda as kk
    from kgroups._kernels import cuda_permute as kp

    dev = device_attributes()
    kernels = [("ordered pass f64", *kk.rows_pass(10, a["n_pass"])),
               ("ordered pass f32", *kk.rows_pass(10, a["n_pass"], True)),
               ("unordered pass f64", kk.build_sym, None, kk.sym_tile_for(10) * kk.SYM_SPLIT,
                0, 8 * (2 * 10 * kk.sym_tile_for(10) + kk.sym_tile_for(10) ** 2)),
               ("moves' pass f64", kk.apply_pass(10), None, kk.THREADS, 0, 0),
               ("relabellings' sums", kp.relabelled_pairs, None, kp.MAX_WARPS * kp.LANES,
                0, 0)]
    cells = []
    for name, kern, _, threads, _, dyn in kernels:
        try:
            regs, local = kern.get_regs_per_thread(), kern.get_local_mem_per_thread()
            static = kern.get_shared_mem_per_block()
        except Exception:  # noqa: BLE001 - the simulator, or a kernel not compiled yet
            cells.append(f"{name}: not available here")
            continue
        if isinstance(regs, dict) and not regs:
            cells.append(f"{name}: not compiled in this run")
            continue
        regs, local, static = (next(iter(v.values())) if isinstance(v, dict) else v
                               for v in (regs, local, static))
        occ = occupancy(regs, static, dyn, threads, dev)
        cells.append(f"{name}: {regs} registers, {local} B spilled a thread, "
                     f"{static + dyn} B shared a block of {threads}, occupancy "
                     + ("n/a" if occ is None else f"{occ:.0%}"))
    fma = FMA_PER_CLOCK.get(dev["cc"])
    for prec, i in (("float64", 0), ("float32", 1)):
        rate = RATES.get(prec)
        if rate and fma and dev["CLOCK_RATE"] and dev["MULTIPROCESSOR_COUNT"]:
            peak = 2 * fma[i] * dev["MULTIPROCESSOR_COUNT"] * dev["CLOCK_RATE"] * 1e3
            got = rate * 1e9 * FLOPS_PER_PAIR
            cycles = dev["MULTIPROCESSOR_COUNT"] * dev["CLOCK_RATE"] * 1e3 / (rate * 1e9)
            cells.append(f"{prec} pass: {got / 1e12:.1f} TFLOP/s of a {peak / 1e12:.1f} "
                         f"peak ({got / peak:.0%}, {FLOPS_PER_PAIR} a pair); "
                         f"{cycles:.2f} multiprocessor cycles a pair, its floor "
                         f"{CYCLE_FLOORS[prec]:.2f} ({CYCLE_FLOORS[prec] / cycles:.0%})")
    print("    " + "\n    ".join(cells), flush=True)
    return {"row": "the passes profiled", "size": f"D = 10; device {dev['cc']}, "
            f"{dev['MULTIPROCESSOR_COUNT']} multiprocessors", "goal": "the reason float32 "
            "is not 2× float64", "gpu": "; ".join(cells), "cpu": "", "ratio": "", "met": ""}


def row_round_trip(a, k):
    """What one round trip to the device costs from Python (numba-cuda), each the mean
    of 200 after a warm-up: a launch of an empty kernel and the stream's
    synchronisation; the same with twelve device arrays as arguments (the moves' pass
    takes twelve); the launch alone; a window of M (k + D rows of 4,096 columns) copied
    into pinned host memory and waited for; an event made and recorded (the tally's
    timing). The sweeps' "µs a sync" of the fit rows is set against these."""
    from numba import config

    from kgroups._kernels.numba_cuda import numba_cuda

    cuda = numba_cuda()
    reps = 2 if config.ENABLE_CUDASIM else 200  # the simulator: the format only

    @cuda.jit
    def empty(x):
        pass

    @cuda.jit
    def twelve(a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11):
        pass

    stream = cuda.stream()
    arrays = [cuda.device_array(8) for _ in range(12)]
    win = cuda.device_array((k + 10, 4096))
    host = cuda.pinned_array((k + 10, 4096))

    def mean_us(fn):
        fn()
        t0 = time.perf_counter()
        for _ in range(reps):
            fn()
        stream.synchronize()
        return 1e6 * (time.perf_counter() - t0) / reps

    def launch_sync():
        empty[1, 32, stream](arrays[0])
        stream.synchronize()

    def twelve_sync():
        twelve[1, 32, stream](*arrays)
        stream.synchronize()

    def copy_sync():
        win.copy_to_host(host, stream=stream)
        stream.synchronize()

    cells = {"launch + sync": mean_us(launch_sync), "12 arrays + sync": mean_us(twelve_sync),
             "launch alone": mean_us(lambda: empty[1, 32, stream](arrays[0])),
             "window back + sync": mean_us(copy_sync),
             "event": mean_us(lambda: cuda.event().record(stream))}
    text = "; ".join(f"{name} {us:.0f} µs" for name, us in cells.items())
    return {"row": "a round trip from Python", "size": f"window {k + 10} x 4,096",
            "goal": "what a sync of the sweeps costs", "gpu": text, "cpu": "", "ratio": "",
            "met": ""}


# The two builds of M the engine has, by the value of gpu.SYMMETRIC_BUILD.
BUILD_NAMES = {True: "the pass over unordered pairs",
               False: "the pass over ordered pairs compiled for D"}


def symmetric_default():
    """Whether the engine builds M over the unordered pairs (``SYMMETRIC_BUILD``)."""
    import kgroups._engines.gpu as gpu

    return gpu.SYMMETRIC_BUILD


def other_pass(X, k, start, symmetric=None, rows_per_thread=None, **kw):
    """Seconds of the GPU's build of M with another build than the default: over the
    unordered or the ordered pairs (``symmetric``; default: the one the engine does
    not take), or another number of rows per thread of the ordered pass, to compare
    in the same run."""
    import kgroups._engines.gpu as gpu
    from kgroups._kernels import cuda as kk

    sym = (not gpu.SYMMETRIC_BUILD) if symmetric is None else symmetric
    with patch.object(gpu, "SYMMETRIC_BUILD", sym), \
            patch.object(kk, "ROWS_PER_THREAD", rows_per_thread or kk.ROWS_PER_THREAD):
        est, _ = fit("gpu", X, k, start, max_iter=1, **kw)
    return est.engine_stats_["seconds"]["start"]


def rows_ab(X, k, start, **kw):
    """The ordered pass with one row a thread and with the default number, in one run:
    the text of the pair rates."""
    from kgroups._kernels import cuda as kk

    n = X.shape[0]
    rates = [n * n / other_pass(X, k, start, False, r, **kw) / 1e9
             for r in sorted({1, kk.ROWS_PER_THREAD})]
    return "; ordered pass with 1 and " + f"{kk.ROWS_PER_THREAD} rows a thread: " + \
        ", ".join(f"{r:.1f}" for r in rates)


# The ways the GPU engine sweeps host data in float64: decided on the host from its
# copy of M (gpu.HOST_M_SWEEPS), else decided and applied on the device
# (gpu.DEVICE_SWEEPS), else decided on the host from windows of M.
SWEEP_NAMES = {"device": "sweeps on the device", "host M": "sweeps from the host's M",
               "windows": "sweeps in windows"}


def sweep_way():
    """The way the GPU engine sweeps host data in float64 (a key of SWEEP_NAMES)."""
    import kgroups._engines.gpu as gpu

    return "host M" if gpu.HOST_M_SWEEPS else "device" if gpu.DEVICE_SWEEPS else "windows"


def other_sweeps(X, k, start):
    """The GPU fit of host data with the other of its two ways to sweep (from the
    host's M, or on the device), in the same run: ``(estimator, seconds, text)``."""
    import kgroups._engines.gpu as gpu

    with patch.object(gpu, "HOST_M_SWEEPS", not gpu.HOST_M_SWEEPS), \
            patch.object(gpu, "DEVICE_SWEEPS", True):
        way = sweep_way()
        est, sec = fit("gpu", X, k, start)
    return est, sec, f"{SWEEP_NAMES[way]}: {sec:.1f} s ({anatomy(est)})"


def row_big(a, k):
    from kgroups import improving_moves

    X = blobs(a["n_big"])
    start = kpp_start(X, k)
    est, sec = fit("gpu", X, k, start)
    left = improving_moves(X, est.labels_, engine="gpu")
    conv = est.n_moves_[-1] == 0
    o, _, text = other_sweeps(X, k, start)
    return {"row": "whole exact fit", "size": f"n = {a['n_big']:,}, D = 10, k = {k}",
            "goal": GOALS["big"],
            "gpu": f"{sec:.1f} s, {est.n_iter_} sweeps, converged {conv}, "
                   f"{left} improving moves left; {SWEEP_NAMES[sweep_way()]}: "
                   f"{anatomy(est)}; {text}, same labels {bool((o.labels_ == est.labels_).all())}",
            "cpu": "not run (see the next row)", "ratio": "", "met": sec <= 20 and left == 0}


def anatomy(est):
    """Where a GPU fit's sweeps went (``engine_stats_["device_calls"]``): batches,
    synchronisations, the host's decisions, the device's work and the rest (waiting
    on transfers and launches: the round trips), in seconds; also printed whole."""
    calls = est.engine_stats_.get("device_calls", {})
    print(f"    device calls per phase: {calls}", flush=True)
    sw = calls.get("sweeps", {})
    total = est.engine_stats_["seconds"].get("sweeps", 0.0)
    host, dev = sw.get("host_decision_seconds", 0.0), sw.get("device_seconds", 0.0)
    syncs = max(sw.get("syncs", 0), 1)
    return (f"sweeps: {sw.get('batches', 0)} batches, {sw.get('syncs', 0)} syncs, host "
            f"{host:.2f} s, device {dev:.2f} s, rest {total - host - dev:.2f} s = "
            f"{1e6 * (total - host - dev) / syncs:.0f} µs a sync")


def row_fit(a, k):
    X = blobs(a["n_fit"])
    start = kpp_start(X, k)
    g, tg = fit("gpu", X, k, start)
    o, _, text = other_sweeps(X, k, start)
    import kgroups._engines.gpu as gpu

    with patch.object(gpu, "PINNED_M", not gpu.PINNED_M):
        pm, tp = fit("gpu", X, k, start)
    text += (f"; M on the host {'pageable' if gpu.PINNED_M else 'pinned'}: {tp:.1f} s "
             f"({anatomy(pm)}), same labels {bool((pm.labels_ == g.labels_).all())}")
    d, td = fit("gpu", device(X), k, start)  # the data already on the device
    m, tm = fit("matrix-free", X, k, start)
    same = bool((g.labels_ == m.labels_).all() and (o.labels_ == m.labels_).all())
    on_dev = bool((d.labels_ == g.labels_).all())
    return {"row": "fit, GPU vs matrix-free", "size": f"n = {a['n_fit']:,}, D = 10, k = {k}",
            "goal": GOALS["fit"],
            "gpu": f"{tg:.1f} s ({g.n_iter_} sweeps; {SWEEP_NAMES[sweep_way()]}: "
                   f"{anatomy(g)}); {text}; from device arrays (sweeps on the device) "
                   f"{td:.1f} s, same labels {on_dev}",
            "cpu": f"{tm:.1f} s ({m.n_iter_} sweeps); identical labels {same}",
            "ratio": f"{tm / tg:.1f}×", "met": tm / tg >= 10 and same and on_dev}


def row_sweep_constants(a, k):
    """The device sweeps' constants at ``--n-fit`` from the same start: the pending
    list's length (``PENDING_CAP``: each later decision of a launch corrects for its
    moves, each full list is one apply over every column), the corrections after
    which a list is applied before it is full (``PENDING_WORK``), the threads of a
    decide block (``DECIDE_THREADS``, a window of points; 512 only where the
    kernel's registers allow) and whether the movers' rows are kept in its shared
    memory (``STAGE_MOVERS``), each fit's sweep seconds and its device calls, and
    whether the labels are the default's."""
    import kgroups._engines.gpu as gpu
    from kgroups._kernels import cuda_sweep as cs

    X = blobs(a["n_fit"])
    start = kpp_start(X, k)
    base, _ = fit("gpu", X, k, start)
    cells = []
    for cap, work, threads, stage in ((64, 0, 512, True), (256, 0, 512, True),
                                      (256, 0, 512, False), (1024, 0, 512, True),
                                      (4096, 0, 512, True), (256, 0, 256, True),
                                      (256, 0, 256, False), (256, 64, 512, True),
                                      (256, 512, 512, True), (1024, 4096, 512, True)):
        with patch.object(cs, "PENDING_CAP", cap), patch.object(cs, "DECIDE_THREADS", threads), \
                patch.object(cs, "PENDING_WORK", work), patch.object(cs, "STAGE_MOVERS", stage), \
                patch.object(gpu, "HOST_M_SWEEPS", False):
            est, sec = fit("gpu", X, k, start)
        sw = est.engine_stats_["device_calls"].get("sweeps", {})
        cells.append(f"list {cap}, budget {work or 'none'}, {threads} threads"
                     f"{'' if stage else ', movers not staged'}: {sec:.2f} s, sweeps "
                     f"{est.engine_stats_['seconds'].get('sweeps', 0.0):.2f} s "
                     f"({sw.get('batches', 0)} pairs, {sw.get('syncs', 0)} syncs, device "
                     f"{sw.get('device_seconds', 0.0):.2f} s), same labels "
                     f"{bool((est.labels_ == base.labels_).all())}")
    print("    " + "\n    ".join(cells), flush=True)
    return {"row": "sweeps on the device, their constants",
            "size": f"n = {a['n_fit']:,}, D = 10, k = {k}",
            "goal": f"the defaults (list {cs.PENDING_CAP}, budget {cs.PENDING_WORK or 'none'}, "
                    f"{cs.DECIDE_THREADS} threads) near the fastest", "gpu": "; ".join(cells), "cpu": "", "ratio": "",
            "met": ""}


def row_ed(a):
    from kgroups import energy_distance
    from kgroups._kernels import cuda as kk

    out = {}
    for where, n in (("gpu", a["n_ed"]), ("cpu", a["n_ed_cpu"])):
        X, Y = blobs(n, 1), blobs(n, 2)
        args = (device(X), device(Y)) if where == "gpu" else (X, Y)
        t0 = time.perf_counter()
        energy_distance(*args)
        sec = time.perf_counter() - t0
        out[where] = (sec, (2 * n) ** 2 / sec / 1e9, n)
    g, c = out["gpu"], out["cpu"]
    m = a["n_ed_ab"]  # the pass compiled for D against the generic one, in one run
    dX, dY = device(blobs(m, 1)), device(blobs(m, 2))
    ab = []
    for limit in (kk.ROWS_MAX_FEATURES, 0):  # 0: every D takes the generic pass
        with patch.object(kk, "ROWS_MAX_FEATURES", limit):
            energy_distance(dX[:50], dY[:50])  # compiled outside the timing
            ab.append(time.perf_counter())
            energy_distance(dX, dY)
            ab[-1] = time.perf_counter() - ab[-1]
    return {"row": "energy_distance", "size": f"2 × {g[2]:,}, D = 10", "goal": GOALS["ed"],
            "gpu": f"{g[0]:.2f} s ({g[1]:.1f} G pairs/s; device arrays); at 2 × {m:,}: "
                   f"{ab[0]:.3f} s, {ab[1] / ab[0]:.1f}× faster than the generic pass",
            "cpu": f"{c[0]:.2f} s at 2 × {c[2]:,} ({c[1]:.2f} G pairs/s)",
            "ratio": f"{g[1] / c[1]:.0f}× (pairs/s)", "met": g[0] <= 5}


def row_et(a):
    from kgroups import energy_test
    from kgroups._stats.dispatch import relabellings

    from kgroups._stats.pairsum_cuda import CudaPairSums

    sums = []
    real = CudaPairSums.relabelled_sums

    def timed(self, *args):
        t0 = time.perf_counter()
        P = real(self, *args)  # on the host: the device's work waited for
        sums.append(time.perf_counter() - t0)
        return P

    out = {}
    for where, n in (("gpu", a["n_et"]), ("cpu", a["n_et_cpu"])):
        X, Y = blobs(n, 1), blobs(n, 2)
        args = (device(X), device(Y)) if where == "gpu" else (X, Y)
        with patch.object(CudaPairSums, "relabelled_sums", timed):
            t0 = time.perf_counter()
            energy_test(*args, n_permutations=a["perms"], random_state=0)
            sec = time.perf_counter() - t0
        out[where] = (sec, (2 * n) ** 2 * a["perms"] / sec / 1e9, n)
    # the host's phase of the test: the relabellings (keys drawn, each row sorted)
    n = 2 * a["n_et"]
    t0 = time.perf_counter()
    relabellings(np.random.RandomState(0), (np.arange(n) >= n // 2).astype(np.int64),
                 a["perms"])
    host = time.perf_counter() - t0
    g, c = out["gpu"], out["cpu"]
    return {"row": f"energy_test, {a['perms']} permutations", "size": f"2 × {g[2]:,}, D = 10",
            "goal": GOALS["et"],
            "gpu": f"{g[0]:.2f} s ({g[1]:.0f} G pair-permutations/s; of which the device's "
                   f"sums {sum(sums):.2f} s, the host's relabellings {host:.2f} s)",
            "cpu": f"{c[0]:.2f} s at 2 × {c[2]:,} ({c[1]:.1f} G pair-permutations/s)",
            "ratio": f"{g[1] / c[1]:.0f}× (per pair)", "met": g[0] <= 2}


def row_auto(a, k):
    """``engine="auto"`` on raw data with a device: on a grid of n (``n_auto`` and a
    quarter of it), D (2 and 20) and starts (1 and 4), the engine it chooses, and the
    GPU engine, the matrix-free engine and the chosen one (the dense one, where it
    fits) each with its predicted seconds and its fit timed (the same k-means++
    starts: ``init="k-means++"``, ``random_state=0``)."""
    from sklearn.datasets import make_blobs

    from kgroups import KernelKGroups
    from kgroups._engines.registry import engine_class
    from kgroups._engines.select import choose_engine

    cells, right = [], 0
    for d in (2, 20):  # each engine's kernels for d compiled outside the timings
        X = make_blobs(min(300, a["n_auto"]), d, centers=k, cluster_std=2.5,
                       random_state=0)[0]
        for e in ("gpu", "matrix-free", "dense"):
            KernelKGroups(k, engine=e, n_init=4, random_state=0).fit(X)
    for n in (a["n_auto"] // 4, a["n_auto"]):
        for d in (2, 20):
            X = make_blobs(n, d, centers=k, cluster_std=2.5, random_state=0)[0]
            for starts in (1, 4):
                chosen = choose_engine("auto", n, False, False, np.float64, "energy", d,
                                       n_clusters=k, n_init=starts)[0].name
                sec, pred = {}, {}
                for e in dict.fromkeys(("gpu", "matrix-free", chosen)):
                    pred[e] = engine_class(e).predicted_seconds(n, d, n_clusters=k,
                                                                n_init=starts)
                    t0 = time.perf_counter()
                    KernelKGroups(k, engine=e, n_init=starts, random_state=0).fit(X)
                    sec[e] = time.perf_counter() - t0
                fast = min(sec, key=sec.get)
                ok = sec[chosen] <= max(1.25 * sec[fast], sec[fast] + 0.05)
                right += ok
                cells.append(f"n={n:,} D={d} starts={starts}: auto {chosen}; predicted / "
                             "measured s: " + ", ".join(f"{e} {pred[e]:.2g} / {sec[e]:.2f}"
                                                         for e in sec)
                             + ("" if ok else " (WRONG)"))
    print("    " + "\n    ".join(cells), flush=True)
    return {"row": "engine='auto' on a grid", "size": f"n = {a['n_auto'] // 4:,}, "
            f"{a['n_auto']:,}; D = 2, 20; 1, 4 starts; k = {k}", "goal": GOALS["auto"],
            "gpu": f"right on {right} of {len(cells)}: " + "; ".join(cells), "cpu": "",
            "ratio": "", "met": right == len(cells)}


def header(a, smoke):
    import numba
    from numba import config, cuda

    if config.ENABLE_CUDASIM:
        name = "CUDA simulator (smoke run: the numbers mean nothing)"
    else:
        name = cuda.get_current_device().name
        name = name.decode() if isinstance(name, bytes) else str(name)
    cmd = "python benchmarks/bench_gpu.py " + " ".join(sys.argv[1:])
    return [f"Device: {name}; CPU: {numba.get_num_threads()} numba threads; "
            f"{time.strftime('%Y-%m-%d', time.gmtime())}; `{cmd.strip()}`", ""]


def table(rows):
    """The Markdown table of the rows (dicts of :func:`row_pass` and the others)."""
    lines = ["| target | size | goal | GPU | CPU (every core) | GPU / CPU | goal met |",
             "|---|---|---|---|---|---|---|"]
    for r in rows:
        met = r.get("met")
        met = "yes" if met is True else "no" if met is False else met
        lines.append(f"| {r['row']} | {r['size']} | {r['goal']} | {r['gpu']} | {r['cpu']} "
                     f"| {r['ratio']} | {met} |")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for key, value in FULL.items():
        parser.add_argument("--" + key.replace("_", "-"), type=int, default=value)
    parser.add_argument("--k", type=int, default=10)
    parser.add_argument("--budget", type=float, default=540.0,
                        help="seconds; the rows after it are skipped")
    parser.add_argument("--out", default=None, help="write the table here (Markdown)")
    parser.add_argument("--smoke", action="store_true",
                        help="tiny sizes (runs under the CUDA simulator)")
    args = parser.parse_args(argv)
    a = {key: getattr(args, key) for key in FULL}
    if args.smoke:
        a.update(SMOKE)
    t0 = time.perf_counter()
    warm_up(args.k, *((30, None) if args.smoke else (300, 50_000)))
    steps = [("exact pass", lambda: row_pass(a, args.k)),
             ("float32 pass", lambda: row_pass32(a, args.k)),
             ("profile", lambda: row_profile(a, args.k)),
             ("round trip", lambda: row_round_trip(a, args.k)),
             ("whole fit", lambda: row_big(a, args.k)),
             ("fit vs CPU", lambda: row_fit(a, args.k)),
             ("energy_distance", lambda: row_ed(a)), ("energy_test", lambda: row_et(a)),
             ("engine='auto'", lambda: row_auto(a, args.k)),
             ("sweep constants", lambda: row_sweep_constants(a, args.k))]
    print(f"  compiled in {time.perf_counter() - t0:.1f} s", flush=True)
    rows = []
    for name, step in steps:
        if time.perf_counter() - t0 > args.budget:
            rows.append({"row": name, "size": "", "goal": "", "gpu": "skipped (time budget)",
                         "cpu": "", "ratio": "", "met": "not measured"})
        else:
            t_row = time.perf_counter()
            rows.append(step())
            if args.smoke:
                rows[-1]["met"] = "— (smoke run)"
            print(f"  ({time.perf_counter() - t_row:.1f} s) " + table(rows[-1:])[-1],
                  flush=True)
        write(args.out, header(a, args.smoke) + table(rows))  # what is done, if cut off
    print("\n".join(header(a, args.smoke) + table(rows)))
    return 0


def write(path, lines):
    """The table so far to ``path`` (nothing without one)."""
    if path:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
