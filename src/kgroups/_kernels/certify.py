"""Certified decisions from the mixed float32 pass (:mod:`kgroups._kernels.pairs_mixed`):
the bound of its errors, the decisions checked against it, and the exact float64
values a decision is made again from when the bound cannot certify it.

**The bound.** Let ``u = 2^-24`` and ``gamma_m = m u / (1 - m u)`` (Higham, *Accuracy
and Stability of Numerical Algorithms*, 2nd ed., 2002, §3.1: Lemma 3.1, and the
bound ``|fl(x^T y) - x^T y| <= gamma_m |x|^T |y|`` of a sum of ``m`` products, in
any order; a fused multiply-add rounds once where a product and a sum round twice,
so the bound holds with it). The float32 runs evaluate, for a pair ``(a, c)``,
``rho~(a, c)`` with ``|rho~ - rho| <= E``, the per-distance bound of
:func:`~kgroups._kernels.semimetric.float32_kernel_error`: coordinates centred on the
box's midpoint and rounded (``|x^_d - x_d| <= u h_d``), their difference rounded, the
sum of the ``D`` squares within ``gamma_D`` of its value, one rounding of the square
root, the modulus of continuity of ``rho`` on the data's range; the value it returns
bounds ``|K~ - K| = |rho~ - rho| / 2`` twice over. Each ``rho~`` reaches a float64
sum ``S[l, a]`` or ``S[l, c]`` through at most ``G = SPILL_TILES + 3`` float32
roundings (the rounding of its float32 weight; the column side's chain of the four
rows' fused multiply-adds, or the at most ``SPILL_TILES`` fused multiply-adds of a
row-side position buffer), so the float32 sums add at most ``gamma_G w |rho~|`` to
it (the weights are positive). Hence, with ``K = -rho/2`` and ``Kmax >= |K|`` over
all pairs, every float32 pair contributes to ``M[l, i]`` a value within
``w_i w_y eps / 2`` of ``B[i, y]``, where

    ``eps = E + 2 gamma_G (Kmax + E)``.

The float64 sums add ``gamma^(64)_m`` of the sum of ``|terms|``: ``eps64 = 4
gamma^(64)_(4n + 64) (Kmax + eps)`` per unit of weight, a factor 2 for the float64
pass this one is compared with, 2 of margin. Then, for the run's start labels ``ls``
and start cluster weights ``T``, at any time of the run

    ``|M~[l, i] - M[l, i]| <= err_l(i) = w_i (eps T_l [l != ls(i)] + eps64 mass_l)``,

because the pass computes the pairs of one start cluster in float64 (their error is
in ``eps64``), and a move adds its point's kernel row, computed in float64, so the
float32 part of ``M~ - M``, ``delta``, never changes. Where the pass leaves out the
pairs of two start clusters (``skip``), ``M~[l, i]`` starts at the midpoint of the
bounds of :mod:`kgroups._kernels.centroid`, and ``eps T_l`` is replaced by that
entry's own bound ``E[l, i]`` (a quarter of the interval's width, as ``B = -w rho /
2``, and one rounding); moves leave that error unchanged too. ``mass_l`` is the
weight that ever entered cluster ``l``'s sums (``T_l`` plus the moved weights). Each ``q_l``
starts exact (a sum of own entries, within ``eps64 T_l^2``); a move that reads
``M~[l, i]`` adds ``2 err_l(i)`` to its bound ``qerr_l``, unless the point's
``delta[:, i]`` is known, which corrects its column and makes its move exact.

**The test.** ``A_l`` of paper eq. 50 is within ``t_l = (w_i qerr_l / s_l + 2
err_l) / (s_l +- w_i)`` of its exact value, so a decision is certain when no
value within those bounds could change it (:func:`certain`, as
:func:`~kgroups._kernels.gain.certain`: a stay when no target's gain can be
positive, a move when its gain exceeds ``RTOL`` at its lowest and its target stays
the best); the float64 pass's own values are within the ``eps64`` part of those
bounds of the exact ones, so a certain decision is also the float64 pass's. This is
the per-distance reliability test with a float64 fall-back of Carson, Chen & Liu
("Computing k-means in mixed precision", 2024), applied to each Hartigan decision
instead of each nearest-centre distance.

**Moves made exact.** A move's kernel row, computed in float64 to update ``M~``
(:func:`apply_moves_exact`), also sums to its point's exact column for the labels
after the move: its ``delta`` is kept (its later decisions and moves are exact), and
the error its decision added to ``q`` is taken out again, ``q_j += 2 delta_j`` and
``q_l -= 2 delta_l`` for the move ``j -> l`` (``q_j`` took ``-2 M~[j, i]`` and
``q_l`` took ``+2 M~[l, i]``, :func:`~kgroups._kernels.gain.update_stats`), with
that error's bound out of ``qerr`` (less a rounding margin). So ``q`` stays within
float64 rounding of its exact value however many points move.

**The fall-back.** A decision the test cannot certify is made again from the exact
column of its point (:func:`exact_columns`: its kernel row in float64, O(n D),
summed by the current labels, so the pending moves are in it); the difference with
the corrected ``M~`` column is the point's ``delta``, kept for the rest of the run.
If ``q`` is still too uncertain, ``q`` is made exact first (the engine's
``_exact_q``: own entries of ``M~`` and ``M~ - delta`` for the points that left their
start cluster, or the float64 pass over each cluster's own pairs,
:func:`~kgroups._kernels.pairs_mixed.build_m_mixed` with ``cross`` False), and the
point is decided from exact values alone: the float64 decision.
"""

