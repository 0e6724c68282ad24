r"""The rule of :func:`~kgroups.choose_k` for ``semimetric="nearest_neighbors"``: the
eigengap of the neighbourhood graph.

The graph's semimetric (:mod:`kgroups._semimetrics.neighbors`) embeds the points
with the leading eigenvectors of the random walk on their neighbourhood graph, and
clusters are the pieces of that graph that the walk leaves rarely. With
:math:`0 = \mu_1 \le \mu_2 \le \dots` the eigenvalues of the walk's Laplacian
:math:`I - P` (one minus the walk's eigenvalues), a graph of k such pieces has
:math:`\mu_1, \dots, \mu_k` near 0 and :math:`\mu_{k+1}` far from them (exactly 0
for k components; von Luxburg 2007, section 8.1; the ICML draft reads k off the
eigengap of the random-walk Laplacian, section 5.2). The eigenvalues near 0 are
small on every scale (they shrink as the graph grows), so the gap is measured as a
ratio: the chosen k has the largest

.. math:: \log \mu_{k+1} - \log \mu_k, \qquad k \ge 2

over the range (k = 1 has :math:`\mu_1 = 0` always: the rule answers k >= 2, as the
silhouette does).

**Components.** A graph of c components has c exact zeros, whose ratio with the
next eigenvalue is infinite, whatever structure lies within the components (three
blobs of which two touch: two components; ten blobs of which one lies far away: two
components). A zero (at most ``ZERO_TOL`` of the largest eigenvalue) therefore counts
as ``COMPONENT_FLOOR`` = 0.2 times the smallest eigenvalue above zero: the gap after
the last component is :math:`\log 5 \approx 1.61`, and a larger gap within the
components wins over it. The constant is the smallest that keeps one curve per
component: on a curve (a moon, a ring) the eigenvalues of the walk grow as the
squares :math:`\mu_j \propto j^2` (Weyl's law in one dimension), so a component
that is one curve has its next gap at :math:`\log 4 \approx 1.39`, below
:math:`\log 5`; a smaller credit (0.3, :math:`\log 3.3`) splits moons and rings
into pairs of arcs, a larger one (0.1 and below) answers the number of components
where finer groups lie within them. The study of
``benchmarks/bench_nothing_given.py`` measured 0.02, 0.05, 0.1, 0.2, 0.3 and the
floor of a 1e-12 share of the largest eigenvalue (the Performance page).

The labels are those of a
``KernelKGroups(k, semimetric="nearest_neighbors")`` fit with the same
``n_neighbors``. The graph is built once, with ``max(k_range) + 1`` eigenvectors:
the cost of one fit of the largest k.
"""

from __future__ import annotations

import numpy as np

from .._semimetrics.neighbors import NeighborGraphMap
from .result import ChooseKResult

GRAPH_EIGENGAP = "graph eigengap"
# Eigenvalues of the walk's Laplacian at most this share of the largest computed are
# zeros: the graph's components.
ZERO_TOL = 1e-9
# A zero counts as this share of the smallest eigenvalue above zero (module docstring):
# the gap after the last component is log(1 / COMPONENT_FLOOR) = log 5, above the log 4
# of a curve's own next gap, below the gaps of groups within the components.
COMPONENT_FLOOR = 0.2


def log_eigengaps(mu, ks, floor_share=None):
    """``log mu_(k+1) - log mu_k`` for each k of ``ks`` (``mu`` ascending, from k = 1),
    NaN at k = 1; zeros (at most ``ZERO_TOL`` of the largest) count as ``floor_share``
    (default ``COMPONENT_FLOOR``) of the smallest eigenvalue above them.

    Examples
    --------
    >>> mu = np.array([0.0, 0.0, 0.001, 0.002, 0.5])
    >>> np.round(log_eigengaps(mu, np.arange(1, 5)), 2).tolist()
    [nan, 1.61, 0.69, 5.52]
    """
    zero = mu <= ZERO_TOL * max(float(np.max(mu)), 1e-300)
    above = mu[~zero]
    share = COMPONENT_FLOOR if floor_share is None else floor_share
    floor = share * (float(above.min()) if above.size else 1.0)
    m = np.where(zero, floor, mu)
    out = np.log(m[ks]) - np.log(m[ks - 1])
    return np.where(ks >= 2, out, np.nan)


def choose_graph_eigengap(X, w, ks, params, opts, rng):
    """``method="auto"`` with ``semimetric="nearest_neighbors"``: the module's rule
    (``at_top`` when the answer is the largest k of the range)."""
    return graph_groups(X, w, ks, params, opts, int(rng.integers(2**31 - 1)))


def graph_groups(X, w, ks, params, opts, seed):
    """The module's rule without warnings: a :class:`ChooseKResult` with the graph's k,
    its eigengaps, its reasoning and the labels of the graph semimetric's fit at k
    (``at_top`` when k is the largest of the range)."""
    return graph_candidate(X, w, ks, params, opts, seed)[0]


def graph_candidate(X, w, ks, params, opts, seed):
    """:func:`graph_groups` and the neighbourhood graph it read:
    ``(result, graph map)``."""
    top = int(ks[-1])
    fmap = NeighborGraphMap.fit(X, w, n_neighbors=params["n_neighbors"], n_clusters=top + 1,
                                random_state=seed, owner="choose_k")
    mu = np.clip(1.0 - fmap.eigenvalues, 0.0, None)
    gaps = log_eigengaps(mu, ks)
    r = ChooseKResult(0, GRAPH_EIGENGAP, ks, eigenvalues=mu, eigengap=gaps)
    if not np.isfinite(gaps).any():
        i = 0
        r.reasoning = (f"{GRAPH_EIGENGAP}: k_range={ks.tolist()} holds no k >= 2, and the "
                       "graph's eigengap compares k >= 2 clusters only: k=1.")
    else:
        i = int(np.nanargmax(gaps))
        order = np.argsort(-np.nan_to_num(gaps, nan=-np.inf))[:3]
        others = ", ".join(f"k={int(ks[j])}: {gaps[j]:.2f}" for j in order[1:]
                           if np.isfinite(gaps[j]))
        r.reasoning = (
            f"{GRAPH_EIGENGAP}: the eigenvalues of the random walk's Laplacian on the "
            f"{fmap.n_neighbors}-nearest-neighbour graph ({fmap.n_components} "
            f"component(s)) rise most, as a ratio, after the k-th at k={int(ks[i])}: "
            f"log(mu_{int(ks[i]) + 1} / mu_{int(ks[i])}) = {gaps[i]:.2f}"
            + (f" (next: {others})" if others else "") + ".")
    r.k = int(ks[i])
    if r.k == top and len(ks) > 1:
        r.at_top = True
        r.reasoning += (" This is the largest k of the range: k may be larger than the "
                        "range allows; widen k_range.")
    r.labels = graph_labels(X, w, r.k, params, opts, seed)
    return r, fmap


def graph_labels(X, w, k, params, opts, seed):
    """The labels of ``KernelKGroups(k, semimetric="nearest_neighbors")`` fitted on X."""
    est = params["estimator"](int(k), semimetric="nearest_neighbors",
                              n_neighbors=params["n_neighbors"], n_init=opts["n_init"],
                              random_state=seed)
    return est.fit(X, sample_weight=w).labels_
