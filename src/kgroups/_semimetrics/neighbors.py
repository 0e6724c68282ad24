r"""The semimetric of the neighbourhood graph of the points (``semimetric=
"nearest_neighbors"``): clusters of any shape.

The closed-form semimetrics compare two points by their distance alone, so the
partitions they favour are unions of convex pieces. This one compares points by how
they are connected through the data, as spectral clustering does (Shi & Malik 2000;
Ng, Jordan & Weiss 2002; von Luxburg 2007), in four steps:

1. **The graph.** Duplicate rows are merged into one point whose weight :math:`w_i` is
   the sum of theirs (so integer weights are repeated rows). The nodes of the graph
   are the points no sparser than their neighbourhood (:func:`core_points`: the
   distance to the ``n_neighbors``-th neighbour at most ``CORE_SPREAD`` = 1.5 times
   its median over those neighbours); the others (background noise, outliers, the
   sparse fringe of a cluster) are placed afterwards through their neighbours, as new
   points are, so that they neither bridge clusters nor draw eigenvectors of their
   own. A tight group of :math:`g \le` ``n_neighbors`` points far from everything
   is a cluster on its own scale, whether it fails that test (its
   ``n_neighbors``-th neighbours lie outside it) or passes it (more than half of
   each member's neighbours are its fellows, as far out as it is): such a group
   (:func:`separated_groups`) is a node set of its own, each member joined to its
   :math:`g - 1` fellows only, and so becomes a component of the graph. Each other
   node is joined to its ``n_neighbors`` nearest nodes (Euclidean distance, ties to
   the earlier row: :class:`NearestRows`) and the graph made symmetric (an edge
   where either is among the other's neighbours), of weight :math:`A_{ij} =
   \exp(-d_{ij}^2 / (s_i s_j))`, :math:`s_i` the distance to the 7th
   neighbour (the :math:`(g-1)`-th in a group; local scaling, Zelnik-Manor & Perona
   2004). Where the neighbour relation is mostly mutual (at least ``MUTUAL_SHARE``
   = 80 % of it at 10 neighbours, more with more: :func:`mutual_share_needed`), a
   one-sided edge is the mark of a density boundary: a point of a sparse stretch
   reaching to a denser one, as the outer arms of a spiral reach across to the next
   arm. Such graphs keep only their mutual edges, joined by the maximum spanning
   tree of the symmetric graph so that none falls apart that was whole (the mutual
   graph with a spanning tree, Ozaki et al. 2011). A graph that
   falls apart is taken as the limit of one whose components are joined, along
   their minimum spanning tree, by bridges of vanishing weight
   (:func:`walk_eigenvectors`): each component keeps its own structure, and groups of
   components are judged by their distances, not taken at random.
2. **The random walk** that moves from node :math:`i` to :math:`j` with probability
   :math:`P_{ij} = A_{ij} w_j / d_i`, :math:`d_i = \sum_l A_{il} w_l` (node weights
   are masses: a heavy node attracts the walk). It is reversible, and
   :math:`S = D^{-1/2} W^{1/2} A W^{1/2} D^{-1/2}` is symmetric with the same
   eigenvalues; its eigenvectors :math:`u_c` give those of :math:`P`,
   :math:`\psi_c = u_c / \sqrt{w d}`.
3. **The embedding.** The :math:`m` = ``n_clusters`` eigenvectors of largest
   eigenvalue, each point's row normalised to length 1 (Ng, Jordan & Weiss's
   normalisation: clusters become nearly orthogonal directions, whatever their
   density): :math:`e(x) = \psi(x) / \|\psi(x)\|`.
4. **The semimetric** :math:`\rho(x, y) = \|e(x) - e(y)\|^2 = 2 - 2\, e(x)^\top
   e(y)`, a squared Euclidean distance, hence of negative type, whose kernel
   :math:`K = e(x)^\top e(y)` (:math:`K = -\rho/2` up to the constant 1) is the Gram
   matrix of m feature columns: kernel k-groups runs on it exactly in O(n m) memory
   (the low-rank engine on the features). Kernel k-groups on this kernel is
   Hartigan's method on the spectral embedding.

**New points** (``predict``, ``transform``) are placed through their ``n_neighbors``
nearest nodes by the Nyström extension of the eigenvectors (Bengio et al. 2004):
:math:`\psi_c(x) = \lambda_c^{-1} \sum_j P(x, j) \psi_c(j)` with :math:`P(x, j)
\propto w_j` over those nodes, then normalised; a new point equal to a node takes
that node's coordinates, so ``predict`` on the fitted points gives ``labels_``.

**Large data.** Up to ``GRAPH_NODES`` = 10,000 distinct points the graph holds every
point. Beyond, it is the graph of 10,000 of them drawn at random (with the
estimator's ``random_state``), and the other points are placed through their
neighbours among them, as new points are: O(n ``n_neighbors``) memory and time past
the sample. A graph of a fixed number of neighbours sees more finely as the points
grow denser: background noise that is too sparse to link clusters among 10,000
points forms a web between them among 50,000, and the leading eigenvalues crowd
near 1. The sample keeps the graph at the scale at which ``n_neighbors`` was chosen
(the study of ``benchmarks/bench_semimetric.py``, 150 to 10,000 points).

References
----------
.. [1] A. Y. Ng, M. I. Jordan, Y. Weiss, "On spectral clustering: analysis and an
   algorithm", NIPS 14, 2002.
.. [2] U. von Luxburg, "A tutorial on spectral clustering", Statistics and
   Computing 17(4), 395-416, 2007.
.. [3] L. Zelnik-Manor, P. Perona, "Self-tuning spectral clustering", NIPS 17, 2004.
.. [4] Y. Bengio et al., "Out-of-sample extensions for LLE, Isomap, MDS, Eigenmaps,
   and spectral clustering", NIPS 16, 2004.
.. [5] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via Hartigan's
   Method", IEEE TPAMI 43(12), 2021 (kernel k-groups on a graph's kernel, section
   5.2).
.. [6] E. Facco, M. d'Errico, A. Rodriguez, A. Laio, "Estimating the intrinsic
   dimension of datasets by a minimal neighborhood information", Scientific Reports
   7, 12140, 2017 (the ratio of the second to the first neighbour's distance is
   Pareto distributed, :math:`P(\mu > t) = t^{-D}`).
.. [7] K. Ozaki, M. Shimbo, M. Komachi, Y. Matsumoto, "Using the mutual k-nearest
   neighbor graphs for semi-supervised classification of natural language data",
   CoNLL 2011 (the mutual graph joined by a maximum spanning tree).
"""

