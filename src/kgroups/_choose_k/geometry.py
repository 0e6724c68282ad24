r"""The fits that the default of :func:`~kgroups.choose_k` (``"silhouette+split"``)
judges: :class:`Geometry`, X in one geometry (X itself, a rescaled copy, a
subsample, a reference sample) with the n x n matrix of :math:`\rho` when it fits in
memory, and the fit of every k on it, made once and kept.

**One call of** :class:`~kgroups.KernelKGroups` **per k.** The fixed work of a call
(checking the n x n matrix, building the engine) costs about as much as a few
dozen restarts, so every start of a k runs in the same call, as the rows of
``init``: ``n_init`` starts of kernel k-means++ (:func:`kmeanspp_labels`, seeded
in the kernel's feature space, where the squared distance between two points is
:math:`\rho(x, y)`), and, when the caller gives one, a start that splits a cluster
of the partition of k - 1 in two (so that the fit of k is never worse than that
split). The fit with the lowest within energy :math:`W_k` (TPAMI eq. 13) is kept.
"""

from __future__ import annotations

import numpy as np

from .._semimetrics import pairwise
from .methods import _dense, kgroups, _point_silhouettes_of, _rho_matrix, _semimetric_params

# share of a cluster's points that its 2-cluster fit sees (the rest is tested)
FIT_SHARE = 0.5
# clusters of fewer points are not tested (each half would hold fewer than 10)
SPLIT_MIN = 20
# starts of each 2-cluster fit of a half-cluster
SPLIT_N_INIT = 3
# largest n whose fits run on the n x n matrix (past it, from the coordinates)
FIT_MATRIX_MAX_N = 1500


def kmeanspp_labels(rows, w, k, rng):
    r"""A start of k clusters by kernel k-means++ seeding (Arthur & Vassilvitskii
    2007, in the kernel's feature space).

    The first seed is drawn with probability proportional to the weights; each next
    seed among ``2 + floor(log k)`` candidates drawn with probability proportional
    to :math:`w_i \min_c \rho(x_i, c)` (the squared feature-space distance to the
    nearest seed), the candidate that lowers :math:`\sum_i w_i \min_c \rho(x_i, c)`
    most kept. Every point joins its nearest seed.

    Parameters
    ----------
    rows : callable
        ``rows(idx)`` returns :math:`\rho` between the points ``idx`` and every
        point, an array of shape (len(idx), n_samples).
    w : ndarray of shape (n_samples,)
        Positive weights.
    k : int
        Number of clusters, at most the number of distinct points.
    rng : numpy.random.Generator

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Integers 0..k-1, every one used (seed c is in cluster c).

    Examples
    --------
    >>> x = np.array([0.0, 0.1, 5.0, 5.1])
    >>> D = np.abs(x[:, None] - x[None, :])          # rho of 1-D points
    >>> lab = kmeanspp_labels(lambda idx: D[idx], np.ones(4), 2, np.random.default_rng(0))
    >>> bool(lab[0] == lab[1] != lab[2] == lab[3])
    True
    """
    n = w.size
    trials = 2 + int(np.log(k))
    seeds = [int(rng.choice(n, p=w / w.sum()))]
    R = [rows(seeds)[0]]
    near = R[0].copy()
    for _ in range(1, k):
        q = w * near
        q[seeds] = 0.0
        if not q.sum() > 0:                 # only copies of the seeds are left
            q = np.where(np.isin(np.arange(n), seeds), 0.0, w)
        cand = rng.choice(n, size=trials, p=q / q.sum())
        C = rows(cand)
        b = int(np.argmin(np.minimum(near, C) @ w))
        seeds.append(int(cand[b]))
        R.append(C[b])
        near = np.minimum(near, C[b])
    labels = np.argmin(np.vstack(R), axis=0)
    labels[seeds] = np.arange(k)
    return labels.astype(np.int64)


