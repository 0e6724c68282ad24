"""The certified float32 pass over the pairs: ``M`` of the matrix-free engine with each
pair's ``rho`` in float32 where the decisions only need it within a proven bound, and
in float64 where the sums must be exact.

Same layout as :mod:`kgroups._kernels.pairs_sym` (panels of label-sorted rows,
tiles of :data:`TILE` columns, four rows at a time, a row side and a column side, each unordered
pair visited once), with a precision per run of columns:

* **float64**, as the float64 pass computes them, for the pairs whose two points share
  a cluster (``share[lab(a), lab(c)]``; with several starts summed as classes of
  points, the pairs that share a cluster in some start), for the pairs inside a block
  of four rows, and for every pair of a block whose four rows are not in one class.
  So ``M[l, i]`` of ``i``'s own cluster is the float64 sum, and each cluster's
  self-sum ``q_l`` (hence ``W``) is exact, whatever the float32 passes do elsewhere.
* **float32** for the other pairs: the coordinates centred and rounded to float32
  (``XT32``), the squared distance by differences (each square added by a fused
  multiply-add, :mod:`kgroups._kernels.fma`) and ``rho`` in float32 (for the energy
  distance with ``alpha`` in {1, 1/2, 2}; other semimetrics evaluate ``rho`` in
  float64 from the float32 squared distance and round it), the four rows' weighted
  values (float32 weights) added in float32 before the column side's float64 sum,
  and the row side's partial sums kept per column position in float32 for at most
  :data:`SPILL_TILES` tiles before they are added to the float64 buffer of
  :func:`~kgroups._kernels.pairs_sym.flush_rows`.

With ``cross`` False the float32 runs are skipped: only the pairs that share a class
are summed (in float64), which gives every cluster's exact ``q`` in ``1/k`` of a pass
(:func:`within_sums`).
The pairs of the classes that ``skip`` marks are left out: the matrix-free engine
bounds their sums from the clusters' means instead (:mod:`kgroups._kernels.centroid`).

Every operation is a float32 or float64 IEEE operation in an order fixed by the
loops (no fast-math; the fused multiply-adds are explicit, and their Python twin
rounds exactly as the instruction does), so the compiled kernels and their Python
twins give the same bits. The error of the float32 runs is bounded in
:mod:`kgroups._kernels.certify`.
"""

import numpy as np

from .fma import fma
from .jit import njit
from .parallel import spread
from .pairs_sym import (column_side, diagonal_block, energy_segment, finish_sums,
                        flush_rows, last_dims, leading_dims, row_side)
from .semimetric import ENERGY, rho

# Columns per tile and rows per panel (as pairs_sym's, longer tiles: the float32 loops
# are short, and each call of a loop has a fixed cost).
TILE = 512
PANEL = 64
# Tiles whose row-side values a float32 position buffer holds before they are added to
# the float64 buffer: each float32 partial sum has at most this many terms.
SPILL_TILES = 8


@njit(cache=True)
def dims8_32(XT, idx, c0, c1, d, first, out):
    """``out[r, t] (+)= sum_{d <= e < d + 8} (XT[e, idx[r]] - XT[e, c0 + t])^2`` in float32
    for the four rows ``idx`` (``first`` starts the sums): each square added by a fused
    multiply-add, dimension after dimension."""
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
            p, q, r, v = a0 - u0, b0 - u0, e0 - u0, f0 - u0
            s0, s1, s2, s3 = p * p, q * q, r * r, v * v
            p, q, r, v = a1 - u1, b1 - u1, e1 - u1, f1 - u1
            s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
            p, q, r, v = a2 - u2, b2 - u2, e2 - u2, f2 - u2
            s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
            p, q, r, v = a3 - u3, b3 - u3, e3 - u3, f3 - u3
            s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
            p, q, r, v = a4 - u4, b4 - u4, e4 - u4, f4 - u4
            s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
            p, q, r, v = a5 - u5, b5 - u5, e5 - u5, f5 - u5
            s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
            p, q, r, v = a6 - u6, b6 - u6, e6 - u6, f6 - u6
            s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
            p, q, r, v = a7 - u7, b7 - u7, e7 - u7, f7 - u7
            o0[t], o1[t] = fma(p, p, s0), fma(q, q, s1)
            o2[t], o3[t] = fma(r, r, s2), fma(v, v, s3)
        return
    for t in range(m):
        u0, u1, u2, u3 = y0[t], y1[t], y2[t], y3[t]
        u4, u5, u6, u7 = y4[t], y5[t], y6[t], y7[t]
        p, q, r, v = a0 - u0, b0 - u0, e0 - u0, f0 - u0
        s0, s1 = fma(p, p, o0[t]), fma(q, q, o1[t])
        s2, s3 = fma(r, r, o2[t]), fma(v, v, o3[t])
        p, q, r, v = a1 - u1, b1 - u1, e1 - u1, f1 - u1
        s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
        p, q, r, v = a2 - u2, b2 - u2, e2 - u2, f2 - u2
        s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
        p, q, r, v = a3 - u3, b3 - u3, e3 - u3, f3 - u3
        s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
        p, q, r, v = a4 - u4, b4 - u4, e4 - u4, f4 - u4
        s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
        p, q, r, v = a5 - u5, b5 - u5, e5 - u5, f5 - u5
        s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
        p, q, r, v = a6 - u6, b6 - u6, e6 - u6, f6 - u6
        s0, s1, s2, s3 = fma(p, p, s0), fma(q, q, s1), fma(r, r, s2), fma(v, v, s3)
        p, q, r, v = a7 - u7, b7 - u7, e7 - u7, f7 - u7
        o0[t], o1[t] = fma(p, p, s0), fma(q, q, s1)
        o2[t], o3[t] = fma(r, r, s2), fma(v, v, s3)


