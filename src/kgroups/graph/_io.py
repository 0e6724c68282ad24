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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

__all__ = ["GraphData", "GraphInputWarning", "as_adjacency", "read_graph"]


class GraphInputWarning(UserWarning):
    """The input graph was changed to a simple undirected unweighted graph."""


@dataclass
class GraphData:
    """A graph as kgroups uses it.

    Attributes
    ----------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
        Symmetric 0/1 float64 matrix with a zero diagonal.
    nodes : list of length n
        The original node identifiers, in the order of the rows.
    labels : ndarray of shape (n,) or None
        Ground-truth communities ``0..k-1`` when the source gave them.
    """

    adjacency: sp.csr_matrix
    nodes: list
    labels: np.ndarray | None = None

    @property
    def n_nodes(self):
        return self.adjacency.shape[0]

    @property
    def n_edges(self):
        return self.adjacency.nnz // 2


def as_adjacency(graph, *, label=None):
    """Turn ``graph`` into a :class:`GraphData` (simple, undirected, unweighted).

    Parameters
    ----------
    graph : networkx.Graph, scipy.sparse matrix, ndarray of shape (n, n), \
            GraphData, str or path
        A path is read by :func:`read_graph`. A matrix is an adjacency matrix
        (nonzero = edge). Edge weights are ignored.
    label : str or None, default=None
        Node attribute (networkx graph or GML file) holding ground-truth
        communities; returned encoded as ``0..k-1`` in ``GraphData.labels``.

    Returns
    -------
    GraphData

    Examples
    --------
    >>> import networkx as nx
    >>> g = as_adjacency(nx.path_graph(4))
    >>> g.n_nodes, g.n_edges
    (4, 3)
    """
    if isinstance(graph, GraphData):
        return graph
    if isinstance(graph, (str, os.PathLike)):
        return read_graph(graph, label=label)
    if hasattr(graph, "adj") and hasattr(graph, "nodes"):
        return _from_networkx(graph, label)
    if sp.issparse(graph) or isinstance(graph, np.ndarray):
        A = clean_adjacency(graph, directed=None)
        return GraphData(A, list(range(A.shape[0])))
    raise ValueError(
        f"graph of type {type(graph).__name__} is not supported; expected a networkx "
        "graph, a scipy.sparse or NumPy adjacency matrix, or a path to an edge list / GML file")


def _from_networkx(G, label):
    import networkx as nx

    nodes = list(G.nodes())
    A = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=None, format="csr")
    A = clean_adjacency(A, directed=G.is_directed())
    labels = None
    if label is not None:
        missing = [v for v in nodes if label not in G.nodes[v]]
        if missing:
            raise ValueError(f"label={label!r}: {len(missing)} nodes lack this attribute "
                             f"(first: {missing[0]!r})")
        labels = encode_labels([G.nodes[v][label] for v in nodes])
    return GraphData(A, nodes, labels)


def encode_labels(values):
    """Community values (any sortable type) as int64 codes ``0..k-1``."""
    _, codes = np.unique(np.asarray(values), return_inverse=True)
    return codes.astype(np.int64).ravel()


def clean_adjacency(A, directed=None):
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
    A = sp.csr_matrix(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"the adjacency matrix should be square, got shape {A.shape}")
    A.sum_duplicates()
    A.eliminate_zeros()
    if A.nnz and not np.all(np.isfinite(A.data)):
        raise ValueError("the adjacency matrix holds NaN or infinite entries")
    if A.nnz and A.data.min() < 0:
        raise ValueError(f"the adjacency matrix has negative entries (min {A.data.min():g}); "
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


def read_graph(path, *, label=None, delimiter=None, header=None, directed=False):
    """Read an edge list or a GML file.

    Parameters
    ----------
    path : str or path
        ``*.gml`` is read as GML (with networkx); anything else as an edge list:
        one edge per line, the first two fields are its end points (extra fields,
        such as weights, are ignored), lines starting with ``#`` or ``%`` are
        comments (SNAP's format), fields are separated by whitespace/tabs or by
        ``delimiter``.
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
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"path={str(path)!r} is not a file")
    if path.suffix.lower() == ".gml":
        return _read_gml(path, label)
    if label is not None:
        raise ValueError(f"label={label!r} is only read from GML files; {path.name} is an edge list")
    src, dst = _read_edge_fields(path, delimiter, header)
    nodes, codes = _node_codes(np.concatenate([src, dst]))
    m, n = src.shape[0], len(nodes)
    A = sp.coo_matrix((np.ones(m), (codes[:m], codes[m:])), shape=(n, n)).tocsr()
    A.sum_duplicates()
    if A.nnz < m:
        _warn(f"{m - A.nnz} repeated edge lines were collapsed to single edges", 3)
    A.data[:] = 1.0
    if not directed:  # each undirected edge may be listed once or in both directions
        A = ((A + A.T) > 0).astype(np.float64)
    return GraphData(clean_adjacency(A, directed=directed), nodes)


def _read_gml(path, label):
    import networkx as nx

    try:
        G = nx.read_gml(path, label="label")
    except nx.NetworkXError:
        G = nx.read_gml(path, label="id")
    return _from_networkx(G, label)


def _read_edge_fields(path, delimiter, header):
    """First two fields of every data line, as two str arrays."""
    rows = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            s = line.strip()
            if not s or s[0] in "#%":
                continue
            if delimiter is None:
                delimiter = "," if "," in s else ""
            parts = s.split(delimiter) if delimiter else s.split()
            if len(parts) < 2:
                raise ValueError(f"{path}: line {s!r} has fewer than two fields")
            rows.append((parts[0].strip().strip('"'), parts[1].strip().strip('"')))
    if not rows:
        raise ValueError(f"{path}: no edges found")
    arr = np.array(rows, dtype=str)
    if header is None:
        header = (not _all_int(arr[:1]) and arr.shape[0] > 1 and _all_int(arr[1:]))
    if header:
        arr = arr[1:]
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
