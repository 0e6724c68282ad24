"""Graph input: networkx graphs, scipy.sparse / NumPy adjacency matrices and files.

Every input becomes a **simple undirected** graph: the adjacency matrix of its
edges (CSR, float64, symmetric, 0/1, zero diagonal), which is what the Bethe
Hessian of Saade, Krzakala & Zdeborová (NIPS 2014) and section 5.2 of França,
Rizzo & Vogelstein (TPAMI 43(12), 2021) are defined on, and, when ``weight`` names them,
its edge weights (a matrix of the same pattern, see below). Each departure from
that is handled explicitly and said in a :class:`GraphInputWarning`:

* directed input is symmetrised: an arc in either direction is an undirected
  edge, whose weight (when weighted) is the sum of the weights of its two arcs;
* self-loops are removed;
* weighted (``weight="weight"``, the default, as in networkx, or another networkx
  attribute name; for a matrix its entries, for an edge list the header's column
  of that name, else its third field): an edge without a weight weighs 1 (so a
  graph without weights is the unweighted graph), parallel edges are merged and
  their weights summed, and edges of weight 0 are no edges;
* unweighted (``weight=None``): every edge counts 1; multi-edges and matrix
  entries other than 1 are collapsed to single edges, and edge weights the input
  carries are ignored;
* isolated nodes are kept (they are reported, and handled by the community
  detector, see :class:`~kgroups.graph.CommunityKGroups`);
* disconnected graphs are accepted as they are.

Edge weights must be finite numbers >= 0: a negative, NaN or infinite weight (or
one that is not a number) is refused, naming the edge, the line or the matrix
entry, and so is an invalid networkx ``'weight'`` attribute even when
``weight=None`` (a weight that cannot be right is a broken input, not one to
ignore).

Files: edge lists (one edge per line, first two fields are the end points; ``#``
and ``%`` start comments; separator whitespace/tab, as in SNAP's files, or a comma;
a header line is detected) and GML (``.gml``; ``label=`` names a node attribute
holding the ground truth).
"""

from __future__ import annotations

import os
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

from .._memory import check_fits
from .._reprs import short_repr
from .._validation import InvalidParameterError, describe, encode_labels, validated
from ._weights import (
    bad_matrix_entry,
    networkx_weights,
    parse_weights,
    undirected_line_weights,
)

# The kgroups package: warnings name the first caller outside it.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# Bytes per stored entry when a dense adjacency matrix becomes CSR: the nonzero
# positions (two int64), the values and the CSR copy (float64 + int64 index).
DENSE_TO_CSR_BYTES = 40


class _ZeroWeights(NamedTuple):
    """Edges of weight 0 a reader dropped (an edge of weight 0 is no edge): what
    :func:`require_edges` says when no edge is left."""

    dropped: int  # the edges (edge-list lines) of weight 0
    total: int  # all the edges (lines) the input gave
    noun: str  # "edge(s)" or "edge-list line(s)"
    source: str  # where the weights were read: "attribute 'weight'", "field 3", ...
    maker: str  # the function that read the input and dropped them
    adjacency: object  # the matrix the reader made (a matrix assigned since is another graph)
    carried: bool = False  # seen again in a GraphData: its edges of weight 0 are gone


def _note_zero_weights(data, dropped, total, noun, source, maker):
    """Record on ``data`` the ``dropped`` edges of weight 0 (if any) of the ``total``."""
    if dropped:
        data._zero_weights = _ZeroWeights(dropped, total, noun, source, maker, data.adjacency)
    return data


class GraphInputWarning(UserWarning):
    """The input graph was changed to a simple undirected graph (see :func:`as_adjacency`).

    See Also
    --------
    as_adjacency : What issues it.
    warnings.simplefilter : Turn it into an error, or silence it.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 3.1: the graphs are
       simple and undirected.

    Examples
    --------
    >>> import warnings
    >>> import networkx as nx
    >>> from kgroups.graph import GraphInputWarning, as_adjacency
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     g = as_adjacency(nx.DiGraph([(0, 1), (1, 0), (1, 2)]))
    >>> g.n_edges, caught[0].category is GraphInputWarning
    (2, True)
    """


