r"""Energy or the neighbourhood graph: the one rule that chooses the semimetric, for
``choose_k(X, semimetric="auto")``, ``n_clusters="auto"`` with it, and
``semimetric="auto"`` at a given k.

The energy answer (:math:`k_e` clusters) and the graph's groups :math:`G` (:math:`k_g`)
are compared by the **normalised cut** (Shi & Malik 2000) on the neighbourhood graph of
:math:`G` and of the energy partition :math:`E_{k_g}` of as many clusters, both in the
units of the energy answer (X standardized where only there it found structure): (1)
:math:`k_e = 1` (no structure for energy): the graph when its groups are components of
the graph (a cut of 0: apart, the strongest evidence a graph gives; a tight far group is
one) and those of more than ``n_neighbors + 1`` rows each bimodal with their nearest,
the two weighed equally (:func:`group_dips` with ``balanced``: a near-line's graph falls
apart into pieces of one cloud; a small group far out is two modes at equal weights), or cut
below ``NO_STRUCTURE_RATIO`` times :math:`E_{k_g}` with each bimodal with its nearest
along their discriminant or their margins (:func:`pair_dips` below ``SPLIT_ALPHA``: a
valley across a line, or a gap, which arms that no line separates show; two parts of
one cloud, a tail cut off, have neither), else one cluster; (2)
:math:`E_{k_g}` the graph's groups (adjusted Rand index at least ``AGREE``) and
:math:`k_e < k_g`: the graph, finer; (3) the energy clusters within the groups (a
share ``WITHIN`` of the weight) and one of: the smallest group below ``BALANCE`` /
:math:`k_g` of the weight (a part set apart, past which the graph's rule
stopped; not a group of at most ``n_neighbors + 1`` rows, which the graph sees only where
it is apart on its own scale: a tight far group, a cluster); :math:`E_{k_g}` the groups
(energy finds clusters within them); or :math:`k_e > k_g` with every energy cluster
bimodal with its nearest in its group along their discriminant and in their margins
measured along the data (a valley and a gap, as energy's split walk asks: sub-clusters;
the tiles of one long shape show a valley where it bends, never a gap), or groups not
cleanly cut (:math:`G`'s cut at least ``CLEAN_CUT``): energy; (3b)
the mirror of (3): :math:`k_e < k_g`, the groups within the energy clusters (a share
``WITHIN``) and a group of more than ``n_neighbors + 1`` rows not bimodal with its nearest
in its cluster (:func:`group_dips` at least ``SPLIT_ALPHA``: a cloud whose graph fell
apart at a gap of its sample, as on a line): energy; (4) else the graph when :math:`G`
cuts below ``CUT_RATIO`` times :math:`E_{k_g}` (rings, moons, spirals), else energy.
``benchmarks/bench_choice.py`` found stability under resampling (Lange et al. 2004) and
DBCV (Moulavi et al. 2014) worse yardsticks on the development half.
"""

from __future__ import annotations

import copy
from functools import partial

import numpy as np
from sklearn.covariance import ledoit_wolf

from .._semimetrics.auto import ONE_COLUMN
from .._stats.criteria import contingency
from .._stats.dip import dip_test, margins as dip_margins, path_margins
from .constants import AGREE, BALANCE, CLEAN_CUT, CUT_RATIO, NO_STRUCTURE_RATIO, SPLIT_ALPHA, WITHIN

ENERGY, GRAPH = "energy", "nearest_neighbors"


def within_share(P, G, w):
    """The share of the weight of each cluster of ``P`` in its main group of ``G``.

    >>> within_share(np.array([0, 0, 1, 1]), np.array([0, 1, 0, 1]), np.ones(4))
    0.5
    """
    return float(contingency(P, G, w).max(axis=1).sum() / w.sum())


