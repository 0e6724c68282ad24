"""The kinds of data the estimators take, one small table: in-memory arrays (NumPy,
SciPy sparse for precomputed matrices) and dask collections.

Each kind answers the same questions, so that ``fit``, ``predict`` and
``transform`` take one path whatever the data: check the data of a fit and set
``n_features_in_`` (and ``feature_names_in_``), check the weights, the largest
``|x|`` and the centre of the (checked) data, the rows of a sample in memory, new
data against the fit, and a function mapped over row blocks (a dask array's
blocks run on the workers). :func:`input_kind` picks the kind from the data's type,
or from the engine asked for (``engine="dask"`` cuts in-memory data in row blocks).
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import validate_data

from ._validation import (InvalidParameterError, check_finite, check_in_memory,
                          check_numeric_columns,
                          check_sample_weight, is_dask_collection, pow2_scale)
from ._validation import SAFE_MAGNITUDE

# Weights whose squares and products with kernel entries stay normal in float32.
FLOAT32_SAFE = (1e-8, 1e8)

__all__ = ["DASK", "IN_MEMORY", "input_kind"]


class InMemory:
    """NumPy arrays (and SciPy sparse precomputed matrices)."""

    name = "numpy"

    @staticmethod
    def check_fit(est, X, precomputed):
        """``(X as float64, None)`` (``validate_data``: sets ``n_features_in_`` and
        names); a precomputed matrix may be SciPy sparse (CSR); an array on a CUDA
        device is refused by name (``engine="gpu"`` takes host data and copies it to
        the device once)."""
        check_in_memory(X, "X", type(est).__name__)
        check_numeric_columns(X, "X", type(est).__name__)
        X = validate_data(est, X, reset=True, dtype=np.float64,
                          accept_sparse="csr" if precomputed else False)
        return X, None

    @staticmethod
    def weights(sample_weight, X, owner):
        return check_sample_weight(sample_weight, X.shape[0], owner)

    @staticmethod
    def normalized_weights(w, owner, dtype=np.float64):
        """``(w / c, c)``: weights whose largest lies outside the safe magnitudes
        (:func:`~kgroups._validation.pow2_scale`; narrower for a float32 kernel, whose
        entries are ``w_i w_j K_ij``) divided by a power of two ``c`` (exact;
        partitions do not depend on a common factor of the weights), so that their
        sums and products stay finite and normal; a spread of weights wider than
        float64's range is refused, naming the ratio."""
        safe = FLOAT32_SAFE if np.dtype(dtype) == np.float32 else SAFE_MAGNITUDE
        c = pow2_scale(float(w.max()), safe)
        if c == 1.0:
            return w, 1.0
        wn = w / c
        if not np.all(wn > 0):
            raise InvalidParameterError(
                f"{owner}: sample_weight spans more than float64's range (largest "
                f"{float(w.max()):.3g}, smallest {float(w.min()):.3g}); weights that differ "
                "by more than a factor 1e300 cannot be summed together")
        return wn, c

    @staticmethod
    def summary(X, w, owner):
        """``(largest |x|, centre of X or None)``: the engines centre in-memory data
        themselves."""
        return float(np.max(np.abs(X))), None

    @staticmethod
    def take(X, w, idx):
        """Rows ``idx`` of ``X`` and ``w`` (all for None)."""
        return (X, w) if idx is None else (X[idx], w[idx])

    @staticmethod
    def check_new(est, X, accept_sparse):
        """New rows as float64, checked against the fit (``validate_data``)."""
        check_in_memory(X, "X", type(est).__name__)
        check_numeric_columns(X, "X", type(est).__name__)
        return validate_data(est, X, reset=False, dtype=np.float64,
                             accept_sparse=accept_sparse)

    @staticmethod
    def map_rows(X, fn, n_cols, dtype, owner):
        """``fn(X)``: in memory, the function sees every row at once."""
        return fn(X)


def _checked_rows(Xb, fn, owner):
    """``fn`` of a block of new rows after checking they are finite."""
    Xb = np.asarray(Xb, dtype=np.float64)
    check_finite(Xb, "X", owner)
    return fn(Xb)


class Dask:
    """A ``dask.array.Array`` or dask DataFrame (``kgroups[dask]``)."""

    name = "dask"

    @staticmethod
    def check_fit(est, X, precomputed):
        """``(X as a float64 dask array with one column chunk, the row chunks of the
        caller's X)``; ``n_features_in_`` and ``feature_names_in_`` set as
        ``validate_data`` sets them. Raw data only."""
        from ._dask_io import as_dask_rows

        owner = type(est).__name__
        if precomputed:
            raise InvalidParameterError(
                f"{owner}: a dask X needs raw data, not a precomputed matrix (kernel="
                f"{est.kernel!r}, semimetric={est.semimetric!r}); pass X.compute()")
        Xd, names = as_dask_rows(X, owner)
        est.n_features_in_ = Xd.shape[1]
        if names is not None:
            est.feature_names_in_ = names
        elif hasattr(est, "feature_names_in_"):
            del est.feature_names_in_
        known = (is_dask_collection(X) and hasattr(X, "chunks")
                 and not any(np.isnan(c) for c in X.chunks[0]))
        return Xd, X.chunks[0] if known else Xd.chunks[0]

    @staticmethod
    def weights(sample_weight, X, owner):
        from ._dask_io import dask_weights

        return dask_weights(sample_weight, X, owner)

    @staticmethod
    def normalized_weights(w, owner, dtype=np.float64):
        """``(w, 1.0)``: dask weights are checked block by block; their scale stays."""
        return w, 1.0

    @staticmethod
    def summary(X, w, owner):
        """One pass over the blocks: data finite and weights valid (the first failing
        block named), ``(largest |x|, centre of X)`` (the median of the blocks'
        medians)."""
        from ._dask_io import summarize

        return summarize(X, w, owner)

    @staticmethod
    def take(X, w, idx):
        """Rows ``idx`` of ``X`` and ``w`` in memory (all for None), in one pass."""
        import dask

        Xs, ws = dask.compute(X, w) if idx is None else dask.compute(X[idx], w[idx])
        return np.asarray(Xs, dtype=np.float64), np.asarray(ws, dtype=np.float64)

    @staticmethod
    def check_new(est, X, accept_sparse):
        """New rows as a float64 dask array, with the fit's number of features."""
        from ._dask_io import as_dask_rows

        owner = type(est).__name__
        Xd, _ = as_dask_rows(X, owner)
        if Xd.shape[1] != est.n_features_in_:
            raise InvalidParameterError(
                f"{owner}: X has {Xd.shape[1]} features, but {owner} was fitted with "
                f"{est.n_features_in_}")
        return Xd

    @staticmethod
    def map_rows(X, fn, n_cols, dtype, owner):
        """``fn`` on every row block (checked finite), lazily: a dask array chunked
        like the rows of ``X`` (1-D for ``n_cols=None``)."""
        if n_cols is None:
            return X.map_blocks(_checked_rows, fn, owner, dtype=dtype, drop_axis=1)
        return X.map_blocks(_checked_rows, fn, owner, dtype=dtype,
                            chunks=(X.chunks[0], (n_cols,)))


IN_MEMORY, DASK = InMemory(), Dask()


def input_kind(X, sample_weight=None, engine_input="numpy"):
    """The kind of ``X``: dask when ``X`` or the weights are dask collections or the
    engine asked for takes dask input (``engine_input``), else in memory."""
    if engine_input == "dask" or is_dask_collection(X) or is_dask_collection(sample_weight):
        return DASK
    return IN_MEMORY
