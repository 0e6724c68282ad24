"""Kernels of the sparse engine: ``B = diag(w) K diag(w)`` held in CSR form
(``indptr, indices, data``).

``B`` must be symmetric, so row ``i`` is also column ``i``. Building ``M`` is
one pass over the ``nnz`` stored entries (parallel over points); a sweep costs
O(n k) to evaluate every gain from ``M`` (paper eq. 50) plus O(nnz of row i)
per move of point ``i`` to update the two rows of ``M`` it touches. For a graph
kernel such as ``G = -H_r`` (the negative Bethe
Hessian) a move therefore costs O(degree).
"""

import numpy as np

from .jit import njit
from .gain import best_move, update_stats
from .parallel import spread


def build_m_sparse(indptr, indices, data, labels, k, n_workers):
    """``M[l, i] = sum_{y in C_l} B[i, y]``, shape (k, n). One pass over the nnz, the
    rows in ``n_workers`` ranges at once (:func:`~kgroups._kernels.parallel.spread`).

    Parameters
    ----------
    indptr : int[n + 1], indices : int[nnz], data : float[nnz]
        CSR arrays of the symmetric ``B``.
    labels : int64[n]
    k : int
    n_workers : int

    Returns
    -------
    M : float64[k, n]
    """
    n = indptr.shape[0] - 1
    M = np.zeros((k, n))
    spread(m_sparse_rows, n, n_workers, indptr, indices, data, labels, M)
    return M


@njit(cache=True, nogil=True)
def m_sparse_rows(indptr, indices, data, labels, M, lo, hi):
    """:func:`build_m_sparse`'s columns ``lo .. hi - 1`` of ``M``."""
    for i in range(lo, hi):
        for p in range(indptr[i], indptr[i + 1]):
            M[labels[indices[p]], i] += data[p]


@njit(cache=True)
def sweep_sparse(indptr, indices, data, w, diag, labels, M, s, q, cnt):
    """One Hartigan sweep in place (paper Algorithm 2, steps 3-9) on a CSR ``B``.

    Visits points in order; moves each to its best cluster when the gain of
    paper eq. (50) is positive (:func:`~kgroups._kernels.gain.best_move`) and
    updates ``labels, M, s, q, cnt``: ``M[j, y] -= B[i, y]`` and
    ``M[l, y] += B[i, y]`` over the stored entries of row ``i`` only.
    Returns the number of moves.
    """
    n = indptr.shape[0] - 1
    moves = 0
    for i in range(n):
        j = labels[i]
        l, gain = best_move(M[:, i], j, s, q, cnt, w[i], diag[i])
        if l < 0:
            continue
        update_stats(j, l, M[j, i], M[l, i], w[i], diag[i], s, q, cnt)
        mj = M[j]
        ml = M[l]
        for p in range(indptr[i], indptr[i + 1]):
            y = indices[p]
            b = data[p]
            mj[y] -= b
            ml[y] += b
        labels[i] = l
        moves += 1
    return moves


@njit(cache=True)
def move_rows_sparse(indptr, indices, data, points, old, new, M):
    """Apply a batch of moves to ``M``: point ``points[t]`` goes ``old[t] -> new[t]``."""
    for t in range(points.shape[0]):
        i = points[t]
        mo = M[old[t]]
        mn = M[new[t]]
        for p in range(indptr[i], indptr[i + 1]):
            y = indices[p]
            mo[y] -= data[p]
            mn[y] += data[p]
