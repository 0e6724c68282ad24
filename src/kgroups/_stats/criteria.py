r"""The statistics of the named criteria of :func:`~kgroups.choose_k` that read a
partition or a sample, not the choice's fits (those are
:mod:`kgroups._choose_k.criteria`'s): the gap statistic's reference samples, gain and
rules (R's ``cluster::maxSE``), prediction strength's score and rule, the eigenvalues of
the energy kernel's random-walk Laplacian, the gaps of a graph's (formulas: the user
guide); the contingency table of two partitions, which :mod:`kgroups.metrics` reads too, and
the shares of one partition's weight within another's parts; the F test of equal column
variances; one p-value of a test run on several random halvings."""

from __future__ import annotations

import numpy as np

from .._memory import check_fits
from .._rescale import principal_axes
from .._validation import InvalidParameterError, describe

GAP_RULES = ("firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax")


def contingency(t, p, w=None):
    """Contingency table ``C[a, b] = #{i : t_i = a, p_i = b}`` of two code vectors, or
    with weights ``w`` the sum of their weights.

    >>> contingency(np.array([0, 0, 1]), np.array([1, 0, 1]))
    array([[1, 1],
           [0, 1]])
    """
    table = np.zeros((t.max() + 1, p.max() + 1), dtype=np.int64 if w is None else np.float64)
    np.add.at(table, (t, p), 1 if w is None else w)
    return table


def reference_sampler(Z, w, kind):
    r"""A function of ``rng`` drawing reference samples of the shape of Z: ``"box"``
    uniform over its box; ``"pca"`` uniform over the box of Z in its principal axes
    (Tibshirani et al.'s (b)); ``"moments"`` uniform over the box in the principal axes
    whose sides are :math:`\sqrt{12}` times the standard deviations (the sample has
    Z's mean and covariance).

    >>> X = np.random.default_rng(0).normal(size=(2000, 2)) * [3.0, 1.0]
    >>> R = reference_sampler(X, np.ones(2000), "moments")(np.random.default_rng(1))
    >>> np.round(np.sqrt(np.diag(np.cov(R.T))), 1)
    array([3., 1.])
    """
    if kind == "box":
        lo, hi = Z.min(axis=0), Z.max(axis=0)
        return lambda rng: lo + rng.random(Z.shape) * (hi - lo)
    mean, Vt, sd = principal_axes(Z, w)
    if kind == "moments":
        lo, hi = -np.sqrt(3.0) * sd, np.sqrt(3.0) * sd
    else:
        lo, hi = (P := (Z - mean) @ Vt.T).min(axis=0), P.max(axis=0)
    return lambda rng: (lo + rng.random((Z.shape[0], sd.size)) * (hi - lo)) @ Vt + mean


def gap_gain_z(ref_log_w, log_w):
    r""":math:`\mathrm{Gap}(k) - \mathrm{Gap}(1)` in standard errors of data without
    structure, :math:`\mathrm{sd}_b(\log W^*_{kb} - \log W^*_{1b}) \sqrt{1 + 1/B}`, by k
    (the last axis; the B references of ``ref_log_w`` on the axis before, ``log_w`` one)."""
    d = ref_log_w - ref_log_w[..., :1]
    gain = (d.mean(axis=-2, keepdims=True) - (log_w - log_w[..., :1]))[..., 0, :]
    se = d.std(axis=-2) * np.sqrt(1.0 + 1.0 / ref_log_w.shape[-2])
    return gain / np.maximum(se, 1e-300)


def _first_local_max(f):
    down = f[:-1] >= f[1:]
    return int(np.argmax(down)) if down.any() else f.size - 1


