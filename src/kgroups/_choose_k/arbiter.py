r"""Energy or the neighbourhood graph: the one rule that chooses the semimetric, for
``choose_k(X, semimetric="auto")``, ``n_clusters="auto"`` with it, and ``semimetric="auto"``
at a given k (the user guide's *Energy or the graph* has each clause's reasons).

Energy's own answer :math:`E` (:math:`k_e` clusters, its tiles read by :func:`tiles`) and the
graph's groups :math:`G` (:math:`k_g`) are compared on the neighbourhood graph by the
**normalised cut** (Shi & Malik 2000) of :math:`G` and of :math:`E_{k_g}`, energy's partition
of as many clusters. The first clause that holds decides (:func:`decide`; the trace's
``rule``):

1. :math:`k_e = 1` (or energy's clusters only on X's multimodal axes, which stand where this
   clause keeps energy): the graph where its groups are components of the graph, those of
   more than ``n_neighbors + 1`` rows bimodal with their nearest weighed equally (``group_dips``),
   or cut below ``NO_STRUCTURE_RATIO`` times :math:`E_{k_g}`, each bimodal with its nearest
   (``pair_dips`` below ``SPLIT_ALPHA``); else one cluster.
2. :math:`E_{k_g}` is :math:`G` (ARI at least ``AGREE``) and :math:`k_e < k_g`: the graph.
3. Energy's clusters within the groups (``WITHIN`` of the weight) and the smallest group
   below ``BALANCE`` / :math:`k_g`, or :math:`E_{k_g}` is :math:`G` and, with :math:`k_e >
   k_g`, a group holding two clusters splits (:func:`~kgroups._choose_k.core.pieces_split`)
   or is too small to test, or :math:`k_e > k_g` and the groups are not cleanly cut
   (``CLEAN_CUT``) or each cluster is bimodal with its nearest in its group (``pair_dips``,
   cross-fitted): energy. :math:`E_{k_g}` is :math:`G`, :math:`k_e > k_g` and no group
   splits: the graph (energy's pieces of the groups). The mirror, :math:`k_e < k_g` with
   the groups within energy's clusters and one not bimodal with its nearest: energy.
4. The graph where :math:`G` cuts below ``CUT_RATIO`` times :math:`E_{k_g}`, else energy.
"""

from __future__ import annotations

import copy

import numpy as np

from .._semimetrics.auto import ONE_COLUMN
from .._stats.criteria import smallest_group, within_share
from ..metrics import weighted_ari
from .constants import (AGREE, BALANCE, CLEAN_CUT, CUT_RATIO, GROUP_HALVINGS,
                        NO_STRUCTURE_RATIO, SPLIT_ALPHA, SPLIT_MIN, WITHIN)

ENERGY, GRAPH = "energy", "nearest_neighbors"
PIECES = ("energy's split test of the groups that hold two of its clusters or more, the "
          "sides' margins along the data in both halves (twice the median dip p-value of "
          f"{GROUP_HALVINGS} random halvings, the smallest times their number: {{p:.2g}}")


def no_graph(X, n_distinct, n_neighbors):
    """Why the neighbourhood graph cannot judge (one column, or at most ``n_neighbors``
    distinct rows): the trace step's ``(statistic, value, threshold, outcome)``, or None."""
    if X.shape[1] == 1:
        return "columns", 1, None, f"{ONE_COLUMN}: energy"
    if n_distinct <= n_neighbors:
        return ("distinct rows of positive weight", n_distinct, n_neighbors + 1,
                f"{n_distinct} distinct row(s), not more than n_neighbors={n_neighbors}: too "
                "few for the neighbourhood graph: energy")
    return None


