r"""The silhouette of a partition on a semimetric (Rousseeuw, J. Comput. Appl. Math.
20, 1987), weighted, for :func:`~kgroups.choose_k`: for point i of cluster
:math:`C`, :math:`a_i` the weighted mean of :math:`\rho(x_i, y)` over the other points
of :math:`C`, :math:`b_i` the smallest weighted mean over another cluster, and
:math:`s(i) = (b_i - a_i) / \max(a_i, b_i)`. Every labelling's per-cluster sums of
:math:`\rho` come from one pass over the pairs (:func:`cluster_sums`)."""

from __future__ import annotations

import numpy as np

from .._memory import check_fits
from .._semimetrics import BLOCK_BYTES, pairwise_unchecked


def cluster_sums(Z, w, D, rho, label_sets, ks):
    """``(sums, H, offsets)``: the weighted one-hot labels ``H`` of every labelling of
    ``label_sets`` (``ks`` clusters each) side by side, from column ``offsets[i]``, and
    ``sums[i, c] = sum_{y in c} w_y rho(z_i, y)``, in one pass over the pairs: the
    matrix ``D`` of rho where given, else blocks of its rows (``rho``: the keywords of
    ``pairwise_unchecked``).

    >>> Z, w = np.array([[0.0], [1.0], [3.0]]), np.ones(3)
    >>> cluster_sums(Z, w, None, {"semimetric": "energy"}, [np.array([0, 0, 1])], [2])[0]
    array([[1., 3.],
           [1., 2.],
           [5., 0.]])
    """
    n = w.size
    offsets = np.concatenate([[0], np.cumsum(ks)])
    H = np.zeros((n, offsets[-1]))
    for off, lab in zip(offsets, label_sets):
        H[np.arange(n), off + lab] = w
    if D is not None:
        return D @ H, H, offsets
    rows = max(1, min(n, BLOCK_BYTES // (8 * n)))
    check_fits(8 * rows * (n + offsets[-1]), f"choose_k silhouette for n_samples={n} (blocks "
               f"of {rows} rows of rho)", "fewer samples")
    sums = np.empty_like(H)
    for a in range(0, n, rows):
        sums[a:a + rows] = pairwise_unchecked(Z[a:a + rows], Z, **rho) @ H
    return sums, H, offsets


def silhouettes(Z, w, D, rho, label_sets, ks):
    """The silhouette of every point in each labelling of ``label_sets`` (``ks``
    clusters each), from one pass over the pairs (:func:`cluster_sums`).

    >>> Z, w = np.array([[0.0], [1.0], [3.0]]), np.ones(3)
    >>> silhouettes(Z, w, None, {"semimetric": "energy"}, [np.array([0, 0, 1])], [2])
    [array([0.66666667, 0.5       , 0.        ])]
    """
    sums, H, off = cluster_sums(Z, w, D, rho, label_sets, ks)
    return [silhouettes_from_sums(sums[:, o:o + k], H[:, o:o + k].sum(0), lab, w)
            for k, o, lab in zip(ks, off, label_sets)]


def silhouettes_from_sums(sums, s, lab, w):
    """The silhouette ``(b - a) / max(a, b)`` of every point from the per-cluster sums of
    rho (``sums[i, l]``; ``s`` the clusters' weights); 0 for a point alone in its cluster
    or whose cluster holds only copies of it.

    >>> sums = np.array([[1.0, 3.0], [1.0, 2.0], [5.0, 0.0]])
    >>> silhouettes_from_sums(sums, np.array([2.0, 1.0]), np.array([0, 0, 1]), np.ones(3))
    array([0.66666667, 0.5       , 0.        ])
    """
    idx = np.arange(lab.size)
    others = s[lab] - w
    alone = others <= 1e-12 * s[lab]
    a = sums[idx, lab] / np.where(alone, 1.0, others)
    means = sums / s
    means[idx, lab] = np.inf
    b = means.min(axis=1)
    alone |= a <= 1e-12 * b
    return np.where(alone, 0.0, (b - a) / np.maximum(np.maximum(a, b), 1e-300))


def paired_se(d, w):
    r"""Standard error of the weighted mean of the paired differences ``d`` (of two
    partitions' silhouettes, point by point): :math:`\sqrt{\sum_i w_i (d_i - \bar d)^2 /
    (s (m - 1))}`, :math:`s = \sum w_i`, :math:`m = \max(s, s^2 / \sum w_i^2)` (Kish's
    effective size; 0 where it is at most 1).

    >>> paired_se(np.array([0.0, 1.0]), np.ones(2))
    0.5
    """
    s = float(w.sum())
    m = max(s, s * s / float(w @ w))
    return 0.0 if m <= 1.0 else float(np.sqrt(w @ (d - w @ d / s) ** 2 / (s * (m - 1.0))))
