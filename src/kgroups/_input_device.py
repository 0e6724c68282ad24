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

from ._validation import InvalidParameterError, is_device_array


def as_device(value):
    """A device array as a numba device array, without a copy: numba's own as they
    are, one with ``__cuda_array_interface__`` viewed in place, one with only DLPack
    (``__dlpack__`` on a CUDA device) viewed through CuPy or PyTorch, whichever is
    installed."""
    from ._kernels.numba_cuda import numba_cuda

    if hasattr(value, "__cuda_ndarray__"):
        return value
    cuda = numba_cuda()
    if hasattr(value, "__cuda_array_interface__"):
        return cuda.as_cuda_array(value)
    for name in ("cupy", "torch"):
        try:
            lib = __import__(name)
        except ImportError:
            continue
        return cuda.as_cuda_array(lib.from_dlpack(value))
    raise InvalidParameterError(
        f"X is a DLPack array on a CUDA device ({type(value).__name__}); reading it in "
        "place needs CuPy or PyTorch: pass a CuPy array (cupy.from_dlpack(X))")


def on_cuda_device(X):
    """Whether ``X`` is an array on a CUDA device: ``__cuda_array_interface__``, numba's
    device arrays, or DLPack reporting a CUDA device (type 2)."""
    if is_device_array(X):
        return True
    dev = getattr(X, "__dlpack_device__", None)
    if dev is None or isinstance(X, np.ndarray):
        return False
    try:
        return int(dev()[0]) == 2  # kDLCUDA
    except Exception:  # noqa: BLE001 - an object whose DLPack device cannot be asked
        return False


class DeviceRows:
    """Rows of a 2-D array on a CUDA device, as the GPU engine reads them.

    ``array``: the caller's array (a numba view of it); ``rows``: which of its rows
    (None: all), in order; ``scale``: the factor their values are multiplied by when
    read (an exact power of two: the rescaling of extreme magnitudes); ``source``:
    the caller's object, whose library and device the results take
    (:func:`like_input`). Indexing by rows and multiplying by a number give new
    views, so the estimators' one path (zero-weight rows left out, rescaling) takes
    device data unchanged, and nothing is copied until the engine transposes the rows
    it reads into its own layout.
    """

    def __init__(self, array, rows=None, scale=1.0, source=None):
        self.array, self.rows, self.scale = array, rows, float(scale)
        self.source = array if source is None else source

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
                          self.source)

    def __mul__(self, factor):
        return DeviceRows(self.array, self.rows, self.scale * float(factor), self.source)

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


def scan_device(X, name, owner):
    """The largest ``|x|`` of a device array (n, D); an error naming it when some entry
    is NaN or infinite."""
    from ._kernels import cuda as kernels

    cuda = kernels.cuda
    out = cuda.to_device(np.zeros(2))
    kernels.scan_rows[kernels.blocks(X.shape[0]), kernels.THREADS](X, out)
    big, bad = out.copy_to_host()
    if bad:
        raise InvalidParameterError(
            f"{owner}: {name} contains NaN or infinity ({int(bad)} entries, on the device); "
            "expected finite values")
    return float(big)


def device_rows(X, name, owner, min_rows=1):
    """``X`` as a numba device array (n, D) of numbers, viewed in place, with at least
    ``min_rows`` rows and one column and every entry finite; a clear error
    otherwise."""
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
    scan_device(d, name, owner)
    return d


def host_values(value):
    """Weights or labels in host memory (a device array copied: n numbers)."""
    if on_cuda_device(value):
        return as_device(value).copy_to_host()
    return value