def judge(cut, G, E, k_e, k_g, w, n_neighbors, own, trace, agree=0.0, pair_p=1.0, sub_p=0.0,
          split_p=1.0):
    """:func:`decide` on rows (or nodes) of weights ``w``, from the cuts (``cut(labels)``) of
    the groups ``G`` and of ``E`` and the energy answer ``own`` (None: one cluster):
    ``(pick, {semimetric: its cut})``."""
    cut_g, cut_e = cut(G), cut(E)
    pick = decide(cut_g, cut_e, k_e, k_g, 0.0 if own is None else within_share(own, G, w),
                  smallest_group(G, w, k_g, n_neighbors), trace, agree, pair_p,
                  0.0 if own is None else within_share(G, own, w), sub_p, split_p)
    return pick, {GRAPH: cut_g, ENERGY: cut_e}


def tiles(e, f, G, ks, w, n_neighbors, cut, agree, pair_p, split_p=1.0):
    r"""Energy's answer ``e`` (``f``: its fits) read against the graph's groups ``G`` with the
    arbiter's numbers (``pair_p``, ``split_p``: functions giving ``e``'s tests). A long shape
    has only tiles, whose number is arbitrary: where :math:`k_e > k_g`, the groups cleanly cut,
    none a small part apart, and :math:`E_{k_g}` not :math:`G` or :math:`G` with no group that
    splits, energy's clusters are tiles unless rule 3 keeps them. Then energy's k is the
    smallest whose partition lies within the groups; where every one up to :math:`k_e`
    crosses them, the one of more than :math:`k_g` clusters closest to them (largest ARI;
    below :math:`k_e` where that is the undecided top of ``ks``). Returns ``e``, or a copy at
    that k with the step in its trace."""
    kg = int(G.max()) + 1
    if not e.k > kg >= 2 or e.geometry == "multimodal axes":  # f: X's, not e's geometry
        return e
    share, p = within_share(e.labels, G, w), None
    if (smallest_group(G, w, kg, n_neighbors) < BALANCE / kg
            or agree >= AGREE and (split_p := _read(split_p)) < SPLIT_ALPHA
            or (cut_g := cut(G)) >= CLEAN_CUT
            or share >= WITHIN and (p := _read(pair_p)) < SPLIT_ALPHA):
        return e
    k = next((k for k in (int(k) for k in ks[ks >= 2])
              if within_share(f.grow(k)[0], G, w) >= WITHIN), None)
    fit = None
    if k is None:               # every partition crosses the groups: the one closest to them
        fit = {k: weighted_ari(f.grow(k)[0], G, w) for k in (int(k) for k in ks[ks > kg])
               if k < e.k or k == e.k and not e.at_top}   # the undecided top: no answer
        k = max(fit, key=lambda k: (fit[k], -k), default=e.k)
        if k == e.k:
            return e
    t = copy.copy(e)
    t.k, t.labels, t.at_top, t.trace = k, f.fits[k][0], False, copy.deepcopy(e.trace)
    how = ("within them, and one is not bimodal with its nearest in its group (dip p-value "
           f"{p:.2g}, at least {SPLIT_ALPHA:g})" if p is not None else
           f"across them ({share:.1%} of the weight within, below {WITHIN:g})")
    if fit is None:
        which = "the fewest energy clusters within the groups"
        short = "the fewest energy clusters within"
    else:
        which = (f"no energy partition up to k={e.k} lies within the groups: the one of more "
                 f"clusters than groups that agrees best with them (adjusted Rand index "
                 f"{fit[k]:.2f})")
        short = "the energy clusters that agree best with"
    ours = (f"are energy's {kg} clusters, none of which splits by {PIECES.format(p=split_p)}, "
            f"at least {SPLIT_ALPHA:g})" if agree >= AGREE else f"are not energy's {kg} clusters")
    t.trace.add("tiles", f"the graph's {kg} groups cut cleanly (normalised cut {cut_g:.3g}, "
                f"below {CLEAN_CUT:g}) and {ours}; energy's {e.k} lie {how}: tiles of the "
                f"groups' shapes; {which}", k, None, f"k={k}",
                short=f"k={k}, {short} the graph's {kg} groups")
    return t