@dataclass
class GraphData:
    """A graph as kgroups uses it.

    Attributes
    ----------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
        Symmetric 0/1 float64 matrix with a zero diagonal: the edges. To change the
        graph, assign a new matrix (it is checked and cleaned again by the next
        graph function); the matrix a graph function returned is not re-checked,
        so do not edit its arrays in place.
    nodes : list of length n
        The original node identifiers, in the order of the rows.
    labels : ndarray of shape (n,) or None
        Ground-truth communities ``0..k-1`` when the source gave them.
    weights : scipy.sparse.csr_matrix of shape (n, n) or None
        Edge weights (float64, finite, > 0) on exactly the entries of
        ``adjacency``, symmetric; None for an unweighted graph (every edge weighs
        1). Set when the edges carry weights other than 1 (and ``weight`` was not
        None); used by a graph function unless it is called with ``weight=None``.

    See Also
    --------
    as_adjacency : Makes one from a graph or a matrix.
    read_graph : Reads one from a file.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 3.1 (graphs as
       weighted adjacency matrices).

    Examples
    --------
    >>> import networkx as nx
    >>> from kgroups.graph import as_adjacency
    >>> g = as_adjacency(nx.path_graph(4))
    >>> g
    GraphData(n_nodes=4, n_edges=3, n_communities=None, weighted=False)
    >>> g.adjacency.toarray().tolist()[0]
    [0.0, 1.0, 0.0, 0.0]
    """

    adjacency: sp.csr_matrix
    nodes: list
    labels: np.ndarray | None = None
    weights: sp.csr_matrix | None = None
    # the (adjacency, weights) objects as graph_data cleaned them: a GraphData passed
    # on to the next graph function (detect_communities -> fit -> quality) is not
    # cleaned again (cleaning is a pass over every edge); a matrix assigned since
    # then is not one of these objects, so it is cleaned
    _cleaned: object = field(default=None, init=False, repr=False, compare=False)
    # the edges of weight 0 a reader dropped (a _ZeroWeights; None: none), used while
    # ``adjacency`` is the matrix it made: a graph whose edges all weigh 0 is refused as such
    _zero_weights: object = field(default=None, init=False, repr=False, compare=False)

    @property
    def n_nodes(self):
        return self.adjacency.shape[0]

    @property
    def n_edges(self):
        return self.adjacency.nnz // 2

    def __repr__(self):
        n_communities = None if self.labels is None else int(np.max(self.labels, initial=-1)) + 1
        return short_repr(self, n_nodes=self.n_nodes, n_edges=self.n_edges,
                          n_communities=n_communities, weighted=self.weights is not None)


