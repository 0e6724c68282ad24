"""Energy statistics: energy distance, within/between dispersion, k-sample test.

Notation of França, Rizzo & Vogelstein, *Kernel k-Groups via Hartigan's Method*
(TPAMI 2020), section 2. Data :math:`x_1, \\dots, x_n` with weights
:math:`w_i > 0`, a semimetric :math:`\\rho` (see :mod:`kgroups._semimetrics`), a
partition :math:`C_1, \\dots, C_k`, :math:`s_j = \\sum_{x \\in C_j} w(x)` and
:math:`s = \\sum_j s_j` (eq. 14):

.. math::

    g(C_i, C_j) &= \\frac{1}{s_i s_j} \\sum_{x \\in C_i} \\sum_{y \\in C_j}
                   w(x) w(y) \\rho(x, y)                                  && (13) \\\\
    W &= \\sum_j \\frac{s_j}{2} g(C_j, C_j)                               && (15) \\\\
    S &= \\sum_{i<j} \\frac{s_i s_j}{2 s}
         [2 g(C_i, C_j) - g(C_i, C_i) - g(C_j, C_j)]                      && (16) \\\\
    W + S &= \\frac{s}{2} g(X, X)                                         && (18)

Every sum is computed by blocks of at most ``_BLOCK_ELEMENTS`` semimetric values,
so no function here allocates an n x n matrix except :func:`energy_test`, which
needs the pooled distance matrix for its permutations (its size is checked first).

References
----------
G. França, M. L. Rizzo, J. T. Vogelstein. Kernel k-Groups via Hartigan's Method.
IEEE TPAMI 43(12), 2021 (arXiv:1710.09859), eqs. (2), (4), (13)-(18).
G. J. Székely, M. L. Rizzo. Testing for equal distributions in high dimension.
InterStat, 2004 (the k-sample E-test of R's ``energy::eqdist.etest``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ._semimetrics import pairwise
from ._validation import is_dask_collection
from ._validation import (
    InvalidParameterError,
    as_random_state,
    check_data,
    check_finite,
    check_precomputed,
    check_sample_weight,
    describe,
    encode_labels,
    pow2_scale,
    uniform_sample,
    validated,
)

__all__ = [
    "EnergyTestResult",
    "between_energy",
    "energy_distance",
    "energy_test",
    "g",
    "total_energy",
    "within_energy",
]

_BLOCK_ELEMENTS = 1 << 22  # semimetric values per block (32 MiB of float64)
_MAX_DENSE_BYTES = 1 << 32  # energy_test refuses a pooled matrix above 4 GiB


# --------------------------------------------------------------------------- checks
def _spec(owner, semimetric, alpha, sigma, theta, precomputed=False):
    """Semimetric description shared by the block routines (parameters already checked).

    ``precomputed=True`` together with a semimetric other than the default
    ``"energy"`` (or ``"precomputed"``) is contradictory and an error.
    """
    named = isinstance(semimetric, str)
    if precomputed and not (named and semimetric in ("energy", "precomputed")):
        raise InvalidParameterError(
            f"{owner}: precomputed=True contradicts semimetric={describe(semimetric)}: a "
            "precomputed X already holds the semimetric values; drop semimetric")
    if precomputed or (named and semimetric == "precomputed"):
        return {"semimetric": "precomputed"}
    return {"semimetric": semimetric, "alpha": alpha, "sigma": sigma, "theta": theta}


def _no_precomputed(spec, owner):
    if spec["semimetric"] == "precomputed":
        raise InvalidParameterError(
            f"{owner}: semimetric='precomputed' is not supported; pass the samples "
            "(or use g / within_energy / between_energy with precomputed=True)")


def _prepare(X, spec, owner):
    if spec["semimetric"] == "precomputed":
        return check_precomputed(X, "semimetric", owner, "X")
    return check_data(X, "X", owner, allow_1d=True)


def _check_same_features(X, Y, nx, ny, owner):
    if X.shape[1] != Y.shape[1]:
        raise InvalidParameterError(
            f"{owner}: {nx} has {X.shape[1]} features but {ny} has {Y.shape[1]}; "
            "samples must have the same number of features")


def _data_scale(arrays, spec):
    """Scale ``c`` of the data and the factor ``c**alpha`` of the statistics.

    Only the ``"energy"`` semimetric is homogeneous, ``rho(c x, c y) = c**alpha
    rho(x, y)``, so only it is rescaled; values of the others are left as they are
    (a non-finite result is then an error, see :func:`_finite`).
    """
    if spec["semimetric"] != "energy":
        return 1.0, 1.0
    return _magnitude_scale(max(float(np.max(np.abs(a))) for a in arrays), spec)


def _magnitude_scale(big, spec):
    """:func:`_data_scale` for data whose largest ``|entry|`` is ``big`` (known without
    the arrays, e.g. from the blocks of a dask array)."""
    if spec["semimetric"] != "energy":
        return 1.0, 1.0
    c = pow2_scale(big)
    if c == 1.0:
        return 1.0, 1.0
    with np.errstate(over="ignore", under="ignore"):  # inf: the statistic overflows
        return c, float(np.float64(c) ** spec["alpha"])


def _finite(value, owner, factor=1.0):
    """``value * factor`` as a float, or an error naming why it is not finite."""
    if value == 0.0:  # also when factor overflowed: 0 * inf
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        out = float(value * factor)
    if not np.isfinite(out):
        raise InvalidParameterError(
            f"{owner}: the statistic is not finite ({out!r}): the semimetric values "
            "overflow float64 or are not finite (a callable semimetric returning NaN or "
            "inf, or data too large for this semimetric); rescale the data")
    return out


# --------------------------------------------------------------------------- blocks
def _rho_block(X, rows, cols, spec, Xcols=None, center=None):
    """rho between items ``rows`` and ``cols`` of X (index arrays).

    ``Xcols`` (``X[cols]``) and ``center`` (``X.mean(axis=0)``), when the caller
    has them, are not recomputed for every block of rows.
    """
    if spec["semimetric"] == "precomputed":
        if sp.issparse(X):
            return X[rows][:, cols].toarray()
        return X[np.ix_(rows, cols)]
    params = {k: spec[k] for k in ("alpha", "sigma", "theta")}
    Xcols = X[cols] if Xcols is None else Xcols
    center = X.mean(axis=0) if center is None else center
    # ``pairwise`` recomputes close pairs exactly: duplicated points get rho = 0.
    return pairwise(X[rows], Xcols, spec["semimetric"], center=center, **params)


def _gathered(X, cols, spec):
    """``(X[cols], X.mean(axis=0))`` once for a loop over row blocks (raw data)."""
    if spec["semimetric"] == "precomputed":
        return None, None
    return X[cols], X.mean(axis=0)


def _row_chunks(n_rows, n_cols):
    step = max(1, _BLOCK_ELEMENTS // max(n_cols, 1))
    return ((a, min(a + step, n_rows)) for a in range(0, n_rows, step))


def _weighted_block_sum(X, rows, cols, wr, wc, spec):
    """``sum_{a, b} wr[a] wc[b] rho(X[rows[a]], X[cols[b]])`` by row blocks."""
    total = 0.0
    Xcols, center = _gathered(X, cols, spec)
    for a, b in _row_chunks(len(rows), len(cols)):
        R = _rho_block(X, rows[a:b], cols, spec, Xcols, center)
        total += float(wr[a:b] @ (R @ wc))
    return total


def _cluster_sums(X, codes, k, w, spec):
    """k x k matrix ``Sums[i, j] = sum_{x in C_i, y in C_j} w_x w_y rho(x, y)``.

    One pass over row blocks of the full n x n semimetric matrix; each block is
    reduced with two matrix products against the weighted one-hot labels.
    """
    n = len(codes)
    H = np.zeros((n, k))
    H[np.arange(n), codes] = w
    idx = np.arange(n)
    sums = np.zeros((k, k))
    Xcols, center = _gathered(X, idx, spec)
    # rho is symmetric: each row block against itself and the columns after it,
    # the pairs after it counted twice (half the semimetric values of all pairs)
    for a, b in _row_chunks(n, n):
        R = _rho_block(X, idx[a:b], idx[a:], spec,
                       None if Xcols is None else Xcols[a:], center)
        sums += H[a:b].T @ (R[:, :b - a] @ H[a:b])
        off = H[a:b].T @ (R[:, b - a:] @ H[b:])
        sums += off + off.T
    return sums


def _within_sums(X, codes, k, w, spec):
    """Diagonal of :func:`_cluster_sums`, touching only within-cluster blocks."""
    out = np.zeros(k)
    for j in range(k):
        ii = np.flatnonzero(codes == j)
        out[j] = _weighted_block_sum(X, ii, ii, w[ii], w[ii], spec)
    return out


# --------------------------------------------------------------------------- g, E
@validated
def g(
    X,
    Y=None,
    *,
    semimetric="energy",
    alpha=1.0,
    sigma=1.0,
    theta=1.0,
    sample_weight_x=None,
    sample_weight_y=None,
    precomputed=False,
):
    """Weighted mean of the semimetric between two samples (paper eq. 13).

    .. math:: g(X, Y) = \\frac{1}{s_x s_y} \\sum_{i, j} w^x_i w^y_j \\rho(x_i, y_j),
              \\quad s_x = \\sum_i w^x_i, \\; s_y = \\sum_j w^y_j.

    Computed by row blocks: memory O(block), time O(n_x n_y n_features).

    Parameters
    ----------
    X : array-like of shape (n_x, n_features) or (n_x,)
        First sample (1-D: one feature). With ``precomputed=True``, the
        (n_x, n_y) matrix of semimetric values itself, and ``Y`` must be None.
    Y : array-like of shape (n_y, n_features) or (n_y,), default=None
        Second sample; None means ``Y = X`` (diagonal terms ``rho(x, x) = 0``).
    semimetric : str or callable, default="energy"
        See :func:`kgroups._semimetrics.pairwise`.
    alpha, sigma, theta : float, default=1.0
        Semimetric parameters.
    sample_weight_x : array-like of shape (n_x,), default=None
        Positive weights of X (default 1).
    sample_weight_y : array-like of shape (n_y,), default=None
        Positive weights of Y (default 1; ignored when ``Y`` is None, which
        reuses ``sample_weight_x``).
    precomputed : bool, default=False
        Whether X is a matrix of semimetric values.

    Returns
    -------
    value : float

    Examples
    --------
    >>> import numpy as np
    >>> print(round(g(np.array([0.0, 2.0])), 6))
    1.0
    >>> print(round(g(np.array([0.0]), np.array([3.0, 5.0])), 6))
    4.0
    """
    owner = "g"
    spec = _spec(owner, semimetric, alpha, sigma, theta, precomputed)
    if spec["semimetric"] == "precomputed":
        if Y is not None:
            raise InvalidParameterError(
                f"{owner}: Y should be None when precomputed=True (X holds the n_x x n_y "
                f"semimetric values), got Y={describe(Y)}")
        if sp.issparse(X):
            R = sp.csr_matrix(X, dtype=np.float64)
            check_finite(R, "X", owner)
        else:
            R = check_data(X, "X", owner)
        wx = check_sample_weight(sample_weight_x, R.shape[0], owner, "sample_weight_x")
        wy = check_sample_weight(sample_weight_y, R.shape[1], owner, "sample_weight_y")
        wx, wy = wx / pow2_scale(wx.max()), wy / pow2_scale(wy.max())
        return _finite(float(wx @ (R @ wy)) / (wx.sum() * wy.sum()), owner)
    X = check_data(X, "X", owner, allow_1d=True)
    wx = check_sample_weight(sample_weight_x, X.shape[0], owner, "sample_weight_x")
    wx = wx / pow2_scale(wx.max())  # g does not depend on the scale of the weights
    if Y is None:
        c, factor = _data_scale([X], spec)
        X = X / c if c != 1.0 else X
        idx = np.arange(X.shape[0])
        total = _weighted_block_sum(X, idx, idx, wx, wx, spec)
        return _finite(total / wx.sum() ** 2, owner, factor)
    Y = check_data(Y, "Y", owner, allow_1d=True)
    _check_same_features(X, Y, "X", "Y", owner)
    wy = check_sample_weight(sample_weight_y, Y.shape[0], owner, "sample_weight_y")
    wy = wy / pow2_scale(wy.max())
    c, factor = _data_scale([X, Y], spec)
    if c != 1.0:
        X, Y = X / c, Y / c
    return _finite(_cross_sum(X, Y, wx, wy, spec) / (wx.sum() * wy.sum()), owner, factor)


def _cross_sum(X, Y, wx, wy, spec):
    """``sum_{i, j} wx_i wy_j rho(x_i, y_j)`` for two different samples."""
    Z = np.vstack([X, Y])
    rows = np.arange(X.shape[0])
    cols = np.arange(X.shape[0], Z.shape[0])
    return _weighted_block_sum(Z, rows, cols, wx, wy, spec)


@validated
def energy_distance(
    X,
    Y,
    *,
    alpha=1.0,
    semimetric="energy",
    sigma=1.0,
    theta=1.0,
    sample_weight_x=None,
    sample_weight_y=None,
):
    """Energy distance between two samples, as a V-statistic (paper eqs. 2 and 4).

    .. math:: \\mathcal{E}(X, Y) = 2 g(X, Y) - g(X, X) - g(Y, Y),

    with ``g`` the weighted mean of ``rho`` (eq. 13), diagonal terms included;
    for the default semimetric ``rho(x, y) = ||x - y||**alpha``.

    This is **not** the square root that :func:`scipy.stats.energy_distance`
    returns: for 1-D data and ``alpha=1``,
    ``scipy.stats.energy_distance(u, v) ** 2 == energy_distance(u, v)``.
    R's ``energy::edist(rbind(X, Y), sizes=c(n1, n2), alpha=a)`` (default
    ``method="cluster"``) returns the scaled value
    ``n1 * n2 / (n1 + n2) * energy_distance(X, Y, alpha=a)`` (unweighted), which
    is also the statistic of ``energy::eqdist.etest`` for two samples
    (checked against energy 1.7.11 in ``tests/test_energy.py``).

    Time O((n_x + n_y)^2 n_features); memory O(block), never (n_x + n_y)^2.

    Parameters
    ----------
    X : array-like of shape (n_x, n_features) or (n_x,)
        First sample; a 1-D array is one feature.
    Y : array-like of shape (n_y, n_features) or (n_y,)
        Second sample, same number of features.
    alpha : float, default=1.0
        Exponent of the ``"energy"`` semimetric, in (0, 2].
    semimetric : str or callable, default="energy"
        See :func:`kgroups._semimetrics.pairwise`.
    sigma, theta : float, default=1.0
        Parameters of the other named semimetrics.
    sample_weight_x, sample_weight_y : array-like of shape (n_x,) / (n_y,), default=None
        Positive weights (integer weights equal repeated rows).

    Returns
    -------
    E : float
        Non-negative for semimetrics of negative type; 0 when both samples have
        the same (weighted) empirical distribution.

    Examples
    --------
    >>> import numpy as np
    >>> print(round(energy_distance([0.0, 1.0], [2.0, 3.0]), 6))
    3.0
    >>> print(round(energy_distance(np.zeros((3, 2)), np.ones((4, 2)), alpha=2.0), 6))
    4.0
    """
    owner = "energy_distance"
    spec = _spec(owner, semimetric, alpha, sigma, theta)
    _no_precomputed(spec, owner)
    if is_dask_collection(X) or is_dask_collection(Y):
        from ._dask_energy import energy_distance_dask

        return energy_distance_dask(X, Y, spec, sample_weight_x, sample_weight_y, owner)
    X = check_data(X, "X", owner, allow_1d=True)
    Y = check_data(Y, "Y", owner, allow_1d=True)
    _check_same_features(X, Y, "X", "Y", owner)
    wx = check_sample_weight(sample_weight_x, X.shape[0], owner, "sample_weight_x")
    wy = check_sample_weight(sample_weight_y, Y.shape[0], owner, "sample_weight_y")
    # E does not depend on the scale of either weight vector
    wx, wy = wx / pow2_scale(wx.max()), wy / pow2_scale(wy.max())
    c, factor = _data_scale([X, Y], spec)
    Z = np.vstack([X, Y]) if c == 1.0 else np.vstack([X, Y]) / c
    codes = np.repeat([0, 1], [X.shape[0], Y.shape[0]])
    sums = _cluster_sums(Z, codes, 2, np.concatenate([wx, wy]), spec)
    s = np.array([wx.sum(), wy.sum()])
    gm = sums / np.outer(s, s)
    return _finite(2.0 * gm[0, 1] - gm[0, 0] - gm[1, 1], owner, factor)


# --------------------------------------------------------------------------- W, S, T
_DISPERSION_PARAMS = """
    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Data (1-D: one feature), or with ``precomputed=True`` a symmetric
        semimetric matrix (dense or scipy sparse; absent entries are 0).
    {labels}semimetric : str or callable, default="energy"
        See :func:`kgroups._semimetrics.pairwise`; ``"precomputed"`` is the same
        as ``precomputed=True``.
    alpha, sigma, theta : float, default=1.0
        Semimetric parameters.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights ``w`` (default 1; integer weights equal repeated rows).
    precomputed : bool, default=False
        Whether X holds semimetric values.
