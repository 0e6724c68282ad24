"""Semimetrics of negative type and the kernels they define.

The semimetrics of França, Rizzo & Vogelstein (TPAMI 43(12), 2021, eqs. 52-54) and of the
arXiv version (localized, sinusoidal):

============  ====================================================
name          rho(x, y), with r = ||x - y||
============  ====================================================
energy        r ** alpha, alpha in (0, 2]
laplacian     2 - 2 exp(-r / (2 sigma))
gaussian      2 - 2 exp(-r**2 / (2 sigma**2))
localized     r**2 exp(-r / 2)            (not of negative type in general)
sinusoidal    r**2 theta sin(r / theta)   (not of negative type in general)
============  ====================================================

A semimetric of negative type defines the family of kernels (paper eq. 7)

.. math:: K(x, y) = \\tfrac12 (\\rho(x, x_0) + \\rho(y, x_0) - \\rho(x, y)),

and every member gives the same k-groups objective up to a constant, so the
clustering engines use :math:`K = -\\rho / 2` (no base point, no cancellation).

The semimetrics themselves (names, codes, ``rho`` of a squared distance, the
guard against cancellation) are defined once, in :mod:`kgroups._kernels.semimetric`;
every engine and :func:`pairwise` use that definition.

Pairwise blocks are computed with norms and one matrix product
(``||x - y||^2 = ||x||^2 + ||y||^2 - 2 x.y`` on centred data), then transformed in
place: no Python loop over pairs. The centre is the coordinate-wise median of ``X``
rounded so that centring is exact (:func:`robust_center`): a few far points (an
outlier at 1e20) do not move it, so the ordinary points keep small centred
coordinates and the expansion keeps their digits; the pairs whose expansion
cancelled are recomputed by direct differences (exact for close pairs, wherever
they lie), so every
squared distance is accurate to a few ulps relative to its true value. A callable semimetric's
values and a named semimetric's range are checked here, in the one path every
engine and the energy functions use: NaN, infinity, overflow, a wrong shape or
non-numbers get an error naming the semimetric, never a silent NaN.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from .._kernels.jit import kernel_array, tiered
from .._kernels.parallel import workers
from .._memory import check_fits
from .._kernels.pairwise import finish_block
from .._kernels.semimetric import NAMES, kernel_args, rho_src
from .._validation import (
    InvalidParameterError,
    check_semimetric_matrix,
    check_data,
    check_sample_weight,
    describe,
    validate_params,
    validated,
)

#: The semimetric names that ``semimetric=`` accepts: ``("energy", "laplacian",
#: "gaussian", "localized", "sinusoidal")``.
#:
#: ``"energy"`` is :math:`\|x - y\|^\alpha` and ``"laplacian"`` and ``"gaussian"``
#: are :math:`2 - 2e^{-\|x - y\| / 2\sigma}` and
#: :math:`2 - 2e^{-\|x - y\|^2 / 2\sigma^2}` (TPAMI equations 52-54);
#: ``"localized"`` and ``"sinusoidal"`` are those of the arXiv version. A callable
#: ``rho(X_block, Y_block)`` or ``"precomputed"`` is accepted too. See
#: :func:`pairwise` and :doc:`/user_guide/semimetrics`.
SEMIMETRICS = NAMES


def check_semimetric(semimetric, alpha=1.0, sigma=1.0, theta=1.0, owner="pairwise"):
    """Validate a semimetric name (or callable) and its parameters (one table row).

    Parameters
    ----------
    semimetric : str or callable
        One of ``SEMIMETRICS``, ``"precomputed"`` or a vectorised callable
        ``f(X_block, Y_block) -> ndarray of shape (len(X_block), len(Y_block))``.
    alpha, sigma, theta : float
        Parameters of ``energy``, ``laplacian``/``gaussian`` and ``sinusoidal``.
    owner : str
        The public callable whose row of the constraint table applies.

    Returns
    -------
    semimetric : str or callable
        The validated semimetric.

    Examples
    --------
    >>> check_semimetric("energy", alpha=0.5)
    'energy'
    """
    validate_params(owner, {"semimetric": semimetric, "alpha": alpha, "sigma": sigma,
                            "theta": theta})
    return semimetric


def _rho_bound(semimetric, params, d2max):
    """An upper bound of ``|rho|`` over squared distances up to ``d2max``."""
    if semimetric == "energy":
        return max(1.0, d2max) ** (0.5 * float(params.get("alpha", 1.0)))
    if semimetric in ("laplacian", "gaussian"):
        return 2.0
    if semimetric == "sinusoidal":
        return d2max * float(params.get("theta", 1.0))
    return d2max


def rho_max(semimetric, params, d2max):
    """The largest ``|rho|`` over squared distances up to ``d2max`` (a bound for the
    sinusoidal semimetric, ``theta r**2``): the scale of the kernel ``K = -rho/2``,
    against which the engines judge the rounding of their updates."""
    d2max = float(d2max)
    if not np.isfinite(d2max):
        return np.inf
    if semimetric == "sinusoidal":
        return d2max * float(params.get("theta", 1.0))
    if semimetric == "localized":  # r**2 exp(-r/2) rises up to r = 4, then falls
        d2max = min(d2max, 16.0)
    code, alpha, sigma, theta = kernel_args(semimetric, params)
    return abs(float(rho_src(d2max, code, alpha, sigma, theta)))


def diameter_sq(X):
    """``sum_j (max_j - min_j)**2``: at least every squared distance between rows of
    ``X`` (inf on overflow)."""
    if X.shape[0] == 0:
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        span = np.max(X, axis=0) - np.min(X, axis=0)
        d2 = float(np.dot(span, span))
    return d2 if np.isfinite(d2) else np.inf


def check_semimetric_range(sq_norm_max, semimetric, params, factor=1.0, owner="pairwise",
                           advice=None):
    """Raise when a named semimetric's values would overflow float64.

    ``sq_norm_max`` is the largest squared norm of the (centred) rows, so every
    squared distance is at most ``4 sq_norm_max``; ``factor`` bounds what the
    values are multiplied or summed by (weights, scale, number of terms).
    ``advice`` ends the message (default: how to rescale ``X`` for ``semimetric``).
    """
    with np.errstate(over="ignore", invalid="ignore"):
        d2max = 4.0 * float(sq_norm_max)
        total = _rho_bound(semimetric, params, d2max) * float(factor) if np.isfinite(d2max) \
            else np.inf
    if not np.isfinite(total):
        raise InvalidParameterError(
            f"{owner}: the values of semimetric={semimetric!r} overflow float64 for this data "
            f"(largest squared norm of the centred rows {sq_norm_max:.3g}, so squared distances "
            f"up to {d2max:.3g}, times {float(factor):.3g} for weights and sums); "
            + (advice or rescale_advice(semimetric)))


def rescale_advice(semimetric):
    """How to bring data whose semimetric values overflow back in range, and what
    that does to the clusters of ``semimetric``."""
    why = {"energy": "the energy semimetric ||x - y||**alpha is homogeneous of degree "
                     "alpha, so its clusters do not depend on a global scale",
           "laplacian": "dividing sigma by the same number keeps the semimetric's values",
           "gaussian": "dividing sigma by the same number keeps the semimetric's values",
           "sinusoidal": "dividing theta by the same number keeps the clusters",
           "localized": "the localized semimetric has no scale parameter: its values "
                        "change with the scale"}[semimetric]
    return f"rescale X, e.g. divide it by its largest absolute value ({why})"


def robust_center(X):
    """The centre of the expansion of squared distances: for each column the median of
    ``X``, rounded so that subtracting it is exact, or 0 where no such centre exists.

    The median is not dragged by a few far points (an outlier at 1e20), so the
    ordinary points keep small centred coordinates and the expansion
    ``||x||^2 + ||y||^2 - 2 x.y`` keeps their digits. The pairs whose expansion
    cancels anyway are recomputed by direct differences; engines that keep only the
    centred data (matrix-free, GPU) take those differences of centred coordinates,
    so the centring itself must lose nothing: ``x - c`` must be exact for every entry.
    The median is rounded to a multiple of the spacing of the column's largest
    ``|x|`` (every entry is then a multiple of the rounding grid of ``x - c`` where
    ``x`` and ``c`` are close, Sterbenz's lemma), the subtraction is checked entry by
    entry with the exact error of a floating-point sum (Knuth's TwoSum), and a column
    where it is not exact (two tight groups far apart, one of them near 0) is not
    centred: ``x - 0`` is exact, and the direct differences then use the original
    coordinates.
    """
    n, d = X.shape
    center = np.zeros(d)
    if n == 0:
        return center
    with np.errstate(over="ignore", invalid="ignore"):
        med = np.median(X, axis=0)
        if not np.all(np.isfinite(med)):  # the mean of two middle values near 1.8e308
            med = np.where(np.isfinite(med), med, np.median(X * 0.5, axis=0) * 2.0)
    with np.errstate(over="ignore", invalid="ignore"):
        grid = np.spacing(np.max(np.abs(X), axis=0))
        c = np.where(grid > 0, np.round(med / grid) * grid, 0.0)
    c = np.where(np.isfinite(c), c, 0.0)
    exact = np.ones(d, dtype=bool)
    step = max(1, (1 << 20) // max(d, 1))
    for a in range(0, n, step):  # TwoSum's error of x + (-c), by row blocks
        x = X[a:a + step]
        with np.errstate(over="ignore", invalid="ignore"):
            s = x - c
            bv = s - x
            err = (x - (s - bv)) + (-c - bv)
        exact &= np.all(err == 0, axis=0)
    center[exact] = c[exact]
    return center


def centred_sq_norm_max(X, center=None):
    """Largest squared norm of the rows of ``X`` centred by ``center`` (default
    :func:`robust_center`; inf on overflow)."""
    with np.errstate(over="ignore", invalid="ignore"):
        Xc = X - (robust_center(X) if center is None else center)
        big = float(np.einsum("ij,ij->i", Xc, Xc).max(initial=0.0))
    return big if np.isfinite(big) else np.inf


def _callable_block(semimetric, X, Y, owner, square=False):
    """``semimetric(X, Y)`` as a finite float64 array of shape (len(X), len(Y)), or an
    error naming the semimetric and the first bad entry; with ``square`` (``Y`` is
    ``X``) also symmetric with a zero diagonal (to ``SYMMETRY_RTOL`` of its largest
    value), as a semimetric is."""
    shape = (X.shape[0], Y.shape[0])
    what = f"{owner}: the callable semimetric={describe(semimetric)}"
    res = semimetric(X, Y)
    arr = np.asarray(res) if not hasattr(res, "toarray") else np.asarray(res.toarray())
    if arr.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{what} returned {describe(res)} (dtype {arr.dtype}); expected real numbers, an "
            f"array of shape {shape}")
    if arr.shape != shape:
        raise InvalidParameterError(
            f"{what} returned shape {arr.shape}, expected {shape} (one value per pair of rows "
            "of its two arguments)")
    arr = np.asarray(arr, dtype=np.float64)
    if not np.all(np.isfinite(arr)):
        i, j = (int(t) for t in np.argwhere(~np.isfinite(arr))[0])
        raise InvalidParameterError(
            f"{what} returned {float(arr[i, j])!r} for the pair (i, j) = ({i}, {j}); expected "
            "finite values (a semimetric is finite)")
    if square:
        check_semimetric_matrix(arr, what)
    return arr


# Rows per block in ``pairwise``: bounds the float64 scratch of a block to ~64 MB.
BLOCK_BYTES = 64 * 2**20

@validated
def pairwise(
    X,
    Y=None,
    semimetric: str | Callable = "energy",
    *,
    alpha: float = 1.0,
    sigma: float = 1.0,
    theta: float = 1.0,
    out=None,
    center=None,
    scale: float = 1.0,
    wx=None,
    wy=None,
):
    """Matrix of ``scale * wx_i * wy_j * rho(x_i, y_j)`` for the rows of ``X`` and ``Y``.

    Computed by row blocks: one BLAS product on centred data, then one fused,
    parallel pass compiled by numba.

    Parameters
    ----------
    X : array-like of shape (n_x, n_features)
        Rows ``x_i``, finite numbers (a 1-D array is one feature).
    Y : array-like of shape (n_y, n_features), default=None
        ``None`` means ``Y = X`` (the diagonal is then exactly 0).
    semimetric : str or callable, default="energy"
        A name of ``SEMIMETRICS`` or a vectorised callable of two 2-D blocks
        returning an array of shape ``(len(X_block), len(Y_block))``.
    alpha, sigma, theta : float
        Semimetric parameters (see module docstring).
    out : ndarray of shape (n_x, n_y), optional
        Buffer to write into (float64 or float32).
    center : ndarray of shape (n_features,), optional
        Shift applied to both X and Y before the norm trick (default: the
        coordinate-wise median of X). Distances do not depend on it; it only limits
        cancellation error.
    scale : float, default=1.0
        Factor applied to every entry (e.g. ``-0.5`` gives the kernel
        ``K = -rho / 2``).
    wx, wy : ndarray of shape (n_x,) and (n_y,), optional
        Row and column weights (default: ones).

    Returns
    -------
    rho : ndarray of shape (n_x, n_y)
        Entry ``(i, j)`` is ``scale * wx_i * wy_j * rho(x_i, y_j)``; ``out`` itself
        when given, float64 otherwise.

    Raises
    ------
    ValueError
        Bad inputs, a callable's NaN/inf/wrong shape/non-numbers (naming the
        first bad pair), or named-semimetric values that overflow float64.

    See Also
    --------
    SEMIMETRICS : The names of the semimetrics.
    rho_to_origin : The distances to the base point x0 = 0.
    kernel_from_semimetric_x0 : The kernel of a semimetric.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 52-54.
    .. [2] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (arXiv
       version, "Nonparametric Clustering from Energy Statistics"), the
       localized and sinusoidal semimetrics.
    .. [3] R. Lyons, "Distance covariance in metric spaces", Ann. Probab. 41(5),
       3284-3305, 2013.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> float(pairwise(X)[0, 1])
    5.0
    >>> float(pairwise(X, alpha=0.5)[0, 1]) == 5.0 ** 0.5
    True
    """
    X, Y, wx, wy, center = _check_pairwise_arrays(X, Y, semimetric, out, center, wx, wy)
    return pairwise_unchecked(X, Y, semimetric, alpha=alpha, sigma=sigma, theta=theta,
                              out=out, center=center, scale=scale, wx=wx, wy=wy)


def _check_pairwise_arrays(X, Y, semimetric, out, center, wx, wy, owner="pairwise"):
    """The array arguments of :func:`pairwise`, validated (the scalars are checked by the
    table)."""
    if semimetric == "precomputed":
        raise InvalidParameterError(
            f"{owner}: semimetric='precomputed' means the matrix is already given; pairwise "
            "computes it from raw data: pass a named or callable semimetric")
    X = check_data(X, "X", owner)
    Y = None if Y is None else check_data(Y, "Y", owner)
    if Y is not None and Y.shape[1] != X.shape[1]:
        raise InvalidParameterError(
            f"{owner}: X has {X.shape[1]} features but Y has {Y.shape[1]}; expected the same")
    n_y = X.shape[0] if Y is None else Y.shape[0]
    wx = None if wx is None else check_sample_weight(wx, X.shape[0], owner, "wx")
    wy = None if wy is None else check_sample_weight(wy, n_y, owner, "wy")
    center = None if center is None else _check_center(center, X.shape[1], owner)
    if out is not None and not (isinstance(out, np.ndarray) and out.shape == (X.shape[0], n_y)
                                and out.dtype in (np.float64, np.float32)):
        raise InvalidParameterError(
            f"{owner}: out={describe(out)} should be a float64 or float32 array of shape "
            f"{(X.shape[0], n_y)}")
    return X, Y, wx, wy, center


def _check_center(center, n_features, owner):
    c = check_data(np.reshape(np.asarray(center), (1, -1)) if np.ndim(center) == 1 else center,
                   "center", owner)
    if c.shape != (1, n_features):
        raise InvalidParameterError(
            f"{owner}: center should have shape ({n_features},), got {np.shape(center)}")
    return c[0]


def pairwise_unchecked(X, Y=None, semimetric="energy", *, alpha=1.0, sigma=1.0, theta=1.0,
                       out=None, center=None, scale=1.0, wx=None, wy=None, owner="pairwise"):
    """:func:`pairwise` on inputs already validated (float64 2-D arrays; the engines).

    Still checks what only the computation reveals: a callable's values and a
    named semimetric's range.
    """
    same = Y is None
    nx_ = np.shape(X)[0]
    ny_ = nx_ if same else np.shape(Y)[0]
    if out is None:
        check_fits(8 * nx_ * ny_, f"{owner}: the {nx_} x {ny_} matrix of semimetric values",
                   "fewer rows (a subsample), or the energy statistics and engines, which "
                   "sum the values by blocks without the matrix")
    # the rows are copied at most twice below: in C order, then centred
    rows = nx_ + (0 if same else ny_)
    check_fits(16 * rows * np.shape(X)[1], f"{owner}: the copies of the {rows} rows "
               "(in C order, centred)", "fewer rows (a subsample)")
    # The rows in C order and writable whatever the caller's (a slice, a Fortran-ordered
    # array, a read-only memory map): the finishing kernel is compiled for one layout.
    X = kernel_array(X)
    Y = X if same else kernel_array(Y)
    wx = np.ones(nx_) if wx is None else kernel_array(wx, np.float64)
    wy = (wx if same else np.ones(ny_)) if wy is None else kernel_array(wy, np.float64)
    if out is None:
        out = np.empty((nx_, ny_), dtype=np.float64)
    if callable(semimetric):
        res = _callable_block(semimetric, X, Y, owner, square=same)
        out[...] = scale * wx[:, None] * res * wy[None, :]
        return out
    with np.errstate(over="ignore", invalid="ignore"):
        c = robust_center(X) if center is None else center
        Xc = np.ascontiguousarray(X - c, dtype=np.float64)
        Yc = Xc if same else np.ascontiguousarray(Y - c, dtype=np.float64)
        nx = np.einsum("ij,ij->i", Xc, Xc)
        ny = nx if same else np.einsum("ij,ij->i", Yc, Yc)
        big = max(nx.max(initial=0.0), ny.max(initial=0.0))
        weight = abs(scale) * np.abs(wx).max(initial=0.0) * np.abs(wy).max(initial=0.0)
    params = {"alpha": alpha, "sigma": sigma, "theta": theta}
    check_semimetric_range(big if np.isfinite(big) else np.inf, semimetric, params, weight,
                           owner)
    args = kernel_args(semimetric, params)
    step = max(1, BLOCK_BYTES // (8 * max(ny_, 1)))
    direct = out.dtype == np.float64 and out.flags.c_contiguous
    n_workers = workers(nx_ * ny_)
    with tiered(nx_ * ny_):  # a small block in a fresh process: no numba to load
        for a in range(0, nx_, step):
            b = min(nx_, a + step)
            blk = out[a:b] if direct else np.empty((b - a, ny_))
            np.matmul(Xc[a:b], Yc.T, out=blk)
            finish_block(blk, X[a:b], Y, nx[a:b], ny, *args, float(scale), wx[a:b], wy,
                         a if same else -1, n_workers)
            if not direct:
                out[a:b] = blk
    return out


@validated
def rho_to_origin(X, semimetric="energy", *, alpha=1.0, sigma=1.0, theta=1.0):
    """``rho(x_i, 0)`` for every row, the paper's base point ``x0 = 0`` (TPAMI equation 7).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data, finite numbers.
    semimetric : str, default="energy"
        A name of ``SEMIMETRICS`` (see :func:`pairwise`).
    alpha : float, default=1.0
        Exponent of the energy semimetric ``||x - y||**alpha``, in (0, 2].
    sigma : float, default=1.0
        Scale of the Gaussian and Laplacian semimetrics, > 0.
    theta : float, default=1.0
        Scale of the sinusoidal semimetric, > 0.

    Returns
    -------
    rho0 : ndarray of shape (n_samples,)
        ``rho(x_i, 0)``, the ``rho_to_x0`` argument of
        :func:`kernel_from_semimetric_x0` for the paper's base point.

    See Also
    --------
    pairwise : The semimetric between two sets of points.
    kernel_from_semimetric_x0 : The kernel built from these distances.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 7.

    Examples
    --------
    >>> import numpy as np
    >>> rho_to_origin(np.array([[3.0, 4.0]])).round(6).tolist()
    [5.0]
    """
    X = check_data(X, "X", "rho_to_origin")
    check_semimetric(semimetric, alpha, sigma, theta, owner="rho_to_origin")
    origin = np.zeros((1, X.shape[1]))
    return pairwise_unchecked(X, origin, semimetric, alpha=alpha, sigma=sigma, theta=theta,
                              center=origin[0], owner="rho_to_origin")[:, 0]
