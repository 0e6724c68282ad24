r"""``semimetric="auto"``: the yardstick of the choice between the energy semimetric
and the neighbourhood graph's, and the record of that choice.

The **normalised cut** of a partition of the neighbourhood graph
(:mod:`kgroups._semimetrics.neighbors`; Shi & Malik 2000),

.. math:: \mathrm{Ncut}(C_1, \dots, C_k) = \sum_{l=1}^k
          \frac{\mathrm{cut}(C_l)}{\mathrm{vol}(C_l)}, \qquad
          \mathrm{cut}(C) = \sum_{i \in C, j \notin C} w_i A_{ij} w_j, \quad
          \mathrm{vol}(C) = \sum_{i \in C} w_i d_i,

is the share of the random walk's steps that leave the cluster they start in. The
rule that compares the candidates' cuts is :mod:`kgroups._choose_k.arbiter`, the same
for ``semimetric="auto"`` at a given k (:mod:`kgroups._choose_k.at_k`) and for
``n_clusters="auto"``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: The semimetrics ``"auto"`` chooses between.
CANDIDATES = ("energy", "nearest_neighbors")
#: Why X of one column keeps energy: the graph has nothing to add there, and fails.
ONE_COLUMN = ("one column: on a line every group is an interval, which energy finds, and "
              "the neighbourhood graph falls apart wherever a gap is wider than the nearest "
              "neighbours on both sides")


@dataclass
class SemimetricChoice:
    """What ``semimetric="auto"`` chose and why.

    Attributes
    ----------
    semimetric : str
        The semimetric of the fit kept: ``"energy"`` or ``"nearest_neighbors"``.
    reasoning : str
        The numbers that decided, in words.
    normalized_cut : dict
        The normalised cut of each candidate's partition on the neighbourhood graph
        (empty when the graph could not be built).
    """

    semimetric: str
    reasoning: str
    normalized_cut: dict = field(default_factory=dict)

    def __repr__(self):
        return f"SemimetricChoice(semimetric={self.semimetric!r}, reasoning={self.reasoning!r})"


def normalized_cut(A, w, labels, k):
    r"""The normalised cut of a partition of a graph's nodes (module docstring).

    Parameters
    ----------
    A : sparse matrix of shape (n_nodes, n_nodes)
        Symmetric adjacency, no self-loops.
    w : ndarray of shape (n_nodes,)
        Node weights.
    labels : ndarray of int of shape (n_nodes,)
        Cluster of each node, in ``[0, k)``; -1 for a node left out (a point set
        aside as noise): the cut is that of the graph without it.
    k : int

    Returns
    -------
    ncut : float

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> A = sp.csr_matrix(np.array([[0, 1, 0, 0], [1, 0, 1, 0], [0, 1, 0, 1],
    ...                             [0, 0, 1, 0]], dtype=float))
    >>> round(normalized_cut(A, np.ones(4), np.array([0, 0, 1, 1]), 2), 4)  # 1/3 + 1/3
    0.6667
    >>> round(normalized_cut(A, np.ones(4), np.array([0, 0, 1, -1]), 2), 4)  # 1/3 + 1/1
    1.3333
    """
    import scipy.sparse as sp  # already loaded: A is one of its matrices

    n, kept = labels.shape[0], labels >= 0
    if not kept.all():  # the graph of the kept nodes: no weight, no edge of the others
        w = np.where(kept, w, 0.0)
    at = np.flatnonzero(kept)
    H = sp.csr_matrix((w[at], (at, labels[at])), shape=(n, k))
    within = np.asarray((H.T @ A @ H).diagonal()).ravel()
    vol = np.asarray(H.T @ (A @ w)).ravel()
    have = vol > 0
    return float(np.sum((vol[have] - within[have]) / vol[have]))


def partition_cut(graph_map, labels, k):
    """The normalised cut on the neighbourhood graph ``graph_map`` (a fitted
    :class:`~kgroups._semimetrics.neighbors.NeighborGraphMap`) of the partition
    ``labels`` of its training rows into k clusters (each node takes the label of its
    rows; rows that are not nodes of the graph do not count)."""
    rows = np.flatnonzero(graph_map.node_of_row >= 0)
    at_node = np.empty(graph_map.nodes.shape[0], dtype=np.int64)
    at_node[graph_map.node_of_row[rows]] = labels[rows]
    return normalized_cut(graph_map.graph, graph_map.weights, at_node, k)
