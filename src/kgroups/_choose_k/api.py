r"""The public function :func:`~kgroups.choose_k` (its work: :mod:`kgroups._choose_k.core`)."""

from __future__ import annotations

import warnings

from .._errors import KRangeWarning, user_stacklevel
from .._validation import InvalidParameterError, check_data, check_sample_weight, validated
from .core import check_k_range, choice_rows, run_choice, with_removed_rows
from .fits import Setting


@validated
def choose_k(X, k_range=None, *, method="auto", semimetric="energy", alpha=1.0, sigma=1.0,
             theta=1.0, sample_weight=None, n_neighbors=10, n_init=5, engine="auto",
             rule=None, se_factor=1.0, cutoff=0.8, n_refs=10, reference="pca", n_splits=20,
             random_state=None):
    r"""Choose the number of clusters k of point data, and say why.

    Every method judges kernel k-groups fits (:class:`~kgroups.KernelKGroups`) for each k of
    ``k_range``; :doc:`/user_guide/choosing_k` has the formulas, the studies and where each
    method fails.

    - ``"auto"`` (default): the **energy rule**: k = 1 only where X shows no structure (dip
      tests, a tight group apart, gain over uniform references, the neighbourhood graph's
      groups); else the smallest k near the largest mean silhouette, plus one cluster while a
      cluster is multimodal (dip tests), in X's units or, where they show none, on its
      multimodal sphered axes or standardized. ``semimetric="nearest_neighbors"``: the
      neighbourhood graph's eigengap; ``"auto"``: both, one kept by the **arbiter**, as
      ``KernelKGroups(n_clusters="auto", semimetric="auto")`` does. Seeded from the data: the
      answer does not change with ``random_state``, the rows' order or X's units.
    - ``"gap"``: the gap statistic, :math:`\mathrm{Gap}(k) = \overline{\log W^*_k} - \log
      W_k`, with a rule of R's ``cluster::maxSE`` (default ``"firstSEmax"``).
    - ``"prediction_strength"``: the largest k with mean ps(k) >= ``cutoff``.
    - ``"silhouette"``: the largest weighted mean silhouette (k >= 2).
    - ``"eigengap"``: the largest :math:`\lambda_{k+1} - \lambda_k` of the energy kernel's
      random-walk Laplacian (k >= 2).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data (a 1-D array is one feature).
    k_range : sequence of int, default=None
        The k to compare (distinct, >= 1). None: ``1..15`` (``2..15`` for the silhouette and
        the eigengap), as ``n_clusters="auto"``'s, cut to what X allows. Without 1 the
        default never answers 1 (X known to hold clusters).
    method : {"auto", "gap", "prediction_strength", "silhouette", "eigengap"}, default="auto"
        How k is chosen (above).
    semimetric : {"energy", "laplacian", "gaussian", "localized", "sinusoidal", "nearest_neighbors", "auto"} or callable, default="energy"
        The semimetric of the fits; ``"nearest_neighbors"`` and ``"auto"`` with
        ``method="auto"`` only.
    alpha, sigma, theta : float, default=1.0
        The semimetric's parameters (the eigengap needs ``alpha <= 1``).
    sample_weight : array-like of shape (n_samples,), default=None
        Non-negative weights; integer weights act as repeated rows. A row of weight 0 is
        left out of the choice and labelled by the chosen fit's ``predict``.
    n_neighbors : int, default=10
        Neighbours of each point in the neighbourhood graph: the graph's rule, and the
        energy rule's tight groups apart (of at most this many points).
    n_init : int, default=5
        Kernel k-means++ starts of every fit.
    engine : {"auto", "dense", "matrix-free", "low-rank"}, default="auto"
        The engine of every fit; ``"auto"``: the dense engine where the n x n matrix of rho
        fits in a quarter of the memory.
    rule : {"firstSEmax", "Tibs2001SEmax", "globalSEmax", "firstmax", "globalmax"}, default=None
        ``"gap"``: its decision rule (None: ``"firstSEmax"``, R's default).
    se_factor : float, default=1.0
        ``"gap"``: standard errors allowed by the ``*SEmax`` rules.
    cutoff : float, default=0.8
        ``"prediction_strength"``: the strength a partition needs.
    n_refs : int, default=10
        Reference samples of the gap statistic and of the default's structure test.
    reference : {"pca", "box", "moments"}, default="pca"
        References uniform over X's box in its principal axes (the paper's (b)) or in its
        coordinates (a), or uniform with its mean and covariance.
    n_splits : int, default=20
        ``"prediction_strength"``: random halvings.
    random_state : int, RandomState instance or None, default=None
        Seeds the named methods' draws (not the default's).

    Returns
    -------
    result : ChooseKResult
        ``k``, ``trace`` and ``reasoning`` (the decisions, in words), the curves, the labels
        of the fit with the chosen k, and ``plot()``.

    Raises
    ------
    kgroups.exceptions.InvalidParameterError
        Bad parameters, a k_range the data cannot support, or an eigengap the kernel does
        not allow.

    Warns
    -----
    kgroups.exceptions.KRangeWarning
        The default answered the largest k of ``k_range`` before its rule decided.

    See Also
    --------
    ChooseKResult : The result, its curves, trace and plot.
    KernelKGroups : ``n_clusters="auto"`` makes this choice inside ``fit``.

    References
    ----------
    .. [1] R. Tibshirani, G. Walther and T. Hastie, "Estimating the number of clusters in a
       data set via the gap statistic", J. R. Statist. Soc. B 63(2), 411-423, 2001.
    .. [2] R. Tibshirani and G. Walther, "Cluster validation by prediction strength", J.
       Comput. Graph. Statist. 14(3), 511-528, 2005.
    .. [3] P. J. Rousseeuw, "Silhouettes: a graphical aid to the interpretation and
       validation of cluster analysis", J. Comput. Appl. Math. 20, 53-65, 1987.
    .. [4] J. A. Hartigan and P. M. Hartigan, "The dip test of unimodality", Ann. Statist.
       13(1), 70-84, 1985.

    Examples
    --------
    Three blobs; two parallel elongated clusters, which show only along the short principal
    axis; one elongated Gaussian, which has no clusters:

    >>> import numpy as np
    >>> from kgroups import choose_k
    >>> rng = np.random.default_rng(0)
    >>> X = np.vstack([rng.normal(c, 0.5, (40, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    >>> r = choose_k(X, range(1, 7))
    >>> r.k, r.geometry, [s.step for s in r.trace.steps]
    (3, 'data', ['structure', 'silhouette', 'split'])
    >>> choose_k(X, range(1, 7), method="gap", rule="Tibs2001SEmax", random_state=0).k
    3
    >>> cigars = np.vstack([rng.normal(size=(100, 2)) * [6, 0.5] + [0, 4 * j] for j in (0, 1)])
    >>> r = choose_k(cigars, range(1, 11), n_refs=5)
    >>> r.k, r.geometry
    (2, 'multimodal axes')
    >>> choose_k(rng.normal(size=(200, 2)) * [3, 1], range(1, 5)).k
    1
    """
    X = check_data(X, "X", "choose_k", allow_1d=True, min_samples=2)
    w = check_sample_weight(sample_weight, X.shape[0], "choose_k", allow_zero=True)
    X_all, pos = X, w > 0  # a zero weight removes a row: out of the choice, labelled by predict
    if removed := not pos.all():
        X, w = X[pos], w[pos]
    if X.shape[0] < 2:
        raise InvalidParameterError(f"choose_k: sample_weight leaves {X.shape[0]} row of "
                                    "positive weight; the choice needs 2 at least")
    if method != "auto" and semimetric in ("nearest_neighbors", "auto"):
        raise InvalidParameterError(f"choose_k: semimetric={semimetric!r} has a rule of its "
                                    f"own (method='auto'); got method={method!r}")
    if rule is not None and method != "gap":
        raise InvalidParameterError(f"choose_k: rule={rule!r} applies to method='gap' only; "
                                    f"got method={method!r} (leave rule=None)")
    distinct = choice_rows(X, w)
    ks = check_k_range(k_range, method, semimetric, X.shape[0], distinct[0].size,
                       "{} samples of positive weight" if removed else "n_samples={}")
    setting = Setting(semimetric=semimetric, alpha=alpha, sigma=sigma, theta=theta,
                      n_neighbors=n_neighbors, n_init=n_init, engine=engine)
    opts = {"n_refs": n_refs, "reference": reference, "n_splits": n_splits, "rule": rule,
            "se_factor": se_factor, "cutoff": cutoff, "distinct": distinct}
    r = run_choice(X, w, ks, method, setting, opts, random_state, refit=True)
    if removed:
        with_removed_rows(r, X_all, pos, w, setting)
    if r.at_top:  # the default answered the top of the range before its rule decided
        warnings.warn(f"choose_k: {r.top_note}", KRangeWarning, stacklevel=user_stacklevel())
    return r
