"""The array checks of the front door, one rule each.

Data (:func:`check_data`: a dense 2-D array of finite numbers; :func:`check_finite`;
:func:`check_numeric_columns`: a DataFrame's columns; :func:`check_in_memory`: not a
dask collection and, unless the caller takes them, not an array on a CUDA device,
which :func:`is_dask_collection` and :func:`is_device_array` recognise without
importing dask or a CUDA library), weights (:func:`check_sample_weight`) and labels
(:func:`encode_labels`, :func:`label_array`, :func:`check_init_labels`,
:func:`check_init_starts`). An error is an :class:`~kgroups._errors.InvalidParameterError`
naming the caller, the parameter and what was expected. :mod:`kgroups._validation`
re-exports them, beside the checks that apply its integer and symmetry rules
(``n_clusters``, precomputed matrices).
"""

from __future__ import annotations

import numpy as np

from ._errors import InvalidParameterError, describe
from ._sparse import issparse


def is_dask_collection(X):
    """Whether ``X`` is a dask collection (array, DataFrame, ...), without importing dask."""
    return hasattr(type(X), "__dask_graph__")


def is_device_array(X):
    """Whether ``X`` is an array on a CUDA device (CuPy, PyTorch: it has
    ``__cuda_array_interface__``; numba's device arrays, also those of its CUDA
    simulator: ``__cuda_ndarray__``), without importing any of them."""
    return hasattr(X, "__cuda_array_interface__") or hasattr(X, "__cuda_ndarray__")


def check_data(X, name="X", owner="kgroups", *, allow_1d=False, min_samples=1):
    """Dense float64 2-D array of finite numbers (1-D is one feature when ``allow_1d``).

    A scipy.sparse matrix, a dask collection, strings, objects, ragged lists, NaN or
    inf, and empty arrays get an error naming ``name``.
    """
    if issparse(X):
        raise InvalidParameterError(
            f"{owner}: {name} is a scipy.sparse matrix of shape {X.shape}; this function "
            f"needs dense data: pass {name}.toarray()")
    check_in_memory(X, name, owner)
    check_numeric_columns(X, name, owner)
    try:
        arr = np.asarray(X)
    except (TypeError, ValueError):  # ragged nested sequences
        raise InvalidParameterError(
            f"{owner}: {name}={describe(X)} should be an array of numbers") from None
    if arr.dtype.kind not in "biufOUS":  # dates, complex numbers: refused
        raise InvalidParameterError(
            f"{owner}: {name}={array_summary(arr)} should be an array of numbers")
    arr = text_as_numbers(arr, name, owner)
    if arr.ndim == 1 and allow_1d:
        arr = arr[:, None]
    if arr.ndim != 2:
        want = "a 1-D or 2-D" if allow_1d else "a 2-D (n_samples, n_features)"
        raise InvalidParameterError(f"{owner}: {name} should be {want} array, got shape {arr.shape}")
    if arr.shape[0] < min_samples or arr.shape[1] == 0:
        raise InvalidParameterError(
            f"{owner}: {name} has shape {arr.shape}; expected at least {min_samples} row(s) "
            "and 1 column")
    check_finite(arr, name, owner)
    return arr


def array_summary(arr):
    """An array in words, without its values (which may be many).

    >>> array_summary(np.array([["a", "b"]]))
    'an array of shape (1, 2) and dtype <U1'
    """
    return f"an array of shape {arr.shape} and dtype {arr.dtype}"


def text_as_numbers(arr, name, owner="kgroups"):
    """``arr`` as float64, numbers written as text (``'1.5'``, ``b'2'``) included, as
    scikit-learn's ``KMeans`` reads them. An entry that is not a number is an error
    naming it, its column and the fix, without printing the array (which may be
    large)."""
    try:
        return np.asarray(arr, dtype=np.float64)
    except (TypeError, ValueError):
        pass
    for index in np.ndindex(arr.shape):  # the first entry float() refuses
        try:
            float(arr[index])
        except (TypeError, ValueError) as exc:
            why = str(exc)
            break
    else:  # every entry reads alone: the array as a whole does not (ragged objects)
        raise InvalidParameterError(
            f"{owner}: {name}={array_summary(arr)} should be an array of numbers")
    at = f"{name}[{', '.join(map(str, index))}]"
    value = arr[index]
    value = value.item() if isinstance(value, np.generic) else value  # 'abc', not np.str_
    text = isinstance(value, (str, bytes))
    what = (f": column {index[1]} of {name} holds text; drop that column or encode it as "
            "numbers (for example one-hot)" if text and len(index) == 2 else f" ({why})")
    raise InvalidParameterError(
        f"{owner}: {name}={array_summary(arr)} should be an array of numbers, but "
        f"{at}={describe(value, 40)} is "
        f"not one{what}. Numbers written as text, such as '1.5', are read as numbers")


