r"""A point's sum over a cluster bounded from the cluster's mean alone: the sums of
the pairs of start clusters that the certified pass leaves out
(:mod:`kgroups._kernels.pairs_mixed`, ``skip``), for the energy distance
:math:`\rho(x, y) = |x - y|^\alpha` with :math:`1 \le \alpha \le 2`.

**The bound.** For a cluster :math:`C` with weights :math:`w_y` (total :math:`W`), mean
:math:`\mu`, spread :math:`S = \sum_{y \in C} w_y |x_y - \mu|^2`, and a point
:math:`x` at distance :math:`d = |x - \mu|`,

.. math::

    W d^\alpha \;\le\; \sum_{y \in C} w_y |x - x_y|^\alpha \;\le\;
    W \left(d^2 + S / W\right)^{\alpha / 2}.

Left: :math:`t \mapsto |x - t|^\alpha` is convex for :math:`\alpha \ge 1`, so by
Jensen's inequality (weights :math:`w_y / W`) the mean of :math:`|x - x_y|^\alpha` is
at least :math:`|x - \mu|^\alpha`. Right: :math:`u \mapsto u^{\alpha/2}` is concave for
:math:`\alpha \le 2`, so the mean of :math:`(|x - x_y|^2)^{\alpha/2}` is at most the
mean of :math:`|x - x_y|^2` to the power :math:`\alpha/2`, and
:math:`\sum_y w_y |x - x_y|^2 = W d^2 + S` (the cross term
:math:`2 \sum_y w_y \langle x - \mu, \mu - x_y \rangle` vanishes at the mean). The
interval is narrow where it is used: for a point far from the cluster its width is
about :math:`W \alpha d^{\alpha - 2} S / (2 W)`, and for :math:`\alpha = 2` it is
:math:`S`, the right side being the exact sum.

**Rounding.** The engine computes :math:`\hat\mu`, :math:`\hat W`, :math:`\hat S`
and :math:`\hat d` in float64 (:func:`cluster_moments`, :func:`mean_distances`),
with ``u = 2^-53`` and Higham's :math:`\gamma_m = m u / (1 - m u)`
(*Accuracy and Stability of Numerical Algorithms*, 2nd ed., 2002, §3.1):

* :math:`|\hat W - W| \le \gamma_n W`; each coordinate of :math:`\hat\mu` is within
  :math:`\gamma_{2n+2} m_e` of :math:`\mu_e`, :math:`m_e = \max_y |x_{ye}|`, so
  :math:`|\hat\mu - \mu| \le \delta_\mu = \gamma_{2n+2} |m|`;
* :math:`\hat d` (differences, squares, a sum of ``D`` terms and a square root) is
  within :math:`\gamma_{D+3}` of :math:`|x - \hat\mu|` relatively, so
  :math:`|\hat d - d| \le \delta = 2 \gamma_{D+4} \hat d + 2 \delta_\mu`;
* :math:`\hat S \ge (1 - \gamma_{n+D+3}) \sum_y w_y |x_y - \hat\mu|^2 \ge (1 -
  \gamma_{n+D+3}) S` (the sum about :math:`\hat\mu` exceeds the sum about the mean).

Hence the sum lies in :math:`[L, U]` with :math:`L = (1 - g) \hat W (1 - \gamma_n)
\max(\hat d - \delta, 0)^\alpha` and :math:`U = (1 + g) \hat W / (1 - \gamma_n)
\left((\hat d + \delta)^2 + \hat S / (\hat W (1 - \gamma_{n+D+3})^3)\right)^{\alpha/2}`,
where :math:`g = 2 \gamma_{n+D+16} + 64 u` covers the roundings of these two
expressions (a power rounds within a few units of the last place). :func:`sum_bounds`
returns them; :func:`bounded_entries` stores the midpoint and bounds its error by
half the width plus one rounding of the midpoint; :func:`left_out` decides which pairs
of clusters the pass leaves out.
"""

import math

import numpy as np

from .jit import njit
from .parallel import spread, workers

U64 = 2.0 ** -53


def gamma(m):
    """Higham's ``gamma_m`` in float64."""
    return m * U64 / (1.0 - m * U64)


@njit(cache=True)
def cluster_moments(X, w, labels, k):
    """``(mu, W, S)`` of the clusters ``labels``: the weighted means (k x D), total
    weights and spreads ``S_l = sum_{y in C_l} w_y |x_y - mu_l|^2`` (k each)."""
    n, D = X.shape
    mu = np.zeros((k, D))
    W = np.zeros(k)
    for i in range(n):
        l = labels[i]
        W[l] += w[i]
        for e in range(D):
            mu[l, e] += w[i] * X[i, e]
    for l in range(k):
        if W[l] > 0.0:
            for e in range(D):
                mu[l, e] /= W[l]
    S = np.zeros(k)
    for i in range(n):
        l = labels[i]
        t = 0.0
        for e in range(D):
            v = X[i, e] - mu[l, e]
            t += v * v
        S[l] += w[i] * t
    return mu, W, S


