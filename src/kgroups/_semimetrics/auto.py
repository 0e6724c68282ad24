r"""``semimetric="auto"``: the energy semimetric or the neighbourhood graph's, chosen
from the data alone.

Both fits are made (the energy semimetric with the estimator's ``alpha``, and
``"nearest_neighbors"`` with its ``n_neighbors``; past ``AUTO_SAMPLE_N`` rows the
energy candidate is judged by its fit on a sample, :mod:`kgroups._auto_fit`), and
each partition is judged by the same yardstick, the **normalised cut** of the neighbourhood graph
(:mod:`kgroups._semimetrics.neighbors`; Shi & Malik 2000):

.. math:: \mathrm{Ncut}(C_1, \dots, C_k) = \sum_{l=1}^k
          \frac{\mathrm{cut}(C_l)}{\mathrm{vol}(C_l)}, \qquad
          \mathrm{cut}(C) = \sum_{i \in C, j \notin C} w_i A_{ij} w_j, \quad
          \mathrm{vol}(C) = \sum_{i \in C} w_i d_i,

the share of the random walk's steps that leave the cluster they start in. Where the
clusters are convex blobs, both fits find the same partition, or partitions whose
cuts are alike: the energy semimetric is kept. Where the clusters are rings,
spirals, stripes or touching shapes, the energy partition cuts through them, across
many edges of the graph, while the graph's partition follows its sparse cuts:
``"nearest_neighbors"`` is chosen when its normalised cut is below ``CUT_RATIO``
times that of the energy partition.

The rule and its constant were chosen by the study of ``benchmarks/bench_semimetric.py``
over Gaussian settings, real tables and shape sets (the Performance page).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

#: The semimetrics ``"auto"`` chooses between, the first kept on a tie.
CANDIDATES = ("energy", "nearest_neighbors")
#: ``"nearest_neighbors"`` is chosen when its partition's normalised cut is below this
#: fraction of the energy partition's.
CUT_RATIO = 0.5


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
        The normalised cut of each candidate's partition on the neighbourhood graph.
    agreement : float
        The adjusted Rand index between the two candidates' partitions.
    """

    semimetric: str
    reasoning: str
    normalized_cut: dict = field(default_factory=dict)
    agreement: float = float("nan")

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
        Cluster of each node, in ``[0, k)``.
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
    """
    import scipy.sparse as sp  # already loaded: A is one of its matrices

    n = labels.shape[0]
    H = sp.csr_matrix((w, (np.arange(n), labels)), shape=(n, k))
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


def choose(graph_map, labels, k, sample=None):
    """The choice of the module docstring from the neighbourhood graph ``graph_map``
    (a fitted :class:`~kgroups._semimetrics.neighbors.NeighborGraphMap`) and
    ``labels``, ``{candidate: labels of its fit}`` on the map's training rows; or, with
    ``sample = (m, n)`` (the energy candidate fitted on a uniform sample of ``m`` of the
    ``n`` rows), on the graph's nodes, the adjusted Rand index then taken over the
    nodes and the reasoning saying so."""
    from sklearn.metrics import adjusted_rand_score

    if sample is None:
        cut = {name: partition_cut(graph_map, labels[name], k) for name in CANDIDATES}
    else:  # the labels are the nodes'
        cut = {name: normalized_cut(graph_map.graph, graph_map.weights, labels[name], k)
               for name in CANDIDATES}
    e, g = cut["energy"], cut["nearest_neighbors"]
    agree = float(adjusted_rand_score(labels["energy"], labels["nearest_neighbors"]))
    numbers = (f"normalised cut of the {graph_map.n_neighbors}-nearest-neighbour graph: "
               f"{g:.4g} for the nearest_neighbors partition, {e:.4g} for the energy "
               f"partition (ratio {g / e:.3g})" if e > 0 else
               f"normalised cut of the {graph_map.n_neighbors}-nearest-neighbour graph: "
               f"{g:.4g} for the nearest_neighbors partition, 0 for the energy partition")
    numbers += (f"; the partitions agree with adjusted Rand index {agree:.3f}"
                + ("" if sample is None else " on the graph's nodes"))
    if sample is not None:
        numbers = (f"the energy candidate was judged on a uniform sample of {sample[0]} of "
                   f"the {sample[1]} rows (fitted there, the graph's nodes labelled by "
                   f"its predict); {numbers}")
    if g < CUT_RATIO * e:
        why = (f"{numbers}. The graph's partition cuts below {CUT_RATIO:g} of the energy "
               "partition's edges: the clusters follow the neighbourhood graph, not convex "
               "pieces: 'nearest_neighbors'.")
        return SemimetricChoice("nearest_neighbors", why, cut, agree)
    why = (f"{numbers}. The graph's partition does not cut below {CUT_RATIO:g} of the "
           "energy partition's edges: the energy semimetric is kept: 'energy'.")
    return SemimetricChoice("energy", why, cut, agree)
