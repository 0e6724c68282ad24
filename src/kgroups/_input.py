"""The kinds of data the estimators take, one small table: in-memory arrays (NumPy,
SciPy sparse for precomputed matrices), dask collections and arrays on a CUDA device
(:mod:`kgroups._input_device`).

Each kind answers the same questions, so that ``fit``, ``predict`` and
``transform`` take one path whatever the data: check the data of a fit and set
``n_features_in_`` (and ``feature_names_in_``), check the weights, the largest
``|x|`` and the centre of the (checked) data, the rows of a sample in memory, new
data against the fit, and a function mapped over row blocks (a dask array's
blocks run on the workers). :func:`input_kind` picks the kind from the data's type,
or from the engine asked for (``engine="dask"`` cuts in-memory data in row blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ._input_device import device_rows, like_input, on_cuda_device
from ._kernels.device import host_values
from ._placement import place
from ._rows import projection_key
from ._semimetrics import robust_center
from ._sparse import issparse
from ._validation import (InvalidParameterError, check_finite, check_in_memory,
                          check_init_starts, check_n_clusters, check_numeric_columns,
                          check_precomputed, check_sample_weight, describe,
                          is_dask_collection, pow2_weight_scale, text_as_numbers)
from ._arrays import array_summary
from ._validation import SAFE_MAGNITUDE

# Weights whose squares and products with kernel entries stay normal in float32.
FLOAT32_SAFE = (1e-8, 1e8)
# Widest ratio of the largest to the smallest positive weight: the products of two
# weights, rescaled to lie between 1 / ratio and ratio, stay normal numbers.
WEIGHT_SPREAD = {np.dtype(np.float64): 2.0 ** 1000, np.dtype(np.float32): 2.0 ** 100}


def n_rows(X):
    """The number of rows of ``X``, or None when it does not say so cheaply (a dask
    collection of unknown chunks, an object without a length).

    >>> n_rows([[1.0, 2.0], [3.0, 4.0]]), n_rows(object())
    (2, None)
    """
    shape = getattr(X, "shape", None)
    try:
        return int(shape[0] if shape is not None else len(X))
    except (TypeError, ValueError, IndexError):
        return None


def numbers_of(X, owner, name="X"):
    """``X`` unchanged when it holds numbers (a DataFrame's columns are checked by
    :func:`~kgroups._validation.check_numeric_columns`, a sparse matrix by
    ``validate_data``), converted to float64 when it is an array of objects or strings
    that are numbers (``'1.5'``, as scikit-learn's ``KMeans`` reads them); otherwise an
    error in kgroups' words: text (naming its entry and column), ragged rows, a 1-D
    array of objects whose items are rows, an array that is not 2-D."""
    if issparse(X) or hasattr(X, "columns"):
        return X
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):  # ragged nested sequences
        raise InvalidParameterError(
            f"{owner}: {name} should be a 2-D array of numbers, got a ragged sequence "
            f"({type(X).__name__} whose rows differ in length)") from None
    if arr.dtype.kind == "O" and arr.ndim == 1 and arr.size and all(
            np.ndim(v) >= 1 for v in arr):
        raise InvalidParameterError(
            f"{owner}: {name}={describe(X)} is a 1-D array of objects whose items are "
            f"rows; pass np.vstack(X) (a 2-D array of numbers)")
    if arr.dtype.kind == "c":
        raise InvalidParameterError(
            f"{owner}: {name} holds complex numbers (dtype {arr.dtype}): Complex data not "
            "supported; pass the real and imaginary parts as two columns")
    if arr.dtype.kind not in "biufOUS":  # dates, timedeltas, records: refused
        raise InvalidParameterError(
            f"{owner}: {name}={array_summary(arr)} should be an array of numbers")
    if arr.ndim != 2:
        hint = ("; Reshape your data: X.reshape(-1, 1) for one feature, X.reshape(1, -1) "
                "for one sample") if arr.ndim == 1 else ""
        raise InvalidParameterError(
            f"{owner}: {name} should be a 2-D array (n_samples, n_features), got an array "
            f"with dim {arr.ndim} (shape {arr.shape}){hint}")
    if arr.dtype.kind not in "OUS":
        return arr if isinstance(X, np.matrix) else X  # a matrix: its rows, as an array
    return text_as_numbers(arr, name, owner)


def checked_rows(est, X, *, reset, accept_sparse=False, ensure_min_samples=1):
    """In-memory ``X`` as float64 through scikit-learn's ``validate_data`` (which sets
    or checks ``n_features_in_`` and the feature names), with kgroups' errors for
    what is not an array of finite numbers: the first NaN or infinite entry named as
    :func:`kgroups.energy_distance` names it."""
    owner = est._owner()
    check_in_memory(X, "X", owner)
    check_numeric_columns(X, "X", owner)
    X = numbers_of(X, owner)
    if len(shape := getattr(X, "shape", ())) == 2:  # an empty DataFrame too, in our words
        check_counts(shape, owner, ensure_min_samples)
    if issparse(X) and not accept_sparse:
        raise InvalidParameterError(
            f"{owner}: X is a scipy.sparse matrix of shape {X.shape}; sparse input is "
            "supported only as a precomputed matrix (semimetric or kernel 'precomputed'): "
            "for rows of data pass X.toarray()")
    if getattr(est, "_sklearn_free", False) and isinstance(X, np.ndarray):
        X = plain_rows(est, X, owner, reset)
    else:
        from sklearn.utils.validation import validate_data  # the estimators' machinery

        try:
            X = validate_data(est, X, reset=reset, dtype=np.float64,
                              accept_sparse=accept_sparse, ensure_all_finite=False,
                              ensure_min_samples=ensure_min_samples)
        except (TypeError, ValueError) as err:  # its words, in the owner's name
            raise InvalidParameterError(f"{owner}: {err}") from None
    check_finite(X, "X", owner)
    return X


def check_counts(shape, owner, ensure_min_samples):
    """Refuse the shape (n, d) of X with fewer than ``ensure_min_samples`` rows or no
    column."""
    for count, what, least in ((shape[0], "sample(s)", ensure_min_samples),
                               (shape[1], "feature(s)", 1)):
        if count < least:
            raise InvalidParameterError(
                f"{owner}: X has {count} {what} (shape={tuple(shape)}) while a minimum of "
                f"{least} is required.")


def plain_rows(est, X, owner, reset):
    """A 2-D array of numbers (its counts checked: :func:`check_counts`) as float64, with
    ``n_features_in_`` set (``reset``) or checked, as ``validate_data`` does it, for an
    estimator without scikit-learn's machinery (:class:`kgroups._fitting.CommandLineKGroups`)."""
    X = np.asarray(X, dtype=np.float64)
    d = X.shape[1]
    if reset:
        est.n_features_in_ = d
    elif d != est.n_features_in_:
        raise InvalidParameterError(
            f"{owner}: X has {d} features, but {owner} is expecting {est.n_features_in_} "
            "features as input.")
    return X


