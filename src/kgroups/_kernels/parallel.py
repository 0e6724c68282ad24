"""When to use a parallel kernel, and how its two compilations are made.

Launching a numba parallel region costs a few microseconds when the cores are
free, but when another process keeps a core busy a worker waits for a time
slice, which can stall the launch for milliseconds. Each parallel kernel is
therefore compiled twice from one source, with and without ``parallel=True``
(:func:`twins`); :func:`pick` takes the parallel one when the work, counted in
kernel entries (each O(1) to O(D)), is worth at least about a millisecond: then
a stalled launch costs a few times the call at worst, and a free machine gets
every core. A batch of pending moves of the matrix-free engine counts
``n_pend n`` entries (O(D) each), so a batch worth the launch runs in parallel.
"""

from .jit import Kernel

PARALLEL_MIN_WORK = 1 << 19


def pick(serial, parallel, work):
    """``parallel`` when ``work >= PARALLEL_MIN_WORK``, else ``serial``."""
    return parallel if work >= PARALLEL_MIN_WORK else serial


def twins(py_func):
    """``(serial, parallel)`` kernels of one source, cached apart.

    numba's on-disk cache (``cache=True``) names an entry by module, qualified
    name and first line, and keys it by signature and bytecode, not by the
    ``parallel`` flag: two dispatchers made from one Python function share one
    entry, so whichever compiles first is loaded for both, and a parallel twin
    loaded from a serial entry runs on one thread. Each twin here compiles its own
    copy of the function, with its own qualified name and so its own cache entry.
    """
    return (Kernel(py_func, tag="serial", cache=True),
            Kernel(py_func, tag="parallel", cache=True, parallel=True))
