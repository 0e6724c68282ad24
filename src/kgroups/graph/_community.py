r"""Community detection: kernel k-groups on the negative Bethe Hessian (TPAMI section 5.2).

França, Rizzo & Vogelstein (TPAMI 43(12), 2021) run kernel k-groups (Algorithm 2) with
the kernel :math:`G = -H_r`, the negative Bethe Hessian of Saade et al. (NIPS
2014), :math:`H_r = (r^2 - 1) I - r A + D`, started from the Bethe Hessian
spectral clustering. ``G`` is indefinite, so kernel k-means has no convergence
guarantee on it, but Hartigan's moves raise

.. math:: Q = \sum_j \frac{1}{s_j} \sum_{x, y \in C_j} w_x w_y G_{xy}

at every step for any symmetric ``G`` (paper eq. 50). With
:math:`B = \mathrm{diag}(w) G\, \mathrm{diag}(w)` stored sparse (``nnz(A) + n``
entries), a move of node ``i`` costs O(degree of i) and a sweep
O(n k + moves · degree): memory and time are O(edges), never O(n^2).

Isolated nodes (degree 0) carry no information and would have weight 0 with
``weights="degree"``: they are left out of the Bethe Hessian and of the
k-groups run, and then given the largest community; ``isolated_`` lists them.
Disconnected graphs need nothing special (the Bethe Hessian is block diagonal).

Edge weights (``weight="weight"``) change the kernel only: :math:`G = -H^w_r`,
the weighted Bethe Hessian of :mod:`kgroups.graph._bethe` (equal weights give
:math:`H_r` exactly). The node weights ``weights="degree"`` count edges, and the
quality scores (modularity, coverage, performance) count edges too.
"""

from __future__ import annotations

import time
import warnings
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin

from .._kgroups import KernelKGroups
from .._progress import running
from .._reprs import short_repr
from .._validation import (
    PARAMETER_CONSTRAINTS,
    ConstrainedParams,
    InvalidParameterError,
    check_init_labels,
    label_array,
    validated,
)
from ._bethe import (
    as_rng,
    core_hessian,
    kmeans_rows,
    negative_eigenpairs,
    no_structure,
    smallest_eigenpairs,
)
from ._io import graph_data, require_edges
from ._metrics import quality
from ._renamed import renamed