"""
def _dispersion_inputs(owner, X, labels, semimetric, alpha, sigma, theta, sample_weight,
                       precomputed):
    """Checked ``X``, label codes, weights, semimetric spec and the factor of W, S, T.

    W, S and T are linear in the weights and, for ``"energy"``, homogeneous of
    degree alpha in the data: data or weights of extreme magnitude are divided by
    a power of two and the statistic multiplied back (``factor``).
    """
    spec = _spec(owner, semimetric, alpha, sigma, theta, precomputed)
    X = _prepare(X, spec, owner)
    n = X.shape[0]
    if labels is None:
        codes = np.zeros(n, dtype=np.int64)
    else:
        try:
            codes, _ = encode_labels(labels, n, owner, "labels")
        except InvalidParameterError:
            raise
        except ValueError:  # numpy: ragged nested sequences
            raise InvalidParameterError(
                f"{owner}: labels={describe(labels)} should be a 1-D array of labels, one "
                "per sample") from None
    w = check_sample_weight(sample_weight, n, owner, "sample_weight")
    cw = pow2_scale(w.max())
    if spec["semimetric"] == "precomputed":  # W, S, T are linear in rho
        values = X.data if sp.issparse(X) else X
        c = factor = pow2_scale(float(np.max(np.abs(values), initial=0.0)))
    else:
        c, factor = _data_scale([X], spec)
    if c != 1.0:
        X = X / c
    return X, codes, (w if cw == 1.0 else w / cw), spec, factor * cw


_LABELS_DOC = """labels : array-like of shape (n_samples,)
        Cluster of each sample (any hashable values; k = number of distinct ones).
    """


@validated
def within_energy(
    X,
    labels,
    *,
    semimetric="energy",
    alpha=1.0,
    sigma=1.0,
    theta=1.0,
    sample_weight=None,
    precomputed=False,
):
    """Within-cluster energy dispersion W (paper eq. 15).

    .. math:: W = \\sum_{j=1}^k \\frac{s_j}{2} g(C_j, C_j)
                = \\sum_j \\frac{1}{2 s_j} \\sum_{x, y \\in C_j} w_x w_y \\rho(x, y).

    Only within-cluster blocks are evaluated, by row blocks: time
    O(sum_j n_j^2 n_features), memory O(block). For ``rho = |x - y|`` and unit
    weights this is the ``W`` of R's ``energy::kgroups``.
    {params}
    Returns
    -------
    W : float
        The within energy of the partition, >= 0, in the units of the semimetric
        (the data's units for ``alpha=1``); ``-W`` is the objective Q of kernel
        k-groups.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([0.0, 1.0, 10.0, 12.0])
    >>> print(round(within_energy(X, [0, 0, 1, 1]), 6))
    1.5
    """
    owner = "within_energy"
    if is_dask_collection(X):
        from ._dask_energy import within_energy_dask

        spec = _spec(owner, semimetric, alpha, sigma, theta, precomputed)
        _no_precomputed(spec, owner)
        return within_energy_dask(X, labels, spec, sample_weight, owner)
    X, codes, w, spec, factor = _dispersion_inputs(
        owner, X, labels, semimetric, alpha, sigma, theta, sample_weight, precomputed)
    k = codes.max() + 1
    s = np.bincount(codes, weights=w, minlength=k)
    return _finite(np.sum(_within_sums(X, codes, k, w, spec) / (2.0 * s)), owner, factor)


@validated
def between_energy(
    X,
    labels,
    *,
    semimetric="energy",
    alpha=1.0,
    sigma=1.0,
    theta=1.0,
    sample_weight=None,
    precomputed=False,
):
    """Between-cluster energy S (paper eq. 16), the k-sample energy statistic.

    .. math:: S = \\sum_{1 \\le i < j \\le k} \\frac{s_i s_j}{2 s}
              [2 g(C_i, C_j) - g(C_i, C_i) - g(C_j, C_j)].

    Computed from its definition (all k x k cluster-pair sums in one blocked pass,
    time O(n^2 n_features), memory O(block + n k)); ``W + S`` equals
    :func:`total_energy` for every partition (eq. 18).
    {params}
    Returns
    -------
    S : float
        The between energy of the partition, >= 0 for a semimetric of negative type;
        ``total_energy(X) - S`` is :func:`within_energy`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([0.0, 1.0, 10.0, 12.0])
    >>> print(round(between_energy(X, [0, 0, 1, 1]), 6))
    9.75
    """
    owner = "between_energy"
    X, codes, w, spec, factor = _dispersion_inputs(
        owner, X, labels, semimetric, alpha, sigma, theta, sample_weight, precomputed)
    k = codes.max() + 1
    s = np.bincount(codes, weights=w, minlength=k)
    gm = _cluster_sums(X, codes, k, w, spec) / np.outer(s, s)
    d = np.diag(gm)
    pair = np.outer(s, s) / (2.0 * s.sum()) * (2.0 * gm - d[:, None] - d[None, :])
    return _finite(np.sum(np.triu(pair, 1)), owner, factor)


@validated
def total_energy(
    X,
    *,
    semimetric="energy",
    alpha=1.0,
    sigma=1.0,
    theta=1.0,
    sample_weight=None,
    precomputed=False,
):
    """Total energy dispersion ``T = (s / 2) g(X, X)`` (paper eq. 18), ``T = W + S``.

    Time O(n^2 n_features), memory O(block).
    {params}
    Returns
    -------
    T : float
        The total dispersion ``(s / 2) g(X, X)``, the same for every partition of
        ``X`` (``s`` is the total weight).

    Examples
    --------
    >>> import numpy as np
    >>> print(round(total_energy(np.array([0.0, 1.0, 10.0, 12.0])), 6))
    11.25
    """
    owner = "total_energy"
    X, codes, w, spec, factor = _dispersion_inputs(
        owner, X, None, semimetric, alpha, sigma, theta, sample_weight, precomputed)
    return _finite(_within_sums(X, codes, 1, w, spec)[0] / (2.0 * w.sum()), owner, factor)


for _f, _lab in ((within_energy, _LABELS_DOC), (between_energy, _LABELS_DOC),
                 (total_energy, "")):
    _f.__doc__ = _f.__doc__.replace("{params}", _DISPERSION_PARAMS.format(labels=_lab))
del _f, _lab


# --------------------------------------------------------------------------- test
@dataclass(frozen=True)
class EnergyTestResult:
    """Result of :func:`energy_test`.

    Attributes
    ----------
    statistic : float
        The k-sample E statistic (R's ``eqdist.etest`` statistic).
    pvalue : float
        Permutation p-value ``(1 + #{b : E_b >= E_obs}) / (1 + n_permutations)``
        (see :func:`energy_test` for the tie rule); NaN when ``n_permutations == 0``.
    n_permutations : int
        Number of permutations used.
    permutation_statistics : ndarray of shape (n_permutations,)
        The statistics ``E_b`` of the random relabellings, in the order drawn
        (empty when ``n_permutations == 0``); any other p-value convention can be
        computed from them. Not part of equality comparisons.
    """

    statistic: float
    pvalue: float
    n_permutations: int
    permutation_statistics: np.ndarray = field(
        default_factory=lambda: np.empty(0), compare=False, repr=False)


def _ksample_statistic(sums, sizes):
    """Sum over pairs of ``n_i n_j / (n_i + n_j) E_ij`` from cluster-pair sums.

    ``sums`` has shape (..., k, k); the result has shape (...).
    """
    nn = np.outer(sizes, sizes)
    gm = sums / nn
    d = np.diagonal(gm, axis1=-2, axis2=-1)
    e = 2.0 * gm - d[..., :, None] - d[..., None, :]
    scale = nn / np.add.outer(sizes, sizes)
    return np.sum(np.triu(scale * e, 1), axis=(-2, -1))


def _permutation_statistics(D, codes, sizes, n_permutations, rs,
                            statistic=_ksample_statistic):
    """``statistic(sums, sizes)`` of ``n_permutations`` random relabellings, batched
    (default: the E statistic; :func:`kgroups.disco` passes its F ratio).

    Each batch of B relabellings is one product ``D @ H`` with H the
    (n, B k) one-hot matrix of the batch; the loop runs over batches.
    """
    n, k = D.shape[0], len(sizes)
    batch = max(1, min(n_permutations, _BLOCK_ELEMENTS // (n * k)))
    out = np.empty(n_permutations)
    for start in range(0, n_permutations, batch):
        B = min(batch, n_permutations - start)
        perm_codes = codes[np.argsort(uniform_sample(rs, (B, n)), axis=1)]  # (B, n)
        H = np.zeros((n, B, k))
        H[np.arange(n)[:, None], np.arange(B)[None, :], perm_codes.T] = 1.0
        DH = (D @ H.reshape(n, B * k)).reshape(n, B, k)
        sums = np.einsum("nbi,nbj->bij", H, DH)
        out[start:start + B] = statistic(sums, sizes)
    return out


def _check_samples(samples, owner):
    if len(samples) < 2:
        raise InvalidParameterError(
            f"{owner}: needs at least 2 samples, got {len(samples)}")
    arrs = [check_data(x, f"samples[{i}]", owner, allow_1d=True)
            for i, x in enumerate(samples)]
    for i, a in enumerate(arrs[1:], start=1):
        _check_same_features(arrs[0], a, "samples[0]", f"samples[{i}]", owner)
    n = sum(a.shape[0] for a in arrs)
    if n * n * 8 > _MAX_DENSE_BYTES:
        raise InvalidParameterError(
            f"{owner}: needs the pooled n x n semimetric matrix: n={n} would take "
            f"{n * n * 8 / 2**30:.1f} GiB (limit {_MAX_DENSE_BYTES / 2**30:.0f} GiB); "
            "subsample the data")
    return arrs


@validated
def energy_test(
    *samples,
    n_permutations=999,
    alpha=1.0,
    semimetric="energy",
    sigma=1.0,
    theta=1.0,
    random_state=None,
):
    """The k-sample energy test of equal distributions (Székely & Rizzo 2004).

    .. math:: \\mathcal{E}_n = \\sum_{1 \\le i < j \\le k}
              \\frac{n_i n_j}{n_i + n_j} \\mathcal{E}(X_i, X_j),

    with :math:`\\mathcal{E}` the V-statistic of :func:`energy_distance`. This is
    the statistic of R's ``energy::eqdist.etest(x, sizes)`` (``method="original"``,
    exponent 1; for another ``alpha`` R needs ``distance=TRUE`` on
    ``dist(x)^alpha``). For two samples it is ``2 S``, with ``S`` the
    :func:`between_energy` of the sample labels; for k > 2 they differ, since
    ``S`` weighs pair (i, j) by ``n_i n_j / (2 n)`` instead.

    **p-value.** With ``E_obs`` the observed statistic and ``E_1, ..., E_B`` the
    statistics of ``B = n_permutations`` uniformly random relabellings of the
    pooled sample (group sizes kept),

    .. math:: p = \\frac{1 + \\#\\{b : E_b \\ge E_{obs}\\}}{1 + B},

    where, to absorb floating-point noise in sums of the same numbers taken in
    another order, ``E_b >= E_obs`` is evaluated as
    ``E_b >= E_obs - 1e-12 * |E_obs|``. Counting ties is what makes the test
    valid, ``P(p <= a) <= a`` under the null, also for discrete data, where
    many relabellings give exactly the observed statistic (e.g. the identity
    relabelling, and any swap of equal values). R's ``energy::eqdist.etest``
    (C routine ``ksampleEtest``) counts only ``E_b > E_obs`` and so
    over-rejects on tied data: for two Bernoulli(1/2) samples of sizes 8 and 8
    under the null, about 19% of its p-values are <= 0.05, against about 1.6%
    here (``tests/test_energy.py::test_pvalue_counts_ties``). On continuous data
    the two conventions agree.

    The pooled (n x n) semimetric matrix is built once (its size is checked);
    each batch of permutations is one matrix product with one-hot labels.
    Time O(n^2 (D + k n_permutations)). Samples that are dask arrays get the
    exact statistic from a blocked reduction over all pairs on the Dask
    workers, with ``n_permutations=0`` only.

    Parameters
    ----------
    *samples : array-like of shape (n_i, n_features) or (n_i,)
        Two or more samples with the same number of features (1-D: one feature).
    n_permutations : int, default=999
        Number of random relabellings (0 gives ``pvalue=nan``).
    alpha : float, default=1.0
        Exponent of the ``"energy"`` semimetric, in (0, 2].
    semimetric : str or callable, default="energy"
        See :func:`kgroups._semimetrics.pairwise`.
    sigma, theta : float, default=1.0
        Parameters of the other named semimetrics.
    random_state : int, numpy RandomState or Generator, or None, default=None
        Seeds the permutations (an integer seeds a ``RandomState``, as in
        scikit-learn).

    Returns
    -------
    result : EnergyTestResult
        ``statistic``, ``pvalue``, ``n_permutations`` and the
        ``permutation_statistics``.

    References
    ----------
    G. J. Székely, M. L. Rizzo. Testing for equal distributions in high
    dimension. InterStat, 2004. B. V. North, D. Curtis, P. C. Sham. A note on
    the calculation of empirical P values from Monte Carlo procedures. Am. J.
    Hum. Genet. 71, 2002 (the ``(1 + count) / (1 + B)`` form).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> res = energy_test(rng.normal(size=30), rng.normal(3.0, size=30),
    ...                   n_permutations=199, random_state=0)
    >>> print(res.pvalue)
    0.005
    """
    owner = "energy_test"
    spec = _spec(owner, semimetric, alpha, sigma, theta)
    _no_precomputed(spec, owner)
    if any(is_dask_collection(x) for x in samples):
        if n_permutations != 0:
            raise InvalidParameterError(
                f"{owner}: n_permutations={n_permutations!r} with dask samples; each "
                "permutation is another pass over all pairs: pass n_permutations=0 for the "
                "exact statistic (pvalue=nan), or test a subsample in memory")
        from ._dask_energy import energy_test_dask

        return EnergyTestResult(energy_test_dask(samples, spec, owner), float("nan"), 0)
    arrs = _check_samples(samples, owner)
    sizes = np.array([a.shape[0] for a in arrs], dtype=np.float64)
    Z = np.vstack(arrs)
    c, factor = _data_scale([Z], spec)
    if c != 1.0:
        Z = Z / c
    n = Z.shape[0]
    codes = np.repeat(np.arange(len(arrs)), sizes.astype(np.intp))
    idx = np.arange(n)
    D = _rho_block(Z, idx, idx, spec)
    H = np.zeros((n, len(arrs)))
    H[idx, codes] = 1.0
    stat = _finite(_ksample_statistic(H.T @ (D @ H), sizes), owner)
    if n_permutations == 0:
        return EnergyTestResult(_finite(stat, owner, factor), float("nan"), 0)
    rs = as_random_state(random_state)
    perm = _permutation_statistics(D, codes, sizes, int(n_permutations), rs)
    count = int(np.sum(perm >= stat - 1e-12 * abs(stat)))
    return EnergyTestResult(_finite(stat, owner, factor),
                            (1.0 + count) / (1.0 + n_permutations), int(n_permutations),
                            perm * factor)
