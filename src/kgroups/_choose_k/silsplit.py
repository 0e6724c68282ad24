r"""The default of :func:`~kgroups.choose_k` for point data: ``"silhouette+split"``.

Kernel k-groups fits of X for k = 1, 2, ... answer three questions in turn, and
the answer depends only on the fits up to where the rule has decided, never on
how far ``k_range`` goes past that:

1. **Is there structure?** (only when 1 is in the range;
   :mod:`~kgroups._choose_k.structure`) k = 1 only when X is no more clustered
   than samples without structure by every yardstick: no modes (the dip test of a
   held-out half of X along the line of a 2-cluster fit of the other half, and of
   the distances of the points from their mean, which finds rings and shells), and
   no gain of the fits of k = 2..5 over the references above
   ``STRUCTURE_Z`` = 3.5 standard errors (the gap statistic's references, uniform
   over the box of X in its principal axes, on at most 500 points of X).
2. **Which k separates best?** The mean silhouette (Rousseeuw 1987) on the
   semimetric, followed from k = 2 upward until k reaches
   ``max(SCAN_MIN, SCAN_FACTOR * k_b)``, :math:`k_b` the k of the largest mean
   silhouette so far. A peak is accepted once the curve has been followed to twice
   its k (a partition of twice as many clusters as there are splits every cluster,
   and the silhouette falls), and at least to k = 10. The answer of the step,
   :math:`k_s`, is the smallest k whose mean silhouette is within
   ``SILHOUETTE_SE`` standard errors of :math:`k_b`'s, the error of the difference
   paired over the points (:meth:`~kgroups._choose_k.geometry.Geometry.silhouette_se`):
   on a plateau (tables of a few discrete values, many rows repeated) the largest
   value lies anywhere and moves with the range, the smallest k on it does not.
3. **Does a cluster split?** For each cluster of the fit at k (from
   :math:`k_s` on): fit 2 clusters to a random half of its points, project the
   other half on the line through the two halves' means, and test the
   projection for unimodality with Hartigan's dip test
   (:mod:`~kgroups._choose_k.dip`); the held-out half keeps the test honest, since
   the line was not chosen on its points (any cut of the same points looks
   bimodal along itself). While some cluster splits at level ``SPLIT_ALPHA``
   (Bonferroni over the k clusters) and the fit of one more cluster (which starts
   from that split) keeps ``SILHOUETTE_KEEP`` = 0.7 of the mean silhouette of
   :math:`k_s`, one more cluster; the answer is the last k reached. This finds
   groups of well-separated clusters, where the silhouette stops at the coarse
   level (their finer levels keep 0.72 to 0.9 of it in the studies), and leaves
   alone the sub-modes of overlapping classes (two sexes within a species, the
   values of rounded scores), whose partitions keep 0.4 to 0.6 of it. The walk
   ends at the first partition below that share, where the pieces stop being
   separated (the first version walked on through such partitions and kept the
   largest k above it; with this version's fits both give the same answers on the
   synthetic settings and on a chain of four rings, which the first cut into 12).

When X's geometry shows no structure, its units may hide it: steps 2-3 run on the
**multimodal axes** of X sphered (the principal axes, at unit variance, whose
projection the dip test finds multimodal at ``STRUCTURE_ALPHA`` / r, r the number
of axes: clusters separated along a direction of small variance, as parallel
elongated clusters, whose energy partitions in the full space cut across them;
those dip tests are the evidence of structure), then steps 1-3 on X
**standardized** (every column at unit variance, with references uniform with
its mean and covariance; tables whose columns have very different variances).
No structure anywhere: k = 1.

**Shapes** (``method="auto"`` with the energy semimetric, when steps 1-3 found
structure in X's own geometry): step 4 (:mod:`~kgroups._choose_k.shapes`). When the
neighbourhood graph's groups are of comparable size and the energy fit of their
number cuts across them (rings, moons, spirals, arcs that touch), the answer is the
energy partition that agrees best with them, on the fits of this module.

**Range.** The fits of each k, its references and its splits draw from random
streams keyed by k, so widening ``k_range`` past where the rule decided changes
nothing. When the answer is the largest k of the range and the rule had not
decided there (the silhouette still rising, or a cluster still splitting), the
reasoning says so and a :class:`~kgroups._choose_k.result.KRangeWarning` asks to
widen ``k_range``.

**Cost.** One n x n matrix of :math:`\rho` per geometry tried (when it fits in
memory); each k fitted in one call of :class:`~kgroups.KernelKGroups`
(:mod:`~kgroups._choose_k.geometry`: ``n_init`` kernel k-means++ starts and one
from a split of the partition of k - 1), only as far as the rule needs; the
references only when the dip tests find no modes, each fitted with one start, k
by k from 2 until some k shows structure (at most k = 5), on at most 500 points;
the silhouettes from one product of the matrix with the labels; a split test
costs a 2-cluster fit of half a cluster. Up to 1,500 points the fits run on the
matrix, past it from the coordinates with the engine that
:class:`~kgroups.KernelKGroups` chooses, which is faster there (the measured
cost is on the Performance page, from ``benchmarks/bench_choose_k_batteries.py
--timing``).

The constants come from the studies of ``benchmarks/bench_choose_k*.py``:
``STRUCTURE_ALPHA`` = 0.01 (the two dips at 0.005 each; the dip's null is the
uniform, the least favourable unimodal law, and the radial dip falls below 0.01 on
none of 320 draws of the 8 settings without structure), ``STRUCTURE_Z`` = 3.5
(the gain in standard errors estimated from 10 references is t-distributed with 9
degrees of freedom; its largest over k = 2..5 passes 3 on about 4 % of uniform
rectangles, 3.5 on about 1 %, and the batteries give the same answers with 3),
``SPLIT_ALPHA`` = 0.01 (a family-wise level over the
clusters), ``SILHOUETTE_SE`` = 0.5 (on the batteries it moves a zoo table's answer
from 15, the top of the range, to 4, the same with every range, and changes no
other useful answer into one that is not; 1 standard error also answers 2 for a
thyroid table of 3 classes and for ionosphere (a fit at 4 is the useful one) and
12 for two interlocked rings, three useful answers fewer; the synthetic settings
answer the same with 0, 0.5 and 1),
``SILHOUETTE_KEEP`` = 0.7 (between the 0.72 to 0.9 that finer levels of
clusters within clusters keep and the 0.4 to 0.6 of the sub-modes of real
classes; 0.65 cuts a chain of four rings in five, 0.75 leaves two close blobs of
three as one), and the horizon ``max(10, 2 k_s)`` (10: the default range of the
methods before; 2 k_s: past it a partition splits every cluster of the best one).

References
----------
.. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of clusters
   in a data set via the gap statistic", J. R. Statist. Soc. B 63(2), 411-423, 2001.
.. [2] P. J. Rousseeuw, "Silhouettes: a graphical aid to the interpretation and
   validation of cluster analysis", J. Comput. Appl. Math. 20, 53-65, 1987.
.. [3] J. A. Hartigan and P. M. Hartigan, "The dip test of unimodality", Ann.
   Statist. 13(1), 70-84, 1985.
.. [4] A. Kalogeratos and A. Likas, "Dip-means: an incremental clustering method
   for estimating the number of clusters", NIPS 2012 (splitting clusters that a
   dip test finds multimodal).
"""

