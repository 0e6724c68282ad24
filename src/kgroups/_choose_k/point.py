r"""The energy rule: k of point data from the kernel k-groups fits of X for k = 1, 2, ...;
the answer depends only on the fits up to where it decided (the user guide's *The default:
the energy rule* has the reasons). Step 4, tiles of the neighbourhood graph's groups, is
:func:`~kgroups._choose_k.arbiter.tiles`, run by :mod:`~kgroups._choose_k.core`.

1. **Is there structure?** (:mod:`~kgroups._choose_k.structure`).
2. **Which k separates best?** The mean silhouette (Rousseeuw 1987) from the first k whose
   gain passed step 1's references, followed to ``max(SCAN_MIN, SCAN_FACTOR k_b)``,
   :math:`k_b` the best so far; the answer is the smallest k within ``SILHOUETTE_SE``
   paired standard errors of :math:`k_b`'s.
3. **Does a cluster split?** One more cluster while some cluster is multimodal along the
   other half's 2-cluster line and across its sides' margins (dip tests at ``SPLIT_ALPHA``,
   Bonferroni over the clusters; Kalogeratos & Likas 2012) and the finer fit keeps
   ``SILHOUETTE_KEEP`` of the silhouette.

Without structure in X's geometry: steps 2-3 on X's multimodal sphered axes, then 1-3 on X
standardized; none: k = 1, or without 1 in the range steps 2-3 on X (:func:`on_x`, also
where the graph's groups pass the arbiter's first clause). With structure whose clusters
spread along the columns in different units: step 3 goes on in X standardized within
clusters (:func:`within_clusters`).
"""

from __future__ import annotations

import numpy as np

from .._random_state import stream
from .._rescale import within_standardizing
from .._stats.criteria import equal_variances_p
from .._stats.dip import effective_size, read_to_precision
from .constants import (PRECISION_STEP, SCAN_FACTOR, SCAN_MIN, SILHOUETTE_KEEP, SILHOUETTE_SE,
                        SPLIT_ALPHA, UNITS_RATIO)
from .fits import Fits
from .result import ChooseKResult, curve
from .structure import RESCALED, STRUCTURE_ALPHA, STRUCTURE_Z, find_structure, rescaled
from .trace import Step, Trace, close

WITHIN_CLUSTERS = "standardized within clusters"


def scan(f, ks):
    """Step 2: ``(k_s, k_b, last k fitted, decided)`` (False: the range ended first)."""
    best = None
    for k in (int(k) for k in ks[ks >= 2]):
        f.grow(k)
        if best is None or f.silhouette(k) > f.silhouette(best):
            best = k
        if decided := k >= max(SCAN_MIN, SCAN_FACTOR * best):
            break
    top = f.silhouette(best)
    near = next(k for k in (int(k) for k in ks[(ks >= 2) & (ks <= best)])
                if f.silhouette(k) >= top - SILHOUETTE_SE * f.silhouette_se(k, best))
    return near, best, k, decided


def split_walk(f, ks, k):
    """Step 3 from k: ``(k, trail, decided)``, ``trail`` the (k, Bonferroni p) of each
    partition tested, then (k, NaN) of one below the silhouette's floor."""
    trail, floor = [], SILHOUETTE_KEEP * f.silhouette(k)
    while True:
        labels = f.fits[k][0]
        tests = [f.bisect(labels, j, f.rng(k, 3, j), gap=True) for j in range(k)]
        j = int(np.argmin([p for p, _ in tests]))
        p = min(1.0, tests[j][0] * k)
        trail.append((k, p))
        above = ks[ks > k]
        if p >= SPLIT_ALPHA or not above.size:
            return k, trail, p >= SPLIT_ALPHA
        nxt = int(above[0])
        f.fit(nxt, tests[j][1] if nxt == k + 1 else None)
        if f.silhouette(nxt) < floor:
            trail.append((nxt, np.nan))
            return k, trail, True
        k = nxt


def decide(f, ks, n_refs, reference, declared=None):
    """Steps 1-3 on geometry ``f``: ``(result, found structure)``; ``declared``: the
    step of the trace that stands for step 1 (skipped)."""
    r, t, lo = ChooseKResult(1, "auto", ks), Trace(), 2
    if declared is None:
        found, z = find_structure(f, ks, n_refs, reference, t)
        r.structure_z = None if z is None else curve(ks, z)
        if not found:
            r.trace, r.labels = t, np.zeros(f.w.size, dtype=np.int64)
            return r, False
        lo = 2 if z is None else min(k for k, v in z.items() if v > STRUCTURE_Z)
    else:
        t.steps.append(declared)
    start, best, last, scanned = scan(f, ks[ks >= lo])
    sil = {k: f.silhouette(k) for k in sorted(f.sil)}
    since = f"from k={lo}, the first gain above the references, " if lo > 2 else ""
    t.add("silhouette", f"mean silhouette by k ({since}followed to k={last})", sil, None,
          f"largest at k={best}" + (f"; within {SILHOUETTE_SE:g} s.e. of it from k={start}"
                                    if start != best else ""),
          "" if scanned else "the range ended before max(10, 2 x its best k)")
    k, trail, done = split_walk(f, ks, start)
    tested = {kk: p for kk, p in trail if not np.isnan(p)}
    near = [kk for kk, p in tested.items() if close(p, SPLIT_ALPHA, 2)]
    t.add("split", "smallest dip p-value of the clusters (cross-fitted halves, and their "
          "sides' margins), x k, by k", tested, SPLIT_ALPHA, f"k={k}",
          f"close at k={near}: within a factor 2" if near else "")
    if len(trail) > len(tested):
        t.add("split", f"mean silhouette of k={(kk := trail[-1][0])} over that of k={start}",
              f.silhouette(kk) / max(f.silhouette(start), 1e-300), SILHOUETTE_KEEP, f"below: k={k}")
    r.at_top = bool(k == ks[-1] and (not done or (k == best and not scanned)))
    r.k, r.labels, r.trace = int(k), f.fits[k][0], t
    r.within_energy = curve(ks, {kk: W for kk, (_, W) in f.fits.items()})
    r.silhouette, r.split_p = curve(ks, sil), curve(ks, tested)
    return r, True