def no_graph(X, n_distinct, n_neighbors):
    """Why the neighbourhood graph cannot judge (X of one column, or at most
    ``n_neighbors`` distinct rows of positive weight): the trace step's ``(statistic,
    value, threshold, outcome)``; None where it can."""
    if X.shape[1] == 1:
        return "columns", 1, None, f"{ONE_COLUMN}: energy"
    if n_distinct <= n_neighbors:
        return ("distinct rows of positive weight", n_distinct, n_neighbors + 1,
                f"{n_distinct} distinct row(s), not more than n_neighbors={n_neighbors}: too "
                "few for the neighbourhood graph: energy")
    return None


def judge(cut, G, E, k_e, k_g, w, n_neighbors, own, trace, agree=0.0, pair_p=1.0, sub_p=0.0):
    """:func:`decide` on the rows (or nodes) of weights ``w``: the cuts (``cut(labels)``)
    of the graph's groups ``G`` and of the energy partition ``E`` of as many clusters, the
    shares of the energy answer ``own``'s weight within the groups and of the groups'
    within its clusters (0 for None: one cluster), :func:`smallest_group`; ``(pick,
    {semimetric: its cut})``."""
    cut_g, cut_e = cut(G), cut(E)
    pick = decide(cut_g, cut_e, k_e, k_g, 0.0 if own is None else within_share(own, G, w),
                  smallest_group(G, w, k_g, n_neighbors), trace, agree, pair_p,
                  0.0 if own is None else within_share(G, own, w), sub_p)
    return pick, {GRAPH: cut_g, ENERGY: cut_e}


def smallest_group(G, w, k, n_neighbors):
    """The weight share of the lightest group of ``G`` (k groups) of more than
    ``n_neighbors + 1`` rows (1.0 where none is): the part the graph may have set apart.

    >>> smallest_group(np.array([0] * 30 + [1] * 20 + [2] * 3), np.ones(53), 3, 10)
    0.37735849056603776
    """
    rows, weight = np.bincount(G, minlength=k), np.bincount(G, weights=w, minlength=k)
    big = weight[rows > n_neighbors + 1]
    return float(big.min() / w.sum()) if big.size else 1.0


def pair_dips(X, w, E, G, n_neighbors=10):
    r"""The largest dip p-value of the energy clusters ``E`` each with its nearest cluster
    (by weighted means) in the same group of ``G``, each pair's the larger of two: along
    their discriminant :math:`\hat\Sigma^{-1} (\mu_d - \mu_c)` (Fisher 1936; the pooled
    covariance shrunk as Ledoit & Wolf 2004), which crosses long clusters side by side
    where the means' line is slanted, and of their :func:`paths` (margins along the
    data, on the graph of ``n_neighbors``; both must reject: two tiles of a bent curve
    are bimodal along their discriminant, not apart, and straight-line margins pile up
    where the curve bends back); ``E`` one cluster: :func:`group_dips` of the groups of
    ``G``.
    Weights enter the means and the dip (:func:`~kgroups._stats.dip.dip_test`); the
    covariance and the margins count each row once. Each view lists c's rows, then d's."""
    if E.max() == 0:
        return group_dips(X, w, G, E)
    along = partial(paths, n_neighbors=n_neighbors)
    return max(_nearest_dips(X, w, E, G, (discriminant, along), every=True), default=1.0)


def group_dips(X, w, G, E, least=0, none=1.0, balanced=False):
    """The largest dip p-value of the graph's groups ``G`` of more than ``least`` rows,
    each with its nearest such group in the same cluster of ``E``, along their
    discriminant (a valley across a line) and their :func:`margins` (a gap along the
    boundary the graph drew, straight or curved), the smaller p-value of the two doubled
    (Bonferroni); ``none`` where no cluster of E holds two such groups. ``balanced``
    (groups that are components of the graph, a gap between each two): the two weigh
    the same in each test, since whether they are two modes or two pieces of one cloud
    does not depend on how many points each holds, and at their own sizes the dip
    cannot see a group of 2 % beside the rest (a blob of 20 points 10 standard
    deviations from one of 1,000: p = 1). Groups that touch are read at their sizes:
    weighed equally, a tail cut off a skewed cloud would rise at the cut into a mode."""
    return max(_nearest_dips(X, w, G, E, (discriminant, margins), least, balanced),
               default=none)


