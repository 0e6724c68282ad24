"""Bounds that let a Hartigan sweep skip the points that cannot move (exact engines
that evaluate one point at a time: matrix-free and low-rank).

In the feature space of the kernel the gain of moving point ``i`` (weight ``w``)
from cluster ``j`` to ``l`` is ``w s_j / (s_j - w) d_j^2 - w s_l / (s_l + w) d_l^2``
with ``d_l = ||phi_i - mu_l||`` (paper eq. 50 rewritten with the means). Each
point keeps ``up >= d_j`` and ``lo <= min_{l != j} d_l`` from its last exact
evaluation; every move adds the distance each of the two means it changes moved
to ``drift[j]`` and ``drift[l]``, and the larger to ``drift[k]``. By the
triangle inequality (as Hamerly 2010 does for Lloyd's k-means), at any later
time ``d_j <= up + (drift[j] - snap_own)`` and
``min_{l != j} d_l >= lo - (drift[k] - snap_all)``; when
``s_j / (s_j - w) U^2 < min_l s_l / (s_l + w) L^2`` no move raises Q and the
point is skipped. ``up = inf`` forces an evaluation. Bounds are widened by
``BOUND_SLACK`` (relative to the size of the terms the distances come from), far
above rounding, so a skipped point provably has no improving move and a bounded
sweep makes the moves of the plain one, in the same order. Where ``M`` and the
cluster sums are only known within a proven bound (the certified float32 pass,
:mod:`kgroups._kernels.certify`), :func:`refresh_bounds_margin` widens each squared
distance by its bound first.
"""

import numpy as np

from .jit import njit
from .parallel import spread

# Relative slack of the bounds: far above the rounding error of the distances
# they come from, so that a skipped point provably has no improving move.
BOUND_SLACK = 1e-9


@njit(cache=True)
def smallest(s):
    """``min(s)`` (the smallest cluster weight)."""
    out = np.inf
    for l in range(s.shape[0]):
        out = min(out, s[l])
    return out


# The helpers take scalars where they are called once per point: an array argument
# costs a reference-count update per call, many times the cost of the skip test
# itself (two loads and a comparison).


@njit(cache=True)
def proven_still(w_i, s_j, s_min, U, L):
    """True when ``U >= d_j`` and ``L <= min_{l != j} d_l`` prove that a point of
    weight ``w_i`` in a cluster of weight ``s_j`` has no improving move (``U =
    inf``, bounds not known, never does)."""
    return L > 0.0 and (s_j / (s_j - w_i)) * U * U < (s_min / (s_min + w_i)) * L * L


@njit(cache=True)
def upper(d2, scale):
    """An upper bound on the distance whose exact squared value is ``d2``, computed
    from terms of size ``scale``."""
    return np.sqrt(max(d2, 0.0) + BOUND_SLACK * scale) * (1.0 + BOUND_SLACK)


@njit(cache=True)
def lower(d2, scale):
    """A lower bound on the distance whose exact squared value is ``d2``, computed
    from terms of size ``scale``."""
    return np.sqrt(max(d2 - BOUND_SLACK * scale, 0.0)) * (1.0 - BOUND_SLACK)


@njit(cache=True)
def fresh_bounds(d2, j, scale):
    """``(up, lo)`` from a point's exact squared distances ``d2`` (k) to the means
    (it is in ``j``), computed from terms of size ``scale``."""
    far = np.inf
    for t in range(d2.shape[0]):
        if t != j:
            far = min(far, d2[t])
    return upper(d2[j], scale), lower(far, scale)


@njit(cache=True)
def fresh_bounds_rows(d2, labels, scale):
    """:func:`fresh_bounds` of every row of ``d2`` (rows x k), point ``r`` in
    ``labels[r]``, its terms of size ``scale[r]``: ``(up, lo)`` arrays."""
    up = np.empty(d2.shape[0], np.float64)
    lo = np.empty(d2.shape[0], np.float64)
    for r in range(d2.shape[0]):
        up[r], lo[r] = fresh_bounds(d2[r], labels[r], scale[r])
    return up, lo


