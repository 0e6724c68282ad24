r"""Quality of a graph partition: modularity, coverage, performance (and overlap).

For a simple undirected graph with ``n`` nodes, ``m`` edges, degrees ``d_i``
and a partition into communities :math:`C_1, \dots, C_k` with :math:`L_c` edges
inside :math:`C_c` and degree sum :math:`D_c` (Fortunato, "Community detection in
graphs", Phys. Rep. 2010, the reference [51] of TPAMI Tables V, VI):

* modularity (Newman & Girvan 2004; Newman 2004 for weights), resolution
  :math:`\gamma`: :math:`Q = \sum_c L_c / m - \gamma (D_c / 2m)^2`, where on a
  weighted graph :math:`m`, :math:`L_c` and :math:`D_c` sum edge weights;
* coverage: the fraction of edges inside communities, :math:`\sum_c L_c / m`;
* performance: the fraction of node pairs classified right (an intra-community
  edge or an inter-community non-edge), over the :math:`n(n-1)/2` pairs.

These follow the definitions of ``networkx.community.modularity`` and
``networkx.community.partition_quality`` (the tests check the agreement) but
work from the sparse adjacency matrix in O(n + edges), never O(n^2).
Labels may be any values (integers, strings), one per node; NaN is refused.
As in networkx, modularity uses the edge weights (``weight="weight"``: the networkx
edge attribute, matrix entries, the weights of a :class:`~kgroups.graph.GraphData`;
an edge without one weighs 1), and coverage and performance count edges.
``overlap`` (paper eq. 63) is :func:`kgroups.metrics.overlap`.
"""

from __future__ import annotations

import numpy as np

from .._validation import InvalidParameterError, encode_labels, validated
from ._io import graph_data


def _sums(M, z):
    """Total and intra-community sums of the symmetric CSR ``M`` (each edge once) and
    the per-community sums of its row sums (degrees)."""
    rows = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
    same = z[rows] == z[M.indices]
    deg = np.bincount(rows, weights=M.data, minlength=M.shape[0])
    return M.data.sum() / 2.0, M.data[same].sum() / 2.0, np.bincount(z, weights=deg)


def _counts(data, labels, owner):
    """n, m, intra-community edges, per-community degree sums and sizes of the
    :class:`GraphData` ``data``, and the same three sums of its edge weights."""
    A = data.adjacency
    n = A.shape[0]
    z, _ = encode_labels(labels, n, owner, "labels")
    m, intra, dsum = _sums(A, z)
    sizes = np.bincount(z).astype(np.float64)
    weighted = (m, intra, dsum) if data.weights is None else _sums(data.weights, z)
    return n, m, intra, dsum, sizes, weighted


def _no_edges(what, owner):
    return InvalidParameterError(f"{owner}: {what} is undefined for a graph without edges; "
                                 "expected a graph with at least one edge")


def _modularity(counts, resolution, owner="modularity"):
    m, intra, dsum = counts[-1]
    if m == 0:
        raise _no_edges("modularity", owner)
    return float(intra / m - resolution * np.sum((dsum / (2.0 * m)) ** 2))


def _coverage(counts, owner="coverage"):
    n, m, intra = counts[:3]
    if m == 0:
        raise _no_edges("coverage", owner)
    return float(intra / m)


def _performance(counts, owner="performance"):
    n, m, intra, _, sizes, _ = counts
    if n < 2:
        raise InvalidParameterError(f"{owner}: performance needs a graph of at least 2 nodes "
                                    f"(it counts node pairs), got {n}")
    pairs = n * (n - 1) / 2.0
    inter_pairs = (n * n - np.sum(sizes ** 2)) / 2.0
    inter_non_edges = inter_pairs - (m - intra)
    return float((intra + inter_non_edges) / pairs)


@validated
def modularity(graph, labels, resolution=1.0, *, weight="weight"):
    """Newman's modularity of the partition ``labels`` of ``graph``.

    Parameters
    ----------
    graph : networkx graph, sparse/dense adjacency, GraphData or path
        Made simple and undirected by :func:`kgroups.graph.as_adjacency`.
    labels : array-like of shape (n_nodes,)
        Community of each node (in the node order of the adjacency matrix); every
        value is a community, -1 too (community detection sets no node aside, and
        a node left out would change the graph the quality is measured on).
    resolution : float, default=1.0
        The resolution :math:`\\gamma` weighing the expected edges (1: Newman's
        modularity; larger values favour smaller communities).
    weight : str or None, default="weight"
        The edge weights, as :func:`kgroups.graph.as_adjacency` reads them (the
        networkx edge attribute; an edge without it weighs 1), as
        ``networkx.community.modularity`` does; None: every edge counts 1.

    Returns
    -------
    float
        :math:`Q = \\sum_c L_c / m - \\gamma (D_c / 2m)^2`, at most 1; with
        weights, :math:`m`, :math:`L_c` and :math:`D_c` sum edge weights.

    See Also
    --------
    partition_quality : Coverage and performance.
    networkx.algorithms.community.quality.modularity : The networkx version.

    References
    ----------
    .. [1] M. E. J. Newman, M. Girvan, "Finding and evaluating community structure
       in networks", Phys. Rev. E 69, 026113, 2004.
    .. [2] M. E. J. Newman, "Analysis of weighted networks", Phys. Rev. E 70, 056131,
       2004.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.barbell_graph(3, 0)
    >>> print(round(modularity(G, [0, 0, 0, 1, 1, 1]), 4))
    0.3571
    >>> G[2][3]["weight"] = 4.0   # the bridge weighs 4: 2 (3/10 - (10/20)^2)
    >>> print(round(modularity(G, [0, 0, 0, 1, 1, 1]), 4))
    0.1
    """
    data = graph_data(graph, "modularity", "graph", weight=weight)
    return _modularity(_counts(data, labels, "modularity"), resolution)