@validated
def as_adjacency(graph, *, label=None, weight="weight"):
    """Turn ``graph`` into a :class:`GraphData` (simple, undirected, with its edge weights).

    Parameters
    ----------
    graph : networkx.Graph, scipy.sparse matrix, ndarray of shape (n, n), \
            GraphData, str or path
        A path is read by :func:`read_graph`. A matrix is an adjacency matrix
        (nonzero = edge). A list is refused: it could be a matrix or a list of
        edges (pass ``np.asarray`` or a networkx graph).
    label : str or None, default=None
        Node attribute (networkx graph or GML file) holding ground-truth
        communities; returned encoded as ``0..k-1`` in ``GraphData.labels``.
    weight : str or None, default="weight"
        The networkx edge attribute holding the edge weights, as networkx's own
        algorithms read it: an edge without it weighs 1, so a graph that carries
        no weights is the unweighted graph. For a matrix, its entries are the
        weights; for an edge list, the header's column of that name, else the
        third field; for a :class:`GraphData`, its ``weights``. The weights go to
        ``GraphData.weights``. None: unweighted, every edge counts 1 (the graph
        of TPAMI section 5.2), whatever weights the input carries.

    Returns
    -------
    GraphData
        The symmetric 0/1 CSR ``adjacency`` with a zero diagonal, the original
        ``nodes`` in the order of its rows, ``labels`` (None unless ``label``
        is given) and ``weights`` (None with ``weight=None`` or when every edge
        weighs 1).

    Raises
    ------
    ValueError
        For a graph without nodes, a matrix that is not a square
        array of numbers, an edge weight that is not a finite number >= 0 (naming
        the edge, matrix entry or line and the value; a networkx ``'weight'``
        attribute is checked even when ``weight=None``), an unreadable file, or an
        unsupported type; the message names the value and what was expected.

    See Also
    --------
    GraphData : What this function returns.
    read_graph : Read a graph from a file.
    GraphInputWarning : Issued when the input is changed.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 3.1.

    Examples
    --------
    >>> import networkx as nx
    >>> g = as_adjacency(nx.path_graph(4))
    >>> g.n_nodes, g.n_edges
    (4, 3)
    >>> G = nx.Graph([("a", "b", {"weight": 2.0}), ("b", "c", {"weight": 0.5})])
    >>> as_adjacency(G, weight="weight").weights.toarray().tolist()
    [[0.0, 2.0, 0.0], [2.0, 0.0, 0.5], [0.0, 0.5, 0.0]]
    """
    return graph_data(graph, "as_adjacency", "graph", label=label, weight=weight)


def graph_data(graph, owner, name, *, label=None, weight="weight"):
    """:func:`as_adjacency` for the other graph functions: errors name ``owner`` and ``name``."""
    if isinstance(graph, GraphData):
        data = _check_graph_data(graph, owner, name, weight)
    elif isinstance(graph, (str, bytes, os.PathLike)):
        data = _read(graph, owner, name, label=label, weight=weight)
    elif hasattr(graph, "adj") and hasattr(graph, "nodes"):
        data = _from_networkx(graph, label, owner, name, weight)
    elif sp.issparse(graph) or isinstance(graph, np.ndarray):
        if label is not None:
            raise InvalidParameterError(
                f"{owner}: label={label!r} needs a networkx graph or a GML file; "
                f"{name} is {describe(graph)}")
        A = clean_adjacency(graph, directed=None, owner=owner, name=name,
                            weighted=weight is not None)
        data = _with_weights(A, list(range(A.shape[0])), None, weight is not None)
    else:
        raise InvalidParameterError(
            f"{owner}: {name}={describe(graph)} (type {type(graph).__name__}) is not a graph; "
            "expected a networkx graph, a scipy.sparse or NumPy adjacency matrix, a GraphData "
            "or a path to an edge list / GML file (a list could be a matrix or a list of "
            "edges: pass np.asarray(...) or a networkx graph)")
    if data.n_nodes == 0:
        raise InvalidParameterError(
            f"{owner}: {name} is a graph without nodes; expected at least one node")
    data._cleaned = (data.adjacency, data.weights)
    return data


def _with_weights(M, nodes, labels, weighted):
    """GraphData of the clean matrix ``M``: 0/1 edges, and ``M`` as weights if weighted
    (and not all 1: a graph whose edges all weigh 1 is unweighted)."""
    if not weighted or np.all(M.data == 1.0):
        return GraphData(M, nodes, labels)
    A = M.copy()
    A.data[:] = 1.0
    return GraphData(A, nodes, labels, M)


