r"""The named criteria of :func:`~kgroups.choose_k` (the gap statistic, prediction strength,
the silhouette), each a curve over k from the fits of :mod:`~kgroups._choose_k.fits`; their rules
are in :mod:`kgroups._stats.criteria`."""

from __future__ import annotations

import numpy as np

from .._random_state import stream
from .._stats.criteria import prediction_strength_score, reference_sampler
from .._stats.silhouette import silhouettes
from .fits import Fits
from .result import curve


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