import math
from dataclasses import dataclass

import numpy as np

from .bounds import add_drift, fresh_bounds, proven_still, smallest, upper
from .gain import best_move, certain
from .jit import njit
from .pairs_mixed import SPILL_TILES
from .pairs_on_the_fly import (TILE, apply_tiles, pending_column, record_move, rho_tile,
                               union_movers)
from .parallel import spread
from .semimetric import U32, float32_kernel_error

# float32 roundings between a pair's rho~ and the float64 sums (see the module docstring)
SUM_ROUNDINGS = SPILL_TILES + 3
U64 = 2.0 ** -53


def gamma(m, u):
    """Higham's ``gamma_m = m u / (1 - m u)``."""
    return m * u / (1.0 - m * u)


def pass_errors(name, params, half_ranges, kernel_max, n):
    """``(eps, eps64)`` of the mixed pass (module docstring) for ``n`` points whose
    float32 copy is centred on their box's midpoint (``half_ranges``, per feature);
    ``eps`` is ``inf`` where the data's spread is outside what float32 holds."""
    e32 = float32_kernel_error(name, params, half_ranges)
    kmax = float(kernel_max)
    if not (math.isfinite(e32) and math.isfinite(kmax)):
        return math.inf, 0.0
    eps = e32 + 2.0 * gamma(SUM_ROUNDINGS, U32) * (kmax + e32)
    return eps, 4.0 * gamma(4 * n + 64, U64) * (kmax + eps)


def float32_rows(X):
    """``(XT32, half)``: the rows of ``X`` (n x D float64) centred on their box's
    midpoint, transposed and rounded to float32 (D x n), and the box's half ranges."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    centre, half = 0.5 * lo + 0.5 * hi, 0.5 * hi - 0.5 * lo
    return np.ascontiguousarray((X - centre).T, dtype=np.float32), half


@dataclass
class Certificate:
    """What the decisions of R runs on the mixed pass's ``M~`` are certified with
    (the module docstring): each run's start labels ``ls`` (R x n) and start
    cluster weights ``T``, the weight that entered each cluster's sums ``mass`` and the
    bounds ``qerr`` of the errors of ``q`` (R x k each); per run, once a point's exact
    column has been computed, ``delta[r][:, i] = M~[:, i] - M[:, i]`` (k x n, made when
    first needed), which no move changes, with ``known[r][i]``."""

    ls: np.ndarray
    T: np.ndarray
    mass: np.ndarray
    qerr: np.ndarray
    delta: list = None
    known: list = None
    # per run, where the pass left pairs out: E[r][l, i] bounds the start's error of
    # M~[l, i] per unit of w_i (l != ls(i)); None: eps T_l
    E: list = None

    def __post_init__(self):
        R = self.ls.shape[0]
        self.delta = [None] * R if self.delta is None else self.delta
        self.known = [None] * R if self.known is None else self.known

    def cache(self, r, k):
        """Run ``r``'s ``(delta, known)``, made at the first call."""
        if self.delta[r] is None:
            n = self.ls.shape[1]
            self.delta[r] = np.zeros((k, n))
            self.known[r] = np.zeros(n, dtype=bool)
        return self.delta[r], self.known[r]


