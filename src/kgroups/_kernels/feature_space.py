"""Kernels of the low-rank engine: Hartigan moves in an m-dimensional feature space.

With features ``phi_i`` (rows of ``F``, n x m) such that ``K(x_i, x_y) ~ phi_i . phi_y``
the engine works with the kernel ``Kt = phi_i . phi_y - a_i - a_y`` for any
shift ``a`` (same partitions as ``phi . phi``: subtracting ``a_i + a_y`` from the
kernel changes Q by ``-2 sum_i w_i a_i`` whatever the partition); the engine
takes ``a_i = K(x_i, x_i) / 2`` so that ``-Q`` estimates W with the exact
diagonal. ``B[i, i] = w_i^2 (||phi_i||^2 - 2 a_i)``. For clusters keep

    ``S_l = sum_{y in C_l} w_y phi_y`` (k x m), ``A_l = sum_{y in C_l} w_y a_y``,
    ``s_l = sum_{y in C_l} w_y``;

then ``M[l, i] = w_i (phi_i . S_l - a_i s_l - A_l)`` costs O(m), all gains of a
point O(k m) and a move O(m) (update two rows of ``S``), instead of the O(n)
column of an exact engine. The gain is paper eq. (50).
"""

import numpy as np

from .jit import njit
from .bounds import add_drift, fresh_bounds, proven_still, smallest
from .gain import best_move, update_stats


@njit(cache=True)
def cluster_sums_lr(F, a, w, labels, k):
    """``S`` (k x m) and ``A`` (k,) from the labels: O(n m)."""
    n, m = F.shape
    S = np.zeros((k, m), np.float64)
    A = np.zeros(k, np.float64)
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
def best_moves(C, labels, w, diag, s, q, cnt):
    """Best target of every row of a block against fixed cluster sums, or -1.

    ``C[i, l] = M[l, i]`` (the block's columns of ``M``, from one matrix product
    against the cluster sums); the rule is :func:`best_move`'s. Nothing is
    moved: the distributed engine proposes these moves and accepts them one at
    a time against the current sums (:func:`sweep_lowrank` on the proposals).
    """
    n = C.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        l, gain = best_move(C[i], labels[i], s, q, cnt, w[i], diag[i])
        out[i] = l
    return out


@njit(cache=True)
def sweep_lowrank(F, a, w, diag, labels, S, A, s, q, cnt):
    """One Hartigan sweep in feature space (paper Algorithm 2, steps 4-15), in place.

    Updates ``labels, S, A, s, q, cnt``; returns the number of moves.
    O(n k m) for the gains plus O(m) per move.
    """
    n, m = F.shape
    k = S.shape[0]
    col = np.empty(k, np.float64)
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


@njit(cache=True)
def _sq_dists_from_col(col, F, i, a_i, w_i, A, s, sn2, d2):
    """``d2[l] = ||phi_i - mu_l||^2`` with ``mu_l = S_l / s_l``, from ``M[:, i]``:
    ``phi_i . S_l = col[l] / w_i + a_i s_l + A_l`` and ``sn2[l] = ||S_l||^2``."""
    row = F[i]
    f2 = 0.0
    for t in range(row.shape[0]):
        f2 += row[t] * row[t]
    for l in range(col.shape[0]):
        if s[l] > 0.0:
            dot = col[l] / w_i + a_i * s[l] + A[l]
            d2[l] = f2 - 2.0 * dot / s[l] + sn2[l] / (s[l] * s[l])
        else:
            d2[l] = np.inf
    return f2


@njit(cache=True)
def _move_lr(F, a, i, j, l, w_i, S, A, s_old_j, s_old_l, sn2):
    """Move point ``i`` from ``j`` to ``l`` in ``S``, ``A`` and ``sn2``; returns the drift
    ``(||mu_j' - mu_j||, ||mu_l' - mu_l||)`` of the two means (inf for an emptied or
    newly filled cluster)."""
    row = F[i]
    Sj, Sl = S[j], S[l]
    sj, sl = s_old_j - w_i, s_old_l + w_i
    dj = dl = 0.0
    nj = nl = 0.0
    for t in range(row.shape[0]):
        v = w_i * row[t]
        oj, ol = Sj[t], Sl[t]
        Sj[t] = oj - v
        Sl[t] = ol + v
        if sj > 0.0:
            e = Sj[t] / sj - oj / s_old_j
            dj += e * e
        if s_old_l > 0.0:
            e = Sl[t] / sl - ol / s_old_l
            dl += e * e
        nj += Sj[t] * Sj[t]
        nl += Sl[t] * Sl[t]
    sn2[j], sn2[l] = nj, nl
    A[j] -= w_i * a[i]
    A[l] += w_i * a[i]
    return (np.sqrt(dj) if sj > 0.0 else np.inf), (np.sqrt(dl) if s_old_l > 0.0 else np.inf)


@njit(cache=True)
def sweep_lowrank_bounded(F, a, w, diag, labels, S, A, s, q, cnt, sn2, up, lo, snap_own,
                          snap_all, drift):
    """One Hartigan sweep in feature space that skips the points a bound proves still.

    Same moves, in the same order, as :func:`sweep_lowrank`: the bounds of
    :mod:`kgroups._kernels.bounds` (the shifts ``a`` do not change gains), with
    the drift of each move measured on the updated sums. A skipped point costs
    O(1) instead of the O(k m) evaluation.

    Returns ``(moves, evaluated)``.
    """
    n, m = F.shape
    k = S.shape[0]
    col = np.empty(k, np.float64)
    d2 = np.empty(k, np.float64)
    moves = 0
    evaluated = 0
    s_min = smallest(s)
    for i in range(n):
        j = labels[i]
        if cnt[j] <= 1:
            continue
        w_i = w[i]
        if proven_still(w_i, s[j], s_min, up[i] + (drift[j] - snap_own[i]),
                        lo[i] - (drift[k] - snap_all[i])):
            continue
        evaluated += 1
        m_column_lr(F, i, a[i], w_i, S, A, s, col)
        l, gain = best_move(col, j, s, q, cnt, w_i, diag[i])
        if l < 0:
            f2 = _sq_dists_from_col(col, F, i, a[i], w_i, A, s, sn2, d2)
            scale = f2
            for t in range(k):
                if s[t] > 0.0:
                    scale = max(scale, sn2[t] / (s[t] * s[t]))
            up[i], lo[i] = fresh_bounds(d2, j, scale)
            snap_own[i], snap_all[i] = drift[j], drift[k]
            continue
        s_old_j, s_old_l = s[j], s[l]
        update_stats(j, l, col[j], col[l], w_i, diag[i], s, q, cnt)
        dj, dl = _move_lr(F, a, i, j, l, w_i, S, A, s_old_j, s_old_l, sn2)
        add_drift(j, l, dj, dl, drift)
        s_min = smallest(s)
        labels[i] = l
        up[i] = np.inf
        moves += 1
    return moves, evaluated