from __future__ import annotations

import time

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree

from .._memory import check_fits
from .._rows import distinct_rows as same_rows
from .._validation import InvalidParameterError

#: The neighbour whose distance is a point's local scale in the edges' weights
#: (Zelnik-Manor & Perona's choice, the 7th; the n_neighbors-th when fewer).
LOCAL_SCALE = 7
#: A point whose distance to its n_neighbors-th neighbour exceeds this many times the
#: median of its neighbours' is not a node of the graph (noise, an outlier, a sparse
#: fringe), and is placed through its neighbours as a new point is.
CORE_SPREAD = 1.5
#: When at least this share of the neighbour relations are mutual (each end among the
#: other's ``n_neighbors`` nearest) at the default 10 neighbours, the graph keeps only
#: the mutual edges, joined by the maximum spanning tree of the symmetric graph
#: (:func:`mutual_graph`). Points of a locally uniform density are about 86 % mutual at
#: 10 neighbours in any dimension; densities that change across every neighbourhood
#: (Gaussian clouds in many dimensions: hubs) fall to 50-70 %. The one-sided share of
#: an even density falls as 1 / sqrt(n_neighbors) (0.24, 0.19, 0.14, 0.10 at 3, 5, 10
#: and 20 neighbours in two dimensions), and so does the one-sided share allowed
#: (:func:`mutual_share_needed`). Decided on the development half of
#: ``benchmarks/bench_outside.py``, where 0.75 and 0.8 give the same answers but on two
#: sets.
MUTUAL_SHARE = 0.8
#: Largest number of distinct points the graph holds; beyond, a random sample of them.
GRAPH_NODES = 10_000
# Up to this many nodes the eigenvectors come from a dense symmetric eigensolver (all
# of them up to FULL_EIGEN_NODES, the leading ones only beyond).
DENSE_EIGEN_NODES = 1000
FULL_EIGEN_NODES = 256
# Relative accuracy of Lanczos' eigenpairs (ARPACK's tol) and its restarts: on S
# itself (then shift and invert), and on the inverse.
EIGEN_TOL = 1e-8
LANCZOS_RESTARTS = 40
EIGEN_MAXITER = 20_000
# The shift of the inverse, (I - S + SHIFT I)^-1 (I - S is singular: the walk's
# stationary vector), and the fill of its LU factors allowed for, in multiples of
# the graph's stored entries (the slowly mixing graphs that need the inverse are
# those of points in few dimensions, whose factors hold a few times the graph).
SHIFT = 1e-8
FILL_ALLOWANCE = 20
# Rows placed at once through their neighbours (bounds the scratch memory).
BLOCK_ROWS = 65_536
# The Nystrom extension divides by each eigenvalue; one below this (an embedding of
# more columns than the graph has clusters) is taken as this.
_LAMBDA_FLOOR = 1e-3


def distinct_rows(X, w):
    """The distinct rows of ``X`` in the lexicographic order of their values, the node of
    each row and each node's weight (the sum of its rows' weights).

    Examples
    --------
    >>> X = np.array([[0.0, 1.0], [2.0, 0.0], [0.0, 1.0]])
    >>> U, node, wn = distinct_rows(X, np.array([1.0, 2.0, 3.0]))
    >>> U.tolist(), node.tolist(), wn.tolist()
    ([[0.0, 1.0], [2.0, 0.0]], [0, 1, 0], [4.0, 2.0])
    """
    first, node, wn = same_rows(X, w, "the neighbourhood graph's distinct rows of X",
                                "a sample of the rows", sort=True)
    return X[first], node, wn


def _index(U):
    return NearestRows(U)


# Candidates beyond the neighbours asked for, among which ties are broken; distances of
# the index within this relative distance are near-ties, computed again; the most
# (query, candidate) pairs, and (query, candidate, column) differences, held at once.
TIE_EXTRA = 2
TIE_RTOL = 1e-6
DIFF_ITEMS = 1 << 22