def positive_rows(X, w, n_clusters, precomputed, owner):
    """``(X, w, keep)``: the rows of positive weight (rows and columns of a precomputed
    matrix) and their mask, None when every weight is positive (or the weights are a
    dask array, refused when zero). A zero-weight sample has no influence on the fit,
    as in scikit-learn's ``KMeans``: the fit on the others has the labels, Q and W of a
    fit without it, and :func:`label_left_out` labels it afterwards."""
    if not isinstance(w, np.ndarray) or np.all(w > 0):
        return X, w, None
    keep = w > 0
    idx = np.flatnonzero(keep)
    if idx.size < n_clusters:
        raise InvalidParameterError(
            f"{owner}: {idx.size} sample(s) have a positive sample_weight, fewer than "
            f"n_clusters={n_clusters} (zero-weight samples are left out of the fit)")
    return (X[idx][:, idx] if precomputed else X[idx]), w[idx], keep


def left_out_rows(X_all, keep, precomputed, gram, scale):
    """``(rows, kxx)``: the zero-weight rows as ``predict`` takes them (against the kept
    rows, in the fit's units) and their ``K(x, x)`` (a Gram matrix's diagonal, else
    None); None when no row was left out."""
    if keep is None:
        return None
    out, kept = np.flatnonzero(~keep), np.flatnonzero(keep)
    if precomputed:
        return X_all[out][:, kept], (X_all.diagonal()[out] if gram else None)
    return (X_all[out] if scale == 1.0 else X_all[out] * scale), None


