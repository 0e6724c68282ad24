"""Relabellings of a permutation test: each row of uniform keys sorted, the group codes
read in that order, the rows on every core.

Sorting a row of ``n`` distinct keys gives a uniform random permutation of ``n``
points; reading the codes in that order keeps the group sizes. The sort is stable, so
the permutation is a function of the keys alone, whichever sorts the row (NumPy's
sort where one core is worth it, the compiled merge sort on each core otherwise):
ties between keys drawn uniformly in [0, 1) are about as rare as ``n^2 / 2^54``, and
a stable sort breaks them by position.
"""

import numpy as np

from .jit import njit
from .parallel import spread, workers


def permuted_codes(keys, codes):
    """``codes[argsort(keys[b], stable)]`` for every row ``b`` of ``keys`` (B, n): the
    relabellings of ``codes`` (n integers) that a permutation test reads, shape (B, n).

    >>> permuted_codes(np.array([[0.3, 0.1, 0.2], [0.1, 0.2, 0.3]]), np.array([0, 1, 2]))
    array([[1, 2, 0],
           [0, 1, 2]])
    """
    keys = np.ascontiguousarray(keys, dtype=np.float64)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    B, n = keys.shape
    n_workers = workers(B * n * max(1, int(np.log2(max(n, 2)))))
    if n_workers == 1 or B == 1:  # NumPy's sort, without loading numba
        return codes[np.argsort(keys, axis=1, kind="stable")]
    out = np.empty(keys.shape, dtype=np.int64)
    spread(permuted_rows, B, n_workers, keys, codes, out)
    return out


@njit(cache=True, nogil=True)
def permuted_rows(keys, codes, out, lo, hi):
    """:func:`permuted_codes`'s rows ``lo .. hi - 1``."""
    for b in range(lo, hi):
        order = np.argsort(keys[b], kind="mergesort")
        for j in range(order.shape[0]):
            out[b, j] = codes[order[j]]
