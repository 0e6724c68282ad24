"""Where new points go, from a fitted engine's predictor: the scores of a point for each
cluster and the one way from new rows to them (:func:`per_cluster`).

The predictor (:meth:`kgroups._engines.engine.Engine.predictor`) gives, block by block,
each row's ``m_l = sum_{y in C_l} w_y K(x, y)`` and ``K(x, x)``, and a score function
turns them, with the clusters' weights ``s`` and self-sums ``q``, into one number per
cluster: the insertion gain of kernel k-groups, the nearest weighted mean of kernel
k-means, or the squared distance to each mean (``transform``). A fit uses them too,
to label the rows of zero weight it left out.

A fit that set points aside (``noise``) gives its rows a cost per cluster and a
threshold: a row whose smallest cost is at least the threshold is set aside too
(label -1, :func:`place`).
"""

from __future__ import annotations

import numpy as np

from ._progress import counted


def insertion_scores(m, kxx, s, q):
    """Gain in Q of inserting each new point (weight 1) into each cluster:
    ``(q_l + 2 m_l + K(x, x)) / (s_l + 1) - q_l / s_l``, ``-inf`` for an empty cluster."""
    empty = s <= 0
    mean_q = np.where(empty, 0.0, q / np.where(empty, 1.0, s))
    kxx = np.reshape(kxx, (-1, 1))
    gain = (q + 2.0 * m + kxx) / (s + 1.0) - mean_q
    gain[:, empty] = -np.inf
    return gain


def nearest_mean_scores(m, kxx, s, q):
    """Minus the squared feature distance to each weighted mean, up to ``K(x, x)``:
    ``2 m_l / s_l - q_l / s_l^2``, ``-inf`` for an empty cluster (``K(x, x)`` unused)."""
    empty = s <= 0
    safe = np.where(empty, 1.0, s)
    score = 2.0 * m / safe - q / (safe * safe)
    score[:, empty] = -np.inf
    return score


def mean_distances(m, kxx, s, q):
    """Squared kernel-space distance to each weighted cluster mean (engine units):
    ``K(x, x) - 2 m_l / s_l + q_l / s_l^2``, negatives clipped at 0, ``inf`` for an
    empty cluster (never after a fit: ``labels_`` has no empty cluster)."""
    empty = s <= 0
    safe = np.where(empty, 1.0, s)
    d = np.reshape(kxx, (-1, 1)) - 2.0 * m / safe + q / (safe * safe)
    np.maximum(d, 0.0, out=d)
    d[:, empty] = np.inf
    return d


def insertion_costs(m, kxx, s, q):
    """What inserting each new point (weight 1) into each cluster costs ``-W``:
    ``s_l d_l / (s_l + 1)``, with ``d_l`` its squared kernel-space distance to the
    cluster's weighted mean (:func:`mean_distances`); the trimmed search's cost of
    bringing back a point set aside (:mod:`kgroups._kernels.trimmed`)."""
    return mean_distances(m, kxx, s, q) * (s / (s + 1.0))


# Relative margin of the threshold of a fit that set points aside: the costs of new
# rows are sums of the same terms as the fit's, taken in another order, so the
# set-aside point whose cost is the threshold may come back a unit in the last place
# below it.
THRESHOLD_RTOL = 1e-12


def place(m, kxx, s, q, scores, noise=None):
    """The cluster of best score of each row; with ``noise = (costs, threshold)``, -1
    for a row whose smallest ``costs`` over the clusters is at least ``threshold``
    (within ``THRESHOLD_RTOL``)."""
    labels = np.argmax(scores(m, kxx, s, q), axis=1).astype(np.int64)
    if noise is not None:
        costs, threshold = noise
        margin = THRESHOLD_RTOL * abs(threshold)
        labels[np.min(costs(m, kxx, s, q), axis=1) >= threshold - margin] = -1
    return labels


def row_blocks(n, step, desc=None):
    """The first row of each block of ``step`` of ``n`` rows; where there are several and
    ``desc`` names the work, a bar on a terminal counts the rows done
    (:func:`~kgroups._progress.counted`)."""
    return counted(n, step, desc if n > step else None)


def per_cluster(X, predictor, s, q, scores, desc=None):
    """``scores(m, kxx, s, q)`` for every row of ``X`` and cluster, ``m`` and
    ``kxx`` from the fitted engine's predictor, block by block (its ``block_rows``;
    ``desc``: :func:`row_blocks`): the one way from new rows to ``predict``'s and
    ``transform``'s numbers."""
    out = np.empty((X.shape[0], s.shape[0]))
    step = predictor.block_rows or max(X.shape[0], 1)
    for start in row_blocks(X.shape[0], step, desc):
        m, kxx = predictor.cross_sums(X[start:start + step])
        out[start:start + m.shape[0]] = scores(m, kxx, s, q)
    return out


def predict_rows(X, predictor, s, q, scores, noise=None, desc=None):
    """The cluster of best score of every row of ``X`` (see :func:`per_cluster`), or -1
    where ``noise`` sets it aside (:func:`place`)."""
    out = np.empty(X.shape[0], dtype=np.int64)
    step = predictor.block_rows or max(X.shape[0], 1)
    for start in row_blocks(X.shape[0], step, desc):
        m, kxx = predictor.cross_sums(X[start:start + step])
        out[start:start + m.shape[0]] = place(m, kxx, s, q, scores, noise)
    return out


def transform_rows(X, predictor, s, q, unit, desc=None):
    """:func:`mean_distances` of every row of ``X``, in the data's units (``unit``)."""
    return per_cluster(X, predictor, s, q, mean_distances, desc) * unit
