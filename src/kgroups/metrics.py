"""Clustering quality metrics: accuracy, overlap, NMI and ARI.

``accuracy`` is paper eq. (55) of França, Rizzo & Vogelstein, "Kernel k-Groups
via Hartigan's Method" (TPAMI 2020),

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
:func:`~sklearn.metrics.normalized_mutual_info_score` and
:func:`~sklearn.metrics.adjusted_rand_score`, re-exported unchanged.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

__all__ = [
    "accuracy",
    "overlap",
    "nmi",
    "ari",
    "normalized_mutual_info_score",
    "adjusted_rand_score",
]

nmi = normalized_mutual_info_score
ari = adjusted_rand_score


def _check_label_pair(labels_true, labels_pred):
    """Return the two label vectors as 1-D arrays of equal, non-zero length."""
    labels_true = np.asarray(labels_true)
    labels_pred = np.asarray(labels_pred)
    for name, lab in (("labels_true", labels_true), ("labels_pred", labels_pred)):
        if lab.ndim != 1:
            raise ValueError(
                f"{name} should be 1-D, got an array of shape {lab.shape}"
            )
    if labels_true.shape[0] == 0:
        raise ValueError("labels_true and labels_pred should be non-empty, got length 0")
    if labels_true.shape[0] != labels_pred.shape[0]:
        raise ValueError(
            f"labels_true and labels_pred should have the same length, got "
            f"len(labels_true)={labels_true.shape[0]} and "
            f"len(labels_pred)={labels_pred.shape[0]}"
        )
    return labels_true, labels_pred


def _contingency(labels_true, labels_pred):
    """Contingency table ``C[a, b] = #{i : true_i = a-th class, pred_i = b-th cluster}``."""
    classes, t = np.unique(labels_true, return_inverse=True)
    clusters, p = np.unique(labels_pred, return_inverse=True)
    table = np.zeros((classes.size, clusters.size), dtype=np.int64)
    np.add.at(table, (t.ravel(), p.ravel()), 1)
    return table


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
        Predicted cluster labels.

    Returns
    -------
    accuracy : float
        In ``[0, 1]``; 1 means a perfect clustering up to relabelling.

    Raises
    ------
    ValueError
        If the inputs are not 1-D, are empty, or differ in length.

    Examples
    --------
    >>> from kgroups.metrics import accuracy
    >>> print(round(accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 2]), 4))
    0.8333
    >>> print(accuracy(["a", "a", "b"], [5, 5, 7]))
    1.0
    """
    labels_true, labels_pred = _check_label_pair(labels_true, labels_pred)
    table = _contingency(labels_true, labels_pred)
    rows, cols = linear_sum_assignment(table, maximize=True)
    return float(table[rows, cols].sum() / labels_true.shape[0])


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
        Predicted cluster labels.

    Returns
    -------
    overlap : float

    Raises
    ------
    ValueError
        If the inputs are invalid (see :func:`accuracy`) or ``labels_true`` has a
        single class (the overlap is then undefined).

    Examples
    --------
    >>> from kgroups.metrics import overlap
    >>> print(round(overlap([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 2]), 4))
    0.75
    """
    labels_true, labels_pred = _check_label_pair(labels_true, labels_pred)
    k = np.unique(labels_true).size
    if k < 2:
        raise ValueError(
            f"overlap needs at least 2 true classes, got k={k} distinct value in labels_true"
        )
    return float(k / (k - 1) * (accuracy(labels_true, labels_pred) - 1.0 / k))
