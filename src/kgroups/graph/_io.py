"""Graph input: networkx graphs, scipy.sparse / NumPy adjacency matrices and files.

Every input becomes the adjacency matrix of a **simple undirected unweighted**
graph (CSR, float64, symmetric, 0/1, zero diagonal), which is what the Bethe
Hessian of Saade, Krzakala & Zdeborová (NIPS 2014) and section 5.2 of França,
Rizzo & Vogelstein (TPAMI 2020) are defined on. Each departure from that is
handled explicitly and said in a :class:`GraphInputWarning`:

* directed input is symmetrised (``A + A^T``; an edge in either direction counts);
* self-loops are removed;
* multi-edges and edge weights are collapsed to a single unweighted edge;
* isolated nodes are kept (they are reported, and handled by the community
  detector, see :class:`~kgroups.graph.CommunityKGroups`);
* disconnected graphs are accepted as they are.

Files: edge lists (one edge per line, first two fields are the end points; ``#``
and ``%`` start comments; separator whitespace/tab, as in SNAP's files, or a comma;
a header line is detected) and GML (``.gml``; ``label=`` names a node attribute
holding the ground truth).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError, describe, encode_labels, validated

__all__ = ["GraphData", "GraphInputWarning", "as_adjacency", "read_graph"]


class GraphInputWarning(UserWarning):
    """The input graph was changed to a simple undirected unweighted graph."""


@dataclass
class GraphData:
    """A graph as kgroups uses it.

    Attributes
    ----------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
        Symmetric 0/1 float64 matrix with a zero diagonal. To change the graph,
        assign a new matrix (it is checked and cleaned again by the next graph
        function); the matrix a graph function returned is not re-checked, so do
        not edit its arrays in place.
    nodes : list of length n
        The original node identifiers, in the order of the rows.
    labels : ndarray of shape (n,) or None
        Ground-truth communities ``0..k-1`` when the source gave them.
    """

    adjacency: sp.csr_matrix
    nodes: list
    labels: np.ndarray | None = None
    # the adjacency object as graph_data cleaned it: a GraphData passed on to the next
    # graph function (detect_communities -> fit -> quality) is not cleaned again
    # (cleaning is a pass over every edge); a matrix assigned to adjacency since then
    # is not this object, so it is cleaned
    _cleaned: object = field(default=None, init=False, repr=False, compare=False)

    @property
    def n_nodes(self):
        return self.adjacency.shape[0]

    @property
    def n_edges(self):
        return self.adjacency.nnz // 2


@validated
def as_adjacency(graph, *, label=None):
    """Turn ``graph`` into a :class:`GraphData` (simple, undirected, unweighted).

    Parameters
    ----------
    graph : networkx.Graph, scipy.sparse matrix, ndarray of shape (n, n), \
            GraphData, str or path
        A path is read by :func:`read_graph`. A matrix is an adjacency matrix
        (nonzero = edge). Edge weights are ignored. A list is refused: it could
        be a matrix or a list of edges (pass ``np.asarray`` or a networkx graph).
    label : str or None, default=None
        Node attribute (networkx graph or GML file) holding ground-truth
        communities; returned encoded as ``0..k-1`` in ``GraphData.labels``.

    Returns
    -------
    GraphData
        The symmetric 0/1 CSR ``adjacency`` with a zero diagonal, the original
        ``nodes`` in the order of its rows, and ``labels`` (None unless ``label``
        is given).

    Raises
    ------
    InvalidParameterError
        (a ``ValueError``) for a graph without nodes, a matrix that is not a square
        array of finite non-negative numbers, an unreadable file, or an
        unsupported type; the message names the value and what was expected.

    Examples
    --------
    >>> import networkx as nx
    >>> g = as_adjacency(nx.path_graph(4))
    >>> g.n_nodes, g.n_edges
    (4, 3)
    """
    return graph_data(graph, "as_adjacency", "graph", label=label)


def graph_data(graph, owner, name, *, label=None):
    """:func:`as_adjacency` for the other graph functions: errors name ``owner`` and ``name``."""
    if isinstance(graph, GraphData):
        data = _check_graph_data(graph, owner, name)
    elif isinstance(graph, (str, bytes, os.PathLike)):
        data = _read(graph, owner, name, label=label)
    elif hasattr(graph, "adj") and hasattr(graph, "nodes"):
        data = _from_networkx(graph, label, owner, name)
    elif sp.issparse(graph) or isinstance(graph, np.ndarray):
        if label is not None:
            raise InvalidParameterError(
                f"{owner}: label={label!r} needs a networkx graph or a GML file; "
                f"{name} is {describe(graph)}")
        A = clean_adjacency(graph, directed=None, owner=owner, name=name)
        data = GraphData(A, list(range(A.shape[0])))
    else:
        raise InvalidParameterError(
            f"{owner}: {name}={describe(graph)} (type {type(graph).__name__}) is not a graph; "
            "expected a networkx graph, a scipy.sparse or NumPy adjacency matrix, a GraphData "
            "or a path to an edge list / GML file (a list could be a matrix or a list of "
            "edges: pass np.asarray(...) or a networkx graph)")
    if data.n_nodes == 0:
        raise InvalidParameterError(
            f"{owner}: {name} is a graph without nodes; expected at least one node")
    data._cleaned = data.adjacency
    return data


def require_edges(data, owner, name):
    """Raise unless the graph has an edge (the Bethe Hessian needs one)."""
    if data.n_edges == 0:
        raise InvalidParameterError(
            f"{owner}: {name} is a graph with {data.n_nodes} node(s) and no edges; the Bethe "
            "Hessian and community detection need at least one edge")


def _check_graph_data(g, owner, name):
    if not sp.issparse(g.adjacency) and not isinstance(g.adjacency, np.ndarray):
        raise InvalidParameterError(
            f"{owner}: {name}.adjacency={describe(g.adjacency)} should be a scipy.sparse or "
            "NumPy adjacency matrix")
    A = g.adjacency if g._cleaned is g.adjacency else \
        clean_adjacency(g.adjacency, directed=None, owner=owner, name=f"{name}.adjacency")
    if len(g.nodes) != A.shape[0]:
        raise InvalidParameterError(
            f"{owner}: {name}.nodes has {len(g.nodes)} entries for {A.shape[0]} rows of "
            f"{name}.adjacency; expected one node id per row")
    labels = g.labels
    if labels is not None:
        labels, _ = encode_labels(labels, A.shape[0], owner, f"{name}.labels")
    return GraphData(A, list(g.nodes), labels)


def _from_networkx(G, label, owner="as_adjacency", name="graph"):
    import networkx as nx

    nodes = list(G.nodes())
    if not nodes:
        raise InvalidParameterError(
            f"{owner}: {name} is a networkx graph without nodes; expected at least one node")
    A = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=None, format="csr")
    A = clean_adjacency(A, directed=G.is_directed(), owner=owner, name=name)
    labels = None
    if label is not None:
        missing = [v for v in nodes if label not in G.nodes[v]]
        if missing:
            raise InvalidParameterError(
                f"{owner}: label={label!r}: {len(missing)} nodes lack this attribute "
                f"(first: {missing[0]!r}); expected a node attribute every node has")
        labels, _ = encode_labels([G.nodes[v][label] for v in nodes], len(nodes), owner,
                                  f"node attribute {label!r}")
    return GraphData(A, nodes, labels)


def clean_adjacency(A, directed=None, owner="as_adjacency", name="graph"):
    """Symmetric 0/1 CSR with a zero diagonal; warns about each change it makes.

    Parameters
    ----------
    A : scipy.sparse matrix or ndarray of shape (n, n)
    directed : bool or None
        ``True``: symmetrise (and warn). ``None``: symmetrise if ``A`` is not
        symmetric.

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
    # a copy of a sparse input: its arrays are changed below (never the caller's)
    A = sp.csr_matrix(A, dtype=np.float64, copy=sp.issparse(A))
    A.sum_duplicates()
    A.eliminate_zeros()
    if A.nnz and not np.all(np.isfinite(A.data)):
        raise InvalidParameterError(
            f"{what}: the adjacency matrix holds NaN or infinite entries; expected finite "
            "non-negative edge weights or counts")
    if A.nnz and A.data.min() < 0:
        raise InvalidParameterError(
            f"{what}: the adjacency matrix has negative entries (min {A.data.min():g}); "
            "expected nonnegative edge weights or counts")
    multi = bool(A.nnz) and not np.all(A.data == 1.0)
    A.data[:] = 1.0
    asym = (A != A.T).nnz
    if directed or asym:
        n_dir = A.nnz
        A = ((A + A.T) > 0).astype(np.float64).tocsr()
        _warn(f"directed input ({n_dir} arcs, {asym} entries without their reverse) was "
              f"symmetrised: an edge in either direction is one undirected edge")
    loops = int(np.count_nonzero(A.diagonal()))
    if loops:
        A.setdiag(0.0)
        A.eliminate_zeros()
        _warn(f"{loops} self-loops were removed (the Bethe Hessian is defined on simple graphs)")
    if multi:
        _warn("edge weights or repeated edges were collapsed to single unweighted edges")
    A.sort_indices()
    return A


