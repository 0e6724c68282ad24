r"""Rescaled copies of point data: columns z-scored (:func:`standardize`) and the data
in its principal axes (:func:`principal_axes`, :func:`sphere`), weighted, integer
weights acting as repeated rows."""

from __future__ import annotations

import numpy as np


def standardize(X, w=None, drop_constant=False):
    """``X`` with each column z-scored: mean 0 and standard deviation 1, weighted by
    ``w``; a constant column becomes 0 (left out with ``drop_constant``).

    Examples
    --------
    >>> standardize(np.array([[1.0, 5.0], [3.0, 5.0]])).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    >>> standardize(np.array([[1.0, 5.0], [3.0, 5.0]]), drop_constant=True).tolist()
    [[-1.0], [1.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    mean = np.average(X, axis=0, weights=w)
    sd = np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))
    keep = sd > 1e-12 * max(float(sd.max(initial=0.0)), 1e-300)
    if drop_constant:
        return (X[:, keep] - mean[keep]) / sd[keep]
    return (X - mean) / np.where(keep, sd, 1.0) * keep


def principal_axes(X, w):
    """``(mean, Vt, sd)``: the weighted mean, the principal axes (rows of ``Vt``) and
    the standard deviation along each, largest first."""
    mean = w @ X / w.sum()
    Xc = (X - mean) * np.sqrt(w / w.sum())[:, None]
    _, sd, Vt = np.linalg.svd(Xc, full_matrices=False)
    return mean, Vt, sd


def sphere(X, sample_weight=None):
    r"""X in its principal axes, each scaled to unit variance: :math:`(X - \bar x) V_r
    \Lambda_r^{-1/2}` for the weighted covariance :math:`V \Lambda V^\top`, the axes
    of variance below ``1e-10`` of the largest left out (Euclidean distances are then
    Mahalanobis distances of X's covariance).

    Examples
    --------
    >>> X = np.random.default_rng(0).normal(size=(500, 3)) @ [[3, 1, 0], [0, 1, 0], [0, 0, 0]]
    >>> Z = sphere(X)
    >>> Z.shape, np.allclose(Z.T @ Z / 500, np.eye(2))
    ((500, 2), True)
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    mean, Vt, sd = principal_axes(X, w)
    keep = sd > 1e-10 * sd[0] if sd.size and sd[0] > 0 else np.zeros(sd.size, bool)
    return (X - mean) @ Vt[keep].T / sd[keep]