@njit(cache=True)
def dims1_32(XT, idx, c0, c1, d, first, out):
    """:func:`dims8_32` of the one dimension ``d``."""
    m = c1 - c0
    o0, o1, o2, o3 = out[0, :m], out[1, :m], out[2, :m], out[3, :m]
    y0 = XT[d, c0:c1]
    a0, b0, e0, f0 = XT[d, idx[0]], XT[d, idx[1]], XT[d, idx[2]], XT[d, idx[3]]
    if first:
        for t in range(m):
            u0 = y0[t]
            p, q, r, v = a0 - u0, b0 - u0, e0 - u0, f0 - u0
            o0[t], o1[t], o2[t], o3[t] = p * p, q * q, r * r, v * v
    else:
        for t in range(m):
            u0 = y0[t]
            p, q, r, v = a0 - u0, b0 - u0, e0 - u0, f0 - u0
            o0[t] = fma(p, p, o0[t])
            o1[t] = fma(q, q, o1[t])
            o2[t] = fma(r, r, o2[t])
            o3[t] = fma(v, v, o3[t])


@njit(cache=True)
def leading32(XT, idx, c0, c1, out):
    """``out[r, t]``: the float32 squared distances' sums over every dimension but the
    last one (odd ``D``) or two; returns how many dimensions that is."""
    D = XT.shape[0]
    pre = D - 2 + D % 2 if D >= 2 else 0
    d = np.int64(0)  # not the literal 0: one compiled dims8_32 for every offset
    while d + 8 <= pre:
        dims8_32(XT, idx, c0, c1, d, d == 0, out)
        d += 8
    while d < pre:
        dims1_32(XT, idx, c0, c1, d, d == 0, out)
        d += 1
    return pre


@njit(cache=True)
def rho32_inplace(buf, m, code, alpha, sigma, theta):
    """``buf[t] = rho(buf[t])`` for a float32 buffer: the energy distance with ``alpha``
    1, 1/2 or 2 in float32 square roots; otherwise ``rho`` of the squared distance
    converted to float64, rounded to float32 when stored."""
    if code == ENERGY and alpha == 1.0:
        for t in range(m):
            buf[t] = np.sqrt(buf[t])
    elif code == ENERGY and alpha == 0.5:
        for t in range(m):
            buf[t] = np.sqrt(np.sqrt(buf[t]))
    elif not (code == ENERGY and alpha == 2.0):
        for t in range(m):
            buf[t] = rho(np.float64(buf[t]), code, alpha, sigma, theta)


@njit(cache=True)
def last_dims32(XT, idx, c0, c1, D, first, out, code, alpha, sigma, theta):
    """The last dimension (odd ``D``) or two added to the float32 sums ``out`` (started
    when ``first``), then ``rho`` in place (:func:`rho32_inplace`)."""
    for d in range(D - 2 + D % 2 if D >= 2 else 0, D):
        dims1_32(XT, idx, c0, c1, d, first and d == 0, out)
    for r in range(4):
        rho32_inplace(out[r], c1 - c0, code, alpha, sigma, theta)


