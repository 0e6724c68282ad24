"""``fit``/``predict`` of the estimators on a ``dask.array.Array`` or dask DataFrame
(``engine="dask"``)."""

from __future__ import annotations

import time

import numpy as np

from ._backends._dask_io import (as_dask_rows, client_or_none, dask_weights, summaries, summary_block)
from ._init import SAMPLE_INITS
from ._validation import InvalidParameterError, as_seed, check_finite, is_dask_collection


def _need_dask(owner):
    try:
        import dask.array  # noqa: F401
    except ImportError:  # pragma: no cover - the extra is installed in CI
        raise ImportError(f"{owner}: engine='dask' needs dask: pip install 'kgroups[dask]'"
                          ) from None


# --------------------------------------------------------------------------- fit
def fit_dask(est, X, sample_weight):
    """``est.fit`` for ``engine="dask"`` or dask input (see :class:`KernelKGroups`)."""
    owner = est._owner()
    _need_dask(owner)
    import dask

    from ._backends import check_engine_input
    from ._backends.dask import DaskEngine, block_rows, check_block_fits
    from . import _init
    from ._progress import FitProgress

    if not hasattr(est, "_blocks_run"):
        raise InvalidParameterError(
            f"{owner}: dask input and engine='dask' are supported by KernelKGroups only; "
            "pass X.compute() for an in-memory fit")
    Xd, names = as_dask_rows(X, owner)
    n, d = Xd.shape
    est._check_params(n)  # the constraint table first: every parameter checked
    if est.engine not in ("auto", "dask"):
        raise InvalidParameterError(
            f"{owner}: X is a dask collection and engine={est.engine!r}; use engine='auto' "
            "or 'dask' (distributed, low-rank), or pass X.compute() for an in-memory engine")
    if est._precomputed():
        raise InvalidParameterError(
            f"{owner}: engine='dask' needs raw data, not a precomputed matrix "
            f"(kernel={est.kernel!r}, semimetric={est.semimetric!r})")
    k = est.n_clusters
    if not isinstance(est.init, str) and np.ndim(est.init) == 2:
        raise InvalidParameterError(
            f"{owner}: engine='dask' runs one start; init labels should have shape "
            f"(n_samples,), got {np.shape(est.init)} (one start per row): fit once per row")
    if isinstance(est.init, str) and est.init not in SAMPLE_INITS + ("random",):
        raise InvalidParameterError(
            f"{owner}: init={est.init!r} is not available with engine='dask'; use "
            f"{' or '.join(map(repr, SAMPLE_INITS))} (an in-memory fit on a sample), "
            "'random' or an array of labels")
    check_engine_input("low-rank", n, kernel=est.kernel, semimetric=est.semimetric,
                       sparse_input=False, n_clusters=k, n_components=min(est.n_components, n),
                       landmarks=est.landmarks, owner=owner)
    client = client_or_none()
    m = min(est.n_components, n)
    rows = block_rows(m)
    if max(Xd.chunks[0]) > rows:
        Xd = Xd.rechunk({0: rows})
    check_block_fits(max(Xd.chunks[0]), d, m, k, client, owner)
    w = dask_weights(sample_weight, Xd, owner)

    est.n_features_in_ = d
    if names is not None:
        est.feature_names_in_ = names
    elif hasattr(est, "feature_names_in_"):
        del est.feature_names_in_

    t0 = time.perf_counter()
    starts = np.concatenate([[0], np.cumsum(Xd.chunks[0])[:-1]]).astype(np.int64)
    checks = [dask.delayed(summary_block, pure=True)(xb, wb, int(a), owner)
              for xb, wb, a in zip(Xd.to_delayed().ravel(), w.to_delayed().ravel(), starts)]
    big, colsum = 0.0, 0.0
    for b, cs, _, _ in summaries(checks):
        big, colsum = max(big, b), colsum + cs
    est._scale = scale = est._scale_for(big)
    center = np.asarray(colsum, dtype=np.float64) / n * scale

    def sample(idx):
        return np.asarray(Xd[idx].compute(), dtype=np.float64) * scale

    t_checks = time.perf_counter() - t0
    # "auto": one distributed run (its start already keeps the best of SAMPLE_N_INIT)
    n_init = 1 if not isinstance(est.init, str) or est.n_init == "auto" else est.n_init
    options = {"n_components": est.n_components, "landmarks": est.landmarks,
               "random_state": est.random_state}
    progress = FitProgress(owner, n_init, est.max_iter, est.verbose)
    t0 = time.perf_counter()
    engine = DaskEngine.from_dask(Xd, w, scale, est.semimetric, est._params(), sample=sample,
                                  center=center, n_clusters=k, options=options)
    t_setup = time.perf_counter() - t0
    progress.say(
        f"engine='dask' on {len(engine.sizes)} blocks of <= {max(engine.sizes)} rows, "
        f"{'a distributed client' if client is not None else 'the local scheduler'}")
    rng = np.random.default_rng(as_seed(est.random_state))
    best = None
    try:
        for r in range(n_init):
            t0 = time.perf_counter()
            labels0 = _start(est, engine, Xd, w, scale, rng, n, k, _init.SAMPLE_ROWS,
                             progress)
            engine._clock("init (sample fit)", t0)
            progress.start(r)
            run = est._blocks_run(engine, labels0, progress)
            progress.end(run.objective)
            best = est._better(best, run)
    finally:
        progress.close()
    est._warn_if_unconverged(best)
    est._set_objective(best, 0.0)
    est.n_init_ = n_init
    est._n_features_out = k
    est.labels_ = best.labels.rechunk((_row_chunks(X, Xd),)).persist()
    est.cluster_weights_ = best.state.s.copy()
    est.engine_ = engine.name
    est._q = best.state.q.copy()
    est._predictor = engine.feature_sums(best.state, k, d)
    est.dask_stats_ = {"blocks": len(engine.sizes), "round_trips": engine.rounds,
                       "bytes_to_blocks": engine.bytes_out,
                       "bytes_from_blocks": engine.bytes_in,
                       "seconds": {"checks": t_checks, "setup": t_setup, **engine.seconds}}
    return est


