"""The Hartigan move gain shared by every k-groups engine (paper eq. 50).

For point ``i`` (weight ``w_i``) in cluster ``j`` and a target ``l != j``, with
``M[l, i] = sum_{y in C_l} B[i, y]``, ``s_l`` the cluster weight and ``q_l`` the
cluster's sum of ``B``:

.. math::

    A_j = \\frac{w_i q_j / s_j - 2 M_{ji} + B_{ii}}{s_j - w_i}, \\qquad
    A_l = \\frac{w_i q_l / s_l - 2 M_{li} - B_{ii}}{s_l + w_i}, \\qquad
    \\Delta Q(j \\to l) = A_j - A_l .

An empty target (``s_l = 0``) costs ``A_l = -B_{ii} / w_i``.

Also here, shared by the engines' restarts: :func:`class_signatures` (the classes of
points with one label in every start) and :func:`sum_classes` (a start's ``M`` from
the classes' sums).
"""

import numpy as np

from .jit import njit

# A move is taken when its gain exceeds RTOL times the size of the two terms
# it is the difference of: a gain below that is floating-point noise, and
# taking it could make two points swap back and forth forever.
RTOL = 1e-12
# The target of a point that stays. A NumPy integer, not the literal -1: numba types a
# literal argument as its own type, so a kernel passed ``l`` that may be the literal
# would be compiled twice, once for the literal and once for int64.
STAY = np.int64(-1)


# Inlined into each sweep: called as best_move(M[:, i], ...), the strided view and
# the call would cost about as much as the gain itself.
@njit(cache=True, inline="always")
def best_move(m_col, j, s, q, cnt, w_i, b_ii):
    """Best target cluster for one point and the gain of moving there.

    Parameters
    ----------
    m_col : float64[k]  ``M[:, i]``.
    j : int             current cluster of the point.
    s, q : float64[k]   cluster weights and sums of B.
    cnt : int64[k]      cluster sizes.
    w_i, b_ii : float   weight of the point and ``B[i, i]``.

    Returns
    -------
    (l, gain) with ``l = -1`` when the point may not move (alone in ``j``,
    Hartigan never empties a cluster, or its cluster mates weigh less than half an
    ulp of it, so that ``s_j - w_i`` rounds to 0 and ``A_j`` is not a number) or no
    move beats the noise threshold.
    """
    if cnt[j] <= 1 or not s[j] - w_i > 0.0:
        return STAY, 0.0
    a_j = (w_i * q[j] / s[j] - 2.0 * m_col[j] + b_ii) / (s[j] - w_i)
    best_l = STAY
    best_a = np.inf
    for l in range(s.shape[0]):
        if l == j:
            continue
        if cnt[l] > 0:
            a_l = (w_i * q[l] / s[l] - 2.0 * m_col[l] - b_ii) / (s[l] + w_i)
        else:
            a_l = -b_ii / w_i
        if a_l < best_a:
            best_a = a_l
            best_l = l
    gain = a_j - best_a
    if best_l < 0 or not gain > RTOL * (abs(a_j) + abs(best_a)):
        return STAY, gain
    return best_l, gain


@njit(cache=True)
def certain(m_col, err, j, s, q, cnt, w_i, best, qerr):
    """Whether :func:`best_move`'s answer ``best`` (a target, or -1 to stay) for a point
    of cluster ``j`` is the answer of the exact values, when ``M[l, i]`` is within
    ``err[l]`` of ``m_col[l]`` and ``q_l`` within ``qerr[l]`` (``B_ii = 0``).

    Then ``A_l`` (the module docstring) is within ``t_l = (w_i qerr_l / s_l + 2
    err_l) / (s_l + w_i)`` of its exact value (``s_j - w_i`` below for ``A_j``), and
    the answer is certain when: staying, no target's gain can be positive (``A_j +
    t_j <= A_l - t_l`` for every ``l``); moving, its gain is above the noise
    threshold at its lowest and ``best`` stays the strict lowest ``A_l`` (``A_best +
    t_best < A_l - t_l`` for every other ``l``). Otherwise the decision must be made
    again from exact values.
    """
    if cnt[j] <= 1 or not s[j] - w_i > 0.0:
        return True  # the point may not move, whatever the values
    t_j = (w_i * qerr[j] / s[j] + 2.0 * err[j]) / (s[j] - w_i)
    a_j = (w_i * q[j] / s[j] - 2.0 * m_col[j]) / (s[j] - w_i)
    a_b, t_b = 0.0, 0.0
    if best >= 0:
        a_b = (w_i * q[best] / s[best] - 2.0 * m_col[best]) / (s[best] + w_i)
        t_b = (w_i * qerr[best] / s[best] + 2.0 * err[best]) / (s[best] + w_i)
    low = np.inf  # the lowest A_l - t_l over the targets other than best
    for l in range(s.shape[0]):
        if l == j or l == best:
            continue
        if cnt[l] > 0:
            a_l = (w_i * q[l] / s[l] - 2.0 * m_col[l]) / (s[l] + w_i)
            t_l = (w_i * qerr[l] / s[l] + 2.0 * err[l]) / (s[l] + w_i)
        else:
            a_l, t_l = 0.0, 0.0
        low = min(low, a_l - t_l)
    if best < 0:
        return a_j + t_j <= low
    gain_low = (a_j - t_j) - (a_b + t_b)
    return (gain_low > RTOL * (abs(a_j) + t_j + abs(a_b) + t_b)) and a_b + t_b < low