@njit(cache=True)
def column_side32(dst, w4, c0, c1, out):
    """``dst[c] += w_0 v_0 + w_1 v_1 + w_2 v_2 + w_3 v_3`` over the columns ``c0 .. c1 -
    1`` (``dst`` the float64 sums of the rows' cluster, ``v_r`` the float32 values
    ``out[r]``, ``w4`` the rows' float32 weights): the four terms added in float32 by
    fused multiply-adds, in that order."""
    m = c1 - c0
    w0, w1, w2, w3 = w4[0], w4[1], w4[2], w4[3]
    o0, o1, o2, o3 = out[0, :m], out[1, :m], out[2, :m], out[3, :m]
    dt = dst[c0:c1]
    for t in range(m):
        dt[t] += fma(w3, o3[t], fma(w2, o2[t], fma(w1, o1[t], w0 * o0[t])))


@njit(cache=True)
def row_side32(buf, q, ws, c0, c1, out, at):
    """``buf[r, q + t] += w_(c0 + t) rho(r, c0 + t)`` in float32, a fused multiply-add
    each (``rho`` in ``out[r, at + t]``)."""
    m = c1 - c0
    wt = ws[c0:c1]
    for r in range(4):
        o = out[r, at:at + m]
        b = buf[r, q:q + m]
        for t in range(m):
            b[t] = fma(wt[t], o[t], b[t])


@njit(cache=True)
def energy_segment32(XT, idx, c0, c1, out, at, ws, w4, buf, q, dst):
    """:func:`~kgroups._kernels.pairs_sym.energy_segment` in float32: the last two
    dimensions added to the float32 sums ``out[:, at:]`` (fused multiply-adds), the
    square root, the column side (:func:`column_side32`'s order) and the row side (the
    float32 buffers ``buf[:, q:]``, a fused multiply-add each) in one loop."""
    m = c1 - c0
    d = XT.shape[0] - 2
    o0, o1, o2, o3 = out[0, at:at + m], out[1, at:at + m], out[2, at:at + m], out[3, at:at + m]
    r0, r1, r2, r3 = buf[0, q:q + m], buf[1, q:q + m], buf[2, q:q + m], buf[3, q:q + m]
    i0, i1, i2, i3 = idx[0], idx[1], idx[2], idx[3]
    y0, y1 = XT[d, c0:c1], XT[d + 1, c0:c1]
    a0, a1, b0, b1 = XT[d, i0], XT[d + 1, i0], XT[d, i1], XT[d + 1, i1]
    e0, e1, f0, f1 = XT[d, i2], XT[d + 1, i2], XT[d, i3], XT[d + 1, i3]
    w0, w1, w2, w3 = w4[0], w4[1], w4[2], w4[3]
    wt = ws[c0:c1]
    dt = dst[c0:c1]
    for t in range(m):
        u0, u1 = y0[t], y1[t]
        p0, p1 = a0 - u0, a1 - u1
        v0 = np.sqrt(fma(p1, p1, fma(p0, p0, o0[t])))
        p0, p1 = b0 - u0, b1 - u1
        v1 = np.sqrt(fma(p1, p1, fma(p0, p0, o1[t])))
        p0, p1 = e0 - u0, e1 - u1
        v2 = np.sqrt(fma(p1, p1, fma(p0, p0, o2[t])))
        p0, p1 = f0 - u0, f1 - u1
        v3 = np.sqrt(fma(p1, p1, fma(p0, p0, o3[t])))
        w = wt[t]
        r0[t] = fma(w, v0, r0[t])
        r1[t] = fma(w, v1, r1[t])
        r2[t] = fma(w, v2, r2[t])
        r3[t] = fma(w, v3, r3[t])
        dt[t] += fma(w3, v3, fma(w2, v2, fma(w1, v1, w0 * v0)))


@njit(cache=True)
def spill(buf32, buf, lo, hi):
    """``buf[r, p] += buf32[r, p]`` and ``buf32[r, p] = 0`` for the four rows and the
    positions ``lo .. hi - 1``: float32 partial sums moved to the float64 buffer."""
    for r in range(4):
        a = buf32[r, lo:hi]
        b = buf[r, lo:hi]
        for t in range(hi - lo):
            b[t] += a[t]
            a[t] = 0


@njit(cache=True)
def left_out(skip, ra, rb, ca, cb):
    """Whether ``skip`` marks every pair of classes ``ra..rb`` and ``ca..cb``."""
    for u in range(ra, rb + 1):
        for v in range(ca, cb + 1):
            if not skip[u, v]:
                return False
    return True


