"""Matrix-free engine: the kernel is never stored; its entries are computed on the fly.

With ``B[i, y] = -w_i w_y rho(x_i, x_y) / 2`` (``K = -rho/2``, so ``B[i, i] = 0``)
the engine keeps only the data (n x D, twice: row-major and transposed) and
``M`` (k x n), memory O(n (k + D)).

* :func:`build_m_mf` forms ``M[l, i] = sum_{y in C_l} B[i, y]`` in one blocked,
  multi-threaded pass over all pairs, O(n^2 D): points are sorted by label so
  each cluster's sum is a contiguous, vectorised reduction; tiles of rows x
  columns keep the data of a tile in cache.
* :func:`decide_mf` runs the sequential Hartigan decisions (paper Algorithm 2,
  steps 4-15) from a given point on. Moves are not applied to ``M`` at once:
  they are *pending*, and the column ``M[:, i]`` a decision needs is corrected
  by the pending movers' entries ``B[t, i]`` (O(D) each), which gives exactly the
  column the one-move-at-a-time algorithm would see (a row of ``B`` does not
  depend on the labels). It returns when ``batch`` moves are pending.
* :func:`apply_moves_mf` then applies the pending moves to ``M`` as one blocked,
  multi-threaded pass: O(n D) per move, all movers sharing each column tile.
"""

import numpy as np
from numba import njit, prange

from ._gain import best_move, update_stats
from .pairwise import ENERGY, GAUSSIAN, LAPLACIAN, LOCALIZED, rho_from_sq

# Columns per tile: D x TILE float64 stays in L1/L2.
TILE = 512
# Rows per task in build_m_mf.
ROWS = 32


@njit(cache=True)
def sq_dist(X, i, Y, y):
    """``||X[i] - Y[y]||^2`` by direct differences (no cancellation)."""
    d2 = 0.0
    for d in range(X.shape[1]):
        t = X[i, d] - Y[y, d]
        d2 += t * t
    return d2


@njit(cache=True)
def rho_tile(XT, x, lo, hi, code, alpha, sigma, theta, buf):
    """``buf[t] = rho(x, XT[:, lo + t])`` for ``t < hi - lo`` (vectorised loops)."""
    m = hi - lo
    for t in range(m):
        buf[t] = 0.0
    for d in range(XT.shape[0]):
        xd = x[d]
        row = XT[d, lo:hi]  # a view indexed from 0: keeps the loop vectorised
        for t in range(m):
            u = row[t] - xd
            buf[t] += u * u
    if code == ENERGY and alpha == 1.0:
        for t in range(m):
            buf[t] = np.sqrt(buf[t])
    elif code == ENERGY and alpha == 2.0:
        pass
    elif code == ENERGY:
        h = 0.5 * alpha
        for t in range(m):
            buf[t] = buf[t] ** h
    elif code == GAUSSIAN:
        c = 1.0 / (2.0 * sigma * sigma)
        for t in range(m):
            buf[t] = 2.0 - 2.0 * np.exp(-buf[t] * c)
    elif code == LAPLACIAN:
        c = 1.0 / (2.0 * sigma)
        for t in range(m):
            buf[t] = 2.0 - 2.0 * np.exp(-np.sqrt(buf[t]) * c)
    else:
        for t in range(m):
            buf[t] = rho_from_sq(buf[t], code, alpha, sigma, theta)


@njit(cache=True)
def wdot(a, b, m):
    """``sum_t a[t] b[t]`` over ``t < m`` with four partial sums (breaks the add chain)."""
    t0 = t1 = t2 = t3 = 0.0
    m4 = m - m % 4
    for t in range(0, m4, 4):
        t0 += a[t] * b[t]
        t1 += a[t + 1] * b[t + 1]
        t2 += a[t + 2] * b[t + 2]
        t3 += a[t + 3] * b[t + 3]
    for t in range(m4, m):
        t0 += a[t] * b[t]
    return (t0 + t1) + (t2 + t3)