def energy_rule(X, w, ks, setting, n_refs, reference, seed):
    """The rule on X (its dips read to X's precision), then its rescaled geometries:
    ``(result, Fits)``, X standardized's where the answer is there, else X's (the
    multimodal axes are a projection: the graph keeps every axis of X)."""
    f = Fits(X, w, setting, seed, T=read_to_precision(
        X, seed, PRECISION_STEP, w, STRUCTURE_ALPHA))
    r, found = decide(f, ks, n_refs, reference)
    if found:
        return within_clusters(r, f, X, w, ks, setting, seed)
    for name in RESCALED:
        m, why = rescaled(name, X, w, setting, f.T)
        if m is None:
            r.trace.add("geometry", "rescaled", name, None, f"not tried: {why}")
            continue
        declared = None if name == "standardized" else Step("structure", "multimodal axes of "
            "X sphered (dip test)", {"axes": m.scale.size}, STRUCTURE_ALPHA, "structure")
        T = None if f.T is X else m(f.T)            # None: its dips read m(X) itself
        g = Fits(m(X), w, setting, stream(seed, name), T=T)
        s, found = decide(g, ks, n_refs, "moments", declared)
        setattr(r, name.replace(" ", "_"), s)
        r.trace.add("geometry", "rescaled", name, None, f"k={s.k}" if found else "no structure")
        r.trace.steps += s.trace.steps
        if found:
            r.k, r.labels, r.geometry, r.rescaling, r.at_top = s.k, s.labels, name, m, s.at_top
            return r, g if name == "standardized" else f
    if ks[0] != 1:                                  # steps 2-3 on X after all
        return on_x(r, f, ks, n_refs, reference, Step("structure", "the least k of k_range", int(
            ks[0]), None, "no structure, and 1 is not in the range: steps 2-3 on X")), f
    r.trace.add("answer", "no geometry shows structure", 1, None, "k=1")
    return r, f


def within_clusters(r, f, X, w, ks, setting, seed):
    """Step 3 on X standardized within its clusters (each column at unit spread within X's
    answer's clusters, :func:`~kgroups._rescale.within_standardizing`) where those spreads
    differ between the columns by ``UNITS_RATIO`` and beyond sampling error (the F test of
    :func:`~kgroups._stats.criteria.equal_variances_p`): a column of larger units hides
    clusters apart along the others, where clusters of one shape spread alike or a few times
    more along one column. The split walk goes on from X's answer there, its clusters split
    where the split test finds them multimodal. ``(result, Fits)``: that geometry's where a
    cluster split."""
    if setting.semimetric != "energy" or r.k < 2 or X.shape[1] < 2:
        return r, f
    m, sd = within_standardizing(X, w, r.labels)
    if m.scale.size < sd.size or sd.max() < UNITS_RATIO * sd.min():    # codes, or no units
        return r, f
    p = equal_variances_p(sd, effective_size(w) - r.k + 1)
    if p >= STRUCTURE_ALPHA:
        return r, f
    g = Fits(m(X), w, setting, stream(seed, WITHIN_CLUSTERS), T=None if f.T is X else m(f.T))
    g.fit_from(r.k, [r.labels])                          # X's answer, fitted there
    k, trail, done = split_walk(g, ks, r.k)
    tested = {kk: q for kk, q in trail if not np.isnan(q)}
    r.trace.add("geometry", f"X {WITHIN_CLUSTERS} (the columns' spreads within the clusters "
                f"differ {sd.max() / sd.min():.3g}-fold, F test p-value {p:.2g}): the split test "
                "of the clusters there, x k, by k", tested, SPLIT_ALPHA,
                f"k={k}" + (": a cluster splits there" if k > r.k else ": none splits, X's units"))
    if k == r.k:
        return r, f
    r.k, r.labels, r.geometry, r.rescaling = k, g.fits[k][0], WITHIN_CLUSTERS, m
    r.at_top = bool(k == ks[-1] and not done)
    return r, g


def on_x(r, f, ks, n_refs, reference, declared):
    """Steps 2-3 on X (``f``) after all, ``declared`` the step that says why, after ``r``'s
    trace and with its step 1 and rescaled geometries."""
    s = decide(f, ks, n_refs, reference, declared)[0]
    s.trace.steps[:0], s.structure_z = r.trace.steps, r.structure_z
    s.multimodal_axes, s.standardized = r.multimodal_axes, r.standardized
    return s
