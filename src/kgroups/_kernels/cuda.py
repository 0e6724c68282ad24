"""CUDA kernels of the GPU engine (numba-cuda): the passes that build ``M`` and the
pass that applies a batch of moves, all computing the kernel on the fly.

With ``B[i, y] = -w_i w_y rho(x_i, x_y) / 2`` (``K = -rho/2``, the matrix-free
engine's convention, :mod:`kgroups._kernels.pairs_on_the_fly`) nothing of size n x n
exists on the device: the data (transposed, ``XT`` of shape (D, n)), the weights
and ``M`` (k x n), O(n (k + D)) memory. Squared distances come from direct
differences of the coordinates (no norm expansion, so no cancellation), and
``rho`` is the device compilation of the same Python source as the CPU kernels'
(:mod:`kgroups._kernels.semimetric`). Everything is float64: these sums decide the
sign of Hartigan gains (paper eq. 50).

* :func:`rows_pass`: ``Ms[l, i] = sum_{y in C_l} B[i, y]`` with the points sorted by
  label, over the ordered pairs, compiled for the number of features (two rows a
  thread in registers, a tile of columns in shared memory, no atomics:
  :func:`build_rows_src`), or :func:`build_sorted` (one thread per row, read from
  global memory) past :data:`ROWS_MAX_FEATURES`; :func:`build_sym`, the same sums
  from each unordered pair once (a block per pair of tiles, the tile's ``rho`` in
  shared memory summed by rows and by columns, one atomic addition per run of a
  label);
* :func:`unsort_columns` (the sorted sums back in the points' order),
  :func:`sum_classes` (a start's ``M`` from the sums of classes of points, restarts)
  and :func:`build_multi` (several starts' ``M`` from one pass, each ``rho`` added to
  every start's sums);
* :func:`apply_pass` (:func:`apply_batch_src`): one thread per column ``y``, the
  moves of R runs in order:
  ``M[old, y] -= B[p, y]``, ``M[new, y] += B[p, y]`` (a moved point's ``B[p, y]``
  computed once for all runs), then the window of columns each run decides next;
* :func:`gather_columns` (a window of ``M``, contiguous) and :func:`zero_rows`;
* for the energy statistics of device arrays (:mod:`kgroups._stats.pairsum_cuda`):
  :func:`scan_rows` (the largest ``|x|`` and the non-finite entries),
  :func:`take_rows_transposed` (parts pooled, rescaled); a permutation test's sums of
  relabellings come from the pairs' ``rho`` computed tile by tile, never an n x n
  matrix (:mod:`kgroups._kernels.cuda_permute`);
* :func:`pooled_matrix` (the dense n x n matrix of ``rho``, the spectral start's).

Each kernel runs under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), where
the tests compare it with its CPU twin (a brute-force sum).
"""

from __future__ import annotations

import math

import numpy as np

from .numba_cuda import numba_cuda

# numba.cuda imported after the NumPy names its compiler still calls are restored
cuda = numba_cuda()

import numba  # noqa: E402

from . import notice  # noqa: E402,F401  (one line when first-use compilation takes a while)
from . import semimetric as _sm  # noqa: E402
from .jit import with_globals  # noqa: E402

# Threads per block of the kernels with one thread per row or column of M: 128 on a
# device; 32 under numba's CUDA simulator, which runs each thread of a block as a
# Python thread (the kernels take any block size: every index is bounds-checked).
THREADS = 32 if numba.config.ENABLE_CUDASIM else 128


def _device_rho(float_type):
    """The device twin of ``rho`` computing in ``float_type`` (the semimetric sources'
    constants ``F(...)`` bound to it), calling the device twins of the scalar
    semimetrics compiled from the same sources."""
    glob = {**_sm.rho_src.__globals__, "F": float_type}
    parts = {name: cuda.jit(device=True)(with_globals(getattr(_sm, name + "_src"), glob))
             for name in ("rho_energy", "rho_laplacian", "rho_gaussian", "rho_localized",
                          "rho_sinusoidal")}
    return cuda.jit(device=True)(with_globals(_sm.rho_src, {**glob, **parts}))