@njit(cache=True)
def widen_bounds(col, err, j, s, q, w_i, qerr, dd):
    """``dd[t]``: the point's squared distance to mean ``t``, ``(q_t / s_t - 2 M_ti /
    w_i) / s_t``, moved by its error bound ``(qerr_t / s_t + 2 err_t / w_i) / s_t`` up
    for its own cluster ``j`` and down for the others; returns the size of the terms
    (the scale of :func:`~kgroups._kernels.bounds.upper`)."""
    scale = 0.0
    for t in range(s.shape[0]):
        if s[t] > 0.0:
            d = (q[t] / s[t] - 2.0 * col[t] / w_i) / s[t]
            m = (qerr[t] / s[t] + 2.0 * err[t] / w_i) / s[t]
            dd[t] = d + m if t == j else d - m
            scale = max(scale, (abs(q[t]) / s[t] + 2.0 * abs(col[t]) / w_i) / s[t] + m)
        else:
            dd[t] = np.inf
    return scale


@njit(cache=True)
def decide_certified(X, w, labels, M, s, q, cnt, start, stop, pend, old, new, PX, n_pend,
                     budget, bounded, up, lo, snap_own, snap_all, drift, ls, T, E, mass, qerr,
                     delta, known, eps, eps64, mode, ccol, code, alpha, sigma, theta):
    """:func:`~kgroups._kernels.pairs_on_the_fly.decide_mf` on the mixed pass's ``M~``:
    the sequential Hartigan decisions (paper Algorithm 2, steps 4-15) from ``start``,
    each certified (:func:`certain`, errors of the module docstring), the skip bounds
    widened by those errors.

    ``E`` (k x n, or k x 0: ``eps T_l``) bounds the start's error of ``M~[l, i]`` per
    unit of ``w_i`` for ``l != ls(i)`` (the float32 sums, or the bounds from the
    means where the pass left the pairs out).
    ``delta[:, i]`` (where ``known[i]``; both may be empty) is ``M~[:, i] - M[:, i]``,
    which no move changes: a known point's column is corrected by it (float64 errors
    only), and its move updates ``q`` exactly. Other moves add their error bounds to
    ``qerr``. ``mode`` 2: ``q`` is exact and the point ``start`` known, decide it
    without a test (the float64 decision).

    Returns
    -------
    (next_point, n_pend, moves, status) : status 0; or 1: the point ``next_point``
        could not be certified, its corrected column ``M~[:, i]`` is in ``ccol`` (its
        exact column is needed); 2: it is known and could not be certified (``q``
        must be made exact).
    """
    k = M.shape[0]
    cap = pend.shape[0]
    col = np.empty(k)
    err = np.empty(k)
    dd = np.empty(k)
    moves = 0
    work = 0
    s_min = smallest(s)
    has = known.shape[0] > 0
    per_entry = E.shape[1] > 0
    i = start
    while i < stop and n_pend < cap and work < budget:
        j = labels[i]
        w_i = w[i]
        if cnt[j] <= 1 or (bounded and proven_still(
                w_i, s[j], s_min, up[i] + (drift[j] - snap_own[i]),
                lo[i] - (drift[k] - snap_all[i]))):
            i += 1
            continue
        xi = X[i]
        exact = has and known[i]
        for l in range(k):
            err[l] = w_i * eps64 * mass[l]
            if not exact and l != ls[i]:
                err[l] += w_i * (E[l, i] if per_entry else eps * T[l])
        pending_column(M, i, xi, w_i, w, pend, old, new, PX, n_pend, col, code, alpha, sigma,
                       theta)
        work += n_pend
        if exact:
            for l in range(k):
                col[l] -= delta[l, i]
        l, gain = best_move(col, j, s, q, cnt, w_i, 0.0)
        if not (mode == 2 and i == start) and not certain(col, err, j, s, q, cnt, w_i, l,
                                                          qerr):
            for t in range(k):
                ccol[t] = col[t]
            return i, n_pend, moves, 2 if exact else 1
        if bounded:  # distances to the means, widened by their errors
            scale = widen_bounds(col, err, j, s, q, w_i, qerr, dd)
            if l < 0:
                up[i], lo[i] = fresh_bounds(dd, j, scale)
                snap_own[i], snap_all[i] = drift[j], drift[k]
            else:
                dl = dd[l] + 2.0 * (qerr[l] / s[l] + 2.0 * err[l] / w_i) / s[l]
                add_drift(j, l, w_i * upper(dd[j], scale) / (s[j] - w_i),
                          w_i * upper(dl, scale) / (s[l] + w_i), drift)
        if l >= 0:
            qerr[j] += 2.0 * err[j]
            qerr[l] += 2.0 * err[l]
            mass[j] += w_i
            mass[l] += w_i
            n_pend = record_move(i, j, l, col, w_i, xi, s, q, cnt, labels, up, pend, old,
                                 new, PX, n_pend)
            s_min = smallest(s)
            moves += 1
        i += 1
    return i, n_pend, moves, 0


