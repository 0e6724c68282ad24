"""Dask input for the estimators: checks, the scheduler, and ``fit``/``predict`` on
a ``dask.array.Array`` or dask DataFrame (``engine="dask"``).

Only this module, :mod:`kgroups._dask_energy` and the Dask backend import
``dask``; :func:`is_dask_collection` recognises a dask object without importing
it. With an active ``dask.distributed.Client`` the work runs on its cluster
(:func:`client_or_none`); otherwise on Dask's default (threaded) scheduler.
"""

from __future__ import annotations

import time

import numpy as np

# the inits whose run starts from an in-memory fit of a sample (as in memory)
from ._init import SAMPLE_INITS
from ._validation import InvalidParameterError, as_seed, check_finite, check_sample_weight

__all__ = ["is_dask_collection", "client_or_none", "stream", "as_dask_rows",
           "fit_dask", "predict_dask", "transform_dask"]


def is_dask_collection(X):
    """Whether ``X`` is a dask collection (array, DataFrame, ...), without importing dask."""
    return hasattr(type(X), "__dask_graph__")


def _need_dask(owner):
    try:
        import dask.array  # noqa: F401
    except ImportError:  # pragma: no cover - the extra is installed in CI
        raise ImportError(f"{owner}: engine='dask' needs dask: pip install 'kgroups[dask]'"
                          ) from None


def client_or_none():
    """The active ``dask.distributed`` client, or None (Dask's default scheduler)."""
    try:
        from distributed import get_client
    except ImportError:
        return None
    try:
        return get_client()
    except ValueError:  # no client
        return None


def stream(tasks):
    """Results of the delayed ``tasks`` in order, computed in parallel.

    With a client: all submitted at once, each gathered when the caller asks
    for it (the driver holds one result at a time). Without: computed in
    batches of twice the local threads.
    """
    import dask

    client = client_or_none()
    if client is not None:
        yield from _gather(client.compute(tasks))
        return
    import os

    batch = 2 * (os.cpu_count() or 1)
    for a in range(0, len(tasks), batch):
        yield from dask.compute(*tasks[a:a + batch])


def _gather(futures):
    """Each future's result in order, one at a time; all released at the end."""
    try:
        for fut in futures:
            yield fut.result()
    finally:
        for fut in futures:
            fut.release()


def stream_split(results, keep):
    """Compute the delayed ``results`` and ``keep`` together (they share tasks);
    return ``(iterator over results in order, kept objects)``.

    With a client, one submission: ``keep`` stays on the workers (futures) and
    the results are gathered one at a time; without, both are computed in this
    process.
    """
    import dask

    client = client_or_none()
    n = len(results)
    if client is not None:
        futures = client.compute(list(results) + list(keep))
        return _gather(futures[:n]), futures[n:]
    values = dask.compute(*results, *keep)
    kept = [dask.delayed(v, pure=False) for v in values[n:]]
    return iter(values[:n]), kept


def wait(objs):
    """Block until persisted ``objs`` are computed (with a client; no-op otherwise)."""
    if client_or_none() is not None:
        from distributed import wait as dwait

        dwait(objs)


def persist(objs):
    """``objs`` with every dask collection among them persisted (futures stay)."""
    import dask

    objs = list(objs)
    lazy = [i for i, o in enumerate(objs) if is_dask_collection(o)]
    for i, o in zip(lazy, dask.persist(*[objs[i] for i in lazy])):
        objs[i] = o
    return objs


# --------------------------------------------------------------------------- input
def as_dask_rows(X, owner, what="X"):
    """``(X as a float64 dask array with one column chunk, column names or None)``.

    Accepts a dask array (2-D, numbers) or a dask DataFrame of numeric columns;
    rows with unknown chunk sizes are counted first. Anything else is in-memory
    data, checked as usual and cut in row blocks.
    """
    import dask.array as da

    names = None
    if is_dask_collection(X) and hasattr(X, "columns") and hasattr(X, "dtypes"):
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        bad = [str(c) for c, dt in X.dtypes.items()
               if not (is_numeric_dtype(dt) or is_bool_dtype(dt))]
        if bad:
            raise InvalidParameterError(
                f"{owner}: {what} is a dask DataFrame with non-numeric columns {bad}; "
                "expected numeric columns only")
        if all(isinstance(c, str) for c in X.columns):
            names = np.asarray(list(X.columns), dtype=object)
        X = X.to_dask_array(lengths=True)
    elif not is_dask_collection(X):
        from ._validation import check_data

        X = check_data(X, what, owner)
        X = da.from_array(X, chunks=(max(1, X.shape[0]), -1))
    if not isinstance(X, da.Array):
        raise InvalidParameterError(
            f"{owner}: {what} is a dask {type(X).__name__}; expected a dask array or a "
            "dask DataFrame of numeric columns")
    if X.ndim != 2:
        raise InvalidParameterError(
            f"{owner}: {what} should be a 2-D (n_samples, n_features) dask array, got "
            f"shape {X.shape}")
    if X.dtype.kind not in "biuf":
        raise InvalidParameterError(
            f"{owner}: {what} has dtype {X.dtype}; expected an array of numbers")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if X.shape[0] < 1 or X.shape[1] < 1:
        raise InvalidParameterError(
            f"{owner}: {what} has shape {X.shape}; expected at least 1 row and 1 column")
    return X.astype(np.float64).rechunk({1: -1}), names


def dask_weights(sample_weight, X, owner, name="sample_weight"):
    """Weights as a dask array chunked like the rows of ``X``: in-memory weights through
    the one weight rule now; dask weights get it block by block (:func:`summary_block`)."""
    import dask.array as da

    n = X.shape[0]
    if sample_weight is None:
        return da.ones(n, chunks=(X.chunks[0],))
    if is_dask_collection(sample_weight):
        w = sample_weight
        if hasattr(w, "to_dask_array"):
            w = w.to_dask_array(lengths=True)
        if w.ndim != 1 or w.shape[0] != n:
            raise InvalidParameterError(
                f"{owner}: {name} has shape {w.shape}, expected ({n},)")
        return w.astype(np.float64).rechunk((X.chunks[0],))
    w = check_sample_weight(sample_weight, n, owner, name)
    return da.from_array(w, chunks=(X.chunks[0],))


def summary_block(Xb, wb, start, owner, name="X", wname="sample_weight"):
    """Checks of one block of data and weights (finite data, the one weight rule);
    ``(max |x|, column sums, max weight, weight sum)``."""
    Xb = np.asarray(Xb, dtype=np.float64)
    wb = np.asarray(wb)
    end = start + Xb.shape[0]
    try:
        check_finite(Xb, name, owner)
        check_sample_weight(wb, Xb.shape[0], owner, wname)
    except InvalidParameterError as exc:
        raise InvalidParameterError(f"{exc} (indices within rows {start}:{end})") from None
    big = float(np.max(np.abs(Xb))) if Xb.size else 0.0
    return (big, Xb.sum(axis=0), float(np.max(wb)) if wb.size else 0.0,
            float(np.sum(wb, dtype=np.float64)))


# --------------------------------------------------------------------------- fit
def fit_dask(est, X, sample_weight):
    """``est.fit`` for ``engine="dask"`` or dask input (see :class:`KernelKGroups`)."""
    owner = est._owner()
    _need_dask(owner)
    import dask

    from ._backends import check_engine_input
    from ._backends.dask_engine import DaskEngine, block_rows, check_block_fits
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
    for b, cs, _, _ in stream(checks):
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