def check_in_memory(X, name, owner="kgroups", device_ok=False):
    """Refuse a dask collection or a device array (unless ``device_ok``: the caller
    takes device arrays as they are), naming what runs on them (nothing computes or
    copies them silently)."""
    if is_device_array(X) and not device_ok:
        raise InvalidParameterError(
            f"{owner}: {name} is an array on a CUDA device ({type(X).__name__}); {owner} "
            f"needs host memory: copy it to the host (e.g. {name}.get() for CuPy). On the "
            "device run KernelKGroups and KernelKMeans (engine='gpu' or 'auto'), "
            "energy_distance, within_energy, between_energy, total_energy, energy_test and "
            "disco")
    if is_dask_collection(X):
        raise InvalidParameterError(
            f"{owner}: {name} is a dask {type(X).__name__}; {owner} needs in-memory data: pass "
            f"{name}.compute() (or a sample of it). On Dask run KernelKGroups, "
            "energy_distance, within_energy, between_energy, total_energy, energy_test "
            "(n_permutations=0) and disco (n_permutations=0)")


def check_numeric_columns(X, name, owner="kgroups"):
    """Refuse a DataFrame with non-numeric columns, naming them (every entry point
    says it the same way, before any conversion)."""
    dtypes = getattr(X, "dtypes", None)
    if dtypes is None or not hasattr(X, "columns") or not hasattr(dtypes, "items"):
        return
    bad = [str(c) for c, dt in dtypes.items()
           if getattr(dt, "kind", "O") not in "biuf"]
    if bad:
        raise InvalidParameterError(
            f"{owner}: {name} is a DataFrame with non-numeric columns {bad}; expected "
            "numeric columns only (drop them or encode them as numbers)")


def check_finite(arr, name, owner="kgroups"):
    """Raise naming the first NaN or infinite entry of ``arr``, and the way out."""
    data = arr.data if issparse(arr) else arr
    if not np.all(np.isfinite(data)):
        if issparse(arr):
            value = float(data[np.argmax(~np.isfinite(data))])
            raise InvalidParameterError(f"{owner}: {name} contains NaN or infinity; "
                                        f"expected finite values{non_finite_fix(name, value)}")
        bad = tuple(int(b) for b in np.argwhere(~np.isfinite(arr))[0])
        value = float(arr[bad])
        raise InvalidParameterError(
            f"{owner}: {name} contains NaN or infinity: {name}[{', '.join(map(str, bad))}]="
            f"{value!r}; expected finite values{non_finite_fix(name, value)}")


def non_finite_fix(name, value):
    """What to do about a non-finite ``value`` in the array ``name`` (nothing for
    weights, whose constraint says what they should be)."""
    if "weight" in name:
        return ""
    if np.isnan(value):
        return ("; NaN marks a missing value: drop those rows or impute them first (for "
                "example scikit-learn's SimpleImputer in a Pipeline before the estimator)")
    return f"; drop those rows, or rescale {name} so that every value is finite"


def check_sample_weight(sample_weight, n_samples, owner="KernelKGroups", name="sample_weight",
                        *, allow_zero=False, zero_why=""):
    """Float64 weights of shape (n_samples,), finite and > 0 (default: ones).

    A scalar means that weight for every sample. ``allow_zero=True``: weights >= 0
    (a zero-weight sample counts as removed), at least one of them > 0; else
    ``zero_why`` ends the message on a weight of 0 (why the caller takes none).
    """
    if sample_weight is None:
        return np.ones(n_samples)
    if issparse(sample_weight):
        raise InvalidParameterError(f"{owner}: {name} should be a dense 1-D array, got "
                                    f"{describe(sample_weight)}")
    try:
        w = np.asarray(sample_weight)
        if w.dtype.kind in "cmM":   # complex numbers, dates: no weights (not cast to real)
            raise TypeError
        w = np.asarray(w, dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{owner}: {name}={describe(sample_weight)} should be an array of real numbers"
        ) from None
    if w.ndim == 0:
        w = np.full(n_samples, float(w))
    if w.ndim != 1 or w.shape[0] != n_samples:
        raise InvalidParameterError(
            f"{owner}: {name} has shape {w.shape}, expected ({n_samples},)")
    bad = ~np.isfinite(w) | ((w < 0) if allow_zero else (w <= 0))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        rule = ">= 0 (no negative" if allow_zero else "> 0 (no zero, negative"
        why = f": {zero_why}" if zero_why and w[i] == 0 else ""
        raise InvalidParameterError(f"{owner}: {name}[{i}]={float(w[i])!r}; weights should be "
                                    f"finite and {rule}, NaN or inf weight){why}")
    if allow_zero and n_samples and not np.any(w > 0):
        raise InvalidParameterError(f"{owner}: every {name} is zero; at least one sample "
                                    "needs a positive weight")
    return w


