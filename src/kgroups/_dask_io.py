"""What the Dask engine and the Dask pair sums share: the scheduler and the checks of
dask input.

With an active ``dask.distributed.Client`` the work runs on its cluster
(:func:`client_or_none`); otherwise on Dask's default (threaded) scheduler. Dask
is imported inside the functions: importing this module never needs the
``kgroups[dask]`` extra.
"""

from __future__ import annotations


import numpy as np

from ._validation import (InvalidParameterError, check_finite, check_sample_weight,
                           is_dask_collection)


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


def persist_wait(objs):
    """:func:`persist` then :func:`wait`: errors surface here, and the work is done."""
    objs = persist(objs)
    wait(objs)
    return objs


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


# Why a dask array's rows take no weight of 0: each is read, block by block, into the fit.
DASK_ZERO = ("the Dask engine fits every row of its blocks; drop the rows of weight 0, or fit "
             "the data in memory, where a row of weight 0 is left out of the fit and labelled "
             "as a new point")


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
    w = check_sample_weight(sample_weight, n, owner, name, zero_why=DASK_ZERO)
    return da.from_array(w, chunks=(X.chunks[0],))


def summary_block(Xb, wb, start, owner, name="X", wname="sample_weight"):
    """Checks of one block of data and weights (finite data, the one weight rule);
    ``(max |x|, column medians, max weight, weight sum)``, or the error of a block that
    fails them (raised by :func:`summaries` in block order)."""
    Xb = np.asarray(Xb, dtype=np.float64)
    wb = np.asarray(wb)
    end = start + Xb.shape[0]
    try:
        check_finite(Xb, name, owner)
        check_sample_weight(wb, Xb.shape[0], owner, wname, zero_why=DASK_ZERO)
    except InvalidParameterError as exc:
        return InvalidParameterError(f"{exc} (indices within rows {start}:{end})")
    big = float(np.max(np.abs(Xb))) if Xb.size else 0.0
    return (big, block_median(Xb), float(np.max(wb)) if wb.size else 0.0,
            float(np.sum(wb, dtype=np.float64)))


def block_median(Xb):
    """The coordinate-wise median of a block's rows (NaN for an empty block)."""
    return np.median(Xb, axis=0) if Xb.shape[0] else np.full(Xb.shape[1], np.nan)


def median_of_medians(medians):
    """The centre of a dask array's squared-distance expansion: the coordinate-wise
    median of its blocks' medians (:func:`block_median`; empty blocks skipped). Like
    the median of in-memory data, a few far rows do not drag it; any centre gives
    the same distances, it only limits cancellation (the pairs that cancel are
    recomputed by direct differences)."""
    M = np.array([m for m in medians if not np.isnan(m).any()], dtype=np.float64)
    return np.median(M, axis=0) if M.size else np.zeros(len(medians[0]))


def summaries(checks):
    """The results of the delayed :func:`summary_block` tasks ``checks``, in order; the
    error of the first failing block raised (the same block whatever the order in
    which the scheduler ran them)."""
    results = list(stream(checks))
    for res in results:
        if isinstance(res, InvalidParameterError):
            raise res
    return results


def summarize(X, w, owner):
    """One pass over the row blocks of the dask arrays ``X`` and ``w``: every block
    checked (:func:`summary_block`, the first failing block raised), ``(largest |x|,
    centre)`` (:func:`median_of_medians`)."""
    import dask

    starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(np.int64)
    checks = [dask.delayed(summary_block, pure=True)(xb, wb, int(a), owner)
              for xb, wb, a in zip(X.to_delayed().ravel(), w.to_delayed().ravel(), starts)]
    results = summaries(checks)
    big = max((r[0] for r in results), default=0.0)
    return big, median_of_medians([r[1] for r in results])
