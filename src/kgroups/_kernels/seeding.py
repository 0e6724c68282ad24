"""Kernel k-means++ seeding (:mod:`kgroups._init`, ``init="kernel-k-means++"``).

Greedy D^2 seeding in the kernel's feature space, where the squared distance is
``K(x, x) + K(y, y) - 2 K(x, y)``: each of the k - 1 later seeds is the best of
``n_trials`` candidates drawn with probability proportional to ``w_i`` times the
squared distance to the nearest seed so far (the candidate that lowers the total
of these most), and each point is labelled by its nearest seed.

The random numbers come in: ``u`` holds ``1 + (k - 1) n_trials`` uniforms on
[0, 1), drawn before the seeding, and :func:`draw` turns one uniform into an index
the way ``numpy.random.Generator.choice(n, p=p)`` does (the normalised cumulative
sum, searched from the right), so that a seeding compiled whole
(:func:`kmeanspp_dense`, the dense engine's kernel columns) and the one that asks
an engine for its columns (:func:`kgroups._init._kmeanspp_columns`) pick the same
seeds from the same uniforms: both use :func:`draw`, :func:`trial_score` and
:func:`take_seed`, and the same elementwise arithmetic for a column's distances.
"""

import numpy as np

from .jit import njit


@njit(cache=True)
def draw(pot, u):
    """Index ``i`` with probability ``pot[i] / sum(pot)`` from the uniform ``u``.

    As ``Generator.choice(n, p=pot / pot.sum())``: the first index whose
    normalised cumulative sum exceeds ``u``. When every ``pot`` is zero (all
    points coincide with seeds) the index is uniform, ``floor(u n)``.
    """
    n = pot.shape[0]
    total = 0.0
    for i in range(n):
        total += pot[i]
    if not total > 0.0:
        return min(int(u * n), n - 1)
    cdf = np.empty(n, np.float64)
    acc = 0.0
    for i in range(n):
        acc += pot[i] / total
        cdf[i] = acc
    last = cdf[n - 1]
    for i in range(n):
        cdf[i] /= last
    lo, hi = 0, n  # the first i with cdf[i] > u: numpy.searchsorted(cdf, u, side="right")
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] <= u:
            lo = mid + 1
        else:
            hi = mid
    return min(lo, n - 1)


@njit(cache=True)
def trial_score(w, closest, dc):
    """``sum_i w_i min(closest_i, dc_i)``: what a candidate leaves of the potential."""
    total = 0.0
    for i in range(w.shape[0]):
        total += w[i] * min(closest[i], dc[i])
    return total


@njit(cache=True)
def take_seed(c, closest, dc, labels):
    """Seed ``c`` with squared distances ``dc``: points nearer to it join it."""
    for i in range(closest.shape[0]):
        if dc[i] < closest[i]:
            labels[i] = c
            closest[i] = dc[i]


@njit(cache=True)
def _dense_dists(B, w, kdiag, c, out):
    """Squared feature-space distances to point ``c`` from column ``c`` of
    ``B = diag(w) K diag(w)`` (the engine's ``column(c)``: ``B[:, c] / (w w_c)``)."""
    for y in range(B.shape[0]):
        col = np.float64(B[y, c]) / (w[y] * w[c])
        out[y] = max(kdiag[y] + kdiag[c] - 2.0 * col, 0.0)


@njit(cache=True)
def kmeanspp_dense(B, w, kdiag, u, k, n_trials):
    """Labels of the kernel k-means++ seeding on a dense ``B`` (see module docstring)."""
    n = B.shape[0]
    labels = np.zeros(n, dtype=np.int64)
    closest = np.empty(n, np.float64)
    _dense_dists(B, w, kdiag, draw(w, u[0]), closest)
    pot = np.empty(n, np.float64)
    dc = np.empty(n, np.float64)
    best_dc = np.empty(n, np.float64)
    for c in range(1, k):
        for i in range(n):
            pot[i] = w[i] * closest[i]
        best = np.inf
        for t in range(n_trials):
            _dense_dists(B, w, kdiag, draw(pot, u[1 + (c - 1) * n_trials + t]), dc)
            score = trial_score(w, closest, dc)
            if t == 0 or score < best:
                best = score
                best_dc, dc = dc, best_dc
        take_seed(c, closest, best_dc, labels)
    return labels
