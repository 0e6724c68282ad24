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

from ._choose_k_base import (
    STRUCTURE_Z,
    ChooseKResult,
    _explain_gap,
    _ks,
    _mean_silhouette,
    _principal_axes,
    _semimetric_params,
    _silhouette_curve,
    _why_not_sphered,
    gap_gain_se,
    gap_rule,
    reference_sample,
    sphere,
)
from ._kgroups import KernelKGroups
from ._memory import available_memory
from ._progress import progress_bar
from ._semimetrics import pairwise
from ._validation import InvalidParameterError

__all__ = ["SILHOUETTE_GAP", "choose_silhouette_gap"]

SILHOUETTE_GAP = "silhouette+gap"
# a finer k of the gap replaces the silhouette's k when its silhouette keeps this fraction
SILHOUETTE_KEEP = 0.8
# restarts of each reference sample's fits (they have no structure to find)
REFERENCE_N_INIT = 1
# largest share of the available memory that the n x n matrices (X's and one reference's) use
MATRIX_MEMORY_FRACTION = 0.25


# --------------------------------------------------------------------------- fits
class _Sample:
    """One sample (X or a reference) and the fits of every k on it.

    With ``D`` (the n x n matrix of rho) the fits run on it (``semimetric=
    "precomputed"``); without it, from the coordinates with the caller's engine.
    """

    def __init__(self, Z, w, params, dense):
        self.Z, self.w, self.params = Z, w, params
        self.D = _rho_matrix(Z, params) if dense else None

    def fit(self, k, n_init, seed):
        if self.D is not None:
            est = KernelKGroups(int(k), semimetric="precomputed", n_init=1 if k == 1 else n_init,
                                random_state=seed)
            return est.fit(self.D, sample_weight=self.w)
        return KernelKGroups(int(k), **self.params, n_init=1 if k == 1 else n_init,
                             random_state=seed).fit(self.Z, sample_weight=self.w)

    def within(self, ks, n_init, rng):
        r"""``W_k`` and labels of the fit of every k. With the matrix, k = 1 needs no
        fit: :math:`W_1 = w^\top D w / (2 s)` (one cluster, TPAMI eq. 13)."""
        W, labels = np.empty(ks.size), []
        for j, k in enumerate(ks):
            seed = int(rng.integers(2**31 - 1))
            if k == 1 and self.D is not None:
                W[j] = float(self.w @ self.D @ self.w) / (2.0 * self.w.sum())
                labels.append(np.zeros(self.w.size, dtype=np.int64))
                continue
            fit = self.fit(k, n_init, seed)
            W[j] = fit.within_energy_
            labels.append(fit.labels_)
        return W, labels

    def silhouette(self, ks, labels):
        """Weighted mean silhouette of each labelling (NaN at k = 1), one pass over D."""
        if self.D is None:
            return _silhouette_curve(self.Z, self.w, ks, labels,
                                     _semimetric_params(self.params))
        out = np.full(ks.size, np.nan)
        offsets = np.concatenate([[0], np.cumsum(ks)])
        H = np.zeros((self.w.size, offsets[-1]))
        rows = np.arange(self.w.size)
        for k, off, lab in zip(ks, offsets, labels):
            H[rows, off + lab] = self.w
        sums = self.D @ H
        for j, (k, off, lab) in enumerate(zip(ks, offsets, labels)):
            if k > 1:
                out[j] = _mean_silhouette(sums[:, off:off + k], H[:, off:off + k].sum(0), lab,
                                          self.w)
        return out


def _rho_matrix(Z, params):
    r"""The n x n matrix of rho. The energy semimetric comes from one matrix product
    of the centred rows, :math:`\|x - y\|^2 = \|x\|^2 + \|y\|^2 - 2 x^\top y`
    (BLAS; rounding of order 1e-16 times the squared norms, which centring keeps
    small), raised to alpha / 2; the others from :func:`~kgroups.pairwise`."""
    if params["semimetric"] != "energy":
        return pairwise(Z, **_semimetric_params(params))
    Zc = Z - Z.mean(axis=0)
    sq = np.einsum("ij,ij->i", Zc, Zc)
    D = Zc @ Zc.T
    D *= -2.0
    D += sq[:, None]
    D += sq[None, :]
    np.maximum(D, 0.0, out=D)
    np.fill_diagonal(D, 0.0)
    alpha = float(params["alpha"])
    if alpha != 2.0:
        np.power(D, alpha / 2.0, out=D)
    return D


def _dense(n, params):
    """Whether the n x n matrices fit (engine "auto" or "dense" and a named semimetric)."""
    if params["engine"] not in ("auto", "dense") or callable(params["semimetric"]):
        return False
    return 2 * 8 * n * n <= MATRIX_MEMORY_FRACTION * available_memory()


def _reference_sampler(Z, w, kind):
    """A function of ``rng`` drawing reference samples as
    :func:`~kgroups._choose_k.reference_sample` does, with the principal axes of Z
    computed once for all of them."""
    if kind == "box":
        return lambda rng: reference_sample(Z, w, kind, rng)
    mean, Vt, sd = _principal_axes(Z, w)
    if kind == "moments":
        lo, hi = -np.sqrt(3.0) * sd, np.sqrt(3.0) * sd
    else:
        P = (Z - mean) @ Vt.T
        lo, hi = P.min(axis=0), P.max(axis=0)
    return lambda rng: (lo + rng.random((Z.shape[0], sd.size)) * (hi - lo)) @ Vt + mean


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


