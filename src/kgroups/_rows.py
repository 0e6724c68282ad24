"""Rows as points: which rows are the same point (:func:`distinct_rows`), and an order,
a seed and a sample that are functions of the rows' values alone (:func:`canonical`,
:func:`sample_rows`), so that what is drawn from data does not depend on the rows'
order, their container, ``random_state`` or X's units."""

from __future__ import annotations

import zlib

import numpy as np

from ._memory import check_fits
from ._scales import pow2_exponent


def distinct_rows(X, w, what, alternative, sort=False):
    """``(keep, inv, weights)``: the first copy of each distinct row of X, in X's order
    (with ``sort``, in the lexicographic order of the rows' values); each row's place
    among them; their summed weights ``w`` (their copies where None). Rows are compared
    by value (0.0 and -0.0 are one value), from one byte string per row. The memory of
    the sorted copy is checked first (``what`` needs it; ``alternative``: what to use
    where it does not fit).

    >>> X = np.array([[0.0, 1.0], [2.0, 0.0], [-0.0, 1.0]])
    >>> [a.tolist() for a in distinct_rows(X, np.array([1.0, 2.0, 3.0]), "X", "less")]
    [[0, 1], [0, 1, 0], [4.0, 2.0]]
    """
    n, d = X.shape                 # a sorted copy of the rows, indices and inverse
    check_fits(2 * 8 * n * d + 48 * n, f"{what} ({n} x {d})", alternative)
    rows = np.array(X, dtype=np.float64, order="C")
    rows += 0.0                                                 # -0.0 + 0.0 is 0.0
    rows = rows.view(np.dtype((np.void, 8 * d))).ravel()       # each row's bytes, one value
    _, first, inv = np.unique(rows, return_index=True, return_inverse=True)
    order = np.argsort(first)
    if sort:
        order = order[np.lexsort(np.asarray(X, dtype=np.float64)[first[order]].T[::-1])]
    at = np.empty_like(first)
    at[order] = np.arange(first.size)
    inv = at[inv.ravel()]
    return first[order], inv, np.bincount(inv, weights=w, minlength=first.size)


def distinct_count(rows, more_than, what):
    """The number of distinct ``rows``, or a number above ``more_than`` where the first
    rows already hold that many (the common case, without sorting every row); ``what``
    names them in :func:`distinct_rows`'s error."""
    head = distinct_rows(rows[:64 * (more_than + 1)], None, what, "a sample")[0].size
    return head if head > more_than else distinct_rows(rows, None, what, "a sample")[0].size


def projection_key(X):
    """Each row's projection on a direction drawn from the number of columns, summed over
    its own contiguous copy (blocks of rows), so that it rounds the same wherever the row
    sits, whatever X's memory layout or chunks: the key of :func:`canonical`."""
    u, step = np.random.default_rng([X.shape[1], 19]).standard_normal(X.shape[1]), 4096
    X = np.asarray(X, dtype=np.float64)
    return np.concatenate([np.einsum("ij,j->i", np.ascontiguousarray(X[a:a + step]), u)
                           for a in range(0, X.shape[0], step)] or [np.empty(0)])


def canonical(key, w):
    """``(seed, order)``, functions of the rows' values alone, whatever their units: the
    rows ordered by their :func:`projection_key` ``key``, then weight (rows tied on both
    are the same row, up to rounding), and the CRC-32 of the keys and weights in that
    order, read in units of their own (:func:`unitless`), so that a change of X's units
    (a scale and a shift: the keys' too) or a common factor of the weights draws the
    same seed and order, and so the same choice.

    >>> key, w = np.array([3.0, -1.0, 2.5]), np.array([1.0, 2.0, 1.0])
    >>> (seed, order), (other, again) = canonical(key, w), canonical(1e3 * key + 7, 3 * w)
    >>> seed == other, order.tolist() == again.tolist()
    (True, True)
    """
    order = np.lexsort((w, key))
    return zlib.crc32(np.concatenate([unitless(key[order]),
                                      unitless(w[order], shift=False)]).tobytes()), order


def unitless(v, shift=True, bits=24):
    """``v`` less its first entry (with ``shift``) over its largest ``|v - v_0|``,
    rounded to ``bits`` binary digits: the same integers for ``c v + t`` (``c > 0``;
    ``t = 0`` without ``shift``), whose rounding moves the ratios by a few units of
    2**-52, far inside a step of 2**-24.

    >>> unitless(np.array([2.0, 4.0, 3.0])).tolist(), unitless(np.ones(2)).tolist()
    ([0, 16777216, 8388608], [0, 0])
    """
    v = np.asarray(v, dtype=np.float64)
    if not np.isfinite(v).all():       # keys past float64 (X near its limit): their bits
        return v.view(np.int64)
    top = float(np.max(np.abs(v), initial=0.0))
    v = np.ldexp(v, -int(pow2_exponent(top)))                  # |v| < 1, exact
    z = v - v[0] if shift and v.size else v
    span = float(np.max(np.abs(z), initial=0.0))
    return np.round((z / span if span > 0 else z) * 2.0 ** bits).astype(np.int64)


def sample_rows(seed, order, m, stream=0):
    """The one sample of every path that draws rows from data: ``m`` of the rows,
    uniform, drawn from the data's ``seed`` (and ``stream``, for further samples) and
    listed in the ``order`` of :func:`canonical`."""
    n, key = order.size, [seed, 11] if stream == 0 else [seed, 11, stream]
    return order[np.sort(np.random.default_rng(key).choice(n, min(m, n), replace=False))]


def disjoint_samples(seed, order, m, count):
    """Up to ``count`` disjoint samples of ``m`` rows each, as many as the rows hold (one
    at least): the first is :func:`sample_rows`'s, each next one uniform over the rows
    the earlier ones left, each listed in the ``order`` of :func:`canonical`.

    >>> order = np.arange(10)
    >>> a, b = disjoint_samples(7, order, 4, 3)                 # room for two
    >>> a.size, b.size, np.intersect1d(a, b).size, bool((a == sample_rows(7, order, 4)).all())
    (4, 4, 0, True)
    """
    out, left = [], order
    for j in range(max(1, min(count, order.size // max(m, 1)))):
        out.append(sample_rows(seed, left, m, j))
        left = left[~np.isin(left, out[-1])]
    return out
