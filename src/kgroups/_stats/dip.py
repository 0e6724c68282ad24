r"""Hartigan's dip test of unimodality, for the split test of :func:`~kgroups.choose_k`.

The **dip** of a sample (Hartigan & Hartigan, Ann. Statist. 13(1), 1985, section 2)
is the largest distance, in the sup norm, between its empirical distribution
function :math:`F_n` and the closest unimodal distribution function:

.. math:: D(F_n) = \inf_{G \text{ unimodal}} \sup_x |F_n(x) - G(x)|,

:math:`G` unimodal when it is convex left of a modal interval, linear on it and
concave right of it. :func:`dip` computes it exactly by the algorithm of Hartigan
(Appl. Statist. 34(3), 1985, algorithm AS 217): the greatest convex minorant and
least concave majorant of :math:`F_n` over a shrinking modal interval
:math:`[x_L, x_U]`, whose largest gap bounds the dip from below, until the gap is
no larger than the dip found outside the interval. O(n) after sorting.

**The p-value.** Among unimodal distributions the uniform is the least favourable
(Hartigan & Hartigan, Theorem 5: :math:`\sqrt n\, D` is stochastically largest for
it, asymptotically), so the test compares :math:`\sqrt n\, D` with its distribution
for n uniform points: :data:`DIP_QUANTILES` holds, for each n of :data:`DIP_N`, the
quantiles of :math:`\sqrt n\, D` at the upper-tail probabilities
:data:`DIP_TAILS`, from 40,000 uniform samples each
(``benchmarks/bench_choose_k_dip.py`` draws them again and checks the p-values);
:func:`dip_pvalue` interpolates linearly in :math:`\log n` and in :math:`\log p`
between them, and clips at the smallest and largest tail probability.

**Ties** (rounded data, repeated rows) make :math:`F_n` a staircase, which is far
from every unimodal G; a run of m equal values is read as m values spread evenly
over the half-gaps to its neighbours (the data rounded to that precision), so
that ties alone never look multimodal.

**Margins** (:func:`margins`) are the view of two groups of points that the dip reads
for a gap between them in the space, straight or curved, where a projection on a line
reads a valley across that line.

References
----------
.. [1] J. A. Hartigan and P. M. Hartigan, "The dip test of unimodality", Ann.
   Statist. 13(1), 70-84, 1985.
.. [2] P. M. Hartigan, "Algorithm AS 217: computation of the dip statistic to test
   for unimodality", Appl. Statist. 34(3), 320-325, 1985.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree
from sklearn.neighbors import NearestNeighbors

from .._rescale import column_moments

# margins() finds nearest rows with a k-d tree up to this many columns (where its pruning
# beats a brute-force search; both give the exact Euclidean distances)
KD_TREE_MAX_DIM = 8

# n of the rows of DIP_QUANTILES
DIP_N = (10, 20, 30, 50, 100, 200, 500, 1000, 2000)
# upper-tail probabilities of the columns of DIP_QUANTILES
DIP_TAILS = (0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001, 0.0005, 0.0002)
# DIP_QUANTILES[i][j]: the quantile of sqrt(n) * dip of n = DIP_N[i] uniform points
# exceeded with probability DIP_TAILS[j] (benchmarks/bench_choose_k_dip.py)
DIP_QUANTILES = (
    (0.3091, 0.3752, 0.4123, 0.4421, 0.4765, 0.5033, 0.5307, 0.5531, 0.5715, 0.5887, 0.6022),
    (0.3283, 0.3951, 0.4348, 0.4700, 0.5126, 0.5385, 0.5635, 0.5922, 0.6146, 0.6318, 0.6716),
    (0.3365, 0.4045, 0.4463, 0.4826, 0.5265, 0.5546, 0.5810, 0.6153, 0.6412, 0.6658, 0.6989),
    (0.3462, 0.4170, 0.4586, 0.4973, 0.5417, 0.5715, 0.6028, 0.6381, 0.6665, 0.6901, 0.7113),
    (0.3547, 0.4280, 0.4715, 0.5113, 0.5578, 0.5906, 0.6215, 0.6578, 0.6906, 0.7101, 0.7453),
    (0.3610, 0.4341, 0.4791, 0.5196, 0.5682, 0.6037, 0.6361, 0.6772, 0.7038, 0.7324, 0.7514),
    (0.3682, 0.4435, 0.4896, 0.5304, 0.5777, 0.6123, 0.6465, 0.6895, 0.7175, 0.7458, 0.7742),
    (0.3715, 0.4471, 0.4925, 0.5350, 0.5881, 0.6231, 0.6537, 0.6934, 0.7189, 0.7363, 0.7677),
    (0.3737, 0.4498, 0.4965, 0.5390, 0.5898, 0.6253, 0.6571, 0.7012, 0.7236, 0.7466, 0.7883),
)


def _hulls(x):
    """Predecessors on the greatest convex minorant of each prefix and successors on
    the least concave majorant of each suffix of the points (x_i, i)."""
    n = len(x)
    mn = [0] * n
    for j in range(1, n):
        mn[j] = j - 1
        while True:
            a = mn[j]
            b = mn[a]
            if a == 0 or (x[j] - x[a]) * (a - b) < (x[a] - x[b]) * (j - a):
                break
            mn[j] = b
    mj = [n - 1] * n
    for k in range(n - 2, -1, -1):
        mj[k] = k + 1
        while True:
            a = mj[k]
            b = mj[a]
            if a == n - 1 or (x[k] - x[a]) * (a - b) < (x[a] - x[b]) * (k - a):
                break
            mj[k] = b
    return mn, mj


def _largest_gap(x, gcm, ng, lcm, nl):
    """Largest vertical gap between the convex minorant (``gcm[ng..0]``, left to
    right) and the concave majorant (``lcm[0..nl]``) over the modal interval, and the
    positions in each list of the points where it is reached (AS 217, step 3)."""
    ig, ih, ix, iv, d = ng, nl, ng - 1, 1, 0.0
    if ng == 1 and nl == 1:
        return 1.0, ig, ih
    while True:
        gx, lv = gcm[ix], lcm[iv]
        if gx > lv:
            g1 = gcm[ix + 1]
            dx = (lv - g1 + 1) - (x[lv] - x[g1]) * (gx - g1) / (x[gx] - x[g1])
            iv += 1
            if dx >= d:
                d, ig, ih = dx, ix + 1, iv - 1
        else:
            l1 = lcm[iv - 1]
            dx = (x[gx] - x[l1]) * (lv - l1) / (x[lv] - x[l1]) - (gx - l1 - 1)
            ix -= 1
            if dx > d:
                d, ig, ih = dx, ix + 1, iv
        ix = max(ix, 0)
        iv = min(iv, nl)
        if gcm[ix] == lcm[iv]:
            return d, ig, ih


def _outside_gap(x, hull, first, last, convex):
    """Largest distance between the empirical function and one hull over the hull's
    segments ``first .. last`` (AS 217, step 4)."""
    out = 0.0
    for j in range(first, last):
        jb, je = (hull[j + 1], hull[j]) if convex else (hull[j], hull[j + 1])
        if je - jb > 1 and x[je] != x[jb]:
            c = (je - jb) / (x[je] - x[jb])
            for jj in range(jb, je + 1):
                t = ((jj - jb + 1) - (x[jj] - x[jb]) * c if convex
                     else (x[jj] - x[jb]) * c - (jj - jb - 1))
                out = max(out, t)
    return out


def _dip_sorted(x):
    """The dip of the sorted list ``x`` (distinct values), in units of 1/n."""
    n = len(x)
    mn, mj = _hulls(x)
    low, high, dip = 0, n - 1, 1.0
    while True:
        gcm, lcm = [high], [low]
        while gcm[-1] > low:
            gcm.append(mn[gcm[-1]])
        while lcm[-1] < high:
            lcm.append(mj[lcm[-1]])
        ng, nl = len(gcm) - 1, len(lcm) - 1
        d, ig, ih = _largest_gap(x, gcm, ng, lcm, nl)
        if d < dip:
            return dip
        dip = max(dip, _outside_gap(x, gcm, ig, ng, True), _outside_gap(x, lcm, ih, nl, False))
        if low == gcm[ig] and high == lcm[ih]:
            return dip
        low, high = gcm[ig], lcm[ih]


def spread_ties(x):
    """The sorted values of ``x`` with each run of equal values spread evenly over the
    half-gaps to its neighbouring values (one value alone stays where it is).

    Examples
    --------
    >>> spread_ties([0.0, 1.0, 1.0, 2.0]).tolist()
    [0.0, 0.75, 1.25, 2.0]
    """
    x = np.sort(np.asarray(x, dtype=np.float64))
    values, start, counts = np.unique(x, return_index=True, return_counts=True)
    if values.size == x.size or values.size < 2:
        return x
    gaps = np.diff(values)
    left = np.concatenate([[gaps[0]], gaps]) / 2.0
    right = np.concatenate([gaps, [gaps[-1]]]) / 2.0
    out = x.copy()
    for v, s, m, a, b in zip(values, start, counts, left, right):
        if m > 1:
            out[s:s + m] = v - a + (a + b) * (np.arange(m) + 0.5) / m
    return out


def read_to_precision(X, seed, max_step=1.0, w=None, level=None):
    """X as measured to its precision, for the dip tests of its projections: each
    column with repeated values whose median step between consecutive distinct values,
    ``h``, is at most ``max_step`` standard deviations gets every value spread
    uniformly over its rounding cell (``h`` wide; the draws seeded by ``seed``); so do
    the codes (columns of two values, or of wider steps) that :func:`codes_alone` finds
    unrelated to the other columns at ``level`` (rows of weights ``w``; no code where
    ``level`` is None); the other columns stay as they are (X itself, not a copy, where
    none is spread).

    The dip test assumes a continuous law. Rounded columns are not continuous:
    projected together, their repeated values fall in a comb of uneven gaps, which the
    dip reads as modes however unimodal the data measured. The median step is the
    rounding of a column on a grid, and the spacing of a continuous column with a few
    repeated values (spread then about as :func:`spread_ties` spreads a run). A code
    (binary or ordinal) keeps its atoms where the other columns change with it: its
    levels are then groups of rows that differ elsewhere too. A code unrelated to the
    rest is read to its precision: along a line near it (a 2-cluster fit of independent
    fair bits splits along one) its levels are modes whatever the rows do.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> X = np.c_[np.round(rng.normal(size=50) * 4), rng.integers(0, 2, 50)]
    >>> T = read_to_precision(X, seed=1)
    >>> bool(np.abs(T[:, 0] - X[:, 0]).max() <= 0.5), bool(np.all(T[:, 1] == X[:, 1]))
    (True, True)
    >>> bool(np.all(read_to_precision(X, seed=1, level=0.01)[:, 1] != X[:, 1]))
    True
    """
    X = T = np.asarray(X, dtype=np.float64)
    rng = np.random.default_rng([seed, 29])
    steps, codes = {}, []
    for j in range(X.shape[1]):
        values = np.unique(X[:, j])
        if 2 <= values.size < X.shape[0]:
            steps[j] = h = np.median(np.diff(values))
            if values.size == 2 or h > max_step * X[:, j].std():
                codes.append(j)
    if codes:
        alone = [] if level is None else codes_alone(X, codes, w, level)
        steps = {j: h for j, h in steps.items() if j not in codes or j in alone}
    for j, h in steps.items():
        T = X.copy() if T is X else T
        T[:, j] += h * (rng.random(X.shape[0]) - 0.5)
    return T


def codes_alone(X, codes, w=None, level=0.01):
    r"""The columns of ``codes`` that no linear combination of X's other columns
    predicts: those where the F test of :math:`R_j^2`, the share of column j's
    (weighted) variance the others explain, has a p-value of at least ``level``
    divided by the number of codes tested (Bonferroni), on the effective size of the
    weights ``w``. :math:`R_j^2 = 1 - 1 / (\rho^{-1})_{jj}`, :math:`\rho` the
    correlation matrix of the columns that vary (:func:`~kgroups._rescale.column_moments`;
    a ridge of :math:`10^{-12} d` on its diagonal: a column exactly predicted, as one-hot
    codes are, has :math:`R_j^2` of 1 but for rounding). Every code is alone where no other column varies, none where the
    effective size leaves no degree of freedom (so the matrix has fewer columns than X
    has rows, and is smaller than the rows' own Gram matrix).

    >>> rng = np.random.default_rng(0)
    >>> b = rng.integers(0, 2, (400, 3)).astype(float)
    >>> codes_alone(np.c_[b, b[:, 0] + rng.normal(0, 0.3, 400)], [0, 1, 2])
    [1, 2]
    """
    from scipy.stats import f as f_law

    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    mean, sd, varies = column_moments(X, w)
    varies = np.flatnonzero(varies)
    others, n = varies.size - 1, effective_size(w)
    if others < 1 or n - others - 1 < 1:
        return list(codes) if others < 1 else []
    Z = (X[:, varies] - mean[varies]) / sd[varies]
    lam, V = np.linalg.eigh((Z * (w / w.sum())[:, None]).T @ Z)           # rho
    inv = (V ** 2) @ (1.0 / (np.maximum(lam, 0.0) + 1e-12 * varies.size))  # (rho^-1)_jj
    r2 = np.clip(1.0 - 1.0 / np.maximum(inv, 1.0), 0.0, 1.0)
    F = (r2 / others) / np.maximum(1.0 - r2, 1e-300) * (n - others - 1)
    p = dict(zip(varies.tolist(), f_law.sf(F, others, n - others - 1)))
    return [j for j in codes if p.get(j, 0.0) >= level / len(codes)]


def dip(x):
    r"""Hartigan's dip of a sample: the sup-norm distance from its empirical
    distribution function to the closest unimodal one.

    Parameters
    ----------
    x : array-like of shape (n,)
        The sample (any order). The dip does not change under an affine map, so it is
        read on the sample mapped onto [0, 1], where values within 1e-9 of the one
        before (a sum rounded two ways) join its tie, and ties are spread
        (:func:`spread_ties`) at least 1e-9 / (2 x run length) apart.

    Returns
    -------
    dip : float
        In [1 / (2n), 1/4]; 0 for fewer than 4 distinct values.

    Examples
    --------
    Two tight groups of three points are nearly as far from unimodal as a sample
    can be (two point masses of equal weight: 1/4):

    >>> round(dip([0.0, 0.1, 0.2, 10.0, 10.1, 10.2]), 4)
    0.245
    >>> x = np.random.default_rng(0).normal(size=1000)
    >>> round(dip(x), 4) < 0.02
    True
    """
    x = np.sort(np.asarray(x, dtype=np.float64).ravel())
    if x.size and x[-1] > x[0]:
        u = (x - x[0]) / (x[-1] - x[0])
        tie = np.r_[False, np.diff(u) <= 1e-9]
        x = u[np.maximum.accumulate(np.where(tie, 0, np.arange(u.size)))]
    x = spread_ties(x)
    if np.unique(x).size < 4:
        return 0.0
    return _dip_sorted(x.tolist()) / (2.0 * x.size)


def dip_pvalue(d, n):
    r"""Probability that n uniform points have a dip of at least ``d``, interpolated in
    :data:`DIP_QUANTILES` (the rows of n = 10 and 2000 serve below and above).

    Parameters
    ----------
    d : float
        A dip (:func:`dip`).
    n : int
        The sample size.

    Returns
    -------
    p : float
        In [min(DIP_TAILS), 1]: ``min(DIP_TAILS)`` past the last quantile, and 1
        when :math:`\sqrt n\, d` is below the median (a dip as small as that of
        most uniform samples).

    Examples
    --------
    >>> dip_pvalue(0.25, 100) == min(DIP_TAILS)
    True
    >>> dip_pvalue(0.0, 100)
    1.0
    """
    q = np.asarray(DIP_QUANTILES)
    logn = np.log(np.clip(n, DIP_N[0], DIP_N[-1]))
    row = np.array([np.interp(logn, np.log(DIP_N), q[:, j]) for j in range(q.shape[1])])
    s = np.sqrt(n) * d
    if s < row[0]:
        return 1.0
    if s >= row[-1]:
        return float(DIP_TAILS[-1])
    return float(np.exp(np.interp(s, row, np.log(DIP_TAILS))))


def effective_size(w):
    r"""The effective size of a sample of weights ``w`` (Kish): :math:`(\sum w)^2 /
    \sum w^2` rounded, at least 1, the number of points :func:`effective_sample` reads.

    >>> effective_size(np.full(5, 30.0)), effective_size(np.r_[np.ones(60), np.full(60, 3.0)])
    (5, 96)
    """
    w = np.asarray(w, dtype=np.float64)
    return max(1, int(round(w.sum() ** 2 / (w @ w))))


def effective_sample(x, w):
    r"""The weighted sample ``(x, w)`` as an unweighted one of its effective size
    :math:`m = (\sum w)^2 / \sum w^2` (Kish): its weighted distribution's quantiles at
    :math:`(i - 1/2) / m`, :math:`i = 1, \dots, m`. Equal weights give ``x`` sorted.

    Examples
    --------
    >>> effective_sample([3.0, 1.0, 2.0], [1.0, 1.0, 1.0]).tolist()
    [1.0, 2.0, 3.0]
    >>> effective_sample([0.0, 1.0], [3.0, 1.0]).tolist()    # m = 16 / 10
    [0.0, 0.0]
    """
    x, w = np.asarray(x, dtype=np.float64).ravel(), np.asarray(w, dtype=np.float64).ravel()
    order = np.argsort(x, kind="stable")
    cum = np.cumsum(w[order]) / w.sum()
    m = effective_size(w)
    at = np.searchsorted(cum, (np.arange(m) + 0.5) / m)
    return x[order][np.minimum(at, x.size - 1)]


def dip_test(x, w=None):
    """``(dip, p-value)`` of a sample against the uniform (:func:`dip`,
    :func:`dip_pvalue`); with weights ``w``, of its :func:`effective_sample`: a point
    of weight m reads as one point where all weigh m, and as m of another where the
    others weigh 1.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> d, p = dip_test(np.r_[rng.normal(size=200), rng.normal(size=200) + 5.0])
    >>> p < 0.001
    True
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    if w is not None and np.ptp(w) > 0:
        x = effective_sample(x, w)
    d = dip(x)
    return d, dip_pvalue(d, x.size)


def margins(A, B):
    r"""Each row of ``A``, then of ``B``: its Euclidean distance to the nearest row of the
    other group less that to the nearest other row of its own (0 for a row alone), turned
    negative for B's rows. A gap between the groups, straight or curved, keeps every
    margin from 0: two modes. A cut through one cloud does not: the rows at the cut have
    margins near 0, and more of them lie deeper on the denser side (one mode); nor does a
    cut across a long shape, an arc cut in two (the margins spread from the cut). A
    shape that bends back on itself (most of a ring) brings its far ends near the other
    part: its margins may show two modes.

    Examples
    --------
    >>> margins(np.array([[0.0], [1.0]]), np.array([[4.0], [6.0]])).tolist()
    [3.0, 2.0, -1.0, -3.0]
    """
    return np.concatenate([_nearest(A, B, False) - _nearest(A, A, True),
                           _nearest(B, B, True) - _nearest(B, A, False)])


def _neighbors(P, Q, k):
    """The distances and indices of the ``k`` nearest rows of Q to each row of P,
    nearest first (arrays of shape (len(P), k)): a k-d tree in few dimensions, where it
    prunes well, else scikit-learn's search."""
    if Q.shape[1] <= KD_TREE_MAX_DIM:
        return cKDTree(Q).query(P, k=list(range(1, k + 1)))
    return NearestNeighbors(n_neighbors=k).fit(Q).kneighbors(P)


def _nearest(P, Q, own):
    """Each row of P's distance to the nearest row of Q; ``own`` (Q is P): to the
    nearest other row (0 for a row alone)."""
    if own and P.shape[0] == 1:
        return np.zeros(1)
    return _neighbors(P, Q, 1 + own)[0][:, -1]


def path_margins(A, B, n_neighbors=10):
    r""":func:`margins` measured along the data: each row's distance to the other group
    is its shortest path on the graph of each row's ``n_neighbors`` nearest rows (of A
    and B together, edges of Euclidean length), less its Euclidean distance to the
    nearest other row of its own; negative for B's rows. Along a curve the path to a
    cut grows as the arc, so a curve cut in two has margins spread evenly from the cut
    (one mode) however it bends; straight-line :func:`margins` grow more slowly than
    the arc where the curve bends back (the halves of a ring, the arches of a wave) and
    pile up away from the cut. A gap keeps every margin from 0, as before; rows with
    no path to the other group (the graph in pieces) take twice the longer of the
    longest path found and the diagonal of the rows' bounding box.

    Examples
    --------
    >>> A, B = np.array([[0.0], [1.0]]), np.array([[4.0], [6.0]])
    >>> path_margins(A, B, 2).tolist()          # paths of one edge: margins(A, B)
    [3.0, 2.0, -1.0, -3.0]
    >>> path_margins(A, B, 1).tolist()          # no path: 2 x 6, the extent of the rows
    [11.0, 11.0, -10.0, -10.0]
    """
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import dijkstra

    P = np.concatenate([A, B])
    n, na = P.shape[0], A.shape[0]
    k = min(int(n_neighbors), n - 1)
    if k < 1:
        return np.zeros(n)
    dist, idx = _neighbors(P, P, k + 1)
    # a zero length (two equal rows) is an edge still: the sparse graph drops zeros
    length = np.maximum(dist[:, 1:], np.finfo(np.float64).tiny).ravel()
    G = coo_matrix((length, (np.repeat(np.arange(n), k), idx[:, 1:].ravel())), shape=(n, n))
    G = G.tocsr().maximum(G.T.tocsr())
    path = np.empty(n)
    path[:na] = dijkstra(G, directed=False, indices=np.arange(na, n), min_only=True)[:na]
    path[na:] = dijkstra(G, directed=False, indices=np.arange(na), min_only=True)[na:]
    reached = np.isfinite(path)  # beyond every path: twice the longest, or the extent of P
    path[~reached] = 2.0 * max(path[reached].max(initial=0.0),
                               float(np.linalg.norm(np.ptp(P, axis=0))))
    return np.concatenate([path[:na] - _nearest(A, A, True), _nearest(B, B, True) - path[na:]])