# --------------------------------------------------------------------------- decision
def structure_z(gap, ref_log_w):
    r"""``(Gap(k) - Gap(1)) / sigma_k`` over the range (k = 1 first): the gain of each
    k over one cluster in standard errors of the same gain on the reference samples.

    Examples
    --------
    >>> ref = np.log([[10.0, 6.0], [12.0, 6.0]])    # gains log(0.6), log(0.5): sd 0.0912
    >>> gap = np.array([0.0, 1.0])                   # 1 / (0.0912 * sqrt(1.5)) = 8.96
    >>> np.round(structure_z(gap, ref), 2).tolist()
    [0.0, 8.96]
    """
    return (gap - gap[0]) / np.maximum(gap_gain_se(ref_log_w), 1e-300)


def decide_silhouette_gap(ks, gap, gap_se, ref_log_w, silhouette):
    """Position of the chosen k in ``ks`` (``ks[0] == 1``) and why, in X's geometry.

    Returns ``(None, text)`` when no k > 1 shows structure.

    Examples
    --------
    >>> ks = np.arange(1, 5)
    >>> ref = np.log([[10.0, 6.0, 5.0, 4.5], [12.0, 6.0, 5.5, 4.4], [11.0, 6.2, 5.2, 4.6]])
    >>> gap = np.array([0.0, 0.9, 1.0, 0.95])
    >>> i, why = decide_silhouette_gap(ks, gap, np.full(4, 0.05), ref,
    ...                                np.array([np.nan, 0.6, 0.7, 0.5]))
    >>> int(ks[i])
    3
    """
    z = structure_z(gap, ref_log_w)
    cand = np.flatnonzero((ks > 1) & (z > STRUCTURE_Z))
    zs = ", ".join(f"k={int(k)}: {v:.1f}" for k, v in zip(ks[1:], z[1:]))
    if not cand.size:
        return None, (f"no k > 1 has Gap(k) - Gap(1) above {STRUCTURE_Z:g} standard errors "
                      f"of the reference samples ({zs})")
    text = (f"Gap(k) - Gap(1) is above {STRUCTURE_Z:g} standard errors at k in "
            f"{_ks(ks, cand)} ({zs}); ")
    i = cand[int(np.nanargmax(silhouette[cand]))]
    text += (f"among these the mean silhouette is largest at k={int(ks[i])} "
             f"({silhouette[i]:.3f})")
    j = cand[gap_rule(gap[cand], gap_se[cand], "globalSEmax")]
    why_g = _explain_gap(ks, gap, gap_se, int(np.flatnonzero(cand == j)[0]), "globalSEmax", 1.0,
                         cand)
    if j > i and silhouette[j] >= SILHOUETTE_KEEP * silhouette[i]:
        return int(j), (text + f"; the gap's globalSEmax rule among them: {why_g}, and its "
                        f"silhouette {silhouette[j]:.3f} keeps {SILHOUETTE_KEEP:g} of "
                        f"{silhouette[i]:.3f}: a finer level of well-separated clusters, "
                        f"k={int(ks[j])}.")
    if j > i:
        return int(i), (text + f"; the gap's globalSEmax rule would go on to k={int(ks[j])}, "
                        f"but its silhouette {silhouette[j]:.3f} is below {SILHOUETTE_KEEP:g} "
                        f"x {silhouette[i]:.3f}: k={int(ks[i])}.")
    return int(i), text + f": k={int(ks[i])}."


def decide_fallback(ks, gap, gap_se, ref_log_w):
    """Standardized or sphered X: the gap's firstSEmax rule among the k that show
    structure; ``(None, text)`` when none does."""
    z = structure_z(gap, ref_log_w)
    cand = np.flatnonzero((ks > 1) & (z > STRUCTURE_Z))
    zs = ", ".join(f"k={int(k)}: {v:.1f}" for k, v in zip(ks[1:], z[1:]))
    if not cand.size:
        return None, f"no k > 1 has Gap(k) - Gap(1) above {STRUCTURE_Z:g} standard errors ({zs})"
    j = gap_rule(gap[cand], gap_se[cand], "firstSEmax")
    why = _explain_gap(ks, gap, gap_se, j, "firstSEmax", 1.0, cand)
    return int(cand[j]), (f"Gap(k) - Gap(1) is above {STRUCTURE_Z:g} standard errors at k in "
                          f"{_ks(ks, cand)} ({zs}); among these, rule 'firstSEmax': {why}")


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


def standardize(X, w):
    """X with every column of positive variance centred and scaled to unit variance
    (weighted mean and variance); constant columns left out."""
    mean = w @ X / w.sum()
    sd = np.sqrt(w @ (X - mean) ** 2 / w.sum())
    keep = sd > 1e-12 * max(float(sd.max()), 1e-300)
    return (X[:, keep] - mean[keep]) / sd[keep]


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