def _nearest_dips(X, w, P, H, views, least=0, balanced=False, every=False):
    """The dip p-values of each cluster of ``P`` of more than ``least`` rows with its
    nearest such cluster in the same cluster of ``H``, the smallest over ``views``
    times their number (``every``: the largest, each view must reject); ``balanced``:
    the two weighed equally (each its weights over their sum), at the effective size of
    those weights."""
    kp = int(P.max()) + 1
    mu = np.array([np.average(X[P == c], axis=0, weights=w[P == c]) for c in range(kp)])
    home = contingency(P, H, w).argmax(axis=1)
    big = np.bincount(P, minlength=kp) > least
    ps = []
    for c in np.flatnonzero(big):
        if (others := np.flatnonzero((home == home[c]) & big & (np.arange(kp) != c))).size:
            d = others[np.argmin(np.sum((mu[others] - mu[c]) ** 2, axis=1))]
            wc, wd = w[P == c], w[P == d]
            wcd = np.r_[wc / wc.sum(), wd / wd.sum()] if balanced else np.r_[wc, wd]
            p = [dip_test(v(X, P, mu, c, d), wcd)[1] for v in views]
            ps.append(max(p) if every else min(1.0, len(views) * min(p)))
    return ps


def discriminant(X, E, mu, c, d):
    """The rows of clusters c and d of ``E`` (means ``mu``) projected on their
    discriminant, c's then d's (:func:`pair_dips`)."""
    both = (E == c) | (E == d)
    S = ledoit_wolf(X[both] - mu[np.where(E[both] == c, c, d)], assume_centered=True)[0]
    return np.concatenate([X[E == c], X[E == d]]) @ np.linalg.lstsq(S, mu[d] - mu[c],
                                                                     rcond=None)[0]


def paths(X, E, mu, c, d, n_neighbors=10):
    """The :func:`~kgroups._stats.dip.path_margins` of clusters c and d of ``E`` on the
    graph of their rows' ``n_neighbors`` nearest (``mu`` is not read)."""
    return path_margins(X[E == c], X[E == d], n_neighbors)


def margins(X, E, mu, c, d):
    """The :func:`~kgroups._stats.dip.margins` of clusters c and d of ``E`` in X's units;
    ``mu`` (the means) is not read: the views of :func:`group_dips` take the same
    arguments."""
    return dip_margins(X[E == c], X[E == d])


