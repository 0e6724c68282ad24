r"""The default of :func:`~kgroups.choose_k`: ``method="silhouette+gap"``.

One set of kernel k-groups fits of X for every k of the range answers three
questions, each with a criterion of its own:

1. **Is there structure?** The gap statistic (Tibshirani, Walther & Hastie 2001,
   eqs. 3-5) against ``n_refs`` reference samples uniform over the box of X in its
   principal axes: the k > 1 with :math:`\mathrm{Gap}(k) - \mathrm{Gap}(1) > 3
   \sigma_k` (:func:`~kgroups._choose_k.gap_gain_se`) show structure that samples
   without any do not reach. None: no structure in X's geometry.
2. **Which k separates best?** Among those k, the largest mean silhouette
   (Rousseeuw 1987) on the semimetric :math:`\rho`, :math:`k_s`.
3. **Is there a finer level?** The gap's ``globalSEmax`` rule among the same k
   gives :math:`k_g`; when :math:`k_g > k_s` and the silhouette at :math:`k_g` is
   at least ``SILHOUETTE_KEEP`` = 0.8 of that at :math:`k_s`, the answer is
   :math:`k_g` (groups of well-separated clusters, where the silhouette alone
   stops at the coarse level); otherwise :math:`k_s`.

When X's geometry shows no structure, its units may hide it (one column of large
variance drowns the others): step 1 runs again on X **standardized**
(:func:`standardize`: every column scaled to unit variance), then, if that shows
none either, on X **sphered** (:func:`~kgroups._choose_k.sphere`: principal axes
scaled to unit variance), each time with reference samples uniform with that
geometry's mean and covariance (``"moments"``). Where structure shows, the answer
is the gap's ``firstSEmax`` rule among the k that show it; the silhouette is not
used there, since rescaling stretches noise directions as much as the clusters
and mean silhouettes of real tables fall to 0.0-0.2 at every k. No structure in
any geometry: k = 1. Only with the energy semimetric (the others have a scale
that rescaling would change) and with 1 in the range.

The numbers that fixed this rule (3 standard errors, the 0.8 of the silhouette,
the order of the geometries) come from the studies of 35 synthetic settings and
14 real tables in ``benchmarks/bench_choose_k.py`` and
``benchmarks/bench_choose_k_real.py``.

**Cost.** The n x n matrix of :math:`\rho` is computed once for X and once for
each reference sample, and every fit of that sample (one per k > 1, ``n_init``
restarts for X and ``REFERENCE_N_INIT`` for the references) runs on it; k = 1
needs no fit (:math:`W_1 = w^\top D w / 2s`), and the silhouettes of every k
come from one product of X's matrix with the one-hot labels. In all:
``n_refs + 1`` matrices and ``(n_refs + 1) * (len(k_range) - 1)`` fits per
geometry tried; data too large for an n x n matrix in a quarter of the available
memory, or another engine than ``"auto"`` and ``"dense"``, fit from the
coordinates with ``engine``.

References
----------
.. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of
   clusters in a data set via the gap statistic", J. R. Statist. Soc. B 63(2),
   411-423, 2001.
.. [2] P. J. Rousseeuw, "Silhouettes: a graphical aid to the interpretation and
   validation of cluster analysis", J. Comput. Appl. Math. 20, 53-65, 1987.
.. [3] G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-groups via Hartigan's
   method", IEEE Trans. Pattern Anal. Mach. Intell. 43(12), 4411-4425, 2021
   (the within energy W, eq. 13, and the fits).
"""

from __future__ import annotations

import numpy as np

from .._progress import progress_bar
from .._validation import InvalidParameterError
from .methods import _dense, _reference_sampler, _Sample, sphere, standardize
from .result import ChooseKResult
from .rules import (
    _why_not_sphered,
    decide_fallback,
    decide_silhouette_gap,
    structure_z,
)

__all__ = ["SILHOUETTE_GAP", "choose_silhouette_gap"]

SILHOUETTE_GAP = "silhouette+gap"
# restarts of each reference sample's fits (they have no structure to find)
REFERENCE_N_INIT = 1