def exact_columns(X, XT, w, labels, pts, acc, code, alpha, sigma, theta):
    """``out[l, p] = sum_{y in C_l} B[pts[p], y]`` (k x m) in float64 for the current
    ``labels``: each point's kernel row by direct differences (O(n D)), summed by
    label. Column tiles go round-robin to the workers, all at once
    (:func:`~kgroups._kernels.parallel.spread`), each with its own ``acc[th]`` (m x k
    zeros), added in worker order at the end."""
    spread(exact_columns_workers, acc.shape[0], acc.shape[0], X, XT, w, labels, pts, acc,
           code, alpha, sigma, theta)
    return columns_of(acc, w, pts)


@njit(cache=True, nogil=True)
def exact_columns_workers(X, XT, w, labels, pts, acc, code, alpha, sigma, theta, th_lo,
                          th_hi):
    """:func:`exact_columns`' workers ``th_lo .. th_hi - 1``: worker ``th`` takes the
    column tiles ``th, th + t, th + 2 t, ...`` into ``acc[th]``."""
    n = XT.shape[1]
    m = pts.shape[0]
    n_threads = acc.shape[0]
    n_tiles = (n + TILE - 1) // TILE
    buf = np.empty(TILE)
    for th in range(th_lo, th_hi):
        for tile in range(th, n_tiles, n_threads):
            c0 = tile * TILE
            c1 = min(n, c0 + TILE)
            lab = labels[c0:c1]
            wt = w[c0:c1]
            for p in range(m):
                rho_tile(XT, X[pts[p]], c0, c1, code, alpha, sigma, theta, buf)
                a = acc[th, p]
                for t in range(c1 - c0):
                    a[lab[t]] += wt[t] * buf[t]


@njit(cache=True)
def columns_of(acc, w, pts):
    """:func:`exact_columns`' result from its workers' sums, added in worker order."""
    n_threads, m, k = acc.shape
    out = np.empty((k, m))
    for p in range(m):
        for l in range(k):
            t = 0.0
            for th in range(n_threads):
                t += acc[th, p, l]
            out[l, p] = -0.5 * w[pts[p]] * t
    return out


