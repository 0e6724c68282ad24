"""numba's ``njit``, deferred: each kernel runs compiled, or as Python when that is cheaper.

Every CPU kernel of :mod:`kgroups._kernels` is a :class:`Kernel`, made by :func:`njit`
from its Python source and the options of :func:`numba.njit`. A process pays a fixed
cost before its first compiled kernel runs: importing numba and LLVM, loading each
kernel from numba's disk cache, and tearing LLVM down at exit. That cost is larger
than a whole fit of a few dozen points run as plain Python, so a kernel runs in one
of two ways:

* **compiled** (the default). numba is imported, and the kernel's dispatcher made, at
  its first compiled call (:attr:`Kernel.dispatcher`). The dispatcher compiles a copy
  of the source whose globals bind the kernels it calls to their dispatchers, so
  numba sees exactly what ``numba.njit`` on the module would have given it (and
  caches it on disk under the same name).
* **as Python**, inside :func:`as_python`: the kernel's own function runs, and the
  kernels it calls run as Python too. The kernels add and
  multiply scalars in loops (no reduction whose order numpy would choose, and numba
  compiles them without ``fastmath``), so both ways perform the same IEEE operations
  in the same order: the same values and the same decisions, only slower.

:func:`tiered` decides for one call of a public function, from the user's setting
``kernels`` (:func:`kgroups.config_context`, :mod:`kgroups._config`): ``"compiled"``
and ``"python"`` decide every call; ``"auto"`` (the default) runs a call as Python
when its work is at most :data:`PYTHON_MAX_WORK`, no kernel has run compiled in this
process yet, and the kernels run as Python so far have taken less than
:data:`PYTHON_BUDGET` seconds (about what loading numba costs: once a process has
spent that much, paying the fixed cost is the better bet, and every later call runs
compiled). A kernel called outside any :func:`tiered` runs compiled, or as Python
when the setting is ``"python"``.
"""

from __future__ import annotations

import contextvars
import os
import sys
import threading
import time
import types
from contextlib import contextmanager

import numpy as np

from .._config import kernels_setting

# Largest work that tiered() runs as Python, in the caller's count (a fit counts
# n^2 + n_init k n, kgroups._fitting.fit_work: a fit of about 100 points in 3 clusters
# from 30 starts; a block of semimetric values its entries).
PYTHON_MAX_WORK = 20_000
# Seconds of calls run as Python, summed over the process, after which tiered() runs
# everything compiled.
PYTHON_BUDGET = 0.5

# True: kernels run as Python; False: compiled; None (no choice made): compiled.
_PYTHON = contextvars.ContextVar("kgroups_kernels_as_python", default=None)
_LOCK = threading.RLock()
_REBOUND = {}  # id(module globals) -> those globals with kernels bound to dispatchers
_STATE = {"compiled": False, "python_seconds": 0.0}


def with_globals(fn, glob, qualname=None):
    """``fn``'s code with the globals ``glob`` (a compiled twin of a function calls
    the compiled twins of its callees); ``qualname`` names it for numba's cache."""
    f = types.FunctionType(fn.__code__, glob, fn.__name__, fn.__defaults__, fn.__closure__)
    f.__qualname__ = fn.__qualname__ if qualname is None else qualname
    f.__module__ = fn.__module__
    f.__doc__ = fn.__doc__
    return f


class Kernel:
    """A numba kernel that is compiled only when it first runs compiled.

    Parameters
    ----------
    py_func : function
        The kernel's Python source (it calls other kernels by their global names).
    tag : str or None
        Appended to the qualified name the compiled copy is cached under, so that
        two kernels of one source compiled with different options have their own
        entries in numba's disk cache (which names an entry by module, qualified
        name and first line, not by the options).
    **options
        For :func:`numba.njit` (``cache``, ``nogil``, ``inline``).
    """

    def __init__(self, py_func, *, tag=None, **options):
        self.py_func = py_func
        self.options = options
        self.__name__ = py_func.__name__
        self.__qualname__ = py_func.__qualname__ + (f"__{tag}" if tag else "")
        self.__module__ = py_func.__module__
        self.__doc__ = py_func.__doc__
        self._dispatcher = None

    def __repr__(self):
        return f"<kernel {self.__module__}.{self.__qualname__}>"

    def __call__(self, *args):
        return self.target()(*args)

    def target(self):
        """What a call runs now: :attr:`py_func` when the kernels run as Python (see
        the module docstring), else the compiled :attr:`dispatcher`."""
        python = _PYTHON.get()
        if python or (python is None and kernels_setting() == "python"):
            return self.py_func
        return self._dispatcher or self.dispatcher

    @property
    def dispatcher(self):
        """The numba dispatcher (made, and numba imported, at the first access)."""
        if self._dispatcher is None:
            with _LOCK:
                numba = _numba()
                glob = _rebound(self.py_func.__globals__)
                if self._dispatcher is None:  # _rebound may have made it (recursion)
                    self._dispatcher = _dispatcher(
                        numba, with_globals(self.py_func, glob, self.__qualname__),
                        self.options)
                    _STATE["compiled"] = True
        return self._dispatcher


