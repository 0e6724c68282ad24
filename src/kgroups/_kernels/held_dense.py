"""Kernels of the dense engine: ``B = diag(w) K diag(w)`` held as an n x n array
(float64 or float32).

Building ``M`` is one pass over ``B`` (parallel over points); a sweep costs
O(n k) to evaluate every gain from ``M`` (paper eq. 50) plus O(n) per move to
update the two rows of ``M`` the move changes.
"""

import numpy as np

from .jit import njit
from .gain import best_move, update_stats
from .parallel import spread


def build_m_dense(B, labels, k, n_workers):
    """``M[l, i] = sum_{y in C_l} B[i, y]``, shape (k, n). One pass over B, its rows in
    ``n_workers`` ranges at once (:func:`~kgroups._kernels.parallel.spread`)."""
    M = np.zeros((k, B.shape[0]), np.float64)
    spread(m_dense_rows, B.shape[0], n_workers, B, labels, M)
    return M


@njit(cache=True, nogil=True)
def m_dense_rows(B, labels, M, lo, hi):
    """:func:`build_m_dense`'s columns ``lo .. hi - 1`` of ``M``."""
    n = B.shape[0]
    for i in range(lo, hi):
        row = B[i]
        for y in range(n):
            M[labels[y], i] += row[y]


@njit(cache=True)
def sweep_dense(B, w, diag, labels, M, s, q, cnt):
    """One Hartigan sweep in place (paper Algorithm 2, steps 3-9).

    Visits points in order; moves each to its best cluster when the gain is
    positive and updates ``labels, M, s, q, cnt``. Returns the number of moves.
    """
    n = B.shape[0]
    moves = 0
    for i in range(n):
        j = labels[i]
        l, gain = best_move(M[:, i], j, s, q, cnt, w[i], diag[i])
        if l < 0:
            continue
        update_stats(j, l, M[j, i], M[l, i], w[i], diag[i], s, q, cnt)
        row = B[i]
        mj = M[j]
        ml = M[l]
        for y in range(n):
            b = row[y]
            mj[y] -= b
            ml[y] += b
        labels[i] = l
        moves += 1
    return moves


@njit(cache=True)
def move_rows_dense(B, points, old, new, M):
    """Apply a batch of moves to ``M``: point ``points[t]`` goes ``old[t] -> new[t]``."""
    n = B.shape[0]
    for t in range(points.shape[0]):
        row = B[points[t]]
        mo = M[old[t]]
        mn = M[new[t]]
        for y in range(n):
            mo[y] -= row[y]
            mn[y] += row[y]


def cluster_sums_rows(K, w, labels, k, n_workers):
    """``out[i, l] = sum_{y in C_l} w_y K[i, y]``, shape (b, k), for a block of rows
    ``K`` (b x n) against the n clustered points (``predict``). One pass over K, its
    rows in ``n_workers`` ranges at once."""
    out = np.zeros((K.shape[0], k), np.float64)
    spread(sums_rows, K.shape[0], n_workers, K, w, labels, out)
    return out


@njit(cache=True, nogil=True)
def sums_rows(K, w, labels, out, lo, hi):
    """:func:`cluster_sums_rows`'s rows ``lo .. hi - 1`` of ``out``."""
    n = K.shape[1]
    for i in range(lo, hi):
        row = K[i]
        o = out[i]
        for y in range(n):
            o[labels[y]] += w[y] * row[y]