class CommunityKGroups(ConstrainedParams, ClusterMixin, BaseEstimator):
    r"""Kernel k-groups on the negative Bethe Hessian of a graph.

    Steps (TPAMI section 5.2): (1) ``r`` and the sparse Bethe Hessian
    :math:`H_r` of the graph without its isolated nodes; (2) if ``n_clusters`` is
    None, k = the number of negative eigenvalues of :math:`H_r` (Lanczos, capped
    at ``max_k``); (3) the Bethe Hessian clustering, k-means on the eigenvectors
    of the k smallest eigenvalues (``init="bethe"``), or random labels; (4)
    kernel k-groups (paper Algorithm 2) with :math:`G = -H_r` and weights
    :math:`w_i = 1` (``weights="none"``) or :math:`w_i = d_i` (``"degree"``).
    Step (4) is the public estimator, ``KernelKGroups(n_clusters=k,
    kernel="precomputed", engine="sparse", init=<start>).fit(-H_r,
    sample_weight=w)``: this class only builds :math:`-H_r` and the start.

    The paper's text sets :math:`\mathcal W = \mathcal D` (degree weights), but
    the authors' code runs :math:`w_i = 1` (guisf/kgroups), and
    ``weights="none"`` reproduces Tables IV and V to the printed digits, so it
    is the default. Degree weights do better on sparse graphs with many
    communities, such as the SBM of Fig. 5 (n = 1000, d = 3, k = 5 and 15), where
    unit weights can end below the Bethe start (``kgroups reproduce tpami-fig5``
    and ``tpami-fig5-ablation`` compare the two); use ``weights="degree"`` there.

    Parameters
    ----------
    n_clusters : int or None, default=None
        None: estimated from the Bethe Hessian (:func:`kgroups.graph.estimate_k`);
        with fewer than 2 negative eigenvalues there is no community structure to
        find, and k = 1 (one community, with a ``UserWarning``).
    r : "sqrt-mean-degree", "zeta" or float, default="sqrt-mean-degree"
        See :func:`kgroups.graph.bethe_hessian`; computed on the whole graph.
    weight : str or None, default="weight"
        The networkx edge attribute holding the edge weights, as networkx's
        algorithms read it (an edge without it weighs 1; for a matrix, its
        entries; see :func:`kgroups.graph.as_adjacency`), used through the
        weighted Bethe Hessian (:func:`kgroups.graph.bethe_hessian`); a graph
        without weights gives :math:`H_r` itself. None: every edge counts 1.
    weights : {"none", "degree"}, default="none"
        Node weights of kernel k-groups: 1, or the degree (number of edges).
    init : {"bethe", "random"} or array of shape (n_nodes,), default="bethe"
        Given labels are integers in ``[0, n_clusters)`` (``n_clusters=None``:
        k is their maximum + 1); a community they leave empty is filled by
        :class:`~kgroups.KernelKGroups` with the node of best gain.
    n_init : int, default=1
        Runs from random labels (``init="random"``, drawn by
        :class:`~kgroups.KernelKGroups` from ``random_state``); the best
        objective is kept.
    max_k : int, default=100
        Cap of the estimate of k.
    max_iter : int, default=100
        Maximum Hartigan sweeps.
    tol : float, default=0.0
        Stop when a sweep moves fewer than ``tol * n`` nodes.
    kmeans_n_init : int, default=10
        Restarts of the k-means of the spectral initialisation; past 100,000
        nodes they run on 100,000 rows drawn at random, and one k-means on all
        rows starts from the best.
    random_state : int, Generator, RandomState or None, default=None
        Seeds the Lanczos starting vectors, the k-means of the Bethe start and the
        random starts of kernel k-groups.
    verbose : int, default=0
        Passed to :class:`~kgroups.KernelKGroups`: with ``verbose=1`` it prints the
        engine, each restart and each sweep.

    Attributes
    ----------
    labels_ : ndarray of shape (n_nodes,)
    n_clusters_ : int
    bethe_labels_ : ndarray of shape (n_nodes,) or None
        The Bethe Hessian clustering the run started from (``init="bethe"``).
    objective_ : float
        Q of the final partition (weighted, kernel ``-H_r``).
    r_ : float
    n_iter_ : int
    n_moves_ : list of int
        Nodes moved in each sweep.
    nodes_ : list
        Node identifiers in the order of ``labels_``.
    isolated_ : ndarray of int
        Positions of the isolated nodes.
    timings_ : dict
        Seconds spent on the eigenvectors (estimate of k included), the k-means of
        the initialisation and the kernel k-groups runs.
    modularity_, coverage_, performance_ : float
        Quality of ``labels_`` (:mod:`kgroups.graph`): modularity with the edge
        weights used for the fit, coverage and performance counting edges.

    Raises
    ------
    ValueError
        For a parameter outside its constraint (the error is also a
        ``TypeError``), a graph without nodes or edges, an unreadable file, bad
        ``init`` labels, or ``n_clusters`` above the number of non-isolated
        nodes.

    See Also
    --------
    detect_communities : The function form.
    estimate_k : The number of communities from the Bethe Hessian.
    bethe_spectral : The Bethe Hessian clustering it starts from.
    kgroups.KernelKGroups : Kernel k-groups on points.

    Notes
    -----
    The input is a graph, not a feature matrix, so scikit-learn's estimator checks
    do not apply.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, sections 3.1 and 5.2,
       equations 30-35.
    .. [2] A. Saade, F. Krzakala, L. Zdeborová, "Spectral clustering of graphs with
       the Bethe Hessian", NeurIPS 27, 406-414, 2014.

    Examples
    --------
    >>> from kgroups.graph import CommunityKGroups, stochastic_block_model
    >>> from kgroups.metrics import overlap
    >>> A, y = stochastic_block_model(300, 3, 12.0, 2.5, random_state=0)
    >>> cd = CommunityKGroups(random_state=0).fit(A)
    >>> cd.n_clusters_, bool(overlap(y, cd.labels_) > 0.9)
    (3, True)
    """

    _parameter_constraints = PARAMETER_CONSTRAINTS["CommunityKGroups"]

    def __init__(self, n_clusters=None, *, r="sqrt-mean-degree", weight="weight", weights="none",
                 init="bethe", n_init=1, max_k=100, max_iter=100, tol=0.0, kmeans_n_init=10,
                 random_state=None, verbose=0):
        self.n_clusters = n_clusters
        self.r = r
        self.weight = weight
        self.weights = weights
        self.init = init
        self.n_init = n_init
        self.max_k = max_k
        self.max_iter = max_iter
        self.tol = tol
        self.kmeans_n_init = kmeans_n_init
        self.random_state = random_state
        self.verbose = verbose

    def fit(self, X, y=None):
        """Detect communities in the graph ``X``.

        Parameters
        ----------
        X : networkx graph, scipy.sparse / ndarray adjacency, GraphData or path
            Made simple and undirected by :func:`kgroups.graph.as_adjacency`.
        y : None
            Ignored; present for the scikit-learn API.

        Returns
        -------
        self
            The fitted estimator (``labels_`` and the other attributes set).

        See Also
        --------
        kgroups.graph.detect_communities : The function form.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.2.
        .. [2] A. Saade, F. Krzakala, L. Zdeborová, "Spectral clustering of graphs with
           the Bethe Hessian", NeurIPS 27, 406-414, 2014.

        Examples
        --------
        >>> import networkx as nx
        >>> from kgroups.graph import CommunityKGroups
        >>> G = nx.barbell_graph(5, 0)   # two 5-cliques joined by one edge
        >>> cd = CommunityKGroups(n_clusters=2, random_state=0).fit(G)
        >>> cd.labels_.tolist()
        [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
        """
        owner = type(self).__name__
        self._validate_params()
        data = graph_data(X, owner, "X", weight=self.weight)
        require_edges(data, owner, "X")
        A = data.adjacency
        deg = np.diff(A.indptr).astype(np.float64)
        H, self.r_, core = core_hessian(A, self.r, owner, data.weights, data.nodes)
        rng = as_rng(self.random_state)
        init, k_init = self._given_labels(A.shape[0], core)
        t0 = time.perf_counter()
        with running(f"{owner}: the Bethe Hessian's eigenvectors"):  # on a terminal
            k, V = self._k_and_vectors(H, k_init, rng)
        t1 = time.perf_counter()
        with running(f"{owner}: k-means on the eigenvectors' rows"):
            start = self._start(core.size, k, init, V, rng)
        t2 = time.perf_counter()
        w = deg[core] if self.weights == "degree" else None
        est = self._kgroups(k, start, rng)
        with _speaking_as("KernelKGroups", owner):
            est.fit(-H, sample_weight=w)
        self.timings_ = {"eigenvectors": t1 - t0, "kmeans": t2 - t1,
                         "kgroups": time.perf_counter() - t2}
        self.nodes_, self.isolated_ = data.nodes, np.flatnonzero(deg == 0)
        self.n_clusters_ = k
        self.labels_ = _with_isolated(est.labels_, core, A.shape[0])
        self.bethe_labels_ = (_with_isolated(start, core, A.shape[0])
                              if isinstance(self.init, str) and self.init == "bethe" else None)
        self.objective_, self.n_iter_ = float(est.objective_), est.n_iter_
        self.n_moves_ = list(est.n_moves_)
        self._quality(data)
        return self

    def _given_labels(self, n, core):
        """Given starting labels of all n nodes, checked, restricted to the core, and k.

        ``(None, None)`` for ``init="bethe"`` or ``"random"``.
        """
        if isinstance(self.init, str):
            return None, None
        k = self.n_clusters
        if k is None:  # k = max label + 1; non-numbers get the error check_init_labels gives
            lab = label_array(self.init, type(self).__name__, "init labels")
            numeric = lab.size and lab.dtype.kind in "iuf" and np.all(np.isfinite(lab))
            k = max(int(lab.max()) + 1, 1) if numeric else max(len(set(lab.ravel().tolist())), 1)
        lab = check_init_labels(self.init, n, k, type(self).__name__)
        return lab[core], k

    def _k_and_vectors(self, H, k_init, rng):
        """k (given, from the init labels, or estimated) and Bethe eigenvectors if needed."""
        n, V = H.shape[0], None
        if self.n_clusters is not None:
            k = int(self.n_clusters)
        elif k_init is not None:
            k = k_init
        else:
            _, V = negative_eigenpairs(H, self.max_k, rng)
            k = V.shape[1]
            if k < 2:
                warnings.warn(no_structure(type(self).__name__, self.r_, k), UserWarning,
                              stacklevel=3)
                k = 1
        if k > n:
            raise InvalidParameterError(
                f"{type(self).__name__}: n_clusters={k} should be at most the number of "
                f"non-isolated nodes, {n}")
        bethe = isinstance(self.init, str) and self.init == "bethe"
        if bethe and k > 1 and (V is None or V.shape[1] != k):
            _, V = smallest_eigenpairs(H, k, rng)
        return k, V

    def _start(self, n, k, init, V, rng):
        """The start of the k-groups run: Bethe labels, the given labels, or "random"."""
        if init is not None:
            return init
        if self.init == "bethe":
            return kmeans_rows(V, k, self.kmeans_n_init, rng) if k > 1 else np.zeros(n, np.int64)
        return "random"

    def _kgroups(self, k, start, rng):
        """The public estimator on the Gram matrix ``-H_r`` (paper Algorithm 2)."""
        seed = int(rng.integers(np.iinfo(np.int32).max))
        n_init = self.n_init if isinstance(start, str) else 1
        return KernelKGroups(n_clusters=k, kernel="precomputed", engine="sparse", init=start,
                             n_init=n_init, max_iter=self.max_iter, tol=self.tol,
                             random_state=seed, verbose=self.verbose)

    def _quality(self, data):
        self.modularity_, self.coverage_, self.performance_ = quality(data, self.labels_)


