"""CUDA kernels of the GPU engine (numba-cuda): the pass that builds ``M`` and the
pass that applies a batch of moves, both computing the kernel on the fly.

With ``B[i, y] = -w_i w_y rho(x_i, x_y) / 2`` (``K = -rho/2``, the matrix-free
engine's convention, :mod:`kgroups._kernels.pairs_on_the_fly`) nothing of size n x n
exists on the device: the data (transposed, ``XT`` of shape (D, n)), the weights
and ``M`` (k x n), O(n (k + D)) memory. Squared distances come from direct
differences of the coordinates (no norm expansion, so no cancellation), and
``rho`` is the device compilation of the same Python source as the CPU kernels'
(:mod:`kgroups._kernels.semimetric`). Everything is float64: these sums decide the
sign of Hartigan gains (paper eq. 50).

* :func:`build_sorted`: ``Ms[l, i] = sum_{y in C_l} B[i, y]`` with the points
  sorted by label, one thread per row ``i``; the columns come through shared
  memory a tile at a time, and each thread adds a cluster's terms in a register,
  writing each ``Ms[l, i]`` once;
* :func:`apply_moves`: one thread per column ``y``, the movers in order:
  ``M[old, y] -= B[p, y]``, ``M[new, y] += B[p, y]`` (the order of the moves, as
  the CPU engines add them);
* :func:`gather_columns`: a block of columns of ``M``, contiguous, for the host's
  decisions;
* for the energy statistics of device arrays (:mod:`kgroups._stats.pairsum_cuda`):
  :func:`scan_rows` (the largest ``|x|`` and the non-finite entries),
  :func:`take_rows_transposed` (parts pooled, rescaled), :func:`pooled_matrix` and
  :func:`relabelled_rows` (a permutation test's pooled n x n matrix and the sums of
  a batch of relabellings).

Each kernel runs under numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), where
the tests compare it with its CPU twin.
"""

from __future__ import annotations

import numpy as np

# numba-cuda's compiler refers to numpy.row_stack, which numpy 2.5 removed; the name
# is an alias of numpy.vstack (same function), restored before numba.cuda loads.
if not hasattr(np, "row_stack"):  # pragma: no cover - depends on the numpy version
    np.row_stack = np.vstack

import numba  # noqa: E402
from numba import cuda  # noqa: E402

from . import notice  # noqa: E402,F401  (one line when first-use compilation takes a while)
from . import semimetric as _sm  # noqa: E402
from .jit import with_globals  # noqa: E402

# Threads per block of every kernel (rows of build_sorted, columns of apply_moves).
THREADS = 128


rho_energy = cuda.jit(device=True)(_sm.rho_energy_src)
rho_laplacian = cuda.jit(device=True)(_sm.rho_laplacian_src)
rho_gaussian = cuda.jit(device=True)(_sm.rho_gaussian_src)
rho_localized = cuda.jit(device=True)(_sm.rho_localized_src)
rho_sinusoidal = cuda.jit(device=True)(_sm.rho_sinusoidal_src)
# the device twin of rho calls the device twins of the scalar semimetrics
rho = cuda.jit(device=True)(with_globals(_sm.rho_src, {
    **_sm.rho_src.__globals__, "rho_energy": rho_energy, "rho_laplacian": rho_laplacian,
    "rho_gaussian": rho_gaussian, "rho_localized": rho_localized,
    "rho_sinusoidal": rho_sinusoidal}))


@cuda.jit
def build_sorted(XTs, ws, labs, Ms, tile, code, alpha, sigma, theta):
    """``Ms[l, i] = -w_i / 2 sum_{y in C_l} w_y rho(x_i, x_y)`` (points sorted by label).

    ``XTs`` (D, n), ``ws`` (n) and ``labs`` (n, non-decreasing) in the sorted order;
    ``Ms`` (k, n) zeros. One thread per row; the block loads ``tile`` columns at a
    time into ``tile * D`` float64 of dynamic shared memory (:func:`tile_for`).
    """
    D, n = XTs.shape
    tpb = cuda.blockDim.x
    tx = cuda.threadIdx.x
    i = cuda.blockIdx.x * tpb + tx
    sh = cuda.shared.array(0, dtype=numba.float64)
    acc = 0.0
    cur = labs[0]
    for y0 in range(0, n, tile):
        m = min(tile, n - y0)
        for t in range(tx, m, tpb):
            for d in range(D):
                sh[d * tile + t] = XTs[d, y0 + t]
        cuda.syncthreads()
        if i < n:
            for t in range(m):
                lab = labs[y0 + t]
                if lab != cur:
                    Ms[cur, i] = -0.5 * ws[i] * acc
                    acc = 0.0
                    cur = lab
                d2 = 0.0
                for d in range(D):
                    u = XTs[d, i] - sh[d * tile + t]
                    d2 += u * u
                acc += ws[y0 + t] * rho(d2, code, alpha, sigma, theta)
        cuda.syncthreads()
    if i < n:
        Ms[cur, i] = -0.5 * ws[i] * acc


def tile_for(n_features, shared_bytes=48 * 1024):
    """Columns per shared-memory tile of :func:`build_sorted` (at most ``THREADS``)."""
    return max(1, min(THREADS, shared_bytes // (8 * n_features)))


@cuda.jit
def apply_moves(XT, w, pts, old, new, n_pend, M, code, alpha, sigma, theta):
    """``M[old[t], y] -= B[pts[t], y]``, ``M[new[t], y] += B[pts[t], y]`` for
    ``t < n_pend``, in that order, every column ``y`` (one thread each)."""
    D, n = XT.shape
    y = cuda.grid(1)
    if y >= n:
        return
    wy = w[y]
    for t in range(n_pend):
        p = pts[t]
        d2 = 0.0
        for d in range(D):
            u = XT[d, p] - XT[d, y]
            d2 += u * u
        b = -0.5 * w[p] * wy * rho(d2, code, alpha, sigma, theta)
        M[old[t], y] -= b
        M[new[t], y] += b


@cuda.jit
def gather_columns(M, i0, out):
    """``out[l, c] = M[l, i0 + c]`` for the columns of ``out`` (k x b)."""
    c, lab = cuda.grid(2)
    if c < out.shape[1] and lab < out.shape[0]:
        out[lab, c] = M[lab, i0 + c]


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


# Sums per thread of relabelled_rows: permutations x groups of a batch.
RELABEL_LOCAL = 256


@cuda.jit
def relabelled_rows(D, codes, k, out):
    """``out[b, i, g] = sum_{y : codes[b, y] = g} D[y, i]`` for every relabelling ``b``
    of ``codes`` (B, n) with ``B k <= RELABEL_LOCAL``: one thread per column ``i`` of
    the symmetric pooled matrix (the reads of a warp are contiguous)."""
    i = cuda.grid(1)
    B, n = codes.shape
    if i >= n:
        return
    acc = cuda.local.array(RELABEL_LOCAL, dtype=numba.float64)
    for e in range(B * k):
        acc[e] = 0.0
    for y in range(n):
        v = D[y, i]
        for b in range(B):
            acc[b * k + codes[b, y]] += v
    for b in range(B):
        for g in range(k):
            out[b, i, g] = acc[b * k + g]


def blocks(n, threads=THREADS):
    """Thread blocks for ``n`` threads."""
    return max(1, (n + threads - 1) // threads)
