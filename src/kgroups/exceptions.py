"""The exceptions and warnings kgroups raises, to catch or filter by class.

:class:`InvalidParameterError`
    A parameter or an input that breaks its constraint (a bad ``n_clusters``, a NaN
    in ``X``, a negative weight, ...). Both a ``ValueError`` and a ``TypeError``; also
    ``kgroups.InvalidParameterError``.
:class:`KRangeWarning`
    :func:`~kgroups.choose_k` answered the top of ``k_range`` before its rule decided.
:class:`DistinctRowsWarning`
    A fit asked for more clusters than the data have distinct rows.
"""

from __future__ import annotations

__all__ = ["DistinctRowsWarning", "InvalidParameterError", "KRangeWarning"]


class InvalidParameterError(ValueError, TypeError):
    """A parameter or input that breaks its constraint.

    The message names the callable, the parameter, the value received and what was
    expected. Both a ``ValueError`` and a ``TypeError``, so that code catching
    either, as scikit-learn's checks do, catches it.

    See Also
    --------
    KRangeWarning : The warning of a choice of k at the top of its range.

    References
    ----------
    .. [1] scikit-learn's ``InvalidParameterError`` of its parameter checks, which is
       also both a ``ValueError`` and a ``TypeError``.

    Examples
    --------
    >>> from kgroups import KernelKGroups
    >>> try:
    ...     KernelKGroups(n_clusters=0).fit([[0.0], [1.0]])
    ... except InvalidParameterError as err:
    ...     print(err)
    KernelKGroups: n_clusters=0 should be 'auto' or an integer >= 1
    """


class KRangeWarning(UserWarning):
    """The choice of k answered the top of ``k_range`` before its rule had decided.

    :func:`~kgroups.choose_k` warns so when k may be larger than the range allows:
    widen ``k_range``.

    See Also
    --------
    kgroups.choose_k : The choice that warns.

    References
    ----------
    .. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of
       clusters in a data set via the gap statistic", J. R. Statist. Soc. B 63(2),
       411-423, 2001 (a rule decides k from the criteria of the k it has seen).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> centres = [(2 * x, 2 * y) for x in range(3) for y in range(2)]    # six groups
    >>> X = np.vstack([rng.normal(c, 0.4, (30, 2)) for c in centres])
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     r = choose_k(X, range(1, 4), random_state=0)
    >>> r.k, caught[0].category is KRangeWarning
    (3, True)
    """


class DistinctRowsWarning(UserWarning):
    """A fit asked for more clusters than the data have distinct rows.

    Counted over the rows of positive weight: some clusters then repeat the points
    of others, and the within energy is 0. Ask for at most as many clusters as there
    are distinct rows.

    See Also
    --------
    kgroups.KernelKGroups : The estimator that warns.

    References
    ----------
    .. [1] G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-groups via
       Hartigan's method", IEEE TPAMI 43(12), 4411-4425, 2021 (eq. 13: the within
       energy of clusters of one repeated point is 0).

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from kgroups import KernelKGroups
    >>> X = np.repeat([[0.0, 0.0], [5.0, 5.0]], 4, axis=0)   # two distinct rows
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     _ = KernelKGroups(3, random_state=0).fit(X)
    >>> print([str(w.message) for w in caught if w.category is DistinctRowsWarning][0])
    KernelKGroups: n_clusters=3 but X has 2 distinct row(s) of positive weight: 1 cluster(s) repeat the points of another and W = 0; use n_clusters <= 2
    """