def require_edges(data, owner, name):
    """Raise unless the graph has an edge (the Bethe Hessian needs one).

    When the input had edges and they all weighed 0 (dropped: weight 0 is no
    edge), the message says so and how to count them.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": 0}), (1, 2, {"weight": 0})])
    >>> require_edges(as_adjacency(G, weight=None), "f", "graph")   # 2 edges: fine
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     require_edges(graph_data(G, "f", "graph"), "f", "graph")
    Traceback (most recent call last):
    ...
    kgroups.exceptions.InvalidParameterError: f: graph is a graph with 3 node(s) whose 2 \
edge(s) all have weight 0 (attribute 'weight'); an edge of weight 0 is no edge, so no edge \
is left; give the edges positive weights, or pass weight=None to count every edge as 1
    """
    if data.n_edges:
        return
    if data._zero_weights is None:
        raise InvalidParameterError(
            f"{owner}: {name} is a graph with {data.n_nodes} node(s) and no edges; the Bethe "
            "Hessian and community detection need at least one edge")
    raise InvalidParameterError(f"{owner}: {name} is a graph with {data.n_nodes} node(s) "
                                f"{_zero_weights_note(data._zero_weights)}")


def _zero_weights_note(z):
    """Why no edge is left (all weighed 0, the others were self-loops) and what to do."""
    if z.dropped == z.total:
        why = f"whose {z.dropped} {z.noun} all have weight 0 ({z.source}); "
    else:
        why = (f"whose {z.dropped} {z.noun} of weight 0 ({z.source}) were dropped and whose "
               f"{z.total - z.dropped} other(s) were self-loops (removed); ")
    how = (f"make the graph again with {z.maker}(..., weight=None)" if z.carried
           else "pass weight=None")
    return (f"{why}an edge of weight 0 is no edge, so no edge is left; give the edges "
            f"positive weights, or {how} to count every edge as 1")


def _check_graph_data(g, owner, name, weight):
    for part, M in (("adjacency", g.adjacency), ("weights", g.weights)):
        if (M is not None or part == "adjacency") and not (sp.issparse(M)
                                                            or isinstance(M, np.ndarray)):
            raise InvalidParameterError(
                f"{owner}: {name}.{part}={describe(M)} should be a scipy.sparse or NumPy "
                "adjacency matrix")
    if g._cleaned is not None and g._cleaned[0] is g.adjacency and g._cleaned[1] is g.weights:
        A, W = g.adjacency, g.weights
    else:
        A = clean_adjacency(g.adjacency, directed=None, owner=owner, name=f"{name}.adjacency")
        W = None if g.weights is None else _clean_graph_weights(g.weights, A, owner, name)
    if len(g.nodes) != A.shape[0]:
        raise InvalidParameterError(
            f"{owner}: {name}.nodes has {len(g.nodes)} entries for {A.shape[0]} rows of "
            f"{name}.adjacency; expected one node id per row")
    labels = g.labels
    if labels is not None:
        labels, _ = encode_labels(labels, A.shape[0], owner, f"{name}.labels")
    if weight is None:
        W = None
    data = GraphData(A, list(g.nodes), labels, W)
    zero = g._zero_weights
    if zero is not None and zero.adjacency is g.adjacency:
        data._zero_weights = zero._replace(adjacency=A, carried=True)
    return data


def _clean_graph_weights(W, A, owner, name):
    """``GraphData.weights`` cleaned; it must hold exactly the edges of ``adjacency``."""
    W = clean_adjacency(W, directed=None, owner=owner, name=f"{name}.weights", weighted=True)
    P = W.copy()
    P.data[:] = 1.0
    if W.shape != A.shape or (P != A).nnz:
        raise InvalidParameterError(
            f"{owner}: {name}.weights (shape {W.shape}, {W.nnz // 2} edges) and "
            f"{name}.adjacency (shape {A.shape}, {A.nnz // 2} edges) do not hold the same "
            "edges; assign both, or build the GraphData with as_adjacency(..., weight=...)")
    return W


