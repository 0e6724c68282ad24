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

All of them come from the k x k group sums :math:`P_{ij} = \sum_{x \in C_i, y \in C_j}
\rho(x, y)` of the pair-sum layer (:mod:`kgroups._stats.pairsum`):
:math:`T = \sum_{ij} P_{ij} / (2N)` and :math:`W = \sum_j P_{jj} / (2 n_j)`, computed
in memory or, for a dask X, on the Dask workers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import dispatch, pairsum
from .pairsum import Part, finite, semimetric_spec
from .set_aside import without_set_aside
from .._reprs import short_repr
from .._validation import InvalidParameterError, as_random_state, validated


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

    See Also
    --------
    disco : The function that returns it.
    EnergyTestResult : The result of the k-sample energy test.

    References
    ----------
    .. [1] M. L. Rizzo, G. J. Székely, "DISCO analysis: A nonparametric extension
       of analysis of variance", Ann. Appl. Stat. 4(2), 1034-1055, 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import disco
    >>> res = disco(np.array([0.0, 1.0, 10.0, 12.0]), [0, 0, 1, 1],
    ...             n_permutations=0)
    >>> res  # doctest: +ELLIPSIS
    DiscoResult(statistic=13, pvalue=nan, total=11.25, ...)
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

    def __repr__(self):
        return short_repr(self, statistic=self.statistic, pvalue=self.pvalue,
                          total=self.total, between=self.between, within=self.within,
                          df_between=self.df_between, df_within=self.df_within,
                          n_permutations=self.n_permutations)


def _f_ratio(n, k):
    """F from the k x k cluster-pair sums (shape (..., k, k)) and the group sizes."""
    def statistic(sums, sizes):
        total = np.sum(sums, axis=(-2, -1)) / (2.0 * n)
        within = np.sum(np.diagonal(sums, axis1=-2, axis2=-1) / (2.0 * sizes), axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return ((total - within) / (k - 1)) / (within / (n - k))
    return statistic


def _check_groups(prep, owner):
    """At least 2 groups and more samples than groups."""
    n, k = prep.n, prep.k
    if k < 2:
        value = np.asarray(prep.label_values[0]).tolist()  # 0, not np.int64(0)
        raise InvalidParameterError(
            f"{owner}: labels has {k} distinct value ({value!r}); DISCO compares at least "
            "2 groups")
    if n <= k:
        raise InvalidParameterError(
            f"{owner}: n_samples={n} should be > the number of groups k={k} (the within "
            "part has N - k degrees of freedom)")


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
    parts and tests that all groups come from one distribution: with T, W and
    ``S = T - W`` those of :func:`kgroups.total_energy` and
    :func:`kgroups.within_energy`, ``F = [S / (k - 1)] / [W / (N - k)]``. Equals R's
    ``energy::disco(X, factors=labels, index=alpha)`` (one factor) on the statistic,
    the decomposition and the degrees of freedom (to 1e-10 on R's output, in the
    tests).

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

    With permutations, the pooled n x n semimetric matrix is built once (its
    memory is checked first) and each batch of permutations is one matrix product
    with one-hot labels: time O(n^2 (D + k n_permutations)). With
    ``n_permutations=0`` the decomposition is computed by blocks, memory
    O(block). A dask X (array or DataFrame; labels NumPy or dask) is computed
    exactly on the Dask workers with ``n_permutations=0`` only (each permutation
    would be another pass over all pairs; test a subsample in memory for a
    p-value).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Data (1-D: one feature), or a semimetric matrix with
        ``semimetric="precomputed"``.
    labels : array-like of shape (n_samples,)
        Group of each sample (any hashable values), at least 2 groups and
        ``n_samples > k``. The points labelled -1, those a fit with ``noise``
        set aside, are left out (``N`` and ``k`` count the others).
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

    See Also
    --------
    DiscoResult : What this function returns.
    energy_test : The k-sample energy test.
    total_energy : T, the dispersion it decomposes.

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
    spec = semimetric_spec(owner, semimetric, alpha, sigma, theta)
    # the points a fit with noise set aside (label -1) are left out: N and k count the rest
    X, labels, _ = without_set_aside(X, labels, None, owner,
                                     spec["semimetric"] == "precomputed", weights=False)
    prep = dispatch.prepare([Part(X, "X", labels=labels)], spec, owner,
                           n_permutations=n_permutations)
    _check_groups(prep, owner)
    n, k, sizes = prep.n, prep.k, prep.group_sizes
    sums, D = dispatch.observed_sums(prep, n_permutations)
    total = finite(np.sum(sums) / (2.0 * n), owner)
    within = finite(float(np.sum(np.diag(sums) / (2.0 * sizes))), owner)
    if within == 0.0:
        raise InvalidParameterError(
            f"{owner}: the within-group dispersion is 0 (every group is made of identical "
            "points): the F ratio is undefined")
    between = total - within
    stat = (between / (k - 1)) / (within / (n - k))
    result = {"statistic": float(stat), "total": finite(total, owner, prep.factor),
              "between": finite(between, owner, prep.factor),
              "within": finite(within, owner, prep.factor), "df_between": k - 1,
              "df_within": n - k}
    if D is None:
        return DiscoResult(pvalue=float("nan"), n_permutations=0, **result)
    perm = dispatch.permutation_statistics(D, prep.codes, sizes, int(n_permutations),
                                          as_random_state(random_state), _f_ratio(n, k), owner,
                                          prep.backend)
    return DiscoResult(pvalue=dispatch.permutation_pvalue(stat, perm),
                       n_permutations=int(n_permutations), permutation_statistics=perm,
                       **result)