@njit(cache=True)
def certified(m_col, j, s, q, cnt, w_i, best, eps, qerr):
    """:func:`certain` when every kernel entry behind ``M[:, i]`` is within ``eps`` of
    the exact one, so ``M[l, i]`` within ``err_l = w_i s_l eps``."""
    return certain(m_col, s * w_i * eps, j, s, q, cnt, w_i, best, qerr)


@njit(cache=True)
def update_stats(j, l, m_jj, m_lj, w_i, b_ii, s, q, cnt):
    """Update ``s, q, cnt`` for a move of one point from ``j`` to ``l``.

    ``m_jj = M[j, i]`` and ``m_lj = M[l, i]`` are read before ``M`` changes.
    """
    q[j] += -2.0 * m_jj + b_ii
    q[l] += 2.0 * m_lj + b_ii
    s[j] -= w_i
    s[l] += w_i
    cnt[j] -= 1
    cnt[l] += 1


@njit(cache=True)
def cluster_stats(M, labels, w):
    """``s``, ``q`` and ``cnt`` from ``M`` and the labels: O(n)."""
    k = M.shape[0]
    s = np.zeros(k, np.float64)
    q = np.zeros(k, np.float64)
    cnt = np.zeros(k, dtype=np.int64)
    for i in range(labels.shape[0]):
        l = labels[i]
        s[l] += w[i]
        q[l] += M[l, i]
        cnt[l] += 1
    return s, q, cnt


@njit(cache=True)
def objective(s, q):
    """``Q = sum_l q_l / s_l`` over non-empty clusters."""
    total = 0.0
    for l in range(s.shape[0]):
        if s[l] > 0:
            total += q[l] / s[l]
    return total


@njit(cache=True)
def count_improving_moves(M, labels, w, diag, s, q, cnt):
    """Number of points with a single move that raises Q (0 at a Hartigan optimum)."""
    total = 0
    for i in range(labels.shape[0]):
        l, gain = best_move(M[:, i], labels[i], s, q, cnt, w[i], diag[i])
        if l >= 0:
            total += 1
    return total


@njit(cache=True)
def lloyd_assign(M, s, q, w, labels_out):
    """Kernel k-means assignment (paper Algorithm 1): for every point
    ``argmin_l q_l / s_l^2 - 2 M[l, i] / (w_i s_l)``. Returns the number of changes."""
    k, n = M.shape
    changed = 0
    for i in range(n):
        best = -1
        best_d = np.inf
        for l in range(k):
            if s[l] <= 0:
                continue
            d = q[l] / (s[l] * s[l]) - 2.0 * M[l, i] / (w[i] * s[l])
            if d < best_d:
                best_d = d
                best = l
        if best != labels_out[i]:
            changed += 1
            labels_out[i] = best
    return changed


@njit(cache=True)
def sum_classes(S, labels, k, order):
    """``M[l] = sum of S[c] over the classes c with labels[c] == l`` (k x n), in the
    order of the classes (restarts sharing a pass, see build_ms); the columns of
    ``S`` are in the order ``order`` (``M[:, order[i]]`` from ``S[:, i]``)."""
    n = S.shape[1]
    Ms = np.zeros((k, n), np.float64)
    for c in range(S.shape[0]):
        src = S[c]
        dst = Ms[labels[c]]
        for i in range(n):
            dst[i] += src[i]
    M = np.empty((k, n), np.float64)
    for l in range(k):
        for i in range(n):
            M[l, order[i]] = Ms[l, i]
    return M


@njit(cache=True)
def class_signatures(labs, k):
    """Classes of the points with one label in every start (restarts sharing a pass).

    ``labs`` (R x n): the starts' labels in ``[0, k)``. Returns ``sig`` (n,), each
    point's class, numbered in order of first appearance, and ``classes``
    (G x R), the label of each class in each start. O(n R).
    """
    R, n = labs.shape
    sig = np.zeros(n, dtype=np.int64)
    G = 1
    for r in range(R):
        ids = np.empty(G * k, np.int64)
        for c in range(G * k):
            ids[c] = -1
        g = 0
        for i in range(n):
            c = sig[i] * k + labs[r, i]
            if ids[c] < 0:
                ids[c] = g
                g += 1
            sig[i] = ids[c]
        G = g
    classes = np.empty((G, R), dtype=np.int64)
    for i in range(n):
        for r in range(R):
            classes[sig[i], r] = labs[r, i]
    return sig, classes