def _from_networkx(G, label, owner="as_adjacency", name="graph", weight="weight"):
    import networkx as nx

    nodes = list(G.nodes())
    if not nodes:
        raise InvalidParameterError(
            f"{owner}: {name} is a networkx graph without nodes; expected at least one node")
    what = f"{owner}: {name}"
    dropped = 0
    if weight is None:
        # the conventional attribute: refused when invalid, though not used
        networkx_weights(G, "weight", what, note=(
            " (weight=None does not use the 'weight' attribute but refuses invalid values: "
            "fix them or delete the attribute)"))
        A = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=None, format="csr")
    else:
        A, dropped = _networkx_weight_matrix(G, nodes, weight, what)
    A = clean_adjacency(A, directed=G.is_directed(), owner=owner, name=name,
                        weighted=weight is not None)
    labels = None
    if label is not None:
        missing = [v for v in nodes if label not in G.nodes[v]]
        if missing:
            raise InvalidParameterError(
                f"{owner}: label={label!r}: {len(missing)} nodes lack this attribute "
                f"(first: {missing[0]!r}); expected a node attribute every node has")
        labels, _ = encode_labels([G.nodes[v][label] for v in nodes], len(nodes), owner,
                                  f"node attribute {label!r}")
    return _note_zero_weights(_with_weights(A, nodes, labels, weight is not None), dropped,
                              G.number_of_edges(), "edge(s)", f"attribute {weight!r}", owner)


def _networkx_weight_matrix(G, nodes, weight, what):
    """CSR of the weights ``weight`` of ``G``'s edges (parallel edges summed, 0 dropped),
    and the number of edges of weight 0 dropped."""
    edges, values = networkx_weights(G, weight, what)
    index = {v: i for i, v in enumerate(nodes)}
    rows = np.fromiter((index[u] for u, _ in edges), dtype=np.int64, count=len(edges))
    cols = np.fromiter((index[v] for _, v in edges), dtype=np.int64, count=len(edges))
    zero = values == 0
    if zero.any():
        _warn(f"{what}: {int(zero.sum())} edges of weight {weight!r} = 0 were dropped "
              "(weight 0 is no edge)")
        rows, cols, values = rows[~zero], cols[~zero], values[~zero]
    if not G.is_directed():  # each undirected edge in both triangles, a loop once
        off = rows != cols
        rows, cols = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
        values = np.concatenate([values, values[off]])
    n = len(nodes)
    W = sp.coo_matrix((values, (rows, cols)), shape=(n, n)).tocsr()
    W.sum_duplicates()
    merged = (rows.size - W.nnz) // (1 if G.is_directed() else 2)
    if merged > 0:
        _warn(f"{what}: {merged} parallel edges were merged into single edges whose weight "
              "is the sum of theirs")
    return W, int(zero.sum())


def clean_adjacency(A, directed=None, owner="as_adjacency", name="graph", weighted=False):
    """Symmetric CSR with a zero diagonal; warns about the changes the caller did not ask for.

    Parameters
    ----------
    A : scipy.sparse matrix or ndarray of shape (n, n)
    directed : bool or None
        ``True``: symmetrise (and warn). ``None``: symmetrise if ``A`` is not
        symmetric.
    weighted : bool
        False: 0/1 entries (edge weights and counts collapsed: an unweighted graph
        was asked for). True: the entries are edge weights, kept (symmetrised as
        ``A + A^T``).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n, n), float64
    """
    what = f"{owner}: {name}"
    dtype = A.dtype if sp.issparse(A) else np.asarray(A).dtype
    if dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{what} should be an adjacency matrix of numbers, got dtype {dtype}")
    shape = A.shape if sp.issparse(A) else np.shape(A)
    if len(shape) != 2 or shape[0] != shape[1]:
        raise InvalidParameterError(
            f"{what}: the adjacency matrix should be square (n_nodes, n_nodes), got shape "
            f"{shape}")
    if not sp.issparse(A):
        _check_dense_fits(np.asarray(A), what)
    # a copy of a sparse input: its arrays are changed below (never the caller's)
    A = sp.csr_matrix(A, dtype=np.float64, copy=sp.issparse(A))
    bad_matrix_entry(A, what)
    A.sum_duplicates()
    A.eliminate_zeros()
    if not weighted:
        A.data[:] = 1.0
    loops = int(np.count_nonzero(A.diagonal()))
    if loops:  # removed before the symmetrisation, where a loop's weight would double;
        C = A.tocoo()  # the off-diagonal entries kept (setdiag would change the sparsity
        off = C.row != C.col  # structure in place, which some SciPy versions warn about)
        A = sp.csr_matrix((C.data[off], (C.row[off], C.col[off])), shape=A.shape)
        _warn(f"{loops} self-loops were removed (the Bethe Hessian is defined on simple graphs)")
    A = _symmetrised(A, directed, weighted, what)
    A.sort_indices()
    return A