@njit(cache=True)
def own_q(M, labels, w, pts, C):
    """``q_l = sum_{i in C_l} M[l, i]``, the entries of the points ``pts`` taken from
    their exact columns ``C`` (k x len(pts)) instead of ``M``."""
    k = M.shape[0]
    n = labels.shape[0]
    use = np.full(n, -1, dtype=np.int64)
    for p in range(pts.shape[0]):
        use[pts[p]] = p
    q = np.zeros(k)
    for i in range(n):
        l = labels[i]
        q[l] += M[l, i] if use[i] < 0 else C[l, use[i]]
    return q


def apply_moves_exact(XT, w, labels, pend, old, new, n_pend, need, Ms, acc, code, alpha,
                      sigma, theta):
    """:func:`~kgroups._kernels.pairs_on_the_fly.apply_moves` (the same entries added in
    the same order), and from the same kernel rows the exact column of each mover
    that ``need`` marks (R x cap) for its run's ``labels`` (R x n, the labels after
    the pending moves): ``acc[th, e, :, l]`` sum to ``B[p, y]`` over ``y`` of cluster
    ``l`` in worker ``th``'s column tiles (four interleaved partial sums), ``e = r *
    cap + t`` the move's entry (``acc``: zeros, workers x R cap x 4 x k). Column
    tiles go round-robin to the workers, all at once (:func:`~kgroups._kernels.
    parallel.spread`, :func:`~kgroups._kernels.pairs_on_the_fly.apply_tiles`)."""
    pts, ptr, who = union_movers(pend, n_pend)
    spread(apply_exact_workers, acc.shape[0], acc.shape[0], XT, w, labels, pts, ptr, who,
           pend, old, new, need, Ms, acc, code, alpha, sigma, theta)


@njit(cache=True, nogil=True)
def apply_exact_workers(XT, w, labels, pts, ptr, who, pend, old, new, need, Ms, acc, code,
                        alpha, sigma, theta, th_lo, th_hi):
    """:func:`apply_moves_exact`'s workers ``th_lo .. th_hi - 1``: worker ``th`` takes
    the column tiles ``th, th + t, th + 2 t, ...``, its columns into ``acc[th]``."""
    n_tiles = (XT.shape[1] + TILE - 1) // TILE
    n_threads = acc.shape[0]
    for th in range(th_lo, th_hi):
        apply_tiles(XT, w, pts, ptr, who, pend.shape[1], old, new, Ms, labels, need, acc[th],
                    code, alpha, sigma, theta, n_threads, th, n_tiles)


def undo_move_errors(q, qerr, delta, start, w, p, old, new, ls, base):
    """The errors that moves of points not known at their decision put into ``q``,
    taken out now that their ``delta`` is (:func:`apply_moves_exact`): for the move
    of ``p`` from ``old`` to ``new``, ``q_old += 2 delta[old, p]`` and ``q_new -= 2
    delta[new, p]`` (:func:`~kgroups._kernels.gain.update_stats` added ``-2 M~`` and
    ``+2 M~``), and each bound the decision added to ``qerr``, ``2 w_p start[l, p]``
    for a cluster other than the start's ``ls``, taken out less a rounding margin
    (``2 w_p base[l]``, the float64 part, added back, and ``4 u`` of ``qerr``).
    ``start`` is k x n (the entries' bounds) or k x 1 (one per cluster); in place."""
    before = qerr.copy()
    np.add.at(q, old, 2.0 * delta[old, p])
    np.add.at(q, new, -2.0 * delta[new, p])
    col = p if start.shape[1] > 1 else np.zeros_like(p)
    for c in (old, new):
        np.add.at(qerr, c, np.where(c != ls, -2.0 * w[p] * start[c, col], 0.0)
                  + 2.0 * w[p] * base[c])
    qerr[:] = np.maximum(qerr, 0.0) + 4.0 * U64 * before