class Intrinsic(Kernel):
    """A kernel whose compiled form is a numba function that ``build()`` makes (one that
    emits an LLVM intrinsic, which numba cannot compile from Python source), and
    whose Python form is ``py_func``, which computes the same IEEE result."""

    def __init__(self, py_func, build):
        super().__init__(py_func)
        self._build = build

    @property
    def dispatcher(self):
        if self._dispatcher is None:
            with _LOCK:
                _numba()
                if self._dispatcher is None:
                    self._dispatcher = self._build()
                    _STATE["compiled"] = True
        return self._dispatcher


def njit(fn=None, **options):
    """``@njit`` or ``@njit(**options)``, as :func:`numba.njit`, returning a :class:`Kernel`."""
    if fn is None:
        return lambda f: Kernel(f, **options)
    return Kernel(fn, **options)


def kernel_array(a, dtype=None):
    """``a`` as a kernel takes it: C-contiguous and writable, copied only where it is not.

    numba compiles a kernel once for each type of its arguments, and an array's type
    includes its layout and whether it is read-only: a Fortran-ordered, strided or
    read-only input (a column of a matrix, a memory map, an unpickled estimator's
    attributes) would cost a compilation of its own at its first use."""
    return np.require(a, dtype, ["C", "W"])


def _dispatcher(numba, fn, options):
    """``numba.njit(**options)(fn)``; where numba can write its cache nowhere (a read-only
    install whose home directory is read-only too, and no ``NUMBA_CACHE_DIR``: numba
    refuses ``cache=True`` with a RuntimeError), the same kernel compiled in memory
    only, and the compile notice says where the cache can go
    (:func:`~kgroups._kernels.notice.cache_unavailable`)."""
    try:
        return numba.njit(**options)(fn)
    except RuntimeError as error:
        if not options.get("cache"):
            raise
        from . import notice

        notice.cache_unavailable(str(error))
        return numba.njit(**{**options, "cache": False})(fn)


def _numba():
    """numba, imported, with the compile notice listening (kgroups._kernels.notice)."""
    import numba

    from . import notice  # noqa: F401  (one line when first-use compilation takes a while)

    return numba


def _rebound(glob):
    """A copy of a module's globals with its kernels bound to their dispatchers; one per
    module, made at the module's first compilation."""
    out = _REBOUND.get(id(glob))
    if out is None:
        out = _REBOUND[id(glob)] = dict(glob)  # registered first: kernels of this module recurse
        for name, value in glob.items():
            if isinstance(value, Kernel):
                out[name] = value.dispatcher
    return out


def num_threads():
    """The number of threads numba's parallel kernels use. Before numba is imported
    this is its default, read as numba reads it (``NUMBA_NUM_THREADS``, else the CPUs
    this process may run on), so that asking does not load numba."""
    if "numba" in sys.modules:
        return _numba().get_num_threads()
    env = os.environ.get("NUMBA_NUM_THREADS", "").strip()
    if env.isdigit() and int(env) > 0:
        return int(env)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - platforms without sched_getaffinity
        return max(1, os.cpu_count() or 1)


@contextmanager
def as_python(on=True):
    """Kernels called inside run as Python (``on``), or compiled (``on=False``)."""
    token = _PYTHON.set(bool(on))
    try:
        yield
    finally:
        _PYTHON.reset(token)


def python_pays(work):
    """Whether :func:`tiered` runs a call of this ``work`` as Python under the setting
    ``kernels="auto"`` (see the module docstring)."""
    return (work <= PYTHON_MAX_WORK and not _STATE["compiled"]
            and _STATE["python_seconds"] < PYTHON_BUDGET)


@contextmanager
def tiered(work):
    """The kernels called inside run as the setting ``kernels`` says: compiled, as
    Python, or (``"auto"``) as Python when :func:`python_pays` for ``work`` (the time
    they take is added to the process's), else compiled. The choice holds for the
    calls inside, whatever their own work: inside :func:`as_python` or another
    ``tiered``, the outer choice is kept."""
    if _PYTHON.get() is not None:
        yield
        return
    mode = kernels_setting()
    if mode != "auto":
        with as_python(mode == "python"):
            yield
        return
    if not python_pays(work):
        with as_python(False):
            yield
        return
    t0 = time.perf_counter()
    try:
        with as_python():
            yield
    finally:
        _STATE["python_seconds"] += time.perf_counter() - t0
