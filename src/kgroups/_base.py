"""What kernel k-groups and kernel k-means share: validation, the engine, the starts,
``predict``, ``transform`` and ``score``.

The estimator layer (this module and its subclasses) validates the data of any
kind (:mod:`kgroups._input`: in memory or dask), builds the engine once per
``fit`` (restarts share it, :mod:`kgroups._engines`), makes the starts
(:mod:`kgroups._init`) and hands them to the one run loop
(:func:`kgroups._driver.run_starts`) with its move rule (``_rule``): Hartigan's for
kernel k-groups, Lloyd's for kernel k-means.
"""

from __future__ import annotations

import functools

import numpy as np
import scipy.sparse as sp
from sklearn.base import (BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin,
                          TransformerMixin)
from sklearn.utils.validation import check_is_fitted

from ._auto_fit import fit_auto
from ._engines import registry
from ._engines.select import check_engine_input, choose_engine
from ._memory import available_memory, check_fits
from ._driver import clocked, run_starts
from ._kernels.jit import tiered
from ._init import SAMPLE_N_INIT, initial_labels, resolve_n_init
from ._input import input_kind, kept_starts, label_left_out, left_out_rows, positive_rows
from ._kernels.device import host_values
from ._progress import FitProgress
from ._semimetrics import rho_to_origin
from ._semimetrics.neighbors import DATA_BUILT, NeighborGraphMap
from ._validation import (
    PARAMETER_CONSTRAINTS,
    ConstrainedParams,
    InvalidParameterError,
    check_in_memory,
    check_n_clusters,
    check_precomputed,
    as_seed,
    check_sample_weight,
    pow2_scale,
)

# Raw data whose largest |entry| lies outside _validation.SAFE_MAGNITUDE are rescaled
# by a power of two for the semimetrics whose partitions do not depend on scale.
SCALE_FREE = ("energy", "gaussian", "laplacian", "nearest_neighbors")
# The value of ``semimetric`` that chooses it from the data (kgroups._semimetrics.auto).
AUTO = "auto"


def n_rows(X):
    """The number of rows of ``X``, or None when it does not say so cheaply (a dask
    collection of unknown chunks, an object without a length)."""
    shape = getattr(X, "shape", None)
    try:
        return int(shape[0] if shape is not None else len(X))
    except (TypeError, ValueError, IndexError):
        return None


def fit_work(n_samples, n_clusters, n_starts):
    """A fit's work in :func:`kgroups._kernels.jit.tiered`'s count: ``n^2`` (the kernel
    matrix, the starts' ``M`` in one pass) plus ``n_starts k n`` (each start's seeding
    and sweeps, O(k n) each); infinite when ``n_samples`` is not known (None)."""
    if n_samples is None:
        return float("inf")
    return n_samples * n_samples + n_starts * n_clusters * n_samples


def insertion_scores(m, kxx, s, q):
    """Gain in Q of inserting each new point (weight 1) into each cluster:
    ``(q_l + 2 m_l + K(x, x)) / (s_l + 1) - q_l / s_l``, ``-inf`` for an empty cluster."""
    empty = s <= 0
    mean_q = np.where(empty, 0.0, q / np.where(empty, 1.0, s))
    kxx = np.reshape(kxx, (-1, 1))
    gain = (q + 2.0 * m + kxx) / (s + 1.0) - mean_q
    gain[:, empty] = -np.inf
    return gain


def nearest_mean_scores(m, kxx, s, q):
    """Minus the squared feature distance to each weighted mean, up to ``K(x, x)``:
    ``2 m_l / s_l - q_l / s_l^2``, ``-inf`` for an empty cluster (``K(x, x)`` unused)."""
    empty = s <= 0
    safe = np.where(empty, 1.0, s)
    score = 2.0 * m / safe - q / (safe * safe)
    score[:, empty] = -np.inf
    return score