def gap_rule(gap, se, rule="firstSEmax", se_factor=1.0):
    """Index of the k that a rule of R's ``cluster::maxSE`` picks: ``"globalmax"`` the
    largest Gap, ``"firstmax"`` the first local maximum, ``"Tibs2001SEmax"`` the smallest
    k with ``Gap(k) >= Gap(k+1) - s(k+1)``, ``"firstSEmax"`` / ``"globalSEmax"`` the
    smallest k within ``se_factor`` s of the first local / the global maximum.

    >>> gap = np.array([0.185, 0.186, 0.30, 0.25])
    >>> [gap_rule(gap, np.full(4, 0.02), r) for r in GAP_RULES]
    [2, 0, 2, 2, 2]
    """
    gap = np.asarray(gap, dtype=np.float64)
    s = se_factor * np.asarray(se, dtype=np.float64)
    if rule == "globalmax":
        return int(np.argmax(gap))
    if rule == "firstmax":
        return _first_local_max(gap)
    if rule == "Tibs2001SEmax":
        ok = gap[:-1] >= gap[1:] - s[1:]
        return int(np.argmax(ok)) if ok.any() else gap.size - 1
    if rule in ("firstSEmax", "globalSEmax"):
        top = _first_local_max(gap) if rule == "firstSEmax" else int(np.argmax(gap))
        return int(np.argmax(gap[:top + 1] >= gap[top] - s[top]))
    raise InvalidParameterError(f"gap_rule: rule={describe(rule)} should be one of {GAP_RULES}")


def prediction_strength_score(test_labels, predicted, weights=None):
    r"""Prediction strength of one split (Tibshirani & Walther 2005, eq. 2.1):
    :math:`\min_j \sum_{i \ne i' \in A_j} w_i w_{i'} 1[\hat c_i = \hat c_{i'}] /
    \sum_{i \ne i' \in A_j} w_i w_{i'}`, clusters of one point left out (0 when none
    has a pair).

    >>> prediction_strength_score(np.array([0, 0, 0, 1, 1]), np.array([1, 1, 0, 0, 0]))
    0.3333333333333333
    """
    w = np.ones(len(test_labels)) if weights is None else np.asarray(weights, np.float64)
    C, Q = (contingency(test_labels, predicted, v) for v in (w, w * w))
    together = (C * C - Q).sum(axis=1)
    pairs = C.sum(axis=1) ** 2 - Q.sum(axis=1)
    has = pairs > 1e-12 * np.maximum(C.sum(axis=1) ** 2, 1e-300)
    return float(np.min(together[has] / pairs[has])) if has.any() else 0.0


def ps_rule(ps, cutoff=0.8):
    """Index of the largest k with prediction strength ``ps >= cutoff``; the first
    index when none reaches it.

    >>> ps_rule(np.array([1.0, 0.95, 0.7, 0.85, 0.5]))
    3
    """
    ok = np.flatnonzero(np.asarray(ps) >= cutoff)
    return int(ok[-1]) if ok.size else 0


def log_eigengaps(mu, ks, floor_share):
    """``log mu_(k+1) - log mu_k`` for each k of ``ks`` (``mu`` ascending, from k = 1; NaN
    at k = 1), a zero counting as ``floor_share`` of the smallest eigenvalue above it (the
    graph's rule of :func:`~kgroups.choose_k`).

    >>> mu = np.array([0.0, 0.0, 0.001, 0.002, 0.5])
    >>> np.round(log_eigengaps(mu, np.arange(1, 5), 0.2), 2).tolist()
    [nan, 1.61, 0.69, 5.52]
    """
    zero = mu <= 1e-9 * max(float(np.max(mu)), 1e-300)  # zero to rounding
    above = mu[~zero]
    m = np.where(zero, floor_share * (float(above.min()) if above.size else 1.0), mu)
    return np.where(ks >= 2, np.log(m[ks]) - np.log(m[ks - 1]), np.nan)


