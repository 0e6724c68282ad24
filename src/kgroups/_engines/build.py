"""The engine of one fit, built from the estimator's parameters as plain values
(:class:`EngineRequest`), through the engines' one interface (no branch on an
engine's name): chosen (``engine="auto"``: by the input's kind and a cost model,
:mod:`.select`), checked against the input, laid out, the raw data rescaled by a
power of two where their magnitude asks for it (:mod:`kgroups._semimetrics.prepare`),
and built after its memory estimate was checked; a semimetric built from the data
(:mod:`kgroups._semimetrics.neighbors`) reaches the engine as its feature columns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .._memory import available_memory
from .._semimetrics.prepare import data_scale, scaled_params
from .._sparse import issparse
from .._validation import as_seed
from . import registry
from .engine import is_auto
from .select import check_engine_input, choose_engine


@dataclass(frozen=True)
class EngineRequest:
    """What an engine is built from: the estimator's parameters, as plain values.

    Attributes
    ----------
    engine : str
        An engine's name, or ``"auto"``.
    semimetric : str or callable
        The semimetric in use (``"precomputed"``: X is a semimetric matrix).
    kernel : None or "precomputed"
        ``"precomputed"``: X is a Gram matrix.
    alpha, sigma, theta : float
        The semimetric's parameters in the data's units.
    dtype : str
        The estimator's ``dtype``: ``"float64"``, ``"float32"`` or ``"auto"`` (the
        engine chooses, :meth:`~kgroups._engines.engine.Engine.resolve_dtype`).
    n_clusters : int
        The number of clusters k.
    n_starts : callable
        ``n_starts(n_samples, max_auto=None)``: the number of starts the fit runs,
        at most ``max_auto`` for ``n_init="auto"`` when given
        (:func:`kgroups._init.resolve_n_init` of the estimator's ``n_init`` and ``init``).
    init : str or array-like
        The named start or the given labels.
    rule : str
        The estimator's move rule (``"hartigan"`` or ``"lloyd"``; ``"trimmed"`` or
        ``"concentration"`` with points set aside).
    n_components, landmarks : int, str
        The low-rank engine's options.
    n_neighbors : int
        The neighbourhood graph's number of neighbours.
    random_state : None, int or numpy.random.Generator
        The seed of the features and of the graph's eigenvectors.
    features : bool
        Whether the semimetric is built from the data (its kernel is feature columns).
    owner : str
        The name errors start with.
    """

    engine: str
    semimetric: Any
    kernel: Any
    alpha: float
    sigma: float
    theta: float
    dtype: str
    n_clusters: int
    n_starts: Callable
    init: Any
    rule: str
    n_components: int
    landmarks: str
    n_neighbors: int
    random_state: Any
    features: bool
    owner: str

    PARAMETERS = ("kernel", "alpha", "sigma", "theta", "dtype", "n_components", "landmarks",
                  "n_neighbors", "random_state")

    @classmethod
    def of(cls, params, **plan):
        """The request of one fit: ``plan`` (the engine, semimetric, k, init, starts, rule,
        ``features`` and ``owner``, and any of ``PARAMETERS`` it sets) and the other
        ``PARAMETERS`` read from ``params`` (an estimator, or the choice of k's
        :class:`~kgroups._choose_k.fits.Setting`): one request whoever fits."""
        return cls(**{name: getattr(params, name) for name in cls.PARAMETERS
                      if name not in plan}, **plan)

    @property
    def base_dtype(self):
        """The dtype asked for, float64 for ``"auto"`` (how a held kernel is stored and
        how the engines' memory is compared)."""
        return np.dtype(np.float64 if is_auto(self.dtype) else self.dtype)

    @property
    def precomputed(self):
        """Whether X is a precomputed matrix (a Gram or a semimetric matrix)."""
        return self.kernel == "precomputed" or self.semimetric == "precomputed"


@dataclass
class BuiltEngine:
    """An engine built for a fit, with what the estimator keeps of its building.

    Attributes
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        The data as the engine laid them out, rescaled by ``scale``.
    w : ndarray of shape (n_samples,)
        The weights as the engine laid them out.
    engine : Engine
        The engine (:class:`~kgroups._engines.engine.Engine`).
    scale : float
        The power of two the raw data were multiplied by (1.0: as given).
    n_init : int
        The number of starts of the named init (the engine's cap applied).
    why : str
        Why this engine (``"asked for"``, or the reasons of ``"auto"``).
    feature_map : NeighborGraphMap or None
        The feature map of a semimetric built from the data.
    """

    X: Any
    w: Any
    engine: Any
    scale: float
    n_init: int
    why: str
    feature_map: Any = None


def array_kind_of(name):
    """The kind of input (``"numpy"``, ``"dask"``, ``"cuda"``) engine ``name`` takes,
    ``"numpy"`` for ``"auto"`` (or a name that is not an engine's: refused later, by
    the parameter check).

    >>> array_kind_of("dense"), array_kind_of("auto")
    ('numpy', 'numpy')
    """
    if not isinstance(name, str) or name not in registry.names():
        return "numpy"
    return registry.engine_class(name).capabilities.array_kind


def build_engine(X, w, kind, request, row_chunks=None):
    """The engine of this fit, as the module docstring says.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Checked data (rows of positive weight), or a precomputed matrix.
    w : array-like of shape (n_samples,)
        Their weights, > 0.
    kind : object
        The input's kind (:func:`kgroups._input.input_kind`): its ``name`` and
        ``summary(X, w, owner)``.
    request : EngineRequest
        The estimator's parameters.
    row_chunks : tuple of int or None, default=None
        The row chunks of the caller's data, those the labels get (dask).

    Returns
    -------
    built : BuiltEngine
        The engine and the data, weights and scale it holds.
    """
    k, n, d, sparse_input = request.n_clusters, X.shape[0], X.shape[1], issparse(X)
    cls, why = choose_engine(request.engine, n, request.precomputed, sparse_input,
                             request.base_dtype, semimetric=request.semimetric,
                             n_features=d, n_clusters=k, n_init=request.n_starts(n),
                             input_kind=kind.name, owner=request.owner,
                             options={"n_components": request.n_components},
                             features=request.features)
    check_engine_input(cls.name, n, kernel=request.kernel, semimetric=request.semimetric,
                       sparse_input=sparse_input, n_clusters=k,
                       n_components=request.n_components, landmarks=request.landmarks,
                       owner=request.owner, init=request.init, rule=request.rule)
    n_init = request.n_starts(n, cls.max_auto_starts)
    options = {"n_components": request.n_components, "landmarks": request.landmarks,
               "random_state": request.random_state, "owner": request.owner,
               "out_chunks": row_chunks}
    X, w = cls.layout(X, w, n_clusters=k, options=options)
    X, scale, center = _rescaled(X, w, kind, request)
    try:
        engine, fmap = _construct(cls, X, w, request, n_init, scale,
                                  {**options, "center": center})
    except MemoryError:  # the estimate fitted, the allocation did not
        raise ValueError(
            f"{request.owner}: out of memory while building engine={cls.name!r} for "
            f"n_samples={n}, n_clusters={k} (available now: "
            f"{available_memory() / 2**30:.2f} GiB); use fewer samples, dtype='float32', "
            "or engine='low-rank' on raw data") from None
    return BuiltEngine(X, w, engine, scale, n_init, why, fmap)


def _rescaled(X, w, kind, request):
    """``(X, scale, centre)``: raw data of a named semimetric multiplied by the power
    of two of :func:`~kgroups._semimetrics.prepare.data_scale` (a precomputed matrix
    or a callable's data as given), and their centre (None where the engine finds
    its own)."""
    if request.precomputed or callable(request.semimetric):
        return X, 1.0, None
    big, center = kind.summary(X, w, request.owner)
    scale = data_scale(big, request.semimetric, request.owner)
    if scale == 1.0:
        return X, scale, center
    return X * scale, scale, None if center is None else center * scale


def _construct(cls, X, w, request, n_init, scale, options):
    """``(engine, feature map or None)``: the engine of class ``cls`` from a matrix,
    from the feature columns of a semimetric built from the data, or from raw data
    and a semimetric (its parameters in the units of the rescaled data)."""
    k = request.n_clusters
    if request.precomputed:
        return cls.from_matrix(X, w, is_gram=request.kernel == "precomputed",
                               dtype=request.base_dtype, n_clusters=k,
                               n_init=n_init), None
    if request.features:
        # the graph's feature map needs SciPy's sparse eigensolvers: imported when used
        from .._semimetrics.neighbors import NeighborGraphMap

        fmap = NeighborGraphMap.fit(X, w, n_neighbors=request.n_neighbors, n_clusters=k,
                                    random_state=as_seed(request.random_state),
                                    owner=request.owner)
        return cls.from_features(fmap.features, w, fmap, n_clusters=k, n_init=n_init), fmap
    params = scaled_params(request.alpha, request.sigma, request.theta, scale)
    dtype = cls.resolve_dtype(request.dtype, X.shape[0], X.shape[1], n_clusters=k,
                              n_init=n_init, semimetric=request.semimetric, params=params)
    return cls.from_semimetric(X, w, request.semimetric, params, dtype=dtype,
                               n_clusters=k, n_init=n_init, options=options), None


def engine_summary(engine, X, why, *, n_clusters, n_init, dtype, n_components):
    """What ``verbose`` says of the engine of a fit: its name, why, the fit's size and
    the engine's memory estimate.

    Parameters
    ----------
    engine : Engine
        The built engine.
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        The data it holds.
    why : str
        Why this engine (:attr:`BuiltEngine.why`).
    n_clusters, n_init : int
        The fit's k and number of starts.
    dtype : str
        The estimator's ``dtype``.
    n_components : int
        The low-rank engine's number of features.

    Returns
    -------
    text : str
    """
    opts = {"n_components": n_components}
    if issparse(X):
        opts["nnz"] = X.nnz
    need = engine.memory_bytes(X.shape[0], X.shape[1], n_clusters=n_clusters, n_init=n_init,
                               dtype=np.float64 if is_auto(dtype) else np.dtype(dtype),
                               options=opts)
    passes = engine.counters().get("pass_dtype")
    how = f"; pass over the pairs in {passes}" if passes else ""
    return (f"engine={engine.name!r} ({why}) for n_samples={X.shape[0]}, "
            f"n_clusters={n_clusters}; memory estimate {need / 2**20:.1f} MiB{how}")
