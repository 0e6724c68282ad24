r"""Choosing the number of clusters k for point data.

Every criterion below judges the partitions that kernel k-groups finds
(:class:`~kgroups.KernelKGroups`, the only way this module clusters) for each k of
a range, with the semimetric :math:`\rho` of the fits.

**The gap statistic** (Tibshirani, Walther & Hastie, J. R. Statist. Soc. B 63(2),
2001, eqs. 3-5 and section 3). With :math:`W_k` the within energy of the fit with
k clusters (TPAMI eq. 13, :attr:`KernelKGroups.within_energy_`),

.. math:: \mathrm{Gap}(k) = \frac{1}{B} \sum_{b=1}^B \log W^*_{kb} - \log W_k,
          \qquad s_k = \mathrm{sd}_k \sqrt{1 + 1/B},

where :math:`W^*_{kb}` is the within energy of the same clustering of the
:math:`b`-th of :math:`B` reference samples, drawn uniformly over the box of the
data (``reference="box"``, the paper's (a)) or over the box of the data in its
principal axes (``reference="pca"``, the paper's (b)), and :math:`\mathrm{sd}_k`
is the standard deviation (divisor B) of :math:`\log W^*_{kb}`. For the energy
semimetric with ``alpha=2``, :math:`W_k` is k-means' within sum of squares and
this is the original statistic; for other semimetrics the log keeps the gap free
of the units of :math:`\rho`. The decision rules are those of R's
``cluster::maxSE`` (Maechler et al.), applied to :math:`f = \mathrm{Gap}` and
:math:`s` (``se_factor`` times :math:`s_k`), over the k of the range in order:

* ``"globalmax"``: the k of the largest :math:`f(k)`;
* ``"firstmax"``: the first local maximum, the first k with
  :math:`f(k) \ge f(k^+)` (:math:`k^+` the next k of the range; the last k when
  none);
* ``"Tibs2001SEmax"``: Tibshirani et al.'s rule, the smallest k with
  :math:`f(k) \ge f(k^+) - s_{k^+}` (the last k when none);
* ``"firstSEmax"``: the smallest k with :math:`f(k) \ge f(\hat k) - s_{\hat k}`,
  :math:`\hat k` the first local maximum;
* ``"globalSEmax"``: the same with :math:`\hat k` the global maximum (Dudoit &
  Fridlyand 2002).

**Prediction strength** (Tibshirani & Walther, J. Comput. Graph. Statist. 14(3),
2005, eqs. 2.1-2.2). Split the points at random into halves, fit k clusters to
each half, and for the test half's clusters :math:`A_1, \dots, A_k` count the
pairs of points that the training half's fit (:meth:`KernelKGroups.predict`) also
puts together:

.. math:: \mathrm{ps}(k) = \min_{1 \le j \le k} \frac{1}{n_j (n_j - 1)}
          \sum_{i \ne i' \in A_j} \mathbb 1[\hat c(x_i) = \hat c(x_{i'})],

with pairs weighted by :math:`w_i w_{i'}` for weighted points and clusters of one
point left out of the minimum (they have no pair). Each half is test half once,
over ``n_splits`` random splits; ``ps(1) = 1``. The chosen k is the largest k with
mean :math:`\mathrm{ps}(k) \ge` ``cutoff`` (the paper's 0.8).

**The silhouette** (Rousseeuw, J. Comput. Appl. Math. 20, 1987) of the fits, on
:math:`\rho`: :math:`s(i) = (b_i - a_i) / \max(a_i, b_i)`, with :math:`a_i` the
weighted mean of :math:`\rho(x_i, \cdot)` over the other points of its cluster
and :math:`b_i` the smallest such mean over another cluster (:math:`s(i) = 0`
alone in its cluster); the chosen k has the largest weighted mean of
:math:`s(i)`. It is not defined for k = 1, so it never answers 1.

**The eigengap** of the random-walk Laplacian of the energy kernel (ICML draft,
section 5.2 and Fig. 5; von Luxburg 2007, section 8.1): with
:math:`G_{ij} = K(x_i, x_j)`, :math:`K(x, y) = \frac12 [\rho(x, x_0) + \rho(y, x_0)
- \rho(x, y)]` (ICML eqs. 8 and 12, :math:`x_0` the weighted mean of X),
:math:`L_{rw} = I - D^{-1} G W`, :math:`D = \mathrm{diag}(G w)`, and
:math:`\delta_k = \lambda_{k+1} - \lambda_k` over its ascending eigenvalues; the
chosen k has the largest :math:`\delta_k`. It needs positive degrees (the energy
semimetric with ``alpha <= 1``, the Gaussian or Laplacian ones).

**Gap and prediction strength** (``method="gap+ps"``). The candidates are the
k > 1 whose partitions are stable, :math:`\mathrm{ps}(k) \ge` ``cutoff``, and beat
the reference samples by ``STRUCTURE_Z`` = 3 standard errors,
:math:`\mathrm{Gap}(k) - \mathrm{Gap}(1) > 3\,\sigma_k`, with
:math:`\sigma_k = \mathrm{sd}_b(\log W^*_{kb} - \log W^*_{1b}) \sqrt{1 + 1/B}`
the spread of that gain over samples without structure (:func:`gap_gain_se`).
No candidate: k = 1. Otherwise the gap's ``rule`` (``"globalSEmax"``) picks among
the candidates. Prediction strength rejects the gap's plateau past the true k
(unstable partitions); the gain over k = 1 rejects prediction strength's stable
cuts of an elongated cloud.

**Gap, prediction strength, sphered** (``method="gap+ps+sphered"``):
``"gap+ps"`` on X; when it finds no structure (k = 1 with 1 in the range),
``"gap+ps"`` again on X *sphered* (:func:`sphere`: X in its principal axes, each
scaled to unit variance, the geometry of the Mahalanobis distance of its
covariance), with reference samples uniform over the cube of unit variance
:math:`[-\sqrt 3, \sqrt 3]^r` (``reference="moments"``: uniform with the mean and
covariance of the data, in its principal axes). The energy semimetric is invariant
under rotations but not under a change of scale of one axis: clusters separated
along a short principal axis (parallel elongated clusters) are invisible at the
scale of the long one, where the best two-cluster cut goes across the long axis,
as in one elongated Gaussian; after sphering, every axis has the same scale and
they separate. Only with the energy semimetric (whose partitions do not depend on
the units) and data of rank r with 2 <= r < n - 1.

**The default** (``method="silhouette+gap"``, :mod:`kgroups._choose_k_silgap`):
one set of fits of X for every k answers three questions. Structure: the k > 1
with :math:`\mathrm{Gap}(k) - \mathrm{Gap}(1) > 3\,\sigma_k` (PCA-box
references). The best separated of those: the largest mean silhouette,
:math:`k_s`. A finer level: the gap's ``globalSEmax`` k among them, :math:`k_g`,
replaces :math:`k_s` when :math:`k_g > k_s` and its silhouette keeps 0.8 of
:math:`k_s`'s. No structure in X's geometry: the structure test on X
standardized (every column scaled to unit variance), then on X sphered, each with
references uniform with its mean and covariance, the answer being the gap's
``firstSEmax`` k among the k that show structure there; none: k = 1. The
performance page of the documentation has the studies
(``benchmarks/bench_choose_k.py``, ``benchmarks/bench_choose_k_real.py``).

**Cost.** The gap statistic: ``(B + 1) * len(k_range)`` fits of n points, each
with ``n_init`` restarts sharing the engine. Prediction strength:
``2 * n_splits * len(k_range)`` fits of n/2 points and as many ``predict``. The
silhouette reuses the data's fits and computes :math:`\rho` by row blocks (no n x n
matrix); the eigengap needs the n x n kernel. ``"gap+ps+sphered"`` costs what
``"gap+ps"`` costs, twice when the data's geometry shows no structure. The default
computes one n x n matrix of :math:`\rho` per sample (X and each reference) and
runs every fit of that sample on it: ``n_refs + 1`` matrices and
``(n_refs + 1) * len(k_range)`` fits, up to three times when X's geometry shows no
structure.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
import scipy.sparse.linalg

from ._choose_k_base import (  # noqa: F401  (the names tests and users import from here)
    DEFAULT_METHOD,
    GAP_PS_SPHERED,
    GAP_RULES,
    SILHOUETTE_BLOCK_BYTES,
    SPHERED,
    STANDARDIZED,
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
    prediction_strength_score,
    ps_rule,
    reference_sample,
    sphere,
)
from ._choose_k_silgap import choose_silhouette_gap
from ._kgroups import KernelKGroups
from ._memory import check_fits
from ._semimetrics import pairwise
from ._validation import (
    Integer,
    InvalidParameterError,
    as_seed,
    check_data,
    check_sample_weight,
    describe,
    validated,
)

# largest n for the dense symmetric eigensolver; above it, Lanczos (eigsh)
DENSE_EIGEN_MAX_N = 1500


# --------------------------------------------------------------------------- fits
def _fit(X, w, k, params, n_init, seed):
    """One :class:`KernelKGroups` fit (the only way this module clusters)."""
    return KernelKGroups(int(k), **params, n_init=1 if k == 1 else n_init,
                         random_state=seed).fit(X, sample_weight=w)


def _fits(X, w, ks, params, n_init, rng):
    """The fit with ``n_init`` restarts of every k of ``ks``."""
    return [_fit(X, w, k, params, n_init, int(rng.integers(2**31 - 1))) for k in ks]


def _gap_curve(X, w, ks, params, n_refs, reference, n_init, rng, fits):
    """``Gap(k)``, ``s_k``, ``W_k`` and ``log W*_kb``, equations 3-5 of Tibshirani et al."""
    W = np.array([f.within_energy_ for f in fits])
    if not np.all(W > 0):
        k = int(ks[np.argmax(~(W > 0))])
        raise InvalidParameterError(
            f"choose_k: the within energy of the fit with k={k} is {W[ks == k][0]!r}; the "
            "gap statistic needs W_k > 0 (log W_k); use a smaller k_range")
    ref = np.empty((n_refs, ks.size))
    for b in range(n_refs):
        Z = reference_sample(X, w, reference, rng)
        ref[b] = np.log([f.within_energy_ for f in _fits(Z, w, ks, params, n_init, rng)])
    gap = ref.mean(axis=0) - np.log(W)
    se = ref.std(axis=0) * np.sqrt(1.0 + 1.0 / n_refs)  # sd with divisor B, as the paper
    return gap, se, W, ref


def _prediction_strength_curve(X, w, ks, params, n_splits, n_init, rng):
    """Prediction strength of every test half (rows) and k (columns)."""
    n = X.shape[0]
    runs = np.ones((2 * n_splits, ks.size))
    for s in range(n_splits):
        perm = rng.permutation(n)
        halves = (np.sort(perm[:n // 2]), np.sort(perm[n // 2:]))
        fits = [_fits(X[h], w[h], ks, params, n_init, rng) for h in halves]
        for t in (0, 1):
            test, train = halves[t], fits[1 - t]
            for j, k in enumerate(ks):
                if k > 1:
                    runs[2 * s + t, j] = prediction_strength_score(
                        fits[t][j].labels_, train[j].predict(X[test]), w[test])
    return runs


# --------------------------------------------------------------------------- eigengap
def laplacian_eigenvalues(X, w, n_eigen, params):
    """The ``n_eigen`` smallest eigenvalues of ``L_rw = I - D^-1 G W``, ascending.

    G is the Gram matrix of the kernel with base point the weighted mean (ICML
    eqs. 8 and 12), W the diagonal of the weights and D that of the degrees G w.
    """
    n = X.shape[0]
    check_fits(2 * 8 * n * n, f"choose_k(method='eigengap') for n_samples={n} (the n x n "
               "kernel and its normalised copy)", "method='gap+ps' (no n x n matrix with "
               "engine='matrix-free'), or fewer samples")
    x0 = (w @ X / w.sum())[None, :]
    sem = _semimetric_params(params)
    r0 = pairwise(X, x0, **sem)[:, 0]
    G = pairwise(X, **sem)                       # rho, then in place
    G *= -0.5
    G += 0.5 * r0[:, None]
    G += 0.5 * r0[None, :]                       # G = K(x_i, x_j), ICML eq. 8 with x0
    d = G @ w
    if not np.all(d > 0):
        i = int(np.argmin(d))
        scale = "alpha" if params["semimetric"] == "energy" else "sigma"
        raise InvalidParameterError(
            f"choose_k: method='eigengap' needs positive degrees (row sums of the kernel "
            f"matrix), but point {i} has degree {float(d[i])!r} with semimetric="
            f"{describe(params['semimetric'])}, {scale}={params[scale]!r}; the energy "
            "semimetric with alpha <= 1 has a non-negative kernel; or use another method")
    s = np.sqrt(w / d)
    G *= s[:, None]
    G *= s[None, :]                              # D^-1/2 W^1/2 G W^1/2 D^-1/2, similar
    if n <= DENSE_EIGEN_MAX_N or n_eigen >= n - 1:
        mu = scipy.linalg.eigh(G, eigvals_only=True, subset_by_index=[n - n_eigen, n - 1])
    else:
        mu = scipy.sparse.linalg.eigsh(G, k=n_eigen, which="LA", return_eigenvectors=False)
    return np.sort(1.0 - mu)


# --------------------------------------------------------------------------- decisions
def _decide(r, method, rule, se_factor, cutoff):
    """Position of the chosen k in ``r.k_values`` and the reasoning text."""
    ks, ps = r.k_values, r.prediction_strength
    if method == "gap":
        i = gap_rule(r.gap, r.gap_se, rule, se_factor)
        why = _explain_gap(ks, r.gap, r.gap_se, i, rule, se_factor)
        return i, f"gap statistic, rule {rule!r}: {why}."
    if method == "prediction_strength":
        i, ok = ps_rule(ps, cutoff), np.flatnonzero(ps >= cutoff)
        return i, (f"prediction strength: ps(k) >= {cutoff} at k in {_ks(ks, ok)} ("
                   + ", ".join(f"{ps[j]:.2f}" for j in ok) + f"); the largest is k={ks[i]}."
                   if ok.size else f"prediction strength: no k reaches {cutoff} (largest "
                   f"ps {ps.max():.3f}): the smallest k, {ks[i]}.")
    if method == "silhouette":
        i = int(np.nanargmax(r.silhouette))
        return i, (f"silhouette: the mean silhouette is largest at k={int(ks[i])} "
                   f"({r.silhouette[i]:.3f}; not defined at k = 1).")
    if method == "eigengap":
        i = int(np.argmax(r.eigengap))
        return i, (f"eigengap: lambda_(k+1) - lambda_k is largest at k={int(ks[i])} "
                   f"({r.eigengap[i]:.3f}).")
    return _decide_gap_ps(r, rule, se_factor, cutoff)


def _decide_gap_ps(r, rule, se_factor, cutoff):
    """``"gap+ps"``: stable k (prediction strength) that beat k = 1 on the gap by
    ``STRUCTURE_Z`` standard errors, then the gap's ``rule`` among them."""
    ks, ps, gap = r.k_values, r.prediction_strength, r.gap
    stable = np.flatnonzero(ps >= cutoff)
    text = (f"gap+ps: prediction strength reaches {cutoff} at k in {_ks(ks, stable)} ("
            + ", ".join(f"{ps[m]:.2f}" for m in stable) + ")" if stable.size else
            f"gap+ps: no k reaches prediction strength {cutoff}")
    cand = stable
    if ks[0] == 1:
        z = (gap - gap[0]) / np.maximum(gap_gain_se(r.ref_log_w), 1e-300)
        cand = stable[(stable > 0) & (z[stable] > STRUCTURE_Z)]
        zs = ", ".join(f"k={int(ks[m])}: {z[m]:.1f}" for m in stable if m > 0)
        if not cand.size:
            return 0, (text + f"; no stable k > 1 has Gap(k) - Gap(1) above {STRUCTURE_Z:g} "
                       f"standard errors ({zs or 'none is stable'}): no structure, k=1.")
        text += (f"; Gap(k) - Gap(1) is above {STRUCTURE_Z:g} standard errors at k in "
                 f"{_ks(ks, cand)} ({zs})")
    elif not cand.size:
        i = int(np.argmax(ps))
        return i, text + f": the k of largest prediction strength, k={ks[i]} ({ps[i]:.3f})."
    j = gap_rule(gap[cand], r.gap_se[cand], rule, se_factor)
    why = _explain_gap(ks, gap, r.gap_se, j, rule, se_factor, cand)
    return int(cand[j]), text + f"; among these, rule {rule!r}: {why}."


