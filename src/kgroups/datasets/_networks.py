"""Loaders of the bundled networks with ground-truth communities.

The four networks of TPAMI section 5.3, Table IV (:func:`load_network`: karate,
dolphins, football, polbooks, as a networkx graph and labels) and the larval
Drosophila mushroom-body connectome of Table V (:func:`load_drosophila`: a sparse
adjacency, labels and the cell types), from ``kgroups/datasets/data/``
(``MANIFEST.md`` gives each file's source and SHA-256).
"""

from __future__ import annotations

import csv

import numpy as np
import scipy.sparse as sp

from ._parsing import DATA_DIR, _encode_labels, _read_fields, _to_float

# name -> (default label column, allowed label columns); see MANIFEST.md.
_NETWORKS = {
    "karate": ("label_gml_value", ("label_gml_value", "label")),
    "dolphins": ("label", ("label", "label_alt")),
    "football": ("label", ("label",)),
    "polbooks": ("label", ("label",)),
}


def _read_csv_columns(path):
    """Read a CSV with a header into ``{column: list of str}``; checks field counts."""
    with open(path, newline="", encoding="utf-8") as fh:
        reader = csv.reader(fh)
        header = next(reader, None)
        if not header:
            raise ValueError(f"{path}: empty file, expected a header line")
        rows = []
        for row in reader:
            if not row:
                continue
            if len(row) != len(header):
                raise ValueError(
                    f"{path}, line {reader.line_num}: expected {len(header)} fields, "
                    f"got {len(row)}"
                )
            rows.append(row)
    return {name: [r[j] for r in rows] for j, name in enumerate(header)}


def _int_column(columns, name, path):
    try:
        return np.asarray(columns[name], dtype=np.int64)
    except KeyError:
        raise ValueError(f"{path}: no column {name!r}; columns are {list(columns)}") from None
    except ValueError:
        raise ValueError(f"{path}: column {name!r} holds non-integer values") from None


def load_network(name, label=None):
    """Load a network with ground-truth communities (TPAMI section 5.3, Table IV).

    ``karate`` (Zachary, 34 nodes, 78 edges, k=2), ``dolphins`` (Lusseau, 62/159,
    k=2), ``football`` (Girvan & Newman, 115/613, k=12) and ``polbooks`` (Krebs,
    105/441, k=3; l/n/c become 0/1/2). Edges are undirected and unweighted.

    Parameters
    ----------
    name : {"karate", "dolphins", "football", "polbooks"}
    label : str or None, default=None
        Label column. ``None`` picks the one the paper most likely used (MANIFEST):
        ``"label_gml_value"`` for karate (16/18; ``"label"`` gives the 17/17 club
        split of networkx, which differs at node 8) and ``"label"`` elsewhere
        (dolphins also offers ``"label_alt"``, 43/19).

    Returns
    -------
    graph : networkx.Graph
        Nodes ``0..n-1`` (every labelled node, even one without edges).
    labels : ndarray of shape (n_nodes,), int64
        ``labels[v]`` is the community of node ``v``, in 0..k-1.

    See Also
    --------
    load_drosophila : The connectome of TPAMI Table V.
    kgroups.graph.detect_communities : Community detection.

    References
    ----------
    .. [1] W. W. Zachary, "An information flow model for conflict and fission in
       small groups", J. Anthropol. Res. 33(4), 452-473, 1977.
    .. [2] D. Lusseau, K. Schneider, O. J. Boisseau, P. Haase, E. Slooten, S. M.
       Dawson, "The bottlenose dolphin community of Doubtful Sound features a
       large proportion of long-lasting associations", Behav. Ecol. Sociobiol.
       54(4), 396-405, 2003.
    .. [3] M. Girvan, M. E. J. Newman, "Community structure in social and
       biological networks", PNAS 99(12), 7821-7826, 2002.
    .. [4] M. E. J. Newman, "Modularity and community structure in networks", PNAS
       103(23), 8577-8582, 2006 (the polbooks network of V. Krebs).
    .. [5] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Table IV.

    Examples
    --------
    >>> G, y = load_network("karate")
    >>> G.number_of_nodes(), G.number_of_edges(), [int(c) for c in np.bincount(y)]
    (34, 78, [16, 18])
    """
    import networkx as nx

    if name not in _NETWORKS:
        raise ValueError(f"name={name!r}; expected one of {sorted(_NETWORKS)}")
    default, allowed = _NETWORKS[name]
    label = default if label is None else label
    if label not in allowed:
        raise ValueError(f"label={label!r} for {name!r}; expected one of {list(allowed)}")
    lab_path = DATA_DIR / f"{name}_labels.csv"
    edge_path = DATA_DIR / f"{name}_edges.csv"
    lab = _read_csv_columns(lab_path)
    nodes = _int_column(lab, "node", lab_path)
    if not np.array_equal(nodes, np.arange(nodes.size)):
        raise ValueError(f"{lab_path}: nodes must be listed as 0..n-1 in order")
    y = _int_column(lab, label, lab_path)
    edges = _read_csv_columns(edge_path)
    src = _int_column(edges, "source", edge_path)
    dst = _int_column(edges, "target", edge_path)
    if src.size and (min(src.min(), dst.min()) < 0 or max(src.max(), dst.max()) >= nodes.size):
        raise ValueError(f"{edge_path}: node ids outside 0..{nodes.size - 1}")
    graph = nx.Graph(name=name)
    graph.add_nodes_from(range(nodes.size))
    graph.add_edges_from(zip(src.tolist(), dst.tolist()))
    return graph, y


