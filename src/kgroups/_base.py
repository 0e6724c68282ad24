"""What kernel k-groups and kernel k-means share: validation, the kernel, restarts,
``predict``, ``transform`` and ``score``.

The estimator layer (this module and its subclasses) validates, builds the
engine once per ``fit`` (restarts reuse it) and keeps the best of ``n_init``
single runs. The single-run drivers own buffers and convergence; the numba
kernels in :mod:`kgroups._engine` do one sweep in place.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from sklearn.base import (BaseEstimator, ClassNamePrefixFeaturesOutMixin, ClusterMixin,
                          TransformerMixin)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_is_fitted, validate_data

from ._backends import check_engine_input, check_fits, choose_engine
from ._validation import is_dask_collection
from ._engine._gain import cluster_stats
from ._init import SAMPLE_N_INIT, initial_labels, resolve_n_init
from ._progress import FitProgress
from ._semimetrics import pairwise, rho_to_origin
from ._validation import (
    InvalidParameterError,
    check_init_starts,
    check_n_clusters,
    check_precomputed,
    as_seed,
    check_sample_weight,
    pow2_scale,
    validate_params,
)

# Raw data whose largest |entry| lies outside _validation.SAFE_MAGNITUDE are rescaled
# by a power of two for the semimetrics whose partitions do not depend on scale.
SCALE_FREE = ("energy", "gaussian", "laplacian")
# Relative difference in Q below which two starts tie (the first is kept).
TIE_RTOL = 1e-12



@dataclass
class RunResult:
    """Outcome of one single run (one starting partition)."""

    labels: np.ndarray
    objective: float
    n_iter: int
    n_moves: list = field(default_factory=list)
    converged: bool = True
    cluster_sums: np.ndarray = None  # q_l = sum_{x, y in C_l} B[x, y], for predict
    state: object = None  # engines whose points live in blocks: the run's sums


def fill_empty_clusters(engine, labels, M):
    """Give every empty cluster the point whose move there raises Q most; in place.

    Moving point ``i`` from cluster ``j`` (of two points or more) to an empty
    cluster changes Q by ``A_j(i) + B_ii / w_i`` (paper eq. 50 with an empty
    target), which for a positive semidefinite kernel is
    ``w_i s_j / (s_j - w_i) ||phi(x_i) - m_j||^2 >= 0``: the (weighted)
    farthest point from its cluster mean, as scikit-learn's k-means relocates.
    With ``n_samples >= n_clusters`` a donor always exists, so the partition
    returned has ``n_clusters`` non-empty clusters (identical points included).
    Returns the number of clusters filled.
    """
    s, q, cnt = cluster_stats(M, labels, engine.w)
    empty = np.flatnonzero(cnt == 0)
    idx = np.arange(labels.shape[0])
    for l in empty:
        w, b, j = engine.w, engine.diag, labels
        gain = (w * q[j] / s[j] - 2.0 * M[j, idx] + b) / np.maximum(s[j] - w, 1e-300) + b / w
        gain[cnt[j] < 2] = -np.inf
        i = int(np.argmax(gain))
        engine.move_rows(np.array([i]), np.array([labels[i]]), np.array([l]), M)
        labels[i] = l
        s, q, cnt = cluster_stats(M, labels, engine.w)
    return empty.size


def insertion_scores(m, kxx, s, q):
    """Gain in Q of inserting each new point (weight 1) into each cluster:
    ``(q_l + 2 m_l + K(x, x)) / (s_l + 1) - q_l / s_l``, ``-inf`` for an empty cluster."""
    empty = s <= 0
    mean_q = np.where(empty, 0.0, q / np.where(empty, 1.0, s))
    kxx = np.reshape(kxx, (-1, 1))
    gain = (q + 2.0 * m + kxx) / (s + 1.0) - mean_q
    gain[:, empty] = -np.inf
    return gain


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


class BaseKernelClustering(ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin,
                           BaseEstimator):
    """Common parameters and machinery; see :class:`KernelKGroups`.

    The mixins are those of scikit-learn's ``KMeans`` (same order): a clusterer
    whose ``transform`` gives one column per cluster, named ``<classname>0`` ...
    ``<classname>{k-1}`` by ``get_feature_names_out``, with ``set_output``.
    """

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
        max_iter=100,
        tol=0.0,
        engine="auto",
        dtype="float64",
        n_components=256,
        landmarks="k-means++",
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
        self.random_state = random_state
        self.verbose = verbose

    # -- validation -------------------------------------------------------
    def _owner(self):
        return type(self).__name__

    def _params(self):
        """Semimetric parameters in the units of the (possibly rescaled) data."""
        scale = getattr(self, "_scale", 1.0)
        return {"alpha": self.alpha, "sigma": self.sigma * scale, "theta": self.theta}

    def _rescaled(self, X):
        """``X`` times a power of two when its entries would overflow or underflow.

        ``||x - y||^alpha`` is homogeneous of degree alpha and the Gaussian and
        Laplacian semimetrics depend on ``||x - y|| / sigma`` only, so their
        partitions do not depend on a global scale: data whose largest entry lies
        outside :data:`~kgroups._validation.SAFE_MAGNITUDE` are multiplied by an exact power of two
        (sigma too), and W is reported in the data's units. The other semimetrics
        are not scale-free: such data get a clear error instead of NaN.
        """
        self._scale = 1.0
        if self._precomputed() or callable(self.semimetric):
            return X
        self._scale = self._scale_for(float(np.max(np.abs(X))))
        return X if self._scale == 1.0 else X * self._scale

    def _scale_for(self, big):
        """The power of two data whose largest |entry| is ``big`` are multiplied by
        (see :meth:`_rescaled`), or a clear error for a semimetric that is not scale-free."""
        if self._precomputed() or callable(self.semimetric) or pow2_scale(big) == 1.0:
            return 1.0
        if self.semimetric not in SCALE_FREE:
            raise InvalidParameterError(
                f"{self._owner()}: X has entries of magnitude {big:.3g}, whose distances "
                f"overflow or underflow float64, and semimetric={self.semimetric!r} is not "
                f"scale-free; rescale X (semimetrics {SCALE_FREE} are rescaled automatically)")
        return 1.0 / pow2_scale(big)

    def _objective_unit(self):
        """Factor from the engine's Q (rescaled data) to Q in the data's units."""
        if self.semimetric == "energy" and not self._precomputed():
            with np.errstate(over="ignore"):  # inf here is reported by _set_fitted
                return float(np.power(np.float64(self._scale), -float(self.alpha)))
        return 1.0

    def _precomputed(self):
        return self.kernel == "precomputed" or self.semimetric == "precomputed"

    def _check_params(self, n_samples):
        owner = self._owner()
        validate_params(owner, self.get_params(deep=False))
        check_n_clusters(self.n_clusters, n_samples, owner)
        if self.kernel == "precomputed" and self.semimetric == "precomputed":
            raise InvalidParameterError(
                f"{owner}: kernel='precomputed' and semimetric='precomputed' contradict each "
                "other: X is either a Gram matrix (kernel='precomputed', semimetric ignored) "
                "or a semimetric matrix (semimetric='precomputed', kernel=None)")

    def _validate_X(self, X, reset):
        X = validate_data(self, X, reset=reset, dtype=np.float64,
                          accept_sparse="csr" if self._precomputed() else False)
        if reset and self._precomputed():
            kind = "gram" if self.kernel == "precomputed" else "semimetric"
            X = check_precomputed(X, kind, self._owner())
        return X

    def _build_engine(self, X, w):
        """The engine for this fit, through the backends' one interface (no branch on
        the engine's name); every memory estimate knows k and the restarts."""
        dtype, k, sparse_input = np.dtype(self.dtype), self.n_clusters, sp.issparse(X)
        n_init = resolve_n_init(self.n_init, self.init, X.shape[0])
        cls, why = choose_engine(self.engine, X.shape[0], self._precomputed(), sparse_input,
                                 dtype, semimetric=self.semimetric, n_features=X.shape[1],
                                 n_clusters=k, n_init=n_init)
        check_engine_input(cls.name, X.shape[0], kernel=self.kernel, semimetric=self.semimetric,
                           sparse_input=sparse_input, n_clusters=k,
                           n_components=self.n_components, landmarks=self.landmarks,
                           owner=self._owner())
        self._engine_why = why
        try:
            if self._precomputed():
                return cls.from_matrix(X, w, is_gram=self.kernel == "precomputed", dtype=dtype,
                                       n_clusters=k, n_init=n_init)
            options = {"n_components": self.n_components, "landmarks": self.landmarks,
                       "random_state": self.random_state}
            return cls.from_semimetric(X, w, self.semimetric, self._params(), dtype=dtype,
                                       n_clusters=k, n_init=n_init, options=options)
        except MemoryError:  # the estimate fitted, the allocation did not
            from ._backends import available_memory
            raise ValueError(
                f"{self._owner()}: out of memory while building engine={cls.name!r} for "
                f"n_samples={X.shape[0]}, n_clusters={k} (available now: "
                f"{available_memory() / 2**30:.2f} GiB); use fewer samples, dtype='float32', "
                "or engine='low-rank' on raw data") from None

    def _spectral_gram_fn(self, X, engine):
        """The paper's ``x0 = 0`` Gram matrix for the spectral initialiser."""
        def gram():
            n = X.shape[0]
            check_fits(16 * n * n, f"the spectral initialisation for n={n}",
                       "init='k-means++'")
            K = engine.gram()
            if self._precomputed() or callable(self.semimetric):
                return K
            r0 = rho_to_origin(X, self.semimetric, **self._params())
            return K + 0.5 * (r0[:, None] + r0[None, :])
        return gram

    # -- fit --------------------------------------------------------------
    def _prepare(self, X, sample_weight):
        """Validated data, weights and the engine: the one way from input to an engine."""
        if self.engine == "dask":
            raise InvalidParameterError(
                f"{self._owner()}: engine='dask' runs only through fit (and fit_predict)")
        X = self._validate_X(X, reset=True)
        self._check_params(X.shape[0])
        X = self._rescaled(X)
        w = check_sample_weight(sample_weight, X.shape[0], self._owner())
        return X, w, self._build_engine(X, w)

    def fit(self, X, y=None, sample_weight=None):
        """Cluster ``X``; keep the best of ``n_init`` runs (highest objective).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Data, or a semimetric/Gram matrix when ``semimetric="precomputed"`` /
            ``kernel="precomputed"``.
        y : None
            Ignored; present for compatibility with scikit-learn.
        sample_weight : array-like of shape (n_samples,), default=None
            Positive weights; integer weights are equivalent to repeated rows.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        if self.engine == "dask" or is_dask_collection(X) or is_dask_collection(sample_weight):
            from ._dask import fit_dask

            return fit_dask(self, X, sample_weight)
        X, w, engine = self._prepare(X, sample_weight)
        # given labels (one start, or one per row) checked before anything uses them
        given = (None if isinstance(self.init, str) else
                 check_init_starts(self.init, X.shape[0], self.n_clusters, self._owner()))
        rng = np.random.default_rng(as_seed(self.random_state))
        raw = None if self._precomputed() else X
        gram = self._spectral_gram_fn(X, engine)
        n_init = resolve_n_init(self.n_init, self.init, X.shape[0])
        progress = FitProgress(self._owner(), n_init, self.max_iter, self.verbose)
        if self.verbose:
            opts = {"n_components": self.n_components}
            if sp.issparse(X):
                opts["nnz"] = X.nnz
            need = engine.memory_bytes(X.shape[0], X.shape[1], n_clusters=self.n_clusters,
                                       n_init=n_init, dtype=np.dtype(self.dtype), options=opts)
            progress.say(f"engine={engine.name!r} ({self._engine_why}) for "
                         f"n_samples={X.shape[0]}, n_clusters={self.n_clusters}; memory "
                         f"estimate {need / 2**20:.1f} MiB; n_init={n_init} "
                         f"(n_init={self.n_init!r}, init={self._init_name()})")
        best = None
        try:
            # every start first (same random stream as one at a time), so that the
            # engine can build their M together (one pass over the pairs)
            # a sample start needs a cheap exact fit of the sample: a named semimetric
            # (matrix-free), not a callable (dense, the callable on 4e8 pairs)
            sample_fit = None if raw is None or callable(self.semimetric) else (
                lambda idx, seed: self._fit_sample(raw[idx], w[idx], seed, progress))
            starts = given if given is not None else [
                initial_labels(self.init, engine, raw, self.n_clusters, rng, gram, sample_fit)
                for _ in range(n_init)]
            for run in self._runs(engine, starts, progress):
                best = self._better(best, run)
        finally:
            progress.close()
        self._warn_if_unconverged(best)
        self._set_fitted(best, engine, X, w)
        self.n_init_ = n_init
        return self

    def _runs(self, engine, starts, progress):
        """Every start's run (a generator, in order): one single run per start,
        their ``M`` built together (``engine.build_ms``)."""
        for r, M in enumerate(engine.build_ms(starts, self.n_clusters)):
            progress.start(r)
            run = self._single_run(engine, starts[r], progress, M)
            progress.end(run.objective)
            yield run

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

    @staticmethod
    def _better(best, run):
        """The run to keep of ``best`` (None at first) and ``run``: a later start wins
        only by more than rounding, so that starts reaching one partition keep the
        first one's labels on any scale."""
        if best is None or run.objective > best.objective + TIE_RTOL * abs(best.objective):
            return run
        return best

    def _warn_if_unconverged(self, best):
        if not best.converged:
            warnings.warn(
                f"{self._owner()}: the best run stopped at max_iter={self.max_iter} before "
                "converging; raise max_iter", ConvergenceWarning)

    def _set_fitted(self, best, engine, X, w):
        k = self.n_clusters
        self.labels_ = best.labels
        # W = sum_i w_i K_ii - Q for the semimetric the kernel induces (DESIGN s.1);
        # K = -rho/2 has a zero diagonal, so there W = -Q.
        trace = float((engine.diag / w).sum()) if self.kernel == "precomputed" else 0.0
        self._set_objective(best, trace)
        self.cluster_weights_ = np.bincount(best.labels, weights=w, minlength=k)
        self.engine_ = engine.name
        self._q = best.cluster_sums
        self._n_features_out = k  # transform's columns (get_feature_names_out)
        # what predict needs from the engine that ran (any engine, one interface)
        self._predictor = engine.predictor(X, best.labels, k)

    def _set_objective(self, best, trace):
        """``objective_``, ``within_energy_``, ``n_iter_`` and ``n_moves_`` of the best
        run, in the data's units; a clear error when they are not finite there."""
        unit = self._objective_unit()
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
            Positive weights; integer weights are equivalent to repeated rows.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster of each point, in ``[0, n_clusters)``.
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    # -- predict / score --------------------------------------------------
    def _cross_kernel(self, X):
        """Blocks of new rows, ``(start, X_block)``, of the size the engine's predictor takes."""
        step = self._predictor.block_rows or max(X.shape[0], 1)
        for start in range(0, X.shape[0], step):
            yield start, X[start:start + step]

    def _cluster_sums_new(self, X):
        """``m[x, l] = sum_{y in C_l} w_y K(x, y)`` for new rows, by blocks.

        Yields ``(start, m, kxx)`` from the fitted engine's predictor (the same
        kernel as the fit: with ``engine="low-rank"`` the new rows get features
        from the fit's map; with a precomputed matrix X holds the new-by-train block).
        """
        for start, Xb in self._cross_kernel(X):
            yield (start, *self._predictor.cross_sums(Xb))

    def _assign_scores(self, m, kxx):
        """Gain in Q of inserting each new point (weight 1) into each cluster.

        ``(q_l + 2 m_l + K(x, x)) / (s_l + 1) - q_l / s_l``; an empty cluster
        (possible after kernel k-means) is never a target.
        """
        if kxx is None:
            raise self._needs_kxx("predict")
        return insertion_scores(m, kxx, self.cluster_weights_, self._q)

    def _per_cluster(self, X, scores):
        """``scores(m, kxx)`` for every new row and cluster, block by block: the one
        way from new rows to ``predict``'s and ``transform``'s numbers."""
        out = np.empty((X.shape[0], self.n_clusters))
        for start, m, kxx in self._cluster_sums_new(X):
            out[start:start + m.shape[0]] = scores(m, kxx)
        return out

    def _insertion_gain(self, X):
        """Scores of :meth:`_assign_scores` for every new row and cluster."""
        return self._per_cluster(X, self._assign_scores)

    def _needs_kxx(self, method):
        return ValueError(
            f"{self._owner()}: {method} needs K(x, x) for new points, which a "
            "precomputed Gram matrix does not give; fit on semimetric='precomputed' "
            "distances or on raw data instead")

    def _mean_distances(self, m, kxx):
        """Squared kernel-space distance to each weighted cluster mean (engine units):
        ``K(x, x) - 2 m_l / s_l + q_l / s_l^2``, negatives clipped at 0."""
        if kxx is None:
            raise self._needs_kxx("transform")
        return mean_distances(m, kxx, self.cluster_weights_, self._q)

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
            to the training points.

        Returns
        -------
        labels : ndarray of shape (n_new,)
            Cluster of each new point.
        """
        if is_dask_collection(X):
            from ._dask import predict_dask

            return predict_dask(self, X)
        return self._predict_scaled(self._validate_new(X))

    def _validate_new(self, X):
        """New data, checked against the fit and in the fit's (rescaled) units."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=np.float64,
                          accept_sparse="csr" if self.kernel == "precomputed" else False)
        return X if self._scale == 1.0 else X * self._scale

    def _predict_scaled(self, X):
        return np.argmax(self._insertion_gain(X), axis=1).astype(np.int64)

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
        if is_dask_collection(X):
            from ._dask import transform_dask

            return transform_dask(self, X)
        X = self._validate_new(X)
        d = self._per_cluster(X, self._mean_distances)
        return d * self._objective_unit()

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
            Positive weights; integer weights are equivalent to repeated rows.

        Returns
        -------
        distances : ndarray of shape (n_samples, n_clusters)
            Squared kernel-space distance of each point to each cluster's
            weighted mean, as ``fit(X).transform(X)``.
        """
        if self.kernel == "precomputed":
            raise self._needs_kxx("fit_transform")
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def set_output(self, *, transform=None):
        """Choose the container that :meth:`transform` and :meth:`fit_transform` return.

        scikit-learn's ``set_output`` (documented here for its references):
        columns named by :meth:`get_feature_names_out`, rows indexed as the input
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
            Positive weights of the new points.

        Returns
        -------
        score : float
            Q of the partition of ``X`` given by :meth:`predict`, in the data's units.
        """
        if self._precomputed():
            raise ValueError(f"{self._owner()}: score needs raw data, not a precomputed matrix")
        X = self._validate_new(X)
        labels = self._predict_scaled(X)
        w = check_sample_weight(sample_weight, X.shape[0], self._owner())
        largest = int(np.bincount(labels).max())
        check_fits(8 * largest * largest, f"score: the distances within a cluster of "
                   f"{largest} points", "score on fewer points")
        total = 0.0
        for l in np.unique(labels):
            idx = np.flatnonzero(labels == l)
            rho = pairwise(X[idx], None, self.semimetric, **self._params())
            total += w[idx] @ rho @ w[idx] / (2.0 * w[idx].sum())
        return -total * self._objective_unit()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self._precomputed()
        return tags