class NearestRows:
    """The nearest rows of ``U`` to query rows, the same whatever the machine: a
    scikit-learn index's ``n_neighbors + TIE_EXTRA`` candidates; where two of them
    are within ``TIE_RTOL`` of each other, their Euclidean distances computed again
    from the differences (so that equal distances are equal), in the order of
    distance, then row; a query whose ``n_neighbors``-th distance ties up to its last
    candidate is asked again with twice as many. (The index alone breaks ties, and
    rounds near-ties, by the order of its own computation, which moves with the
    number of threads: on data of few distinct values the graph would move with it.)

    Examples
    --------
    >>> U = np.array([[0.0], [1.0], [-1.0], [2.0], [-2.0]])
    >>> dist, nb = NearestRows(U).kneighbors(np.array([[0.0]]), 3)
    >>> dist.tolist(), nb.tolist()
    ([[0.0, 1.0, 1.0]], [[0, 1, 2]])
    """

    def __init__(self, U):
        from sklearn.neighbors import NearestNeighbors

        self.U, self.index = U, NearestNeighbors().fit(U)

    def kneighbors(self, Q, n_neighbors):
        """``(distances, rows)`` of the ``n_neighbors`` nearest rows to each row of Q,
        in blocks of at most ``DIFF_ITEMS`` candidates."""
        n, k = self.U.shape[0], n_neighbors
        dist, nb = np.empty((Q.shape[0], k)), np.empty((Q.shape[0], k), dtype=np.int64)
        todo, m = np.arange(Q.shape[0]), min(n, k + TIE_EXTRA)
        while todo.size:
            wide, step = [], max(1, DIFF_ITEMS // m)
            for a in range(0, todo.size, step):
                rows = todo[a:a + step]
                d, cand = self._candidates(Q[rows], m)
                # a tie at the k-th distance up to the last candidate may go on past
                # them: those queries again with twice the candidates
                more = (d[:, k - 1] >= d[:, -1]) & (m < n)
                nb[rows[~more]], dist[rows[~more]] = cand[~more, :k], d[~more, :k]
                wide.append(rows[more])
            todo, m = np.concatenate(wide), min(n, 2 * m)
        return dist, nb

    def _candidates(self, Q, m):
        """The index's ``m`` nearest rows to each row of Q, ordered by distance, then
        row; rows with (near-)ties among them get their exact distances."""
        d, cand = self.index.kneighbors(Q, n_neighbors=m)
        tie = np.flatnonzero(np.any(d[:, 1:] <= (1.0 + TIE_RTOL) * d[:, :-1], axis=1))
        if tie.size:
            c, e = cand[tie], self._distances(Q[tie], cand[tie])
            o = np.lexsort((c, e))
            cand[tie], d[tie] = np.take_along_axis(c, o, 1), np.take_along_axis(e, o, 1)
        return d, cand

    def _distances(self, Q, nb):
        out = np.empty(nb.shape)
        step = max(1, DIFF_ITEMS // max(1, nb.shape[1] * self.U.shape[1]))
        for a in range(0, Q.shape[0], step):
            diff = self.U[nb[a:a + step]] - Q[a:a + step, None, :]
            out[a:a + step] = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
        return out


def knn_graph(U, n_neighbors, index=None, counts=None):
    r"""The symmetric adjacency of the ``n_neighbors``-nearest-neighbour graph of the
    (distinct) rows of ``U`` (CSR, no self-loops), and each row's local scale
    :math:`s_i`: an edge where either point is among
    the other's neighbours, of weight :math:`\exp(-d_{ij}^2 / (s_i s_j))` with
    :math:`s_i` the distance from :math:`i` to its ``LOCAL_SCALE``-th nearest neighbour
    (Zelnik-Manor & Perona's local scaling: an edge is long or short for the density
    around its two ends, so clusters of unequal density are alike to the graph).
    When the neighbour relations (``i`` among ``j``'s nearest) are mostly mutual
    (:func:`mutual_share_needed`), only the mutual edges and the maximum spanning tree
    of that graph are kept (:func:`mutual_graph`).

    ``counts`` (int array of shape (n,), each 1 .. ``n_neighbors``; default all
    ``n_neighbors``): how many neighbours row :math:`i` joins, and its local scale the
    ``min(LOCAL_SCALE, counts[i])``-th (the members of a separated group join their
    fellows only, on the group's own scale: :func:`neighbour_counts`).

    Examples
    --------
    >>> U = np.array([[0.0], [1.0], [3.0], [7.0]])
    >>> A, s = knn_graph(U, 1)
    >>> s.tolist(), np.round(A.toarray(), 3).tolist()[0]
    ([1.0, 1.0, 2.0, 4.0], [0.0, 0.368, 0.0, 0.0])
    >>> np.round(A.toarray(), 3).tolist()
    [[0.0, 0.368, 0.0, 0.0], [0.368, 0.0, 0.135, 0.0], [0.0, 0.135, 0.0, 0.135], [0.0, 0.0, 0.135, 0.0]]
    >>> A, s = knn_graph(np.array([[0.0], [1.0], [2.0], [9.0], [9.5]]), 2,
    ...                  counts=np.array([2, 2, 2, 1, 1]))
    >>> s.tolist(), int(A[3, 4] > 0), int(A[2, 3] > 0)
    ([2.0, 1.0, 2.0, 0.5, 0.5], 1, 0)
    """
    n = U.shape[0]
    index = _index(U) if index is None else index
    dist, nb = index.kneighbors(U, n_neighbors=n_neighbors + 1)
    dist, nb = dist[:, 1:], nb[:, 1:]  # a distinct point is its own nearest
    counts = np.full(n, n_neighbors) if counts is None else np.asarray(counts)
    s = dist[np.arange(n), np.minimum(LOCAL_SCALE, counts) - 1]
    val = np.exp(-dist ** 2 / (s[:, None] * s[nb]))
    joined = np.arange(n_neighbors)[None, :] < counts[:, None]
    rows = np.broadcast_to(np.arange(n)[:, None], nb.shape)
    D = sp.csr_matrix((val[joined], (rows[joined], nb[joined])), shape=(n, n))
    return mutual_graph(D, n_neighbors), s


def mutual_share_needed(n_neighbors):
    """The share of mutual neighbour relations from which :func:`mutual_graph` keeps
    the mutual edges: ``MUTUAL_SHARE`` at 10 neighbours, the one-sided share allowed
    scaled by ``sqrt(10 / n_neighbors)`` as that of an even density is.

    Examples
    --------
    >>> [round(mutual_share_needed(k), 3) for k in (5, 10, 20)]
    [0.717, 0.8, 0.859]
    """
    return 1.0 - (1.0 - MUTUAL_SHARE) * float(np.sqrt(10.0 / n_neighbors))


def mutual_graph(D, n_neighbors):
    r"""The symmetric graph of the one-sided neighbour relations ``D`` (``D[i, j] > 0``
    where ``j`` is among ``i``'s ``n_neighbors`` nearest, the edge's weight): the edges
    where either end names the other, or, when at least
    :func:`mutual_share_needed` of the relations are mutual, the mutual edges joined by
    the maximum spanning tree (by weight) of that graph, which spans each of its
    components.

    In a locally uniform density about 86 % of the relations are mutual at 10
    neighbours, whatever the dimension; the rest are one-sided by chance at the rim
    of a neighbourhood. Where so few are one-sided, a one-sided edge marks a density
    boundary (the sparse end reaches the dense one, which has nearer neighbours), and
    dropping it cuts a sparse arm from the dense stretch beside it. Where the density
    changes across every neighbourhood (high-dimensional clouds, whose central points
    are everyone's neighbours), one-sided relations are the rule and say nothing of
    boundaries: the mutual graph would be a sparse tree, so the symmetric graph is
    kept.

    Examples
    --------
    A dense row of ten points and a sparse row of four after it, each point naming its
    2 nearest: 4 of the 28 relations are one-sided (0 and 9 name 2 and 7 at the ends
    of the dense row, 12 names 9 across the gap, 21 names 15), so only the mutual
    edges stay, and the tree keeps the two rows joined through their one nearest pair.

    >>> U = np.r_[np.arange(10.0), 12, 15, 18, 21]
    >>> dist = np.abs(U[:, None] - U[None, :]) + np.diag(np.full(14, np.inf))
    >>> nb = np.argsort(dist, axis=1, kind="stable")[:, :2]
    >>> D = sp.csr_matrix((np.exp(-dist[np.arange(14)[:, None], nb]).ravel(),
    ...                    (np.repeat(np.arange(14), 2), nb.ravel())), shape=(14, 14))
    >>> round(D.minimum(D.T).nnz / D.nnz, 3)
    0.857
    >>> A = mutual_graph(D, 2)
    >>> int(D.maximum(D.T).nnz), int(A.nnz), int(A[9, 10] > 0), int(A[7, 9] > 0)
    (32, 26, 1, 0)
    """
    either = D.maximum(D.T).tocsr()
    both = D.minimum(D.T).tocsr()
    both.eliminate_zeros()
    if both.nnz < mutual_share_needed(n_neighbors) * D.nnz:
        return either
    # The maximum spanning tree of the weights is the minimum one of -log(weight),
    # kept positive (a zero is no edge to the tree's search); its edges keep their
    # weights.
    length = either.copy()
    length.data = np.maximum(-np.log(np.maximum(length.data, np.finfo(float).tiny)),
                             np.finfo(float).tiny)
    tree = minimum_spanning_tree(length)
    tree = either.multiply((tree + tree.T) > 0)
    return both.maximum(tree).tocsr()


def join_near_components(U, A, s, counts, index=None):
    r"""``A`` with the edges of :func:`component_bridges` that are no longer than
    ``CORE_SPREAD`` times the distance from the sparser of their two ends to its
    ``counts``-th neighbour, of weight :math:`\exp(-\ell^2 / (s_i s_j))` as any edge
    (:func:`knn_graph`). A sampling gap inside a cluster (a stretch where every
    point's neighbours lie on its own side) splits the neighbourhood graph although
    the gap is no wider than a neighbourhood there, as the density test of
    :func:`neighbour_counts` judges: such components are joined. Components farther
    apart stay apart (the limit of vanishing bridges, :func:`walk_eigenvectors`).

    Examples
    --------
    >>> U = np.array([[0.0], [1.0], [2.0], [3.5], [4.5], [5.5], [30.0], [31.0], [32.0]])
    >>> A, s = knn_graph(U, 1)
    >>> connected_components(A)[0]
    3
    >>> B = join_near_components(U, A, s, np.ones(9, dtype=np.int64))
    >>> connected_components(B)[0], round(float(B[2, 3]), 3)
    (2, 0.105)
    """
    n_comp, comp = connected_components(A, directed=False)
    if n_comp == 1:
        return A
    index = _index(U) if index is None else index
    bridges = np.array(component_bridges(U, comp, n_comp, index))
    i, j, length = bridges[:, 0].astype(np.int64), bridges[:, 1].astype(np.int64), bridges[:, 2]
    ends = np.unique(np.r_[i, j])
    dist = index.kneighbors(U[ends], n_neighbors=int(counts.max()) + 1)[0]
    r = np.zeros(U.shape[0])
    r[ends] = dist[np.arange(ends.size), counts[ends]]
    near = length <= CORE_SPREAD * np.maximum(r[i], r[j])
    if not near.any():
        return A
    i, j, length = i[near], j[near], length[near]
    val = np.exp(-length ** 2 / (s[i] * s[j]))
    B = sp.csr_matrix((np.r_[val, val], (np.r_[i, j], np.r_[j, i])), shape=A.shape)
    return (A + B).tocsr()


def core_points(U, n_neighbors, index=None, minimum=0):
    """Which rows of ``U`` are nodes of the graph (:func:`neighbour_counts` above 0):
    those no sparser than their neighbourhood, and the members of separated groups.

    Examples
    --------
    >>> U = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [20.0]])
    >>> core_points(U, 1).tolist()
    [True, True, True, True, True, False]
    """
    return neighbour_counts(U, n_neighbors, index, minimum) > 0


def neighbour_counts(U, n_neighbors, index=None, minimum=0):
    """How many neighbours each row of ``U`` joins in the graph: ``g - 1`` for a member
    of a separated group of ``g`` rows (:func:`separated_groups`), ``n_neighbors`` for
    another row no sparser than its neighbourhood (the distance ``r(i)`` to its
    ``n_neighbors``-th nearest other row at most ``CORE_SPREAD`` times the median of
    ``r`` over those neighbours), 0 for the others (not nodes). Every row joins
    ``n_neighbors`` when fewer than ``n_neighbors + 2``, or than ``minimum``, would
    pass the density test.

    Examples
    --------
    >>> U = np.r_[np.arange(7.0), 40.0, 40.01, -30.0][:, None]
    >>> neighbour_counts(U, 3).tolist()  # a far pair, a lone outlier
    [3, 3, 3, 3, 3, 3, 3, 1, 1, 0]
    """
    dist, nb, core = _density(U, n_neighbors, index)
    if core.sum() < max(n_neighbors + 2, minimum):
        return np.full(U.shape[0], n_neighbors, dtype=np.int64)
    group = separated_groups(dist, nb, core)
    return np.where(group > 0, group - 1, np.where(core, n_neighbors, 0)).astype(np.int64)


def _density(U, n_neighbors, index=None):
    """``(dist, nb, core)``: each row's distances to, and indices of, its ``n_neighbors
    + 1`` nearest rows (itself first), and whether it passes the density test of
    :func:`neighbour_counts`."""
    index = _index(U) if index is None else index
    dist, nb = index.kneighbors(U, n_neighbors=n_neighbors + 1)
    r = dist[:, -1]
    return dist, nb, r <= CORE_SPREAD * np.median(r[nb[:, 1:]], axis=1)


def lone_rows(U, n_neighbors):
    """Which rows of ``U`` are lone: not nodes of the graph (:func:`neighbour_counts` 0:
    sparser than their neighbourhood and in no separated group) and outside the
    neighbourhood of each of their ``n_neighbors`` nearest rows (farther from it than
    ``CORE_SPREAD`` times its own distance to its ``n_neighbors``-th neighbour, as
    :func:`separated_groups` asks of a group's members): a point that no cluster's
    neighbourhood reaches, an outlier. None where ``U`` has at most ``n_neighbors + 1``
    rows, or where fewer than ``n_neighbors + 2`` pass the density test.

    >>> U = np.r_[np.arange(7.0), 40.0, 40.01, -30.0, 7.5][:, None]  # a far pair, an outlier
    >>> np.flatnonzero(lone_rows(U, 3)).tolist()
    [9]
    """
    if U.shape[0] <= n_neighbors + 1:
        return np.zeros(U.shape[0], dtype=bool)
    dist, nb, core = _density(U, n_neighbors)
    if core.sum() < n_neighbors + 2:
        return np.zeros(U.shape[0], dtype=bool)
    return ~core & _apart(dist, nb)[:, 0] & (separated_groups(dist, nb, core) == 0)


def lone_outliers(X, w, n_neighbors, k_top):
    """The rows the choice of k leaves out: :func:`lone_rows` of less than twice the
    median weight (a row of twice it is two points). A cluster holds two points at least;
    a point no cluster's neighbourhood reaches would be a cluster of its own and, far
    enough, leave the rest one cluster. None where fewer than ``k_top + 2`` rows remain.

    >>> X = np.r_[np.random.default_rng(0).normal(size=(60, 2)), [[1e3, 1e3]]]
    >>> np.flatnonzero(lone_outliers(X, np.ones(61), 10, 15)).tolist()
    [60]
    >>> np.flatnonzero(lone_outliers(X, np.r_[np.ones(60), 2.0], 10, 15)).tolist()
    []
    """
    lone = lone_rows(X, n_neighbors) & (w < 2.0 * np.median(w))
    return lone if w.size - lone.sum() >= k_top + 2 else np.zeros(w.size, dtype=bool)


def in_separated_groups(U, n_neighbors):
    """Which rows of ``U`` lie in a separated group of its graph of ``n_neighbors``
    (:func:`separated_groups`, read from :func:`neighbour_counts`: a member of a group of
    g rows joins g - 1); none where ``U`` has at most ``n_neighbors + 1`` rows.

    >>> U = np.r_[np.arange(7.0), 40.0, 40.01, -30.0][:, None]  # a far pair, an outlier
    >>> np.flatnonzero(in_separated_groups(U, 3)).tolist()
    [7, 8]
    """
    if U.shape[0] <= n_neighbors + 1:
        return np.zeros(U.shape[0], dtype=bool)
    counts = neighbour_counts(U, n_neighbors)
    return (counts > 0) & (counts < n_neighbors)


def apart_from_the_rest(U, flagged, n_neighbors):
    """The ``flagged`` rows of ``U`` in a component of its ``n_neighbors``-nearest-neighbour
    graph (an edge where either row is among the other's nearest) that holds no other row: a
    group apart from every row not flagged (of more than ``n_neighbors`` rows, as each row's
    nearest lie in its component), not strays among them.

    >>> U = np.r_[np.arange(8.0), 30.0 + np.arange(4.0), 9.5][:, None]  # a group, a stray
    >>> np.flatnonzero(apart_from_the_rest(U, np.arange(13) >= 8, 3)).tolist()
    [8, 9, 10, 11]
    """
    n = U.shape[0]
    if n <= n_neighbors + 1 or not flagged.any():
        return np.zeros(n, dtype=bool)
    nb = _index(U).kneighbors(U, n_neighbors=n_neighbors + 1)[1]
    A = sp.csr_matrix((np.ones(nb.size), (np.repeat(np.arange(n), nb.shape[1]), nb.ravel())),
                      shape=(n, n))
    count, comp = connected_components(A, directed=False)
    return flagged & (np.bincount(comp, weights=~flagged, minlength=count) == 0)[comp]


def separated_groups(dist, nb, core):
    r"""The size ``g`` of the separated group of each row (0 for none): a tight group of
    2 to ``k`` rows far from everything, a cluster on its own scale. The density test
    drops most such groups (their members' ``k``-th neighbours lie outside them), not
    all: a member of a group of more than ``k / 2`` rows draws most of its neighbours
    from its fellows, whose ``k``-th neighbours are as far as its own, and passes it.

    ``dist``, ``nb`` (n x (k + 1)): each row's distances to, and indices of, its
    ``k + 1`` nearest rows, itself first; ``core``: the rows that pass the density
    test. Row :math:`i`, of distances :math:`d_1 \le \dots \le d_k` to its ``k`` nearest
    others, and a size :math:`g` (2 to ``k``): the rows :math:`G` = :math:`i` and its
    :math:`g - 1` nearest are a separated group when every member

    1. draws the same :math:`G` at that size (closed: its :math:`g - 1` nearest others
       are the other members);
    2. jumps beyond chance at the group's edge, :math:`t^{g-1} > M`, :math:`t =
       d_g / d_{g-1}`, :math:`M` the number of candidates at size :math:`g` (the
       rows that fail the density test or meet 3 at that size): around a point of a
       Poisson process in :math:`D` dimensions, :math:`(d_{g-1} / d_g)^D` is the
       largest of :math:`g - 1` uniforms, so :math:`P(d_g / d_{g-1} > t) = t^{-D(g-1)}
       \le t^{-(g-1)}` (Facco et al. 2017 for :math:`g = 2`), and chance gives fewer
       than one such row among the :math:`M` candidates (a pair in background noise
       seldom does; a far group easily);
    3. lies outside the neighbourhood of every other row among its ``k`` nearest: more
       than ``CORE_SPREAD`` times that row's own ``k``-th neighbour distance from it
       (as seen from there, an outlier).

    Every size is tried, not only each row's largest jump: the members of a group with
    structure of its own (two close pairs and a fifth point) jump most at different
    sizes within it, and all of them at its edge. A row in groups of several sizes
    (nested) takes the largest.

    Examples
    --------
    >>> from sklearn.neighbors import NearestNeighbors
    >>> U = np.r_[np.arange(7.0), 40.0, 40.01, 40.02][:, None]
    >>> dist, nb = NearestNeighbors().fit(U).kneighbors(U, n_neighbors=4)
    >>> separated_groups(dist, nb, np.arange(10) < 7).tolist()
    [0, 0, 0, 0, 0, 0, 0, 3, 3, 3]
    >>> U = np.r_[np.arange(9.0), 20.0, 20.01, 20.5, 20.51][:, None]  # two pairs, apart
    >>> dist, nb = NearestNeighbors().fit(U).kneighbors(U, n_neighbors=5)
    >>> separated_groups(dist, nb, np.arange(13) < 9).tolist()
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4]
    """
    n, k = nb.shape[0], nb.shape[1] - 1
    out = np.zeros(n, dtype=np.int64)
    if k < 2:
        return out
    apart, d = _apart(dist, nb), dist[:, 1:]
    at = np.full(n, -1, dtype=np.int64)                 # a row's place among candidates
    for g in range(2, k + 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            jump = (g - 1) * np.log(d[:, g - 1] / d[:, g - 2])
        log_m = np.log(max(1, np.count_nonzero(~core | apart[:, g - 1])))   # M at size g
        rows = np.flatnonzero((jump > log_m) & apart[:, g - 1])  # members themselves excused
        # each candidate's group, its members' sorted indices; closed: every member is
        # a candidate of the very same group
        at[rows] = np.arange(rows.size)
        key = np.sort(nb[rows, :g], axis=1)
        place = at[key]
        same = (place >= 0).all(axis=1)
        same[same] = (key[place[same]] == key[same][:, None, :]).all(axis=(1, 2))
        out[rows[same]] = g
        at[rows] = -1
    return out


def _apart(dist, nb):
    """``apart[:, j]``: every neighbour of the row from the (j + 1)-th on lies beyond
    ``CORE_SPREAD`` times that neighbour's own distance to its k-th (outside its reach);
    ``dist``, ``nb`` as :func:`separated_groups` takes them."""
    beyond = dist[:, 1:] > CORE_SPREAD * dist[nb[:, 1:], -1]
    return np.logical_and.accumulate(beyond[:, ::-1], axis=1)[:, ::-1]


def component_bridges(U, comp, n_comp, index=None):
    """The minimum spanning tree of the graph's components under the distance of their
    closest points (Borůvka's rounds: each component joins its nearest other one):
    ``(i, j, length)`` for each of its ``n_comp - 1`` edges, ``i`` and ``j`` the
    closest points of the two components.

    Each component's nearest point outside it is found among the ``size + 1`` nearest
    points of its own points (some of them lie outside), or, for a large component,
    in a tree of the points outside it.

    Examples
    --------
    >>> U = np.array([[0.0], [1.0], [10.0], [11.0], [30.0]])
    >>> comp = np.array([0, 0, 1, 1, 2])
    >>> sorted((int(i), int(j), float(d)) for i, j, d in component_bridges(U, comp, 3))
    [(1, 2, 9.0), (3, 4, 19.0)]
    """
    index = _index(U) if index is None else index
    group = np.arange(n_comp)  # the tree's component of each graph component so far
    edges = {}
    while np.unique(group).size > 1:
        label = group[comp]
        sizes = np.bincount(label)
        found = {}
        for g in np.flatnonzero(sizes):
            i, j, dist = _nearest_outside(U, label, g, sizes[g], index)
            found[tuple(sorted((int(i), int(j))))] = dist
        for (i, j), dist in found.items():
            edges[(i, j)] = dist
            ga, gb = group[comp[i]], group[comp[j]]
            group[group == gb] = ga
    return [(i, j, dist) for (i, j), dist in edges.items()]


# A component of more points than this looks for its nearest outside point in a tree of
# the points outside it (else among the size + 1 nearest points of each of its points).
_SMALL_COMPONENT = 256


def _nearest_outside(U, label, g, size, index):
    """``(i, j, distance)``: the closest pair with ``i`` labelled ``g``, ``j`` not."""
    inside = np.flatnonzero(label == g)
    if size <= _SMALL_COMPONENT:
        dist, nb = index.kneighbors(U[inside], n_neighbors=min(size + 1, U.shape[0]))
        dist = np.where(label[nb] != g, dist, np.inf)
        a, b = np.unravel_index(np.argmin(dist), dist.shape)
        return inside[a], nb[a, b], float(dist[a, b])
    outside = np.flatnonzero(label != g)
    dist, nb = _index(U[outside]).kneighbors(U[inside], n_neighbors=1)
    a = int(np.argmin(dist[:, 0]))
    return inside[a], outside[nb[a, 0]], float(dist[a, 0])


def walk_matrix(A, w):
    """``S = D^-1/2 W^1/2 A W^1/2 D^-1/2`` and the degrees ``d = A w`` (step 2 of the
    module docstring)."""
    d = A @ w
    s = np.sqrt(w / d)
    return (sp.diags(s) @ A @ sp.diags(s)).tocsr(), d


def leading_eigenpairs(S, m, rng):
    r"""The ``m`` largest eigenvalues of the symmetric ``S`` (descending) and their
    eigenvectors.

    A small graph: a dense solver. A large one: Lanczos (ARPACK, from a seeded random
    vector) for ``LANCZOS_RESTARTS`` restarts, which suffice where the walk mixes fast
    (the graphs of high-dimensional data); where it has not converged, the graph
    mixes slowly (the leading eigenvalues crowd near 1: the graphs of points in two
    or three dimensions, whose small separators keep a sparse factorisation sparse),
    and Lanczos runs on :math:`(I - S + \delta I)^{-1}` (shift and invert, with a
    sparse LU factorisation in a minimum-degree order), whose leading eigenvalues are
    far apart.
    """
    n = S.shape[0]
    if n <= DENSE_EIGEN_NODES or m >= n - 1:
        from threadpoolctl import threadpool_limits  # scikit-learn's own dependency

        # one thread: on a matrix this small, threads of the BLAS wait on each other
        with threadpool_limits(1, user_api="blas"):
            if n <= FULL_EIGEN_NODES:  # all of them: fastest for the smallest graphs
                lam, U = np.linalg.eigh(S.toarray())
            else:
                lam, U = scipy.linalg.eigh(S.toarray(), subset_by_index=[n - m, n - 1])
        order = np.argsort(-lam)[:m]
        return lam[order], U[:, order]
    v0, ncv = rng.standard_normal(n), min(n, max(2 * m + 1, 24))
    try:
        lam, U = sla.eigsh(S, k=m, which="LA", tol=EIGEN_TOL, maxiter=LANCZOS_RESTARTS,
                           v0=v0, ncv=ncv)
    except sla.ArpackNoConvergence:
        lam, U = _shift_invert(S, m, v0, ncv)
    order = np.argsort(-lam)
    return lam[order], U[:, order]


def _shift_invert(S, m, v0, ncv):
    """The ``m`` largest eigenpairs of ``S`` by Lanczos on ``(I - S + SHIFT I)^{-1}``."""
    n = S.shape[0]
    check_fits(8 * 3 * FILL_ALLOWANCE * S.nnz, f"semimetric='nearest_neighbors': the sparse "
               f"factorisation of the neighbourhood graph of {n} points",
               "fewer points or a smaller n_neighbors")
    M = (sp.identity(n, format="csc") * (1.0 + SHIFT) - S).tocsc()
    lu = sla.splu(M, permc_spec="MMD_AT_PLUS_A", options={"SymmetricMode": True})
    op = sla.LinearOperator((n, n), matvec=lambda x: -lu.solve(x), dtype=np.float64)
    try:
        return sla.eigsh(S, k=m, sigma=1.0 + SHIFT, which="LM", OPinv=op, tol=EIGEN_TOL,
                         maxiter=EIGEN_MAXITER, v0=v0, ncv=ncv)
    except sla.ArpackNoConvergence as exc:
        raise ValueError(
            f"semimetric='nearest_neighbors': the {m} leading eigenvectors of the "
            f"neighbourhood graph of {n} points did not converge; try a larger "
            "n_neighbors") from exc


def walk_eigenvectors(U, A, w, m, rng, index=None):
    r"""The ``m`` leading eigenvectors ``psi`` (n x m) of the random walk on the graph
    ``A`` with node weights ``w``, their eigenvalues, and the number of components.

    A connected graph: those of :func:`walk_matrix` (``psi = u / sqrt(w d)``). A graph
    of c components is taken as the limit of the graph whose components are joined
    by bridges of vanishing weight along :func:`component_bridges` (weight
    :math:`w_i w_j / \ell^2` for a bridge of length :math:`\ell`): the c
    eigenvalues that tend to 1 have eigenvectors constant on each component, given by
    the graph of the components (bridge weights :math:`C`, volumes :math:`V_a =
    \sum_{i \in a} w_i d_i`): the smallest solutions of :math:`(\mathrm{diag}(C1) -
    C) x = \mu V x`. When c >= m they are the m leading ones (the components are
    grouped by their distances); when c < m, all c of them (one per component) and the
    m - c leading eigenvectors of the components' own walks, in order of eigenvalue.
    """
    n_comp, comp = connected_components(A, directed=False)
    if n_comp == 1:
        S, d = walk_matrix(A, w)
        lam, V = leading_eigenpairs(S, m, rng)
        return V / np.sqrt(w * d)[:, None], lam, 1
    d = A @ w
    vol = np.bincount(comp, weights=w * d, minlength=n_comp)
    x, mu = _component_vectors(U, comp, n_comp, w, vol, min(m, n_comp),
                                                 index)
    cols, lams = [x[comp]], [np.ones(x.shape[1])]
    if n_comp < m:  # every component's own walk gives the rest
        for a in range(n_comp):
            inside = np.flatnonzero(comp == a)
            size = min(m - n_comp + 1, inside.size)
            if size < 2:
                continue
            S, da = walk_matrix(A[inside][:, inside], w[inside])
            lam_a, V = leading_eigenpairs(S, size, rng)
            psi = np.zeros((comp.size, size - 1))
            psi[inside] = V[:, 1:] / np.sqrt(w[inside] * da)[:, None]
            cols.append(psi)
            lams.append(lam_a[1:])
        psi, lam = np.hstack(cols), np.concatenate(lams)
        order = np.argsort(-lam, kind="stable")[:m]
        return psi[:, order], lam[order], n_comp
    return cols[0], lams[0], n_comp


def _component_vectors(U, comp, n_comp, w, vol, m, index):
    """The ``m`` smallest solutions ``x`` (n_comp x m, V-orthonormal) of the components'
    problem of :func:`walk_eigenvectors`, and their ``mu``."""
    if m == n_comp and n_comp <= DENSE_EIGEN_NODES:  # all of them: indicators will do
        return np.diag(1.0 / np.sqrt(vol)), np.zeros(n_comp)
    i, j, length = (np.array(v) for v in zip(*component_bridges(U, comp, n_comp, index)))
    i, j = i.astype(np.int64), j.astype(np.int64)
    weight = w[i] * w[j] / np.square(length)
    a, b = comp[i], comp[j]
    C = sp.csr_matrix((np.r_[weight, weight], (np.r_[a, b], np.r_[b, a])),
                      shape=(n_comp, n_comp))
    L = sp.diags(np.asarray(C.sum(axis=1)).ravel()) - C
    s = 1.0 / np.sqrt(vol)
    M = (sp.diags(s) @ L @ sp.diags(s)).toarray()
    mu, Y = scipy.linalg.eigh(0.5 * (M + M.T), subset_by_index=[0, m - 1])
    return Y * s[:, None], mu


def normalise_rows(P):
    """Each row divided by its length (Ng, Jordan & Weiss's normalisation)."""
    norm = np.sqrt(np.einsum("ij,ij->i", P, P))
    return P / np.where(norm > 0, norm, 1.0)[:, None]


class NeighborGraphMap:
    """The embedding ``e`` of the module docstring, fitted on the training points, as a
    feature map: ``map(X)`` gives the features of any rows (training or new) and
    ``kdiag(X)`` their ``K(x, x) = 1``.

    Build it with :meth:`fit`. Attributes: ``nodes`` (the graph's points), ``weights``
    (their weights), ``graph`` (the symmetric adjacency, CSR), ``psi`` (the random
    walk's eigenvectors at the nodes), ``eigenvalues``, ``n_components`` (the number
    of graph components before they were joined), ``features`` (the training rows'
    features) and ``node_of_row`` (each training row's node, -1 for rows outside the
    sample of a large graph).
    """

    # The closed-form maps' centre, from which new rows' range is judged: none here (new
    # rows are placed through their neighbours, no semimetric of raw rows is summed).
    c = None

    def __init__(self, nodes, weights, graph, psi, eigenvalues, n_neighbors, n_components):
        self.nodes, self.weights, self.graph = nodes, weights, graph
        self.psi, self.eigenvalues = psi, eigenvalues
        self.n_neighbors, self.n_components = n_neighbors, n_components
        self._node_features = normalise_rows(psi)
        self._index = None
        self.features = self.node_of_row = None

    @classmethod
    def fit(cls, X, w, *, n_neighbors, n_clusters, random_state=None, owner="KernelKGroups"):
        """The map of the training rows ``X`` (weights ``w > 0``) with ``n_clusters``
        feature columns; checks ``n_neighbors`` and the memory first."""
        rng = np.random.default_rng(random_state)
        clock = [time.perf_counter()]
        seconds = {}

        def lap(name):
            clock.append(time.perf_counter())
            seconds[name] = clock[-1] - clock[-2]

        U, node, wn = distinct_rows(X, w)
        n_neighbors = neighbors_for(U.shape[0], X.shape[0], n_neighbors, owner)
        check_graph_size(U.shape[0], X.shape[0], n_neighbors, n_clusters, owner)
        keep = np.arange(U.shape[0])
        if keep.size > GRAPH_NODES:
            keep = np.sort(rng.choice(keep.size, GRAPH_NODES, replace=False))
        counts = neighbour_counts(U[keep], n_neighbors, minimum=n_clusters + 1)
        keep, counts = keep[counts > 0], counts[counts > 0]
        index = _index(U[keep])
        A, scale = knn_graph(U[keep], n_neighbors, index, counts)
        A = join_near_components(U[keep], A, scale, counts, index)
        lap("graph")
        psi, lam, n_comp = walk_eigenvectors(U[keep], A, wn[keep], n_clusters, rng, index)
        lap("eigenvectors")
        out = cls(U[keep], wn[keep], A, psi, lam, n_neighbors, n_comp)
        out.scale = scale
        out._index = index
        where = np.full(U.shape[0], -1, dtype=np.int64)
        where[keep] = np.arange(keep.size)
        out.node_of_row = where[node]
        out.features = np.empty((X.shape[0], psi.shape[1]))
        is_node = out.node_of_row >= 0
        out.features[is_node] = out._node_features[out.node_of_row[is_node]]
        if not is_node.all():  # the same placement as new points get
            out.features[~is_node] = out(X[~is_node])
        lap("placement")
        out.seconds = seconds
        return out

    def __call__(self, X, out=None):
        """Features of the rows of ``X``: a row equal to a node takes the node's; any
        other its neighbours' through the Nyström extension (module docstring)."""
        F = np.empty((X.shape[0], self.psi.shape[1])) if out is None else out
        for a in range(0, X.shape[0], BLOCK_ROWS):
            F[a:a + BLOCK_ROWS] = self._place(X[a:a + BLOCK_ROWS])
        return F

    def _place(self, Xb):
        if self._index is None:
            self._index = _index(self.nodes)
        dist, nb = self._index.kneighbors(Xb, n_neighbors=min(self.n_neighbors,
                                                               self.nodes.shape[0]))
        s = dist[:, min(LOCAL_SCALE, dist.shape[1]) - 1]
        with np.errstate(divide="ignore", invalid="ignore"):  # a point at 0: taken below
            q = dist ** 2 / (s[:, None] * self.scale[nb])
        q = np.where(np.isfinite(q), q, 0.0)
        # the edges' weights exp(-q) of the graph, scaled by each row's largest (the
        # walk's step is their normalised share: far points keep their digits)
        a = self.weights[nb] * np.exp(q.min(axis=1, keepdims=True) - q)
        P = np.einsum("ij,ijc->ic", a, self.psi[nb]) / a.sum(axis=1)[:, None]
        F = normalise_rows(P / np.maximum(self.eigenvalues, _LAMBDA_FLOOR)[None, :])
        same = dist[:, 0] == 0.0
        F[same] = self._node_features[nb[same, 0]]
        return F

    def kdiag(self, X):
        """``K(x, x) = ||e(x)||^2 = 1`` for every row."""
        return np.ones(X.shape[0])

    def node_rows(self, kept):
        """One row of the training data per node, in the nodes' order (``kept``: the
        indices of the rows the map was fitted on)."""
        at = np.flatnonzero(self.node_of_row >= 0)
        _, first = np.unique(self.node_of_row[at], return_index=True)
        return kept[at[first]]


def neighbors_for(n_distinct, n_samples, n_neighbors, owner):
    """The neighbours the graph of ``n_distinct`` distinct points links each to:
    ``n_neighbors``, or when that many are not there, all the others (one fewer than
    the distinct points) with a :class:`~kgroups.exceptions.DistinctRowsWarning` saying
    so; an error when there is no other point."""
    if n_neighbors < n_distinct:
        return n_neighbors
    if n_distinct < 2:
        raise InvalidParameterError(
            f"{owner}: X has {n_distinct} distinct point(s) of positive weight "
            f"(n_samples={n_samples}); semimetric='nearest_neighbors' needs at least 2 to "
            "build a graph")
    import warnings

    from .._errors import user_stacklevel
    from ..exceptions import DistinctRowsWarning

    warnings.warn(f"{owner}: n_neighbors={n_neighbors} but X has {n_distinct} distinct points "
                  f"of positive weight: the neighbourhood graph links each point to the "
                  f"{n_distinct - 1} others", DistinctRowsWarning, stacklevel=user_stacklevel())
    return n_distinct - 1


def check_graph_size(n_distinct, n_samples, n_neighbors, n_clusters, owner):
    """Refuse, naming the values, an ``n_neighbors`` or ``n_clusters`` the distinct
    points cannot support, and a graph whose memory does not fit."""
    if n_neighbors >= n_distinct:
        raise InvalidParameterError(
            f"{owner}: n_neighbors={n_neighbors} should be below the number of distinct "
            f"points, {n_distinct} (of {n_samples} samples), for semimetric="
            "'nearest_neighbors'; use a smaller n_neighbors")
    if n_clusters > n_distinct:
        raise InvalidParameterError(
            f"{owner}: n_clusters={n_clusters} should be at most the number of distinct "
            f"points, {n_distinct}, for semimetric='nearest_neighbors' (each cluster is a "
            "direction of the graph's embedding)")
    nodes = min(n_distinct, GRAPH_NODES)
    need = (8 * 9 * nodes * (n_neighbors + 1) + 8 * nodes * (4 * n_clusters + 32)
            + 8 * 3 * min(n_samples, BLOCK_ROWS) * n_neighbors * (n_clusters + 2)
            + 8 * n_samples * (n_clusters + 2))
    check_fits(need, f"{owner}: the neighbourhood graph of {nodes} points with "
               f"n_neighbors={n_neighbors} and its {n_clusters} eigenvectors",
               "fewer samples or a smaller n_neighbors")
