r"""The public function :func:`~kgroups.choose_k`: its checks of the inputs and the
dispatch to each method (the formulas are in :mod:`kgroups._choose_k`).
"""

from __future__ import annotations

import numpy as np

from .._validation import (
    Integer,
    InvalidParameterError,
    as_seed,
    check_data,
    check_sample_weight,
    describe,
    validated,
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
from .result import ChooseKResult
from .rules import GAP_PS_SPHERED, _decide, _why_not_sphered, auto_method
from .silgap import SILHOUETTE_GAP, choose_silhouette_gap
from .graph import GRAPH_EIGENGAP, choose_graph_eigengap
from .silsplit import SILHOUETTE_SPLIT, choose_silhouette_split

DEFAULT_METHOD = "auto"
# the methods that run their own fits and decisions: method -> function(X, w, ks, params,
# opts, rng) returning a ChooseKResult (a semimetric's own rule, named in
# rules.AUTO_METHODS, goes here too)
DRIVERS = {SILHOUETTE_SPLIT: choose_silhouette_split, SILHOUETTE_GAP: choose_silhouette_gap,
           GRAPH_EIGENGAP: choose_graph_eigengap}


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
    if method == SILHOUETTE_SPLIT:
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
    if method in ("silhouette", SILHOUETTE_SPLIT) and ks[-1] < 2:
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
_NEEDS = {SILHOUETTE_SPLIT: ("gap", "silhouette"), SILHOUETTE_GAP: ("gap", "silhouette"),
          GAP_PS_SPHERED: ("gap", "prediction_strength"),
          "gap+ps": ("gap", "prediction_strength"), "gap": ("gap",),
          "prediction_strength": ("prediction_strength",), "silhouette": ("silhouette",),
          "eigengap": ("eigengap",), GRAPH_EIGENGAP: ("eigengap",)}


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
             sigma=1.0, theta=1.0, sample_weight=None, n_neighbors=10, n_init=5,
             engine="auto", random_state=None):
    r"""Choose the number of clusters k of point data, and say why.

    Every method judges kernel k-groups fits (:class:`~kgroups.KernelKGroups`) for
    each k of ``k_range``; :doc:`/user_guide/choosing_k` has the formulas.

    - ``"auto"`` (default): the method of the semimetric's kind of clusters
      (``kgroups._choose_k.rules.AUTO_METHODS``); ``"silhouette+split"`` for
      every semimetric of point data, and with ``"energy"`` a fourth step: when the
      ``n_neighbors`` graph of the points has groups (by its eigengap) of
      comparable size that the energy fit of their number cuts across (adjusted
      Rand index below 0.5: rings, moons, spirals), and the graph's own fit of the
      point rule's k does not find the point rule's partition, the answer is the
      energy partition that agrees best with them (the largest adjusted Rand index,
      followed to twice its k and at least 10), and ``graph_k`` of the result is
      the graph's number of groups. ``"nearest_neighbors"``: the graph's eigengap,
      and the labels of its fit.
    - ``"silhouette+split"``: k = 1 only when X shows no structure by any
      yardstick: no modes (Hartigan's dip test of a held-out half projected on the
      line of a 2-cluster fit of the other half, and of the distances from the
      mean) and no gain of the fits of k = 2..5 over reference samples without
      structure (:math:`\mathrm{Gap}(k) - \mathrm{Gap}(1)` above 3.5 standard
      errors of the same gain on the references); then the mean silhouette,
      followed from k = 2 to twice its best k (at least to 10), and the smallest k
      within half a standard error of its largest value; then one more cluster while a cluster of the partition splits (the dip
      test on a held-out half of it, projected on the line of its 2-cluster fit on
      the other half, at level 0.01 over the clusters) and the finer partition
      keeps 0.7 of the best silhouette. When X shows no structure, the same on the
      sphered axes whose projection is multimodal (their dip tests are the
      evidence), then on X standardized; none: k = 1. The answer does not move
      when ``k_range`` grows past where the rule decided; when it is the largest k
      of the range before the rule decided, a ``kgroups._choose_k.KRangeWarning``
      (a ``UserWarning``) says to widen the range.
    - ``"silhouette+gap"`` (the default before): the k > 1 whose gain over one
      cluster is above 3 standard errors; among them the largest mean silhouette,
      or the gap's ``globalSEmax`` k when it is larger and keeps 0.8 of that
      silhouette. Its answer follows the top of ``k_range`` on real data, where
      the gap keeps climbing.
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
    coarse level of nested structure (a grid of blobs in two rows: 2), and its
    global rules follow the top of the range on real data; prediction strength and
    the silhouette cut one elongated cloud in two, and on real tables stop at 2
    where the classes are 3 to 6; the eigengap answers 2 or 3 on most
    two-dimensional settings, whatever k; ``"gap+ps"`` answers 1 on parallel
    elongated clusters and on real tables whose columns have very different
    variances (raw wine); the default stops at the coarse level of real tables
    whose classes overlap (seeds: 2 of 3, dermatology: 4 of 6) and answers 1 on
    tables that look like one Gaussian cloud by every yardstick (NeuroCog,
    leafshape), and on curved shapes that are not nested (moons, spirals) it picks
    what the silhouette picks, often a large k.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (a 1-D array is one feature).
    k_range : sequence of int, default=None
        The k to compare (distinct, >= 1; sorted here). None: ``1..10``
        (``2..10`` for the silhouette and the eigengap), cut to what X allows:
        the gap needs k below the number of distinct rows, prediction strength
        ``k <= n_samples // 2``, the others ``k <= n_samples - 1``.
    method : {"auto", "silhouette+split", "silhouette+gap", "gap+ps+sphered", "gap+ps", "gap", "prediction_strength", "silhouette", "eigengap"}, default="auto"
        How k is chosen; ``"auto"`` runs the rule of the semimetric's kind of
        clusters (``"silhouette+split"`` for point data, with the fourth step above
        for ``"energy"``; the graph's eigengap for ``"nearest_neighbors"``).
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
        point i has weight :math:`w_i`. The default methods and
        ``"gap+ps+sphered"`` use ``"moments"`` on the rescaled geometries
        (standardized, sphered) whatever this is.
    n_splits : int, default=20
        Random halvings of prediction strength; each half is test half once (not
        used by the default method).
    semimetric : {"energy", "laplacian", "gaussian", "localized", "sinusoidal", "nearest_neighbors"} or callable, default="energy"
        The semimetric of the fits (see :class:`~kgroups.KernelKGroups`). The
        default method looks at the rescaled data (multimodal sphered axes,
        standardized) with ``"energy"`` only. ``"nearest_neighbors"`` has a rule
        of its own (``method="auto"`` only): the k >= 2 after which the
        eigenvalues of the random walk's Laplacian on the neighbourhood graph rise
        most, as a ratio (:doc:`/user_guide/shapes`).
    alpha : float, default=1.0
        Exponent of the energy semimetric, in (0, 2]; ``alpha=2`` makes the gap
        statistic the original one; the eigengap needs ``alpha <= 1``.
    sigma : float, default=1.0
        Scale of the Gaussian and Laplacian semimetrics.
    theta : float, default=1.0
        Scale of the sinusoidal semimetric.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights (None: all ones).
    n_neighbors : int, default=10
        ``semimetric="nearest_neighbors"``, and the fourth step of the default
        method: the neighbours of each point in the graph (see
        :class:`~kgroups.KernelKGroups`).
    n_init : int, default=5
        Restarts of every :class:`~kgroups.KernelKGroups` fit (the default method:
        kernel k-means++ starts of each k of X, besides its start from a split).
    engine : {"auto", "dense", "sparse", "matrix-free", "low-rank"}, default="auto"
        The engine of every fit. The default method with ``"auto"`` or
        ``"dense"`` computes an n x n matrix of :math:`\rho` once per sample when
        it fits in a quarter of the available memory, for the silhouettes, and
        fits on it up to 1,500 points.
    random_state : int, RandomState instance or None, default=None
        Seeds the reference samples, the splits and the fits.

    Returns
    -------
    result : ChooseKResult
        ``k``, ``reasoning``, the curves computed (``gap``, ``gap_se``,
        ``structure_z``, ``silhouette``, ``split_p``, ``prediction_strength``,
        ``eigengap``, ...; NaN at the k a method did not need), those of the
        rescaled geometries in ``multimodal_axes``, ``standardized`` and
        ``sphered`` (when computed), the labels of the fit with the chosen k,
        ``at_top``, and ``plot()``.

    Raises
    ------
    InvalidParameterError
        Bad parameters, a k_range the data cannot support, a non-positive degree
        for the eigengap, or an n x n kernel that does not fit in memory (eigengap).

    Warns
    -----
    KRangeWarning
        The default answered the largest k of ``k_range`` before its rule had
        decided (``kgroups._choose_k.KRangeWarning``, a ``UserWarning``): k may
        be larger than the range allows; widen ``k_range``.

    See Also
    --------
    ChooseKResult : The result, its curves and its plot.
    KernelKGroups : The fits that every criterion judges.

    Notes
    -----
    Cost: ``(n_refs + 1) * len(k_range)`` fits of n points for the gap statistic
    and ``2 * n_splits * len(k_range)`` fits of n/2 points for prediction
    strength. The default fits each k once on one n x n matrix of X, with
    ``n_init`` kernel k-means++ starts and one start from a split of the previous
    k's partition, all in one call of :class:`~kgroups.KernelKGroups` per k, only
    as far as its rule needs (to twice the silhouette's best k, at least 10, and
    the splits after); it fits the ``n_refs`` references (one start each, at most
    500 points, k = 2..5, k by k until one k shows structure) only when no dip
    test finds modes, and reads the silhouettes off X's matrix; the
    :doc:`/performance` page gives its cost, in default fits at the true k, on
    the batteries of the studies. On a terminal, a
    progress bar counts its reference fits when a run is long.

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
    Three blobs, then two parallel elongated clusters, which show only along the
    short principal axis (multimodal there), then one elongated Gaussian, which has
    no clusters:

    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.5, (40, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    >>> r = choose_k(X, range(1, 7), random_state=0)
    >>> r.k, r.geometry, r.criteria          # the dip tests found modes: no references
    (3, 'data', ['silhouette', 'split'])
    >>> choose_k(X, range(1, 7), method="gap", rule="Tibs2001SEmax", random_state=0).k
    3
    >>> cigars = np.vstack([rng.normal(size=(100, 2)) * [6, 0.5] + [0, 4 * j] for j in (0, 1)])
    >>> r = choose_k(cigars, range(1, 11), n_refs=5, random_state=0)
    >>> r.k, r.geometry, r.multimodal_axes.k
    (2, 'multimodal axes', 2)
    >>> choose_k(cigars, range(1, 5), method="gap+ps+sphered", n_refs=5, n_splits=5,
    ...          random_state=0).k
    2
    >>> choose_k(rng.normal(size=(200, 2)) * [3, 1], range(1, 5), random_state=0).k
    1
    """
    X = check_data(X, "X", "choose_k", allow_1d=True, min_samples=2)
    n = X.shape[0]
    w = check_sample_weight(sample_weight, n, "choose_k")
    auto = method == "auto"
    if auto:
        method = auto_method(semimetric)
    elif semimetric == "nearest_neighbors":
        raise InvalidParameterError(
            f"choose_k: semimetric='nearest_neighbors' has a rule of its own, the eigengap of "
            f"its neighbourhood graph (method='auto'); got method={method!r}")
    rule = _check_rule(rule, method)
    n_distinct = np.unique(X, axis=0).shape[0] if "gap" in _NEEDS[method] or \
        method == GRAPH_EIGENGAP else n
    ks = _check_k_range(k_range, method, n, n_distinct)
    params = {"semimetric": semimetric, "alpha": alpha, "sigma": sigma, "theta": theta,
              "engine": engine, "n_neighbors": n_neighbors}
    opts = {"n_refs": n_refs, "reference": reference, "n_splits": n_splits, "n_init": n_init,
            "follow_shapes": auto and semimetric == "energy", "n_distinct": n_distinct}
    rng = np.random.default_rng(as_seed(random_state))
    if method in DRIVERS:
        return DRIVERS[method](X, w, ks, params, opts, rng)
    if method == GAP_PS_SPHERED:
        return _choose_default(X, w, ks, rule, se_factor, cutoff, params, opts, rng)
    return _choose(X, w, ks, method, rule, se_factor, cutoff, params, opts, rng)