# --------------------------------------------------------------------------- inputs
def _k_limits(method, n, n_distinct):
    """Largest k each criterion allows, and why (for the error message)."""
    lim = []
    if "gap" in _NEEDS[method]:
        lim.append((n_distinct - 1, (f"the gap statistic needs k < {n_distinct}, the number "
                                     "of distinct rows (log W_k is undefined at W_k = 0)")))
    if "prediction_strength" in _NEEDS[method]:
        lim.append((n // 2, f"prediction strength fits halves of {n // 2} points, k <= {n // 2}"))
    if method in ("silhouette", "eigengap"):
        lim.append((n - 1, f"the {method} needs k <= n_samples - 1 = {n - 1}"))
    return min(lim, key=lambda t: t[0])


def _check_k_range(k_range, method, n, n_distinct):
    """Sorted distinct integers k >= 1 that the method can use on n samples."""
    top, why = _k_limits(method, n, n_distinct)
    if k_range is None:
        first = 2 if method in ("silhouette", "eigengap") else 1
        k_range = range(first, max(min(10, top), first) + 1)
    values = list(k_range) if isinstance(k_range, range) else list(
        np.ravel(np.asarray(k_range, dtype=object)))
    bad = [v for v in values if not Integer(1)(v)]
    if not values or bad:
        raise InvalidParameterError(
            f"choose_k: k_range={describe(k_range)} should be a non-empty sequence of integers "
            f">= 1" + (f"; got {describe(bad[0])}" if bad else ""))
    ks = np.array(sorted(int(v) for v in values), dtype=np.int64)
    if np.any(np.diff(ks) == 0):
        raise InvalidParameterError(f"choose_k: k_range={describe(k_range)} has repeated values")
    if ks[-1] > max(top, 1):
        raise InvalidParameterError(
            f"choose_k: k_range goes up to k={ks[-1]} but X has n_samples={n}; {why}")
    if method == "silhouette" and ks[-1] < 2:
        raise InvalidParameterError(
            f"choose_k: k_range={describe(k_range)} should hold a k >= 2 for "
            "method='silhouette' (the silhouette is not defined for one cluster)")
    return ks


_GAP_PS = ("gap+ps", GAP_PS_SPHERED)


def _check_rule(rule, method):
    if rule is None:
        return "globalSEmax" if method in _GAP_PS else "firstSEmax"
    if method not in ("gap",) + _GAP_PS:
        raise InvalidParameterError(
            f"choose_k: rule={rule!r} applies to method='gap', 'gap+ps' or "
            f"{GAP_PS_SPHERED!r} only; got method={method!r} (leave rule=None)")
    return rule


# --------------------------------------------------------------------------- public
_NEEDS = {DEFAULT_METHOD: ("gap", "silhouette"), GAP_PS_SPHERED: ("gap", "prediction_strength"),
          "gap+ps": ("gap", "prediction_strength"), "gap": ("gap",),
          "prediction_strength": ("prediction_strength",), "silhouette": ("silhouette",),
          "eigengap": ("eigengap",)}


def _curves(X, w, ks, method, params, opts, rng):
    """Every criterion ``method`` needs, as :class:`ChooseKResult` fields."""
    need, out, fits = _NEEDS[method], {}, None
    if "gap" in need or "silhouette" in need:
        fits = _fits(X, w, ks, params, opts["n_init"], rng)
        out["within_energy"] = np.array([f.within_energy_ for f in fits])
    if "gap" in need:
        out["gap"], out["gap_se"], _, out["ref_log_w"] = _gap_curve(
            X, w, ks, params, opts["n_refs"], opts["reference"], opts["n_init"], rng, fits)
    if "prediction_strength" in need:
        runs = _prediction_strength_curve(X, w, ks, params, opts["n_splits"], opts["n_init"],
                                          rng)
        out.update(prediction_strength=runs.mean(axis=0), prediction_strength_runs=runs,
                   prediction_strength_se=runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0]))
    if "silhouette" in need:
        out["silhouette"] = _silhouette_curve(X, w, ks, [f.labels_ for f in fits],
                                              _semimetric_params(params))
    if "eigengap" in need:
        lam = laplacian_eigenvalues(X, w, int(ks[-1]) + 1, params)
        out["eigenvalues"], out["eigengap"] = lam, lam[ks] - lam[ks - 1]
    return out, fits


