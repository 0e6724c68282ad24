"""Clustering quality metrics: accuracy, overlap, NMI and ARI.

``accuracy`` is paper eq. (55) of França, Rizzo & Vogelstein, "Kernel k-Groups
via Hartigan's Method" (TPAMI 43(12), 2021),

.. math::

    \\mathrm{accuracy}(\\hat Z) = \\max_{\\pi} \\frac{1}{n}
        \\sum_{i=1}^n \\sum_{j=1}^k \\hat Z_{i\\pi(j)} Z_{ij},

the fraction of points correctly labelled under the best matching of predicted
to true labels. The maximum over matchings is a linear assignment problem on the
contingency table, solved by the Hungarian method
(:func:`scipy.optimize.linear_sum_assignment`) in :math:`O(k^3)` instead of a loop
over the :math:`k!` permutations. The table may be rectangular: when there are more
predicted clusters than true classes, the extra clusters are left unmatched (their
points count as errors), and conversely.

``overlap`` is paper eq. (63), the accuracy with chance discounted,
:math:`\\frac{k}{k-1}(\\mathrm{accuracy} - \\frac1k)`, with :math:`k` the number
of true classes (used for community detection).

``nmi`` and ``ari`` are scikit-learn's
:func:`~sklearn.metrics.normalized_mutual_info_score` (arithmetic mean) and
:func:`~sklearn.metrics.adjusted_rand_score`, behind the same label checks as
``accuracy`` (one name per function: use ``nmi`` and ``ari``).

Every metric leaves out the points whose predicted label is -1, those a fit with
``noise`` set aside: it compares the partition of the points the fit kept (a -1 in
``labels_true`` is a class like any other, so that planted noise a fit kept counts
against it).
"""

from __future__ import annotations

import numpy as np

from ._stats.criteria import contingency as _contingency
from ._validation import (InvalidParameterError, check_sample_weight, describe, encode_labels,
                          validated)

__all__ = ["accuracy", "overlap", "nmi", "ari"]


def _check_label_pair(labels_true, labels_pred, owner, sample_weight=None):
    """Codes of the two label vectors (1-D, equal non-zero length, no NaN/None) on the
    points whose predicted label is not -1 (set aside by a fit with ``noise``), and
    ``sample_weight`` on those points (None stays None)."""
    try:
        shape = np.shape(labels_true)
        if len(shape) != 1 or shape[0] == 0:
            raise InvalidParameterError(
                f"{owner}: labels_true should be a non-empty 1-D array, got shape {shape}")
        t, _ = encode_labels(labels_true, shape[0], owner, "labels_true")
        p, values = encode_labels(labels_pred, shape[0], owner, "labels_pred")
    except InvalidParameterError:
        raise
    except ValueError:  # numpy: ragged nested sequences
        raise InvalidParameterError(
            f"{owner}: labels_true={describe(labels_true)} and labels_pred="
            f"{describe(labels_pred)} should be 1-D arrays of labels") from None
    if sample_weight is not None:
        sample_weight = check_sample_weight(sample_weight, t.size, owner, allow_zero=True)
    aside = np.flatnonzero(values == -1) if values.dtype.kind in "iuf" else ()
    if len(aside):
        kept = p != aside[0]
        if not kept.any():
            raise InvalidParameterError(
                f"{owner}: every labels_pred is -1 (set aside): no point is left to compare")
        t, p = (np.unique(c[kept], return_inverse=True)[1].astype(np.int64) for c in (t, p))
        sample_weight = None if sample_weight is None else sample_weight[kept]
    return t, p, sample_weight


def _pairs(x):
    return float(np.sum(x * (x - 1.0))) / 2.0


def weighted_ari(t, p, w):
    """The adjusted Rand index of codes ``t`` and ``p`` of points with weights ``w``:
    the pairs of Hubert & Arabie's index counted as among repeated rows (integer
    weights give the index of the data with each row repeated ``w_i`` times).

    >>> round(weighted_ari(np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([2.0, 1, 1])), 3)
    0.0
    """
    table = _contingency(t, p, w)
    total, rows, cols = _pairs(w.sum()), _pairs(table.sum(1)), _pairs(table.sum(0))
    expected = rows * cols / total if total > 0 else 0.0
    top = 0.5 * (rows + cols)
    return 1.0 if top == expected else (_pairs(table.ravel()) - expected) / (top - expected)


@validated
def accuracy(labels_true, labels_pred):
    """Fraction of correctly clustered points under the best label matching.

    Paper eq. (55): the maximum over one-to-one matchings of predicted clusters to
    true classes of the fraction of points whose matched label is right, found by
    the Hungarian method on the contingency table. The numbers of classes and of
    clusters may differ; unmatched clusters count as errors.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground-truth class labels (any hashable, sortable values).
    labels_pred : array-like of shape (n_samples,)
        Predicted cluster labels; the points labelled -1 (set aside by a fit with
        ``noise``) are left out.

    Returns
    -------
    accuracy : float
        In ``[0, 1]``; 1 means a perfect clustering up to relabelling.

    Raises
    ------
    ValueError
        If the inputs are not 1-D, are empty, differ in length, or contain NaN
        or None (the message names the parameter).

    See Also
    --------
    overlap : The accuracy with chance discounted.
    scipy.optimize.linear_sum_assignment : The best label matching.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 55.
    .. [2] H. W. Kuhn, "The Hungarian method for the assignment problem", Naval
       Res. Logist. Q. 2(1-2), 83-97, 1955.

    Examples
    --------
    >>> from kgroups.metrics import accuracy
    >>> print(round(accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 2]), 4))
    0.8333
    >>> print(accuracy(["a", "a", "b"], [5, 5, 7]))
    1.0
    >>> print(accuracy([0, 0, 1, 1], [1, 1, 0, -1]))  # the last point set aside
    1.0
    """
    t, p, _ = _check_label_pair(labels_true, labels_pred, "accuracy")
    return _accuracy_codes(t, p)


