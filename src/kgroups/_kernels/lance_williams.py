"""numba kernel of energy hierarchical clustering: the Lance-Williams (Ward) recursion.

One kernel, :func:`ward_lance_williams`, a transcription of R's ``hclust.f``
(F. Murtagh's nearest-neighbour-list algorithm, as in R's ``stats::hclust``,
``method="ward.D"``, with its fix for nearest neighbours to the left), 0-based and
on the same condensed storage as R's ``dist`` and SciPy's ``squareform``: the pair
``i < j`` of ``n`` items sits at ``n i - i (i + 1) / 2 + j - i - 1``. The same
comparisons (strict ``<``, first index wins) and the same floating-point
operations in the same order give R's merges, ties included, and R's heights to
the last bit on the same dissimilarities.

Twin: :func:`tests._twins.energy_hclust_twin` recomputes every cluster
pair's e-distance from its definition at each step.
"""

from __future__ import annotations

import numpy as np

from .jit import njit


@njit(cache=True)
def condensed_index(n, i, j):
    """Position of the pair ``i < j`` in the condensed upper triangle."""
    return n * i - (i * (i + 1)) // 2 + j - i - 1


@njit(cache=True)
def _nearest_right(diss, flag, n, i):
    """Nearest active neighbour of ``i`` among ``j > i`` (first on ties) and its value."""
    dmin = 1e300
    jm = 0
    for j in range(i + 1, n):
        if flag[j]:
            d = diss[condensed_index(n, i, j)]
            if d < dmin:
                dmin = d
                jm = j
    return jm, dmin


@njit(cache=True, nogil=True)  # without the GIL: a thread draws the caller's clock
def ward_lance_williams(diss, members, ia, ib, crit):
    """Agglomerate ``n`` items by the Lance-Williams recursion of Ward's method.

    At each of the ``n - 1`` steps the active pair ``(i2, j2)`` of least
    dissimilarity is merged into ``i2`` (``i2 < j2``), and for every other
    active ``k``, with ``m`` the cluster weights,

    ``d(i2 + j2, k) = ((m_i2 + m_k) d(i2, k) + (m_j2 + m_k) d(j2, k) - m_k d(i2, j2))
    / (m_i2 + m_j2 + m_k)``.

    ``diss`` (condensed, float64) and ``members`` (float64, length n) are
    overwritten; ``ia[t] < ib[t]`` receive the representatives merged at step
    ``t`` and ``crit[t]`` its height. Memory: the n(n-1)/2 values and O(n).
    Time: O(n^2) to start; per step O(n) for the update plus O(n) per row whose
    nearest neighbour was one of the merged pairs (O(n^2) per step at worst,
    O(n^3) in all; a few such rows in practice).
    """
    n = members.shape[0]
    flag = np.ones(n, dtype=np.bool_)
    nn = np.zeros(n, dtype=np.int64)
    disnn = np.full(n, 1e300)
    for i in range(n - 1):                         # list of nearest neighbours to the right
        nn[i], disnn[i] = _nearest_right(diss, flag, n, i)
    for step in range(n - 1):
        dmin = 1e300                               # least dissimilarity from the NN list
        im = 0
        jm = 0
        for i in range(n - 1):
            if flag[i] and disnn[i] < dmin:
                dmin = disnn[i]
                im = i
                jm = nn[i]
        i2 = min(im, jm)
        j2 = max(im, jm)
        ia[step] = i2
        ib[step] = j2
        crit[step] = dmin
        flag[j2] = False
        xx = diss[condensed_index(n, i2, j2)]      # Lance-Williams update of row i2
        dmin = 1e300
        jj = 0
        for k in range(n):
            if flag[k] and k != i2:
                ind1 = condensed_index(n, i2, k) if i2 < k else condensed_index(n, k, i2)
                ind2 = condensed_index(n, j2, k) if j2 < k else condensed_index(n, k, j2)
                d = ((members[i2] + members[k]) * diss[ind1]
                     + (members[j2] + members[k]) * diss[ind2] - members[k] * xx)
                d = d / (members[i2] + members[j2] + members[k])
                diss[ind1] = d
                if i2 < k:
                    if d < dmin:
                        dmin = d
                        jj = k
                elif d < disnn[k]:                 # k < i2: i2 may be k's new NN
                    disnn[k] = d
                    nn[k] = i2
        members[i2] = members[i2] + members[j2]
        disnn[i2] = dmin
        nn[i2] = jj
        for i in range(n - 1):                     # rows whose NN was merged
            if flag[i] and (nn[i] == i2 or nn[i] == j2):
                nn[i], disnn[i] = _nearest_right(diss, flag, n, i)
