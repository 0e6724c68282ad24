r"""The work of :func:`~kgroups.choose_k`: its checks of the inputs and the dispatch to
each method (the formulas are in :mod:`kgroups._choose_k`), for any kernel k-groups
estimator class (``choose_k`` hands :class:`~kgroups.KernelKGroups`; the estimator
with ``n_clusters="auto"`` hands its own class, which cannot import ``choose_k``).
"""

from __future__ import annotations

import warnings

import numpy as np

from .._errors import DistinctRowsWarning
from .._validation import (
    Integer,
    InvalidParameterError,
    as_seed,
    check_data,
    check_sample_weight,
    describe,
)
from .methods import (
    _fit,
    _fits,
    _gap_curve,
    _prediction_strength_curve,
    _semimetric_params,
    _silhouette_curve,
    laplacian_eigenvalues,
    sphere,
)
from .result import ChooseKResult, KRangeWarning
from .rules import GAP_PS_SPHERED, _decide, _why_not_sphered, auto_method
from .silgap import SILHOUETTE_GAP, choose_silhouette_gap
from .graph import GRAPH_EIGENGAP, choose_graph_eigengap
from .joint import JOINT, choose_joint
from .sample import needs_sample, on_sample
from .silsplit import SILHOUETTE_SPLIT, choose_silhouette_split

DEFAULT_METHOD = "auto"
# the methods that run their own fits and decisions: method -> function(X, w, ks, params,
# opts, rng) returning a ChooseKResult (a semimetric's own rule, named in
# rules.AUTO_METHODS, goes here too)
DRIVERS = {SILHOUETTE_SPLIT: choose_silhouette_split, SILHOUETTE_GAP: choose_silhouette_gap,
           GRAPH_EIGENGAP: choose_graph_eigengap, JOINT: choose_joint}
# the methods whose cost grows with the square of the rows run on a sample past SAMPLE_N
# (the graph's eigengap builds its graph on a sample of its own)
SAMPLED = (SILHOUETTE_SPLIT, JOINT)


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
    if method == GRAPH_EIGENGAP:
        lim.append((n_distinct - 2, f"the graph's eigengap reads k + 1 eigenvalues of the "
                    f"graph of {n_distinct} distinct points, k <= {n_distinct - 2}"))
    if method in (SILHOUETTE_SPLIT, JOINT):
        lim.append((n - 1, f"the silhouette needs k <= n_samples - 1 = {n - 1}"))
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
    if method in ("silhouette", SILHOUETTE_SPLIT, JOINT) and ks[-1] < 2:
        raise InvalidParameterError(
            f"choose_k: k_range={describe(k_range)} should hold a k >= 2 for "
            f"method={method!r} (the silhouette is not defined for one cluster)")
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
_OWN_RULE = {"nearest_neighbors": "the eigengap of its neighbourhood graph",
             "auto": "the energy point rule or the graph's eigengap, judged on one graph"}
_NEEDS = {SILHOUETTE_SPLIT: ("gap", "silhouette"), SILHOUETTE_GAP: ("gap", "silhouette"),
          GAP_PS_SPHERED: ("gap", "prediction_strength"),
          "gap+ps": ("gap", "prediction_strength"), "gap": ("gap",),
          "prediction_strength": ("prediction_strength",), "silhouette": ("silhouette",),
          "eigengap": ("eigengap",), GRAPH_EIGENGAP: ("eigengap",),
          JOINT: ("gap", "silhouette", "eigengap")}


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



def _dispatch(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng, refit):
    """The result of ``method`` (sampled past ``SAMPLE_N`` rows where it is)."""
    if method in SAMPLED and needs_sample(X.shape[0]):
        return on_sample(DRIVERS[method], X, w, ks, params, opts, rng, refit)
    if method in DRIVERS:
        return DRIVERS[method](X, w, ks, params, opts, rng)
    if method == GAP_PS_SPHERED:
        return _choose_default(X, w, ks, rule, se_factor, cutoff, params, opts, rng)
    return _choose(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng)


def choose(X, k_range, *, estimator, method, rule, se_factor, cutoff, n_refs, reference,
           n_splits, semimetric, alpha, sigma, theta, sample_weight, n_neighbors, n_init,
           engine, random_state, stacklevel=4, refit=True):
    """:func:`~kgroups.choose_k` (its parameters, checked against its constraints by
    the caller) with the fits made by ``estimator``, a kernel k-groups estimator class;
    the :class:`KRangeWarning` of an answer at the top of the range points
    ``stacklevel`` frames up (the caller's line). Past ``SAMPLE_N`` rows the methods of
    ``SAMPLED`` run on a sample (:mod:`~kgroups._choose_k.sample`); ``refit=False``
    leaves the labels of every row as the sample's fit gives them (the caller fits)."""
    X = check_data(X, "X", "choose_k", allow_1d=True, min_samples=2)
    n = X.shape[0]
    w = check_sample_weight(sample_weight, n, "choose_k")
    auto = method == "auto"
    if auto:
        method = auto_method(semimetric)
    elif semimetric in ("nearest_neighbors", "auto"):
        raise InvalidParameterError(
            f"choose_k: semimetric={semimetric!r} has a rule of its own (method='auto'): "
            f"{_OWN_RULE[semimetric]}; got method={method!r}")
    rule = _check_rule(rule, method)
    n_distinct = np.unique(X, axis=0).shape[0] if "gap" in _NEEDS[method] or \
        method == GRAPH_EIGENGAP else n
    ks = _check_k_range(k_range, method, n, n_distinct)
    params = {"semimetric": semimetric, "alpha": alpha, "sigma": sigma, "theta": theta,
              "engine": engine, "n_neighbors": n_neighbors, "estimator": estimator}
    opts = {"n_refs": n_refs, "reference": reference, "n_splits": n_splits, "n_init": n_init,
            "follow_shapes": auto and semimetric == "energy", "n_distinct": n_distinct}
    rng = np.random.default_rng(as_seed(random_state))
    with warnings.catch_warnings():  # fits of more clusters than distinct rows are the
        warnings.simplefilter("ignore", DistinctRowsWarning)  # criteria's business
        r = _dispatch(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng, refit)
    if r.semimetric is None:
        r.semimetric = semimetric
    if r.at_top:
        warnings.warn(f"choose_k: k={r.k} is the largest k of k_range and the rule had not "
                      "decided there: k may be larger than the range allows; widen k_range",
                      KRangeWarning, stacklevel=stacklevel)
    return r

