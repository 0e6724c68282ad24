"""The CUDA device, as the GPU engine and the device pair sums see it: numba's CUDA
module (:func:`~kgroups._kernels.numba_cuda.numba_cuda`, the one place the package
imports it), whether a device is usable, its free memory, the CUDA kernels
(:mod:`kgroups._kernels.cuda`), and the counts of what a fit asked of the device
(:class:`DeviceTally`). Each is imported only when asked for, so that ``import
kgroups`` never needs numba-cuda."""

from __future__ import annotations

import time

import numpy as np

from .._validation import InvalidParameterError, is_device_array
from .numba_cuda import numba_cuda

def cuda_kernels():
    """The CUDA kernels (importing numba.cuda), or a clear error naming the extra."""
    try:
        from .._kernels import cuda as kernels
    except ImportError as exc:  # pragma: no cover - numba without CUDA support
        raise InvalidParameterError(
            f"engine='gpu' needs numba-cuda: install the gpu extra (pip install '.[gpu]' "
            f"from a checkout of kgroups) ({exc})") from None
    return kernels


def cuda_usable(real_device=True):
    """Whether a CUDA device can run the GPU engine (``real_device=False``: or the
    simulator). Never raises: False without numba-cuda, a driver or a device."""
    try:
        cuda = numba_cuda()
        from numba import config

        if real_device and config.ENABLE_CUDASIM:
            return False
        return bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - any failure to find a device means "no"
        return False


def simulated():
    """Whether numba runs CUDA code in its simulator (``NUMBA_ENABLE_CUDASIM=1``)."""
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def device_free_memory():
    """Bytes free on the current CUDA device (unlimited under the simulator)."""
    cuda = numba_cuda()
    if simulated():
        return float("inf")
    return float(cuda.current_context().get_memory_info()[0])


def check_device_fits(nbytes, what, free=None,
                      advice="use engine='matrix-free' (host memory) or fewer clusters"):
    """Raise a clear error, before allocating, when ``nbytes`` more of device memory do
    not fit in 90% of the memory free (``free``: :func:`device_free_memory`): ``what``
    needs so much, and ``advice``."""
    free = device_free_memory() if free is None else free
    if nbytes > 0.9 * free:
        raise InvalidParameterError(
            f"{what} needs {nbytes / 2**30:.2f} GiB of device memory but "
            f"{free / 2**30:.2f} GiB are free; {advice}")


# What DeviceTally counts in each phase.
TALLY_KEYS = ("transfers", "bytes_to_device", "bytes_to_host", "launches", "syncs",
              "allocations", "bytes_allocated", "batches", "windows",
              "host_decision_seconds", "device_seconds")


class DeviceTally:
    """Per phase (``"start"``, ``"sweeps"``, ``"finish"``...): transfers (count and
    bytes each way), kernel launches, synchronisations, device allocations, batches
    of moves, windows of columns fetched, host-decision seconds and device seconds
    (from CUDA events between a launch and the synchronisation that waits for it;
    0 under the simulator, whose timings mean nothing).

    Every device call of the GPU engine goes through it (:meth:`launch`,
    :meth:`to_device`, :meth:`to_host`, :meth:`sync`, :meth:`alloc`), so the counts
    are those of the run, not estimates.
    """

    def __init__(self, cuda, stream):
        self.cuda, self.stream = cuda, stream
        self.phase = "prepare"
        self.phases = {}
        self.by_kernel = {}  # launches per kernel name, over the whole fit
        self._timed = not simulated()
        self._first = None  # event recorded at the first launch since the last sync

    def count(self, key, value=1):
        """Add ``value`` to the phase's ``key`` (one of :data:`TALLY_KEYS`)."""
        self._add(key, value)

    def _add(self, key, value=1):
        row = self.phases.setdefault(self.phase, dict.fromkeys(TALLY_KEYS, 0))
        row[key] += value

    def alloc(self, shape, dtype=np.float64, what="the GPU engine"):
        """A device array, its size checked against the free memory first."""
        nbytes = int(np.prod(shape)) * np.dtype(dtype).itemsize
        check_device_fits(nbytes, what)
        self._add("allocations")
        self._add("bytes_allocated", nbytes)
        return self.cuda.device_array(shape, dtype=dtype)

    def to_device(self, host, dev):
        """Copy ``host`` into the device array ``dev`` (same size), on the stream."""
        dev.copy_to_device(host, stream=self.stream)
        self._add("transfers")
        self._add("bytes_to_device", host.nbytes)

    def to_host(self, dev, host):
        """Copy the device array ``dev`` into ``host`` (same size), on the stream."""
        dev.copy_to_host(host, stream=self.stream)
        self._add("transfers")
        self._add("bytes_to_host", host.nbytes)

    def launch(self, kernel, grid, block, *args, shared=0):
        """Launch ``kernel`` on the stream."""
        if self._timed and self._first is None:
            self._first = self.cuda.event()
            self._first.record(self.stream)
        kernel[grid, block, self.stream, shared](*args)
        self._add("launches")
        name = getattr(kernel, "__name__", None) or getattr(kernel.py_func, "__name__", "?")
        self.by_kernel[name] = self.by_kernel.get(name, 0) + 1

    def sync(self):
        """Wait for the stream; the device time since the first launch it waits for."""
        end = None
        if self._timed and self._first is not None:
            end = self.cuda.event()
            end.record(self.stream)
        self.stream.synchronize()
        self._add("syncs")
        if end is not None:
            self._add("device_seconds", self._first.elapsed_time(end) / 1e3)
        self._first = None

    def host_decisions(self):
        """A context adding its wall time to the phase's host-decision seconds."""
        return _Clock(self, "host_decision_seconds")

    def summary(self):
        """The counts per phase, rounded seconds."""
        return {p: {k: (round(v, 6) if isinstance(v, float) else int(v))
                    for k, v in row.items()} for p, row in self.phases.items()}


class _Clock:
    def __init__(self, tally, key):
        self.tally, self.key = tally, key

    def __enter__(self):
        self.t0 = time.perf_counter()

    def __exit__(self, *exc):
        self.tally._add(self.key, time.perf_counter() - self.t0)


# -- device arrays as the estimators and the energy statistics take them ---------------
def as_device(value):
    """A device array as a numba device array, without a copy: numba's own as they
    are, one with ``__cuda_array_interface__`` viewed in place, one with only DLPack
    (``__dlpack__`` on a CUDA device) viewed through CuPy or PyTorch, whichever is
    installed."""
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


def dlpack_on_cuda(value):
    """Whether ``value`` speaks DLPack from a CUDA device (type 2)."""
    dev = getattr(value, "__dlpack_device__", None)
    if dev is None or isinstance(value, np.ndarray):
        return False
    try:
        return int(dev()[0]) == 2  # kDLCUDA
    except Exception:  # noqa: BLE001 - an object whose DLPack device cannot be asked
        return False


def scan_device(X, name, owner):
    """The largest ``|x|`` of a device array (n, D); an error naming it when some entry
    is NaN or infinite."""
    from . import cuda as kernels

    cuda = kernels.cuda
    out = cuda.to_device(np.zeros(2))
    kernels.scan_rows[kernels.blocks(X.shape[0]), kernels.THREADS](X, out)
    big, bad = out.copy_to_host()
    if bad:
        raise InvalidParameterError(
            f"{owner}: {name} contains NaN or infinity ({int(bad)} entries, on the device); "
            "expected finite values")
    return float(big)


def host_values(value):
    """Weights or labels in host memory (a device array copied: n numbers)."""
    if is_device_array(value) or dlpack_on_cuda(value):
        return as_device(value).copy_to_host()
    return value
