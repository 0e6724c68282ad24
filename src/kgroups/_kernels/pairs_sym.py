"""The matrix-free engine's pass over the pairs: ``M`` from the data in one visit of
each unordered pair.

``M[l, i] = sum_{y in C_l} B[i, y]`` with ``B[i, y] = -w_i w_y rho(x_i, x_y) / 2``
(``K = -rho/2``, paper eq. 18's column of ``G``). Every pair ``a < c`` gives
``w_c rho(a, c)`` to ``S[lab(c), a]`` (its *row side*) and ``w_a rho(a, c)`` to
``S[lab(a), c]`` (its *column side*), and ``M[l, c] = -w_c S[l, c] / 2``
(:func:`finish_sums`).

How the pass is laid out, so that it runs at the rate of the machine's vector
units rather than of its memory or of one scalar chain:

* **Panels.** The points, sorted by label, are cut into panels of :data:`PANEL`
  rows that go round-robin to the workers (the triangle of pairs shrinks from one
  panel to the next, and the round-robin balances it). A panel meets the columns
  after it in tiles of :data:`TILE`; a tile's coordinates (D x TILE) stay in cache
  while the panel's rows, four at a time, go past it.
* **Squared distances by differences.** ``d2 = sum_d (x_d - y_d)^2``, two
  dimensions at a time, is exact to rounding for every pair, near-duplicates
  included (no norm expansion, so no cancellation to guard against). The first
  dimensions go through the tile in passes of eight and four (:func:`diff_dims8`,
  :func:`diff_dims`: each pass reads and writes the four rows' sums once); the
  last two are fused with ``rho`` (:func:`last_dims`), so that the square roots run
  in the loop that also does arithmetic.
* **Both sides vectorised.** The column side is an elementwise update of one row
  of ``S`` (the four rows' weighted values added, :func:`column_side`). The row
  side, a sum over the columns of each cluster, would be a scalar chain (its order
  is fixed, no fast-math); instead each row keeps a buffer of ``TILE`` partial
  sums, one per column position, updated elementwise across the tiles of a
  cluster, and reduced once when the row has met the cluster's last column
  (:func:`flush_rows`). The order of every addition is fixed by the loops, not
  by the compiler's vector width: compiled and run as Python, the pass gives the
  same bits.
"""

import numpy as np

from .jit import njit
from .parallel import spread
from .semimetric import ENERGY, exact_sq, rho, rho_inplace

# Columns per tile and rows per panel: the tile's coordinates, the four rows'
# distances and the panel's row-side buffers (PANEL x TILE) stay in the core's cache.
TILE = 256
PANEL = 64


def accumulators(n_threads, rows, n):
    """Zeroed sums for a pass over the pairs (:func:`build_m_sym`, and
    :func:`~kgroups._kernels.pairs_on_the_fly.build_m_multi`): one ``rows x n`` per
    worker, the first becoming the result.

    Allocated here by numpy rather than inside the kernel: numpy advises the
    operating system to back large arrays with huge pages, so that writing them
    the first time takes one page fault per 2 MB instead of one per 4 kB, which
    shortens the pass over the pairs.
    """
    return np.zeros((n_threads, rows, n))


@njit(cache=True)
def finish_sums(acc, ws):
    """``acc[0][j, c] = -w_c / 2 sum_t acc[t][j, c]``: the workers' sums of a pass over
    the pairs added (in worker order) and turned into ``M`` (``B = -w w rho / 2``);
    returns ``acc[0]``."""
    own = acc[0]
    for j in range(own.shape[0]):
        for c in range(own.shape[1]):
            t = own[j, c]
            for th in range(1, acc.shape[0]):
                t += acc[th, j, c]
            own[j, c] = -0.5 * ws[c] * t
    return own