def label_left_out(kept_labels, keep, left_out, predictor, scores, s, q, noise=None):
    """The labels of every sample: ``kept_labels`` on the kept rows, the best of
    ``scores`` (``predict``'s rule, -1 where ``noise`` sets a row aside:
    :func:`kgroups._placement.place`) on the rows of :func:`left_out_rows`, by the
    predictor's blocks of rows."""
    if left_out is None:
        return kept_labels
    rows, kxx = left_out
    out = np.empty(rows.shape[0], dtype=np.int64)
    step = predictor.block_rows or max(rows.shape[0], 1)
    for a in range(0, rows.shape[0], step):
        m, kxx_new = predictor.cross_sums(rows[a:a + step])
        kx = kxx_new if kxx is None else kxx[a:a + step]
        out[a:a + m.shape[0]] = place(m, kx, s, q, scores, noise)
    labels = np.empty(keep.shape[0], dtype=np.int64)
    labels[keep], labels[~keep] = kept_labels, out
    return labels


def kept_starts(init, keep, n_clusters, owner, noise=False, n_rows=None):
    """Given starting labels (one start or one per row), on the kept rows only; with
    ``noise`` (-1 allowed: a point set aside) checked here against ``n_rows`` rows
    (those of ``keep`` when given)."""
    if keep is None and not noise:
        return init
    n = keep.shape[0] if keep is not None else n_rows
    starts = check_init_starts(init, n, n_clusters, owner, noise)
    return np.stack([start if keep is None else start[keep] for start in starts])


def weight_scale(big, small, owner, dtype=np.float64):
    """The power of two ``c`` that positive weights from ``small`` to ``big`` are divided
    by (:func:`~kgroups._validation.pow2_weight_scale`; narrower for a float32 kernel,
    whose entries are ``w_i w_j K_ij``): exact, and partitions do not depend on a common
    factor of the weights, so that their sums and products stay finite and normal;
    weights further apart than :data:`WEIGHT_SPREAD` are refused, naming both ends."""
    dtype = np.dtype(np.float64 if isinstance(dtype, str) and dtype == "auto" else dtype)
    with np.errstate(over="ignore"):
        spread = big / small
    if spread > WEIGHT_SPREAD[dtype]:
        hint = "; dtype='float64' allows 2**1000" if dtype == np.float32 else ""
        raise InvalidParameterError(
            f"{owner}: sample_weight spans more than {dtype.name}'s range (largest "
            f"{big:.3g}, smallest positive {small:.3g}; at most a factor "
            f"{WEIGHT_SPREAD[dtype]:.3g} apart, so that products of two weights stay "
            f"normal numbers{hint})")
    return pow2_weight_scale(np.array([small, big]),
                             FLOAT32_SAFE if dtype == np.float32 else SAFE_MAGNITUDE)