def tiles(e, f, G, ks, w, n_neighbors, cut, agree, pair_p):
    r"""Energy's answer ``e`` (its :class:`~kgroups._choose_k.fits.Fits` ``f``) read
    against the graph's groups ``G`` with the arbiter's numbers: ``cut`` (a partition's
    normalised cut), ``agree`` (the adjusted Rand index of :math:`E_{k_g}` with ``G``)
    and ``pair_p`` (a function giving :func:`pair_dips` of ``e``). A long shape has no energy clusters of its own, only tiles, whose
    number is arbitrary. Where, as in rule 4 above, :math:`k_e > k_g`, the groups are
    cleanly cut (below ``CLEAN_CUT``), none is a small part apart (``BALANCE``) and
    energy does not find them at :math:`k_g` (:math:`E_{k_g}` below ``AGREE``: shapes,
    not clouds), energy's clusters are tiles of the shapes unless they lie within the
    groups (a share ``WITHIN``) and each is bimodal with its nearest in its group
    (:func:`pair_dips` below ``SPLIT_ALPHA``: sub-clusters). Tiles within the groups
    are too many; tiles across them (the silhouette's best straddles a gap) too few.
    Energy's k is then the smallest whose partition lies within the groups, the fewest
    tiles that keep the shapes apart (``e`` where none in ``ks`` does). Returns ``e``,
    or a copy at that k with the step in its trace."""
    kg = int(G.max()) + 1
    if not e.k > kg >= 2 or e.geometry == "multimodal axes":  # f: X's, not e's geometry
        return e
    share, p = within_share(e.labels, G, w), None
    if (smallest_group(G, w, kg, n_neighbors) < BALANCE / kg or agree >= AGREE
            or (cut_g := cut(G)) >= CLEAN_CUT
            or share >= WITHIN and (p := _read(pair_p)) < SPLIT_ALPHA):
        return e
    k = next((k for k in (int(k) for k in ks[ks >= 2])
              if within_share(f.grow(k)[0], G, w) >= WITHIN), None)
    if k is None:
        return e
    t = copy.copy(e)
    t.k, t.labels, t.at_top, t.trace = k, f.fits[k][0], False, copy.deepcopy(e.trace)
    how = ("within them, and one is not bimodal with its nearest in its group (dip p-value "
           f"{p:.2g}, at least {SPLIT_ALPHA:g})" if p is not None else
           f"across them ({share:.1%} of the weight within, below {WITHIN:g})")
    t.trace.add("tiles", f"the graph's {kg} groups cut cleanly (normalised cut {cut_g:.3g}, "
                f"below {CLEAN_CUT:g}) and are not energy's {kg} clusters; energy's {e.k} lie "
                f"{how}: tiles of the groups' shapes; the fewest energy clusters within the "
                "groups", k, None, f"k={k}",
                short=f"k={k}, the fewest energy clusters within the graph's {kg} groups")
    return t


def decide(cut_g, cut_e, k_e, k_g, within, smallest, trace, agree=0.0, pair_p=1.0,
           nested=0.0, sub_p=0.0):
    r"""The rule of the module docstring: ``"energy"`` or ``"nearest_neighbors"``, its
    step in ``trace``; ``agree``: the adjusted Rand index of :math:`E_{k_g}` with the
    groups; ``pair_p``: :func:`pair_dips`, or a function giving it, called only where
    rule 1 or 3 reads it (``agree=0``, ``pair_p=1``: not compared, as at a given k);
    ``nested``: the share of the groups' weight within the energy clusters; ``sub_p``:
    :func:`group_dips` of the groups within them (or a function giving it), read by
    rule 1 (components) and 3b.

    >>> from kgroups._choose_k.trace import Trace
    >>> t = Trace()
    >>> decide(0.001, 0.2, 8, 2, 1.0, 0.5, t), t.steps[0].outcome
    ('nearest_neighbors', "the graph's groups cut below 1 times the energy partition's")
    """
    ratio, threshold = (cut_g / cut_e if cut_e > 0 else np.inf), None
    if k_e == 1:
        apart = cut_g == 0 and (sub_p := _read(sub_p)) < SPLIT_ALPHA
        pick = GRAPH if apart or cut_g < NO_STRUCTURE_RATIO * cut_e and (
            pair_p := _read(pair_p)) < SPLIT_ALPHA else ENERGY
        rule, threshold = ("components", None) if apart else ("no structure", NO_STRUCTURE_RATIO)
    elif k_e < k_g and agree >= AGREE:
        pick, rule = GRAPH, "finer groups"
    elif within >= WITHIN and ((small := smallest < BALANCE / k_g) or agree >= AGREE or (
            k_e > k_g and (cut_g >= CLEAN_CUT or (pair_p := _read(pair_p)) < SPLIT_ALPHA))):
        pick = ENERGY
        rule = ("a small part apart" if small else "the same groups" if agree >= AGREE else
                "not cleanly cut" if cut_g >= CLEAN_CUT else "bimodal pairs")
    elif k_e < k_g and nested >= WITHIN and (sub_p := _read(sub_p)) >= SPLIT_ALPHA:
        pick, rule, within, pair_p = ENERGY, "groups without modes", nested, sub_p
    else:
        pick = GRAPH if cut_g < CUT_RATIO * cut_e else ENERGY
        rule, threshold = "the cuts", CUT_RATIO
    why, short = _texts(rule, pick, k_e, k_g, within, smallest, agree, cut_g, pair_p)
    margin = ("a tie: both cuts are 0" if cut_g == cut_e == 0 else
              "close: the ratio of the cuts is within a factor 1.25 of the threshold"
              if threshold is not None and 0.8 <= ratio / threshold <= 1.25 else "")
    trace.add("arbiter", "normalised cut on the neighbourhood graph",
              {"graph's groups": cut_g, f"energy partition of {k_g}": cut_e}, threshold, why,
              margin, ("energy" if pick == ENERGY else "the graph's groups") + short, rule)
    return pick