@njit(cache=True)
def add_drift(j, l, dj, dl, drift):
    """Record a move that shifted mean ``j`` by ``dj`` and mean ``l`` by ``dl``."""
    drift[j] += dj
    drift[l] += dl
    drift[drift.shape[0] - 1] += max(dj, dl)


# Points per chunk of a refresh: a chunk's k x CHUNK loops are vectorised.
CHUNK = 512
# No margin (``refresh_bounds``): of the types a certified pass's margins have.
_NO_MARGIN = np.zeros(0)
_NO_ENTRY = np.zeros((1, 0))


def refresh_bounds(M, labels, w, s, base, base_abs, e, e_abs, up, lo, snap_own, snap_all,
                   drift, n_workers):
    """Every point's bounds from its exact squared distances to the means,
    ``d_l^2 = base_i + e_l - 2 M[l, i] / (w_i s_l)`` (``M[l, i] = w_i phi_i . (sum of
    cluster l) + shifts`` that ``base`` and ``e`` undo; an engine's formula), the
    size of their terms ``base_abs_i + e_abs_l + |2 M[l, i] / (w_i s_l)|``; snapshots
    of ``drift`` now. ``M`` must be up to date. O(n k): chunks of ``CHUNK`` points in
    ``n_workers`` ranges at once (:func:`~kgroups._kernels.parallel.spread`), cluster
    by cluster (vectorised loops)."""
    refresh_bounds_margin(M, labels, w, s, base, base_abs, e, e_abs, _NO_MARGIN, _NO_ENTRY,
                          up, lo, snap_own, snap_all, drift, n_workers)


def refresh_bounds_margin(M, labels, w, s, base, base_abs, e, e_abs, margin, entry, up, lo,
                          snap_own, snap_all, drift, n_workers):
    """:func:`refresh_bounds` from squared distances known within ``margin[l] + 2
    entry[l, i] / s_l`` (their error bound for cluster ``l``, a certified pass's;
    ``entry`` k x n, or with no columns for none): the own distance taken that much
    higher, the others that much lower (no ``margin``, size 0: exact distances)."""
    n = M.shape[1]
    spread(bounds_chunks, (n + CHUNK - 1) // CHUNK, n_workers, M, labels, w, s, base,
           base_abs, e, e_abs, margin, entry, up, lo, snap_own, snap_all, drift)


@njit(cache=True, nogil=True)
def bounds_chunks(M, labels, w, s, base, base_abs, e, e_abs, margin, entry, up, lo, snap_own,
                  snap_all, drift, c_lo, c_hi):
    """The bounds of the points of the chunks ``c_lo .. c_hi - 1`` (:func:`refresh_bounds`;
    with a ``margin`` per cluster when it is not empty, and per entry when ``entry`` is
    not), chunk by chunk, cluster by cluster."""
    k, n = M.shape
    widen = margin.shape[0] > 0
    per_entry = entry.shape[1] > 0
    own = np.empty(CHUNK, np.float64)
    far = np.empty(CHUNK, np.float64)
    big = np.empty(CHUNK, np.float64)
    inv2w = np.empty(CHUNK, np.float64)
    for chunk in range(c_lo, c_hi):
        c0 = chunk * CHUNK
        m = min(n, c0 + CHUNK) - c0
        lab = labels[c0:c0 + m]
        for u in range(m):
            own[u] = far[u] = np.inf
            big[u] = 0.0
            inv2w[u] = 2.0 / w[c0 + u]
        for t in range(k):
            if not s[t] > 0.0:
                continue
            b = 1.0 / s[t]
            et, ea = e[t], e_abs[t]
            row = M[t, c0:c0 + m]
            mt = margin[t] if widen else 0.0
            for u in range(m):
                f = b * inv2w[u] * row[u]
                d2 = base[c0 + u] + et - f
                big[u] = max(big[u], ea + abs(f))
                mu = mt + 2.0 * b * entry[t, c0 + u] if per_entry else mt
                if lab[u] == t:
                    own[u] = d2 + mu
                else:
                    far[u] = min(far[u], d2 - mu)
        for u in range(m):
            i = c0 + u
            scale = base_abs[i] + big[u]
            up[i] = upper(own[u], scale)
            lo[i] = lower(far[u], scale)
            snap_own[i] = drift[lab[u]]
            snap_all[i] = drift[k]