rho = _device_rho(float)
# rho in float32, for the passes of the float32 mode (called with float32 d2 and
# parameters)
rho32 = _device_rho(numba.float32)

# The float type of the pair passes' arithmetic and of their shared memory: float64;
# their float32 twins (:func:`_twin`) rebind both.
F = float
SHARED = numba.float64


def _twin(src, name, **glob):
    """A kernel compiled from ``src`` with some globals rebound (``F``, ``SHARED``,
    ``rho``: the float32 twin of a pass), named ``name``."""
    fn = with_globals(src, {**src.__globals__, **glob}, qualname=name)
    fn.__name__ = name
    return cuda.jit(fn)


# The globals that make a pass its float32 twin.
FLOAT32 = {"F": numba.float32, "SHARED": numba.float32, "rho": rho32}
_COMPILED = {}


def compiled_once(src, name, **glob):
    """:func:`_twin` of ``src`` with ``glob`` (hashable values), compiled once per
    process for each name and globals: the kernels compiled for a number of features."""
    key = (src, name, tuple(sorted(glob.items())))
    if key not in _COMPILED:
        _COMPILED[key] = _twin(src, name, **glob)
    return _COMPILED[key]


def per_features(src, name, n_features, f32=False):
    """``src`` compiled (:func:`compiled_once`) for ``n_features`` features: ``DIM``
    that number up to :data:`ROWS_MAX_FEATURES` (a point's coordinates in registers,
    ``LOCAL_DIM`` of them), 0 past it (read from global memory); ``f32``: its float32
    twin (:data:`FLOAT32`). Named ``name`` with ``DIM`` (and ``_32``) appended."""
    d = int(n_features)
    dim = d if d <= ROWS_MAX_FEATURES else 0
    return compiled_once(src, f"{name}{dim}{'_32' if f32 else ''}", DIM=dim,
                         LOCAL_DIM=max(1, dim), **(FLOAT32 if f32 else {}))


@cuda.jit
def build_sorted(XR, wr, XTs, ws, labs, Ms, tile, code, alpha, sigma, theta):
    """``Ms[l, i] = -wr_i / 2 sum_{y in C_l} w_y rho(r_i, x_y)`` for the rows ``r_i``
    (columns of ``XR``, (D, m)) against the points sorted by label.

    ``XTs`` (D, n), ``ws`` (n) and ``labs`` (n, non-decreasing) in the sorted order;
    ``Ms`` (k, m) zeros. ``XR = XTs``, ``wr = ws``: the sums ``M`` of a build; new
    rows with ``wr = 1``: the cross sums of ``predict``. One thread per row; the
    block loads ``tile`` columns at a time into ``tile * D`` float64 of dynamic
    shared memory (:func:`tile_for`).
    """
    D, n = XTs.shape
    m = XR.shape[1]
    tpb = cuda.blockDim.x
    tx = cuda.threadIdx.x
    i = cuda.blockIdx.x * tpb + tx
    sh = cuda.shared.array(0, dtype=numba.float64)
    acc = 0.0
    cur = labs[0]
    for y0 in range(0, n, tile):
        mt = min(tile, n - y0)
        for t in range(tx, mt, tpb):
            for d in range(D):
                sh[d * tile + t] = XTs[d, y0 + t]
        cuda.syncthreads()
        if i < m:
            for t in range(mt):
                lab = labs[y0 + t]
                if lab != cur:
                    Ms[cur, i] = -0.5 * wr[i] * acc
                    acc = 0.0
                    cur = lab
                d2 = 0.0
                for d in range(D):
                    u = XR[d, i] - sh[d * tile + t]
                    d2 += u * u
                acc += ws[y0 + t] * rho(d2, code, alpha, sigma, theta)
        cuda.syncthreads()
    if i < m:
        Ms[cur, i] = -0.5 * wr[i] * acc


