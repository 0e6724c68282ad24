r"""Rescaled point data, weighted, integer weights acting as repeated rows: columns
z-scored (:func:`standardize`), and the maps (:class:`Rescaling`) to the columns
z-scored with the constant ones left out (:func:`standardizing`), to the columns at unit
spread within given clusters (:func:`within_standardizing`) and to the principal axes
scaled to unit variance (:func:`principal_axes`, :func:`sphering`), which carry new
points into the same geometry."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._scales import pow2_exponent


@dataclass(frozen=True)
class Rescaling:
    r"""The affine map :math:`z = (x - \mu) P / s` (column by column division) from the
    columns of X to a rescaled geometry of them (:func:`standardizing`,
    :func:`sphering`); called on rows of X's columns, it returns their images."""

    mean: np.ndarray   # (d,)
    axes: np.ndarray   # (d, r): P
    scale: np.ndarray  # (r,): s

    def __call__(self, X):
        return (X - self.mean) @ self.axes / self.scale

    def columns(self, keep):
        """The map to the columns ``keep`` of this one's images only."""
        return Rescaling(self.mean, self.axes[:, keep], self.scale[keep])

    def of_scaled(self, c):
        """The map that takes X where this one takes ``c X`` (``c`` a power of two: the
        images are the same numbers)."""
        return Rescaling(self.mean / c, self.axes, self.scale / c)


def standardizing(X, w=None):
    """The map that z-scores each column of ``X`` (weighted by ``w``), the constant
    columns left out.

    >>> m = standardizing(np.array([[1.0, 5.0], [3.0, 5.0]]))
    >>> m(np.array([[1.0, 5.0], [2.0, 7.0]])).tolist()
    [[-1.0], [0.0]]
    """
    mean, sd, keep = column_moments(X, w)
    return Rescaling(mean, np.eye(mean.size)[:, keep], sd[keep])


def within_standardizing(X, w, labels):
    """The map that divides each column of ``X`` by its spread within the clusters
    ``labels`` (the weighted standard deviation about each row's cluster mean, pooled),
    and those spreads; the columns of no spread within the clusters left out.

    >>> X = np.array([[0.0, 0.0], [0.0, 2.0], [100.0, 0.0], [100.0, 2.0]])
    >>> m, sd = within_standardizing(X, np.ones(4), np.array([0, 0, 1, 1]))
    >>> sd.tolist(), m(X)[:, 0].tolist()
    ([0.0, 1.0], [-1.0, 1.0, -1.0, 1.0])
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.ldexp(w, -pow2_exponent(np.max(w)))          # as column_moments reads them
    e = pow2_exponent(np.max(np.abs(X), axis=0, initial=0.0))
    Z, k = np.ldexp(X, -e), int(labels.max()) + 1
    s = np.bincount(labels, weights=w, minlength=k)
    means = np.stack([np.bincount(labels, weights=w * c, minlength=k) for c in Z.T], 1)
    sd = np.sqrt(w @ (Z - (means / s[:, None])[labels]) ** 2 / w.sum())
    keep = sd > 1e-12 * np.max(np.abs(Z), axis=0, initial=0.0)
    sd = np.ldexp(sd, e)
    return Rescaling(column_moments(X, w)[0], np.eye(X.shape[1])[:, keep], sd[keep]), sd


def column_moments(X, w):
    """Each column's weighted mean and standard deviation, and which are not constant
    (a spread above rounding: 1e-12 of the column's largest ``|x|``). Each column is
    read in units of the power of two just above its largest ``|x|`` and the weights
    likewise (exact: ``ldexp``), so that sums and squares stay normal numbers at any
    magnitude."""
    X = np.asarray(X, dtype=np.float64)
    w = None if w is None else np.ldexp(w, -pow2_exponent(np.max(w)))
    e = pow2_exponent(np.max(np.abs(X), axis=0, initial=0.0))
    Z = np.ldexp(X, -e)
    mean = np.average(Z, axis=0, weights=w)
    sd = np.sqrt(np.average((Z - mean) ** 2, axis=0, weights=w))
    return (np.ldexp(mean, e), np.ldexp(sd, e),
            sd > 1e-12 * np.max(np.abs(Z), axis=0, initial=0.0))


def standardize(X, w=None):
    """``X`` with each column z-scored: mean 0 and standard deviation 1, weighted by
    ``w``; a constant column becomes 0 (:func:`standardizing` leaves it out).

    Examples
    --------
    >>> standardize(np.array([[1.0, 5.0], [3.0, 5.0]])).tolist()
    [[-1.0, 0.0], [1.0, 0.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    mean, sd, keep = column_moments(X, w)
    return (X - mean) / np.where(keep, sd, 1.0) * keep


def principal_axes(X, w):
    """``(mean, Vt, sd)``: the weighted mean, the principal axes (rows of ``Vt``) and
    the standard deviation along each, largest first."""
    mean = w @ X / w.sum()
    Xc = (X - mean) * np.sqrt(w / w.sum())[:, None]
    _, sd, Vt = np.linalg.svd(Xc, full_matrices=False)
    return mean, Vt, sd


def sphering(X, sample_weight=None):
    r"""The map of X to its principal axes, each scaled to unit variance: :math:`(X -
    \bar x) V_r \Lambda_r^{-1/2}` for the weighted covariance :math:`V \Lambda
    V^\top`, the axes of variance below ``1e-10`` of the largest left out (Euclidean
    distances are then Mahalanobis distances of X's covariance).

    >>> X = np.random.default_rng(0).normal(size=(500, 3)) @ [[3, 1, 0], [0, 1, 0], [0, 0, 0]]
    >>> Z = sphering(X)(X)
    >>> Z.shape, np.allclose(Z.T @ Z / 500, np.eye(2))
    ((500, 2), True)
    """
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    mean, Vt, sd = principal_axes(X, w)
    keep = sd > 1e-10 * sd[0] if sd.size and sd[0] > 0 else np.zeros(sd.size, bool)
    return Rescaling(mean, Vt[keep].T, sd[keep])
