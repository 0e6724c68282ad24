r"""Kernels of trimmed kernel k-groups: the concentration step and the search for the
next improving move when whole points may be set aside (label ``k``).

The runs hold ``M`` with ``k + 1`` rows (row ``k`` sums the set-aside points), ``s``,
``q`` and ``cnt`` with ``k + 1`` entries, and ``labels`` in ``[0, k]``. The objective is
the within energy of the kept points, ``W = sum_{kept} B_ii / w_i - sum_{l < k} q_l /
s_l`` (``B_ii = 0`` for ``K = -rho/2``), maximised as ``F = -W`` (DESIGN, "Trimmed
kernel k-groups"). With the removal gain and insertion cost of TPAMI eq. 50,

.. math::

    A_j(i) = \frac{w_i q_j / s_j - 2 M_{ji} + B_{ii}}{s_j - w_i}, \qquad
    A_l(t) = \frac{w_t q_l / s_l - 2 M_{lt} - B_{tt}}{s_l + w_t},

setting aside kept point ``i`` of cluster ``j`` raises ``F`` by ``G_i = A_j(i) + B_ii
/ w_i = w_i s_j d_j(i) / (s_j - w_i)`` and bringing back set-aside point ``t`` into
cluster ``l`` lowers it by ``C_l(t) = A_l(t) + B_tt / w_t = w_t s_l d_l(t) / (s_l +
w_t)``, with ``d_l(x) = K_xx + q_l / s_l^2 - 2 M_{lx} / (w_x s_l)`` the squared
kernel-space distance of ``x`` to the weighted mean of cluster ``l`` (an identity for
any symmetric kernel; a distance for one of negative type).

Moves (each raises ``F`` by more than :data:`~kgroups._kernels.gain.RTOL` times the
size of its terms; a point alone in its cluster never leaves it):

* ``MOVE``: Hartigan's move of a kept point between kept clusters (eq. 50);
* ``SWAP``: set aside kept ``i``, bring back set-aside ``t`` into cluster ``l``, gain
  ``G_i - C_l(t)``, the set-aside weight staying within the budget; when ``l`` is
  ``i``'s own cluster ``C`` is that of the cluster without ``i``, which needs
  ``B_it`` (:func:`best_swap` reads it from ``i``'s column);
* ``ASIDE``: set aside one more kept point while the budget has room for it;
* ``BRING``: bring back a set-aside point whose cost is negative (only for a kernel
  that is not of negative type).

References: J. A. Cuesta-Albertos, A. Gordaliza, C. Matrán, "Trimmed k-means: an
attempt to robustify quantizers", Ann. Statist. 25(2), 553-576, 1997 (the
concentration step); L. A. García-Escudero, A. Gordaliza, C. Matrán, A. Mayo-Iscar,
"A general trimming approach to robust cluster analysis", Ann. Statist. 36(3),
1324-1345, 2008; G. França, M. L. Rizzo, J. T. Vogelstein, TPAMI 43(12), 2021, eq. 50.
"""

import numpy as np

from .gain import RTOL, best_move
from .jit import njit

# The kinds of move :func:`next_move` reports.
NONE, MOVE, SWAP, ASIDE, BRING = 0, 1, 2, 3, 4
# Relative margin taken off the lower bound of a swap's cost before a column is asked
# for: the bound is computed from sums that carry rounding.
BOUND_RTOL = 1e-9


@njit(cache=True)
def concentrate(M, w, diag, s, q, k, budget, out):
    """One concentration step (the kernel form of trimmed k-means' C-step,
    Cuesta-Albertos, Gordaliza & Matrán 1997): every point to its nearest kept mean,
    ``argmin_l d_l(i)`` over the non-empty clusters ``l < k``, then the points of
    largest ``min_l d_l(i)`` set aside (label ``k``), the largest first, while their
    weight stays within ``budget`` (a stable order: of equal distances the later point
    goes first, as R's ``trimcluster::trimkmeans``). Writes ``out``; O(n k + n log n)."""
    n = w.shape[0]
    dmin = np.empty(n)
    for i in range(n):
        kii = diag[i] / (w[i] * w[i])
        best, bl = np.inf, 0
        for l in range(k):
            if s[l] <= 0.0:
                continue
            d = kii + q[l] / (s[l] * s[l]) - 2.0 * M[l, i] / (w[i] * s[l])
            if d < best:
                best, bl = d, l
        out[i], dmin[i] = bl, best
    order = np.argsort(dmin, kind="mergesort")
    taken = 0.0
    for r in range(n - 1, -1, -1):
        i = order[r]
        if taken + w[i] > budget:
            break
        taken += w[i]
        out[i] = k


@njit(cache=True)
def insertion_cost(M, w, diag, s, q, l, t):
    """``(C_l(t), size)``: what bringing back point ``t`` into cluster ``l`` (non-empty,
    ``t`` not in it) costs ``F``, and the size of the terms it is the sum of (before
    their cancellation: the scale of its rounding)."""
    b, wt = diag[t], w[t]
    c = (wt * q[l] / s[l] - 2.0 * M[l, t] - b) / (s[l] + wt) + b / wt
    size = (wt * abs(q[l]) / s[l] + 2.0 * abs(M[l, t]) + abs(b)) / (s[l] + wt) + abs(b) / wt
    return c, size