class Geometry:
    """X in one geometry, its n x n matrix of rho when it fits in memory, and the
    fits of every k on it (kept, so that each k is fitted once).

    ``seed`` keys every random stream (:meth:`rng`), so that a k's fit does not
    depend on which k were fitted before it.
    """

    def __init__(self, Z, w, params, opts, seed, matrix=True):
        self.Z, self.w, self.params, self.opts, self.seed = Z, w, params, opts, seed
        n = Z.shape[0]
        self.D = _rho_matrix(Z, params) if matrix and _dense(n, params) else None
        # the fits run on the matrix up to FIT_MATRIX_MAX_N points, from the coordinates
        # past it (the engine chosen for them is faster than a dense kernel there)
        self.on_matrix = self.D is not None and n <= FIT_MATRIX_MAX_N
        self.fits, self.sil = {}, {}
        self.grown = set()      # the k whose fit had its start from the split of k - 1

    def rng(self, *key):
        """A random stream of its own for each key (k, purpose): the same whatever
        the range."""
        return np.random.default_rng([self.seed, *key])

    def rows(self, idx):
        """rho between the points ``idx`` and every point, shape (len(idx), n)."""
        idx = np.asarray(idx)
        if self.D is not None:
            return self.D[idx]
        return pairwise(self.Z[idx], self.Z, **_semimetric_params(self.params))

    def _run(self, k, idx=None, **kw):
        if self.on_matrix:
            est = self.params["estimator"](int(k), semimetric="precomputed", **kw)
            data = self.D if idx is None else self.D[np.ix_(idx, idx)]
        else:
            est = kgroups(self.params, k, **kw)
            data = self.Z if idx is None else self.Z[idx]
        return est.fit(data, sample_weight=self.w if idx is None else self.w[idx])

    def within_one(self):
        r""":math:`W_1`: with the matrix :math:`w^\top D w / (2 s)` (TPAMI eq. 13)."""
        if self.D is not None:
            return float(self.w @ self.D @ self.w) / (2.0 * self.w.sum())
        return self._run(1, n_init=1, random_state=0).within_energy_

    def fit(self, k, start=None, n_init=None):
        """Labels and W of k clusters, from one call: ``n_init`` kernel k-means++
        starts (default ``opts["n_init"]``; none when k was fitted before) and
        ``start`` (labels) when given; the lowest W found so far is kept."""
        have = self.fits.get(k)
        starts = [] if start is None or np.unique(start).size != k else [start]
        if have is None:
            rng = self.rng(k, 0)
            n_init = self.opts["n_init"] if n_init is None else n_init
            starts += [kmeanspp_labels(self.rows, self.w, k, rng) for _ in range(n_init)]
        if starts:
            est = self._run(k, init=np.vstack(starts))
            if have is None or est.within_energy_ < have[1]:
                have = (est.labels_, float(est.within_energy_))
                self.sil.pop(k, None)
        self.fits[k] = have
        return have

    def grow(self, k, n_init=None):
        """The fit of k (made once): ``n_init`` starts (default ``opts["n_init"]``) and,
        when k - 1 was fitted, a start that splits the heaviest cluster of its partition
        along its line (:meth:`bisect`), so that the fit of k is never worse than that
        split."""
        if k in self.grown:
            return self.fits[k]
        prev = self.fits.get(k - 1)
        start = None
        if prev is not None:
            j = int(np.argmax(np.bincount(prev[0], weights=self.w)))
            start = self.bisect(prev[0], j, self.rng(k, 2), test=False)[1]
        self.grown.add(k)
        return self.fit(k, start, n_init)

    def point_silhouettes(self, k):
        """The silhouette of every point in the kept fit of k (on rho)."""
        if k not in self.sil:
            self.sil[k] = _point_silhouettes_of(self.Z, self.w, np.array([k]), [self.fits[k][0]],
                                                _semimetric_params(self.params), self.D)[0]
        return self.sil[k]

    def silhouette(self, k):
        """Weighted mean silhouette of the kept fit of k (on rho)."""
        return float(self.w @ self.point_silhouettes(k) / self.w.sum())

    def silhouette_se(self, k, best):
        r"""The standard error of the mean silhouette of k minus that of ``best``,
        paired over the points: of the differences :math:`d_i = s_i(k) -
        s_i(\mathrm{best})` with weights :math:`w_i`, :math:`\sqrt{\sum_i w_i (d_i -
        \bar d)^2 / (s (m - 1))}`, :math:`s = \sum_i w_i` and :math:`m` the number of
        points the weights count: :math:`s` itself (integer weights give the value of
        the data with repeated rows), or Kish's effective number :math:`s^2 / \sum_i
        w_i^2` when that is larger (weights that add up to less than the points)."""
        d = self.point_silhouettes(k) - self.point_silhouettes(best)
        w = self.w
        s = float(w.sum())
        m = max(s, s * s / float(w @ w))
        if m <= 1.0:
            return 0.0
        dbar = float(w @ d) / s
        return float(np.sqrt(w @ (d - dbar) ** 2 / (s * (m - 1.0))))

    def _line(self, labels, j, rng):
        """The line of cluster j: a 2-cluster fit of a random half of its points;
        ``(idx, B, v, mid)``, idx its points, B the held-out half, v the difference
        of the fitted half's two means and mid their midpoint's projection on v, or
        None for a cluster too small to test or a fit that finds one cluster."""
        idx = np.flatnonzero(labels == j)
        if idx.size < SPLIT_MIN:
            return None
        perm = rng.permutation(idx)
        m = int(round(FIT_SHARE * idx.size))
        A, B = np.sort(perm[:m]), np.sort(perm[m:])
        half = self._run(2, A, n_init=SPLIT_N_INIT,
                         random_state=int(rng.integers(2**31 - 1))).labels_
        if np.unique(half).size < 2:
            return None
        means = [np.average(self.Z[A][half == h], axis=0, weights=self.w[A][half == h])
                 for h in (0, 1)]
        v = means[1] - means[0]
        if not np.any(v):
            return None
        return idx, B, v, 0.5 * (means[0] + means[1]) @ v

    def line_dip(self, labels, j, rng):
        """The dip test of cluster j's held-out half along its line (:meth:`bisect`'s
        test): ``(D, p)``, the dip statistic and its p-value; ``(0.0, 1.0)`` for a
        cluster too small to test."""
        from .dip import dip_test

        line = self._line(labels, j, rng)
        if line is None:
            return 0.0, 1.0
        _, B, v, _ = line
        d, p = dip_test(self.Z[B] @ v)
        return float(d), float(p)

    def bisect(self, labels, j, rng, test=True):
        """Split cluster j: a 2-cluster fit of a random half of it; the held-out half's
        projection on the line through the two halves' means, its dip p-value, and
        the labels with cluster j cut at the midpoint of that line (a start for one
        more cluster). ``(1.0, None)`` for a cluster too small to test."""
        from .dip import dip_test

        line = self._line(labels, j, rng)
        if line is None:
            return 1.0, None
        idx, B, v, mid = line
        p = dip_test(self.Z[B] @ v)[1] if test else 1.0
        start = labels.copy()
        start[idx[self.Z[idx] @ v > mid]] = labels.max() + 1
        return p, start