@contextmanager
def _speaking_as(inner, owner):
    """Errors and UserWarnings (ConvergenceWarnings too) of ``inner``, said by ``owner``."""
    def reword(msg):
        if msg.startswith(f"{inner}: "):
            msg = f"{owner}: " + msg[len(inner) + 2:]
        return msg

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            yield
        except InvalidParameterError as exc:
            raise InvalidParameterError(reword(str(exc))) from None
    for w in caught:
        msg = str(w.message)
        warnings.warn(reword(msg) if issubclass(w.category, UserWarning) else msg,
                      w.category, stacklevel=4)


def _with_isolated(core_labels, core, n):
    """Labels of all n nodes: isolated ones join the largest community."""
    labels = np.empty(n, dtype=np.int64)
    labels[core] = core_labels
    if core.size < n:
        biggest = int(np.bincount(core_labels).argmax()) if core.size else 0
        mask = np.ones(n, bool)
        mask[core] = False
        labels[mask] = biggest
    return labels


@dataclass
class CommunityResult:
    """What :func:`detect_communities` returns (see :class:`CommunityKGroups`).

    Attributes
    ----------
    labels : ndarray of shape (n_nodes,)
        Community of each node, in ``0..k-1``.
    n_clusters : int
        Number of communities k.
    bethe_labels : ndarray of shape (n_nodes,) or None
        The Bethe Hessian clustering the run started from (``init="bethe"``).
    objective : float
        Q of the final partition (kernel ``-H_r``).
    modularity, coverage, performance : float
        Quality of ``labels`` (:func:`modularity`, :func:`partition_quality`).
    r : float
        The ``r`` of the Bethe Hessian.
    n_iter : int
        Sweeps of the kernel k-groups run.
    nodes : list
        Node identifiers in the order of ``labels``.
    isolated : ndarray of int
        Positions of the isolated nodes.

    See Also
    --------
    detect_communities : The function that returns it.
    CommunityKGroups : The estimator; its fitted attributes hold the same.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.2.
    .. [2] M. E. J. Newman, M. Girvan, "Finding and evaluating community structure
       in networks", Phys. Rev. E 69, 026113, 2004.

    Examples
    --------
    >>> import networkx as nx
    >>> from kgroups.graph import detect_communities
    >>> res = detect_communities(nx.barbell_graph(5, 0), 2, random_state=0)
    >>> res  # doctest: +ELLIPSIS
    CommunityResult(n_nodes=10, n_clusters=2, modularity=0.4..., ...)
    >>> res.labels.tolist()
    [0, 0, 0, 0, 0, 1, 1, 1, 1, 1]
    """

    labels: np.ndarray
    n_clusters: int
    bethe_labels: np.ndarray | None
    objective: float
    modularity: float
    coverage: float
    performance: float
    r: float
    n_iter: int
    nodes: list
    isolated: np.ndarray

    def __repr__(self):
        return short_repr(self, n_nodes=len(self.labels), n_clusters=self.n_clusters,
                          modularity=self.modularity, coverage=self.coverage,
                          performance=self.performance, objective=self.objective,
                          r=self.r, n_iter=self.n_iter, n_isolated=len(self.isolated))