def _warn(msg, stacklevel=4):
    warnings.warn(msg, GraphInputWarning, stacklevel=stacklevel)


@validated
def read_graph(path, *, label=None, delimiter=None, header=None, directed=False):
    """Read an edge list or a GML file.

    Parameters
    ----------
    path : str or path
        ``*.gml`` is read as GML (with networkx); anything else as an edge list:
        one edge per line, the first two fields are its end points (extra fields,
        such as weights, are ignored), lines starting with ``#`` or ``%`` are
        comments (SNAP's format), fields are separated by whitespace/tabs or by
        ``delimiter``. Text is read as UTF-8.
    label : str or None, default=None
        GML node attribute with the ground-truth communities.
    delimiter : str or None, default=None
        ``None``: a comma if the first data line has one, else whitespace.
    header : bool or None, default=None
        Whether the first data line is a header; ``None`` skips it when its
        first two fields are not integers while the other lines' are.
    directed : bool, default=False
        Whether an edge-list line ``u v`` is an arc: arcs are symmetrised (with a
        warning). Undirected lists may give each edge once or in both directions.

    Returns
    -------
    GraphData
        Node ids are integers (sorted) when every id is an integer, else strings
        in order of first appearance.

    Raises
    ------
    InvalidParameterError
        (a ``ValueError``) naming the file for a missing path, a directory, a
        binary or non-UTF-8 file, a GML file networkx cannot parse (truncated,
        malformed), a line with fewer than two fields, or a file without edges.

    Examples
    --------
    >>> import os, tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "edges.txt")
    ...     with open(path, "w") as f:
    ...         _ = f.write("# a triangle and a pendant node\\n1 2\\n2 3\\n3 1\\n3 4\\n")
    ...     g = read_graph(path)
    >>> g.n_nodes, g.n_edges, g.nodes
    (4, 4, [1, 2, 3, 4])
    """
    return _read(path, "read_graph", "path", label=label, delimiter=delimiter, header=header,
                 directed=directed)


