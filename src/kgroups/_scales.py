"""Exact rescaling by powers of two, so that sums of products stay normal float64 numbers.

Data and weights whose magnitudes lie outside :data:`SAFE_MAGNITUDE` are divided by
a power of two (:func:`pow2_scale`, :func:`pow2_weight_scale`), which is exact, and
the statistics computed from them multiplied back. :mod:`kgroups._validation`
re-exports them.
"""

from __future__ import annotations

import numpy as np


# Magnitudes of data and of weights left as they are: products of up to two weights
# and a semimetric value (at most |x - y|^4, alpha <= 2), and sums of up to 1e16
# such terms, stay normal float64 numbers; values outside are rescaled by a power
# of two (exact) and the statistics multiplied back.
SAFE_MAGNITUDE = (1e-30, 1e30)


def pow2_scale(magnitude, safe=SAFE_MAGNITUDE):
    """1.0, or the power of two at or below ``magnitude`` when it lies outside
    ``safe`` (default :data:`SAFE_MAGNITUDE`, where squares, products and sums of
    such values would overflow or underflow float64; float32 storage needs a
    narrower range). Dividing by a power of two is exact, so rescaling with it
    changes no result that did not overflow."""
    lo, hi = safe
    if magnitude == 0.0 or lo <= magnitude <= hi:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(magnitude)[1]) - 1))  # 2**floor(log2 m)


def pow2_weight_scale(w, safe=SAFE_MAGNITUDE):
    """The power of two weights ``w`` (>= 0, some > 0) are divided by (exact, as
    :func:`pow2_scale`): 1.0 when the positive ones lie in ``safe``; the largest's
    :func:`pow2_scale` when that brings the smallest into ``safe``; else (weights
    further apart than ``safe`` is wide) half-way between the binary exponents of the
    largest and the smallest, so that products of two weights stay normal numbers.

    >>> pow2_weight_scale(np.array([1.0, 1e-300])) == 2.0 ** -498
    True
    """
    pos = w[w > 0]
    if not pos.size:
        return 1.0
    big, small = float(pos.max()), float(pos.min())
    c = pow2_scale(big, safe)
    if small / c >= safe[0] and big / c <= safe[1]:
        return c
    middle = (int(np.frexp(big)[1]) + int(np.frexp(small)[1])) // 2
    return float(np.ldexp(1.0, middle))


def pow2_exponent(big):
    """The exponent of the power of two just above each ``big`` (at most twice it; 1
    where it is 0): ``ldexp(x, -e)`` divides by it exactly, below 1 for ``|x| <= big``
    (the power itself may lie past float64: 2**1024 above 1.7e308).

    >>> pow2_exponent(np.array([3.0, 4.0, 0.0, 1.7e308])).tolist()
    [2, 3, 1, 1024]
    """
    big = np.asarray(big, dtype=np.float64)
    return np.frexp(np.where(big > 0, big, 1.0))[1]
