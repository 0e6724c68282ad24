r"""Step 4 of the default of :func:`~kgroups.choose_k` (``method="auto"`` with the energy
semimetric): groups whose shapes energy partitions cannot draw.

A partition of kernel k-groups with the energy semimetric minimises the within energy
(TPAMI eq. 13): its clusters are compact pieces of space. Rings around one centre,
moons, spirals and arcs that touch are not: every energy partition into as many
clusters as there are such groups cuts across them, and the silhouette of those
partitions keeps rising with k, piece after piece. The neighbourhood graph of the
points (the graph semimetric's, ``n_neighbors`` neighbours; :mod:`~kgroups._choose_k.graph`)
finds such groups: its eigengap gives their number :math:`k_g` and the fit of
``KernelKGroups(k_g, semimetric="nearest_neighbors")`` their labels :math:`G`.

**When the groups are shapes.** The graph's groups are taken as shapes that energy
cannot draw when

1. they are of comparable size: each holds at least ``BALANCE`` / :math:`k_g` of the
   weight (a graph whose eigengap only sets apart a small part, outliers or one
   dense class of a table, says nothing of the shapes of the rest), and
2. the energy fit of :math:`k_g` clusters does not find them: its adjusted Rand
   index with :math:`G` (weighted, :func:`weighted_ari`) is below ``DRAWN``, and
3. they cut the graph more sparsely than the energy fit of :math:`k_g` clusters: the
   normalised cut of :math:`G` on the graph is below ``CUT_SHARE`` (1) times that of
   the energy fit (the
   yardstick of ``semimetric="auto"``, :mod:`kgroups._semimetrics.auto`, and of the
   joint choice, :mod:`kgroups._choose_k.joint`; the neighbourhood graph of a table of
   many columns finds groups of comparable size that cut it no better than the
   energy fit does, where the classes are no shapes).

Otherwise (blobs, which both partitions find alike; tables, whose graphs mostly set
apart a small part) the point rule's answer stands.

**The answer for energy partitions.** When the groups are shapes, the answer is the
k whose energy partition agrees best with them (the largest adjusted Rand index with
:math:`G`, among the k where it reaches ``AGREE_MIN``), followed from k = 2 until k
reaches ``max(SCAN_MIN, SCAN_FACTOR * k_a)``, :math:`k_a` the best k so far, as the
silhouette is (until ``SCAN_MIN`` while no k reaches ``AGREE_MIN``): few pieces cut
across the shapes, many pieces each follow them but split them further, and the
agreement peaks between (about 10 arcs for two rings, 5 pieces for two moons). The
fits of k past those of the point rule start from the split of the partition of
k - 1 and ``FOLLOW_N_INIT`` kernel k-means++ starts. When no k reaches
``AGREE_MIN`` by ``SCAN_MIN`` (energy partitions follow the shapes at no k: nested
spheres, noise around spirals), the point rule's answer stands; when the range ends
first, the answer is its largest k, with the warning that k may be larger. Either
way the reasoning names :math:`k_g`: the groups themselves are the clusters of
``KernelKGroups(k_g, semimetric="nearest_neighbors")``.

**Range.** The graph's k is read over the k of the range up to ``max(SCAN_MIN,
SCAN_FACTOR * k_p)``, :math:`k_p` the point rule's answer, and the agreement is
followed as far as the rule needs, so widening ``k_range`` past where both decided
changes nothing.

The constants come from the study of ``benchmarks/bench_choose_k_batteries.py`` (seven
batteries, 128 labelled sets: shapes, real tables, Gaussian settings, hard sets,
FCPS, UCI and R tables, toy sets), where each was varied alone: ``BALANCE`` = 0.25
(0.1 and 0.5 each lose two useful answers), ``DRAWN`` = 0.5 (0.4 loses two, 0.6 one),
``AGREE_MIN`` = 0.1 (0.05 gives the same count, 0.2 loses two), ``CUT_SHARE`` = 1
(the third condition; 0.5 loses three useful answers, none at all two, and answers 7
pieces for the mclust ``cross`` table where 5 was useful). A fourth condition of
the earlier default, that the graph's own fit of the point rule's k not find the point
rule's partition (touching blobs that the eigengap joined into pairs), changes no
answer since the eigengap counts components as its docstring says, and is gone.

References
----------
.. [1] G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-groups via Hartigan's
   method", IEEE Trans. Pattern Anal. Mach. Intell. 43(12), 4411-4425, 2021
   (eq. 13, the within energy).
.. [2] U. von Luxburg, "A tutorial on spectral clustering", Statistics and Computing
   17(4), 395-416, 2007 (section 8.1, the eigengap).
.. [3] L. Hubert and P. Arabie, "Comparing partitions", Journal of Classification
   2(1), 193-218, 1985 (the adjusted Rand index).
"""

from __future__ import annotations

import numpy as np

from .._semimetrics.auto import partition_cut
from .graph import graph_candidate
from .result import AGREE_MIN

# each graph group holds at least BALANCE / k_g of the weight
BALANCE = 0.25
# the energy fit of k_g clusters finds the graph's groups when their ARI reaches this
DRAWN = 0.5
# the graph's groups are shapes only when their normalised cut on the graph is below this
# share of the energy fit's of as many clusters
CUT_SHARE = 1.0
# kernel k-means++ starts of the fits that only the agreement needs (besides the split
# of the partition of k - 1)
FOLLOW_N_INIT = 1


def _pairs(x):
    """Weighted pair counts ``x (x - 1) / 2`` (the number of pairs for integer x)."""
    return float(np.sum(x * (x - 1.0))) / 2.0