from __future__ import annotations

import numpy as np

from .geometry import Geometry
from .result import ChooseKResult
from .shapes import follow_shapes
from .structure import STRUCTURE_ALPHA, STRUCTURE_KMAX, find_structure, rescaled

SILHOUETTE_SPLIT = "silhouette+split"
# the silhouette is followed to k = max(SCAN_MIN, SCAN_FACTOR * its best k so far)
SCAN_MIN = 10
SCAN_FACTOR = 2
# family-wise level of the split tests of one partition (Bonferroni over its clusters)
SPLIT_ALPHA = 0.01
# the split walk goes on while the partitions keep this share of the best silhouette
SILHOUETTE_KEEP = 0.7
# the scan answers the smallest k whose mean silhouette is within this many standard
# errors (paired over the points) of the largest
SILHOUETTE_SE = 0.5
# the geometries tried, in order, when X's shows no structure
RESCALED = ("multimodal axes", "standardized")
_WHAT = {"data": "X", "standardized": "X standardized (every column at unit variance)",
         "multimodal axes": "the multimodal axes of X sphered"}


# --------------------------------------------------------------------------- steps
def _scan(g, ks):
    """Step 2: the mean silhouette followed to ``max(SCAN_MIN, SCAN_FACTOR k_b)``, k_b
    the k of the largest so far; ``(k_s, k_b, last k fitted, decided)``, k_s the
    smallest k whose mean silhouette is within ``SILHOUETTE_SE`` standard errors of
    k_b's (:meth:`~kgroups._choose_k.geometry.Geometry.silhouette_se`), decided False
    when the range ended first."""
    best, prev, decided = None, None, False
    for k in (int(k) for k in ks[ks >= 2]):
        g.grow(k)
        if best is None or g.silhouette(k) > g.silhouette(best):
            best = k
        prev = k
        if k >= max(SCAN_MIN, SCAN_FACTOR * best):
            decided = True
            break
    top = g.silhouette(best)
    near = next(k for k in (int(k) for k in ks[(ks >= 2) & (ks <= best)])
                if g.silhouette(k) >= top - SILHOUETTE_SE * g.silhouette_se(k, best))
    return near, best, prev, decided