def _accuracy_codes(t, p):
    from scipy.optimize import linear_sum_assignment  # slow to import: only when used

    table = _contingency(t, p)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(table[rows, cols].sum() / t.shape[0])


@validated
def overlap(labels_true, labels_pred):
    """Accuracy with chance discounted: ``(k / (k - 1)) * (accuracy - 1 / k)``.

    Paper eq. (63), the graph community-detection metric (Decelle et al. 2011),
    with ``k`` the number of distinct true classes. It is 1 for a perfect
    clustering and 0 when the accuracy is ``1/k``; it can be negative only for
    unbalanced classes.

    Parameters
    ----------
    labels_true : array-like of shape (n_samples,)
        Ground-truth class labels; at least two distinct classes.
    labels_pred : array-like of shape (n_samples,)
        Predicted cluster labels; the points labelled -1 (set aside by a fit with
        ``noise``) are left out.

    Returns
    -------
    overlap : float
        At most 1 (a perfect clustering), 0 at the chance accuracy ``1/k``.

    Raises
    ------
    ValueError
        If the inputs are invalid (see :func:`accuracy`) or ``labels_true`` has a
        single class (the overlap is then undefined).

    See Also
    --------
    accuracy : The accuracy it discounts.
    kgroups.graph.detect_communities : Scored by overlap in TPAMI Table I.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 63.
    .. [2] A. Decelle, F. Krzakala, C. Moore, L. Zdeborová, "Asymptotic analysis of
       the stochastic block model for modular networks and its algorithmic
       applications", Phys. Rev. E 84, 066106, 2011.

    Examples
    --------
    >>> from kgroups.metrics import overlap
    >>> print(round(overlap([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 2]), 4))
    0.75
    """
    t, p, _ = _check_label_pair(labels_true, labels_pred, "overlap")
    k = int(t.max()) + 1
    if k < 2:
        raise InvalidParameterError(
            f"overlap: needs at least 2 true classes, got k={k} distinct value in labels_true")
    return float(k / (k - 1) * (_accuracy_codes(t, p) - 1.0 / k))


@validated
def nmi(labels_true, labels_pred):
    """Normalized mutual information of two labelings (scikit-learn, arithmetic mean).

    :func:`sklearn.metrics.normalized_mutual_info_score` with
    ``average_method="arithmetic"``, after the label checks of :func:`accuracy`.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Class and cluster labels (any hashable, sortable values); the points whose
        ``labels_pred`` is -1 (set aside by a fit with ``noise``) are left out.

    Returns
    -------
    nmi : float
        In ``[0, 1]``; 1 for identical partitions up to relabelling.

    See Also
    --------
    ari : The adjusted Rand index.
    sklearn.metrics.normalized_mutual_info_score : What it calls.

    References
    ----------
    .. [1] A. Strehl, J. Ghosh, "Cluster ensembles: a knowledge reuse framework for
       combining multiple partitions", JMLR 3, 583-617, 2002.
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Tables II and III.

    Examples
    --------
    >>> from kgroups.metrics import nmi
    >>> print(round(nmi([0, 0, 1, 1], [1, 1, 0, 0]), 6))
    1.0
    """
    from sklearn.metrics import normalized_mutual_info_score

    t, p, _ = _check_label_pair(labels_true, labels_pred, "nmi")
    return float(normalized_mutual_info_score(t, p))


@validated
def ari(labels_true, labels_pred, sample_weight=None):
    """Adjusted Rand index of two labelings (scikit-learn's, and weighted).

    :func:`sklearn.metrics.adjusted_rand_score`, after the label checks of
    :func:`accuracy`; with ``sample_weight``, the index of the pairs of weighted points
    (integer weights give the index of the data with repeated rows).

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Class and cluster labels (any hashable, sortable values); the points whose
        ``labels_pred`` is -1 (set aside by a fit with ``noise``) are left out.
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights of the points (None: all 1), one per point (those left
        out included).

    Returns
    -------
    ari : float
        1 for identical partitions up to relabelling, about 0 for random ones.

    See Also
    --------
    nmi : The normalized mutual information.
    sklearn.metrics.adjusted_rand_score : What it calls.

    References
    ----------
    .. [1] L. Hubert, P. Arabie, "Comparing partitions", J. Classification 2(1),
       193-218, 1985.
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table II.

    Examples
    --------
    >>> from kgroups.metrics import ari
    >>> print(round(ari([0, 0, 1, 1], [0, 1, 0, 1]), 6))
    -0.5
    """
    from sklearn.metrics import adjusted_rand_score

    t, p, w = _check_label_pair(labels_true, labels_pred, "ari", sample_weight)
    if w is None:
        return float(adjusted_rand_score(t, p))
    return weighted_ari(t, p, w)
