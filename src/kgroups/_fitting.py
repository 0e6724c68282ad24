"""What kernel k-groups and kernel k-means share: the parameters, ``fit`` and its
fitted attributes, each step of a fit handed to the module whose role it is, without
scikit-learn's estimator machinery (:mod:`kgroups._base` adds it).

``fit`` checks the data of any kind and the parameters at the front door
(:func:`kgroups._input.fit_data`), builds the engine once (restarts share it,
:func:`kgroups._engines.build.build_engine`), makes the starts
(:mod:`kgroups._starts`) and hands them to the one run loop
(:func:`kgroups._driver.run_starts`) with its move rule (``_rule``): Hartigan's for
kernel k-groups, Lloyd's for kernel k-means.

:class:`CommandLineKGroups` is kernel k-groups on this class alone: the same
parameters, checks and fit as :class:`kgroups.KernelKGroups`, for the command line,
which then clusters without importing scikit-learn (about two thirds of its start-up).
"""

from __future__ import annotations

import functools
import inspect
from typing import NamedTuple

import numpy as np

from ._driver import run_starts
from ._engines.build import EngineRequest, array_kind_of, build_engine, engine_summary
from ._engines.engine import TRIMMED_RULES
from ._init import SAMPLE_N_INIT, resolve_n_init
from ._input import fit_data, input_kind, label_left_out, left_out_rows, n_rows
from ._kernels.jit import tiered
from ._progress import FitProgress, clocked
from ._semimetrics import DATA_BUILT
from ._semimetrics.prepare import objective_unit, origin_gram, scaled_params
from ._starts import given_starts, init_name, named_starts
from ._placement import insertion_costs, insertion_scores
from ._validation import PARAMETER_CONSTRAINTS, ConstrainedParams, InvalidParameterError

# The value of ``semimetric`` that chooses it from the data (kgroups._semimetrics.auto).
AUTO = "auto"
# The fitted attributes of a fit with ``noise`` (kgroups._noise), removed by a refit
# without it.
NOISE_ATTRIBUTES = ("n_noise_", "noise_weight_", "noise_threshold_", "noise_share_",
                    "noise_reasoning_")


def fit_work(n_samples, n_clusters, n_starts):
    """A fit's work in :func:`kgroups._kernels.jit.tiered`'s count: ``n^2`` (the kernel
    matrix, the starts' ``M`` in one pass) plus ``n_starts k n`` (each start's seeding
    and sweeps, O(k n) each); infinite when ``n_samples`` is not known (None)."""
    if n_samples is None:
        return float("inf")
    return n_samples * n_samples + n_starts * n_clusters * n_samples


class Plan(NamedTuple):
    """What one fit runs: the number of clusters, the semimetric, the start and the
    engine, as the parameters give them (:meth:`of`), or as a choice fixed them
    (``n_clusters="auto"``, ``semimetric="auto"``: the chosen k and semimetric, from the
    choice's labels, on the engine asked for where it runs that semimetric)."""

    n_clusters: int
    semimetric: object
    init: object
    n_init: object
    engine: str

    @classmethod
    def of(cls, est):
        """The plan of ``est``'s own parameters."""
        return cls(est.n_clusters, est.semimetric, est.init, est.n_init, est.engine)


