"""Shared pieces of the community-detection experiments (TPAMI section 5.2, Tables I, IV-VI,
Figs. 4, 5, 8).

Every graph experiment compares, on the same graph and from the same start:

* ``"Bethe"``: the Bethe Hessian clustering (Saade et al., NIPS 2014), k-means on
  the eigenvectors of the k smallest eigenvalues of ``H_r = (r^2 - 1) I - r A + D``
  with ``r = sqrt(mean degree)``;
* ``"k-groups (w = 1)"`` and ``"k-groups (w = d)"``: kernel k-groups (paper
  Algorithm 2) on ``G = -H_r`` started from that Bethe clustering, with unit weights
  (what the authors' published code ran, ``useW=False`` in guisf/kgroups) and with
  degree weights ``W = D`` (what the paper's text says, section 5.2).

The library default (:class:`kgroups.graph.CommunityKGroups`, ``weights="none"``)
is the first; :data:`DEFAULT` names its column.
"""

from __future__ import annotations

import numpy as np

from ..graph import CommunityKGroups, modularity, partition_quality
from ..metrics import overlap
from ._methods import save

BETHE = "Bethe"
KG1 = "k-groups (w = 1)"
KGD = "k-groups (w = d)"
WEIGHTINGS = {KG1: "none", KGD: "degree"}
DEFAULT = KG1 if CommunityKGroups().weights == "none" else KGD
OTHER = KGD if DEFAULT == KG1 else KG1
METHODS = (BETHE, KG1, KGD)
# Resolution of the graph figures.
DPI = 120
STYLES = {BETHE: {"color": "tab:blue", "marker": "s"},
          KG1: {"color": "tab:red", "marker": "s"},
          KGD: {"color": "tab:orange", "marker": "^"}}


def community_labels(A, k, seed, **params):
    """Labels of the Bethe clustering and of kernel k-groups with both weightings.

    Parameters
    ----------
    A : scipy.sparse matrix of shape (n, n)
        Adjacency matrix (or anything :class:`kgroups.graph.CommunityKGroups` accepts).
    k : int or None
        Number of communities; None estimates it from the Bethe Hessian.
    seed : int
        Seed of the k-means of the Bethe initialisation.
    **params
        Passed to the first :class:`~kgroups.graph.CommunityKGroups` (e.g. ``max_k``).

    Returns
    -------
    labels : dict
        ``{BETHE, KG1, KGD: ndarray of shape (n,)}``; both k-groups runs start
        from the same Bethe labels.
    k : int
        The number of communities used (estimated when ``k`` is None).
    """
    first = CommunityKGroups(k, weights="none", random_state=seed, **params).fit(A)
    start = first.bethe_labels_
    other = CommunityKGroups(first.n_clusters_, weights="degree", init=start).fit(A)
    return {BETHE: start, KG1: first.labels_, KGD: other.labels_}, first.n_clusters_


def overlaps(A, y, k, seed):
    """``{method: overlap (paper eq. 63)}`` of the three methods on one graph."""
    labels, _ = community_labels(A, k, seed)
    return {m: overlap(y, lab) for m, lab in labels.items()}


def spectral_adjacency(A, k, seed):
    """Spectral clustering on the adjacency: k-means on the eigenvectors of its k
    largest eigenvalues (the "spectral" column of Tables IV-VI).

    Dense ``eigh`` up to 2000 nodes, sparse Lanczos beyond.
    """
    from scipy.sparse.linalg import eigsh
    from sklearn.cluster import KMeans

    n = A.shape[0]
    if n <= 2000:
        from scipy.linalg import eigh

        _, V = eigh(A.toarray(), subset_by_index=[n - k, n - 1])
    else:
        v0 = np.random.default_rng(seed).standard_normal(n)
        _, V = eigsh(A.astype(np.float64), k=k, which="LA", v0=v0, tol=1e-6)
    return KMeans(k, n_init=10, random_state=seed).fit(V).labels_.astype(np.int64)