def mean_distances(X, mu, n_workers):
    """``d[l, i] = |x_i - mu_l|`` (k x n) by direct differences, the points in
    ``n_workers`` ranges at once (:func:`~kgroups._kernels.parallel.spread`)."""
    d = np.empty((mu.shape[0], X.shape[0]))
    spread(mean_distance_rows, X.shape[0], n_workers, X, mu, d)
    return d


@njit(cache=True, nogil=True)
def mean_distance_rows(X, mu, d, lo, hi):
    """:func:`mean_distances` of the points ``lo .. hi - 1``, into ``d``."""
    D = X.shape[1]
    k = mu.shape[0]
    for i in range(lo, hi):
        for l in range(k):
            t = 0.0
            for e in range(D):
                v = X[i, e] - mu[l, e]
                t += v * v
            d[l, i] = math.sqrt(t)


def sum_bounds(d, W, S, alpha, X):
    """``(L, U)`` (shaped as ``d``, k x n): rigorous bounds of ``sum_{y in C_l} w_y |x_i -
    x_y|^alpha`` from the computed distances to the means ``d`` and the clusters'
    computed ``W`` and ``S`` (module docstring); ``X`` the points the moments were
    computed from (n x D)."""
    n, D = X.shape
    g_n, g_s = gamma(n), gamma(n + D + 3)
    delta = 2.0 * gamma(D + 4) * d + 2.0 * gamma(2 * n + 2) * float(
        np.linalg.norm(np.max(np.abs(X), axis=0)) if n else 0.0)
    g = 2.0 * gamma(n + D + 16) + 64.0 * U64
    Wc, Sc = W[:, None], S[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        spread = np.where(Wc > 0, Sc / (Wc * (1.0 - g_s) ** 3), 0.0)
    low = (1.0 - g) * Wc * (1.0 - g_n) * np.maximum(d - delta, 0.0) ** alpha
    high = (1.0 + g) * Wc / (1.0 - g_n) * ((d + delta) ** 2 + spread) ** (0.5 * alpha)
    return low, high


def left_out(X, w, labels, k, alpha, fallback_cost):
    """The pairs of the clusters ``labels`` a pass may leave out, what bounds their
    sums and the points those bounds may not settle: ``(skip, low, high, unsure)``
    (k x k; k x n each, :func:`sum_bounds`; point indices), or None (none left out).

    A point ``i`` of cluster ``a`` may need its exact column where the bounds of its
    sum over ``b`` cannot tell ``b`` from ``a``: where ``b``'s lower bound, less half
    ``b``'s mean within distance, is below ``a``'s upper bound less half ``a``'s
    (paper eq. 50's ``A_l`` per unit of weight, each mean within distance taken at its
    bound ``(2 S / W)^(alpha / 2)``). The pairs of ``a`` and ``b`` are left out where
    those points' exact columns, ``n`` entries each at ``fallback_cost`` pairs per
    entry, cost less than the ``n_a n_b`` pairs.

    >>> X = np.r_[np.zeros((30, 2)), np.full((30, 2), 50.0)] + np.arange(60)[:, None] % 3
    >>> skip, low, high, unsure = left_out(X, np.ones(60), np.repeat([0, 1], 30), 2,
    ...                                    1.0, 2.0)
    >>> skip.tolist(), unsure.size
    ([[False, True], [True, False]], 0)
    """
    n = X.shape[0]
    mu, W, S = cluster_moments(X, w, labels, k)
    d = mean_distances(X, mu, workers(n * k))
    low, high = sum_bounds(d, W, S, alpha, X)
    Wp = np.where(W > 0, W, 1.0)
    half_within = 0.5 * (2.0 * S / Wp) ** (0.5 * alpha)
    own = high[labels, np.arange(n)] / Wp[labels] - half_within[labels]
    unsure = low / Wp[:, None] - half_within[:, None] <= own[None, :]
    counts = np.bincount(labels, minlength=k).astype(np.float64)
    onehot = np.zeros((n, k))
    onehot[np.arange(n), labels] = 1.0
    U = unsure.astype(np.float64) @ onehot  # U[b, a]: points of a unsure about b
    skip = fallback_cost * float(n) * (U + U.T) < counts[:, None] * counts[None, :]
    np.fill_diagonal(skip, False)
    if not skip.any():
        return None
    unsure &= skip[:, labels]
    return skip, low, high, np.flatnonzero(unsure.any(axis=0))


def bounded_entries(M, w, labels, skip, low, high, computed):
    """The entries ``M[l, i] = sum_{y in C_l} B[i, y]`` (``B = -w w rho / 2``) of the
    pairs of clusters ``skip`` leaves out set to the midpoints of their bounds,
    ``-w_i (low + high) / 4``, in place; returns every entry's error bound per unit of
    ``w_i``, ``E`` (k x n): a quarter of the width and a rounding for those, and
    ``computed[l]`` (the bound of a computed sum) for the others."""
    k, n = M.shape
    E = np.empty((k, n))
    E[:] = np.asarray(computed)[:, None]
    out = skip[:, labels]  # out[l, i]: the pairs of (labels[i], l) were left out
    np.copyto(M, -0.25 * w[None, :] * (low + high), where=out)
    np.copyto(E, 0.25 * (high - low) + 4.0 * U64 * high, where=out)
    return E