def _symmetrised(A, directed, weighted, what):
    """``A`` made symmetric (with a warning) when ``directed`` or when it is not."""
    asym = (A != A.T).nnz
    if not (directed or asym):
        return A
    n_dir = A.nnz
    if weighted:
        S = (A + A.T).tocsr()
        if not np.all(np.isfinite(S.data)):
            raise InvalidParameterError(
                f"{what}: the sum of the weights of two opposite arcs overflows float64 (up "
                f"to {A.data.max():g}); divide the weights by a constant (communities do not "
                "depend on a common factor)")
        how = "an undirected edge weighs the sum of its two arcs' weights"
    else:
        S = ((A + A.T) > 0).astype(np.float64).tocsr()
        how = "an edge in either direction is one undirected edge"
    _warn(f"directed input ({n_dir} arcs, {asym} entries without an equal reverse) was "
          f"symmetrised: {how}")
    return S


def _check_dense_fits(A, what):
    """Refuse (before converting it) a dense matrix whose CSR form does not fit in memory."""
    if A.size:
        nnz = int(np.count_nonzero(A))
        fits_or_refuse(nnz * DENSE_TO_CSR_BYTES + (A.shape[0] + 1) * 8,
                       f"{what}: the sparse copy of the dense {A.shape[0]} x {A.shape[1]} "
                       f"adjacency matrix ({nnz} nonzero entries)",
                       "a scipy.sparse matrix or a networkx graph")


def fits_or_refuse(nbytes, what, alternative):
    """:func:`kgroups._memory.check_fits`, raising an ``InvalidParameterError``."""
    try:
        check_fits(nbytes, what, alternative)
    except ValueError as exc:
        raise InvalidParameterError(str(exc)) from None


def _warn(msg, stacklevel=None):
    """Warn with a GraphInputWarning attributed to the first caller outside kgroups."""
    if stacklevel is None:
        stacklevel, frame = 1, sys._getframe(0)
        while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
            frame, stacklevel = frame.f_back, stacklevel + 1
    warnings.warn(msg, GraphInputWarning, stacklevel=stacklevel)


@validated
def read_graph(path, *, label=None, weight="weight", delimiter=None, header=None, directed=False):
    """Read an edge list or a GML file.

    Parameters
    ----------
    path : str or path
        ``*.gml`` is read as GML (with networkx); anything else as an edge list:
        one edge per line, the first two fields are its end points (further
        fields are read only as weights, see ``weight``), lines starting with
        ``#`` or ``%`` are comments (SNAP's format), fields are separated by
        whitespace/tabs or by ``delimiter``. Text is read as UTF-8.
    label : str or None, default=None
        GML node attribute with the ground-truth communities.
    weight : str or None, default="weight"
        Where the edge weights are: the GML edge attribute of that name, or the
        edge list's column of that name in its header line, else its third
        field. An edge without one weighs 1 (a two-column list is unweighted);
        a weight must be a finite number >= 0 (0: no edge). An undirected list
        may give an edge once or once in each direction with the same weight;
        any other repetition of an edge sums its weights (with a warning).
        None: unweighted, every edge counts 1, further fields ignored (pass it
        when the third field is not a weight, e.g. a timestamp).
    delimiter : str or None, default=None
        ``None``: a comma if the first data line has one, else whitespace.
    header : bool or None, default=None
        Whether the first data line is a header; ``None`` skips it when its
        first two fields are not integers while the other lines' are.
    directed : bool, default=False
        Whether an edge-list line ``u v`` is an arc: arcs are symmetrised (with a
        warning; weighted, an edge weighs the sum of its two arcs). Undirected
        lists may give each edge once or in both directions.

    Returns
    -------
    GraphData
        Node ids are integers (sorted) when every id is an integer, else strings
        in order of first appearance; ``weights`` is set when the edges carry
        weights other than 1 and ``weight`` is not None.

    Raises
    ------
    ValueError
        Naming the file, for a missing path, a directory, a
        binary or non-UTF-8 file, a GML file networkx cannot parse (truncated,
        malformed), a line with fewer than two fields, a file without edges, or
        (unless ``weight=None``) a line whose weight is not a finite number >= 0
        (naming the line and the value).

    See Also
    --------
    as_adjacency : The same from a graph or matrix in memory.
    GraphData : What this function returns.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.3, Tables IV-VI
       (the networks read from files).

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "edges.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("# a triangle and a pendant node\\n"
    ...                     "1 2 5\\n2 3 1\\n3 1 1\\n3 4 2\\n")
    ...     g = read_graph(path)
    >>> g.n_nodes, g.n_edges, g.nodes
    (4, 4, [1, 2, 3, 4])
    >>> print(g.weights[0, 1], g.weights[2, 3])
    5.0 2.0
    """
    return _read(path, "read_graph", "path", label=label, weight=weight, delimiter=delimiter,
                 header=header, directed=directed)