def mean_sd_str(values, digits=3):
    """``"mean ± sd"`` (population sd, ddof=0, as the authors' code and numpy)."""
    values = np.asarray(values, dtype=np.float64)
    return f"{values.mean():.{digits}f} ± {values.std():.{digits}f}"


def paired(a, b):
    """Paired difference of two per-graph results: ``(mean(a - b), its standard error)``.

    The standard error is ``sd(a - b, ddof=1) / sqrt(n)``: the two methods run on the
    same graphs, so the graph-to-graph noise they share cancels.

    Examples
    --------
    >>> mean, se = paired([0.9, 0.8, 0.7], [0.8, 0.8, 0.6])
    >>> print(round(mean, 4), round(se, 4))
    0.0667 0.0333
    """
    d = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    se = d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
    return float(d.mean()), float(se)


def verdict_lines(verdicts):
    """Markdown bullets ``- **holds** — statement: detail`` for ``(statement, ok, detail)``."""
    return "\n".join(f"- **{'holds' if ok else 'FAILS'}** — {text}: {detail}"
                     for text, ok, detail in verdicts)


def weights_note():
    """One paragraph: which weighting is the library default and why."""
    return (f"Kernel k-groups runs on G = -H_r from the Bethe clustering, with unit weights "
            f"(`{KG1}`, the authors' published code) and with degree weights (`{KGD}`, "
            "the paper's text, W = D). The library default, `weights=\"none\"`, is "
            f"`{DEFAULT}`: it reproduces Tables IV and V to the printed digits, where "
            "degree weights do not (dolphins, polbooks, Drosophila left).")


def match_to_truth(y, labels):
    """Relabel ``labels`` so that cluster j is the class it overlaps most (Hungarian).

    Examples
    --------
    >>> import numpy as np
    >>> match_to_truth(np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0])).tolist()
    [0, 0, 1, 1]
    """
    from scipy.optimize import linear_sum_assignment

    k = int(max(y.max(), labels.max()) + 1)
    C = np.zeros((k, k))
    np.add.at(C, (labels, y), 1.0)
    rows, cols = linear_sum_assignment(C, maximize=True)
    perm = np.arange(k)
    perm[rows] = cols
    return perm[labels]


def draw_graph(ax, A, labels, *, seed=0, wrong=None, node_size=25, edge_alpha=0.15,
               cmap="tab10", iterations=50):
    """Draw a graph (spring layout, seeded) with nodes coloured by ``labels``.

    ``wrong`` (boolean mask) gives those nodes a thick black outline.
    """
    import networkx as nx

    G = nx.from_scipy_sparse_array(A)
    pos = nx.spring_layout(G, seed=seed, iterations=iterations)
    xy = np.array([pos[i] for i in range(A.shape[0])])
    rows, cols = A.nonzero()
    keep = rows < cols
    from matplotlib.collections import LineCollection

    segments = np.stack([xy[rows[keep]], xy[cols[keep]]], axis=1)
    ax.add_collection(LineCollection(segments, colors="gray", linewidths=0.4,
                                     alpha=edge_alpha, zorder=1))
    edge = np.where(wrong, "black", "white") if wrong is not None else "white"
    thin = 0.3 if node_size >= 15 else 0.0
    width = np.where(wrong, 1.5, thin) if wrong is not None else thin
    ax.scatter(xy[:, 0], xy[:, 1], c=labels, cmap=cmap, vmin=0, vmax=max(9, labels.max()),
               s=node_size, edgecolors=edge, linewidths=width, zorder=2)
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_aspect("equal")
    return xy


def quality_row(A, labels):
    """``(performance, coverage, modularity)`` of a partition of the graph ``A``."""
    cov, perf = partition_quality(A, labels)
    return perf, cov, modularity(A, labels)


def sizes(labels):
    """Community sizes, largest first."""
    return sorted((int(c) for c in np.bincount(labels) if c > 0), reverse=True)


def save_png(fig, out, filename):
    """:func:`kgroups.experiments._methods.save` at the graph figures' resolution."""
    return save(fig, out, filename, dpi=DPI)