@validated
def coverage(graph, labels):
    """Fraction of the edges that join two nodes of the same community.

    Parameters
    ----------
    graph : networkx graph, sparse/dense adjacency, GraphData or path
        Made simple and undirected by :func:`kgroups.graph.as_adjacency`; at least
        one edge.
    labels : array-like of shape (n_nodes,)
        Community of each node (in the node order of the adjacency matrix); any
        values, NaN refused; every value is a community, -1 too (see
        :func:`modularity`).

    Returns
    -------
    float
        :math:`\\sum_c L_c / m`, in [0, 1].

    See Also
    --------
    performance : The other measure of partition_quality.
    modularity : Newman's modularity.

    References
    ----------
    .. [1] S. Fortunato, "Community detection in graphs", Physics Reports 486(3-5),
       75-174, 2010.

    Examples
    --------
    >>> import networkx as nx
    >>> print(round(coverage(nx.barbell_graph(3, 0), [0, 0, 0, 1, 1, 1]), 4))
    0.8571
    """
    return _coverage(_counts(graph_data(graph, "coverage", "graph", weight=None), labels,
                             "coverage"))


@validated
def performance(graph, labels):
    """Fraction of node pairs that are intra-community edges or inter-community non-edges.

    Parameters
    ----------
    graph : networkx graph, sparse/dense adjacency, GraphData or path
        Made simple and undirected by :func:`kgroups.graph.as_adjacency`; at least
        one edge and two nodes.
    labels : array-like of shape (n_nodes,)
        Community of each node (in the node order of the adjacency matrix); any
        values, NaN refused; every value is a community, -1 too (see
        :func:`modularity`).

    Returns
    -------
    float
        The fraction of the :math:`n(n-1)/2` node pairs classified right, in [0, 1].

    See Also
    --------
    coverage : The fraction of intra-community edges.
    modularity : Newman's modularity.

    References
    ----------
    .. [1] S. Fortunato, "Community detection in graphs", Physics Reports 486(3-5),
       75-174, 2010.

    Examples
    --------
    >>> import networkx as nx
    >>> print(round(performance(nx.barbell_graph(3, 0), [0, 0, 0, 1, 1, 1]), 4))
    0.9333
    """
    return _performance(_counts(graph_data(graph, "performance", "graph", weight=None), labels,
                                "performance"))


@validated
def partition_quality(graph, labels):
    """``(coverage, performance)``, as ``networkx.community.partition_quality`` returns.

    Parameters
    ----------
    graph : networkx graph, sparse/dense adjacency, GraphData or path
        Made simple and undirected by :func:`kgroups.graph.as_adjacency`; at least
        one edge and two nodes.
    labels : array-like of shape (n_nodes,)
        Community of each node (in the node order of the adjacency matrix); any
        values, NaN refused; every value is a community, -1 too (see
        :func:`modularity`).

    Returns
    -------
    coverage : float
        As :func:`coverage`.
    performance : float
        As :func:`performance`.

    See Also
    --------
    coverage : The first number.
    performance : The second number.
    networkx.algorithms.community.quality.partition_quality : The networkx
        version.

    References
    ----------
    .. [1] S. Fortunato, "Community detection in graphs", Physics Reports 486(3-5),
       75-174, 2010.

    Examples
    --------
    >>> import networkx as nx
    >>> c, p = partition_quality(nx.barbell_graph(3, 0), [0, 0, 0, 1, 1, 1])
    >>> print(round(c, 4), round(p, 4))
    0.8571 0.9333
    """
    owner = "partition_quality"
    counts = _counts(graph_data(graph, owner, "graph", weight=None), labels, owner)
    return _coverage(counts, owner), _performance(counts, owner)


def quality(data, labels):
    """``(modularity, coverage, performance)`` of the clean :class:`GraphData` ``data``
    from one pass over the edges: modularity with its weights (if any), the others
    counting edges."""
    counts = _counts(data, labels, "CommunityKGroups")
    return _modularity(counts, 1.0), _coverage(counts), _performance(counts)