def tile_for(n_features, shared_bytes=48 * 1024):
    """Columns per shared-memory tile of :func:`build_sorted` (at most ``THREADS``)."""
    return int(max(1, min(THREADS, shared_bytes // (8 * n_features))))


# The number of features up to which the pass over ordered pairs is compiled for it
# (:func:`rows_pass`): a thread's row then sits in registers and the loops over the
# features unroll; past it, :func:`build_sorted` reads the row from global memory.
ROWS_MAX_FEATURES = 32
# Bytes of coordinates in one shared-memory tile of build_rows: TILE columns of DIM
# values each (float64; float32 in the float32 twin, twice the columns), at least a
# column per thread, at most 1,024 columns.
ROWS_TILE_BYTES = 20 * 1024
# The semimetric code of the energy distance: build_rows evaluates rho = sqrt(d2)
# (alpha = 1) without the semimetric's dispatch.
ENERGY = _sm.ENERGY


def build_rows_src(XR, wr, XTs, ws, labs, Ms, tile, code, alpha, sigma, theta):
    """:func:`build_sorted` with the number of features ``DIM`` fixed when compiled:
    ``Ms[l, i] = -wr_i / 2 sum_{y in C_l} w_y rho(r_i, x_y)``, ``RPT`` rows per
    thread (``tpb`` rows apart) held in registers, so that each column coordinate
    read from shared memory serves all of them; the block loads ``TILE`` columns at a
    time, with their weights and labels, into static shared memory (``tile`` is
    unused: the launch signature of :func:`build_sorted`). A label changes at the
    same column for every thread of the block, so the threads never diverge; rows
    past ``m`` compute alongside and write nothing.

    Two loops over a tile's columns. A tile whose columns all have the label of the
    sums being made (the labels are sorted: its last column has that label; every
    tile but the at most ``k - 1`` where a label ends), with the energy distance's
    ``alpha = 1`` (``rho = sqrt(d2)``, the value :func:`rho` returns), takes its
    columns two at a time: no label to check and no semimetric to dispatch on per
    pair, an unsigned column index (no wrap-around of negative indices), each
    coordinate pair read at once, the rows' square roots interleaved; so a pair
    costs its arithmetic and little more. The other tiles and semimetrics (and an
    odd last column) go through the loop that checks each column's label and calls
    :func:`rho`. Both add each pair's ``w_y rho`` to the row's float64 sum as it
    comes, in the columns' order.

    The float32 twin (``F = SHARED = float32``, ``rho`` = :data:`rho32`; a tile of
    twice the columns) takes float32 ``XR`` and ``XTs`` and evaluates each ``rho``
    in float32; the weights and the sums stay float64, so that each pair adds the
    float64 value ``w_y rho~`` that the float32 pass applying the moves
    (:func:`apply_batch_src`) takes out again when a point leaves a cluster (up to
    float64 rounding): ``M`` stays the sums of the current members' kernel values,
    which is what the float32 mode's bound ``eps32`` is about (a float32 partial sum
    would leave its rounding behind in the sums of the cluster a point left).
    """
    n = XTs.shape[1]
    m = XR.shape[1]
    tpb = cuda.blockDim.x
    i0 = cuda.blockIdx.x * tpb * RPT + cuda.threadIdx.x
    sx = cuda.shared.array((DIM, TILE), dtype=SHARED)
    sw = cuda.shared.array(TILE, dtype=numba.float64)
    sl = cuda.shared.array(TILE, dtype=numba.int32)
    xi = cuda.local.array((RPT, DIM), dtype=SHARED)
    d2 = cuda.local.array(RPT, dtype=SHARED)
    e2 = cuda.local.array(RPT, dtype=SHARED)
    acc = cuda.local.array(RPT, dtype=numba.float64)
    for r in range(RPT):
        acc[r] = 0.0
        for d in range(DIM):
            xi[r, d] = XR[d, i0 + r * tpb] if i0 + r * tpb < m else F(0.0)
    root = code == ENERGY and alpha == F(1.0)
    cur = numba.int32(labs[0])
    for y0 in range(0, n, TILE):
        mt = min(TILE, n - y0)
        for t in range(cuda.threadIdx.x, mt, tpb):
            for d in range(DIM):
                sx[d, t] = XTs[d, y0 + t]
            sw[t] = ws[y0 + t]
            sl[t] = labs[y0 + t]
        cuda.syncthreads()
        rest = 0
        if root and sl[mt - 1] == cur:
            a = numba.uint32(0)
            end = numba.uint32(mt - 1)
            while a < end:  # columns a and a + 1
                a1 = a + numba.uint32(1)
                for r in range(RPT):
                    d2[r] = F(0.0)
                    e2[r] = F(0.0)
                for d in range(DIM):
                    c = sx[d, a]
                    c1 = sx[d, a1]
                    for r in range(RPT):
                        u = xi[r, d] - c
                        d2[r] += u * u
                        v = xi[r, d] - c1
                        e2[r] += v * v
                wt = sw[a]
                wt1 = sw[a1]
                for r in range(RPT):
                    acc[r] += wt * math.sqrt(d2[r])
                    acc[r] += wt1 * math.sqrt(e2[r])
                a += numba.uint32(2)
            rest = mt - mt % 2
        for t in range(rest, mt):
            lab = sl[t]
            if lab != cur:
                for r in range(RPT):
                    if i0 + r * tpb < m:
                        Ms[cur, i0 + r * tpb] = -0.5 * wr[i0 + r * tpb] * acc[r]
                    acc[r] = 0.0
                cur = lab
            for r in range(RPT):
                d2[r] = F(0.0)
            for d in range(DIM):
                c = sx[d, t]
                for r in range(RPT):
                    u = xi[r, d] - c
                    d2[r] += u * u
            wt = sw[t]
            for r in range(RPT):
                acc[r] += wt * rho(d2[r], code, alpha, sigma, theta)
        cuda.syncthreads()
    for r in range(RPT):
        if i0 + r * tpb < m:
            Ms[cur, i0 + r * tpb] = -0.5 * wr[i0 + r * tpb] * acc[r]


# Rows a thread of build_rows holds: its column reads from shared memory (and, in the
# loop over whole tiles, the loop's bookkeeping) serve them all, at the cost of
# registers, and so of the threads a multiprocessor holds at once.
# benchmarks/bench_gpu.py compares one, two and (float32) four rows in one run.
ROWS_PER_THREAD = 2


def rows_globals(n_features, f32=False):
    """The globals :func:`build_rows_src` is compiled with for ``n_features`` features
    (``f32``: its float32 twin): ``DIM``, ``TILE`` (columns of a tile:
    :data:`ROWS_TILE_BYTES` of coordinates), ``RPT`` (:data:`ROWS_PER_THREAD`) and,
    for the twin, ``F``, ``SHARED`` and ``rho`` in float32."""
    d = int(n_features)
    size = 4 if f32 else 8
    return {"DIM": d, "TILE": max(THREADS, min(1024, ROWS_TILE_BYTES // (size * d))),
            "RPT": ROWS_PER_THREAD, **(FLOAT32 if f32 else {})}


def rows_pass(n_features, m, f32=False):
    """The pass over ordered pairs for ``m`` rows of ``n_features`` features: ``(kernel,
    blocks, threads, tile, shared bytes)``, launched ``kernel[blocks, threads, 0,
    shared](XR, wr, XTs, ws, labs, Ms, tile, *kernel_args)``.

    Up to :data:`ROWS_MAX_FEATURES` features, :func:`build_rows_src` compiled for
    ``n_features`` (once per process, with :func:`rows_globals`; ``f32``: its float32
    twin); beyond, the float64 :func:`build_sorted` with ``tile`` columns in dynamic
    shared memory."""
    d = int(n_features)
    if d > ROWS_MAX_FEATURES:
        if f32:
            raise ValueError("the float32 pass over ordered pairs needs at most "
                             f"{ROWS_MAX_FEATURES} features, got {d}")
        tile = tile_for(d)
        return build_sorted, blocks(m), THREADS, tile, 8 * tile * d
    kernel = compiled_once(build_rows_src, f"build_rows{d}{'_32' if f32 else ''}",
                           **rows_globals(d, f32))
    return kernel, blocks(m, THREADS * ROWS_PER_THREAD), THREADS, 0, 0


@cuda.jit
def gather_window(M, XT, i0, out):
    """A window of columns ``i0, i0 + 1, ...`` for the host's decisions, contiguous:
    ``out[l, c] = M[l, i0 + c]`` for the k rows of ``M``, then the points' rows of the
    data, ``out[k + d, c] = XT[d, i0 + c]`` (``out`` (k + D, b))."""
    c, row = cuda.grid(2)
    k = M.shape[0]
    if c < out.shape[1] and row < out.shape[0]:
        if row < k:
            out[row, c] = M[row, i0 + c]
        else:
            out[row, c] = XT[row - k, i0 + c]


@cuda.jit
def rho_column(XT, c, out, code, alpha, sigma, theta):
    """``out[i] = rho(x_i, x_c)`` for every point (one thread per point)."""
    i = cuda.grid(1)
    if i < XT.shape[1]:
        d2 = 0.0
        for d in range(XT.shape[0]):
            u = XT[d, i] - XT[d, c]
            d2 += u * u
        out[i] = rho(d2, code, alpha, sigma, theta)


@cuda.jit
def column_ranges(XT, out):
    """``out[0, d] = min_i XT[d, i]``, ``out[1, d] = max_i XT[d, i]`` (``out`` starts at
    +inf and -inf): each thread scans a strided share of the points, then one atomic
    minimum and maximum per feature."""
    t = cuda.grid(1)
    step = cuda.gridsize(1)
    D, n = XT.shape
    for d in range(D):
        lo, hi = np.inf, -np.inf
        for i in range(t, n, step):
            v = XT[d, i]
            lo = min(lo, v)
            hi = max(hi, v)
        if lo <= hi:
            cuda.atomic.min(out, (0, d), lo)
            cuda.atomic.max(out, (1, d), hi)


@cuda.jit
def zero_rows(A, rows):
    """``A[:rows, :] = 0`` for a (m, n) array (one thread per column)."""
    c = cuda.grid(1)
    if c < A.shape[1]:
        for r in range(rows):
            A[r, c] = 0.0


@cuda.jit(device=True)
def tile_pair(b):
    """``(bi, bj)``, ``bi <= bj``, of block ``b = bj (bj + 1) / 2 + bi`` (the upper
    triangle of the pairs of tiles, row by row)."""
    bj = int((math.sqrt(8.0 * b + 1.0) - 1.0) / 2.0)
    while bj * (bj + 1) // 2 > b:
        bj -= 1
    while (bj + 1) * (bj + 2) // 2 <= b:
        bj += 1
    return b - bj * (bj + 1) // 2, bj


def build_sym_src(XTs, ws, labs, Ms, tile, code, alpha, sigma, theta):
    """``Ms[l, i] += -w_i / 2 sum_{y in C_l} w_y rho(x_i, x_y)`` from each unordered pair
    once (points sorted by label; ``Ms`` (k, n) zeros).

    Block ``b`` takes the pair of tiles ``(bi, bj)``, ``bi <= bj``, numbered row by
    row of the upper triangle (``b = bj (bj + 1) / 2 + bi``), ``tile`` points each,
    and ``split * tile`` threads (:data:`SYM_SPLIT`): thread ``t`` takes row point
    ``bi tile + t % tile`` against its share ``t // tile`` of the column points,
    puts each ``rho`` in shared memory and sums its share of the row by label runs;
    then (``bi < bj``) the same thread sums its share of column ``bj tile + t %
    tile`` from those values, so each ``rho`` is evaluated once and used for both
    orders. A run of one label adds to ``Ms`` with one atomic addition. Shared
    memory: ``(2 D tile + tile (tile + 1))`` float64 (:func:`sym_tile_for`; float32
    in the float32 twin :data:`build_sym32`, which takes float32 ``XTs``, evaluates
    each ``rho`` in float32 and sums in float64).
    """
    D, n = XTs.shape
    bi, bj = tile_pair(cuda.blockIdx.x)
    t = cuda.threadIdx.x
    nt = cuda.blockDim.x
    me, part = t % tile, t // tile
    share = (tile * tile + nt - 1) // nt  # points of a share: tile / split
    sh = cuda.shared.array(0, dtype=SHARED)
    xc, rr, stride = D * tile, 2 * D * tile, tile + 1
    i0, y0 = bi * tile, bj * tile
    mi, my = min(tile, n - i0), min(tile, n - y0)
    for e in range(t, D * tile, nt):
        d, c = e // tile, e % tile
        if c < mi:
            sh[d * tile + c] = XTs[d, i0 + c]
        if c < my:
            sh[xc + d * tile + c] = XTs[d, y0 + c]
    cuda.syncthreads()
    c0, c1 = part * share, min(my, (part + 1) * share)
    if me < mi and c0 < c1:
        acc, cur = 0.0, labs[y0 + c0]
        for c in range(c0, c1):
            d2 = F(0.0)
            for d in range(D):
                u = sh[d * tile + me] - sh[xc + d * tile + c]
                d2 += u * u
            r = rho(d2, code, alpha, sigma, theta)
            sh[rr + me * stride + c] = r
            if labs[y0 + c] != cur:
                cuda.atomic.add(Ms, (cur, i0 + me), -0.5 * ws[i0 + me] * acc)
                acc, cur = 0.0, labs[y0 + c]
            acc += ws[y0 + c] * r
        cuda.atomic.add(Ms, (cur, i0 + me), -0.5 * ws[i0 + me] * acc)
    cuda.syncthreads()
    a0, a1 = part * share, min(mi, (part + 1) * share)
    if bi < bj and me < my and a0 < a1:
        acc, cur = 0.0, labs[i0 + a0]
        for a in range(a0, a1):
            if labs[i0 + a] != cur:
                cuda.atomic.add(Ms, (cur, y0 + me), -0.5 * ws[y0 + me] * acc)
                acc, cur = 0.0, labs[i0 + a]
            acc += ws[i0 + a] * sh[rr + a * stride + me]
        cuda.atomic.add(Ms, (cur, y0 + me), -0.5 * ws[y0 + me] * acc)


build_sym = _twin(build_sym_src, "build_sym")
build_sym32 = _twin(build_sym_src, "build_sym32", **FLOAT32)


# Threads of build_sym per point of a tile: each takes 1 / SYM_SPLIT of the tile's
# other points (more threads per block for the same shared memory).
SYM_SPLIT = 4


def sym_tile_for(n_features, shared_bytes=48 * 1024):
    """Points per tile of :func:`build_sym` (64, 32, 16 or 8: the largest whose shared
    memory fits ``shared_bytes``), or 0 when none fits (then :func:`build_sorted`)."""
    for tile in (64, 32, 16, 8):
        if 8 * (2 * int(n_features) * tile + tile * (tile + 1)) <= shared_bytes:
            return tile
    return 0


def sym_blocks(n, tile):
    """Blocks of :func:`build_sym`: the pairs of tiles ``bi <= bj``."""
    nb = int((n + tile - 1) // tile)
    return nb * (nb + 1) // 2


@cuda.jit
def unsort_columns(Ms, order, M):
    """``M[l, order[c]] = Ms[l, c]`` (one thread per column)."""
    c = cuda.grid(1)
    if c < order.shape[0]:
        for lab in range(Ms.shape[0]):
            M[lab, order[c]] = Ms[lab, c]


@cuda.jit
def sum_classes(S, classes, order, M):
    """``M[l, order[c]] = sum_{g : classes[g] = l} S[g, c]``, the classes in order (one
    thread per column): a start's ``M`` from the sums ``S`` (G, n) of the classes of
    points with one label in every start, columns sorted as ``order``."""
    c = cuda.grid(1)
    if c >= order.shape[0]:
        return
    y = order[c]
    for lab in range(M.shape[0]):
        M[lab, y] = 0.0
    for g in range(S.shape[0]):
        M[classes[g], y] += S[g, c]


# Sums per thread of build_multi: starts x groups.
STARTS_LOCAL = 256


@cuda.jit
def build_multi(XT, w, labs, k, Ms, tile, code, alpha, sigma, theta):
    """``Ms[r, l, i] = -w_i / 2 sum_{y : labs[r, y] = l} w_y rho(x_i, x_y)`` for R starts
    (``R k <= STARTS_LOCAL``) in one pass: thread ``i`` computes each ``rho(x_i,
    x_y)`` once (columns through shared memory, ``tile * D`` float64) and adds it to
    every start's sum."""
    D, n = XT.shape
    R = labs.shape[0]
    tpb = cuda.blockDim.x
    tx = cuda.threadIdx.x
    i = cuda.blockIdx.x * tpb + tx
    sh = cuda.shared.array(0, dtype=numba.float64)
    acc = cuda.local.array(STARTS_LOCAL, dtype=numba.float64)
    for e in range(R * k):
        acc[e] = 0.0
    for y0 in range(0, n, tile):
        m = min(tile, n - y0)
        for t in range(tx, m, tpb):
            for d in range(D):
                sh[d * tile + t] = XT[d, y0 + t]
        cuda.syncthreads()
        if i < n:
            for t in range(m):
                d2 = 0.0
                for d in range(D):
                    u = XT[d, i] - sh[d * tile + t]
                    d2 += u * u
                v = w[y0 + t] * rho(d2, code, alpha, sigma, theta)
                for r in range(R):
                    acc[r * k + labs[r, y0 + t]] += v
        cuda.syncthreads()
    if i < n:
        for r in range(R):
            for lab in range(k):
                Ms[r, lab, i] = -0.5 * w[i] * acc[r * k + lab]


# Sums of M a thread of apply_batch keeps in local memory (R runs x k clusters): its
# column is read once and written once, not once per move.
APPLY_LOCAL = 256


def apply_batch_src(XT, XW, w, batch, R, n_pend, Ms, out, code, alpha, sigma, theta):
    """A batch of moves of R runs applied to every column ``y`` of their ``Ms`` (R, k,
    n), one thread per column, then each run's next window copied out.

    ``batch`` holds ``lo[r]`` (R), ``hi[r]`` (R), then ``n_pend`` moves
    ``(run, point, old, new)``, the moves of one point consecutive (so that its
    ``B[point, y]`` is computed once for every run that moved it; a run's moves of
    one point in their order, moves of different points commute up to rounding):
    ``Ms[run, old, y] -= B[point, y]``, ``Ms[run, new, y] += B[point, y]``. With
    ``R k <= APPLY_LOCAL`` the column's sums stay in local memory for the whole
    batch. Then ``out[r, l, y - lo[r]] = Ms[r, l, y]`` and ``out[r, k + d, y - lo[r]]
    = XW[d, y]`` (the float64 data) for ``lo[r] <= y < hi[r]``: the columns run ``r``
    decides next and those points' rows of the data (:func:`gather_window`'s
    layout), in the same launch. Compiled for a number of features ``DIM``
    (:func:`apply_pass`), the column's point sits in registers; with ``DIM = 0`` it
    is read from ``XT`` at each move.
    """
    D, n = XT.shape
    k = Ms.shape[1]
    y = cuda.grid(1)
    if y >= n:
        return
    xy = cuda.local.array(LOCAL_DIM, dtype=SHARED)
    if DIM:
        for d in range(DIM):
            xy[d] = XT[d, y]
    acc = cuda.local.array(APPLY_LOCAL, dtype=numba.float64)
    held = R * k <= APPLY_LOCAL
    if held:
        for r in range(R):
            for lab in range(k):
                acc[r * k + lab] = Ms[r, lab, y]
    wy = w[y]
    last = -1
    b = 0.0
    for t in range(n_pend):
        e = 2 * R + 4 * t
        p = batch[e + 1]
        if p != last:
            d2 = F(0.0)
            for d in range(DIM if DIM else D):
                u = XT[d, p] - (xy[d] if DIM else XT[d, y])
                d2 += u * u
            b = -0.5 * w[p] * wy * rho(d2, code, alpha, sigma, theta)
            last = p
        r = batch[e]
        if held:
            acc[r * k + batch[e + 2]] -= b
            acc[r * k + batch[e + 3]] += b
        else:
            Ms[r, batch[e + 2], y] -= b
            Ms[r, batch[e + 3], y] += b
    if held:
        for r in range(R):
            for lab in range(k):
                Ms[r, lab, y] = acc[r * k + lab]
    for r in range(R):
        if batch[r] <= y < batch[R + r]:
            for lab in range(k):
                out[r, lab, y - batch[r]] = Ms[r, lab, y]
            for d in range(D):
                out[r, k + d, y - batch[r]] = XW[d, y]


apply_batch = _twin(apply_batch_src, "apply_batch", DIM=0, LOCAL_DIM=1)
def apply_pass(n_features, f32=False):
    """:func:`apply_batch_src` for data of ``n_features`` features: compiled for that
    number up to :data:`ROWS_MAX_FEATURES` (once per process), else
    :data:`apply_batch`. ``f32``: the float32 twin (float32 ``XT``: each ``B[point,
    y]`` from a float32 ``rho``, the float32 mode; sums in float64)."""
    if int(n_features) > ROWS_MAX_FEATURES and not f32:
        return apply_batch
    return per_features(apply_batch_src, "apply_batch", n_features, f32)


@cuda.jit
def centred_float32(XT, c, out):
    """``out[d, i] = float32(XT[d, i] - c[d])`` (one thread per point): the data of
    the float32 passes, centred so that their rounding is relative to the spread."""
    i = cuda.grid(1)
    if i < XT.shape[1]:
        for d in range(XT.shape[0]):
            out[d, i] = XT[d, i] - c[d]


@cuda.jit
def take_columns(XT, w, order, XTs, ws):
    """``XTs[:, c] = XT[:, order[c]]``, ``ws[c] = w[order[c]]``: the data and weights
    in the order of a build (one thread per column)."""
    c = cuda.grid(1)
    if c < order.shape[0]:
        for d in range(XT.shape[0]):
            XTs[d, c] = XT[d, order[c]]
        ws[c] = w[order[c]]


@cuda.jit
def scan_rows(X, out):
    """``out[0] = max |x|`` over the finite entries of ``X`` (n, D) and ``out[1]`` the
    number of entries that are NaN or infinite (``out`` zeros; one thread per row)."""
    i = cuda.grid(1)
    if i >= X.shape[0]:
        return
    big = 0.0
    bad = 0.0
    for d in range(X.shape[1]):
        v = X[i, d]
        if v != v or v == np.inf or v == -np.inf:
            bad += 1.0
        elif abs(v) > big:
            big = abs(v)
    cuda.atomic.max(out, 0, big)
    if bad:
        cuda.atomic.add(out, 1, bad)


@cuda.jit
def rows_as_float64(X, out):
    """``out[i, d] = X[i, d]`` as float64 (a device array of another numeric dtype, any
    strides; one thread per row)."""
    i = cuda.grid(1)
    if i < X.shape[0]:
        for d in range(X.shape[1]):
            out[i, d] = X[i, d]


@cuda.jit
def take_rows_transposed(X, rows, scale, out, offset):
    """``out[d, offset + t] = X[rows[t], d] * scale``: rows of a part (n, D), in the
    pooled transposed order (D, n_pooled)."""
    t = cuda.grid(1)
    if t < rows.shape[0]:
        for d in range(X.shape[1]):
            out[d, offset + t] = X[rows[t], d] * scale


@cuda.jit
def pooled_matrix(XT, D, code, alpha, sigma, theta):
    """``D[i, y] = rho(x_i, x_y)`` for every pair (one thread per entry, 2-D grid)."""
    y, i = cuda.grid(2)
    dim, n = XT.shape
    if i < n and y < n:
        d2 = 0.0
        for d in range(dim):
            u = XT[d, i] - XT[d, y]
            d2 += u * u
        D[i, y] = rho(d2, code, alpha, sigma, theta)


def blocks(n, threads=THREADS):
    """Thread blocks for ``n`` threads, a Python ``int`` (a launch refuses NumPy's
    integers, which ``n`` may be: a difference of two of them, say)."""
    return int(max(1, (n + threads - 1) // threads))