class InMemory:
    """NumPy arrays (and SciPy sparse precomputed matrices)."""

    name = "numpy"
    host_rows = True  # X's rows are in host memory (input-space seeding reads them)
    one_call = True  # map_rows calls its function once, on every row: a bar can count them

    @staticmethod
    def check_fit(est, X, precomputed):
        """``(X as float64, None)`` (``validate_data``: sets ``n_features_in_`` and
        names); a precomputed matrix may be SciPy sparse (CSR)."""
        return checked_rows(est, X, reset=True, accept_sparse=precomputed and "csr"), None

    @staticmethod
    def weights(sample_weight, X, owner):
        """Weights >= 0, one per row, some > 0 (a zero-weight row counts as removed)."""
        return check_sample_weight(sample_weight, X.shape[0], owner, allow_zero=True)

    @staticmethod
    def normalized_weights(w, owner, dtype=np.float64):
        """``(w / c, c)``: positive weights outside the safe magnitudes divided by a
        power of two (:func:`weight_scale`)."""
        pos = w[w > 0]
        c = weight_scale(float(pos.max()), float(pos.min()), owner, dtype)
        return (w, 1.0) if c == 1.0 else (w / c, c)

    @staticmethod
    def summary(X, w, owner):
        """``(largest |x - c|, None)`` with ``c`` the robust centre of ``X``
        (:func:`~kgroups._semimetrics.robust_center`, exact): the named semimetrics
        see differences only, so a column far from 0 but narrow (a constant column at
        1e300) is judged by its centred values; the engines centre in-memory data
        themselves, with the same centre."""
        if X.shape[0] == 0:
            return 0.0, None
        c = robust_center(X)
        # max_i |x_ij - c_j| = max(max_i x_ij - c_j, c_j - min_i x_ij): rounding is
        # monotonic, so this is the largest rounded |x - c| without an n x D array
        with np.errstate(over="ignore"):
            big = max(float(np.max(X.max(axis=0) - c)), float(np.max(c - X.min(axis=0))), 0.0)
        return big, None

    @staticmethod
    def take(X, w, idx):
        """Rows ``idx`` of ``X`` and ``w`` (all for None)."""
        return (X, w) if idx is None else (X[idx], w[idx])

    @staticmethod
    def check_new(est, X, accept_sparse):
        """New rows as float64, checked against the fit (:func:`checked_rows`)."""
        return checked_rows(est, X, reset=False, accept_sparse=accept_sparse)

    @staticmethod
    def map_rows(X, fn, n_cols, dtype, owner):
        """``fn(X)``: in memory, the function sees every row at once."""
        return fn(X)

    @staticmethod
    def within_sums(X, w, labels, k, semimetric, params):
        """``sum_{x, y in C_l} w_x w_y rho(x, y)`` of each cluster ``l`` (k): ``2 s_l W_l``,
        ``W_l`` the cluster's within energy from the energy statistics' pass over its
        pairs (:func:`~kgroups.within_energy`: by blocks on every core, no n_l x n_l
        matrix)."""
        from ._stats.energy import within_energy

        out = np.zeros(k)
        for l in np.unique(labels):
            idx = np.flatnonzero(labels == l)
            out[l] = 2.0 * float(np.sum(w[idx])) * within_energy(
                X[idx], np.zeros(idx.size, dtype=np.int64), semimetric=semimetric,
                sample_weight=w[idx], **params)
        return out


def _checked_rows(Xb, fn, owner):
    """``fn`` of a block of new rows after checking they are finite."""
    Xb = np.asarray(Xb, dtype=np.float64)
    check_finite(Xb, "X", owner)
    return fn(Xb)


class Dask:
    """A ``dask.array.Array`` or dask DataFrame (``kgroups[dask]``)."""

    name = "dask"
    host_rows = True
    one_call = False  # map_rows: once per chunk, at once on the workers (no bar each)

    @staticmethod
    def check_fit(est, X, precomputed):
        """``(X as a float64 dask array with one column chunk, the row chunks of the
        caller's X)``; ``n_features_in_`` and ``feature_names_in_`` set as
        ``validate_data`` sets them. Raw data only."""
        from ._dask_io import as_dask_rows

        owner = est._owner()
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
        """``(w / c, c)`` as in memory (:func:`weight_scale`), from the largest and
        smallest weight (one pass over the weights, none over X); weights that break
        the weight rule are left as they are, for the block checks to name."""
        import dask

        small, big = (float(v) for v in dask.compute(w.min(), w.max()))
        if not (0.0 < small <= big < np.inf):
            return w, 1.0
        c = weight_scale(big, small, owner, dtype)
        return (w, 1.0) if c == 1.0 else (w / c, c)

    @staticmethod
    def summary(X, w, owner):
        """One pass over the blocks: data finite and weights valid (the first failing
        block named), ``(largest |x|, centre of X)`` (the median of the blocks'
        medians)."""
        from ._dask_io import summarize

        return summarize(X, w, owner)

    @staticmethod
    def take(X, w, idx):
        """Rows ``idx`` of ``X`` and ``w`` in memory (all for None), in one pass: the
        distinct rows read in increasing order (dask slices an unordered index chunk by
        chunk into many pieces), then put in ``idx``'s order."""
        import dask

        if idx is None:
            Xs, ws = dask.compute(X, w)
        else:
            rows, back = np.unique(np.asarray(idx, dtype=np.int64), return_inverse=True)
            Xs, ws = dask.compute(X[rows], w[rows])
            Xs, ws = np.asarray(Xs)[back], np.asarray(ws)[back]
        return np.asarray(Xs, dtype=np.float64), np.asarray(ws, dtype=np.float64)

    @staticmethod
    def check_new(est, X, accept_sparse):
        """New rows as a float64 dask array, with the fit's number of features."""
        from ._dask_io import as_dask_rows

        owner = est._owner()
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