@njit(cache=True)
def diff_dims(XT, idx, c0, c1, d, nd, first, out):
    """``out[r, t] = (out[r, t] +) sum_{d <= e < d + nd} (XT[e, idx[r]] - XT[e, c0 + t])^2``
    for the four rows ``idx`` and the columns ``c0 .. c1 - 1`` (``nd`` 2 or 4;
    ``first`` starts the sums). Dimensions are added two at a time, ``(p0^2 +
    p1^2)``, each pair of them to the running sum in turn."""
    m = c1 - c0
    i0, i1, i2, i3 = idx[0], idx[1], idx[2], idx[3]
    o0, o1, o2, o3 = out[0, :m], out[1, :m], out[2, :m], out[3, :m]
    y0, y1 = XT[d, c0:c1], XT[d + 1, c0:c1]
    a0, a1, b0, b1 = XT[d, i0], XT[d + 1, i0], XT[d, i1], XT[d + 1, i1]
    e0, e1, f0, f1 = XT[d, i2], XT[d + 1, i2], XT[d, i3], XT[d + 1, i3]
    if nd == 2:
        if first:
            for t in range(m):
                u0, u1 = y0[t], y1[t]
                p0, p1 = a0 - u0, a1 - u1
                o0[t] = p0 * p0 + p1 * p1
                p0, p1 = b0 - u0, b1 - u1
                o1[t] = p0 * p0 + p1 * p1
                p0, p1 = e0 - u0, e1 - u1
                o2[t] = p0 * p0 + p1 * p1
                p0, p1 = f0 - u0, f1 - u1
                o3[t] = p0 * p0 + p1 * p1
        else:
            for t in range(m):
                u0, u1 = y0[t], y1[t]
                p0, p1 = a0 - u0, a1 - u1
                o0[t] += p0 * p0 + p1 * p1
                p0, p1 = b0 - u0, b1 - u1
                o1[t] += p0 * p0 + p1 * p1
                p0, p1 = e0 - u0, e1 - u1
                o2[t] += p0 * p0 + p1 * p1
                p0, p1 = f0 - u0, f1 - u1
                o3[t] += p0 * p0 + p1 * p1
        return
    y2, y3 = XT[d + 2, c0:c1], XT[d + 3, c0:c1]
    a2, a3, b2, b3 = XT[d + 2, i0], XT[d + 3, i0], XT[d + 2, i1], XT[d + 3, i1]
    e2, e3, f2, f3 = XT[d + 2, i2], XT[d + 3, i2], XT[d + 2, i3], XT[d + 3, i3]
    if first:
        for t in range(m):
            u0, u1, u2, u3 = y0[t], y1[t], y2[t], y3[t]
            p0, p1, p2, p3 = a0 - u0, a1 - u1, a2 - u2, a3 - u3
            o0[t] = (p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)
            p0, p1, p2, p3 = b0 - u0, b1 - u1, b2 - u2, b3 - u3
            o1[t] = (p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)
            p0, p1, p2, p3 = e0 - u0, e1 - u1, e2 - u2, e3 - u3
            o2[t] = (p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)
            p0, p1, p2, p3 = f0 - u0, f1 - u1, f2 - u2, f3 - u3
            o3[t] = (p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)
    else:
        for t in range(m):
            u0, u1, u2, u3 = y0[t], y1[t], y2[t], y3[t]
            p0, p1, p2, p3 = a0 - u0, a1 - u1, a2 - u2, a3 - u3
            o0[t] = (o0[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)
            p0, p1, p2, p3 = b0 - u0, b1 - u1, b2 - u2, b3 - u3
            o1[t] = (o1[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)
            p0, p1, p2, p3 = e0 - u0, e1 - u1, e2 - u2, e3 - u3
            o2[t] = (o2[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)
            p0, p1, p2, p3 = f0 - u0, f1 - u1, f2 - u2, f3 - u3
            o3[t] = (o3[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)


@njit(cache=True)
def diff_dims8(XT, idx, c0, c1, d, first, out):
    """:func:`diff_dims` of eight dimensions ``d .. d + 7`` in one loop: the same sums
    in the same order as two passes of four (``((p0^2 + p1^2) + (p2^2 + p3^2))``, then
    ``(p4^2 + p5^2)`` and ``(p6^2 + p7^2)`` added in turn), with one read and one write
    of ``out`` instead of two."""
    m = c1 - c0
    i0, i1, i2, i3 = idx[0], idx[1], idx[2], idx[3]
    o0, o1, o2, o3 = out[0, :m], out[1, :m], out[2, :m], out[3, :m]
    y0, y1, y2, y3 = XT[d, c0:c1], XT[d + 1, c0:c1], XT[d + 2, c0:c1], XT[d + 3, c0:c1]
    y4, y5, y6, y7 = XT[d + 4, c0:c1], XT[d + 5, c0:c1], XT[d + 6, c0:c1], XT[d + 7, c0:c1]
    a0, a1, a2, a3 = XT[d, i0], XT[d + 1, i0], XT[d + 2, i0], XT[d + 3, i0]
    a4, a5, a6, a7 = XT[d + 4, i0], XT[d + 5, i0], XT[d + 6, i0], XT[d + 7, i0]
    b0, b1, b2, b3 = XT[d, i1], XT[d + 1, i1], XT[d + 2, i1], XT[d + 3, i1]
    b4, b5, b6, b7 = XT[d + 4, i1], XT[d + 5, i1], XT[d + 6, i1], XT[d + 7, i1]
    e0, e1, e2, e3 = XT[d, i2], XT[d + 1, i2], XT[d + 2, i2], XT[d + 3, i2]
    e4, e5, e6, e7 = XT[d + 4, i2], XT[d + 5, i2], XT[d + 6, i2], XT[d + 7, i2]
    f0, f1, f2, f3 = XT[d, i3], XT[d + 1, i3], XT[d + 2, i3], XT[d + 3, i3]
    f4, f5, f6, f7 = XT[d + 4, i3], XT[d + 5, i3], XT[d + 6, i3], XT[d + 7, i3]
    if first:
        for t in range(m):
            u0, u1, u2, u3 = y0[t], y1[t], y2[t], y3[t]
            u4, u5, u6, u7 = y4[t], y5[t], y6[t], y7[t]
            p0, p1, p2, p3 = a0 - u0, a1 - u1, a2 - u2, a3 - u3
            p4, p5, p6, p7 = a4 - u4, a5 - u5, a6 - u6, a7 - u7
            o0[t] = ((((p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))
            p0, p1, p2, p3 = b0 - u0, b1 - u1, b2 - u2, b3 - u3
            p4, p5, p6, p7 = b4 - u4, b5 - u5, b6 - u6, b7 - u7
            o1[t] = ((((p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))
            p0, p1, p2, p3 = e0 - u0, e1 - u1, e2 - u2, e3 - u3
            p4, p5, p6, p7 = e4 - u4, e5 - u5, e6 - u6, e7 - u7
            o2[t] = ((((p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))
            p0, p1, p2, p3 = f0 - u0, f1 - u1, f2 - u2, f3 - u3
            p4, p5, p6, p7 = f4 - u4, f5 - u5, f6 - u6, f7 - u7
            o3[t] = ((((p0 * p0 + p1 * p1) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))
    else:
        for t in range(m):
            u0, u1, u2, u3 = y0[t], y1[t], y2[t], y3[t]
            u4, u5, u6, u7 = y4[t], y5[t], y6[t], y7[t]
            p0, p1, p2, p3 = a0 - u0, a1 - u1, a2 - u2, a3 - u3
            p4, p5, p6, p7 = a4 - u4, a5 - u5, a6 - u6, a7 - u7
            o0[t] = ((((o0[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))
            p0, p1, p2, p3 = b0 - u0, b1 - u1, b2 - u2, b3 - u3
            p4, p5, p6, p7 = b4 - u4, b5 - u5, b6 - u6, b7 - u7
            o1[t] = ((((o1[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))
            p0, p1, p2, p3 = e0 - u0, e1 - u1, e2 - u2, e3 - u3
            p4, p5, p6, p7 = e4 - u4, e5 - u5, e6 - u6, e7 - u7
            o2[t] = ((((o2[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))
            p0, p1, p2, p3 = f0 - u0, f1 - u1, f2 - u2, f3 - u3
            p4, p5, p6, p7 = f4 - u4, f5 - u5, f6 - u6, f7 - u7
            o3[t] = ((((o3[t] + (p0 * p0 + p1 * p1)) + (p2 * p2 + p3 * p3)) + (p4 * p4 + p5 * p5))
                     + (p6 * p6 + p7 * p7))


@njit(cache=True)
def last_dims(XT, idx, c0, c1, D, first, out, code, alpha, sigma, theta):
    """The last dimensions (two, or the one of an odd ``D``) added to ``out`` (started
    when ``first``), then ``out[r, t] = rho(out[r, t])``; for the energy distance
    (``alpha = 1``) the square root is taken in the loop of the last two."""
    m = c1 - c0
    o0, o1, o2, o3 = out[0, :m], out[1, :m], out[2, :m], out[3, :m]
    i0, i1, i2, i3 = idx[0], idx[1], idx[2], idx[3]
    if D % 2:
        d = D - 1
        y0 = XT[d, c0:c1]
        a0, b0, e0, f0 = XT[d, i0], XT[d, i1], XT[d, i2], XT[d, i3]
        if first:
            for t in range(m):
                u0 = y0[t]
                o0[t] = (a0 - u0) * (a0 - u0)
                o1[t] = (b0 - u0) * (b0 - u0)
                o2[t] = (e0 - u0) * (e0 - u0)
                o3[t] = (f0 - u0) * (f0 - u0)
        else:
            for t in range(m):
                u0 = y0[t]
                o0[t] += (a0 - u0) * (a0 - u0)
                o1[t] += (b0 - u0) * (b0 - u0)
                o2[t] += (e0 - u0) * (e0 - u0)
                o3[t] += (f0 - u0) * (f0 - u0)
    elif first or code != ENERGY or alpha != 1.0:
        diff_dims(XT, idx, c0, c1, D - 2, np.int64(2), first, out)
    else:  # the energy distance: the square root in the loop of the last dimensions
        d = D - 2
        y0, y1 = XT[d, c0:c1], XT[d + 1, c0:c1]
        a0, a1, b0, b1 = XT[d, i0], XT[d + 1, i0], XT[d, i1], XT[d + 1, i1]
        e0, e1, f0, f1 = XT[d, i2], XT[d + 1, i2], XT[d, i3], XT[d + 1, i3]
        for t in range(m):
            u0, u1 = y0[t], y1[t]
            p0, p1 = a0 - u0, a1 - u1
            o0[t] = np.sqrt(o0[t] + (p0 * p0 + p1 * p1))
            p0, p1 = b0 - u0, b1 - u1
            o1[t] = np.sqrt(o1[t] + (p0 * p0 + p1 * p1))
            p0, p1 = e0 - u0, e1 - u1
            o2[t] = np.sqrt(o2[t] + (p0 * p0 + p1 * p1))
            p0, p1 = f0 - u0, f1 - u1
            o3[t] = np.sqrt(o3[t] + (p0 * p0 + p1 * p1))
        return
    for r in range(4):
        rho_inplace(out[r], m, code, alpha, sigma, theta)


@njit(cache=True)
def energy_segment(XT, idx, c0, c1, out, at, ws, buf, q, dst):
    """The energy distance (``alpha = 1``) of four rows sharing a cluster and the
    columns ``c0 .. c1 - 1`` of one cluster, in one loop: the last two dimensions
    added to the sums in ``out[:, at:]``, the square root, the column side
    (``dst``, the rows' cluster's sums) and the row side (``buf[:, q:]``)."""
    m = c1 - c0
    D = XT.shape[0]
    d = D - 2
    o0, o1, o2, o3 = out[0, at:at + m], out[1, at:at + m], out[2, at:at + m], out[3, at:at + m]
    r0, r1, r2, r3 = buf[0, q:q + m], buf[1, q:q + m], buf[2, q:q + m], buf[3, q:q + m]
    i0, i1, i2, i3 = idx[0], idx[1], idx[2], idx[3]
    y0, y1 = XT[d, c0:c1], XT[d + 1, c0:c1]
    a0, a1, b0, b1 = XT[d, i0], XT[d + 1, i0], XT[d, i1], XT[d + 1, i1]
    e0, e1, f0, f1 = XT[d, i2], XT[d + 1, i2], XT[d, i3], XT[d + 1, i3]
    w0, w1, w2, w3 = ws[i0], ws[i1], ws[i2], ws[i3]
    wt = ws[c0:c1]
    dt = dst[c0:c1]
    for t in range(m):
        u0, u1 = y0[t], y1[t]
        p0, p1 = a0 - u0, a1 - u1
        v0 = np.sqrt(o0[t] + (p0 * p0 + p1 * p1))
        p0, p1 = b0 - u0, b1 - u1
        v1 = np.sqrt(o1[t] + (p0 * p0 + p1 * p1))
        p0, p1 = e0 - u0, e1 - u1
        v2 = np.sqrt(o2[t] + (p0 * p0 + p1 * p1))
        p0, p1 = f0 - u0, f1 - u1
        v3 = np.sqrt(o3[t] + (p0 * p0 + p1 * p1))
        w = wt[t]
        r0[t] += w * v0
        r1[t] += w * v1
        r2[t] += w * v2
        r3[t] += w * v3
        dt[t] += (w0 * v0 + w1 * v1) + (w2 * v2 + w3 * v3)


@njit(cache=True)
def leading_dims(XT, idx, c0, c1, out):
    """``out[r, t]``: the squared distances' sums over every dimension but the last
    one (odd ``D``) or two; returns how many dimensions that is."""
    D = XT.shape[0]
    pre = D - 2 + D % 2 if D >= 2 else 0
    d = np.int64(0)  # not the literal 0: one compiled diff_dims8 for every offset
    while d + 8 <= pre:
        diff_dims8(XT, idx, c0, c1, d, d == 0, out)
        d += 8
    if d + 4 <= pre:
        diff_dims(XT, idx, c0, c1, d, np.int64(4), d == 0, out)
        d += 4
    if d < pre:
        diff_dims(XT, idx, c0, c1, d, np.int64(2), d == 0, out)
    return pre


@njit(cache=True)
def column_side(S, labs, ws, a0, nr, c0, c1, out):
    """``S[lab(a0 + r), c] += w_(a0 + r) rho(a0 + r, c)`` for the ``nr`` rows and the
    columns ``c0 .. c1 - 1`` (``out`` their rho)."""
    m = c1 - c0
    if nr == 4 and labs[a0 + 3] == labs[a0]:  # sorted labels: the 4 rows share a cluster
        w0, w1, w2, w3 = ws[a0], ws[a0 + 1], ws[a0 + 2], ws[a0 + 3]
        o0, o1, o2, o3 = out[0, :m], out[1, :m], out[2, :m], out[3, :m]
        dst = S[labs[a0], c0:c1]
        for t in range(m):
            dst[t] += (w0 * o0[t] + w1 * o1[t]) + (w2 * o2[t] + w3 * o3[t])
        return
    for r in range(nr):
        wr = ws[a0 + r]
        o = out[r, :m]
        dst = S[labs[a0 + r], c0:c1]
        for t in range(m):
            dst[t] += wr * o[t]


@njit(cache=True)
def row_side(buf, nr, q, ws, c0, c1, out, at):
    """``buf[r, q + t] += w_(c0 + t) rho(r, c0 + t)`` (``rho`` in ``out[r, at + t]``):
    the row side's partial sums, one per column position of the tile."""
    m = c1 - c0
    wt = ws[c0:c1]
    for r in range(nr):
        o = out[r, at:at + m]
        b = buf[r, q:q + m]
        for t in range(m):
            b[t] += wt[t] * o[t]


@njit(cache=True)
def flush_rows(buf, nr, lo, hi, S, l, a0):
    """``S[l, a0 + r] += sum_{lo <= p < hi} buf[r, p]`` and those positions zeroed:
    the rows have met every column of cluster ``l``.

    Each row's positions are added in eight interleaved partial sums (position
    ``lo + 8 u + j`` to sum ``j``), then ``((s0 + s1) + (s2 + s3)) + ((s4 + s5) +
    (s6 + s7))``: a fixed order, and eight independent additions per step instead
    of one chain (a cluster smaller than a tile is reduced over all its columns)."""
    m = hi - lo
    m8 = m - m % 8
    for r in range(nr):
        b = buf[r, lo:hi]
        s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
        for u in range(0, m8, 8):
            s0 += b[u]
            s1 += b[u + 1]
            s2 += b[u + 2]
            s3 += b[u + 3]
            s4 += b[u + 4]
            s5 += b[u + 5]
            s6 += b[u + 6]
            s7 += b[u + 7]
        for u in range(m8, m):
            s0 += b[u]
        for u in range(m):
            b[u] = 0.0
        S[l, a0 + r] += ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7))


@njit(cache=True)
def diagonal_block(XT, ws, labs, a0, nr, S, code, alpha, sigma, theta):
    """The pairs within the rows ``a0 .. a0 + nr - 1``, each once (both sides)."""
    for r in range(nr):
        a = a0 + r
        for r2 in range(r + 1, nr):
            c = a0 + r2
            v = rho(exact_sq(XT[:, a], XT[:, c]), code, alpha, sigma, theta)
            S[labs[c], a] += ws[c] * v
            S[labs[a], c] += ws[a] * v


def build_m_sym(XTs, ws, labs, bounds, acc, code, alpha, sigma, theta):
    """``Ms[l, a] = sum_{y in C_l} B[a, y]`` in the label-sorted order, each pair once.

    Panels of :data:`PANEL` rows go round-robin to the workers, one per k x n ``S``
    of ``acc``, all at once (:func:`~kgroups._kernels.parallel.spread`), each adding
    into its own ``acc[th]`` (zeroed by the caller, see :func:`accumulators`); the
    sums end in ``acc[0]``, the result (:func:`finish_sums`).

    Parameters
    ----------
    XTs : float64[D, n]    centred data transposed, columns sorted by label.
    ws : float64[n]        weights, sorted.
    labs : int64[n]        labels, sorted (non-decreasing).
    bounds : int64[k + 1]  cluster ``l`` is columns ``bounds[l]:bounds[l+1]``.
    acc : float64[t, k, n] zeros, one k x n per worker (t = 1: one worker).

    Returns
    -------
    Ms : float64[k, n]     in the sorted order (``acc[0]``).
    """
    spread(m_sym_workers, acc.shape[0], acc.shape[0], XTs, ws, labs, bounds, acc, code,
           alpha, sigma, theta)
    return finish_sums(acc, ws)


@njit(cache=True, nogil=True)
def m_sym_workers(XTs, ws, labs, bounds, acc, code, alpha, sigma, theta, th_lo, th_hi):
    """:func:`build_m_sym`'s workers ``th_lo .. th_hi - 1``: worker ``th`` takes the
    panels ``th, th + t, th + 2 t, ...`` into ``acc[th]``, and adds every pair whose
    first point is in the panel ``p0 .. p1 - 1`` (see the module docstring)."""
    D, n = XTs.shape
    n_panels = (n + PANEL - 1) // PANEL
    out = np.empty((4, TILE), np.float64)
    idx = np.empty(4, dtype=np.int64)
    buf = np.zeros((PANEL, TILE), np.float64)
    lo = np.empty(PANEL // 4, dtype=np.int64)
    hi = np.empty(PANEL // 4, dtype=np.int64)
    for p in range(n_panels):  # each accumulator gets its panels in increasing order
        th = p % acc.shape[0]
        if th < th_lo or th >= th_hi:
            continue
        S = acc[th]
        p0, p1 = p * PANEL, min(n, p * PANEL + PANEL)
        n_blocks = (p1 - p0 + 3) // 4
        for b in range(n_blocks):
            a0 = p0 + 4 * b
            diagonal_block(XTs, ws, labs, a0, min(4, p1 - a0), S, code, alpha, sigma, theta)
            lo[b], hi[b] = TILE, 0
        for c0 in range(p0 + 4, n, TILE):
            c1 = min(n, c0 + TILE)
            for b in range(n_blocks):
                a0 = p0 + 4 * b
                nr = min(4, p1 - a0)
                l0 = labs[a0]
                s = max(c0, a0 + 4)
                if s >= c1:
                    continue
                for r in range(4):
                    idx[r] = a0 + min(r, nr - 1)
                pre = leading_dims(XTs, idx, s, c1, out)
                # the energy distance, four rows of one cluster: the rest in one loop
                fused = (code == ENERGY and alpha == 1.0 and pre > 0 and D % 2 == 0
                         and nr == 4 and labs[a0 + 3] == labs[a0])
                if not fused:
                    last_dims(XTs, idx, s, c1, D, pre == 0, out, code, alpha, sigma, theta)
                    column_side(S, labs, ws, a0, nr, s, c1, out)
                rows = buf[4 * b:4 * b + 4]
                s0 = s
                while s < c1:  # the row side, one cluster segment at a time
                    l = labs[s]
                    e = min(c1, bounds[l + 1])
                    if fused:
                        energy_segment(XTs, idx, s, e, out, s - s0, ws, rows, s - c0, S[l0])
                    else:
                        row_side(rows, nr, s - c0, ws, s, e, out, s - s0)
                    lo[b] = min(lo[b], s - c0)
                    hi[b] = max(hi[b], e - c0)
                    if e == bounds[l + 1]:  # the rows have met all of cluster l
                        flush_rows(rows, nr, lo[b], hi[b], S, l, a0)
                        lo[b], hi[b] = TILE, 0
                    s = e