def _gap_and_silhouette(Z, w, ks, params, opts, reference, rng, silhouette=True):
    """The curves of one geometry: Gap, s_k, log W*_kb, W_k, silhouette, labels."""
    dense = _dense(Z.shape[0], params)
    data = _Sample(Z, w, params, dense)
    W, labels = data.within(ks, opts["n_init"], rng)
    if not np.all(W > 0):
        raise InvalidParameterError(
            f"choose_k: the within energy of the fit with k={int(ks[np.argmin(W)])} is 0 "
            "(log W_k is undefined); use a smaller k_range")
    ref = np.empty((opts["n_refs"], ks.size))
    draw = _reference_sampler(Z, w, reference)
    for b in progress_bar(range(opts["n_refs"]), desc="choose_k: reference samples",
                          unit="sample", delay=2.0):
        sample = _Sample(draw(rng), w, params, dense)
        ref[b] = np.log(sample.within(ks, min(opts["n_init"], REFERENCE_N_INIT), rng)[0])
    gap = ref.mean(axis=0) - np.log(W)
    se = ref.std(axis=0) * np.sqrt(1.0 + 1.0 / opts["n_refs"])
    sil = data.silhouette(ks, labels) if silhouette else None
    return dict(gap=gap, gap_se=se, ref_log_w=ref, within_energy=W, silhouette=sil), labels


def choose_silhouette_gap(X, w, ks, params, opts, rng):
    """``method="silhouette+gap"``: the module docstring's steps, with the result."""
    curves, labels = _gap_and_silhouette(X, w, ks, params, opts, opts["reference"], rng)
    r = ChooseKResult(0, SILHOUETTE_GAP, ks, rule="globalSEmax", **curves)
    if ks[0] == 1:
        r.structure_z = structure_z(r.gap, r.ref_log_w)
    if ks[0] != 1:
        i = int(np.nanargmax(r.silhouette))
        r.k, r.labels = int(ks[i]), labels[i]
        r.reasoning = (f"{SILHOUETTE_GAP}: k = 1 is not in k_range, so no structure test; the "
                       f"mean silhouette is largest at k={r.k} ({r.silhouette[i]:.3f}).")
        return r
    i, why = decide_silhouette_gap(ks, r.gap, r.gap_se, r.ref_log_w, r.silhouette)
    r.reasoning = f"{SILHOUETTE_GAP}: on X, {why}"
    if i is not None:
        r.k, r.labels = int(ks[i]), labels[i]
        return r
    r.k, r.labels = 1, labels[0]
    r.reasoning += "."
    for geometry in ("standardized", "sphered"):
        if _try_geometry(r, geometry, X, w, ks, params, opts, rng):
            break
    if r.k == 1:
        r.reasoning += " No structure: k=1."
    return r


def _why_not(geometry, X, Z, ks, params):
    """Why ``geometry`` is not tried (None: it is)."""
    why_not = _why_not_sphered(X, ks, params)
    if why_not is not None:
        return why_not.replace("sphering", "rescaling")
    if geometry == "standardized":
        sd = X.std(axis=0)
        sd = sd[sd > 0]
        if sd.size and sd.max() <= (1 + 1e-9) * sd.min():
            return "its columns already have equal variances"
        return None
    if Z.shape[1] < 2:
        return "X has one axis of variance, so sphering only rescales it"
    if Z.shape[1] >= X.shape[0] - 1:
        return (f"X has {Z.shape[1]} axes of variance for {X.shape[0]} points, so sphered "
                "every two points are the same distance apart")
    return None


_WHAT = {"standardized": "every column scaled to unit variance",
         "sphered": "principal axes scaled to unit variance"}


def _try_geometry(r, geometry, X, w, ks, params, opts, rng):
    """The gap on X standardized or sphered (references uniform with its mean and
    covariance); True when it shows structure (``r`` then holds its answer)."""
    Z = standardize(X, w) if geometry == "standardized" else sphere(X, w)
    why_not = _why_not(geometry, X, Z, ks, params)
    if why_not is not None:
        r.reasoning += f" X {geometry} is not tried: {why_not}."
        return False
    curves, labels = _gap_and_silhouette(Z, w, ks, params, opts, "moments", rng,
                                         silhouette=False)
    g = ChooseKResult(1, SILHOUETTE_GAP, ks, rule="firstSEmax",
                      structure_z=structure_z(curves["gap"], curves["ref_log_w"]), **curves)
    j, why = decide_fallback(ks, g.gap, g.gap_se, g.ref_log_w)
    g.reasoning = why
    setattr(r, geometry, g)
    r.reasoning += (f" X {geometry} ({_WHAT[geometry]}; references uniform with its mean and "
                    f"covariance): {why}.")
    if j is None:
        g.labels = labels[0]
        return False
    g.k, g.labels = int(ks[j]), labels[j]
    r.k, r.labels, r.geometry = g.k, g.labels, geometry
    r.reasoning += f" The answer is k={g.k}, found in X {geometry} (labels: its fit)."
    return True
