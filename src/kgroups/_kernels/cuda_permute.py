r"""CUDA kernels of a permutation test on device arrays: the group sums of a batch of
relabellings, from each pair's ``rho`` computed on the fly (never an n x n matrix).

For relabellings :math:`c_b` of the pooled points :math:`x_1, \dots, x_n` (unit
weights) the k-sample statistics need, for each b,

.. math:: P_b[g, h] = \sum_{i : c_b(i) = g} \sum_{y : c_b(y) = h} \rho(x_i, x_y).

Let :math:`L` be the largest group (``skip``) and number the others :math:`h_0, \dots,
h_{k-2}`. Each relabelling gives the ``k - 1`` *columns* ``c = b (k - 1) + j`` with
the indicator :math:`a_c(y) = [c_b(y) = h_j]` of the points. With the pairs weighted
:math:`u_{iy} = [i < y] + [i = y] / 2`, :func:`relabelled_pairs` computes

.. math:: S_b[g, j] = \sum_i a_{b (k-1) + g}(i) \sum_y u_{iy} \rho(x_i, x_y)\, a_c(y),

and the symmetry of :math:`\rho` gives :math:`P_b[h_g, h_j] = S_b[g, j] + S_b[j, g]`:
each unordered pair is computed once. :math:`L`'s row and column follow from the row
sums :math:`r = \rho 1` (:mod:`kgroups._stats.pairsum_cuda`,
:func:`kgroups._stats.dispatch.relabelled`), as they did from the pooled matrix.

The inner sum is a matrix product (points ``i`` by columns ``c``, summed over
``y``) whose one factor, :math:`u \rho`, is computed tile by tile in shared memory
and whose other, the indicators, are bits (:data:`WORD` points to a ``uint32``, the
array ``bits`` (W, C): word ``w`` of column ``c`` holds points ``32 w ... 32 w + 31``,
least significant bit first). Each block takes a *strip* of :data:`STRIP`
consecutive points ``i`` and, for each tile of :data:`PAIR_COLS` points ``y`` from
the strip on (the pairs ``y < i`` have weight 0), computes the ``STRIP x PAIR_COLS``
values ``u rho`` into shared memory (``rho`` the device twin of the CPU's,
:func:`kgroups._kernels.cuda.rho`); then every thread adds, for each ``y``, each of
its ``STRIP`` values times each of its :data:`SLOTS` columns' indicator bits into
``STRIP x SLOTS`` float64 accumulators held in registers: per point ``y``,
``STRIP`` shared-memory reads (the same address for all the lanes of a warp, a
broadcast), ``SLOTS`` bits taken from words held in registers, and ``STRIP x SLOTS``
fused multiply-adds (exact products: the indicators are 0 or 1). The lanes of a
warp hold :data:`LANES` consecutive columns, ``c = base + s LANES + lane`` for slot
``s``; a block of up to :data:`MAX_WARPS` warps holds ``MAX_WARPS x LANES x SLOTS``
columns (``blockIdx.y`` the tile of columns). After the strip's last tile each thread
reduces its accumulators by the strips' own bits (:math:`a_{b (k-1) + g}(i)` of the
``STRIP`` points, one word) into ``part[blockIdx.x, g, c]``.

Strip ``p`` has about ``n - STRIP p`` points ``y`` to go through; a block takes the
strips ``p`` and ``n_strips - 1 - p`` in turn, so each block's work is about the same,
and the blocks of a launch (at most as many as the pairs of strips) go through the
pairs ``blockIdx.x, blockIdx.x + gridDim.x, ...``. Each entry of ``part`` belongs to
one thread, which writes it after its first strip and adds to it after each other:
no atomics, and the same sums in the same order on every run. :func:`sum_parts`
adds ``part`` over the blocks (in order) into ``out[g, c]``.

Every index is bounds-checked (points past ``n``, columns past ``C``: their values
and bits are 0), so the kernels take any ``n`` and any number of columns. Under
numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``), which runs each thread as a
Python thread, the warps have :data:`LANES` = 4 lanes and the tiles of points 32
columns; the tests compare the sums with a brute-force sum over the pairs.
"""

from __future__ import annotations

from .numba_cuda import numba_cuda

# numba.cuda imported after the NumPy names its compiler still calls are restored
cuda = numba_cuda()

import numba  # noqa: E402

from .cuda import rho  # noqa: E402

_SIM = bool(numba.config.ENABLE_CUDASIM)

# Points of a strip, the rows of a thread's accumulators (a divisor of WORD: a strip's
# bits lie in one word).
STRIP = 8
# Columns (relabelling x group) a thread accumulates: STRIP x SLOTS float64 registers.
SLOTS = 8
# Points an indicator word holds (uint32).
WORD = 32
# Lanes of a warp along the columns (32: the lanes of a hardware warp share each
# shared-memory read; 4 under the simulator).
LANES = 4 if _SIM else 32
# Warps of a block at most (all along the columns): MAX_WARPS x LANES x SLOTS columns.
MAX_WARPS = 4
# Points y of a tile of u rho in shared memory (a multiple of WORD): STRIP x PAIR_COLS
# float64, 16 KiB on a device.
PAIR_COLS = 32 if _SIM else 256
# Columns of a block at most.
BLOCK_COLUMNS = MAX_WARPS * LANES * SLOTS

