"""Fused, parallel finishing pass for pairwise semimetric blocks.

After one BLAS product ``out = X Y^T`` on centred data, a single pass over the
block turns it into ``scale * wx_i * wy_j * rho(||x_i - y_j||)``, with the
squared distances guarded against cancellation and ``rho`` taken from
:mod:`kgroups._kernels.semimetric` (the one definition every engine uses).
"""

from .jit import njit
from .parallel import spread
from .semimetric import guarded_sq, rho_inplace


def finish_block(out, X, Y, nx, ny, code, alpha, sigma, theta, scale, wx, wy, diag_offset,
                 n_workers):
    """In place: ``out[i, j] = scale wx_i wy_j rho(nx_i + ny_j - 2 out[i, j])``.

    ``nx`` and ``ny`` are the squared norms of the centred rows the product was
    taken on; ``X`` and ``Y`` the original rows, for the exact recomputation by
    direct differences of the pairs whose expansion cancelled
    (:func:`~kgroups._kernels.semimetric.guarded_sq`).

    ``diag_offset >= 0`` marks a block of X against itself starting at that
    row offset: entries with ``j == i + diag_offset`` are set to exactly 0.
    Rows in ``n_workers`` ranges at once (:func:`~kgroups._kernels.parallel.spread`).
    """
    spread(finish_rows, out.shape[0], n_workers, out, X, Y, nx, ny, code, alpha, sigma,
           theta, scale, wx, wy, diag_offset)


@njit(cache=True, nogil=True)
def finish_rows(out, X, Y, nx, ny, code, alpha, sigma, theta, scale, wx, wy, diag_offset,
                lo, hi):
    """:func:`finish_block` of the rows ``lo .. hi - 1``."""
    m = out.shape[1]
    for i in range(lo, hi):
        row = out[i]
        xi = X[i]
        for j in range(m):
            n2 = nx[i] + ny[j]
            row[j] = guarded_sq(n2 - 2.0 * row[j], n2, xi, Y[j])
        rho_inplace(row, m, code, alpha, sigma, theta)
        f = scale * wx[i]
        for j in range(m):
            row[j] = f * wy[j] * row[j]
        if diag_offset >= 0 and 0 <= i + diag_offset < m:
            row[i + diag_offset] = 0.0