def _read(p):
    """A p-value given as such or as a function giving it (computed where it is read)."""
    return p() if callable(p) else p


def _texts(rule, pick, k_e, k_g, within, smallest, agree, cut_g, pair_p):
    """The arbiter's step in words, ``(why, short)``: the whole sentence, and the clause
    of the one-line summary (none where the summary's numbers are the cuts)."""
    same = (f"the energy partition of {k_g} clusters is the graph's groups (adjusted Rand "
            f"index {agree:.3f}, at least {AGREE:g})")
    nest = (f"the {k_e} energy clusters lie within the graph's groups ({within:.1%} of the "
            "weight) and ")
    if rule == "components":
        return (f"no structure for energy, but the graph's {k_g} groups are components of the "
                "graph (a normalised cut of 0): they are apart", ", components of the graph")
    if rule == "no structure":
        return (f"no structure for energy: the graph's groups must cut below "
                f"{NO_STRUCTURE_RATIO:g} times the energy partition's" + ("" if callable(pair_p)
                else f", and each be bimodal with its nearest group along their discriminant "
                f"or margins (dip p-values at most {pair_p:.2g}, below {SPLIT_ALPHA:g})"), "")
    if rule == "finer groups":
        return (f"{same}: both see {k_g} groups, finer than energy's {k_e} clusters",
                f", finer than energy's (ARI {agree:.2f})")
    if rule == "a small part apart":
        return (nest + f"its smallest group holds {smallest:.1%}, below {BALANCE:g} / {k_g}: "
                "the graph sets a small part apart", f", the graph sets {smallest:.1%} apart")
    if rule == "the same groups":
        return (nest + f"{same}: the graph adds nothing that energy does not see",
                f", the same groups (ARI {agree:.2f})")
    if rule == "not cleanly cut":
        return (nest + f"the graph's groups are not cleanly cut (normalised cut {cut_g:.3g}, "
                f"at least {CLEAN_CUT:g}): clusters within groups", ", the groups not cleanly cut")
    if rule == "groups without modes":
        return (f"the graph's {k_g} groups lie within energy's {k_e} clusters ({within:.1%} of "
                "the weight) and a group is not bimodal with its nearest in its cluster along "
                f"their discriminant or margins (dip p-value {pair_p:.2g}, at least "
                f"{SPLIT_ALPHA:g}): one cloud whose graph fell apart at a gap of its sample",
                ", groups without modes")
    if rule == "bimodal pairs":
        return (nest + f"each is bimodal with its nearest neighbour in its group along their "
                f"discriminant and in their margins along the data (dip p-values at most "
                f"{pair_p:.2g}, below {SPLIT_ALPHA:g}): clusters within groups",
                ", bimodal pairs within groups")
    return (f"the graph's groups {'cut' if pick == GRAPH else 'do not cut'} below "
            f"{CUT_RATIO:g} times the energy partition's", "")          # the cuts
