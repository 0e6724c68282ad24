"""Edge weights: read, checked and merged (used by :mod:`kgroups.graph._io`).

An edge weight is a finite number >= 0; 0 means no edge. Every reader refuses
anything else (NaN, infinity, a negative number, a value that is not a number)
with an :class:`~kgroups.exceptions.InvalidParameterError` naming the edge: the
end points of a networkx edge, the line of an edge-list file, the entry of a
matrix. The functions here check and merge; the caller warns about what it changed.
"""

from __future__ import annotations

import numbers

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError

EXPECTED = "expected a finite number >= 0 (an edge weight; 0 means no edge)"


def _first_invalid(values):
    """Position of the first value that is not a finite number >= 0, or None."""
    bad = ~np.isfinite(values) | (values < 0)
    return int(np.argmax(bad)) if bad.any() else None


def _as_floats(raw):
    """``raw`` (numbers) as float64; Python integers past float64's range become inf."""
    try:
        return np.asarray(raw, dtype=np.float64)
    except (OverflowError, ValueError, TypeError):
        out = np.empty(len(raw))
        for i, v in enumerate(raw):
            try:
                out[i] = float(v)
            except OverflowError:
                out[i] = np.inf
        return out


def networkx_weights(G, attr, what, note=""):
    """The edges of ``G`` and the float64 value of their attribute ``attr`` (default 1).

    Parameters
    ----------
    G : networkx graph
    attr : str
        Edge attribute; an edge without it weighs 1 (networkx's convention).
    what : str
        Start of an error message (``"owner: name"``).
    note : str
        Appended to the error message.

    Returns
    -------
    edges : list of (u, v)
        One per edge (one per parallel edge of a multigraph), in ``G.edges`` order.
    values : ndarray of shape (len(edges),)

    Raises
    ------
    InvalidParameterError
        For the first edge whose value is not a finite number >= 0, naming it.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.Graph([(0, 1, {"weight": 2.5}), (1, 2, {})])
    >>> networkx_weights(G, "weight", "as_adjacency: graph")[1].tolist()
    [2.5, 1.0]
    """
    triples = list(G.edges(data=attr, default=1))
    raw = [d for _, _, d in triples]
    kind = next((i for i, v in enumerate(raw) if not isinstance(v, numbers.Real)), None)
    values = _as_floats(raw) if kind is None else None
    bad = kind if kind is not None else _first_invalid(values)
    if bad is not None:
        u, v, value = triples[bad]
        shown = value.item() if isinstance(value, np.generic) else value
        raise InvalidParameterError(
            f"{what}: edge ({u!r}, {v!r}) has {attr!r} = {shown!r}; {EXPECTED}{note}")
    return [(u, v) for u, v, _ in triples], values


def parse_weights(fields, lines, column, where):
    """float64 values of the weight ``fields`` (str) of an edge list, checked.

    ``lines`` are the line numbers of the fields (for the message) and ``column``
    the 1-based field number.

    Examples
    --------
    >>> parse_weights(["1", "2.5e0"], [1, 2], 3, "read_graph: path='e.txt'").tolist()
    [1.0, 2.5]
    """
    values = np.empty(len(fields))
    for i, text in enumerate(fields):
        try:
            values[i] = float(text)
        except ValueError:
            raise InvalidParameterError(
                f"{where}: line {lines[i]} has weight {text!r} (field {column}), not a "
                f"number; {EXPECTED}") from None
    bad = _first_invalid(values)
    if bad is not None:
        raise InvalidParameterError(
            f"{where}: line {lines[bad]} has weight {fields[bad]!r} (field {column}); "
            f"{EXPECTED}")
    return values


def bad_matrix_entry(A, what):
    """Refuse the first stored entry of the CSR ``A`` that is not a finite number >= 0.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> bad_matrix_entry(sp.csr_matrix([[0.0, 1.0], [-2.0, 0.0]]), "as_adjacency: graph")
    Traceback (most recent call last):
    ...
    kgroups.exceptions.InvalidParameterError: as_adjacency: graph: the adjacency matrix \
has entry (1, 0) = -2.0; expected a finite number >= 0 (an edge weight; 0 means no edge)
    """
    bad = _first_invalid(A.data) if A.nnz else None
    if bad is not None:
        row = int(np.searchsorted(A.indptr, bad, side="right")) - 1
        raise InvalidParameterError(
            f"{what}: the adjacency matrix has entry ({row}, {int(A.indices[bad])}) = "
            f"{float(A.data[bad])!r}; {EXPECTED}")


def undirected_line_weights(src, dst, weights, n):
    """The symmetric weight matrix of an undirected weighted edge list.

    A pair listed once, or exactly once in each direction with the same weight
    (an undirected edge written both ways, as SNAP files do), is one edge of that
    weight; any other repetition of a pair is merged into one edge whose weight is
    the sum of its lines' weights.

    Parameters
    ----------
    src, dst : ndarray of int
        Node codes of the two ends of each line.
    weights : ndarray of float
    n : int
        Number of nodes.

    Returns
    -------
    W : scipy.sparse.csr_matrix of shape (n, n)
        Symmetric (self-loops on the diagonal, once).
    n_summed : int
        Pairs whose lines were summed.

    Examples
    --------
    >>> import numpy as np
    >>> W, s = undirected_line_weights(np.array([0, 1, 1, 1]), np.array([1, 0, 2, 2]),
    ...                                np.array([2.0, 2.0, 1.0, 3.0]), 3)
    >>> W.toarray().tolist(), s
    ([[0.0, 2.0, 0.0], [2.0, 0.0, 4.0], [0.0, 4.0, 0.0]], 1)
    """
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    forward = (src <= dst).astype(np.float64)
    pairs, inv = np.unique(lo.astype(np.int64) * n + hi, return_inverse=True)
    count_f = np.bincount(inv, weights=forward)
    count_b = np.bincount(inv, weights=1.0 - forward)
    sum_f = np.bincount(inv, weights=weights * forward)
    sum_b = np.bincount(inv, weights=weights * (1.0 - forward))
    mirrored = (count_f == 1) & (count_b == 1) & (sum_f == sum_b)
    total = np.where(mirrored, sum_f, sum_f + sum_b)
    n_summed = int(np.count_nonzero((count_f + count_b > 1) & ~mirrored))
    a, b = pairs // n, pairs % n
    off = a != b
    rows = np.concatenate([a, b[off]])
    cols = np.concatenate([b, a[off]])
    W = sp.csr_matrix((np.concatenate([total, total[off]]), (rows, cols)), shape=(n, n))
    return W, n_summed