def weighted_ari(a, b, w):
    r"""The adjusted Rand index of two partitions of weighted points.

    The index of Hubert & Arabie (1985) with the counts of the contingency table
    :math:`n_{ij}` taken as the weights of the points in both clusters, so that
    integer weights give the index of the data with repeated rows.

    Parameters
    ----------
    a, b : ndarray of int of shape (n_samples,)
        Labels 0..k-1.
    w : ndarray of shape (n_samples,)
        Positive weights.

    Returns
    -------
    ari : float
        1 for equal partitions, about 0 for independent ones (1 when both have one
        cluster).

    Examples
    --------
    >>> a, b = np.array([0, 0, 1, 1]), np.array([1, 1, 0, 0])
    >>> weighted_ari(a, b, np.ones(4))
    1.0
    >>> round(weighted_ari(np.array([0, 1, 1]), np.array([0, 0, 1]), np.array([2.0, 1, 1])), 3)
    0.0
    """
    table = np.zeros((int(a.max()) + 1, int(b.max()) + 1))
    np.add.at(table, (a, b), w)
    s = w.sum()
    total, rows, cols = _pairs(s), _pairs(table.sum(1)), _pairs(table.sum(0))
    expected = rows * cols / total if total > 0 else 0.0
    top = 0.5 * (rows + cols)
    if top == expected:
        return 1.0
    return (_pairs(table.ravel()) - expected) / (top - expected)


def _balanced(labels, w, k):
    share = np.bincount(labels, weights=w, minlength=k) / w.sum()
    return float(share.min()), bool(share.min() >= BALANCE / k)


def _follow(g, ks, G, scan_min, scan_factor):
    """The k of largest agreement with G among those that reach ``AGREE_MIN``, followed
    until ``max(scan_min, scan_factor k_a)`` (until ``scan_min`` while none reaches
    it): ``(k_a or None, {k: agreement}, decided)``."""
    agree, best = {}, None
    for k in (int(k) for k in ks[ks >= 2]):
        # past the point rule's fits: the split of k - 1 and one kernel k-means++ start
        g.grow(k, None if k in g.fits else FOLLOW_N_INIT)
        agree[k] = weighted_ari(g.fits[k][0], G, g.w)
        if agree[k] >= AGREE_MIN and (best is None or agree[k] > agree[best]):
            best = k
        if k >= max(scan_min, scan_factor * (best or 0)):
            return best, agree, True
    return best, agree, False


def follow_shapes(g, X, w, ks, params, opts, seed, r, scan_min, scan_factor):
    """Step 4 (module docstring) on the point rule's result r, found on X's geometry g:
    r updated in place when the graph's groups are shapes (k, labels, reasoning, the
    agreement curve, ``at_top``)."""
    horizon = max(scan_min, scan_factor * r.k)
    gks = ks[(ks >= 2) & (ks <= horizon)]
    if gks.size < 2:
        return
    graph, fmap = graph_candidate(X, w, gks, params, opts, seed)
    kg, G = graph.k, graph.labels
    r.graph_k = kg
    say = (f" The neighbourhood graph ({params['n_neighbors']} neighbours, its eigengap over "
           f"k={int(gks[0])}..{int(gks[-1])}) finds {kg} groups")
    if graph.at_top:
        r.reasoning += say + " at the end of that range: its groups are not used."
        return
    share, balanced = _balanced(G, w, kg)
    if not balanced:
        r.reasoning += (say + f", the smallest with {share:.0%} of the weight, below "
                        f"{BALANCE:g} / {kg}: they set apart a small part, not shapes; the "
                        f"point rule's k stands.")
        return
    E = g.grow(kg)[0]
    drawn = weighted_ari(E, G, w)
    if drawn >= DRAWN:
        r.reasoning += (say + f", which the energy fit of {kg} clusters finds (adjusted Rand "
                        f"index {drawn:.2f} >= {DRAWN:g}); the point rule's k stands.")
        return
    cut_g, cut_e = partition_cut(fmap, G, kg), partition_cut(fmap, E, kg)
    if not cut_g < CUT_SHARE * cut_e:
        r.reasoning += (say + f" that the energy fit of {kg} clusters cuts across, but their "
                        f"normalised cut on the graph, {cut_g:.3g}, is not below the energy "
                        f"fit's, {cut_e:.3g}: they are no sparser cut than energy draws; the "
                        "point rule's k stands.")
        return
    best, agree, decided = _follow(g, ks, G, scan_min, scan_factor)
    r.graph_agreement = np.array([agree.get(int(k), np.nan) for k in ks])
    text = (say + f" of comparable size that the energy fit of {kg} clusters cuts across "
            f"(adjusted Rand index {drawn:.2f} < {DRAWN:g}): shapes that energy partitions "
            f"cannot draw. The energy partitions' agreement with them, followed to "
            f"k={max(agree)}")
    if best is None and decided:
        r.reasoning += (text + f", reaches {AGREE_MIN:g} at no k (largest "
                        f"{max(agree.values()):.2f}): the point rule's k stands.")
        return
    if best is None:                  # the range ends before any partition follows them
        best = int(ks[-1])
        text += (f", has not reached {AGREE_MIN:g} where the range ends, before the rule "
                 "decided: finer partitions may follow them")
    else:
        text += f", is largest at k={best} (adjusted Rand index {agree[best]:.2f})"
    r.reasoning += (text + f": k={best}. The groups themselves are the clusters of "
                    f"KernelKGroups({kg}, semimetric='nearest_neighbors').")
    r.k, r.labels = best, g.fits[best][0]
    r.at_top = bool(best == ks[-1] and not decided)