@njit(cache=True)
def removal_gain(M, w, diag, s, q, j, i):
    """``(G_i, size)``: what setting aside kept point ``i`` of cluster ``j`` (with
    ``s_j > w_i``) gains in ``F``, and the size of its terms (see
    :func:`insertion_cost`)."""
    b, wi = diag[i], w[i]
    sp = s[j] - wi
    g = (wi * q[j] / s[j] - 2.0 * M[j, i] + b) / sp + b / wi
    size = (wi * abs(q[j]) / s[j] + 2.0 * abs(M[j, i]) + abs(b)) / sp + abs(b) / wi
    return g, size


@njit(cache=True)
def noise_summary(M, w, diag, s, q, k, noise, n_noise, update, cmin, cidx, dmin, vmax):
    """Per cluster ``l < k`` with ``update[l]``, over the set-aside points ``noise[:n_noise]``:
    the cheapest cost ``cmin[l] = min_t C_l(t)`` and its point ``cidx[l]`` (-1: none),
    ``dmin[l] = min_t d_l(t)`` and ``vmax[l] = max_t M[l, t] / w_t`` (the bounds of
    :func:`own_bound`). O(n_noise) per cluster updated."""
    for l in range(k):
        if not update[l]:
            continue
        cmin[l], cidx[l], dmin[l], vmax[l] = np.inf, -1, np.inf, -np.inf
        if s[l] <= 0.0:
            continue
        for r in range(n_noise):
            t = noise[r]
            c, _ = insertion_cost(M, w, diag, s, q, l, t)
            if c < cmin[l]:
                cmin[l], cidx[l] = c, t
            v = M[l, t] / w[t]
            d = diag[t] / (w[t] * w[t]) + q[l] / (s[l] * s[l]) - 2.0 * v / s[l]
            dmin[l] = min(dmin[l], d)
            vmax[l] = max(vmax[l], v)


@njit(cache=True)
def own_bound(M, w, diag, s, q, j, i, dmin_j, vmax_j, wlo, whi, ulo, hilbert, kmax):
    """A lower bound of ``min_t C'_j(t)``, the cost of bringing back any set-aside point
    into cluster ``j`` once its point ``i`` is set aside, from sums of the current
    partition only (no ``B_it``); ``wlo``, ``whi`` bound the set-aside weights, ``ulo``
    their ``K_tt``.

    With ``s' = s_j - w_i`` and ``c(v) = v s' / (s' + v)`` (increasing in ``v``),
    ``C'_j(t) = c(w_t) d'_j(t)``. A kernel of negative type (``hilbert``) is an inner
    product of feature vectors up to shifts: removing ``i`` moves the mean by ``(w_i /
    s') sqrt(d_j(i))``, so by the triangle inequality ``sqrt(d'_j(t)) >= sqrt(d_j(t)) -
    (w_i / s') sqrt(d_j(i))``, and ``d_j(t) >= dmin_j``. Any other symmetric kernel with
    ``|K| <= kmax``: ``d'_j(t) = K_tt + q'_j / s'^2 - 2 M_jt / (w_t s') + 2 w_i K_it /
    s' >= ulo + q'_j / s'^2 - 2 vmax_j / s' - 2 w_i kmax / s'``. Both are lowered by
    :data:`BOUND_RTOL` times the size of the sums they come from (their rounding).
    """
    wi = w[i]
    sp = s[j] - wi
    scale = (abs(diag[i]) / (wi * wi) + abs(q[j]) / (s[j] * s[j])
             + 2.0 * abs(M[j, i]) / (wi * s[j]) + abs(ulo) + 2.0 * abs(vmax_j) / sp)
    if hilbert:
        dij = diag[i] / (wi * wi) + q[j] / (s[j] * s[j]) - 2.0 * M[j, i] / (wi * s[j])
        root = np.sqrt(max(dmin_j, 0.0)) - (wi / sp) * np.sqrt(max(dij, 0.0))
        low = root * root if root > 0.0 else 0.0
    else:
        qp = q[j] - 2.0 * M[j, i] + diag[i]
        low = ulo + qp / (sp * sp) - 2.0 * vmax_j / sp - 2.0 * wi * kmax / sp
    low -= BOUND_RTOL * scale
    c = wlo if low >= 0.0 else whi
    return c * sp / (sp + c) * low


@njit(cache=True)
def bring_back(M, w, diag, s, q, k, t):
    """``(l, gain)``: the cluster where bringing back set-aside ``t`` costs least, and
    the gain ``-C_l(t)`` when it is above the noise threshold (else ``l = -1``; never
    for a kernel of negative type, where every cost is >= 0)."""
    best, bl, size = np.inf, -1, 0.0
    for l in range(k):
        if s[l] > 0.0:
            c, sz = insertion_cost(M, w, diag, s, q, l, t)
            if c < best:
                best, bl, size = c, l, sz
    if bl >= 0 and -best > RTOL * size:
        return bl, -best
    return -1, 0.0


