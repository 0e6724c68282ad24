"""Data on a CUDA device, as the estimators take it (the input kind
:class:`kgroups._input.Device`): arrays with
``__cuda_array_interface__`` (CuPy, PyTorch, numba device arrays) or DLPack on a
CUDA device go into ``fit``, ``predict``, ``transform`` and ``score`` of the
estimators on raw data with ``engine="gpu"`` (or ``"auto"``), and stay there.

The data are checked on the device (finite, their largest ``|x|``:
:func:`kgroups._kernels.cuda.scan_rows`) and read by the GPU engine in place
(:class:`DeviceRows`: the caller's array, the rows the fit keeps and the power of two
the values are multiplied by); nothing copies ``X`` to the host. Weights and labels
(n numbers each) are read on the host, as for in-memory data. ``predict`` and
``transform`` return their result in the input's array library and on its device
(:func:`like_input`), the convention of scikit-learn's Array API support; ``labels_``
stays a NumPy array.
"""

from __future__ import annotations

import numpy as np

from ._kernels.device import as_device, dlpack_on_cuda, scan_device
from ._validation import InvalidParameterError, is_device_array


def on_cuda_device(X):
    """Whether ``X`` is an array on a CUDA device: ``__cuda_array_interface__``, numba's
    device arrays, or DLPack reporting a CUDA device."""
    return is_device_array(X) or dlpack_on_cuda(X)


class DeviceRows:
    """Rows of a 2-D array on a CUDA device, as the GPU engine reads them.

    ``array``: the caller's array (a numba view of it); ``rows``: which of its rows
    (None: all), in order; ``scale``: the factor their values are multiplied by when
    read (an exact power of two: the rescaling of extreme magnitudes); ``source``:
    the caller's object, whose library and device the results take
    (:func:`like_input`); ``largest``: the largest ``|x|`` of the array, found when it
    was checked (:func:`device_rows`). Indexing by rows and multiplying by a number give new
    views, so the estimators' one path (zero-weight rows left out, rescaling) takes
    device data unchanged, and nothing is copied until the engine transposes the rows
    it reads into its own layout.
    """

    def __init__(self, array, rows=None, scale=1.0, source=None, largest=None):
        self.array, self.rows, self.scale = array, rows, float(scale)
        self.source = array if source is None else source
        self.largest = largest

    @property
    def shape(self):
        n = self.array.shape[0] if self.rows is None else self.rows.shape[0]
        return (n, self.array.shape[1])

    @property
    def ndim(self):
        return 2

    def row_index(self):
        """The rows read, as int64 indices of ``array``."""
        return np.arange(self.array.shape[0]) if self.rows is None else self.rows

    def __getitem__(self, idx):
        sel = self.row_index()[idx]
        return DeviceRows(self.array, np.ascontiguousarray(sel, dtype=np.int64), self.scale,
                          self.source, self.largest)

    def __mul__(self, factor):
        return DeviceRows(self.array, self.rows, self.scale * float(factor), self.source,
                          self.largest)

    __rmul__ = __mul__

    def __len__(self):
        return self.shape[0]


def like_input(result, source):
    """``result`` (a NumPy array) in the library of ``source`` and on its device: a
    numba device array for numba's, else the array library's own (``asarray`` of CuPy,
    ``as_tensor`` of PyTorch on the input's device, or any library with the Array
    API's ``__array_namespace__``)."""
    from ._kernels.numba_cuda import numba_cuda

    if hasattr(source, "__cuda_ndarray__"):
        return numba_cuda().to_device(np.ascontiguousarray(result))
    root = type(source).__module__.split(".")[0]
    if root == "torch":
        import torch

        return torch.as_tensor(result, device=source.device)
    if root == "cupy":
        import cupy

        with cupy.cuda.Device(source.device.id):
            return cupy.asarray(result)
    if hasattr(source, "__array_namespace__"):
        return source.__array_namespace__().asarray(result, device=source.device)
    return numba_cuda().to_device(np.ascontiguousarray(result))


def device_rows(X, name, owner, min_rows=1):
    """``X`` as :class:`DeviceRows` of a numba device array (n, D) of numbers, viewed in
    place, with at least ``min_rows`` rows and one column and every entry finite
    (its largest ``|x|`` kept); a clear error otherwise."""
    d = as_device(X)
    if d.ndim != 2:
        hint = "; reshape it to (n_samples, 1) for one feature" if d.ndim == 1 else ""
        raise InvalidParameterError(
            f"{owner}: {name} should be a 2-D array (n_samples, n_features) on the device, "
            f"got shape {tuple(d.shape)}{hint}")
    if d.shape[0] < min_rows or d.shape[1] < 1:
        raise InvalidParameterError(
            f"{owner}: {name} has shape {tuple(d.shape)}; expected at least {min_rows} "
            "row(s) and 1 column")
    if np.dtype(d.dtype).kind not in "biuf":
        raise InvalidParameterError(
            f"{owner}: {name} has dtype {d.dtype} on the device; expected numbers")
    return DeviceRows(d, source=X, largest=scan_device(d, name, owner))