class KernelClusteringFit(ConstrainedParams):
    """The parameters, ``fit`` and the fitted attributes of :class:`KernelKGroups` and
    :class:`KernelKMeans` (:class:`kgroups._base.BaseKernelClustering` adds
    scikit-learn's estimator machinery and the methods on new points)."""

    _parameter_constraints = PARAMETER_CONSTRAINTS["KernelKGroups"]

    def __init__(
        self,
        n_clusters=8,
        *,
        semimetric="energy",
        alpha=1.0,
        sigma=1.0,
        theta=1.0,
        kernel=None,
        init="kernel-k-means++",
        n_init="auto",
        max_iter=300,
        tol=0.0,
        engine="auto",
        dtype="auto",
        n_components=256,
        landmarks="k-means++",
        n_neighbors=10,
        noise=None,
        random_state=None,
        verbose=0,
    ):
        self.n_clusters = n_clusters
        self.semimetric = semimetric
        self.alpha = alpha
        self.sigma = sigma
        self.theta = theta
        self.kernel = kernel
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.engine = engine
        self.dtype = dtype
        self.n_components = n_components  # engine="low-rank": number of features m
        self.landmarks = landmarks  # engine="low-rank": "k-means++", "uniform" or "fourier"
        self.n_neighbors = n_neighbors  # semimetric="nearest_neighbors" (and "auto")
        self.noise = noise  # the share of the weight that may be set aside (label -1)
        self.random_state = random_state
        self.verbose = verbose

    # -- the semimetric in use ----------------------------------------------
    def _precomputed(self):
        return self.kernel == "precomputed" or self.semimetric == "precomputed"

    def _semimetric_in_use(self):
        """``semimetric``, or after a fit with ``semimetric="auto"`` the one it chose."""
        return self.__dict__.get("semimetric_", self.semimetric)

    def _data_built(self):
        """Whether the semimetric in use is built from the data (its kernel is feature
        columns, :mod:`kgroups._semimetrics.neighbors`)."""
        return self._semimetric_in_use() in DATA_BUILT and not self.kernel == "precomputed"

    def _closed_form(self):
        """Whether the kernel is that of a named closed-form semimetric of raw data."""
        return not (self._precomputed() or callable(self._semimetric_in_use())
                    or self._data_built())

    def _params(self):
        """Semimetric parameters in the units of the (possibly rescaled) data."""
        return scaled_params(self.alpha, self.sigma, self.theta, getattr(self, "_scale", 1.0))

    def _objective_unit(self):
        """Factor from the engine's Q (rescaled data) to Q in the data's units."""
        return objective_unit(self._semimetric_in_use(), self.alpha, self._scale,
                              self._precomputed())

    # -- fit --------------------------------------------------------------
    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X``; keep the best of ``n_init`` runs (highest objective).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data, or a semimetric/Gram matrix when ``semimetric="precomputed"`` /
            ``kernel="precomputed"``; raw data may be a ``dask.array.Array`` or dask
            DataFrame (``engine="dask"``).
        y : None
            Ignored; present for compatibility with scikit-learn.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights >= 0, some > 0; integer weights are equivalent to repeated rows,
            and a zero weight to a removed row (its label is the one
            :meth:`predict` gives it).

        Returns
        -------
        self : object
            The fitted estimator.

        See Also
        --------
        fit_predict : Fit and return the labels.
        predict : Labels of new points.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, Algorithm 1 (kernel
           k-means) and Algorithm 2 (kernel k-groups).

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> est = KernelKGroups(n_clusters=2, random_state=0).fit(X)
        >>> est.labels_.tolist(), round(float(est.within_energy_), 4)
        ([0, 0, 0, 1, 1, 1], 2.2761)
        """
        self._validate_params()  # before anything reads them
        if isinstance(self.n_clusters, str) and self.n_clusters == "auto":
            from ._choose_k.estimator import fit_choosing_k

            return fit_choosing_k(self, X, sample_weight)
        return self._fit(X, sample_weight)

    def _fit(self, X, sample_weight, plan=None, rescaling=None, **fixed):
        """The fit of ``plan`` (default: the parameters) with the fields ``fixed`` that a
        choice fixed (the chosen k, the chosen semimetric, the labels to start from), on
        this estimator: the fitted attributes are those of an ordinary fit of the plan.
        With ``rescaling`` (a :class:`~kgroups._rescale.Rescaling`, where the choice
        found k), the fit of X's image under it: X's columns stay those the estimator
        takes, and :meth:`predict`, :meth:`transform` and :meth:`score` map new rows."""
        if rescaling is not None:  # X (in memory or dask) checked, its names kept
            rows, _ = input_kind(X, sample_weight).check_fit(self, X, precomputed=False)
            seen = {a: getattr(self, a) for a in ("n_features_in_", "feature_names_in_")
                    if hasattr(self, a)}
            self._fit(rescaling(rows), sample_weight, plan, **fixed)
            for name, v in {**seen, "_rescaling": rescaling}.items():
                setattr(self, name, v)
            return self
        plan = (Plan.of(self) if plan is None else plan)._replace(**fixed)
        n = n_rows(X)
        starts = 1 if n is None else resolve_n_init(plan.n_init, plan.init, n)
        with tiered(fit_work(n, plan.n_clusters, starts)):  # tiny fits skip loading numba
            if plan.semimetric == AUTO and not self._precomputed():
                from ._choose_k.at_k import fit_auto

                return fit_auto(self, X, sample_weight, plan)
            return self._fit_plan(X, sample_weight, plan)

    def _fit_plan(self, X, sample_weight, plan):
        self.semimetric_, self.semimetric_choice_ = plan.semimetric, None
        self._rescaling = None  # new rows are taken as they come (see _fit)
        seconds = {}
        # the bar from the start: preparing an engine can take longer than its sweeps
        progress = FitProgress(self._owner(), 1, self.verbose)
        try:
            with clocked(seconds, "prepare"), progress.waiting("preparing the engine"):
                X, w, engine, kind, left_out = self._prepare(X, sample_weight, plan)
            # given labels (one start, or one per row) checked before anything uses them
            given = given_starts(plan.init, engine, self._keep, plan.n_clusters,
                                 self._owner(), noise=self.noise is not None)
            n_init = len(given) if given is not None else self._n_init
            progress.runs(n_init)
            if self.verbose:
                about = engine_summary(engine, X, self._engine_why, n_clusters=plan.n_clusters,
                                       n_init=n_init, dtype=self.dtype,
                                       n_components=self.n_components)
                progress.say(f"{about}; n_init={n_init} (n_init={plan.n_init!r}, "
                             f"init={init_name(plan.init)})")
            with clocked(seconds, "init"):
                starts = given if given is not None else self._starts(X, w, engine, kind,
                                                                      n_init, progress, plan)
            best, engine, share = self._run(engine, starts, plan.n_clusters, progress, seconds)
            report = engine.report()  # the certified float32 pass: its float64 fall-backs
            if self.verbose and report:
                progress.say(report)
        finally:
            progress.close()
        self._set_fitted(best, engine, X, w, plan)
        self._warn_distinct_rows(X)
        self.labels_ = label_left_out(best.labels, self._keep, left_out, self._predictor,
                                      self._scores, self._s, self._q, self._noise_rule())
        if share is not None:
            from ._noise import set_noise_attributes

            set_noise_attributes(self, best, share)
        self.n_init_ = n_init
        self.engine_stats_ = {"seconds": seconds, **engine.counters()}
        if self._data_built():  # the phases of "prepare" that built the semimetric
            self.engine_stats_["semimetric seconds"] = dict(self._feature_map.seconds)
        return self

    def _run(self, engine, starts, n_clusters, progress, seconds):
        """``(best, runs, share)``: the best run of ``starts`` by the one driver with this
        estimator's move rule, the run interface that ran it and, with ``noise``, the
        share set aside (:func:`kgroups._noise.run_fit`, imported only then; None
        without)."""
        driver = {"max_iter": self.max_iter, "tol": self.tol, "progress": progress,
                  "owner": self._owner(), "seconds": seconds}
        if self.noise is None:
            return run_starts(engine, starts, n_clusters, rule=self._rule, **driver), engine, None
        from ._noise import run_fit

        return run_fit(self, engine, starts, n_clusters, **driver)

    def _noise_rule(self):
        """``(costs, threshold)`` by which ``predict`` sets a new point aside (-1) after
        a fit with ``noise`` that set points aside (:func:`kgroups._placement.place`),
        else None."""
        threshold = self.__dict__.get("_noise_threshold")
        if threshold is None or not np.isfinite(threshold):
            return None
        return type(self)._noise_cost, threshold

    def _prepare(self, X, sample_weight, plan=None):
        """Validated data, weights and the engine of ``plan`` (default: the parameters'):
        the one way from input to an engine, for every kind of input. Returns ``(X, w,
        engine, kind, left_out)``: the data and weights the engine holds, the input's
        kind and the zero-weight rows (:func:`~kgroups._input.left_out_rows`)."""
        plan = Plan.of(self) if plan is None else plan
        data = fit_data(self, X, sample_weight, kernel=self.kernel, semimetric=plan.semimetric,
                        n_clusters=plan.n_clusters, dtype=self.dtype,
                        engine_input=array_kind_of(plan.engine), features=self._data_built(),
                        validate=self._validate_params)
        self._keep, self._wscale = data.keep, data.wscale
        # noise judges a semimetric built from the data in the input space
        # (kgroups._noise.run_fit): its rows, kept for the fit only
        self._input_rows = (data.X, data.w) if self.noise is not None and \
            self._data_built() else None
        built = build_engine(data.X, data.w, data.kind, self._engine_request(plan),
                             data.row_chunks)
        self._scale, self._n_init, self._engine_why = built.scale, built.n_init, built.why
        if built.feature_map is not None:
            self._feature_map = built.feature_map
        return built.X, built.w, built.engine, data.kind, left_out_rows(
            data.X_all, data.keep, self._precomputed(), self.kernel == "precomputed", built.scale)

    def _engine_request(self, plan):
        """The parameters that build the engine of ``plan``, as plain values."""
        # with noise the trimmed form of the rule (engines that cannot run it refuse)
        rule = self._rule if self.noise is None else TRIMMED_RULES[self._rule]
        return EngineRequest.of(self, engine=plan.engine, semimetric=plan.semimetric,
                                n_clusters=plan.n_clusters, init=plan.init,
                                n_starts=functools.partial(resolve_n_init, plan.n_init,
                                                           plan.init),
                                rule=rule, features=self._data_built(), owner=self._owner())

    def _starts(self, X, w, engine, kind, n_init, progress, plan):
        """``n_init`` starts of ``plan``'s named ``init``
        (:func:`~kgroups._starts.named_starts`); the sample start is this estimator's
        fit of a sample (:meth:`_fit_sample`)."""
        def fit_sample(Xs, ws, seed):
            return self._fit_sample(Xs, ws, seed, progress, plan)

        gram = origin_gram(X, engine.gram, plan.semimetric if self._closed_form() else None,
                           self._params())
        return named_starts(plan.init, engine, X, w, kind, n_clusters=plan.n_clusters,
                            n_init=n_init, random_state=self.random_state,
                            input_space=not (self._precomputed() or self._data_built()),
                            gram=gram, fit_sample=fit_sample, semimetric=plan.semimetric)

    def _fit_sample(self, Xs, ws, seed, progress, plan):
        """Labels of this estimator's fit on a sample (the sample start of
        :mod:`kgroups._init`): ``SAMPLE_N_INIT`` starts, the engine ``"auto"``
        picks for the sample; ``progress`` says when it starts and ends."""
        from sklearn.base import clone

        progress.say(f"start: exact fit of a {Xs.shape[0]}-point sample ({SAMPLE_N_INIT} "
                     f"starts), then every point to the nearest mean "
                     f"({progress.elapsed():.2f} s)")
        est = clone(self).set_params(n_clusters=plan.n_clusters, semimetric=plan.semimetric,
                                     n_init=SAMPLE_N_INIT, engine="auto", random_state=seed,
                                     verbose=0)
        labels = est.fit(Xs, sample_weight=ws).labels_
        progress.say(f"start: sample fit done, W = {est.within_energy_:.6g} "
                     f"({progress.elapsed():.2f} s)")
        return labels

    def _set_fitted(self, best, engine, X, w, plan):
        k = self.n_clusters_ = plan.n_clusters
        self.labels_ = best.labels
        # W = sum_i w_i K_ii - Q for the semimetric the kernel induces (every kernel
        # of the family gives Q up to a constant); K = -rho/2 has a zero diagonal, so
        # there W = -Q. A trimmed run's objective is -W of its kept points already.
        trace = float((engine.diag / w).sum()) \
            if self.kernel == "precomputed" and not best.trimmed else 0.0
        self._set_objective(best, trace)
        self.cluster_weights_ = best.s * self._wscale
        self._s = best.s  # in the engine's units of weight, as _q, for predict
        self.engine_ = engine.name
        self._q = best.q
        self._n_features_out = k  # transform's columns (get_feature_names_out)
        # what predict needs from the engine that ran (any engine, one interface)
        self._predictor = engine.predictor(X, best)
        # with noise: the threshold by which predict sets new points aside
        self.__dict__.pop("_noise_threshold", None)
        for name in NOISE_ATTRIBUTES:
            self.__dict__.pop(name, None)
        if self.noise is not None:
            self._noise_threshold = float(getattr(best, "threshold", np.inf))

    def _warn_distinct_rows(self, X):
        """A :class:`~kgroups.exceptions.DistinctRowsWarning` when the fit has W = 0
        because the rows of positive weight (``X``, as the engine holds them: in-memory
        rows or a precomputed matrix) have fewer distinct values than clusters, as
        scikit-learn's ``KMeans`` warns. Counted only when W = 0 (the symptom), and not
        for a semimetric built from the data (its rows are not the user's points)."""
        k = self.n_clusters_
        if k < 2 or self.within_energy_ != 0.0 or self._data_built() \
                or not isinstance(X, np.ndarray):
            return
        distinct = np.unique(X, axis=0).shape[0]
        if distinct < k:
            import warnings

            from ._errors import user_stacklevel
            from .exceptions import DistinctRowsWarning

            warnings.warn(
                f"{self._owner()}: n_clusters={k} but X has {distinct} distinct row(s) of "
                f"positive weight: {k - distinct} cluster(s) repeat the points of another "
                f"and W = 0; use n_clusters <= {distinct}", DistinctRowsWarning,
                stacklevel=user_stacklevel())

    def _set_objective(self, best, trace):
        """``objective_``, ``within_energy_``, ``n_iter_`` and ``n_moves_`` of the best
        run, in the data's units; a clear error when they are not finite there."""
        # Q and W are linear in the weights, which the engine holds divided by _wscale
        unit = self._objective_unit() * self._wscale
        self.objective_ = float(best.objective) * unit
        self.within_energy_ = (trace - float(best.objective)) * unit
        if not (np.isfinite(self.objective_) and np.isfinite(self.within_energy_)):
            weights = " or sample_weight" if self._wscale != 1.0 else ""  # W is linear in them
            raise InvalidParameterError(
                f"{self._owner()}: the objective of the partition found is beyond the "
                f"float64 range in the units of X (Q={self.objective_!r}, "
                f"W={self.within_energy_!r}); divide X{weights} by a constant")
        self.n_iter_ = best.n_iter
        self.n_moves_ = list(best.n_moves)

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit ``X`` and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data, or a semimetric/Gram matrix when ``semimetric="precomputed"`` /
            ``kernel="precomputed"``.
        y : None
            Ignored; present for compatibility with scikit-learn.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights >= 0, some > 0; integer weights are equivalent to repeated rows,
            and a zero weight to a removed row (its label is the one
            :meth:`predict` gives it).

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster of each point, in ``[0, n_clusters)``, or -1 for a point set
            aside (``noise``).

        See Also
        --------
        fit : Fit without returning the labels.
        predict : Labels of new points.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, Algorithms 1 and 2.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> KernelKGroups(n_clusters=2, random_state=0).fit_predict(X).tolist()
        [0, 0, 0, 1, 1, 1]
        """
        return self.fit(X, sample_weight=sample_weight).labels_


class CommandLineKGroups(KernelClusteringFit):
    """Kernel k-groups for the command line: :class:`kgroups.KernelKGroups`'s
    parameters, checks and fit (the same code, the same results), without
    scikit-learn's estimator machinery, so that ``kgroups cluster`` does not import
    scikit-learn. Its errors name ``KernelKGroups``, the class the options document."""

    _rule = "hartigan"  # paper Algorithm 2 (kgroups._driver)
    _scores = staticmethod(insertion_scores)  # the zero-weight rows' labels
    _noise_cost = staticmethod(insertion_costs)  # with noise: their cost of insertion
    _sklearn_free = True  # kgroups._input checks its rows without scikit-learn

    def _owner(self):
        return "KernelKGroups"

    def get_params(self, deep=True):
        """The parameters, as scikit-learn's ``get_params`` gives them."""
        names = inspect.signature(KernelClusteringFit.__init__).parameters
        return {name: getattr(self, name) for name in names if name != "self"}

    def set_params(self, **params):
        """Set parameters by name (as scikit-learn's ``set_params``); returns self."""
        for name, value in params.items():
            if name not in self.get_params():
                raise InvalidParameterError(
                    f"{self._owner()}: no parameter {name!r}; the parameters are "
                    f"{sorted(self.get_params())}")
            setattr(self, name, value)
        return self
