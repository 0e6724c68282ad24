"""Low-rank engine: Hartigan moves in an m-dimensional feature space.

With features ``phi_i`` (rows of ``F``, n x m) such that ``K(x_i, x_y) ~ phi_i . phi_y``
the engine works with the kernel ``Kt = phi_i . phi_y - a_i - a_y`` for any
shift ``a`` (same partitions as ``phi . phi``: DESIGN section 1); the backend
takes ``a_i = K(x_i, x_i) / 2`` so that ``-Q`` estimates W with the exact
diagonal. ``B[i, i] = w_i^2 (||phi_i||^2 - 2 a_i)``. For clusters keep

    ``S_l = sum_{y in C_l} w_y phi_y`` (k x m), ``A_l = sum_{y in C_l} w_y a_y``,
    ``s_l = sum_{y in C_l} w_y``;

then ``M[l, i] = w_i (phi_i . S_l - a_i s_l - A_l)`` costs O(m), all gains of a
point O(k m) and a move O(m) (update two rows of ``S``), instead of the O(n)
column of an exact engine. The gain is paper eq. (50).
"""

import numpy as np
from numba import njit

from ._gain import best_move, update_stats


@njit(cache=True)
def cluster_sums_lr(F, a, w, labels, k):
    """``S`` (k x m) and ``A`` (k,) from the labels: O(n m)."""
    n, m = F.shape
    S = np.zeros((k, m))
    A = np.zeros(k)
    for i in range(n):
        l = labels[i]
        wi = w[i]
        row = F[i]
        Sl = S[l]
        for t in range(m):
            Sl[t] += wi * row[t]
        A[l] += wi * a[i]
    return S, A


@njit(cache=True)
def m_column_lr(F, i, a_i, w_i, S, A, s, col):
    """``col[l] = M[l, i] = w_i (phi_i . S_l - a_i s_l - A_l)`` for every l: O(k m)."""
    row = F[i]
    for l in range(S.shape[0]):
        Sl = S[l]
        dot = 0.0
        for t in range(row.shape[0]):
            dot += row[t] * Sl[t]
        col[l] = w_i * (dot - a_i * s[l] - A[l])


@njit(cache=True)
def sweep_lowrank(F, a, w, diag, labels, S, A, s, q, cnt):
    """One Hartigan sweep in feature space (paper Algorithm 2, steps 4-15), in place.

    Updates ``labels, S, A, s, q, cnt``; returns the number of moves.
    O(n k m) for the gains plus O(m) per move.
    """
    n, m = F.shape
    k = S.shape[0]
    col = np.empty(k)
    moves = 0
    for i in range(n):
        j = labels[i]
        if cnt[j] <= 1:
            continue
        m_column_lr(F, i, a[i], w[i], S, A, s, col)
        l, gain = best_move(col, j, s, q, cnt, w[i], diag[i])
        if l < 0:
            continue
        update_stats(j, l, col[j], col[l], w[i], diag[i], s, q, cnt)
        wi = w[i]
        row = F[i]
        Sj = S[j]
        Sl = S[l]
        for t in range(m):
            v = wi * row[t]
            Sj[t] -= v
            Sl[t] += v
        A[j] -= wi * a[i]
        A[l] += wi * a[i]
        labels[i] = l
        moves += 1
    return moves