def _refine(g, ks, k):
    """Step 3: from k, one more cluster while some cluster splits and the new
    partition's mean silhouette keeps ``SILHOUETTE_KEEP`` of the first's; the last
    k reached that keeps it. ``(k, trail, decided)``: ``trail`` the (k, Bonferroni
    p) of each partition reached (p NaN for the one whose silhouette ended the
    walk), ``decided`` False when the range ended while a cluster still split."""
    trail, k = [], int(k)
    floor = SILHOUETTE_KEEP * g.silhouette(k)
    while True:
        labels = g.fits[k][0]
        tests = [g.bisect(labels, j, g.rng(k, 3, j)) for j in range(k)]
        j = int(np.argmin([p for p, _ in tests]))
        p = min(1.0, tests[j][0] * k)
        trail.append((k, p))
        above = ks[ks > k]
        if p >= SPLIT_ALPHA or not above.size:
            return k, trail, p >= SPLIT_ALPHA
        nxt = int(above[0])
        g.fit(nxt, tests[j][1] if nxt == k + 1 else None)
        if g.silhouette(nxt) < floor:
            trail.append((nxt, np.nan))
            return k, trail, True
        k = nxt


# --------------------------------------------------------------------------- result
def _curve(ks, values):
    out = np.full(ks.size, np.nan)
    for k, v in values.items():
        out[np.flatnonzero(ks == k)] = v
    return out


def _structure(g, ks, opts, reference, r):
    """Step 1 (k = 1 in the range): ``(found, text)``, the reference curves on r."""
    found, text, refs = find_structure(g, ks, opts, reference)
    if refs is not None:
        sk = ks[ks <= STRUCTURE_KMAX]
        pad = np.full((refs["ref_log_w"].shape[0], ks.size - sk.size), np.nan)
        r.structure_z = _curve(ks, dict(zip(sk, refs["z"])))
        r.gap = _curve(ks, dict(zip(sk, refs["gap"])))
        r.gap_se = _curve(ks, dict(zip(sk, refs["se"])))
        r.ref_log_w = np.hstack([refs["ref_log_w"], pad])
    return found, text