def mean_distances(m, kxx, s, q):
    """Squared kernel-space distance to each weighted cluster mean (engine units):
    ``K(x, x) - 2 m_l / s_l + q_l / s_l^2``, negatives clipped at 0, ``inf`` for an
    empty cluster (never after a fit: ``labels_`` has no empty cluster)."""
    empty = s <= 0
    safe = np.where(empty, 1.0, s)
    d = np.reshape(kxx, (-1, 1)) - 2.0 * m / safe + q / (safe * safe)
    np.maximum(d, 0.0, out=d)
    d[:, empty] = np.inf
    return d


def per_cluster(X, predictor, s, q, scores):
    """``scores(m, kxx, s, q)`` for every row of ``X`` and cluster, ``m`` and
    ``kxx`` from the fitted engine's predictor, block by block (its ``block_rows``):
    the one way from new rows to ``predict``'s and ``transform``'s numbers."""
    out = np.empty((X.shape[0], s.shape[0]))
    step = predictor.block_rows or max(X.shape[0], 1)
    for start in range(0, X.shape[0], step):
        m, kxx = predictor.cross_sums(X[start:start + step])
        out[start:start + m.shape[0]] = scores(m, kxx, s, q)
    return out


def predict_rows(X, predictor, s, q, scores):
    """The cluster of best score of every row of ``X`` (see :func:`per_cluster`)."""
    return np.argmax(per_cluster(X, predictor, s, q, scores), axis=1).astype(np.int64)


def transform_rows(X, predictor, s, q, unit):
    """:func:`mean_distances` of every row of ``X``, in the data's units (``unit``)."""
    return per_cluster(X, predictor, s, q, mean_distances) * unit


