"""When to use a parallel kernel, and how its two compilations are made.

Launching a numba parallel region costs from ~0.3 ms (workqueue layer) to
~15 ms (GNU OpenMP layer, measured on the 2-core CI machine). Each parallel
kernel is therefore compiled twice from one source, with and without
``parallel=True`` (:func:`twins`); :func:`pick` takes the parallel one only when
the work (number of inner-loop steps) is large enough to pay for the launch.
"""

import types

from numba import njit

PARALLEL_MIN_WORK = 1 << 22


def pick(serial, parallel, work):
    """``parallel`` when ``work >= PARALLEL_MIN_WORK``, else ``serial``."""
    return parallel if work >= PARALLEL_MIN_WORK else serial


def twins(py_func):
    """``(serial, parallel)`` dispatchers of one kernel source, cached apart.

    numba's on-disk cache (``cache=True``) names an entry by module, qualified
    name and first line, and keys it by signature and bytecode, not by the
    ``parallel`` flag: two dispatchers made from one Python function share one
    entry, so whichever compiled first was loaded for both. The parallel twin then
    ran serially (measured: the matrix-free build at 2 workers took the CPU time
    of 1, CPU time = wall time). Each twin here compiles its own copy of the
    function, with its own qualified name and so its own cache entry.
    """
    return (njit(cache=True)(_copy(py_func, "serial")),
            njit(cache=True, parallel=True)(_copy(py_func, "parallel")))


def _copy(py_func, tag):
    f = types.FunctionType(py_func.__code__, py_func.__globals__, py_func.__name__,
                           py_func.__defaults__, py_func.__closure__)
    f.__qualname__ = f"{py_func.__qualname__}__{tag}"
    f.__module__ = py_func.__module__
    f.__doc__ = py_func.__doc__
    return f
