r"""Energy hierarchical clustering (Székely & Rizzo 2005): Ward's method for e-distances.

For two clusters :math:`A, B` of weighted points, with :math:`s_A = \sum_{x \in A} w_x`
and :math:`g` the weighted mean of the semimetric (TPAMI eq. 13), the **e-distance**
(Székely & Rizzo 2005, eq. 3, with weights) is

.. math:: e(A, B) = \frac{s_A s_B}{s_A + s_B}
          \bigl[2 g(A, B) - g(A, A) - g(B, B)\bigr].

Agglomerating the pair of least e-distance at each step, the e-distance of a merged
cluster follows the **Lance-Williams recursion of Ward's method** (their Theorem 1),
with the cluster weights in place of the sizes:

.. math:: e(I \cup J, K) = \frac{(s_I + s_K)\, e(I, K) + (s_J + s_K)\, e(J, K)
          - s_K\, e(I, J)}{s_I + s_J + s_K}.

*Weights.* Writing :math:`T_{AB} = \sum_{x \in A, y \in B} w_x w_y \rho(x, y)` and
:math:`a_A = T_{AA} / s_A`, the definition reads
:math:`(s_A + s_B)\, e(A, B) = 2 T_{AB} - s_B a_A - s_A a_B`; since
:math:`T_{I \cup J, K} = T_{IK} + T_{JK}` and
:math:`s_{I \cup J}\, a_{I \cup J} = T_{II} + 2 T_{IJ} + T_{JJ}`, both sides of the
recursion times :math:`s_I + s_J + s_K` equal
:math:`2 (T_{IK} + T_{JK}) - (s_I + s_J) a_K - s_K (T_{II} + 2 T_{IJ} + T_{JJ}) /
(s_I + s_J)` for any positive weights. The recursion starts from the e-distance of
two weighted singletons, :math:`e(\{i\}, \{j\}) = 2 w_i w_j \rho_{ij} / (w_i + w_j)`
(:math:`\rho_{ij}` for unit weights). Everything depends on the points only through
:math:`T` and :math:`s`, so integer weights give the hierarchy of repeated rows
(which first merges the copies at height 0).

*Heights.* The height of a merge is the e-distance of the two clusters merged. It is
twice the increase of the within energy :math:`W` (TPAMI eq. 15):
:math:`W(I \cup J) - W(I) - W(J) = e(I, J) / 2`, so the :math:`W` of the partition
into :math:`k` clusters is half the sum of the first :math:`n - k` heights. The
heights never decrease (Ward's coefficients satisfy Milligan's condition).

Conventions against other software:

* R ``energy::energy.hclust(dist(X), alpha)`` is ``hclust(dist(X)^alpha,
  method="ward.D")``: the same recursion on :math:`\rho = \|x - y\|^\alpha`, the same
  heights. Its ``merge`` matrix is 1-based, ``-i`` a singleton and ``+j`` the cluster
  formed at step ``j``; here ``children_`` is scikit-learn's (and SciPy's): ``i < n``
  a leaf, ``n + j`` the cluster formed at step ``j`` (0-based), so R's ``-i`` is
  ``i - 1`` and ``+j`` is ``n + j - 1``; each row is in increasing order, which is
  R's order mapped. The kernel is R's own algorithm (``hclust.f``), so ties are
  broken as R breaks them (``tests/test_hierarchical.py`` checks merges and heights
  on R's output). R's ``hclust(d, "ward.D", members=w)`` is the weighted version
  when ``d`` holds the weighted singleton e-distances above.
* SciPy ``linkage(squareform(rho ** 0.5), method="ward")`` runs Ward's recursion on
  the squares of its input, so its heights are the square roots of
  ``distances_`` (same merges up to ties). In particular, with ``alpha=2``
  (:math:`\rho = \|x - y\|^2`) ``distances_`` are the squares of
  ``linkage(X, method="ward")``'s heights. :meth:`EnergyHierarchical.to_linkage`
  returns ``distances_`` themselves in the linkage matrix.
* scikit-learn's ``AgglomerativeClustering(linkage="ward")`` has SciPy's heights.

*Cost.* The n(n-1)/2 semimetric values are stored (8 bytes each; checked against the
free memory before allocation), plus O(n). The kernel is R's nearest-neighbour-list
algorithm: O(n^2 D) to compute the semimetric, O(n) per merge plus O(n) for each row
whose nearest neighbour was merged: O(n^2) per merge at worst, O(n^3) in all; in
practice a merge leaves few rows to rescan.

References
----------
G. J. Székely, M. L. Rizzo. Hierarchical clustering via joint between-within
distances: extending Ward's minimum variance method. Journal of Classification
22(2), 151-183, 2005. F. Murtagh. Multidimensional clustering algorithms.
COMPSTAT Lectures 4, 1985 (the nearest-neighbour-list algorithm of R's hclust).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_is_fitted

from ._memory import check_fits
from ._reprs import short_repr
from ._kernels.jit import tiered
from ._progress import running
from ._kernels.lance_williams import ward_lance_williams
from ._input import checked_rows, weight_scale
from ._semimetrics import pairwise, robust_center
from ._validation import (
    PARAMETER_CONSTRAINTS,
    ConstrainedParams,
    InvalidParameterError,
    check_n_clusters,
    check_precomputed,
    check_sample_weight,
    pow2_scale,
    validated,
)

_BLOCK_BYTES = 32 * 2**20  # scratch of one row block of semimetric values


def _condensed_from_data(X, semimetric, params):
    """The n(n-1)/2 values ``rho(x_i, x_j)``, ``i < j``, in condensed order, by row blocks."""
    n = X.shape[0]
    out = np.empty(n * (n - 1) // 2)
    centre = robust_center(X)
    step = max(1, _BLOCK_BYTES // (8 * n))
    pos = 0
    for a in range(0, n - 1, step):
        b = min(n - 1, a + step)
        block = pairwise(X[a:b], X[a:], semimetric, center=centre, **params)
        for r in range(b - a):
            row = block[r, r + 1:]
            out[pos:pos + row.size] = row
            pos += row.size
    return out


def _condensed_from_matrix(D):
    n = D.shape[0]
    D = D.toarray() if sp.issparse(D) else D
    return D[np.triu_indices(n, 1)]


def _singleton_e(rho, w):
    """Weighted singleton e-distances ``2 w_i w_j rho_ij / (w_i + w_j)`` (in place)."""
    if np.all(w == 1.0):
        return rho
    i, j = np.triu_indices(w.shape[0], 1)
    rho *= 2.0
    rho *= w[i] * w[j]
    rho /= w[i] + w[j]
    return rho


def _cut(children, n, n_clusters):
    """Labels after the first ``n - n_clusters`` merges, numbered by first appearance."""
    parent = np.arange(2 * n - 1)
    for t in range(n - n_clusters):
        parent[children[t]] = n + t
    root = np.arange(n)
    for _ in range(n):  # follow parents up to the top merged node (depth < n)
        nxt = parent[root]
        if np.array_equal(nxt, root):
            break
        root = nxt
    _, first, codes = np.unique(root, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))
    return order[codes.reshape(-1)].astype(np.int64)


class EnergyHierarchical(ConstrainedParams, ClusterMixin, BaseEstimator):
    r"""Energy hierarchical clustering: Ward's recursion on e-distances (Székely & Rizzo 2005).

    Builds the whole agglomerative tree by merging, at each step, the two clusters
    of least e-distance

    .. math:: e(A, B) = \frac{s_A s_B}{s_A + s_B}\bigl[2 g(A, B) - g(A, A) - g(B, B)\bigr],

    updated by the Lance-Williams recursion of Ward's method with cluster weights
    :math:`s` in place of sizes (the user guide gives the derivation, the
    conventions against R and SciPy, and the cost), then cuts it into ``n_clusters``
    clusters or at ``distance_threshold``. Equals R's
    ``energy::energy.hclust(dist(X), alpha)``, merges and heights.

    Parameters
    ----------
    n_clusters : int or None, default=2
        Number of clusters of ``labels_``; None when ``distance_threshold`` is given.
    distance_threshold : float or None, default=None
        Merges of height ``>= distance_threshold`` are not made (scikit-learn's
        ``AgglomerativeClustering`` rule); requires ``n_clusters=None``.
    semimetric : {"energy", "laplacian", "gaussian", "localized", "sinusoidal", "precomputed"} or callable, default="energy"
        ``"energy"`` is :math:`\|x - y\|^\alpha`; ``"precomputed"``: X is an n x n
        semimetric matrix (dense or scipy.sparse).
    alpha : float, default=1.0
        Exponent of the energy semimetric, in (0, 2] (R's ``alpha``).
    sigma, theta : float, default=1.0
        Parameters of the other named semimetrics.

    Attributes
    ----------
    labels_ : ndarray of shape (n_samples,)
        Cluster of each point, numbered in order of first appearance.
    n_clusters_ : int
        Number of clusters of ``labels_``.
    children_ : ndarray of shape (n_samples - 1, 2)
        Merge ``t`` joins nodes ``children_[t]`` (``i < n``: leaf ``i``; ``n + j``:
        the node of merge ``j``) into node ``n + t``; increasing in each row.
    distances_ : ndarray of shape (n_samples - 1,)
        Height of each merge: the e-distance of the two clusters (R's ``height``;
        SciPy's Ward height squared).
    counts_ : ndarray of shape (n_samples - 1,)
        Number of points under each merge.
    within_energy_ : float
        W of ``labels_``, ``sum(distances_[:n - n_clusters_]) / 2``.
    n_leaves_ : int
        Number of points.
    n_features_in_ : int
        Columns of X seen in ``fit``.

    See Also
    --------
    energy_hclust : The function form.
    HierarchicalResult : What the function form returns.
    KernelKGroups : Flat clustering on the same energy.
    scipy.cluster.hierarchy.linkage : SciPy's hierarchical clustering.

    References
    ----------
    .. [1] G. J. Székely, M. L. Rizzo, "Hierarchical clustering via joint
       between-within distances: extending Ward's minimum variance method", J.
       Classification 22(2), 151-183, 2005.
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 11-16 (W and S).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [3.0], [7.0]])
    >>> h = EnergyHierarchical(n_clusters=2).fit(X)
    >>> h.children_.tolist(), h.distances_.round(4).tolist()
    ([[0, 1], [2, 4], [3, 5]], [1.0, 3.0, 7.5])
    >>> h.labels_.tolist(), float(h.within_energy_)
    ([0, 0, 0, 1], 2.0)
    """

    def __init__(self, n_clusters=2, *, distance_threshold=None, semimetric="energy",
                 alpha=1.0, sigma=1.0, theta=1.0):
        self.n_clusters = n_clusters
        self.distance_threshold = distance_threshold
        self.semimetric = semimetric
        self.alpha = alpha
        self.sigma = sigma
        self.theta = theta

    _parameter_constraints = PARAMETER_CONSTRAINTS["EnergyHierarchical"]

    def _check_params(self, n):
        owner = "EnergyHierarchical"
        self._validate_params()
        if (self.n_clusters is None) == (self.distance_threshold is None):
            raise InvalidParameterError(
                f"{owner}: exactly one of n_clusters={self.n_clusters!r} and "
                f"distance_threshold={self.distance_threshold!r} should be None")
        if self.n_clusters is not None:
            check_n_clusters(self.n_clusters, n, owner)

    def _semimetric_values(self, X, w):
        """Condensed singleton e-distances, after checking that they fit in memory."""
        n = X.shape[0]
        need = 8 * (n * (n - 1) // 2) + (_BLOCK_BYTES if self.semimetric != "precomputed"
                                         else 8 * n * n * sp.issparse(X))
        check_fits(need, f"EnergyHierarchical for n_samples={n} (the n(n-1)/2 semimetric "
                         "values)", "a subsample or KernelKGroups (O(n) memory)")
        if self.semimetric == "precomputed":
            return _singleton_e(_condensed_from_matrix(X), w), 1.0
        factor = 1.0
        if self.semimetric == "energy":  # homogeneous: rescale data of extreme magnitude
            # judged after the exact robust centring: a constant column changes no distance
            c = pow2_scale(float(np.max(np.abs(X - robust_center(X)), initial=0.0)))
            if c != 1.0:
                X, factor = X / c, float(np.float64(c) ** self.alpha)
        params = {"alpha": self.alpha, "sigma": self.sigma, "theta": self.theta}
        try:
            rho = _condensed_from_data(X, self.semimetric, params)
        except InvalidParameterError as exc:  # a callable's NaN, an overflow: say who called
            raise InvalidParameterError(f"EnergyHierarchical: {exc}") from None
        return _singleton_e(rho, w), factor

    def fit(self, X, y=None, sample_weight=None):
        """Build the tree and cut it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data, or a semimetric matrix when ``semimetric="precomputed"``.
        y : None
            Ignored; present for scikit-learn compatibility.
        sample_weight : array-like of shape (n_samples,), default=None
            Positive weights; integer weights give the tree of repeated rows (after
            the copies' merges at height 0).

        Returns
        -------
        self : EnergyHierarchical
            The fitted estimator.

        See Also
        --------
        to_linkage : The tree as a SciPy linkage matrix.
        kgroups.energy_hclust : The function form.

        References
        ----------
        .. [1] G. J. Székely, M. L. Rizzo, "Hierarchical clustering via joint
           between-within distances: extending Ward's minimum variance method", J.
           Classification 22(2), 151-183, 2005.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import EnergyHierarchical
        >>> X = np.array([[0.0], [1.0], [3.0], [7.0]])
        >>> h = EnergyHierarchical(n_clusters=2).fit(X)
        >>> h.labels_.tolist(), h.distances_.round(4).tolist()
        ([0, 0, 0, 1], [1.0, 3.0, 7.5])
        """
        pre = self.semimetric == "precomputed"
        X = checked_rows(self, X, reset=True, accept_sparse="csr" if pre else False,
                         ensure_min_samples=2)
        if pre:
            X = check_precomputed(X, "semimetric", "EnergyHierarchical")
        n = X.shape[0]
        self._check_params(n)
        w = check_sample_weight(sample_weight, n, "EnergyHierarchical")
        # the heights are linear in the weights: extreme weights divided by a power of
        # two (exact) that keeps the products of two weights normal, the heights
        # multiplied back
        wscale = weight_scale(float(w.max()), float(w.min()), "EnergyHierarchical")
        w = w / wscale
        ia, ib = np.zeros(n, np.int64), np.zeros(n, np.int64)
        crit = np.zeros(n)
        # the pairs, and n merges of O(n) each (kgroups._kernels.jit: tiny trees skip numba),
        # a line with its clock on a terminal
        with tiered(2 * n * n), running(f"EnergyHierarchical: the tree of {n} points"):
            diss, factor = self._semimetric_values(X, w)
            ward_lance_williams(diss, w.copy(), ia, ib, crit)
        factor *= wscale
        self.children_, self.counts_ = self._children(ia[:n - 1], ib[:n - 1], n)
        self.distances_ = crit[:n - 1] * factor
        if self.n_clusters is None:
            k = int(np.count_nonzero(self.distances_ >= self.distance_threshold)) + 1
        else:
            k = int(self.n_clusters)
        self.n_clusters_, self.n_leaves_ = k, n
        self.labels_ = _cut(self.children_, n, k)
        self.within_energy_ = float(np.sum(self.distances_[:n - k]) / 2.0)
        return self

    @staticmethod
    def _children(ia, ib, n):
        """Representatives merged at each step -> node ids (R's hcass2, 0-based)."""
        node = np.arange(n)
        size = np.ones(n, np.int64)
        children = np.empty((n - 1, 2), np.int64)
        counts = np.empty(n - 1, np.int64)
        for t in range(n - 1):
            a, b = node[ia[t]], node[ib[t]]
            children[t] = (min(a, b), max(a, b))
            size[ia[t]] += size[ib[t]]
            counts[t] = size[ia[t]]
            node[ia[t]] = n + t
        return children, counts

    def to_linkage(self):
        """The tree as a SciPy linkage matrix ``[child, child, height, count]``.

        Heights are ``distances_`` (e-distances); ``scipy.cluster.hierarchy.dendrogram``
        draws it and ``fcluster(Z, k, "maxclust")`` cuts it.

        Returns
        -------
        Z : ndarray of shape (n_samples - 1, 4)
            Row ``t``: the two clusters merged at step ``t`` (leaves ``< n_samples``,
            the cluster made at step ``u`` is ``n_samples + u``), their merge height
            and the number of leaves under the new cluster.

        See Also
        --------
        scipy.cluster.hierarchy.dendrogram : Draws the tree.
        scipy.cluster.hierarchy.fcluster : Cuts the tree.

        References
        ----------
        .. [1] G. J. Székely, M. L. Rizzo, "Hierarchical clustering via joint
           between-within distances: extending Ward's minimum variance method", J.
           Classification 22(2), 151-183, 2005.

        Examples
        --------
        >>> import numpy as np
        >>> from scipy.cluster.hierarchy import is_valid_linkage
        >>> h = EnergyHierarchical().fit(np.array([[0.0], [1.0], [3.0], [7.0]]))
        >>> bool(is_valid_linkage(h.to_linkage()))
        True
        """
        check_is_fitted(self, "children_")
        return np.column_stack([self.children_.astype(np.float64), self.distances_,
                                self.counts_.astype(np.float64)])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.semimetric == "precomputed"
        return tags


@dataclass
class HierarchicalResult:
    """What :func:`energy_hclust` returns (the attributes of :class:`EnergyHierarchical`).

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Cluster of each point after the cut.
    children : ndarray of shape (n_samples - 1, 2)
        The two nodes each merge joins (``children_`` of the estimator).
    distances : ndarray of shape (n_samples - 1,)
        Height of each merge, the e-distance of the two clusters.
    linkage : ndarray of shape (n_samples - 1, 4)
        The tree as a SciPy linkage matrix
        (:meth:`EnergyHierarchical.to_linkage`).
    n_clusters : int
        Number of clusters of ``labels``.
    within_energy : float
        W of ``labels``.

    See Also
    --------
    energy_hclust : The function that returns it.
    EnergyHierarchical : The estimator; its fitted attributes hold the same.

    References
    ----------
    .. [1] G. J. Székely, M. L. Rizzo, "Hierarchical clustering via joint
       between-within distances: extending Ward's minimum variance method", J.
       Classification 22(2), 151-183, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import energy_hclust
    >>> res = energy_hclust(np.array([[0.0], [1.0], [3.0], [7.0]]), 2)
    >>> res
    HierarchicalResult(n_samples=4, n_clusters=2, within_energy=2)
    >>> res.labels.tolist(), res.linkage.shape
    ([0, 0, 0, 1], (3, 4))
    """

    labels: np.ndarray
    children: np.ndarray
    distances: np.ndarray
    linkage: np.ndarray
    n_clusters: int
    within_energy: float

    def __repr__(self):
        return short_repr(self, n_samples=len(self.labels), n_clusters=self.n_clusters,
                          within_energy=self.within_energy)


@validated
def energy_hclust(X, n_clusters=2, *, sample_weight=None, **params):
    """Function form of :class:`EnergyHierarchical` (same parameters).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Data, or a semimetric matrix with ``semimetric="precomputed"``.
    n_clusters : int, default=2
        Where the tree is cut for ``labels``.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights (integer weights give the tree of repeated rows).
    **params
        The other parameters of :class:`EnergyHierarchical` (``alpha``,
        ``semimetric``, ``distance_threshold``, ...).

    Returns
    -------
    result : HierarchicalResult
        ``labels``, ``children``, ``distances``, the SciPy ``linkage``,
        ``n_clusters`` and ``within_energy`` of the cut.

    See Also
    --------
    EnergyHierarchical : The estimator (same parameters).
    HierarchicalResult : What this function returns.

    References
    ----------
    .. [1] G. J. Székely, M. L. Rizzo, "Hierarchical clustering via joint
       between-within distances: extending Ward's minimum variance method", J.
       Classification 22(2), 151-183, 2005.

    Examples
    --------
    >>> import numpy as np
    >>> res = energy_hclust(np.array([[0.0], [1.0], [3.0], [7.0]]), 3)
    >>> res.labels.tolist(), res.distances.tolist()
    ([0, 0, 1, 2], [1.0, 3.0, 7.5])
    """
    est = EnergyHierarchical(n_clusters, **params).fit(X, sample_weight=sample_weight)
    return HierarchicalResult(est.labels_, est.children_, est.distances_, est.to_linkage(),
                              est.n_clusters_, est.within_energy_)
