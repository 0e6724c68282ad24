r"""DISCO: distance components, a nonparametric analysis of variance (Rizzo & Székely 2010).

For ``N`` points in ``k`` groups of sizes :math:`n_j` and a semimetric
:math:`\rho` (R's ``index`` is the exponent alpha of :math:`\|x - y\|^\alpha`), the
total dispersion splits into within and between parts (TPAMI eq. 18, unit weights):

.. math:: T = \frac{1}{2N} \sum_{x, y} \rho(x, y), \qquad
          W = \sum_j \frac{1}{2 n_j} \sum_{x, y \in C_j} \rho(x, y), \qquad
          S_\alpha = T - W,

and the DISCO F ratio is

.. math:: F = \frac{S_\alpha / (k - 1)}{W / (N - k)}.

These are R's ``energy::disco(x, factors, index)`` ``total``, ``within``,
``between``, ``statistic``, ``Df.trt`` and ``Df.e``, and :func:`kgroups.total_energy`,
:func:`kgroups.within_energy` and :func:`kgroups.between_energy` of the same labels
(``between`` is computed as ``T - W``, as R does; it equals ``between_energy`` up to
rounding). For alpha in (0, 2) the test is consistent against all alternatives; with
alpha = 2 and Euclidean data it is the classical ANOVA F test of equal means.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._backends._memory import check_fits
from ._energy import _data_scale, _finite, _permutation_statistics, _prepare, _rho_block, _spec
from ._validation import InvalidParameterError, as_random_state, encode_labels, validated

__all__ = ["DiscoResult", "disco"]


@dataclass(frozen=True)
class DiscoResult:
    """Result of :func:`disco` (R ``energy::disco`` names in brackets).

    Attributes
    ----------
    statistic : float
        The DISCO F ratio (``statistic``).
    pvalue : float
        Permutation p-value ``(1 + #{b : F_b >= F}) / (1 + n_permutations)``
        (``p.value``, which counts only ``F_b > F``); NaN when ``n_permutations == 0``.
    total, between, within : float
        The dispersions T, ``S = T - W`` and W (``total``, ``between``, ``within``).
    df_between, df_within : int
        ``k - 1`` and ``N - k`` (``Df.trt``, ``Df.e``).
    n_permutations : int
        Number of random relabellings.
    permutation_statistics : ndarray of shape (n_permutations,)
        F of each relabelling, in the order drawn; not part of equality comparisons.
    """

    statistic: float
    pvalue: float
    total: float
    between: float
    within: float
    df_between: int
    df_within: int
    n_permutations: int
    permutation_statistics: np.ndarray = field(
        default_factory=lambda: np.empty(0), compare=False, repr=False)


def _f_ratio(n, k):
    """F from the k x k cluster-pair sums (shape (..., k, k)) and the group sizes."""
    def statistic(sums, sizes):
        total = np.sum(sums, axis=(-2, -1)) / (2.0 * n)
        within = np.sum(np.diagonal(sums, axis1=-2, axis2=-1) / (2.0 * sizes), axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return ((total - within) / (k - 1)) / (within / (n - k))
    return statistic


def _checked_groups(X, labels, owner):
    n = X.shape[0]
    codes, values = encode_labels(labels, n, owner, "labels")
    k = values.shape[0]
    if k < 2:
        raise InvalidParameterError(
            f"{owner}: labels has {k} distinct value ({values[0]!r}); DISCO compares at "
            "least 2 groups")
    if n <= k:
        raise InvalidParameterError(
            f"{owner}: n_samples={n} should be > the number of groups k={k} (the within "
            "part has N - k degrees of freedom)")
    return codes, k


@validated
def disco(
    X,
    labels,
    *,
    alpha=1.0,
    n_permutations=999,
    random_state=None,
    semimetric="energy",
    sigma=1.0,
    theta=1.0,
):
    """DISCO decomposition and permutation F test of equal distributions across groups.

    Decomposes the total dispersion of ``X`` into between-group and within-group
    parts and tests that all groups come from one distribution (see
    :mod:`kgroups._disco` for the formulas). Equals R's
    ``energy::disco(X, factors=labels, index=alpha)`` (one factor) on the statistic,
    the decomposition and the degrees of freedom (checked to 1e-10 in
    ``tests/test_disco.py`` on the output of ``tests/reference/disco_reference.R``).

    **p-value.** With ``F`` the observed ratio and ``F_1..F_B`` those of
    ``B = n_permutations`` uniformly random relabellings (group sizes kept),
    ``p = (1 + #{b : F_b >= F}) / (1 + B)``, with ``>=`` evaluated as
    ``F_b >= F - 1e-12 |F|``: the convention of :func:`kgroups.energy_test`, valid
    (``P(p <= a) <= a`` under the null) also on tied data. R's ``disco`` counts only
    ``F_b > F`` and so over-rejects when relabellings tie with the observed value.

    **Testing clusters found on the same data is invalid.** If ``labels`` come from
    a clustering of ``X`` (k-groups, :class:`kgroups.EnergyHierarchical`, ...), the
    groups were chosen to make ``W`` small, so the observed F is large even when
    ``X`` has no cluster structure at all, and the permutation distribution (random
    labels) does not describe it: the p-value is near ``1 / (1 + B)`` for almost any
    data. Use DISCO for groups fixed before looking at ``X`` (treatments, known
    classes), or as a descriptive decomposition of a clustering, not as evidence
    that the clusters exist.

    **Why no sample-split helper.** The usual repair, fitting clusters on one half
    and testing on the other half labelled by ``predict``, is not honest here: the
    labels of the second half are a fixed partition of the feature space applied to
    its own points, and points in different regions of space have different
    distributions whenever the partition cuts the support, also when the data are
    one homogeneous blob. Such a test rejects with probability tending to one under
    the no-cluster null. Valid tests after clustering need selective inference
    conditioned on the clustering event (e.g. Gao, Bien & Witten, JASA 2022, for
    Gaussian data and hierarchical or k-means clustering), which this function does
    not attempt.

    The pooled n x n semimetric matrix is built once (its memory is checked first);
    each batch of permutations is one matrix product with one-hot labels. Time
    O(n^2 (D + k n_permutations)).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Data (1-D: one feature), or a semimetric matrix with
        ``semimetric="precomputed"``.
    labels : array-like of shape (n_samples,)
        Group of each sample (any hashable values), at least 2 groups and
        ``n_samples > k``.
    alpha : float, default=1.0
        Exponent of the ``"energy"`` semimetric, in (0, 2] (R's ``index``).
    n_permutations : int, default=999
        Random relabellings for the p-value (0: ``pvalue=nan``; R's ``R``).
    random_state : int, numpy RandomState or Generator, or None, default=None
        Seeds the permutations.
    semimetric : str or callable, default="energy"
        See :func:`kgroups.pairwise`; ``"precomputed"``: X is the semimetric matrix.
    sigma, theta : float, default=1.0
        Parameters of the other named semimetrics.

    Returns
    -------
    result : DiscoResult
        The decomposition (total, between, within dispersion), the DISCO F
        statistic, its degrees of freedom and permutation p-value.

    References
    ----------
    M. L. Rizzo, G. J. Székely. DISCO analysis: a nonparametric extension of
    analysis of variance. Annals of Applied Statistics 4(2), 1034-1055, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([0.0, 1.0, 10.0, 12.0])
    >>> res = disco(X, [0, 0, 1, 1], n_permutations=0)
    >>> print(res.total, res.between, res.within, res.df_between, res.df_within)
    11.25 9.75 1.5 1 2
    >>> print(round(res.statistic, 6))
    13.0
    """
    owner = "disco"
    spec = _spec(owner, semimetric, alpha, sigma, theta)
    X = _prepare(X, spec, owner)
    codes, k = _checked_groups(X, labels, owner)
    n = X.shape[0]
    check_fits(8 * n * n + 8 * n * k, f"disco for n_samples={n} (the n x n semimetric "
               "matrix)", "a subsample")
    factor = 1.0
    if spec["semimetric"] == "precomputed":
        D = X.toarray() if sp.issparse(X) else X
    else:
        c, factor = _data_scale([X], spec)
        idx = np.arange(n)
        D = _rho_block(X / c if c != 1.0 else X, idx, idx, spec)
    sizes = np.bincount(codes, minlength=k).astype(np.float64)
    H = np.zeros((n, k))
    H[np.arange(n), codes] = 1.0
    sums = H.T @ (D @ H)
    total = _finite(float(np.sum(D)) / (2.0 * n), owner)
    within = _finite(float(np.sum(np.diag(sums) / (2.0 * sizes))), owner)
    if within == 0.0:
        raise InvalidParameterError(
            f"{owner}: the within-group dispersion is 0 (every group is made of identical "
            "points): the F ratio is undefined")
    between = total - within
    stat = (between / (k - 1)) / (within / (n - k))
    result = dict(statistic=float(stat), total=total * factor, between=between * factor,
                  within=within * factor, df_between=k - 1, df_within=n - k)
    if n_permutations == 0:
        return DiscoResult(pvalue=float("nan"), n_permutations=0, **result)
    perm = _permutation_statistics(D, codes, sizes, int(n_permutations),
                                   as_random_state(random_state), _f_ratio(n, k))
    count = int(np.sum(perm >= stat - 1e-12 * abs(stat)))
    return DiscoResult(pvalue=(1.0 + count) / (1.0 + n_permutations),
                       n_permutations=int(n_permutations), permutation_statistics=perm,
                       **result)