def _choose(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng):
    """One method on one geometry: the result with k, reasoning and labels."""
    curves, fits = _curves(X, w, ks, method, params, opts, rng)
    r = ChooseKResult(0, method, ks, rule=rule if "gap" in _NEEDS[method] else None,
                      cutoff=cutoff if "prediction_strength" in _NEEDS[method] else None,
                      **curves)
    i, r.reasoning = _decide(r, method, rule, se_factor, cutoff)
    r.k = int(ks[i])
    r.labels = (fits[i] if fits is not None else _fit(X, w, r.k, params, opts["n_init"], int(
        rng.integers(2**31 - 1)))).labels_
    return r


def _choose_default(X, w, ks, rule, se_factor, cutoff, params, opts, rng):
    """``"gap+ps"`` on X; when it finds no structure, on X sphered (references
    uniform with the sphered data's mean and covariance)."""
    r = _choose(X, w, ks, "gap+ps", rule, se_factor, cutoff, params, opts, rng)
    r.method = GAP_PS_SPHERED
    on_x = r.reasoning.removeprefix("gap+ps: ")
    r.reasoning = f"{GAP_PS_SPHERED}: on X, {on_x}"
    if r.k > 1:
        return r
    why_not = _why_not_sphered(X, ks, params)
    Z = sphere(X, w) if why_not is None else None
    if Z is not None and Z.shape[1] < 2:
        why_not = "X has one axis of variance, so sphering only rescales it"
    elif Z is not None and Z.shape[1] >= X.shape[0] - 1:
        why_not = (f"X has {Z.shape[1]} axes of variance for {X.shape[0]} points, so sphered "
                   "(unweighted) every two points are the same distance apart")
    if why_not is not None:
        r.reasoning += f" X sphered is not tried: {why_not}."
        return r
    s = _choose(Z, w, ks, "gap+ps", rule, se_factor, cutoff, params,
                {**opts, "reference": "moments"}, rng)
    r.sphered = s
    on_z = s.reasoning.removeprefix("gap+ps: ")
    r.reasoning += (f" No structure in X's geometry, so X sphered (principal axes scaled to "
                    f"unit variance; references uniform with its mean and covariance): {on_z}")
    if s.k > 1:
        r.k, r.labels, r.geometry = s.k, s.labels, "sphered"
        r.reasoning += f" The answer is k={s.k}, found in X sphered (labels: its fit)."
    return r