def _read(path, owner, name, *, label=None, weight="weight", delimiter=None, header=None,
          directed=False):
    path = Path(os.fsdecode(path))
    where = f"{owner}: {name}={str(path)!r}"
    if path.is_dir():
        raise InvalidParameterError(f"{where} is a directory; expected an edge-list or GML file")
    if not path.exists():
        raise InvalidParameterError(f"{where} does not exist; expected an edge-list or GML file")
    if not path.is_file():
        raise InvalidParameterError(f"{where} is not a regular file; expected an edge-list or "
                                    "GML file")
    if path.suffix.lower() == ".gml":
        return _read_gml(path, label, owner, where, weight)
    if label is not None:
        raise InvalidParameterError(
            f"{owner}: label={label!r} is only read from GML files; {path.name} is an edge list")
    src, dst, rest, lines, head = _read_edge_fields(path, delimiter, header, where)
    column = head.index(weight) if head is not None and weight in head[2:] else 2
    fields = [r[column - 2] if len(r) > column - 2 else None for r in rest]
    nodes, codes = _node_codes(np.concatenate([src, dst]))
    m, n = src.shape[0], len(nodes)
    if weight is not None and any(f is not None for f in fields):
        W, zero = _edge_list_weights(codes[:m], codes[m:], fields, lines, column, n, directed,
                                     where)
        A = clean_adjacency(W, directed=directed, owner=owner, name=name, weighted=True)
        source = (f"column {weight!r}" if head is not None and weight in head[2:]
                  else f"field {column + 1}")
        return _note_zero_weights(_with_weights(A, nodes, None, True), zero, m,
                                  "edge-list line(s)", source, owner)
    A = sp.coo_matrix((np.ones(m), (codes[:m], codes[m:])), shape=(n, n)).tocsr()
    A.sum_duplicates()
    if A.nnz < m:
        _warn(f"{m - A.nnz} repeated edge lines were collapsed to single edges")
    A.data[:] = 1.0
    if not directed:  # each undirected edge may be listed once or in both directions
        A = ((A + A.T) > 0).astype(np.float64)
    return GraphData(clean_adjacency(A, directed=directed, owner=owner, name=name), nodes)