ONE = numba.uint32(1)
ZERO = numba.uint32(0)


@cuda.jit
def relabelled_pairs(XT, bits, groups, part, code, alpha, sigma, theta):
    """``part[blockIdx.x, g, c]``: the block's share of ``S_b[g, j]`` (the module
    docstring) for the columns ``c = b groups + j`` of its tile of columns.

    ``XT`` (D, n) the pooled points, transposed; ``bits`` (W, C) uint32 the columns'
    indicators, ``W = ceil(n / 32)`` (bits past ``n`` zero); ``groups = k - 1``;
    ``part`` (gridDim.x, groups, C) float64, each block's row written before it is
    read (``gridDim.x`` at most :func:`strip_pairs`: each block takes a pair at
    least). Launched with ``gridDim.y x blockDim.x / LANES`` warps' worth of columns
    covering ``C`` (:func:`launch_shape`).
    """
    dim, n = XT.shape
    C = bits.shape[1]
    n_strips = (n + STRIP - 1) // STRIP
    n_pairs = (n_strips + 1) // 2
    n_pad = bits.shape[0] * WORD
    tid = cuda.threadIdx.x
    nthreads = cuda.blockDim.x
    lane = tid % LANES
    base = (cuda.blockIdx.y * (nthreads // LANES) + tid // LANES) * (LANES * SLOTS)
    active = base < C  # the same for a warp's lanes
    col0 = base + lane
    Rs = cuda.shared.array((PAIR_COLS, STRIP), dtype=numba.float64)
    acc = cuda.local.array((STRIP, SLOTS), dtype=numba.float64)
    rv = cuda.local.array(STRIP, dtype=numba.float64)
    wd = cuda.local.array(SLOTS, dtype=numba.uint32)
    for p in range(cuda.blockIdx.x, n_pairs, cuda.gridDim.x):
        for half in range(2):
            strip = p if half == 0 else n_strips - 1 - p
            if half == 1 and strip == p:
                break
            i0 = strip * STRIP
            for r in range(STRIP):
                for s in range(SLOTS):
                    acc[r, s] = 0.0
            for y0 in range((i0 // WORD) * WORD, n, PAIR_COLS):
                cuda.syncthreads()  # the previous tile read by every thread
                for e in range(tid, PAIR_COLS * STRIP, nthreads):
                    yy = e // STRIP
                    r = e - yy * STRIP
                    i = i0 + r
                    y = y0 + yy
                    v = 0.0
                    if i < n and y < n and y >= i:
                        d2 = 0.0
                        for d in range(dim):
                            u = XT[d, i] - XT[d, y]
                            d2 += u * u
                        v = rho(d2, code, alpha, sigma, theta)
                        if y == i:
                            v *= 0.5
                    Rs[yy, r] = v
                cuda.syncthreads()
                if active:
                    ylen = n_pad - y0 if n_pad - y0 < PAIR_COLS else PAIR_COLS
                    for yb in range(0, ylen, WORD):
                        w = (y0 + yb) // WORD
                        for s in range(SLOTS):
                            c = col0 + s * LANES
                            wd[s] = bits[w, c] if c < C else ZERO
                        bit = ONE
                        for j in range(WORD):
                            for r in range(STRIP):
                                rv[r] = Rs[yb + j, r]
                            for s in range(SLOTS):
                                m = 1.0 if wd[s] & bit else 0.0
                                for r in range(STRIP):
                                    acc[r, s] += rv[r] * m
                            bit = numba.uint32(bit << ONE)
            if active:
                w = i0 // WORD
                shift = numba.uint32(i0 - w * WORD)
                first = p == cuda.blockIdx.x and half == 0
                for g in range(groups):
                    for s in range(SLOTS):
                        c = col0 + s * LANES
                        word = ZERO
                        if c < C:
                            word = bits[w, (c // groups) * groups + g] >> shift
                        t = 0.0
                        for r in range(STRIP):
                            t += acc[r, s] * (1.0 if word & ONE else 0.0)
                            word = word >> ONE
                        if c < C:
                            if first:
                                part[cuda.blockIdx.x, g, c] = t
                            else:
                                part[cuda.blockIdx.x, g, c] += t


@cuda.jit
def sum_parts(part, out):
    """``out[g, c] = sum_q part[q, g, c]`` (in the order of ``q``; one thread per
    entry of ``out``)."""
    t = cuda.grid(1)
    groups, C = out.shape
    if t < groups * C:
        g = t // C
        c = t - g * C
        acc = 0.0
        for q in range(part.shape[0]):
            acc += part[q, g, c]
        out[g, c] = acc


def launch_shape(columns):
    """``(warps a block, tiles of columns)`` for ``columns`` columns: as few warps as
    hold them, at most :data:`MAX_WARPS`, then as many tiles as needed."""
    per_warp = LANES * SLOTS
    warps = int(min(MAX_WARPS, max(1, -(-columns // per_warp))))
    return warps, int(max(1, -(-columns // (warps * per_warp))))


def strip_pairs(n):
    """The pairs of strips of ``n`` points (``p`` with ``n_strips - 1 - p``)."""
    return (-(-int(n) // STRIP) + 1) // 2