@njit(cache=True)
def panel_mixed(XTs, XTs32, ws, ws32, labs, bounds, share, skip, p0, p1, cross, S, out,
                out32, idx, w4, buf, buf32, lo, hi, lo32, hi32, cnt32, code, alpha, sigma,
                theta):
    """Every pair with its first point in the panel ``p0 .. p1 - 1`` (sorted order),
    added to ``S``: per block of four rows and tile of columns, runs of columns of one
    precision (module docstring), those of the pairs of classes ``skip`` marks left
    out. ``lo, hi`` are each block's float64 buffer positions in use, ``lo32, hi32``
    its float32 ones and ``cnt32`` their tiles."""
    D, n = XTs.shape
    n_blocks = (p1 - p0 + 3) // 4
    end = n if cross else bounds[labs[p1 - 1] + 1]  # without cross: own classes only
    for b in range(n_blocks):
        a0 = p0 + 4 * b
        diagonal_block(XTs, ws, labs, a0, min(4, p1 - a0), S, code, alpha, sigma, theta)
        lo[b], hi[b], lo32[b], hi32[b], cnt32[b] = TILE, 0, TILE, 0, 0
    ra, rb = labs[p0], labs[p1 - 1]
    for c0 in range(p0 + 4, end, TILE):
        c1 = min(n, c0 + TILE)
        if left_out(skip, ra, rb, labs[c0], labs[c1 - 1]):
            continue  # every pair of the panel's rows with the tile's columns
        for b in range(n_blocks):
            a0 = p0 + 4 * b
            nr = min(4, p1 - a0)
            l0 = labs[a0]
            s = max(c0, a0 + 4)
            if s >= c1:
                continue
            for r in range(4):
                idx[r] = a0 + min(r, nr - 1)
                w4[r] = ws32[a0 + min(r, nr - 1)]
            rows, rows32 = buf[4 * b:4 * b + 4], buf32[4 * b:4 * b + 4]
            pure = nr == 4 and labs[a0 + 3] == l0
            x = s
            while x < c1:
                if pure:  # a run of columns of one precision, or left out
                    f64 = share[l0, labs[x]]
                    left = skip[l0, labs[x]]
                    e = x
                    while (e < c1 and share[l0, labs[e]] == f64
                           and skip[l0, labs[e]] == left):
                        e = min(c1, bounds[labs[e] + 1])
                else:  # rows of two classes: every pair in float64, or left out
                    f64 = True  # where every row's class leaves out the column's
                    la, lb = labs[a0], labs[a0 + nr - 1]
                    left = left_out(skip, la, lb, labs[x], labs[x])
                    if cross:
                        e = x
                        while e < c1 and left_out(skip, la, lb, labs[e], labs[e]) == left:
                            e = min(c1, bounds[labs[e] + 1])
                    else:
                        e = min(c1, max(x, bounds[labs[a0 + nr - 1] + 1]))
                    if e == x:
                        break
                if left or (not f64 and not cross):
                    x = e
                    continue
                if f64:
                    pre = leading_dims(XTs, idx, x, e, out)
                else:
                    pre = leading32(XTs32, idx, x, e, out32)
                fused = (code == ENERGY and alpha == 1.0 and pre > 0 and D % 2 == 0 and pure)
                if not fused and f64:
                    last_dims(XTs, idx, x, e, D, pre == 0, out, code, alpha, sigma, theta)
                    column_side(S, labs, ws, a0, nr, x, e, out)
                elif not fused:
                    last_dims32(XTs32, idx, x, e, D, pre == 0, out32, code, alpha, sigma, theta)
                    column_side32(S[l0], w4, x, e, out32)
                g0 = x
                while x < e:  # the row side, one class segment at a time
                    l = labs[x]
                    g = min(e, bounds[l + 1])
                    if f64:
                        if fused:
                            energy_segment(XTs, idx, x, g, out, x - g0, ws, rows, x - c0, S[l0])
                        else:
                            row_side(rows, nr, x - c0, ws, x, g, out, x - g0)
                        lo[b] = min(lo[b], x - c0)
                        hi[b] = max(hi[b], g - c0)
                    else:
                        if fused:
                            energy_segment32(XTs32, idx, x, g, out32, x - g0, ws32, w4, rows32,
                                             x - c0, S[l0])
                        else:
                            row_side32(rows32, x - c0, ws32, x, g, out32, x - g0)
                        lo32[b] = min(lo32[b], x - c0)
                        hi32[b] = max(hi32[b], g - c0)
                    if g == bounds[l + 1]:  # the rows have met all of class l
                        if hi32[b] > lo32[b]:
                            spill(rows32, rows, lo32[b], hi32[b])
                            lo[b], hi[b] = min(lo[b], lo32[b]), max(hi[b], hi32[b])
                            lo32[b], hi32[b], cnt32[b] = TILE, 0, 0
                        flush_rows(rows, nr, lo[b], hi[b], S, l, a0)
                        lo[b], hi[b] = TILE, 0
                    x = g
            if hi32[b] > lo32[b]:  # a float32 class continues in the next tile
                cnt32[b] += 1
                if cnt32[b] >= SPILL_TILES:
                    spill(rows32, rows, lo32[b], hi32[b])
                    lo[b], hi[b] = min(lo[b], lo32[b]), max(hi[b], hi32[b])
                    lo32[b], hi32[b], cnt32[b] = TILE, 0, 0


