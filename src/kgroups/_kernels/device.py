"""The CUDA device, as the GPU engine and the device pair sums see it: whether one is
usable, its free memory, and the CUDA kernels (:mod:`kgroups._kernels.cuda`), each
imported only when asked for so that ``import kgroups`` never needs numba-cuda."""

from __future__ import annotations

from .._validation import InvalidParameterError


def cuda_kernels():
    """The CUDA kernels (importing numba.cuda), or a clear error naming the extra."""
    try:
        from .._kernels import cuda as kernels
    except ImportError as exc:  # pragma: no cover - numba without CUDA support
        raise InvalidParameterError(
            f"engine='gpu' needs numba-cuda: pip install 'kgroups[gpu]' ({exc})") from None
    return kernels


def cuda_usable(real_device=True):
    """Whether a CUDA device can run the GPU engine (``real_device=False``: or the
    simulator). Never raises: False without numba-cuda, a driver or a device."""
    try:
        from numba import config, cuda

        if real_device and config.ENABLE_CUDASIM:
            return False
        return bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - any failure to find a device means "no"
        return False


def device_free_memory():
    """Bytes free on the current CUDA device (unlimited under the simulator)."""
    from numba import cuda

    free = cuda.current_context().get_memory_info()[0]
    return float(free)