def _edge_list_weights(src, dst, fields, lines, column, n, directed, where):
    """The weight matrix of an edge list's lines (node codes ``src``, ``dst``; a line
    without a weight field weighs 1) and the number of lines of weight 0 dropped."""
    fields = ["1" if f is None else f for f in fields]
    try:
        w = parse_weights(fields, lines, column + 1, where)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{exc} (pass weight=None if field {column + 1} is not "
                                    "an edge weight)") from None
    zero = w == 0
    if zero.any():
        _warn(f"{where}: {int(zero.sum())} lines of weight 0 were dropped (weight 0 is no "
              "edge)")
        src, dst, w = src[~zero], dst[~zero], w[~zero]
    if directed:
        W = sp.coo_matrix((w, (src, dst)), shape=(n, n)).tocsr()
        W.sum_duplicates()
        summed = w.size - W.nnz
    else:
        W, summed = undirected_line_weights(src, dst, w, n)
    if summed:
        _warn(f"{where}: {summed} repeated edges were merged into single edges whose weight "
              "is the sum of their lines' weights")
    return W, int(zero.sum())


def _read_gml(path, label, owner, where, weight="weight"):
    import networkx as nx

    _check_text(path, where)
    try:
        try:
            G = nx.read_gml(path, label="label")
        except nx.NetworkXError:
            G = nx.read_gml(path, label="id")
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(f"{where} is not UTF-8 text ({exc.reason} at byte "
                                    f"{exc.start}); expected a GML file") from None
    except (nx.NetworkXError, ValueError, KeyError, TypeError) as exc:
        raise InvalidParameterError(
            f"{where} is not a valid GML file ({type(exc).__name__}: {exc}); it may be "
            "truncated or malformed") from None
    return _from_networkx(G, label, owner, f"the graph in {path.name}", weight)


def _check_text(path, where):
    """Refuse a binary file (a NUL byte in its first 8 KiB) before parsing it."""
    with open(path, "rb") as fh:
        head = fh.read(8192)
    if b"\x00" in head:
        raise InvalidParameterError(
            f"{where} is a binary file (it holds NUL bytes); expected a text edge list or "
            "GML file")


def _read_edge_fields(path, delimiter, header, where):
    """The fields of every data line.

    Returns
    -------
    src, dst : ndarray of str
        The first two fields (the end points).
    rest : list of tuple of str
        The further fields of each line.
    lines : list of int
        The line number of each edge (for messages).
    head : list of str or None
        The header line's fields, when there is one.
    """
    _check_text(path, where)
    rows, rest, lines = [], [], []
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                s = line.strip()
                if not s or s[0] in "#%":
                    continue
                if delimiter is None:
                    delimiter = "," if "," in s else ""
                parts = [p.strip().strip('"') for p in (s.split(delimiter) if delimiter
                                                          else s.split())]
                if len(parts) < 2:
                    raise InvalidParameterError(
                        f"{where}: line {number} ({describe(s)}) has fewer than two fields; "
                        "expected 'source target' (an edge list)")
                rows.append((parts[0], parts[1]))
                rest.append(tuple(parts[2:]))
                lines.append(number)
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(f"{where} is not UTF-8 text ({exc.reason} at byte "
                                    f"{exc.start}); expected a text edge list") from None
    if not rows:
        raise InvalidParameterError(f"{where}: no edges found (only comments or blank lines); "
                                    "expected one edge per line")
    arr = np.array(rows, dtype=str)
    if header is None:
        header = (not _all_int(arr[:1]) and arr.shape[0] > 1 and _all_int(arr[1:]))
    head = None
    if header:
        head = list(arr[0]) + list(rest[0])
        arr, rest, lines = arr[1:], rest[1:], lines[1:]
    if arr.shape[0] == 0:
        raise InvalidParameterError(f"{where}: only a header line, no edges; expected one edge "
                                    "per line")
    return arr[:, 0], arr[:, 1], rest, lines, head


def _all_int(arr):
    try:
        arr.astype(np.int64)
        return True
    except ValueError:
        return False


def _node_codes(ids):
    """Unique node ids and the code of each occurrence (integers sorted numerically)."""
    if _all_int(ids):
        uniq, codes = np.unique(ids.astype(np.int64), return_inverse=True)
        return uniq.tolist(), codes
    uniq, first, codes = np.unique(ids, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # order of first appearance
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return uniq[order].tolist(), rank[codes]