def _read(path, owner, name, *, label=None, delimiter=None, header=None, directed=False):
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
        return _read_gml(path, label, owner, where)
    if label is not None:
        raise InvalidParameterError(
            f"{owner}: label={label!r} is only read from GML files; {path.name} is an edge list")
    src, dst = _read_edge_fields(path, delimiter, header, where)
    nodes, codes = _node_codes(np.concatenate([src, dst]))
    m, n = src.shape[0], len(nodes)
    A = sp.coo_matrix((np.ones(m), (codes[:m], codes[m:])), shape=(n, n)).tocsr()
    A.sum_duplicates()
    if A.nnz < m:
        _warn(f"{m - A.nnz} repeated edge lines were collapsed to single edges", 4)
    A.data[:] = 1.0
    if not directed:  # each undirected edge may be listed once or in both directions
        A = ((A + A.T) > 0).astype(np.float64)
    return GraphData(clean_adjacency(A, directed=directed, owner=owner, name=name), nodes)


def _read_gml(path, label, owner, where):
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
    return _from_networkx(G, label, owner, f"the graph in {path.name}")


def _check_text(path, where):
    """Refuse a binary file (a NUL byte in its first 8 KiB) before parsing it."""
    with open(path, "rb") as fh:
        head = fh.read(8192)
    if b"\x00" in head:
        raise InvalidParameterError(
            f"{where} is a binary file (it holds NUL bytes); expected a text edge list or "
            "GML file")


def _read_edge_fields(path, delimiter, header, where):
    """First two fields of every data line, as two str arrays."""
    _check_text(path, where)
    rows = []
    try:
        with open(path, encoding="utf-8") as fh:
            for number, line in enumerate(fh, 1):
                s = line.strip()
                if not s or s[0] in "#%":
                    continue
                if delimiter is None:
                    delimiter = "," if "," in s else ""
                parts = s.split(delimiter) if delimiter else s.split()
                if len(parts) < 2:
                    raise InvalidParameterError(
                        f"{where}: line {number} ({describe(s)}) has fewer than two fields; "
                        "expected 'source target' (an edge list)")
                rows.append((parts[0].strip().strip('"'), parts[1].strip().strip('"')))
    except UnicodeDecodeError as exc:
        raise InvalidParameterError(f"{where} is not UTF-8 text ({exc.reason} at byte "
                                    f"{exc.start}); expected a text edge list") from None
    if not rows:
        raise InvalidParameterError(f"{where}: no edges found (only comments or blank lines); "
                                    "expected one edge per line")
    arr = np.array(rows, dtype=str)
    if header is None:
        header = (not _all_int(arr[:1]) and arr.shape[0] > 1 and _all_int(arr[1:]))
    if header:
        arr = arr[1:]
    if arr.shape[0] == 0:
        raise InvalidParameterError(f"{where}: only a header line, no edges; expected one edge "
                                    "per line")
    return arr[:, 0], arr[:, 1]


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