class BaseKernelClustering(ConstrainedParams, ClassNamePrefixFeaturesOutMixin, TransformerMixin,
                           ClusterMixin, BaseEstimator):
    """Common parameters and machinery; see :class:`KernelKGroups`.

    The mixins are those of scikit-learn's ``KMeans`` (same order): a clusterer
    whose ``transform`` gives one column per cluster, named ``<classname>0`` ...
    ``<classname>{k-1}`` by ``get_feature_names_out``, with ``set_output``.
    """

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
        dtype="float64",
        n_components=256,
        landmarks="k-means++",
        n_neighbors=10,
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
        self.random_state = random_state
        self.verbose = verbose

    # -- validation -------------------------------------------------------
    def _owner(self):
        return type(self).__name__

    def _params(self):
        """Semimetric parameters in the units of the (possibly rescaled) data."""
        scale = getattr(self, "_scale", 1.0)
        return {"alpha": self.alpha, "sigma": self.sigma * scale, "theta": self.theta}

    def _scale_for(self, big):
        """The power of two data whose largest |entry| is ``big`` are multiplied by, or
        a clear error for a semimetric that is not scale-free.

        ``||x - y||^alpha`` is homogeneous of degree alpha and the Gaussian and
        Laplacian semimetrics depend on ``||x - y|| / sigma`` only, so their
        partitions do not depend on a global scale: data whose largest entry lies
        outside :data:`~kgroups._validation.SAFE_MAGNITUDE` are multiplied by an
        exact power of two (sigma too), and W is reported in the data's units. The
        other semimetrics are not scale-free: such data get a clear error instead of
        NaN.
        """
        if self._precomputed() or callable(self.semimetric) or pow2_scale(big) == 1.0:
            return 1.0
        if self.semimetric not in SCALE_FREE:
            raise InvalidParameterError(
                f"{self._owner()}: X has entries of magnitude {big:.3g}, whose distances "
                f"overflow or underflow float64, and semimetric={self.semimetric!r} is not "
                f"scale-free; rescale X (semimetrics {SCALE_FREE} are rescaled automatically)")
        # the reciprocal of a subnormal power of two overflows: 2**1000 brings any
        # subnormal magnitude (>= 2**-1074) to at least 2**-74, inside the safe range
        return min(1.0 / pow2_scale(big), 2.0 ** 1000)

    def _objective_unit(self):
        """Factor from the engine's Q (rescaled data) to Q in the data's units."""
        if self._semimetric_in_use() == "energy" and not self._precomputed():
            with np.errstate(over="ignore"):  # inf here is reported by _set_fitted
                return float(np.power(np.float64(self._scale), -float(self.alpha)))
        return 1.0

    def _precomputed(self):
        return self.kernel == "precomputed" or self.semimetric == "precomputed"

    def _data_built(self):
        """Whether the semimetric in use is built from the data (its kernel is feature
        columns, :mod:`kgroups._semimetrics.neighbors`)."""
        return self._semimetric_in_use() in DATA_BUILT and not self.kernel == "precomputed"

    def _semimetric_in_use(self):
        """``semimetric``, or after a fit with ``semimetric="auto"`` the one it chose."""
        return self.__dict__.get("semimetric_", self.semimetric)

    def _closed_form(self):
        """Whether the kernel is that of a named closed-form semimetric of raw data."""
        return not (self._precomputed() or callable(self.semimetric) or self._data_built())

    def _check_params(self, n_samples):
        owner = self._owner()
        self._validate_params()
        check_n_clusters(self.n_clusters, n_samples, owner)
        if self.kernel == "precomputed" and self.semimetric == "precomputed":
            raise InvalidParameterError(
                f"{owner}: kernel='precomputed' and semimetric='precomputed' contradict each "
                "other: X is either a Gram matrix (kernel='precomputed', semimetric ignored) "
                "or a semimetric matrix (semimetric='precomputed', kernel=None)")

    def _build_engine(self, X, w, kind, row_chunks=None):
        """The engine for this fit, through the engines' one interface (no branch on
        the engine's name): chosen (``engine="auto"``: by the input's kind and a cost
        model), checked against the input, laid out, built after its memory estimate
        was checked. Returns the (laid out, rescaled) data, the weights and the engine;
        ``row_chunks``: the rows' chunks of the caller's data, those of the labels.
        """
        dtype, k, sparse_input = np.dtype(self.dtype), self.n_clusters, sp.issparse(X)
        n, d = X.shape
        if self._data_built() and kind.name != "numpy":
            what = {"dask": "a dask collection", "cuda": "an array on a CUDA device"}.get(
                kind.name, f"{kind.name} data")
            raise InvalidParameterError(
                f"{self._owner()}: semimetric={self.semimetric!r} builds the neighbourhood "
                f"graph of X in memory, and X is {what}; pass a NumPy array (X.compute() "
                "for dask, X.get() for CuPy), or use semimetric='energy', which takes it")
        cls, why = choose_engine(self.engine, n, self._precomputed(), sparse_input, dtype,
                                 semimetric=self.semimetric, n_features=d, n_clusters=k,
                                 n_init=resolve_n_init(self.n_init, self.init, n),
                                 input_kind=kind.name, owner=self._owner(),
                                 options={"n_components": self.n_components},
                                 features=self._data_built())
        check_engine_input(cls.name, n, kernel=self.kernel, semimetric=self.semimetric,
                           sparse_input=sparse_input, n_clusters=k,
                           n_components=self.n_components, landmarks=self.landmarks,
                           owner=self._owner(), init=self.init, rule=self._rule)
        self._engine_why = why
        self._n_init = resolve_n_init(self.n_init, self.init, n, cls.max_auto_starts)
        options = {"n_components": self.n_components, "landmarks": self.landmarks,
                   "random_state": self.random_state, "owner": self._owner(),
                   "out_chunks": row_chunks}
        X, w = cls.layout(X, w, n_clusters=k, options=options)
        self._scale, center = 1.0, None
        if not (self._precomputed() or callable(self.semimetric)):
            big, center = kind.summary(X, w, self._owner())
            self._scale = self._scale_for(big)
        if self._scale != 1.0:
            X = X * self._scale
            center = None if center is None else center * self._scale
        try:
            if self._precomputed():
                return X, w, cls.from_matrix(X, w, is_gram=self.kernel == "precomputed",
                                             dtype=dtype, n_clusters=k, n_init=self._n_init)
            if self._data_built():
                fmap = NeighborGraphMap.fit(X, w, n_neighbors=self.n_neighbors, n_clusters=k,
                                            random_state=as_seed(self.random_state),
                                            owner=self._owner())
                self._feature_map = fmap
                return X, w, cls.from_features(fmap.features, w, fmap, n_clusters=k,
                                               n_init=self._n_init)
            return X, w, cls.from_semimetric(X, w, self.semimetric, self._params(),
                                             dtype=dtype, n_clusters=k, n_init=self._n_init,
                                             options={**options, "center": center})
        except MemoryError:  # the estimate fitted, the allocation did not
            raise ValueError(
                f"{self._owner()}: out of memory while building engine={cls.name!r} for "
                f"n_samples={n}, n_clusters={k} (available now: "
                f"{available_memory() / 2**30:.2f} GiB); use fewer samples, dtype='float32', "
                "or engine='low-rank' on raw data") from None

    def _kernel_rows(self, X):
        """``(rows, semimetric, params)`` whose closed-form semimetric gives the kernel
        of the fit: X itself, or for a semimetric built from the data the rows'
        features with ``||e - e'||^2`` (energy, alpha = 2), its definition."""
        if self._data_built():
            return self._feature_map(X), "energy", {"alpha": 2.0}
        return X, self._semimetric_in_use(), self._params()

    def _spectral_gram_fn(self, X, engine):
        """The paper's ``x0 = 0`` Gram matrix for the spectral initialiser."""
        def gram():
            n = X.shape[0]
            check_fits(16 * n * n, f"the spectral initialisation for n={n}",
                       "init='k-means++'")
            K = engine.gram()
            if not self._closed_form():
                return K
            r0 = rho_to_origin(X, self.semimetric, **self._params())
            return K + 0.5 * (r0[:, None] + r0[None, :])
        return gram

    # -- fit --------------------------------------------------------------
    def _prepare(self, X, sample_weight):
        """Validated data, weights and the engine: the one way from input to an engine,
        for every kind of input."""
        kind = input_kind(X, sample_weight, self._engine_input())
        X, row_chunks = kind.check_fit(self, X, self._precomputed())
        if self._precomputed():
            kindname = "gram" if self.kernel == "precomputed" else "semimetric"
            X = check_precomputed(X, kindname, self._owner())
        self._check_params(X.shape[0])
        w = kind.weights(sample_weight, X, self._owner())
        w, self._wscale = kind.normalized_weights(w, self._owner(), self.dtype)
        # zero-weight rows are left out of the fit and labelled by predict's rule after it
        X_all, (X, w, self._keep) = X, positive_rows(X, w, self.n_clusters,
                                                      self._precomputed(), self._owner())
        X, w, engine = self._build_engine(X, w, kind, row_chunks)
        return X, w, engine, kind, left_out_rows(X_all, self._keep, self._precomputed(),
                                                 self.kernel == "precomputed", self._scale)

    def _engine_input(self):
        """The kind of input the engine asked for takes ("numpy" for "auto")."""
        if not isinstance(self.engine, str) or self.engine not in registry.names():
            return "numpy"
        return registry.engine_class(self.engine).capabilities.array_kind

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
        n = n_rows(X)
        starts = 1 if n is None else resolve_n_init(self.n_init, self.init, n)
        with tiered(fit_work(n, self.n_clusters, starts)):  # tiny fits skip loading numba
            return self._fit(X, sample_weight)

    def _fit(self, X, sample_weight):
        if self.semimetric == AUTO and not self._precomputed():
            return fit_auto(self, X, sample_weight)  # kgroups._auto_fit
        self.semimetric_, self.semimetric_choice_ = self.semimetric, None
        seconds = {}
        with clocked(seconds, "prepare"):
            X, w, engine, kind, left_out = self._prepare(X, sample_weight)
        # given labels (one start, or one per row) checked before anything uses them
        given = (None if isinstance(self.init, str) else
                 engine.given_starts(kept_starts(self.init, self._keep, self.n_clusters,
                                                 self._owner()),
                                     self.n_clusters, self._owner()))
        n_init = len(given) if given is not None else self._n_init
        progress = FitProgress(self._owner(), n_init, self.max_iter, self.verbose)
        self._say_engine(progress, engine, X, n_init)
        try:
            with clocked(seconds, "init"):
                starts = given if given is not None else self._starts(X, w, engine, kind,
                                                                      n_init, progress)
            best = run_starts(engine, starts, self.n_clusters, rule=self._rule,
                              max_iter=self.max_iter, tol=self.tol, progress=progress,
                              owner=self._owner(), seconds=seconds)
        finally:
            progress.close()
        self._set_fitted(best, engine, X, w)
        self.labels_ = label_left_out(best.labels, self._keep, left_out, self._predictor,
                                      self._scores, self._s, self._q)
        self.n_init_ = n_init
        self.engine_stats_ = {"seconds": seconds, **engine.counters()}
        if self._data_built():  # the phases of "prepare" that built the semimetric
            self.engine_stats_["semimetric seconds"] = dict(self._feature_map.seconds)
        return self

    def _say_engine(self, progress, engine, X, n_init):
        if not self.verbose:
            return
        opts = {"n_components": self.n_components}
        if sp.issparse(X):
            opts["nnz"] = X.nnz
        need = engine.memory_bytes(X.shape[0], X.shape[1], n_clusters=self.n_clusters,
                                   n_init=n_init, dtype=np.dtype(self.dtype), options=opts)
        progress.say(f"engine={engine.name!r} ({self._engine_why}) for "
                     f"n_samples={X.shape[0]}, n_clusters={self.n_clusters}; memory "
                     f"estimate {need / 2**20:.1f} MiB; n_init={n_init} "
                     f"(n_init={self.n_init!r}, init={self._init_name()})")

    def _starts(self, X, w, engine, kind, n_init, progress):
        """``n_init`` starts of the named ``init`` (same random stream as one at a time,
        all before the runs, so that the engine can build their M together)."""
        rng = np.random.default_rng(as_seed(self.random_state))
        # the input-space seeding ("k-means++") reads rows in host memory; without them
        # (a precomputed matrix, data on a CUDA device), or where the semimetric's space
        # is not the input's (one built from the data), it seeds in the kernel's space
        raw = None if self._precomputed() or self._data_built() or not kind.host_rows else X

        def fit_sample(Xs, ws, seed):
            return self._fit_sample(Xs, ws, seed, progress)

        return [initial_labels(self.init, engine, raw, w, self.n_clusters, rng,
                               gram=self._spectral_gram_fn(X, engine),
                               fit_sample=None if raw is None else fit_sample,
                               take=kind.take, semimetric=self.semimetric)
                for _ in range(n_init)]

    def _fit_sample(self, Xs, ws, seed, progress):
        """Labels of this estimator's fit on a sample (the sample start of
        :mod:`kgroups._init`): ``SAMPLE_N_INIT`` starts, the engine ``"auto"``
        picks for the sample; ``progress`` says when it starts and ends."""
        from sklearn.base import clone

        progress.say(f"start: exact fit of a {Xs.shape[0]}-point sample ({SAMPLE_N_INIT} "
                     f"starts), then every point to the nearest mean "
                     f"({progress.elapsed():.2f} s)")
        est = clone(self).set_params(n_init=SAMPLE_N_INIT, engine="auto", random_state=seed,
                                     verbose=0)
        labels = est.fit(Xs, sample_weight=ws).labels_
        progress.say(f"start: sample fit done, W = {est.within_energy_:.6g} "
                     f"({progress.elapsed():.2f} s)")
        return labels

    def _init_name(self):
        if isinstance(self.init, str):
            return repr(self.init)
        return "given labels" if np.ndim(self.init) == 1 else "given labels, one start per row"

    def _set_fitted(self, best, engine, X, w):
        k = self.n_clusters_ = self.n_clusters
        self.labels_ = best.labels
        # W = sum_i w_i K_ii - Q for the semimetric the kernel induces (every kernel
        # of the family gives Q up to a constant); K = -rho/2 has a zero diagonal, so
        # there W = -Q.
        trace = float((engine.diag / w).sum()) if self.kernel == "precomputed" else 0.0
        self._set_objective(best, trace)
        self.cluster_weights_ = best.s * self._wscale
        self._s = best.s  # in the engine's units of weight, as _q, for predict
        self.engine_ = engine.name
        self._q = best.q
        self._n_features_out = k  # transform's columns (get_feature_names_out)
        # what predict needs from the engine that ran (any engine, one interface)
        self._predictor = engine.predictor(X, best)

    def _set_objective(self, best, trace):
        """``objective_``, ``within_energy_``, ``n_iter_`` and ``n_moves_`` of the best
        run, in the data's units; a clear error when they are not finite there."""
        # Q and W are linear in the weights, which the engine holds divided by _wscale
        unit = self._objective_unit() * self._wscale
        self.objective_ = float(best.objective) * unit
        self.within_energy_ = (trace - float(best.objective)) * unit
        if not (np.isfinite(self.objective_) and np.isfinite(self.within_energy_)):
            raise ValueError(
                f"{self._owner()}: the objective of the partition found is beyond the "
                f"float64 range in the units of X (Q={self.objective_!r}, "
                f"W={self.within_energy_!r}); divide X by a constant")
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
            Cluster of each point, in ``[0, n_clusters)``.

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

    # -- predict / score --------------------------------------------------
    def _needs_kxx(self, method):
        return ValueError(
            f"{self._owner()}: {method} needs K(x, x) for new points, which a "
            "precomputed Gram matrix does not give; fit on semimetric='precomputed' "
            "distances or on raw data instead")

    def _new_work(self, X):
        """The work of scoring new rows ``X`` (:func:`~kgroups._kernels.jit.tiered`'s
        count): their kernel block against the training rows."""
        n, n_fit = n_rows(X), n_rows(self.labels_)
        return float("inf") if n is None or n_fit is None else n * n_fit

    def _validate_new(self, X):
        """New data of any kind, checked against the fit and in the fit's (rescaled)
        units, and its kind."""
        check_is_fitted(self)
        kind = input_kind(X)
        if not (kind.host_rows or self._predictor.device_rows):
            raise InvalidParameterError(
                f"{self._owner()}: X is an array on a CUDA device, and this fit "
                f"(engine={self.engine_!r}) predicts from host memory: pass host data "
                "(e.g. X.get() for CuPy), or fit on the device (engine='gpu')")
        X = kind.check_new(self, X, "csr" if self.kernel == "precomputed" else False)
        keep = getattr(self, "_keep", None)
        if keep is not None and self._precomputed():  # the columns of the kept rows
            X = X[:, np.flatnonzero(keep)]
        return (X if self._scale == 1.0 else X * self._scale), kind

    def predict(self, X):
        """Cluster of best score (see the class docstring) for each new point.

        With ``engine="low-rank"`` the new points get features from the same
        map as the training points (Nystrom landmarks or random Fourier
        frequencies of the fit), so ``predict`` on the training data of a
        converged fit returns ``labels_`` (up to floating-point ties), as it
        does for the exact engines.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features) or (n_new, n_train)
            New points; with ``semimetric="precomputed"``, their semimetric values
            to the training points. A dask array gives a dask array of labels,
            computed block by block.

        Returns
        -------
        labels : ndarray of shape (n_new,)
            Cluster of each new point.

        See Also
        --------
        transform : The distances the prediction compares.
        score : The objective of new points.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 42 and 47-51.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> est = KernelKGroups(n_clusters=2, random_state=0).fit(X)
        >>> est.predict([[0.5, 0.5], [8.5, 8.5]]).tolist()
        [0, 1]
        """
        if self._predict_needs_kxx and self.kernel == "precomputed":
            raise self._needs_kxx("predict")
        X, kind = self._validate_new(X)
        fn = functools.partial(predict_rows, predictor=self._predictor,
                               s=self._s, q=self._q, scores=self._scores)
        with tiered(self._new_work(X)):
            return kind.map_rows(X, fn, None, np.int64, self._owner())

    def transform(self, X):
        r"""Squared kernel-space distance of each point to each cluster's weighted mean.

        The analogue of ``KMeans.transform`` (which gives distances, not squared,
        in input space): with :math:`\varphi` the feature map of the kernel
        :math:`K = -\rho/2` and :math:`\mu_l = \frac{1}{s_l}\sum_{y \in C_l}
        w_y \varphi(y)`,

        .. math:: d_l(x) = \|\varphi(x) - \mu_l\|^2 = K(x, x) - \frac{2 m_l}{s_l}
                  + \frac{q_l}{s_l^2}, \quad m_l = \sum_{y \in C_l} w_y K(x, y),
                  \quad q_l = \sum_{x, y \in C_l} w_x w_y K(x, y),

        computed from the same quantities as :meth:`predict`, block by block.
        For a semimetric :math:`\rho` this is :math:`\frac{1}{s_l}\sum_y w_y
        \rho(x, y) - \frac{1}{2 s_l^2} \sum_{y, z} w_y w_z \rho(y, z)` (any base
        point of the kernel gives the same values), in the data's units (for
        ``semimetric="energy"``, units of :math:`\|x - y\|^\alpha`, also when the
        data were rescaled internally). Negative values, from rounding or from a
        kernel that is not positive semidefinite (``"localized"``,
        ``"sinusoidal"``, an indefinite matrix), are set to 0. With
        ``engine="low-rank"`` the distances are those of the approximate kernel
        (the fit's features). A precomputed Gram matrix cannot be transformed
        (:math:`K(x, x)` of new points is unknown).

        :meth:`predict` of :class:`KernelKMeans` is the nearest mean, the column
        of smallest ``transform`` (up to ties and clipping). That of
        :class:`KernelKGroups` is the insertion gain of its fit, the column of
        smallest :math:`s_l d_l(x) / (s_l + 1)`, not always the nearest mean; at
        a converged fit (positive semidefinite kernel) each training point's
        label is also its nearest mean.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features) or (n_new, n_train)
            New points; with ``semimetric="precomputed"``, their semimetric values
            to the training points.

        Returns
        -------
        distances : ndarray of shape (n_new, n_clusters)
            Squared kernel-space distances, >= 0.

        See Also
        --------
        fit_transform : Fit, then transform the same data.
        predict : The nearest cluster.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 39-40.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKMeans
        >>> X = np.array([[0.0], [2.0], [10.0], [12.0]])
        >>> km = KernelKMeans(2, init=np.array([0, 0, 1, 1])).fit(X)
        >>> km.transform([[1.0]]).round(6).tolist()  # mean |x - y| - mean |y - z| / 2
        [[0.5, 9.5]]
        >>> km.get_feature_names_out().tolist()
        ['kernelkmeans0', 'kernelkmeans1']
        """
        if self.kernel == "precomputed":
            raise self._needs_kxx("transform")
        X, kind = self._validate_new(X)
        fn = functools.partial(transform_rows, predictor=self._predictor,
                               s=self._s, q=self._q, unit=self._objective_unit())
        with tiered(self._new_work(X)):
            return kind.map_rows(X, fn, self.n_clusters_, np.float64, self._owner())

    def fit_transform(self, X, y=None, sample_weight=None):
        """Fit ``X`` and return :meth:`transform` of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data, or a semimetric matrix when ``semimetric="precomputed"`` (a
            Gram matrix, ``kernel="precomputed"``, cannot be transformed).
        y : None
            Ignored; present for compatibility with scikit-learn.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights >= 0, some > 0; integer weights are equivalent to repeated rows,
            and a zero weight to a removed row (its label is the one
            :meth:`predict` gives it).

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
            Squared kernel-space distance of each point to each cluster's
            weighted mean, as ``fit(X).transform(X)``.

        See Also
        --------
        transform : The same distances for new points.
        predict : The nearest cluster of new points.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 39-40 (the
           distance to a cluster's mean in feature space).

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> D = KernelKGroups(n_clusters=2, random_state=0).fit_transform(X)
        >>> D.shape, D.argmin(axis=1).tolist()
        ((6, 2), [0, 0, 0, 1, 1, 1])
        """
        if self.kernel == "precomputed":
            raise self._needs_kxx("fit_transform")
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def set_output(self, *, transform=None):
        """Choose the container that :meth:`transform` and :meth:`fit_transform` return.

        scikit-learn's ``set_output`` (documented here for its references):
        columns named by ``get_feature_names_out`` (scikit-learn's
        :meth:`~sklearn.base.ClassNamePrefixFeaturesOutMixin.get_feature_names_out`),
        rows indexed as the input
        DataFrame's.

        Parameters
        ----------
        transform : {"default", "pandas", "polars"} or None, default=None
            ``"default"``: a NumPy array; ``"pandas"`` / ``"polars"``: a
            DataFrame of that library (which must be installed); ``None``: no
            change.

        Returns
        -------
        self : object
            The estimator.

        See Also
        --------
        transform : The output this container holds.
        sklearn.base.TransformerMixin.set_output : The scikit-learn method.

        References
        ----------
        .. [1] F. Pedregosa et al., "Scikit-learn: Machine learning in Python", JMLR
           12, 2825-2830, 2011.

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0], [0.1], [5.0], [5.2]])
        >>> est = KernelKGroups(2, random_state=0).set_output(transform="default")
        >>> est.fit_transform(X).shape
        (4, 2)
        """
        return super().set_output(transform=transform)

    def score(self, X, y=None, sample_weight=None):
        """Objective Q (= -W) of ``X`` partitioned by :meth:`predict`; higher is better.

        Parameters
        ----------
        X : array-like of shape (n_new, n_features)
            New points (raw data; a precomputed matrix cannot be scored).
        y : None
            Ignored; present for compatibility with scikit-learn.
        sample_weight : array-like of shape (n_new,), default=None
            Weights >= 0 of the new points (a zero-weight point adds nothing).

        Returns
        -------
        score : float
            Q of the partition of ``X`` given by :meth:`predict`, in the data's units.

        See Also
        --------
        predict : The labels the score is computed with.
        kgroups.within_energy : W of any partition.

        References
        ----------
        .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
           Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 15 (W) and
           equation 41 (Q).

        Examples
        --------
        >>> import numpy as np
        >>> from kgroups import KernelKGroups
        >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
        ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
        >>> est = KernelKGroups(n_clusters=2, random_state=0).fit(X)
        >>> round(float(est.score(X)), 4), round(float(est.within_energy_), 4)
        (-2.2761, 2.2761)
        """
        if self._precomputed():
            raise ValueError(f"{self._owner()}: score needs raw data, not a precomputed matrix")
        check_in_memory(X, "X", self._owner(), device_ok=True)
        X, kind = self._validate_new(X)
        w = check_sample_weight(host_values(sample_weight), X.shape[0], self._owner(),
                                allow_zero=True)
        X, w = X[w > 0], w[w > 0]  # a zero-weight point adds nothing to W
        with tiered(self._new_work(X) + X.shape[0] ** 2):  # the block, and the clusters' pairs
            labels = predict_rows(X, self._predictor, self._s, self._q, self._scores)
            # sum_{x, y in C_l} w_x w_y rho(x, y) of each cluster, then W (eq. 15)
            rows, semimetric, params = self._kernel_rows(X)
            sums = kind.within_sums(rows, w, labels, self.n_clusters_, semimetric, params)
            s = np.bincount(labels, weights=w, minlength=self.n_clusters_)
            total = float(np.sum(sums[s > 0] / (2.0 * s[s > 0])))
        return -total * self._objective_unit()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        return tags