def build_m_mixed(XTs, XTs32, ws, ws32, labs, bounds, share, skip, acc, cross, code, alpha,
                  sigma, theta):
    """``Ms[l, a] = sum_{y in C_l} B[a, y]`` in the label-sorted order from the mixed
    pass (module docstring), each pair once; panels round-robin to the workers, one
    per k x n of ``acc``, all at once (:func:`~kgroups._kernels.parallel.spread`),
    each adding into its own ``acc[th]`` (zeros), the sums ending in ``acc[0]``.

    Parameters
    ----------
    XTs : float64[D, n]     centred data transposed, columns sorted by label.
    XTs32 : float32[D, n]   the same points centred for float32 and rounded.
    ws : float64[n]         weights, sorted; ``ws32`` the same rounded to float32.
    labs : int64[n]         labels (classes), sorted; ``bounds`` (k + 1) their columns.
    share : bool[k, k]      the pairs of classes computed in float64.
    skip : bool[k, k]       the pairs of classes left out (symmetric, False where
                            ``share``): their sums are not computed, except in the
                            blocks of four rows of two classes (a column class left
                            out by one row's class and not by another's is summed
                            for all four, in float64), which the caller overwrites.
    acc : float64[t, k, n]  zeros, one k x n per worker.
    cross : bool            False: the pairs of float64 classes only.

    Returns
    -------
    Ms : float64[k, n]      in the sorted order (``acc[0]``).
    """
    spread(m_mixed_workers, acc.shape[0], acc.shape[0], XTs, XTs32, ws, ws32, labs, bounds,
           share, skip, acc, cross, code, alpha, sigma, theta)
    return finish_sums(acc, ws)


@njit(cache=True, nogil=True)
def m_mixed_workers(XTs, XTs32, ws, ws32, labs, bounds, share, skip, acc, cross, code, alpha,
                    sigma, theta, th_lo, th_hi):
    """:func:`build_m_mixed`'s workers ``th_lo .. th_hi - 1``: worker ``th`` takes the
    panels ``th, th + t, th + 2 t, ...`` into ``acc[th]``."""
    n = XTs.shape[1]
    n_threads = acc.shape[0]
    n_panels = (n + PANEL - 1) // PANEL
    out = np.empty((4, TILE))
    out32 = np.empty((4, TILE), dtype=np.float32)
    idx = np.empty(4, dtype=np.int64)
    w4 = np.empty(4, dtype=np.float32)
    buf = np.zeros((PANEL, TILE))
    buf32 = np.zeros((PANEL, TILE), dtype=np.float32)
    lo = np.empty(PANEL // 4, dtype=np.int64)
    hi = np.empty(PANEL // 4, dtype=np.int64)
    lo32 = np.empty(PANEL // 4, dtype=np.int64)
    hi32 = np.empty(PANEL // 4, dtype=np.int64)
    cnt32 = np.empty(PANEL // 4, dtype=np.int64)
    for th in range(th_lo, th_hi):
        for p in range(th, n_panels, n_threads):
            p0 = p * PANEL
            panel_mixed(XTs, XTs32, ws, ws32, labs, bounds, share, skip, p0,
                        min(n, p0 + PANEL), cross, acc[th], out, out32, idx, w4, buf,
                        buf32, lo, hi, lo32, hi32, cnt32, code, alpha, sigma, theta)
