r"""The public function :func:`~kgroups.choose_k` (its work is in
:mod:`kgroups._choose_k.core`; the formulas in :mod:`kgroups._choose_k`).
"""

from __future__ import annotations

from .._kgroups import KernelKGroups
from .._validation import validated
from .core import DEFAULT_METHOD, choose


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
      of the range before the rule decided, a :class:`~kgroups.exceptions.KRangeWarning`
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
        decided (:class:`~kgroups.exceptions.KRangeWarning`, a ``UserWarning``): k may
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
    return choose(X, k_range, estimator=KernelKGroups, method=method, rule=rule,
                  se_factor=se_factor, cutoff=cutoff, n_refs=n_refs, reference=reference,
                  n_splits=n_splits, semimetric=semimetric, alpha=alpha, sigma=sigma,
                  theta=theta, sample_weight=sample_weight, n_neighbors=n_neighbors,
                  n_init=n_init, engine=engine, random_state=random_state)
