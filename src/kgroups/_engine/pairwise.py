"""Fused, parallel finishing pass for pairwise semimetric blocks.

After one BLAS product ``out = X Y^T`` on centred data, a single pass over the
block turns it into ``scale * wx_i * wy_j * rho(||x_i - y_j||)``.

``||x||^2 + ||y||^2 - 2 x.y`` loses relative accuracy when the two points are
close compared with their norms (duplicates give ~1e-16 instead of 0, which
``r ** alpha`` magnifies). Those pairs, ``d2 < EXACT_BELOW * (|x|^2 + |y|^2)``,
are recomputed exactly from the coordinates, so the relative error of every
``d2`` stays below about ``eps / EXACT_BELOW``.
"""

import numpy as np
from numba import njit, prange

# Semimetric codes (order of kgroups._semimetrics.SEMIMETRICS).
ENERGY, LAPLACIAN, GAUSSIAN, LOCALIZED, SINUSOIDAL = 0, 1, 2, 3, 4
EXACT_BELOW = 1e-4


@njit(cache=True)
def rho_from_sq(d2, code, alpha, sigma, theta):
    """rho as a function of the squared distance ``d2 >= 0``."""
    if code == ENERGY:
        if alpha == 1.0:
            return np.sqrt(d2)
        if alpha == 2.0:
            return d2
        return d2 ** (0.5 * alpha)
    if code == LAPLACIAN:
        return 2.0 - 2.0 * np.exp(-np.sqrt(d2) / (2.0 * sigma))
    if code == GAUSSIAN:
        return 2.0 - 2.0 * np.exp(-d2 / (2.0 * sigma * sigma))
    r = np.sqrt(d2)
    if code == LOCALIZED:
        return d2 * np.exp(-0.5 * r)
    return d2 * theta * np.sin(r / theta)


def _finish_block(out, X, Y, nx, ny, code, alpha, sigma, theta, scale, wx, wy, diag_offset):
    """In place: ``out[i, j] = scale wx_i wy_j rho(nx_i + ny_j - 2 out[i, j])``.

    ``X`` and ``Y`` are the centred rows (for the exact recomputation of close
    pairs), ``nx`` and ``ny`` their squared norms.

    ``diag_offset >= 0`` marks a block of X against itself starting at that
    row offset: entries with ``j == i + diag_offset`` are set to exactly 0.
    """
    n, m = out.shape
    for i in prange(n):
        row = out[i]
        for j in range(m):
            d2 = nx[i] + ny[j] - 2.0 * row[j]
            if d2 < EXACT_BELOW * (nx[i] + ny[j]):
                d2 = 0.0
                for c in range(X.shape[1]):
                    diff = X[i, c] - Y[j, c]
                    d2 += diff * diff
            row[j] = scale * wx[i] * wy[j] * rho_from_sq(d2, code, alpha, sigma, theta)
        if diag_offset >= 0 and 0 <= i + diag_offset < m:
            row[i + diag_offset] = 0.0


finish_block = njit(cache=True, parallel=True)(_finish_block)
finish_block_serial = njit(cache=True)(_finish_block)