class Device:
    """Arrays on a CUDA device (raw data only; ``engine="gpu"``)."""

    name = "cuda"
    host_rows = False  # X's rows are not in host memory (no input-space seeding)
    one_call = True

    @staticmethod
    def check_fit(est, X, precomputed):
        """``(DeviceRows of X, None)``, checked on the device; ``n_features_in_`` set
        (a device array has no feature names)."""
        owner = est._owner()
        if precomputed:
            raise InvalidParameterError(
                f"{owner}: an X on a CUDA device takes raw data, not a precomputed matrix "
                f"(kernel={est.kernel!r}, semimetric={est.semimetric!r}); copy it to the "
                "host for a precomputed fit")
        rows = device_rows(X, "X", owner)
        est.n_features_in_ = int(rows.shape[1])
        if hasattr(est, "feature_names_in_"):
            del est.feature_names_in_
        return rows, None

    @staticmethod
    def weights(sample_weight, X, owner):
        """Weights >= 0 on the host (a device array of weights copied: n numbers)."""
        return check_sample_weight(host_values(sample_weight), X.shape[0], owner,
                                   allow_zero=True)

    normalized_weights = staticmethod(InMemory.normalized_weights)

    @staticmethod
    def summary(X, w, owner):
        """``(largest |x|, None)``, found when the data were checked: the GPU engine
        takes direct differences of the coordinates, so it needs no centre."""
        return X.largest * X.scale, None

    @staticmethod
    def take(X, w, idx):
        """Rows ``idx`` of ``X`` (a sample, all for None) and ``w`` in host memory."""
        from ._engines.gpu_predictor import transposed_rows

        sel = X if idx is None else X[idx]
        XT = transposed_rows(sel, "a sample of the rows")
        return np.ascontiguousarray(XT.copy_to_host().T), (w if idx is None else w[idx])

    @staticmethod
    def check_new(est, X, accept_sparse):
        """New rows on the device, finite, with the fit's number of features."""
        owner = est._owner()
        rows = device_rows(X, "X", owner, min_rows=0)
        if rows.shape[1] != est.n_features_in_:
            raise InvalidParameterError(
                f"{owner}: X has {rows.shape[1]} features, but {owner} was fitted with "
                f"{est.n_features_in_}")
        return rows

    @staticmethod
    def within_sums(X, w, labels, k, semimetric, params):
        """``sum_{x, y in C_l} w_x w_y rho(x, y)`` of each cluster ``l`` (k), on the
        device (:func:`kgroups._engines.gpu_predictor.within_sums`)."""
        from ._engines.gpu_predictor import within_sums

        return within_sums(X, w, labels, k, semimetric, params)

    @staticmethod
    def map_rows(X, fn, n_cols, dtype, owner):
        """``fn(X)`` in the input's library and on its device (:func:`like_input`)."""
        return like_input(np.asarray(fn(X), dtype=dtype), X.source)


IN_MEMORY, DASK, DEVICE = InMemory(), Dask(), Device()


# Bytes of a device array copied to the host at a time for the rows' keys, in multiples of
# the key's own block of 4,096 rows, so that every row's key rounds as in host memory.
KEY_BYTES, KEY_ROWS = 1 << 25, 4096