def _build_m_mf(X, w, XTs, ws, bounds, code, alpha, sigma, theta):
    """``M[l, i] = sum_{y in C_l} B[i, y]`` without storing B: O(n^2 D) time, O(nk) memory.

    Parameters
    ----------
    X : float64[n, D]      data (row-major), original order.
    w : float64[n]         weights, original order.
    XTs : float64[D, n]    data transposed, columns sorted by label.
    ws : float64[n]        weights in the sorted order.
    bounds : int64[k + 1]  cluster ``l`` is columns ``bounds[l]:bounds[l+1]`` of XTs.

    Returns
    -------
    M : float64[k, n]
    """
    n = X.shape[0]
    k = bounds.shape[0] - 1
    M = np.zeros((k, n))
    n_tasks = (n + ROWS - 1) // ROWS
    for task in prange(n_tasks):
        r0 = task * ROWS
        r1 = min(n, r0 + ROWS)
        acc = np.zeros((r1 - r0, k))
        buf = np.empty(TILE)
        for l in range(k):
            for c0 in range(bounds[l], bounds[l + 1], TILE):
                c1 = min(bounds[l + 1], c0 + TILE)
                wseg = ws[c0:c1]
                for i in range(r0, r1):
                    rho_tile(XTs, X[i], c0, c1, code, alpha, sigma, theta, buf)
                    acc[i - r0, l] += wdot(wseg, buf, c1 - c0)
        for i in range(r0, r1):
            for l in range(k):
                M[l, i] = -0.5 * w[i] * acc[i - r0, l]
    return M


@njit(cache=True)
def decide_mf(X, w, labels, M, s, q, cnt, start, pend, old, new, n_pend,
              code, alpha, sigma, theta):
    """Sequential Hartigan decisions from point ``start`` (paper Algorithm 2, steps 4-15).

    The column ``M[:, i]`` is corrected for the ``n_pend`` pending moves
    (``pend[t]`` from ``old[t]`` to ``new[t]``), so each decision is the one the
    move-at-a-time algorithm makes. A move updates ``labels, s, q, cnt`` at once
    and joins the pending list. Stops when the list is full or at the last point.

    Returns
    -------
    (next_point, n_pend, moves)
    """
    n, k = X.shape[0], M.shape[0]
    cap = pend.shape[0]
    col = np.empty(k)
    moves = 0
    i = start
    while i < n and n_pend < cap:
        for l in range(k):
            col[l] = M[l, i]
        for t in range(n_pend):
            p = pend[t]
            b = -0.5 * w[i] * w[p] * rho_from_sq(sq_dist(X, i, X, p), code, alpha, sigma, theta)
            col[old[t]] -= b
            col[new[t]] += b
        j = labels[i]
        l, gain = best_move(col, j, s, q, cnt, w[i], 0.0)
        if l >= 0:
            update_stats(j, l, col[j], col[l], w[i], 0.0, s, q, cnt)
            labels[i] = l
            pend[n_pend] = i
            old[n_pend] = j
            new[n_pend] = l
            n_pend += 1
            moves += 1
        i += 1
    return i, n_pend, moves


def _apply_moves_mf(X, XT, w, pend, old, new, n_pend, M, code, alpha, sigma, theta):
    """``M[old[t], :] -= B[pend[t], :]`` and ``M[new[t], :] += B[pend[t], :]`` for all t.

    Column tiles in parallel; within a tile every mover's kernel row is computed
    on the fly (O(D) per entry), so the cost is O(n D) per move and nothing of
    size n x n exists.
    """
    n = XT.shape[1]
    n_tiles = (n + TILE - 1) // TILE
    for tile in prange(n_tiles):
        c0 = tile * TILE
        c1 = min(n, c0 + TILE)
        buf = np.empty(TILE)
        for t in range(n_pend):
            p = pend[t]
            rho_tile(XT, X[p], c0, c1, code, alpha, sigma, theta, buf)
            f = -0.5 * w[p]
            mo = M[old[t], c0:c1]
            mn = M[new[t], c0:c1]
            wt = w[c0:c1]
            for y in range(c1 - c0):
                b = f * wt[y] * buf[y]
                mo[y] -= b
                mn[y] += b


def _kernel_column_mf(X, XT, w, c, code, alpha, sigma, theta):
    """Column ``c`` of the unweighted kernel, ``-rho(x_y, x_c) / 2`` for all y."""
    n = XT.shape[1]
    out = np.empty(n)
    n_tiles = (n + TILE - 1) // TILE
    for tile in prange(n_tiles):
        c0 = tile * TILE
        c1 = min(n, c0 + TILE)
        buf = np.empty(TILE)
        rho_tile(XT, X[c], c0, c1, code, alpha, sigma, theta, buf)
        seg = out[c0:c1]
        for y in range(c1 - c0):
            seg[y] = -0.5 * buf[y]
    return out


# Each parallel kernel is compiled twice from one source (see kgroups._engine._parallel).
build_m_mf = njit(cache=True, parallel=True)(_build_m_mf)
build_m_mf_serial = njit(cache=True)(_build_m_mf)
apply_moves_mf = njit(cache=True, parallel=True)(_apply_moves_mf)
apply_moves_mf_serial = njit(cache=True)(_apply_moves_mf)
kernel_column_mf = njit(cache=True, parallel=True)(_kernel_column_mf)
kernel_column_mf_serial = njit(cache=True)(_kernel_column_mf)