@renamed(k="n_clusters")
@validated
def detect_communities(graph, n_clusters=None, *, weight="weight", weights="none",
                       init="bethe", r="sqrt-mean-degree", random_state=None, **params):
    """Function form of :class:`CommunityKGroups`.

    Parameters
    ----------
    graph : networkx graph, scipy.sparse / ndarray adjacency, GraphData or path
        Made simple and undirected by :func:`kgroups.graph.as_adjacency`.
    n_clusters : int or None, default=None
        Number of communities; None estimates it from the Bethe Hessian
        (:func:`estimate_k`; a graph without community structure gives one
        community, with a warning).
    weight : str or None, default="weight"
        The networkx edge attribute holding the edge weights (an edge without it
        weighs 1; see :class:`CommunityKGroups`); None: every edge counts 1.
    weights : {"none", "degree"}, default="none"
        Node weights of kernel k-groups: 1, or the degrees (numbers of edges).
    init : {"bethe", "random"} or array of shape (n_nodes,), default="bethe"
        Start: the Bethe Hessian clustering, random labels or given labels.
    r : "sqrt-mean-degree", "zeta" or float, default="sqrt-mean-degree"
        Parameter of the Bethe Hessian (see :func:`bethe_hessian`).
    random_state : int, Generator, RandomState or None, default=None
        Seeds every random step (see :class:`CommunityKGroups`).
    **params : dict
        Other parameters of :class:`CommunityKGroups` (``n_init``, ``max_k``,
        ``max_iter``, ``tol``, ``kmeans_n_init``, ``verbose``).

    Returns
    -------
    result : CommunityResult
        The fitted estimator's attributes: ``labels`` (one per node, in the order
        of ``nodes``), ``n_clusters``, ``bethe_labels``, ``objective``,
        ``modularity``, ``coverage``, ``performance``, ``r``, ``n_iter``, ``nodes``
        and ``isolated``.

    See Also
    --------
    CommunityKGroups : The estimator.
    CommunityResult : What this function returns.
    partition_quality : Coverage and performance of a partition.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.2, Tables I and
       IV.
    .. [2] A. Saade, F. Krzakala, L. Zdeborová, "Spectral clustering of graphs with
       the Bethe Hessian", NeurIPS 27, 406-414, 2014.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.karate_club_graph()  # 'weight': Zachary's interaction counts, used
    >>> res = detect_communities(G, random_state=0)
    >>> res.n_clusters, len(res.labels)
    (2, 34)
    """
    owner = "detect_communities"
    data = graph_data(graph, owner, "graph", weight=weight)
    require_edges(data, owner, "graph")
    est = CommunityKGroups(n_clusters, weight=weight, weights=weights, init=init, r=r,
                           random_state=random_state, **params)
    with _speaking_as("CommunityKGroups", owner):
        est.fit(data)
    return CommunityResult(est.labels_, est.n_clusters_, est.bethe_labels_, est.objective_,
                           est.modularity_, est.coverage_, est.performance_, est.r_,
                           est.n_iter_, est.nodes_, est.isolated_)