def row_keys(kind, rows, w, owner):
    """:func:`~kgroups._rows.projection_key` of every row of ``rows`` (of ``kind``), a dask
    array's chunk by chunk, a device array's ``KEY_BYTES`` at a time copied to the host (the
    key reads the values on the host: a sample drawn by the keys is the one in-memory data
    of the same rows give)."""
    if kind is not DEVICE:
        return np.asarray(kind.map_rows(rows, projection_key, None, np.float64, owner))
    n, d = (int(v) for v in rows.shape)
    step = KEY_ROWS * max(1, KEY_BYTES // (8 * max(d, 1) * KEY_ROWS))
    return np.concatenate([projection_key(kind.take(rows, w, np.arange(a, min(a + step, n)))[0])
                           for a in range(0, n, step)] or [np.empty(0)])


def input_kind(X, sample_weight=None, engine_input="numpy"):
    """The kind of ``X``: dask when ``X`` or the weights are dask collections or the
    engine asked for takes dask input (``engine_input``), an array on a CUDA device
    (:mod:`kgroups._input_device`), else in memory."""
    if engine_input == "dask" or is_dask_collection(X) or is_dask_collection(sample_weight):
        return DASK
    if on_cuda_device(X):
        return DEVICE
    return IN_MEMORY


@dataclass
class FitData:
    """The data of a fit past the front door.

    Attributes
    ----------
    kind : InMemory, Dask or Device
        The input's kind (:func:`input_kind`).
    X : array-like of shape (n_kept, n_features) or (n_kept, n_kept)
        The checked rows of positive weight (rows and columns of a precomputed matrix).
    w : array-like of shape (n_kept,)
        Their weights, divided by ``wscale``.
    wscale : float
        The power of two the weights were divided by.
    keep : ndarray of bool of shape (n_samples,) or None
        The rows of positive weight, None when every row is kept.
    X_all : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Every checked row (those :func:`left_out_rows` takes).
    row_chunks : tuple of int or None
        The row chunks of the caller's data (dask), those of the labels.
    """

    kind: Any
    X: Any
    w: Any
    wscale: float
    keep: Any
    X_all: Any
    row_chunks: Any


def fit_data(est, X, sample_weight, *, kernel, semimetric, n_clusters, dtype, engine_input,
             features, validate):
    """The front door of a fit: ``X`` and ``sample_weight`` checked for their kind (and
    ``est``'s ``n_features_in_`` and ``feature_names_in_`` set), the estimator's
    parameters checked against them, the weights normalised and the rows of zero
    weight set aside (:func:`positive_rows`).

    Parameters
    ----------
    est : estimator
        The estimator being fitted (named in errors; its input attributes are set).
    X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
        Data of any kind, or a precomputed matrix.
    sample_weight : array-like of shape (n_samples,) or None
        Weights >= 0, some > 0.
    kernel : None or "precomputed"
        ``"precomputed"``: X is a Gram matrix.
    semimetric : str or callable
        ``"precomputed"``: X is a semimetric matrix.
    n_clusters : int
        The number of clusters k (at most the number of rows).
    dtype : str
        The dtype of the engine's kernel (the weights' safe range depends on it).
    engine_input : str
        The kind of input the engine asked for takes (``"numpy"`` for ``"auto"``).
    features : bool
        Whether the semimetric is built from the data (in memory only).
    validate : callable
        ``validate()`` checks the estimator's parameters (after the data).

    Returns
    -------
    data : FitData
    """
    owner = est._owner()
    precomputed = kernel == "precomputed" or semimetric == "precomputed"
    kind = input_kind(X, sample_weight, engine_input)
    X, row_chunks = kind.check_fit(est, X, precomputed)
    if precomputed:
        X = check_precomputed(X, "gram" if kernel == "precomputed" else "semimetric", owner)
    validate()
    check_n_clusters(n_clusters, X.shape[0], owner)
    if kernel == "precomputed" and semimetric == "precomputed":
        raise InvalidParameterError(
            f"{owner}: kernel='precomputed' and semimetric='precomputed' contradict each "
            "other: X is either a Gram matrix (kernel='precomputed', semimetric ignored) "
            "or a semimetric matrix (semimetric='precomputed', kernel=None)")
    w = kind.weights(sample_weight, X, owner)
    w, wscale = kind.normalized_weights(w, owner, dtype)
    # zero-weight rows are left out of the fit and labelled by predict's rule after it
    Xk, wk, keep = positive_rows(X, w, n_clusters, precomputed, owner)
    if features:
        check_graph_input(kind, semimetric, owner)
    return FitData(kind, Xk, wk, wscale, keep, X, row_chunks)


def check_graph_input(kind, semimetric, owner):
    """Refuse data not in host memory for a semimetric built from the data: its
    neighbourhood graph is built in memory (:mod:`kgroups._semimetrics.neighbors`)."""
    if kind.name == "numpy":
        return
    what = {"dask": "a dask collection", "cuda": "an array on a CUDA device"}.get(
        kind.name, f"{kind.name} data")
    raise InvalidParameterError(
        f"{owner}: semimetric={semimetric!r} builds the neighbourhood "
        f"graph of X in memory, and X is {what}; pass a NumPy array (X.compute() "
        "for dask, X.get() for CuPy), or use semimetric='energy', which takes it")