@validated
def choose_k(X, k_range=None, *, method=DEFAULT_METHOD, rule=None, se_factor=1.0, cutoff=0.8,
             n_refs=10, reference="pca", n_splits=20, semimetric="energy", alpha=1.0,
             sigma=1.0, theta=1.0, sample_weight=None, n_init=5, engine="auto",
             random_state=None):
    r"""Choose the number of clusters k of point data, and say why.

    Every method judges kernel k-groups fits (:class:`~kgroups.KernelKGroups`) for
    each k of ``k_range``; :doc:`/user_guide/choosing_k` has the formulas.

    - ``"silhouette+gap"`` (default): the k > 1 whose gain over one cluster,
      :math:`\mathrm{Gap}(k) - \mathrm{Gap}(1)`, is above 3 standard errors of the
      same gain on reference samples without structure; among them the largest
      mean silhouette on the semimetric, or the gap's ``globalSEmax`` k when it is
      larger and keeps 0.8 of that silhouette (clusters within clusters). When X
      shows no structure, the same test on X standardized (every column at unit
      variance), then sphered (principal axes at unit variance), with references
      uniform with their mean and covariance; the gap's ``firstSEmax`` k there;
      none: k = 1. Chosen by the studies of synthetic and real data on the
      :doc:`/performance` page.
    - ``"gap+ps+sphered"`` (the earlier default): ``"gap+ps"`` on X;
      when that finds no structure, ``"gap+ps"`` on X sphered (principal axes
      scaled to unit variance), with reference samples uniform with the sphered
      data's mean and covariance.
    - ``"gap+ps"``: the k > 1 whose partitions are stable
      (:math:`\mathrm{ps}(k) \ge` ``cutoff``) and beat the reference samples
      (:math:`\mathrm{Gap}(k) - \mathrm{Gap}(1)` above 3 standard errors) are the
      candidates; none: k = 1; else the gap's ``rule`` (default
      ``"globalSEmax"``) picks among them.
    - ``"gap"``: the gap statistic (Tibshirani, Walther & Hastie 2001) on
      :math:`W_k`, :math:`\mathrm{Gap}(k) = \overline{\log W^*_k} - \log W_k`,
      with a decision rule of R's ``cluster::maxSE`` (default ``"firstSEmax"``).
    - ``"prediction_strength"``: the largest k with mean
      :math:`\mathrm{ps}(k) \ge` ``cutoff`` (Tibshirani & Walther 2005).
    - ``"silhouette"``: the largest weighted mean silhouette on the semimetric
      (Rousseeuw 1987); k >= 2.
    - ``"eigengap"``: the largest :math:`\lambda_{k+1} - \lambda_k` of the
      random-walk Laplacian of the kernel matrix (França, Rizzo & Vogelstein,
      ICML draft, section 5.2); k >= 2.

    When each fails, in the studies: the gap's 1-standard-error rules stop at the
    coarse level of nested structure (a grid of blobs in two rows: 2); prediction
    strength and the silhouette cut one elongated cloud in two, and on real tables
    stop at 2 where the classes are 3 to 6; the eigengap answers 2 or 3 on most
    two-dimensional settings, whatever k; ``"gap+ps"`` answers 1 on parallel
    elongated clusters and on real tables whose columns have very different
    variances (raw wine); the default halves each of two parallel elongated
    clusters on 1 draw of 5 and stops at the coarse level of clusters within
    clusters on 1 or 2 draws of 5; every method misses, on most draws, clusters
    that the best kernel k-groups partitions do not separate (three parallel
    elongated clusters).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (a 1-D array is one feature).
    k_range : sequence of int, default=None
        The k to compare (distinct, >= 1; sorted here). None: ``1..10``
        (``2..10`` for the silhouette and the eigengap), cut to what X allows:
        the gap needs k below the number of distinct rows, prediction strength
        ``k <= n_samples // 2``, the others ``k <= n_samples - 1``.
    method : {"silhouette+gap", "gap+ps+sphered", "gap+ps", "gap", "prediction_strength", "silhouette", "eigengap"}, default="silhouette+gap"
        How k is chosen.
    rule : {"firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax"}, default=None
        The gap statistic's decision rule (``method="gap"``: over the whole
        range, default ``"firstSEmax"``, R's default; ``"gap+ps"`` and
        ``"gap+ps+sphered"``: over the candidates, default ``"globalSEmax"``).
        The default method's rules are fixed (leave None).
    se_factor : float, default=1.0
        Standard errors allowed by the ``*SEmax`` rules (R's ``SE.factor``).
    cutoff : float, default=0.8
        Prediction strength a partition needs to count as stable (the paper's 0.8);
        not used by the default method.
    n_refs : int, default=10
        The number B of reference samples of the gap statistic.
    reference : {"pca", "box", "moments"}, default="pca"
        Reference samples uniform over the box of the data in its principal axes
        (``"pca"``, the paper's (b)), over the box of its coordinates (``"box"``,
        (a)), or over the box in its principal axes with the data's variances
        (``"moments"``: sides :math:`\sqrt{12}` standard deviations). Reference
        point i has weight :math:`w_i`. The default method and
        ``"gap+ps+sphered"`` use ``"moments"`` on the standardized and sphered
        data whatever this is.
    n_splits : int, default=20
        Random halvings of prediction strength; each half is test half once (not
        used by the default method).
    semimetric : {"energy", "laplacian", "gaussian", "localized", "sinusoidal"} or callable, default="energy"
        The semimetric of the fits (see :class:`~kgroups.KernelKGroups`). The
        default method looks at the standardized and sphered data with
        ``"energy"`` only.
    alpha : float, default=1.0
        Exponent of the energy semimetric, in (0, 2]; ``alpha=2`` makes the gap
        statistic the original one; the eigengap needs ``alpha <= 1``.
    sigma : float, default=1.0
        Scale of the Gaussian and Laplacian semimetrics.
    theta : float, default=1.0
        Scale of the sinusoidal semimetric.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights (None: all ones).
    n_init : int, default=5
        Restarts of every :class:`~kgroups.KernelKGroups` fit.
    engine : {"auto", "dense", "sparse", "matrix-free", "low-rank"}, default="auto"
        The engine of every fit. The default method with ``"auto"`` or
        ``"dense"`` fits on an n x n matrix of :math:`\rho` computed once per
        sample when it fits in a quarter of the available memory.
    random_state : int, RandomState instance or None, default=None
        Seeds the reference samples, the splits and the fits.

    Returns
    -------
    result : ChooseKResult
        ``k``, ``reasoning``, the curves computed (``gap``, ``gap_se``,
        ``prediction_strength``, ``silhouette``, ``eigengap``, ...), those of
        the standardized and sphered data in ``standardized`` and ``sphered``
        (when computed), the labels of the fit with the chosen k, and ``plot()``.

    Raises
    ------
    InvalidParameterError
        Bad parameters, a k_range the data cannot support, a non-positive degree
        for the eigengap, or an n x n kernel that does not fit in memory (eigengap).

    See Also
    --------
    ChooseKResult : The result, its curves and its plot.
    KernelKGroups : The fits that every criterion judges.

    Notes
    -----
    Cost: ``(n_refs + 1) * len(k_range)`` fits of n points for the gap statistic
    and ``2 * n_splits * len(k_range)`` fits of n/2 points for prediction
    strength. The default makes the gap's fits on one n x n matrix per sample
    (the references with one start each) and reads the silhouettes off X's
    matrix, so its cost is that of a few tens of fits at the true k; up to three
    times that when X's own geometry shows no structure (the standardized and
    sphered data are tried). The times are on the Performance page. On a
    terminal, a progress bar counts its reference samples when a run is long.

    References
    ----------
    .. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of
       clusters in a data set via the gap statistic", J. R. Statist. Soc. B
       63(2), 411-423, 2001.
    .. [2] R. Tibshirani and G. Walther, "Cluster validation by prediction
       strength", J. Comput. Graph. Statist. 14(3), 511-528, 2005.
    .. [3] P. J. Rousseeuw, "Silhouettes: a graphical aid to the interpretation
       and validation of cluster analysis", J. Comput. Appl. Math. 20, 53-65, 1987.
    .. [4] G. França, M. L. Rizzo and J. T. Vogelstein, "Kernel k-groups via
       Hartigan's method", IEEE Trans. Pattern Anal. Mach. Intell. 43(12),
       4411-4425, 2021.
    .. [5] G. França, J. T. Vogelstein, "Nonparametric energy clustering" (ICML
       draft; arXiv version "Nonparametric Clustering from Energy Statistics"),
       section 5.2 and Fig. 5: the eigengap of the energy kernel.

    Examples
    --------
    Three blobs, then two parallel elongated clusters, which only the
    standardized data shows, then one elongated Gaussian, which has no clusters:

    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.5, (40, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    >>> r = choose_k(X, range(1, 7), random_state=0)
    >>> r.k, r.geometry, r.criteria
    (3, 'data', ['gap', 'structure', 'silhouette'])
    >>> choose_k(X, range(1, 7), method="gap", rule="Tibs2001SEmax", random_state=0).k
    3
    >>> cigars = np.vstack([rng.normal(size=(100, 2)) * [6, 0.5] + [0, 4 * j] for j in (0, 1)])
    >>> r = choose_k(cigars, range(1, 5), n_refs=5, random_state=0)
    >>> r.k, r.geometry, r.standardized.k
    (2, 'standardized', 2)
    >>> choose_k(cigars, range(1, 5), method="gap+ps+sphered", n_refs=5, n_splits=5,
    ...          random_state=0).k
    2
    >>> choose_k(rng.normal(size=(200, 2)) * [3, 1], range(1, 5), random_state=0).k
    1
    """
    X = check_data(X, "X", "choose_k", allow_1d=True, min_samples=2)
    n = X.shape[0]
    w = check_sample_weight(sample_weight, n, "choose_k")
    rule = _check_rule(rule, method)
    n_distinct = np.unique(X, axis=0).shape[0] if "gap" in _NEEDS[method] else n
    ks = _check_k_range(k_range, method, n, n_distinct)
    params = {"semimetric": semimetric, "alpha": alpha, "sigma": sigma, "theta": theta,
              "engine": engine}
    opts = {"n_refs": n_refs, "reference": reference, "n_splits": n_splits, "n_init": n_init}
    rng = np.random.default_rng(as_seed(random_state))
    if method == DEFAULT_METHOD:
        return choose_silhouette_gap(X, w, ks, params, opts, rng)
    if method == GAP_PS_SPHERED:
        return _choose_default(X, w, ks, rule, se_factor, cutoff, params, opts, rng)
    return _choose(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng)
