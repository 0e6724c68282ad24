"""Exact two-class energy clustering of one-dimensional data.

França, Rizzo & Vogelstein, "Kernel k-Groups via Hartigan's Method" (TPAMI 43(12), 2021),
appendix, eqs. (64)-(67) and Algorithm 3; also the arXiv version
"Nonparametric clustering with energy statistics", Section "Two-class problem in
one dimension", eqs. (g1d), (w1d) and its Algorithm 1.

With :math:`\\rho(x, y) = |x - y|` and a cluster sorted as
:math:`x_{(1)} \\le \\dots \\le x_{(n)}`, every pair contributes
:math:`x_{(j)} - x_{(i)}` for :math:`i < j`, so (paper eq. 66)

.. math::

    g(C, C) = \\frac{1}{n^2} \\sum_{x, y \\in C} |x - y|
            = \\frac{2}{n^2} \\sum_{\\ell=1}^{n} (2\\ell - 1 - n)\\, x_{(\\ell)} ,

(point :math:`\\ell` is the larger of a pair :math:`\\ell - 1` times and the
smaller :math:`n - \\ell` times), and :math:`W = \\sum_j (n_j / 2) g(C_j, C_j)`
is paper eq. (67).

Weighted form (derived here). With weights :math:`w_\\ell > 0`, cluster mass
:math:`s = \\sum_\\ell w_\\ell` and the prefix masses
:math:`S_\\ell = \\sum_{i \\le \\ell} w_i` (so :math:`S_0 = 0`, :math:`S_n = s`),
point :math:`\\ell` is the larger of pairs of mass :math:`S_{\\ell-1}` and the
smaller of pairs of mass :math:`s - S_\\ell`, whence

.. math::

    g(C, C) = \\frac{1}{s^2} \\sum_{x, y \\in C} w_x w_y |x - y|
            = \\frac{2}{s^2} \\sum_{\\ell=1}^{n}
              w_\\ell\\, (S_{\\ell-1} + S_\\ell - s)\\, x_{(\\ell)},
    \\qquad
    W_C = \\frac{s}{2} g(C, C) = \\frac{P_C}{s},

with :math:`P_C = \\sum_{i<j} w_i w_j (x_{(j)} - x_{(i)})` the pairwise sum. Unit
weights give back :math:`S_{\\ell-1} + S_\\ell - s = 2\\ell - 1 - n`.

The optimal partition is a contiguous split of the sorted data (tested by brute
force). Scanning the splits: the pairwise sum of the first :math:`m` points obeys
:math:`P_L(m) = P_L(m-1) + w_m \\sum_{i<m} w_i (x_{(m)} - x_{(i)})
= P_L(m-1) + w_m (x_{(m)} S_{m-1} - T_{m-1})` with
:math:`T_m = \\sum_{i \\le m} w_i x_{(i)}`, and likewise from the right, so all
:math:`n - 1` values :math:`W(m) = P_L(m) / S_m + P_R(m) / (s - S_m)` come from
cumulative sums: :math:`O(n \\log n)` for the sort plus :math:`O(n)`, instead of
the paper's :math:`O(n^2)`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._input import weight_scale
from ._reprs import short_repr
from ._validation import (
    InvalidParameterError,
    check_data,
    check_sample_weight,
    pow2_scale,
    validated,
)


@dataclass(frozen=True)
class OneDimResult:
    """Result of :func:`onedim_kgroups`.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        0 for the left (smaller values) group, 1 for the right group, in the
        original order of the data.
    threshold : float
        Midpoint between the largest value of the left group and the smallest
        value of the right group; points ``<=`` the left maximum get label 0.
    within_energy : float
        The minimal within energy :math:`W = \\sum_j (s_j / 2) g(C_j, C_j)`.

    See Also
    --------
    onedim_kgroups : The function that returns it.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Appendix, Algorithm 3.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import onedim_kgroups
    >>> res = onedim_kgroups(np.array([0.0, 0.2, 0.3, 5.0, 5.1]))
    >>> res
    OneDimResult(n_samples=5, n_left=3, threshold=2.65, within_energy=0.25)
    >>> res.labels.tolist()
    [0, 0, 0, 1, 1]
    """

    labels: np.ndarray
    threshold: float
    within_energy: float

    def __repr__(self):
        return short_repr(self, n_samples=len(self.labels),
                          n_left=int(np.count_nonzero(self.labels == 0)),
                          threshold=self.threshold, within_energy=self.within_energy)


def _check_1d(x, sample_weight, owner="onedim_kgroups"):
    """``x`` of shape (n,) or (n, 1), ``n >= 2``, and the weights, as float arrays."""
    x = check_data(x, "x", owner, allow_1d=True, min_samples=2)
    if x.shape[1] != 1:
        raise InvalidParameterError(
            f"{owner}: x should have shape (n_samples,) or (n_samples, 1) (one-dimensional "
            f"data), got shape {x.shape}")
    x = x[:, 0]
    return x, check_sample_weight(sample_weight, x.shape[0], owner)


def _prefix_pairwise(y, w):
    """``P[m-1] = sum_{i<j<=m} w_i w_j (y_j - y_i)`` for sorted ``y``, m = 1..n.

    Parameters
    ----------
    y, w : ndarray of shape (n,)
        Values sorted in increasing order and their weights.

    Returns
    -------
    P : ndarray of shape (n,)
    """
    s_prev = np.concatenate(([0.0], np.cumsum(w)[:-1]))  # S_{m-1}
    t_prev = np.concatenate(([0.0], np.cumsum(w * y)[:-1]))  # T_{m-1}
    return np.cumsum(w * (y * s_prev - t_prev))


def _split_energies(xs, ws):
    """Within energy ``W(m)`` of every split (first m sorted points | rest), m = 1..n-1."""
    # Shift so that the prefix sums start at 0 on each side (|x - y| is shift-invariant):
    # this keeps y * S - T free of cancellation when the data sit far from the origin.
    p_left = _prefix_pairwise(xs - xs[0], ws)[:-1]
    p_right = _prefix_pairwise((xs[-1] - xs)[::-1], ws[::-1])[::-1][1:]
    s_left = np.cumsum(ws)[:-1]
    s_right = np.cumsum(ws[::-1])[::-1][1:]
    return p_left / s_left + p_right / s_right


@validated
def onedim_kgroups(x, sample_weight=None):
    """Exact two-class energy clustering of 1-D data with ``rho(x, y) = |x - y|``.

    Minimises the within energy :math:`W(C_1, C_2)` over all two-way partitions
    (paper appendix, Algorithm 3 and eq. 67). The data are sorted and the within
    energy of every contiguous split is evaluated in :math:`O(n)` total from prefix
    sums (weighted closed form in the module docstring:
    :math:`g(C,C) = (2/s^2) \\sum_\\ell w_\\ell (S_{\\ell-1} + S_\\ell - s) x_{(\\ell)}`,
    which for unit weights is the paper's :math:`(2/n^2)\\sum_\\ell (2\\ell-1-n) x_{(\\ell)}`).
    Cost: :math:`O(n \\log n)`. Deterministic; no initialisation.

    Tied points always share a label (splits between equal values are skipped; no
    loss: with the rest fixed, :math:`W` is concave in the mass of a tie block sent
    left). If all values are equal, :math:`W = 0` and the first point is group 0.

    Parameters
    ----------
    x : array-like of shape (n_samples,) or (n_samples, 1)
        Finite data, ``n_samples >= 2``.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights; integer weights are equivalent to repeated points.

    Returns
    -------
    result : OneDimResult
        ``labels`` (0 = left group, 1 = right group, original order),
        ``threshold`` and ``within_energy``.

    Raises
    ------
    ValueError
        For fewer than 2 points, non-finite values, 2-D input with more than one
        column, invalid weights, or data whose minimal within energy overflows
        float64.

    See Also
    --------
    OneDimResult : What this function returns.
    KernelKGroups : Any dimension, any number of clusters.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Appendix, Algorithm 3.
    .. [2] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (arXiv
       version, "Nonparametric Clustering from Energy Statistics"), section
       "Two-class problem in one dimension".

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import onedim_kgroups
    >>> res = onedim_kgroups([5.0, 0.0, 1.0, 6.0, 2.0])
    >>> res.labels.tolist()
    [1, 0, 0, 1, 0]
    >>> print(round(res.threshold, 3), round(res.within_energy, 4))
    3.5 1.8333
    """
    x, w = _check_1d(x, sample_weight)
    n = x.shape[0]
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], w[order]
    labels = np.ones(n, dtype=np.intp)
    boundary = xs[:-1] < xs[1:]  # allowed splits: between distinct values
    if not boundary.any():
        labels[order[0]] = 0
        return OneDimResult(labels, float(xs[0]), 0.0)
    # W is homogeneous of degree 1 in x and in w: data or weights of extreme
    # magnitude are divided by a power of two (exact) and W multiplied back.
    cx = pow2_scale(float(np.max(np.abs(xs))))
    cw = weight_scale(float(ws.max()), float(ws[ws > 0].min()), "onedim_kgroups")
    energies = _split_energies(xs / cx, ws / cw)  # exact division; cx = cw = 1 usually
    energies[~boundary] = np.inf
    m = int(np.argmin(energies)) + 1  # size of the left group
    labels[order[:m]] = 0
    threshold = float(0.5 * xs[m - 1] + 0.5 * xs[m])  # no overflow near 1e308
    with np.errstate(over="ignore"):  # an overflow is reported below, by name
        within = float(energies[m - 1] * cx * cw)
    if not np.isfinite(within):  # the minimum itself exceeds float64's range
        what = "x" if cw == 1.0 else "x or sample_weight"  # W is linear in each
        raise InvalidParameterError(
            f"onedim_kgroups: x has values of magnitude {float(np.max(np.abs(xs))):.3g} "
            f"and sample_weight up to {float(ws.max()):.3g}, whose minimal within energy "
            f"({float(energies[m - 1]):.6g} * {cx * cw:.3g}) overflows float64; divide "
            f"{what} by a constant")
    return OneDimResult(labels, threshold, within)
