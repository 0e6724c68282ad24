"""Relabellings of a permutation test: each row of uniform keys sorted, the group codes
read in that order, the rows on every core.

Sorting a row of ``n`` distinct keys gives a uniform random permutation of ``n``
points; reading the codes in that order keeps the group sizes. The sort is stable, so
the permutation is a function of the keys alone, whichever sorts the row (NumPy's
sort for a small batch, a compiled bucket sort on every core otherwise):
ties between keys drawn uniformly in [0, 1) are about as rare as ``n^2 / 2^54``, and
a stable sort breaks them by position.
"""

import numpy as np

from .jit import njit
from .parallel import PARALLEL_MIN_WORK, spread, workers


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
    if B * n < PARALLEL_MIN_WORK:  # a few milliseconds of NumPy's sort: numba not loaded
        return codes[np.argsort(keys, axis=1, kind="stable")]
    out = np.empty(keys.shape, dtype=np.int64)
    spread(permuted_rows, B, workers(B * n), keys, codes, out)
    return out


@njit(cache=True, nogil=True)
def permuted_rows(keys, codes, out, lo, hi):
    """:func:`permuted_codes`'s rows ``lo .. hi - 1``: each row's indices put in ``n``
    buckets by ``floor(n key)`` (in index order, so equal keys keep it), then an
    insertion sort that moves an index only past larger keys; the keys in [0, 1) of a
    permutation test leave about one index a bucket, so this takes O(n) a row. Keys
    out of [0, 1) go to the end buckets and are still sorted, more slowly."""
    n = keys.shape[1]
    start = np.empty(n + 1, dtype=np.int64)
    idx = np.empty(n, dtype=np.int64)
    for b in range(lo, hi):
        row = keys[b]
        start[:] = 0
        for i in range(n):
            start[_bucket(row[i], n) + 1] += 1
        for j in range(n):
            start[j + 1] += start[j]
        for i in range(n):
            j = _bucket(row[i], n)
            idx[start[j]] = i
            start[j] += 1
        for p in range(1, n):
            v = idx[p]
            key = row[v]
            q = p - 1
            while q >= 0 and row[idx[q]] > key:
                idx[q + 1] = idx[q]
                q -= 1
            idx[q + 1] = v
        for j in range(n):
            out[b, j] = codes[idx[j]]


@njit(cache=True, nogil=True, inline="always")
def _bucket(key, n):
    """The bucket of ``key`` among ``n`` over [0, 1): the end ones for keys out of it."""
    if not key > 0.0:        # NaN too
        return 0
    if not key < 1.0:        # inf too: int() of it is undefined
        return n - 1
    return min(int(key * n), n - 1)