def laplacian_eigenvalues(X, w, n_eigen, rho):
    """The ``n_eigen`` smallest eigenvalues of ``L_rw = I - D^-1 G W``, ascending: G the
    Gram matrix of the kernel of the semimetric ``rho`` (the keywords of
    ``pairwise_unchecked``) with base point the weighted mean (ICML eqs. 8 and 12), W
    the weights, D the degrees G w."""
    import scipy.linalg
    import scipy.sparse.linalg

    from .._semimetrics import pairwise_unchecked  # here: kgroups.metrics loads this module

    n = X.shape[0]
    check_fits(2 * 8 * n * n, f"choose_k(method='eigengap') for n_samples={n} (the n x n "
               "kernel and its normalised copy)", "another method, or fewer samples")
    r0 = pairwise_unchecked(X, (w @ X / w.sum())[None, :], **rho, owner="choose_k")[:, 0]
    G = pairwise_unchecked(X, **rho, owner="choose_k")
    G *= -0.5
    G += 0.5 * r0[:, None]
    G += 0.5 * r0[None, :]
    d = G @ w
    if not np.all(d > 0):
        i = int(np.argmin(d))
        raise InvalidParameterError(
            f"choose_k: method='eigengap' needs positive degrees (row sums of the kernel "
            f"matrix), but point {i} has degree {float(d[i])!r} with semimetric="
            f"{describe(rho['semimetric'])}; the energy semimetric with alpha <= 1 has a "
            "non-negative kernel; or use another method")
    s = np.sqrt(w / d)
    G *= s[:, None]
    G *= s[None, :]
    if n <= 1500 or n_eigen >= n - 1:
        mu = scipy.linalg.eigh(G, eigvals_only=True, subset_by_index=[n - n_eigen, n - 1])
    else:
        mu = scipy.sparse.linalg.eigsh(G, k=n_eigen, which="LA", return_eigenvectors=False)
    return np.sort(1.0 - mu)


def within_share(P, G, w):
    """The share of the weight of each cluster of ``P`` in its main group of ``G``.

    >>> within_share(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.ones(4))
    0.5
    """
    return float(contingency(P, G, w).max(axis=1).sum() / w.sum())


def smallest_group(G, w, k, n_neighbors):
    """The weight share of the lightest group of ``G`` (k groups) of more than
    ``n_neighbors + 1`` rows (1.0 where none is): the part the graph may have set apart.

    >>> smallest_group(np.array([0] * 30 + [1] * 20 + [2] * 3), np.ones(53), 3, 10)
    0.37735849056603776
    """
    rows, weight = np.bincount(G, minlength=k), np.bincount(G, weights=w, minlength=k)
    big = weight[rows > n_neighbors + 1]
    return float(big.min() / w.sum()) if big.size else 1.0


def equal_variances_p(sd, n):
    """The p-value of equal variances of columns of standard deviations ``sd`` (n points):
    the largest variance over the smallest against Snedecor's F law of ``(n - 1, n - 1)``
    degrees of freedom, Bonferroni over the ``d (d - 1)`` ordered pairs of columns; 1 for
    fewer than two columns. A geometry that standardizing changes only by sampling error
    is X's own, whose structure test it would repeat.

    >>> p = equal_variances_p(np.array([1.0, 1.02]), 500)
    >>> round(p, 2), equal_variances_p(np.array([1.0, 100.0]), 500)
    (0.66, 0.0)
    """
    from scipy.stats import f as f_law  # here: it loads scipy.sparse, which a plain fit does not

    if sd.size < 2 or n <= 1:
        return 1.0
    return min(1.0, sd.size * (sd.size - 1) * float(f_law.sf((sd.max() / sd.min()) ** 2,
                                                               n - 1, n - 1)))


def halvings_p(ps):
    """One p-value of a test run on several random halvings: the one's, or twice the median of
    more (Meinshausen, Meier & Buehlmann 2009, the quantile 1/2).

    >>> halvings_p([0.2]), halvings_p([0.01, 0.3, 0.02]), halvings_p([0.4, 0.9, 0.6])
    (0.2, 0.04, 1.0)
    """
    return float(ps[0]) if len(ps) == 1 else min(1.0, 2.0 * float(np.median(ps)))
