"""What a fit prepares from its semimetric: the power of two raw data are rescaled by,
the semimetric's parameters in the rescaled units, the factor from the engine's
objective back to the data's units, the paper's ``x0 = 0`` Gram matrix for the
spectral start, and the rows whose closed form gives a fit's kernel.

``||x - y||^alpha`` is homogeneous of degree alpha and the Gaussian and Laplacian
semimetrics depend on ``||x - y|| / sigma`` only, so their partitions do not depend
on a global scale; the neighbourhood graph's semimetric
(:mod:`kgroups._semimetrics.neighbors`) is built from the ranks of distances. Data
of these semimetrics whose largest ``|x|`` lies outside
:data:`~kgroups._validation.SAFE_MAGNITUDE` are multiplied by an exact power of two
(sigma too), and W is reported in the data's units; the other semimetrics are not
scale-free, and such data get a clear error instead of NaN.
"""

from __future__ import annotations

import numpy as np

from .._memory import check_fits
from .._validation import InvalidParameterError, pow2_scale
from .closed_form import rho_to_origin

# The semimetrics whose partitions do not depend on a global scale of the data.
SCALE_FREE = ("energy", "gaussian", "laplacian", "nearest_neighbors")


def data_scale(big, semimetric, owner="KernelKGroups"):
    """The power of two that raw data whose largest centred ``|x|`` is ``big`` are
    multiplied by (1.0 inside the safe range), or a clear error for a semimetric that
    is not scale-free.

    Parameters
    ----------
    big : float
        Largest ``|x - c|`` of the data (``c`` their centre), >= 0.
    semimetric : str
        The named semimetric of the fit.
    owner : str, default="KernelKGroups"
        The name errors start with.

    Returns
    -------
    scale : float
        An exact power of two.

    Examples
    --------
    >>> data_scale(3.0, "energy"), data_scale(2.0 ** 120, "gaussian") == 2.0 ** -120
    (1.0, True)
    """
    if pow2_scale(big) == 1.0:
        return 1.0
    if semimetric not in SCALE_FREE:
        raise InvalidParameterError(
            f"{owner}: X has entries of magnitude {big:.3g}, whose distances "
            f"overflow or underflow float64, and semimetric={semimetric!r} is not "
            f"scale-free; rescale X (semimetrics {SCALE_FREE} are rescaled automatically)")
    # the reciprocal of a subnormal power of two overflows: 2**1000 brings any
    # subnormal magnitude (>= 2**-1074) to at least 2**-74, inside the safe range
    return min(1.0 / pow2_scale(big), 2.0 ** 1000)


def scaled_params(alpha, sigma, theta, scale=1.0):
    """The semimetric's parameters in the units of data multiplied by ``scale``:
    ``sigma`` is a length, ``alpha`` and ``theta`` have no unit here.

    Parameters
    ----------
    alpha, sigma, theta : float
        The estimator's ``alpha``, ``sigma`` and ``theta``.
    scale : float, default=1.0
        The factor the data were multiplied by (:func:`data_scale`).

    Returns
    -------
    params : dict
        ``{"alpha": ..., "sigma": ..., "theta": ...}``.

    Examples
    --------
    >>> scaled_params(1.0, 2.0, 1.0, scale=0.5)
    {'alpha': 1.0, 'sigma': 1.0, 'theta': 1.0}
    """
    return {"alpha": alpha, "sigma": sigma * scale, "theta": theta}


def objective_unit(semimetric, alpha, scale, precomputed=False):
    """The factor from an engine's Q on data multiplied by ``scale`` to Q in the data's
    units: ``scale ** -alpha`` for the energy semimetric (homogeneous of degree alpha),
    1 for the others (bounded, or of a matrix given as is).

    Parameters
    ----------
    semimetric : str or callable
        The semimetric in use.
    alpha : float
        Exponent of the energy semimetric.
    scale : float
        The factor the data were multiplied by.
    precomputed : bool, default=False
        Whether the fit's input was a precomputed matrix (never rescaled).

    Returns
    -------
    unit : float
        ``inf`` where the factor overflows (reported by the caller).

    Examples
    --------
    >>> objective_unit("energy", 1.0, 0.25), objective_unit("gaussian", 1.0, 0.25)
    (4.0, 1.0)
    """
    if semimetric == "energy" and not precomputed:
        with np.errstate(over="ignore"):
            return float(np.power(np.float64(scale), -float(alpha)))
    return 1.0


def origin_gram(X, gram, semimetric=None, params=None):
    """A function giving the paper's ``x0 = 0`` Gram matrix (TPAMI equation 7) of
    ``X``, the kernel of the spectral start: the engine's ``K = -rho / 2`` (from
    ``gram()``) plus ``(rho(x, 0) + rho(y, 0)) / 2`` for a closed-form semimetric,
    the engine's kernel as it is otherwise (``semimetric=None``: a precomputed, a
    callable or a data-built semimetric). Its memory is checked when it is called.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The fit's (rescaled) data.
    gram : callable
        ``gram()`` gives the engine's kernel matrix, shape (n_samples, n_samples).
    semimetric : str or None, default=None
        The closed-form semimetric of the kernel, or None.
    params : dict or None, default=None
        Its parameters in the units of ``X`` (:func:`scaled_params`).

    Returns
    -------
    build : callable
        ``build()`` returns the Gram matrix, shape (n_samples, n_samples).

    Examples
    --------
    >>> X = np.array([[1.0], [3.0]])
    >>> K = origin_gram(X, lambda: -0.5 * np.abs(X - X.ravel()), "energy", {"alpha": 1.0})()
    >>> K.tolist()  # min(|x|, |y|) for points on a half-line
    [[1.0, 1.0], [1.0, 3.0]]
    """
    def build():
        n = X.shape[0]
        check_fits(16 * n * n, f"the spectral initialisation for n={n}", "init='k-means++'")
        K = gram()
        if semimetric is None:
            return K
        r0 = rho_to_origin(X, semimetric, **params)
        return K + 0.5 * (r0[:, None] + r0[None, :])
    return build


def kernel_rows(X, semimetric, params, feature_map=None):
    """``(rows, semimetric, params)`` whose closed-form semimetric gives a fit's
    kernel: ``X`` itself, or for a semimetric built from the data (its
    ``feature_map``) the rows' features with ``||e - e'||^2`` (energy, alpha = 2),
    its definition.

    Parameters
    ----------
    X : array-like of shape (n_rows, n_features)
        Rows in the fit's (rescaled) units.
    semimetric : str or callable
        The semimetric in use.
    params : dict
        Its parameters in the units of ``X``.
    feature_map : callable or None, default=None
        The fit's feature map (:class:`~kgroups._semimetrics.neighbors.
        NeighborGraphMap`), None for a closed-form semimetric.

    Returns
    -------
    rows : ndarray of shape (n_rows, n_features) or (n_rows, n_columns)
    semimetric : str or callable
    params : dict

    Examples
    --------
    >>> rows, name, params = kernel_rows(np.zeros((2, 1)), "energy", {"alpha": 1.0})
    >>> rows.shape, name, params
    ((2, 1), 'energy', {'alpha': 1.0})
    """
    if feature_map is not None:
        return feature_map(X), "energy", {"alpha": 2.0}
    return X, semimetric, params
