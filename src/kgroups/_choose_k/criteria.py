r"""The named methods of :func:`~kgroups.choose_k` (the gap statistic, prediction strength, the
silhouette, the eigengap): each a curve over k from the fits of :mod:`~kgroups._choose_k.fits`
and its paper's rule (:mod:`kgroups._stats.criteria`)."""

from __future__ import annotations

import numpy as np

from .._random_state import stream
from .._stats.criteria import (gap_rule, laplacian_eigenvalues, prediction_strength_score,
                               ps_rule, reference_sampler)
from .._stats.silhouette import silhouettes
from .fits import Fits
from .result import ChooseKResult, curve


def gap_curve(f, ks, n_refs, reference):
    r"""``(W, Gap, s, log W*)`` over ``ks``: :math:`\mathrm{Gap}(k) = \overline{\log W^*_k}
    - \log W_k` and :math:`s_k = \mathrm{sd}_k \sqrt{1 + 1/B}` (Tibshirani, Walther &
    Hastie 2001, eqs. 3-5)."""
    W = np.array([f.within(k) for k in ks])
    draw = reference_sampler(f.Z, f.w, reference)
    ref = np.log([[r.within(k) for k in ks] for r in (
        Fits(draw(f.rng(0, 6, b)), f.w, f.setting, stream(f.seed, "gap reference", b))
        for b in range(n_refs))])
    return W, ref.mean(axis=0) - np.log(W), ref.std(axis=0) * np.sqrt(1.0 + 1.0 / n_refs), ref


def prediction_strength_curve(X, w, ks, setting, n_splits, seed):
    """Prediction strength of every test half (rows) and k (columns): each half's fit
    against the other half's predict (the insertion rule, TPAMI eqs. 47-51)."""
    n, rng = X.shape[0], np.random.default_rng([seed, 7])
    runs = np.ones((2 * n_splits, ks.size))
    for s in range(n_splits):
        perm = rng.permutation(n)
        halves = (np.sort(perm[:n // 2]), np.sort(perm[n // 2:]))
        fits = [Fits(X[h], w[h], setting, stream(seed, "prediction strength", 2 * s + t))
                for t, h in enumerate(halves)]
        for t in (0, 1):
            test, train = halves[t], fits[1 - t]
            for j, k in enumerate(int(k) for k in ks):
                if k > 1:
                    train.fit(k)
                    runs[2 * s + t, j] = prediction_strength_score(
                        fits[t].fit(k)[0], train.predict(k, X[test]), w[test])
    return runs


def silhouette_curve(f, ks):
    """Weighted mean silhouette of the fit of every k (NaN at k = 1), one pass over the
    pairs for every k."""
    many = [int(k) for k in ks if k > 1]
    labels = [f.fit(k)[0] for k in many]
    sils = silhouettes(f.Z, f.w, f.D, f.setting.rho, labels, many) if many else []
    return curve(ks, {k: float(f.w @ sil / f.w.sum()) for k, sil in zip(many, sils)})


def named(X, w, ks, method, setting, opts, seed):
    """A named method's curve over ``ks`` and its paper's rule, one step of the trace."""
    r, f, threshold, note = ChooseKResult(1, method, ks), Fits(X, w, setting, seed), None, ""
    if method == "gap":
        r.rule = opts["rule"] or "firstSEmax"
        r.within_energy, r.gap, r.gap_se, r.ref_log_w = gap_curve(f, ks, opts["n_refs"],
                                                                  opts["reference"])
        i, values = gap_rule(r.gap, r.gap_se, r.rule, opts["se_factor"]), r.gap
        what = f"Gap(k) by k (rule {r.rule!r}, {opts['se_factor']:g} s.e.)"
    elif method == "prediction_strength":
        threshold = r.cutoff = opts["cutoff"]
        runs = prediction_strength_curve(X, w, ks, setting, opts["n_splits"], seed)
        r.prediction_strength, r.prediction_strength_runs = runs.mean(axis=0), runs
        r.prediction_strength_se = runs.std(axis=0, ddof=1) / np.sqrt(runs.shape[0])
        i, values = ps_rule(r.prediction_strength, r.cutoff), r.prediction_strength
        what = "mean ps(k) by k"
        note = "" if values[i] >= r.cutoff else " (none reaches the cutoff: the smallest k)"
    elif method == "silhouette":
        values = r.silhouette = silhouette_curve(f, ks)
        i, what = int(np.nanargmax(values)), "mean silhouette by k"
    else:
        lam = laplacian_eigenvalues(X, w, int(ks[-1]) + 1, setting.rho)
        r.eigenvalues = lam  # k >= 2: one cluster has no gap to read (NaN at k = 1)
        r.eigengap = np.where(ks >= 2, lam[ks] - lam[ks - 1], np.nan)
        i, values = int(np.nanargmax(r.eigengap)), r.eigengap
        what = "lambda_(k+1) - lambda_k of the energy kernel's random-walk Laplacian, by k"
    r.k = int(ks[i])
    r.trace.add(method.replace("_", " "), what, {k: v for k, v in zip(ks.tolist(), values)
                                                 if not np.isnan(v)}, threshold,
                f"k={r.k}{note}")
    r.labels = np.zeros(w.size, np.int64) if r.k == 1 else f.fit(r.k)[0]
    return r
