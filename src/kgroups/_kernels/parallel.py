"""How a kernel runs on every core: one compiled loop, cut into ranges run at once.

A parallel kernel is written as its *part*: a serial loop over a range of its
items, ``part(*args, lo, hi)`` for the items ``lo .. hi - 1`` (rows, tiles of
columns, or workers that each own an accumulator and take every ``n_workers``-th
panel), compiled once with ``nogil=True``. :func:`spread` cuts the items into
``n_workers`` contiguous ranges and runs them at the same time, the calling thread
taking the first and a pool of threads the others; a range's results go to rows or
accumulators no other range writes, so the result is the same however the items
are cut, and the same as one call over them all. A kernel that keeps an
accumulator per worker adds them in worker order afterwards (``finish_sums``), so
its result depends on the number of workers only, never on which thread ran what.

One serial loop, compiled once, serves one worker and many: numba's own parallel
loops (``parallel=True``) would need a second compilation of each such kernel,
several times slower than the serial one, paid by every new process on its first
fit.

Starting workers costs some microseconds when the cores are free, but when another
process keeps a core busy a worker waits for a time slice, which can stall the call
for milliseconds. :func:`workers` therefore gives a call more than one worker only
when its work, counted in kernel entries (each O(1) to O(D)), is worth at least
about a millisecond: then a stalled start costs a few times the call at worst, and
a free machine gets every core. A batch of pending moves of the matrix-free engine
counts ``n_pend n`` entries (O(D) each), so a batch worth the start runs in
parallel.

The number of workers is numba's (:func:`~kgroups._kernels.jit.num_threads`):
``NUMBA_NUM_THREADS`` or :func:`numba.set_num_threads` limit it.
"""

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait

from .jit import num_threads

PARALLEL_MIN_WORK = 1 << 19

_POOL = {"executor": None, "size": 0}
_POOL_LOCK = threading.Lock()


def workers(work):
    """How many workers a call of ``work`` kernel entries runs on: every one of
    :func:`~kgroups._kernels.jit.num_threads` from :data:`PARALLEL_MIN_WORK` on,
    else one."""
    return num_threads() if work >= PARALLEL_MIN_WORK else 1


def spread(part, n_items, n_workers, *args):
    """``part(*args, lo, hi)`` over the items ``0 .. n_items - 1`` cut into
    ``n_workers`` contiguous ranges run at the same time (module docstring); one call
    over all of them when there is one worker or the kernels run as Python."""
    run = part.target()
    n_workers = max(1, min(int(n_workers), int(n_items)))
    if n_workers == 1 or run is part.py_func:
        run(*args, 0, n_items)
        return
    cuts = [n_items * t // n_workers for t in range(n_workers + 1)]
    pool = _pool(n_workers - 1)
    futures = [pool.submit(run, *args, cuts[t], cuts[t + 1]) for t in range(1, n_workers)]
    try:
        run(*args, cuts[0], cuts[1])
    finally:
        wait(futures)  # no range still writing when the call returns, even on an error
    for f in futures:
        f.result()


def _pool(size):
    """The process's worker threads, at least ``size`` of them. A larger pool replaces
    a smaller one without shutting it down: a call on another thread may still be
    submitting to it; its threads end once no call holds it."""
    with _POOL_LOCK:
        if _POOL["size"] < size:
            _POOL["executor"] = ThreadPoolExecutor(size, thread_name_prefix="kgroups-kernel")
            _POOL["size"] = size
        return _POOL["executor"]


def _forget_pool():
    """A child made by ``fork`` has none of its parent's threads: it starts its own."""
    global _POOL_LOCK
    _POOL_LOCK = threading.Lock()
    _POOL["executor"], _POOL["size"] = None, 0


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)
