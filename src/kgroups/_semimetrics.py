"""Semimetrics of negative type and the kernels they define.

The semimetrics of França, Rizzo & Vogelstein (TPAMI 2020, eqs. 52-54) and of the
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

Pairwise blocks are computed with norms and one matrix product
(``||x - y||^2 = ||x||^2 + ||y||^2 - 2 x.y`` on data centred by the mean of ``X``),
then transformed in place: no Python loop over pairs.
"""

from __future__ import annotations

import numbers
from typing import Callable

import numpy as np

from ._engine._parallel import pick
from ._engine.pairwise import finish_block, finish_block_serial

SEMIMETRICS = ("energy", "laplacian", "gaussian", "localized", "sinusoidal")

__all__ = ["SEMIMETRICS", "check_semimetric", "pairwise", "rho_to_origin"]


def _check_positive(name, value, semimetric):
    if not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(
            f"{name}={value!r} should be a finite number > 0 for semimetric={semimetric!r}"
        )


def check_semimetric(semimetric, alpha=1.0, sigma=1.0, theta=1.0):
    """Validate a semimetric name (or callable) and its parameters.

    Parameters
    ----------
    semimetric : str or callable
        One of ``SEMIMETRICS``, ``"precomputed"`` or a vectorised callable
        ``f(X_block, Y_block) -> ndarray of shape (len(X_block), len(Y_block))``.
    alpha, sigma, theta : float
        Parameters of ``energy``, ``laplacian``/``gaussian`` and ``sinusoidal``.

    Returns
    -------
    semimetric : str or callable
        The validated semimetric.

    Examples
    --------
    >>> check_semimetric("energy", alpha=0.5)
    'energy'
    """
    if callable(semimetric):
        return semimetric
    allowed = SEMIMETRICS + ("precomputed",)
    if not isinstance(semimetric, str) or semimetric not in allowed:
        raise ValueError(
            f"semimetric={semimetric!r} should be one of {allowed} or a callable"
        )
    if semimetric == "energy":
        if not isinstance(alpha, numbers.Real) or not (0 < alpha <= 2):
            raise ValueError(
                f"alpha={alpha!r} should be in (0, 2] for semimetric='energy'"
            )
    elif semimetric in ("laplacian", "gaussian"):
        _check_positive("sigma", sigma, semimetric)
    elif semimetric == "sinusoidal":
        _check_positive("theta", theta, semimetric)
    return semimetric


def _code(semimetric):
    return SEMIMETRICS.index(semimetric)


# Rows per block in ``pairwise``: bounds the float64 scratch of a block to ~64 MB.
BLOCK_BYTES = 64 * 2**20


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
    parallel pass (:func:`kgroups._engine.pairwise.finish_block`).

    Parameters
    ----------
    X : ndarray of shape (n_x, n_features)
    Y : ndarray of shape (n_y, n_features), default=None
        ``None`` means ``Y = X`` (the diagonal is then exactly 0).
    semimetric : str or callable, default="energy"
        A name of ``SEMIMETRICS`` or a vectorised callable of two 2-D blocks.
    alpha, sigma, theta : float
        Semimetric parameters (see module docstring).
    out : ndarray of shape (n_x, n_y), optional
        Buffer to write into (float64 or float32).
    center : ndarray of shape (n_features,), optional
        Shift applied to both X and Y before the norm trick (default: mean of X).
        Distances do not depend on it; it only limits cancellation error.
    scale : float, default=1.0
    wx, wy : ndarray of shape (n_x,) and (n_y,), optional
        Row and column weights (default: ones).

    Returns
    -------
    rho : ndarray of shape (n_x, n_y)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> float(pairwise(X)[0, 1])
    5.0
    >>> float(pairwise(X, alpha=0.5)[0, 1]) == 5.0 ** 0.5
    True
    """
    same = Y is None
    Y = X if same else Y
    nx_, ny_ = X.shape[0], Y.shape[0]
    wx = np.ones(nx_) if wx is None else np.asarray(wx, dtype=np.float64)
    wy = (wx if same else np.ones(ny_)) if wy is None else np.asarray(wy, dtype=np.float64)
    if out is None:
        out = np.empty((nx_, ny_), dtype=np.float64)
    if callable(semimetric):
        res = np.asarray(semimetric(X, Y), dtype=np.float64)
        if res.shape != (nx_, ny_):
            raise ValueError(
                f"callable semimetric returned shape {res.shape}, expected {(nx_, ny_)}"
            )
        out[...] = scale * wx[:, None] * res * wy[None, :]
        return out
    c = X.mean(axis=0) if center is None else center
    Xc = np.ascontiguousarray(X - c, dtype=np.float64)
    Yc = Xc if same else np.ascontiguousarray(Y - c, dtype=np.float64)
    nx = np.einsum("ij,ij->i", Xc, Xc)
    ny = nx if same else np.einsum("ij,ij->i", Yc, Yc)
    step = max(1, BLOCK_BYTES // (8 * max(ny_, 1)))
    direct = out.dtype == np.float64 and out.flags.c_contiguous
    finish = pick(finish_block_serial, finish_block, nx_ * ny_)
    for a in range(0, nx_, step):
        b = min(nx_, a + step)
        blk = out[a:b] if direct else np.empty((b - a, ny_))
        np.matmul(Xc[a:b], Yc.T, out=blk)
        finish(blk, Xc[a:b], Yc, nx[a:b], ny, _code(semimetric), float(alpha), float(sigma),
                     float(theta), float(scale), wx[a:b], wy, a if same else -1)
        if not direct:
            out[a:b] = blk
    return out


def rho_to_origin(X, semimetric="energy", *, alpha=1.0, sigma=1.0, theta=1.0):
    """``rho(x_i, 0)`` for every row, the paper's base point ``x0 = 0`` (eq. 7).

    Examples
    --------
    >>> import numpy as np
    >>> rho_to_origin(np.array([[3.0, 4.0]])).round(6).tolist()
    [5.0]
    """
    origin = np.zeros((1, X.shape[1]))
    return pairwise(X, origin, semimetric, alpha=alpha, sigma=sigma, theta=theta,
                    center=origin[0])[:, 0]
