r"""The choice of k and the semimetric together: :func:`~kgroups.choose_k` with
``semimetric="auto"``, and ``KernelKGroups(n_clusters="auto", semimetric="auto")``.

Each candidate semimetric brings its own rule for k:

* **energy** (:math:`\rho(x, y) = |x - y|^\alpha`): the point rule of
  :mod:`~kgroups._choose_k.silsplit` (steps 1-3: is there structure, the silhouette's
  curve, the split test), which finds compact clusters and answers k = 1 where X
  shows no structure;
* **the neighbourhood graph** (``"nearest_neighbors"``): the eigengap of the random
  walk on the graph (:mod:`~kgroups._choose_k.graph`), whose groups are the pieces of
  the graph that the walk leaves rarely, of any shape.

The two answers are then compared on the one neighbourhood graph
(:mod:`kgroups._semimetrics.neighbors`), with :math:`G` the graph's partition into
:math:`k_g` groups and :math:`P` the energy partition into :math:`k_e` clusters:

1. **A small part set apart.** When the energy clusters lie within the graph's groups
   (each cluster's weight at least ``WITHIN`` in one group, over the partition) and
   the smallest group holds less than ``BALANCE`` / :math:`k_g` of the weight, the
   graph's eigengap only sets apart a small part (a far cluster, a separate class of
   a table) and says nothing of the structure of the rest, which the point rule
   found: the answer is the energy one.
2. **Otherwise the cut decides**, the yardstick of ``semimetric="auto"``
   (:mod:`kgroups._semimetrics.auto`, Shi & Malik 2000) at the graph's number of
   groups: when the **normalised cut** of :math:`G` is below that of the energy
   partition of :math:`k_g` clusters :math:`E_{k_g}`, the graph's groups follow
   sparser cuts of the graph than any energy partition of as many clusters (rings,
   moons, spirals, touching shapes): the answer is :math:`k_g` with the graph
   semimetric and its partition :math:`G`. Otherwise the energy partition cuts the
   graph as well: the groups are compact, and the answer is the point rule's k with
   the energy semimetric. When the point rule finds no structure (:math:`k_e = 1`),
   every partition cuts a cloud alike, and the graph's groups must cut below
   ``CUT_RATIO`` (0.5) of the energy partition's, as ``semimetric="auto"`` asks.

The rule and its constants come from the study of
``benchmarks/bench_nothing_given.py`` (every labelled battery of the project, with
HDBSCAN, k-means with the silhouette and a Gaussian mixture with BIC beside it; the
Performance page).

References
----------
.. [1] J. Shi and J. Malik, "Normalized cuts and image segmentation", IEEE Trans.
   Pattern Anal. Mach. Intell. 22(8), 888-905, 2000.
.. [2] U. von Luxburg, "A tutorial on spectral clustering", Statistics and Computing
   17(4), 395-416, 2007 (section 8.1, the eigengap).
.. [3] G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-groups via Hartigan's
   method", IEEE Trans. Pattern Anal. Mach. Intell. 43(12), 4411-4425, 2021.
"""

from __future__ import annotations

import copy

import numpy as np

from .._semimetrics.auto import CUT_RATIO, partition_cut
from .graph import graph_candidate
from .shapes import BALANCE
from .silsplit import SCAN_FACTOR, SCAN_MIN, note_top, point_rule

JOINT = "energy or graph"
#: The energy clusters lie within the graph's groups when this share of the weight is in
#: the group that holds most of its cluster.
WITHIN = 0.95


def within_share(P, G, w):
    """The share of the weight of each cluster of ``P`` in the group of ``G`` that holds
    most of it, over the partition (1: every cluster of P lies within one group of G).

    Examples
    --------
    >>> within_share(np.array([0, 0, 1, 1, 2]), np.array([0, 0, 0, 0, 1]), np.ones(5))
    1.0
    >>> within_share(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.ones(4))
    0.5
    """
    table = np.zeros((P.max() + 1, G.max() + 1))
    np.add.at(table, (P, G), w)
    return float(table.max(axis=1).sum() / w.sum())


def graph_range(ks, k_point):
    """The k >= 2 of ``ks`` over which the graph's eigengap is read: up to
    ``max(SCAN_MIN, SCAN_FACTOR * k_point)``, so that the answer does not move when
    the range grows past it."""
    return ks[(ks >= 2) & (ks <= max(SCAN_MIN, SCAN_FACTOR * k_point))]


def choose_joint(X, w, ks, params, opts, rng):
    """``semimetric="auto"``: the module's rule; the result names the semimetric
    (``r.semimetric``) and holds both candidates (``r.candidates``)."""
    energy = {**params, "semimetric": "energy"}
    e, g, _ = point_rule(X, w, ks, energy, opts, rng)
    e.semimetric = "energy"
    note_top(e)
    gks = graph_range(ks, e.k)
    if opts["n_distinct"] <= params["n_neighbors"] + 1 or gks.size < 2:
        e.method = JOINT
        e.reasoning += (f" The neighbourhood graph of {params['n_neighbors']} neighbours "
                        "needs more distinct points: energy.")
        return e
    graph, fmap = graph_candidate(X, w, gks, {**params, "semimetric": "nearest_neighbors"},
                                  opts, int(g.rng(0, 9).integers(2**31 - 1)))
    graph.semimetric = "nearest_neighbors"
    kg, G = graph.k, graph.labels
    E = g.grow(kg)[0]
    cut_g, cut_e = partition_cut(fmap, G, kg), partition_cut(fmap, E, kg)
    share = np.bincount(G, weights=w, minlength=kg).min() / w.sum()
    within = within_share(e.labels, G, w) if e.k > 1 else 0.0
    apart = within >= WITHIN and share < BALANCE / kg
    # without structure in X (k_e = 1) every partition cuts a cloud alike: the graph's
    # groups must cut below CUT_RATIO of the energy partition's, as semimetric="auto" asks
    ratio = CUT_RATIO if e.k == 1 else 1.0
    wins = not apart and cut_g < ratio * cut_e
    r = copy.copy(graph if wins else e)  # the candidates stay as they were found
    r.candidates = {"energy": e, "nearest_neighbors": graph}
    r.method = JOINT
    if apart:
        verdict = (f"the graph's smallest group holds {share:.1%} of the weight, below "
                   f"{BALANCE:g} / {kg}, and the {e.k} energy clusters lie within its groups "
                   f"({within:.1%} of the weight): the graph only sets apart a small part; "
                   f"k={e.k} with semimetric='energy'")
    elif wins:
        verdict = (f"the graph's groups cut below {ratio:g} times the energy partition of "
                   f"{kg} clusters: k={kg} with semimetric='nearest_neighbors'")
    else:
        verdict = (f"the graph's groups do not cut below {ratio:g} times the energy "
                   f"partition of {kg} clusters: k={e.k} with semimetric='energy'")
    r.reasoning = (
        f"{JOINT}: energy: {e.reasoning} Graph: {graph.reasoning} On the "
        f"{fmap.n_neighbors}-nearest-neighbour graph, the normalised cut of the graph's "
        f"{kg} groups is {cut_g:.4g}, that of the energy partition of {kg} clusters "
        f"{cut_e:.4g}; {verdict}.")
    r.cuts = {"nearest_neighbors": cut_g, "energy": cut_e}
    return r
