r"""The default of :func:`~kgroups.choose_k` for point data: ``"silhouette+split"``.

Kernel k-groups fits of X for k = 1, 2, ... answer three questions in turn, and
the answer depends only on the fits up to where the rule has decided, never on
how far ``k_range`` goes past that:

1. **Is there structure?** (only when 1 is in the range) The gain of the fits of
   k = 2..``STRUCTURE_KMAX`` over one cluster, against ``n_refs`` reference
   samples uniform over the box of X in its principal axes (Tibshirani, Walther &
   Hastie 2001, eqs. 3-5): structure when some
   :math:`\mathrm{Gap}(k) - \mathrm{Gap}(1) > 3 \sigma_k`
   (:func:`~kgroups._choose_k.rules.structure_z`). Small k suffice: a data set with
   many clusters already beats the references at k = 2..5, and the references are
   never fitted past k = 5, where their within energy would fall more slowly than
   that of data of low intrinsic dimension and would find "structure" anywhere.
2. **Which k separates best?** The mean silhouette (Rousseeuw 1987) on the
   semimetric, followed from k = 2 upward until k reaches
   ``max(SCAN_MIN, SCAN_FACTOR * k_s)``, :math:`k_s` the best k so far: the
   largest mean silhouette of that stretch. A peak is accepted once the curve has
   been followed to twice its k (a partition of twice as many clusters as there
   are splits every cluster, and the silhouette falls), and at least to k = 10.
3. **Does a cluster split?** For each cluster of the fit at k (from
   :math:`k_s` on): fit 2 clusters to a random half of its points, project the
   other half on the line through the two halves' means, and test the
   projection for unimodality with Hartigan's dip test
   (:mod:`~kgroups._choose_k.dip`); the held-out half keeps the test honest, since
   the line was not chosen on its points (any cut of the same points looks
   bimodal along itself). While some cluster splits at level ``SPLIT_ALPHA``
   (Bonferroni over the k clusters), one more cluster (the fit of k + 1 starts
   from that split) and the test again. The answer is the largest k of that walk
   whose mean silhouette keeps ``SILHOUETTE_KEEP`` = 0.75 of that of :math:`k_s`.
   This finds groups of well-separated clusters, where the silhouette stops at
   the coarse level (their finer level keeps 0.79 to 0.9 of it in the studies,
   though the partitions on the way may not), and leaves alone the sub-modes of
   overlapping classes (two sexes within a species, the values of rounded
   scores), whose partitions keep 0.4 to 0.6 of it.

When X's geometry shows no structure, its units may hide it: steps 1-3 run on the
**multimodal axes** of X sphered (the principal axes, at unit variance, whose
projection the dip test finds multimodal at ``SPLIT_ALPHA`` / r, r the number of
axes: clusters separated along a direction of small variance, as parallel
elongated clusters, whose energy partitions in the full space cut across them),
then on X **standardized** (every column at unit variance), then **sphered**
(every principal axis at unit variance), with references uniform with the mean
and covariance of that geometry (:data:`RESCALED`, in that order: the first shows
modes directly, the others only rescale). No structure anywhere: k = 1.

**Range.** The fits of each k, its references and its splits draw from random
streams keyed by k, so widening ``k_range`` past where the rule decided changes
nothing. When the answer is the largest k of the range and the rule had not
decided there (the silhouette still rising, or a cluster still splitting), the
reasoning says so and a :class:`~kgroups._choose_k.result.KRangeWarning` asks to
widen ``k_range``.

**Cost.** One n x n matrix of :math:`\rho` per geometry tried; each k fitted once,
with ``n_init`` starts plus one start from a 2-cluster fit of the previous k's
largest cluster, only as far as the rule needs; the references fitted at k <= 5
only, one start each; the silhouettes from one product of the matrix with the
labels; a split test costs a 2-cluster fit of half a cluster. Up to
``FIT_MATRIX_MAX_N`` points the fits run on the matrix (and each reference has
one); past it they run from the coordinates with the engine that
:class:`~kgroups.KernelKGroups` chooses, which is faster there, and past
``STRUCTURE_MAX_N`` points step 1 runs on a random subsample of that many (its
references cost :math:`n^2` each). In all, a median of 30 default fits' worth on
the sets of the studies (up to about 100 on 2-D sets of 1,000 points, whose fits
take milliseconds), under 4 seconds up to 5,000 points
(``benchmarks/results/choose_k_time.md``).

The constants come from the studies of ``benchmarks/bench_choose_k*.py``:
``STRUCTURE_Z`` = 3 standard errors (no k > 1 on 40 draws of 8 settings without
structure), ``SPLIT_ALPHA`` = 0.01 (a family-wise level; the dip's null is the
uniform, the least favourable unimodal law, so unimodal clusters split less
often than that), ``SILHOUETTE_KEEP`` = 0.75 (between the 0.79-0.9 that the finer
levels of clusters within clusters keep and the 0.4-0.6 of the sub-modes of real
classes, in the synthetic and battery studies; any value from 0.7 to 0.8 gives
the same answers on the batteries), and the horizon ``max(10, 2 k_s)`` (10: the
default range of the methods before; 2 k_s: past it a partition splits every
cluster of the best one).

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

import warnings

import numpy as np

from .._kgroups import KernelKGroups
from .._progress import progress_bar
from .._validation import InvalidParameterError
from .dip import dip_test
from .methods import (
    _dense,
    _mean_silhouette,
    _reference_sampler,
    _rho_matrix,
    _semimetric_params,
    _silhouette_curve,
    sphere,
    standardize,
)
from .result import ChooseKResult, KRangeWarning
from .rules import STRUCTURE_Z, _ks, _why_not_sphered, gap_gain_se

SILHOUETTE_SPLIT = "silhouette+split"
# the structure test compares the fits of k = 2..STRUCTURE_KMAX with the references
STRUCTURE_KMAX = 5
# the silhouette is followed to k = max(SCAN_MIN, SCAN_FACTOR * its best k so far)
SCAN_MIN = 10
SCAN_FACTOR = 2
# family-wise level of the split tests of one partition (Bonferroni over its clusters)
SPLIT_ALPHA = 0.01
# the answer is the largest k of the split walk whose silhouette keeps this share of the
# silhouette's best (finer levels of clusters within clusters keep 0.79 to 0.9; the
# sub-modes inside overlapping classes 0.4 to 0.6)
SILHOUETTE_KEEP = 0.75
# share of a cluster's points that its 2-cluster fit sees (the rest is tested)
FIT_SHARE = 0.5
# clusters of fewer points are not tested (each half would hold fewer than 10)
SPLIT_MIN = 20
# starts of each 2-cluster fit of a half-cluster, and of each reference sample's fits
SPLIT_N_INIT = 3
REFERENCE_N_INIT = 1
# the structure test runs on a random subsample of this many points of larger data
# (clusters that show at all show on 1,000 points; its references cost n^2 each)
STRUCTURE_MAX_N = 1000
# largest n whose fits run on the n x n matrix (past it, from the coordinates)
FIT_MATRIX_MAX_N = 2500
# the geometries tried, in order, when X's shows no structure
RESCALED = ("multimodal axes", "standardized", "sphered")
_WHAT = {"data": "X", "standardized": "X standardized (every column at unit variance)",
         "sphered": "X sphered (principal axes at unit variance)",
         "multimodal axes": "the multimodal axes of X sphered"}


# --------------------------------------------------------------------------- fits
class _Geometry:
    """X in one geometry, its n x n matrix of rho when it fits in memory, and the
    fits of every k on it (kept, so that each k is fitted once)."""

    def __init__(self, Z, w, params, opts, seed, matrix=True):
        self.Z, self.w, self.params, self.opts, self.seed = Z, w, params, opts, seed
        n = Z.shape[0]
        self.D = _rho_matrix(Z, params) if matrix and _dense(n, params) else None
        # the fits run on the matrix up to FIT_MATRIX_MAX_N points, from the coordinates
        # past it (the engine chosen for them is faster than a dense kernel there)
        self.on_matrix = self.D is not None and n <= FIT_MATRIX_MAX_N
        self.fits, self.sil = {}, {}

    def rng(self, *key):
        """A random stream of its own for each key (k, purpose): the same whatever
        the range."""
        return np.random.default_rng([self.seed, *key])

    def _run(self, k, idx=None, **kw):
        if self.on_matrix:
            est = KernelKGroups(int(k), semimetric="precomputed", **kw)
            data = self.D if idx is None else self.D[np.ix_(idx, idx)]
        else:
            est = KernelKGroups(int(k), **self.params, **kw)
            data = self.Z if idx is None else self.Z[idx]
        return est.fit(data, sample_weight=self.w if idx is None else self.w[idx])

    def within_one(self):
        r""":math:`W_1`: with the matrix :math:`w^\top D w / (2 s)` (TPAMI eq. 13)."""
        if self.D is not None:
            return float(self.w @ self.D @ self.w) / (2.0 * self.w.sum())
        return self._run(1, n_init=1, random_state=0).within_energy_

    def fit(self, k, start=None):
        """Labels and W of k clusters: ``n_init`` starts, and ``start`` (labels) when
        given; the lower W is kept."""
        if k in self.fits:
            labels, W = self.fits[k]
            if start is None:
                return labels, W
        else:
            seed = int(self.rng(k, 0).integers(2**31 - 1))
            est = self._run(k, n_init=self.opts["n_init"], random_state=seed)
            labels, W = est.labels_, float(est.within_energy_)
        if start is not None and np.unique(start).size == k:
            est = self._run(k, init=start)
            if est.within_energy_ < W:
                labels, W = est.labels_, float(est.within_energy_)
        self.fits[k] = (labels, W)
        return labels, W

    def silhouette(self, k):
        if k not in self.sil:
            labels = self.fits[k][0]
            if self.D is None:
                self.sil[k] = float(_silhouette_curve(
                    self.Z, self.w, np.array([k]), [labels], _semimetric_params(self.params))[0])
            else:
                H = np.zeros((self.w.size, k))
                H[np.arange(self.w.size), labels] = self.w
                self.sil[k] = _mean_silhouette(self.D @ H, H.sum(0), labels, self.w)
        return self.sil[k]

    def bisect(self, labels, j, rng, test=True):
        """Split cluster j: a 2-cluster fit of a random half of it; the held-out half's
        projection on the line through the two halves' means, its dip p-value, and
        the labels with cluster j cut at the midpoint of that line (a start for one
        more cluster). ``(1.0, None)`` for a cluster too small to test."""
        idx = np.flatnonzero(labels == j)
        if idx.size < SPLIT_MIN:
            return 1.0, None
        perm = rng.permutation(idx)
        m = int(round(FIT_SHARE * idx.size))
        A, B = np.sort(perm[:m]), np.sort(perm[m:])
        half = self._run(2, A, n_init=SPLIT_N_INIT,
                         random_state=int(rng.integers(2**31 - 1))).labels_
        if np.unique(half).size < 2:
            return 1.0, None
        means = [np.average(self.Z[A][half == h], axis=0, weights=self.w[A][half == h])
                 for h in (0, 1)]
        v = means[1] - means[0]
        if not np.any(v):
            return 1.0, None
        p = dip_test(self.Z[B] @ v)[1] if test else 1.0
        start = labels.copy()
        start[idx[self.Z[idx] @ v > 0.5 * (means[0] + means[1]) @ v]] = labels.max() + 1
        return p, start


# --------------------------------------------------------------------------- steps
def _structure(g, ks, opts, reference):
    """Step 1: ``(z, gap, se, ref_log_w)`` at the k of ``ks`` (k = 1 first)."""
    W = np.array([g.within_one()] + [g.fit(k)[1] for k in ks[1:]])
    if not np.all(W > 0):
        raise InvalidParameterError(
            f"choose_k: the within energy of the fit with k={int(ks[np.argmin(W)])} is 0 "
            "(log W_k is undefined); use a smaller k_range")
    draw = _reference_sampler(g.Z, g.w, reference)
    ref = np.empty((opts["n_refs"], ks.size))
    for b in progress_bar(range(opts["n_refs"]), desc="choose_k: reference samples",
                          unit="sample", delay=2.0):
        rng = g.rng(0, 1, b)
        ref_g = _Geometry(draw(rng), g.w, g.params, {"n_init": REFERENCE_N_INIT},
                          int(rng.integers(2**31 - 1)), matrix=g.on_matrix)
        ref[b] = np.log([ref_g.within_one()] + [ref_g.fit(k)[1] for k in ks[1:]])
    gap = ref.mean(axis=0) - np.log(W)
    se = ref.std(axis=0) * np.sqrt(1.0 + 1.0 / opts["n_refs"])
    z = (gap - gap[0]) / np.maximum(gap_gain_se(ref), 1e-300)
    return z, gap, se, ref


def _structure_sample(g):
    """The geometry that step 1 tests: g itself up to ``STRUCTURE_MAX_N`` points, a
    random subsample of that many past it (fitted from the coordinates, as its
    references)."""
    n = g.w.size
    if n <= STRUCTURE_MAX_N:
        return g
    sub = np.sort(g.rng(0, 4).choice(n, STRUCTURE_MAX_N, replace=False))
    return _Geometry(g.Z[sub], g.w[sub], g.params, g.opts, g.seed, matrix=False)


def _scan(g, ks):
    """Step 2: the k of largest mean silhouette up to ``max(SCAN_MIN, SCAN_FACTOR k_s)``;
    ``(k_s, last k fitted, decided)``, decided False when the range ended first."""
    best, prev = None, None
    for k in (int(k) for k in ks[ks >= 2]):
        start = None
        if prev is not None and k == prev + 1:
            labels = g.fits[prev][0]
            j = int(np.argmax(np.bincount(labels, weights=g.w)))
            start = g.bisect(labels, j, g.rng(k, 2), test=False)[1]
        g.fit(k, start)
        if best is None or g.silhouette(k) > g.silhouette(best):
            best = k
        prev = k
        if k >= max(SCAN_MIN, SCAN_FACTOR * best):
            return best, k, True
    return best, prev, False


def _refine(g, ks, k):
    """Step 3: from k, one more cluster while some cluster splits; then the largest k
    of that walk whose silhouette keeps ``SILHOUETTE_KEEP`` of the first's.
    ``(k, trail, decided)``: ``trail`` the (k, Bonferroni p) of each partition
    tested, ``decided`` False when the range ended while a cluster still split."""
    trail, k = [], int(k)
    while True:
        labels = g.fits[k][0]
        tests = [g.bisect(labels, j, g.rng(k, 3, j)) for j in range(k)]
        j = int(np.argmin([p for p, _ in tests]))
        p = min(1.0, tests[j][0] * k)
        trail.append((k, p))
        above = ks[ks > k]
        if p >= SPLIT_ALPHA or not above.size:
            break
        nxt = int(above[0])
        g.fit(nxt, tests[j][1] if nxt == k + 1 else None)
        g.silhouette(nxt)
        k = nxt
    floor = SILHOUETTE_KEEP * g.silhouette(trail[0][0])
    keep = [kk for kk, _ in trail if g.silhouette(kk) >= floor]
    return keep[-1], trail, p >= SPLIT_ALPHA


# --------------------------------------------------------------------------- result
def _curve(ks, values):
    out = np.full(ks.size, np.nan)
    for k, v in values.items():
        out[np.flatnonzero(ks == k)] = v
    return out


def _decide(g, ks, opts, reference):
    """Steps 1-3 on one geometry: a filled :class:`ChooseKResult` and whether it shows
    structure (always True without k = 1 in the range)."""
    r = ChooseKResult(1, SILHOUETTE_SPLIT, ks)
    text = ""
    if ks[0] == 1:
        sk = ks[ks <= STRUCTURE_KMAX]
        z, gap, se, ref = _structure(_structure_sample(g), sk, opts, reference)
        pad = np.full((ref.shape[0], ks.size - sk.size), np.nan)
        r.structure_z, r.gap = _curve(ks, dict(zip(sk, z))), _curve(ks, dict(zip(sk, gap)))
        r.gap_se, r.ref_log_w = _curve(ks, dict(zip(sk, se))), np.hstack([ref, pad])
        zs = ", ".join(f"k={int(k)}: {v:.1f}" for k, v in zip(sk[1:], z[1:]))
        if not np.any(z[1:] > STRUCTURE_Z):
            r.reasoning = (f"no k in 2..{int(sk[-1])} has Gap(k) - Gap(1) above "
                           f"{STRUCTURE_Z:g} standard errors of the reference samples ({zs})")
            r.labels = np.zeros(g.w.size, dtype=np.int64)
            return r, False
        text = (f"Gap(k) - Gap(1) is above {STRUCTURE_Z:g} standard errors at k in "
                f"{_ks(sk, np.flatnonzero(z > STRUCTURE_Z))} ({zs}): structure. ")
    ks_fit = ks[ks >= 2]
    best, last, scanned = _scan(g, ks)
    text += (f"The mean silhouette, followed to k={last}"
             + (f" (max({SCAN_MIN}, {SCAN_FACTOR} x its best k))" if scanned else
                " (the end of k_range)")
             + f", is largest at k={best} ({g.silhouette(best):.3f}). ")
    k, trail, split_done = _refine(g, ks, best)
    steps = [f"at k={kk} " + (f"a cluster splits (p = {p:.2g} < {SPLIT_ALPHA:g})"
                              if p < SPLIT_ALPHA else f"none splits (p = {p:.2g})")
             for kk, p in trail]
    text += ("Split test (dip of a held-out half, Bonferroni over the clusters): "
             + "; ".join(steps) + (" (the end of k_range)" if not split_done else ""))
    last = trail[-1][0]
    if last > best:
        sils = ", ".join(f"k={kk}: {g.silhouette(kk):.3f}" for kk, _ in trail)
        text += (f"; the largest k of {best}..{last} whose silhouette keeps "
                 f"{SILHOUETTE_KEEP:g} of {g.silhouette(best):.3f} ({sils})")
    text += f": k={k}."
    top = k == ks_fit[-1] and (not split_done or (k == best and not scanned))
    if top:
        text += (f" k={k} is the largest k of k_range and the rule had not decided there: "
                 "k may be larger than the range allows; widen k_range.")
    r.k, r.labels, r.reasoning, r.at_top = int(k), g.fits[k][0], text, bool(top)
    r.within_energy = _curve(ks, {kk: W for kk, (_, W) in g.fits.items()})
    r.silhouette = _curve(ks, g.sil)
    r.split_p = _curve(ks, dict(trail))
    return r, True


def _multimodal_axes(Z):
    """The columns of sphered Z whose values the dip test finds multimodal at
    ``SPLIT_ALPHA`` / (number of columns)."""
    p = np.array([dip_test(Z[:, a])[1] for a in range(Z.shape[1])])
    return np.flatnonzero(p < SPLIT_ALPHA / Z.shape[1])


def _geometry(name, X, w, ks, params):
    """X in geometry ``name``, or the reason it is not tried."""
    why = _why_not_sphered(X, ks, params)
    if why is not None:
        return None, why.replace("sphering", "rescaling")
    if name == "standardized":
        sd = X.std(axis=0)
        sd = sd[sd > 0]
        if sd.size and sd.max() <= (1 + 1e-9) * sd.min():
            return None, "its columns already have equal variances"
        return standardize(X, w), None
    Z = sphere(X, w)
    if Z.shape[1] < 2:
        return None, "X has one axis of variance, so sphering only rescales it"
    if Z.shape[1] >= X.shape[0] - 1:
        return None, (f"X has {Z.shape[1]} axes of variance for {X.shape[0]} points, so "
                      "sphered every two points are the same distance apart")
    if name == "sphered":
        return Z, None
    keep = _multimodal_axes(Z)
    if not keep.size:
        return None, "no axis of X sphered is multimodal (dip test)"
    if keep.size == Z.shape[1]:
        return None, "every axis of X sphered is multimodal: X sphered is tried in its turn"
    return Z[:, keep], None


def choose_silhouette_split(X, w, ks, params, opts, rng):
    """``method="silhouette+split"``: the module docstring's steps, with the result."""
    seed = int(rng.integers(2**63 - 1))
    g = _Geometry(X, w, params, opts, seed)
    r, found = _decide(g, ks, opts, opts["reference"])
    r.reasoning = f"{SILHOUETTE_SPLIT}: on X, {r.reasoning}"
    if not found:
        r.reasoning += "."
        for name in RESCALED:
            Z, why = _geometry(name, X, w, ks, params)
            if Z is None:
                r.reasoning += f" {name.capitalize()} is not tried: {why}."
                continue
            s, found = _decide(_Geometry(Z, w, params, opts, seed), ks, opts, "moments")
            setattr(r, name.replace(" ", "_"), s)
            r.reasoning += f" On {_WHAT[name]} (references with its moments): {s.reasoning}"
            if found:
                r.k, r.labels, r.geometry, r.at_top = s.k, s.labels, name, s.at_top
                r.reasoning += f" The answer is k={s.k}, found there (labels: its fit)."
                break
            r.reasoning += "."
        if not found:
            r.reasoning += " No structure: k=1."
    if r.at_top:
        warnings.warn(f"choose_k: k={r.k} is the largest k of k_range and the rule had not "
                      "decided there: k may be larger than the range allows; widen k_range",
                      KRangeWarning, stacklevel=3)
    return r