def encode_labels(labels, n_samples, owner="kgroups", name="labels"):
    """Codes ``0..k-1`` (in sorted order of the values) and the values, one per sample.

    Any hashable, sortable values (integers, strings); NaN and None are refused.
    """
    try:
        lab = np.asarray(labels)
    except ValueError:  # ragged nested sequences
        raise InvalidParameterError(
            f"{owner}: {name}={describe(labels)} should be a 1-D array of labels") from None
    if lab.ndim != 1 or lab.shape[0] != n_samples:
        raise InvalidParameterError(
            f"{owner}: {name} has shape {lab.shape}, expected ({n_samples},) "
            "(one label per sample)")
    if lab.dtype.kind == "f" and not np.all(np.isfinite(lab)):
        raise InvalidParameterError(f"{owner}: {name} contains NaN or infinity")
    if lab.dtype.kind == "O" and any(v is None or (isinstance(v, float) and v != v)
                                     for v in lab):
        raise InvalidParameterError(f"{owner}: {name} contains None or NaN")
    try:
        values, codes = np.unique(lab, return_inverse=True)
    except TypeError:
        raise InvalidParameterError(
            f"{owner}: {name} mixes values that cannot be compared (e.g. numbers and "
            "strings)") from None
    return codes.reshape(-1).astype(np.int64), values


def label_array(labels, owner, name):
    """``np.asarray(labels)``, with a ragged sequence refused by name."""
    try:
        return np.asarray(labels)
    except (ValueError, TypeError):
        raise InvalidParameterError(
            f"{owner}: {name} should be an array of integer labels, got a ragged "
            f"sequence ({type(labels).__name__} whose items differ in length)") from None


def integral_labels(lab):
    """Whether the array ``lab`` holds integers (of an integer dtype, or finite whole
    floats).

    >>> integral_labels(np.array([0.0, 2.0])), integral_labels(np.array([True, False]))
    (True, False)
    """
    return lab.dtype.kind in "iu" or (lab.dtype.kind == "f" and bool(
        np.all(np.isfinite(lab)) and np.all(lab == np.round(lab))))


def check_init_labels(labels, n_samples, n_clusters, owner="KernelKGroups", name="init labels",
                      noise=False):
    """Given starting labels: integers in ``[0, n_clusters)``, one per sample; with
    ``noise``, -1 too (a point set aside)."""
    if issparse(labels):
        raise InvalidParameterError(f"{owner}: {name} should be a 1-D array, got "
                                    f"{describe(labels)}")
    lab = label_array(labels, owner, name)
    if lab.ndim != 1 or lab.shape[0] != n_samples:
        raise InvalidParameterError(
            f"{owner}: {name} have shape {lab.shape}, expected ({n_samples},)")
    low, aside = (-1, " (-1: set aside)") if noise else (0, "")
    if not integral_labels(lab):
        raise InvalidParameterError(
            f"{owner}: {name} should be integers in [{low}, {n_clusters - 1}]{aside}, got "
            f"{describe(labels)}")
    lab = lab.astype(np.int64)
    if lab.min() < low or lab.max() >= n_clusters:
        raise InvalidParameterError(
            f"{owner}: {name} should lie in [{low}, {n_clusters - 1}]{aside}, "
            f"got min={lab.min()} max={lab.max()}")
    return lab


def check_init_starts(init, n_samples, n_clusters, owner="KernelKGroups", noise=False):
    """Given starting labels, one start or one per row: a list of label arrays
    (:func:`check_init_labels` each, -1 allowed with ``noise``; rows named ``init[r]``)."""
    if issparse(init):
        raise InvalidParameterError(f"{owner}: init labels should be an array of shape "
                                    f"({n_samples},) or (n_starts, {n_samples}), got "
                                    f"{describe(init)}")
    lab = label_array(init, owner, "init labels")
    if lab.ndim == 2 and lab.shape[1] == n_samples and lab.shape[0] >= 1:
        return [check_init_labels(row, n_samples, n_clusters, owner, f"init[{r}]", noise)
                for r, row in enumerate(lab)]
    if lab.ndim == 1:
        return [check_init_labels(lab, n_samples, n_clusters, owner, noise=noise)]
    raise InvalidParameterError(
        f"{owner}: init labels have shape {lab.shape}, expected ({n_samples},) or "
        f"(n_starts, {n_samples}) with n_starts >= 1 (one start per row)")