def _decide(g, ks, opts, reference, declared=None):
    """Steps 1-3 on one geometry: a filled :class:`ChooseKResult` and whether it shows
    structure (always True without k = 1 in the range, or when ``declared``, the
    text of the evidence found before)."""
    r = ChooseKResult(1, SILHOUETTE_SPLIT, ks)
    text = ""
    if ks[0] == 1:
        if declared is None:
            found, text = _structure(g, ks, opts, reference, r)
            if not found:
                r.reasoning, r.labels = text, np.zeros(g.w.size, dtype=np.int64)
                return r, False
        else:
            text = declared
    ks_fit = ks[ks >= 2]
    start, best, last, scanned = _scan(g, ks)
    text += (f"The mean silhouette, followed to k={last}"
             + (f" (max({SCAN_MIN}, {SCAN_FACTOR} x its best k))" if scanned else
                " (the end of k_range)")
             + f", is largest at k={best} ({g.silhouette(best):.3f})")
    if start != best:
        text += (f"; the smallest k within {SILHOUETTE_SE:g} standard error of it is "
                 f"k={start} ({g.silhouette(start):.3f}, s.e. of the difference "
                 f"{g.silhouette_se(start, best):.3f})")
    text += ". "
    k, trail, split_done = _refine(g, ks, start)
    tested = [(kk, p) for kk, p in trail if not np.isnan(p)]
    steps = [f"at k={kk} " + (f"a cluster splits (p = {p:.2g} < {SPLIT_ALPHA:g})"
                              if p < SPLIT_ALPHA else f"none splits (p = {p:.2g})")
             for kk, p in tested]
    text += ("Split test (dip of a held-out half, Bonferroni over the clusters): "
             + "; ".join(steps) + (" (the end of k_range)" if not split_done else ""))
    if len(trail) > len(tested):
        kk = trail[-1][0]
        text += (f"; but the silhouette of k={kk}, {g.silhouette(kk):.3f}, is below "
                 f"{SILHOUETTE_KEEP:g} x {g.silhouette(start):.3f}")
    text += f": k={k}."
    top = k == ks_fit[-1] and (not split_done or (k == best and not scanned))
    r.k, r.labels, r.reasoning, r.at_top = int(k), g.fits[k][0], text, bool(top)
    r.within_energy = _curve(ks, {kk: W for kk, (_, W) in g.fits.items()})
    r.silhouette = _curve(ks, {kk: g.silhouette(kk) for kk in g.sil})
    r.split_p = _curve(ks, dict(tested))
    return r, True


def _rescaled(X, w, ks, params, opts, seed, r):
    """X's geometry shows no structure: the rescaled geometries in turn, the first
    that shows structure gives the answer (r updated in place)."""
    for name in RESCALED:
        Z, why = rescaled(name, X, w, ks, params, STRUCTURE_ALPHA)
        if Z is None:
            r.reasoning += f" {name.capitalize()} is not tried: {why}."
            continue
        declared = None
        if name == "multimodal axes":
            declared = (f"{Z.shape[1]} of its axes are multimodal (dip test at "
                        f"{STRUCTURE_ALPHA:g} / the number of axes): structure. ")
        s, found = _decide(Geometry(Z, w, params, opts, seed), ks, opts, "moments", declared)
        setattr(r, name.replace(" ", "_"), s)
        how = "" if declared else " (references with its moments)"
        r.reasoning += f" On {_WHAT[name]}{how}: {s.reasoning}"
        if found:
            r.k, r.labels, r.geometry, r.at_top = s.k, s.labels, name, s.at_top
            r.reasoning += f" The answer is k={s.k}, found there (labels: its fit)."
            return
        r.reasoning += "."
    r.reasoning += " No structure: k=1."


def point_rule(X, w, ks, params, opts, rng):
    """Steps 1-3 (the module docstring): ``(r, g, found)``, the result, X's
    :class:`~kgroups._choose_k.geometry.Geometry` (its fits kept) and whether the
    answer was found in X's own geometry (else in a rescaled one, or k = 1)."""
    seed = int(rng.integers(2**63 - 1))
    g = Geometry(X, w, params, opts, seed)
    r, found = _decide(g, ks, opts, opts["reference"])
    r.reasoning = f"{SILHOUETTE_SPLIT}: on X, {r.reasoning}"
    if not found:
        r.reasoning += "."
        _rescaled(X, w, ks, params, opts, seed, r)
    return r, g, found


def choose_silhouette_split(X, w, ks, params, opts, rng):
    """``method="silhouette+split"``: the module docstring's steps 1-3, with the result.
    With ``opts["follow_shapes"]`` (``method="auto"`` with the energy semimetric), step
    4 (:mod:`~kgroups._choose_k.shapes`) on an answer found in X's own geometry."""
    r, g, found = point_rule(X, w, ks, params, opts, rng)
    if found and opts.get("follow_shapes") and opts["n_distinct"] > params["n_neighbors"] + 1:
        graph_seed = int(g.rng(0, 9).integers(2**31 - 1))
        follow_shapes(g, X, w, ks, params, opts, graph_seed, r, SCAN_MIN, SCAN_FACTOR)
    note_top(r)
    return r


def note_top(r):
    """The reasoning of an answer at the top of the range says so (``choose_k`` warns)."""
    if r.at_top:
        r.reasoning += (f" k={r.k} is the largest k of k_range and the rule had not decided "
                        "there: k may be larger than the range allows; widen k_range.")