def decide(cut_g, cut_e, k_e, k_g, within, smallest, trace, agree=0.0, pair_p=1.0,
           nested=0.0, sub_p=0.0, split_p=1.0):
    r"""The rule of the module docstring: ``"energy"`` or ``"nearest_neighbors"``, its
    step in ``trace``. ``agree``: the adjusted Rand index of :math:`E_{k_g}` with the
    groups; ``pair_p``, ``sub_p``, ``split_p``: ``pair_dips``, the groups' ``group_dips``
    and :func:`~kgroups._choose_k.core.pieces_split` (0: a group too small to test), or
    functions giving them, called where read (``agree=0``, ``pair_p=1``: not compared, as
    at a given k); ``nested``: the share of the groups' weight within energy's clusters.

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
    elif within >= WITHIN and ((small := smallest < BALANCE / k_g) or (same := agree >= AGREE
            and (k_e <= k_g or (split_p := _read(split_p)) < SPLIT_ALPHA)) or (
            k_e > k_g and (cut_g >= CLEAN_CUT or (pair_p := _read(pair_p)) < SPLIT_ALPHA))):
        pick = ENERGY
        rule = ("a small part apart" if small else "the same groups" if same else
                "not cleanly cut" if cut_g >= CLEAN_CUT else "bimodal pairs")
    elif k_e > k_g and agree >= AGREE and (split_p := _read(split_p)) >= SPLIT_ALPHA:
        pick, rule = GRAPH, "pieces of the same groups"
    elif k_e < k_g and nested >= WITHIN and (sub_p := _read(sub_p)) >= SPLIT_ALPHA:
        pick, rule, within, pair_p = ENERGY, "groups without modes", nested, sub_p
    else:
        pick = GRAPH if cut_g < CUT_RATIO * cut_e else ENERGY
        rule, threshold = "the cuts", CUT_RATIO
    why, short = _texts(rule, pick, k_e, k_g, within, smallest, agree, cut_g, pair_p, split_p)
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


def _texts(rule, pick, k_e, k_g, within, smallest, agree, cut_g, pair_p, split_p):
    """The arbiter's step in words, ``(why, short)``: the whole sentence, and the clause
    of the one-line summary (none where the summary's numbers are the cuts)."""
    same = (f"the energy partition of {k_g} clusters is the graph's groups (adjusted Rand "
            f"index {agree:.3f}, at least {AGREE:g})")
    nest = (f"the {k_e} energy clusters lie within the graph's groups ({within:.1%} of the "
            "weight) and ")
    if rule == "components":
        return (f"no structure for energy in X's units, but the graph's {k_g} groups are "
                "components of the graph (a normalised cut of 0): they are apart",
                ", components of the graph")
    if rule == "no structure":
        return (f"no structure for energy in X's units: the graph's groups must cut below "
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
        split = "" if k_e <= k_g else (
            ", and a group that holds two energy clusters or more is too small for energy's "
            f"split test (an effective size below {SPLIT_MIN}), so its clusters stand"
            if split_p == 0 else f", and a group splits by {PIECES.format(p=split_p)}, below "
            f"{SPLIT_ALPHA:g})")
        return (nest + same + split + ": the graph adds nothing that energy does not see",
                f", the same groups (ARI {agree:.2f})")
    if rule == "pieces of the same groups":
        return (f"{same}, and no group splits by {PIECES.format(p=split_p)}, at least "
                f"{SPLIT_ALPHA:g}): energy's {k_e} clusters are pieces of the graph's {k_g} "
                "groups",
                f", energy's {k_e} clusters pieces of them")
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
                f"discriminant and in their margins along the data, on each half labelled by "
                f"a fit of the other (dip p-values at most {pair_p:.2g}, below "
                f"{SPLIT_ALPHA:g}): clusters within groups",
                ", bimodal pairs within groups")
    return (f"the graph's groups {'cut' if pick == GRAPH else 'do not cut'} below "
            f"{CUT_RATIO:g} times the energy partition's", "")          # the cuts