def load_drosophila(side="left"):
    """Load one hemisphere of the larval Drosophila mushroom-body connectome (Table V).

    Eichler et al. (Nature 2017), as shipped by graspologic. The directed,
    synapse-count adjacency ``A`` is symmetrised and binarised as in the paper:
    ``A_sym[i, j] = 1`` when ``A[i, j] + A[j, i] > 0``. Left: 209 nodes, 5,559
    undirected edges (the paper's ``|E| = 11,118`` counts both directions); right: 213
    nodes, 5,625 edges. No self-loops are present.

    Parameters
    ----------
    side : {"left", "right"}, default="left"

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n), float64
        Symmetric 0/1 matrix.
    labels : ndarray of shape (n,), int64
        Cell type of each node as an index into ``cell_types``.
    cell_types : ndarray of str, shape (4,)
        ``["I", "K", "O", "P"]``: ``cell_types[labels[v]]`` is the letter of node v
        (K Kenyon cells, P projection neurons, O output neurons, I input neurons).

    See Also
    --------
    load_network : The networks of TPAMI Table IV.
    kgroups.graph.detect_communities : Community detection.

    References
    ----------
    .. [1] K. Eichler et al., "The complete connectome of a learning and memory
       centre in an insect brain", Nature 548, 175-182, 2017.
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.3, Table V.

    Examples
    --------
    >>> A, y, types = load_drosophila("left")
    >>> A.shape, A.nnz // 2, [str(t) for t in types]
    ((209, 209), 5559, ['I', 'K', 'O', 'P'])
    >>> [int(c) for c in np.bincount(y)]
    [21, 101, 29, 58]
    """
    if side not in ("left", "right"):
        raise ValueError(f"side={side!r}; expected 'left' or 'right'")
    adj_path = DATA_DIR / f"drosophila_{side}_adjacency.csv"
    lab_path = DATA_DIR / f"drosophila_{side}_cell_labels.csv"
    fields, lines = _read_fields(adj_path, sep=None)
    counts = _to_float(fields, lines, adj_path)
    if counts.shape[0] != counts.shape[1]:
        raise ValueError(f"{adj_path}: expected a square matrix, got shape {counts.shape}")
    A = sp.csr_matrix(counts)
    A = (A + A.T).tocsr()
    A.data = (A.data != 0).astype(np.float64)
    A.eliminate_zeros()
    letters, _ = _read_fields(lab_path, sep=None)
    if letters.shape != (counts.shape[0], 1):
        raise ValueError(
            f"{lab_path}: expected {counts.shape[0]} lines of one label, got {letters.shape}"
        )
    y, cell_types = _encode_labels(letters.astype(str).ravel())
    return A, y, cell_types.astype(str)