@njit(cache=True)
def next_move(M, labels, w, diag, s, q, cnt, k, room, start, cmin, cidx, dmin, vmax,
              wlo, whi, ulo, hilbert, kmax):
    """The first point from ``start`` with an improving move, or whose swaps
    :func:`best_swap` must settle.

    Returns ``(i, kind, l, t, gain, check)``: the point (-1: none left), the best move
    found from ``M`` alone (``kind`` of ``NONE, MOVE, SWAP, ASIDE, BRING``, its target
    cluster ``l``, swap partner ``t`` and gain in ``F``) and ``check``: whether a swap
    may gain more than that, which :func:`best_swap` settles from ``i``'s column (a
    swap into ``i``'s own cluster that :func:`own_bound` cannot rule out, or into
    another cluster whose cheapest point is too light for the budget). ``room`` is the
    budget less the set-aside weight. O(k) per point.
    """
    n = labels.shape[0]
    n_noise = cnt[k]
    for i in range(start, n):
        j = labels[i]
        if j == k:
            if not hilbert:
                bl, g = bring_back(M, w, diag, s, q, k, i)
                if bl >= 0:
                    return i, BRING, bl, -1, g, False
            continue
        wi = w[i]
        if cnt[j] <= 1 or not s[j] - wi > 0.0:
            continue
        g_i, size = removal_gain(M, w, diag, s, q, j, i)
        kind, bl, bt, best = NONE, -1, -1, 0.0
        l, gain = best_move(M[:k, i], j, s[:k], q[:k], cnt[:k], wi, diag[i])
        if l >= 0:
            kind, bl, best = MOVE, l, gain
        if wi <= room and g_i > RTOL * size and g_i > best:
            kind, bl, best = ASIDE, k, g_i
        check = False
        if n_noise > 0:
            for l in range(k):
                t = cidx[l]
                if l == j or t < 0:
                    continue
                gain = g_i - cmin[l]
                if not (gain > RTOL * (size + abs(cmin[l])) and gain > best):
                    continue
                if w[t] >= wi - room:
                    kind, bl, bt, best = SWAP, l, t, gain
                else:
                    check = True
            low = own_bound(M, w, diag, s, q, j, i, dmin[j], vmax[j], wlo, whi, ulo,
                            hilbert, kmax)
            if g_i - low > RTOL * (size + abs(low)) and g_i - low > best:
                check = True
        if kind != NONE or check:
            return i, kind, bl, bt, best, check
    return -1, NONE, -1, -1, 0.0, False


@njit(cache=True)
def best_swap(M, labels, w, diag, s, q, k, room, noise, n_noise, i, col):
    """``(t, l, gain)``: the best swap of kept point ``i`` (cluster ``j``, two points or
    more) with a set-aside point ``t`` brought back into cluster ``l``, over every
    set-aside point heavy enough for the budget (``w_t >= w_i - room``) and every
    cluster; ``t = -1`` when none gains more than the noise threshold. ``col`` is
    ``B[:, i]``: for ``l = j`` the cost is that of the cluster without ``i``, ``s' =
    s_j - w_i``, ``q' = q_j - 2 M_ji + B_ii``, ``M'_jt = M_jt - B_it``. O(k n_noise)."""
    j = labels[i]
    wi = w[i]
    sj = s[j] - wi
    g_i, size = removal_gain(M, w, diag, s, q, j, i)
    qj = q[j] - 2.0 * M[j, i] + diag[i]
    bt, bl, best = -1, -1, 0.0
    for r in range(n_noise):
        t = noise[r]
        wt = w[t]
        if wt < wi - room:
            continue
        b = diag[t]
        for l in range(k):
            if l == j:
                mt = M[j, t] - col[t]
                c = (wt * qj / sj - 2.0 * mt - b) / (sj + wt) + b / wt
                sz = (wt * abs(qj) / sj + 2.0 * abs(mt) + abs(b)) / (sj + wt) + abs(b) / wt
            elif s[l] > 0.0:
                c, sz = insertion_cost(M, w, diag, s, q, l, t)
            else:
                continue
            gain = g_i - c
            if gain > RTOL * (size + sz) and gain > best:
                bt, bl, best = t, l, gain
    return bt, bl, best


@njit(cache=True)
def noise_threshold(M, w, diag, s, q, k, noise, n_noise, per_weight):
    """The smallest cost of bringing back a set-aside point, per unit of its weight
    (``per_weight``: ``C_l(t) / w_t = s_l d_l(t) / (s_l + w_t)``, kernel k-groups'
    insertion) or its squared distance to the nearest kept mean (``min_l d_l(t)``, the
    concentration step's order); ``inf`` when nothing is set aside."""
    out = np.inf
    for r in range(n_noise):
        t = noise[r]
        for l in range(k):
            if s[l] <= 0.0:
                continue
            d = diag[t] / (w[t] * w[t]) + q[l] / (s[l] * s[l]) - 2.0 * M[l, t] / (w[t] * s[l])
            v = s[l] * d / (s[l] + w[t]) if per_weight else d
            out = min(out, v)
    return out
