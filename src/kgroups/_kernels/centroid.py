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
and :math:`\hat d` in float64 (:func:`cluster_moments`, :func:`_mean_distances`),
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
returns them; the engine stores the midpoint and bounds its error by half the width
plus one rounding of the midpoint.
"""

import math

import numpy as np

from .jit import njit, prange
from .parallel import twins

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


def _mean_distances(X, mu):
    """``d[l, i] = |x_i - mu_l|`` (k x n) by direct differences."""
    n, D = X.shape
    k = mu.shape[0]
    d = np.empty((k, n))
    for i in prange(n):
        for l in range(k):
            t = 0.0
            for e in range(D):
                v = X[i, e] - mu[l, e]
                t += v * v
            d[l, i] = math.sqrt(t)
    return d


# Compiled twice (serial and parallel) from one source, see kgroups._kernels.parallel.
mean_distances_serial, mean_distances = twins(_mean_distances)


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