def _row_chunks(X, Xd):
    """The row chunks of the caller's X (labels_ come back chunked like it)."""
    if is_dask_collection(X) and hasattr(X, "chunks") and not any(
            np.isnan(c) for c in X.chunks[0]):
        return X.chunks[0]
    return Xd.chunks[0]


def _start(est, engine, Xd, w, scale, rng, n, k, seed_sample, progress):
    """Starting label blocks for one restart.

    ``"kernel-k-means++"`` and ``"k-means++"``: the best of ``SAMPLE_N_INIT`` starts
    of that init of the estimator's exact fit (``_fit_sample``, as in memory) on a
    uniform sample of at most
    ``seed_sample`` rows (all rows when there are that few), extended to every
    point by the nearest cluster mean in the engine's feature space. Most of
    the work of convergence happens on the sample, in memory; the distributed
    sweeps then refine a partition that is already close, and the restarts on
    the sample avoid the poor local optima a single start can fall into.
    """
    if not isinstance(est.init, str):
        return engine.label_blocks_from(est.init, k, est._owner())
    if est.init == "random":
        return engine.random_label_blocks(k, rng)
    seed = int(rng.integers(np.iinfo(np.int32).max))
    import dask

    if n <= seed_sample:
        sub, wsub = dask.compute(Xd, w)
    else:
        idx = np.sort(rng.choice(n, seed_sample, replace=False))
        sub, wsub = dask.compute(Xd[idx], w[idx])  # one pass over the blocks
    sub, wsub = np.asarray(sub) * scale, np.asarray(wsub)
    lab = est._fit_sample(sub, wsub, seed, progress)  # the in-memory sample start's fit
    return engine.nearest_mean_start(sub, wsub, lab, k)


# --------------------------------------------------------------------------- predict
def rows_block(Xb, predictor, s, q, scale, unit, kind, owner):
    """``predict`` (labels) or ``transform`` (distances) of a block of new rows."""
    from ._base import insertion_scores, mean_distances

    Xb = np.asarray(Xb, dtype=np.float64)
    check_finite(Xb, "X", owner)
    k = s.shape[0]
    if Xb.shape[0] == 0:
        return np.zeros(0, dtype=np.int64) if kind == "predict" else np.zeros((0, k))
    m, kxx = predictor.cross_sums(Xb * scale if scale != 1.0 else Xb)
    if kind == "predict":
        return np.argmax(insertion_scores(m, kxx, s, q), axis=1).astype(np.int64)
    return mean_distances(m, kxx, s, q) * unit


def _new_rows(est, X, kind):
    from sklearn.utils.validation import check_is_fitted

    owner = est._owner()
    check_is_fitted(est)
    Xd, _ = as_dask_rows(X, owner)
    if Xd.shape[1] != est.n_features_in_:
        raise InvalidParameterError(
            f"{owner}: X has {Xd.shape[1]} features, but {owner} was fitted with "
            f"{est.n_features_in_}")
    if est.kernel == "precomputed":
        raise est._needs_kxx(kind)
    args = (est._predictor, est.cluster_weights_, est._q, est._scale)
    if kind == "predict":
        return Xd.map_blocks(rows_block, *args, 1.0, kind, owner, dtype=np.int64,
                             drop_axis=1)
    k = est.cluster_weights_.shape[0]
    return Xd.map_blocks(rows_block, *args, est._objective_unit(), kind, owner,
                         dtype=np.float64, chunks=(Xd.chunks[0], (k,)))


def predict_dask(est, X):
    """``est.predict`` for dask input: a dask array of labels chunked like X's rows."""
    return _new_rows(est, X, "predict")


def transform_dask(est, X):
    """``est.transform`` for dask input: a dask array (n, k) chunked like X's rows."""
    return _new_rows(est, X, "transform")
