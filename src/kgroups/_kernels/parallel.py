"""How a kernel runs on every core: one compiled loop, cut into ranges run at once.

A parallel kernel is written as its *part*: a serial loop over a range of its
items, ``part(*args, lo, hi)`` for the items ``lo .. hi - 1`` (rows, tiles of
columns, or workers that each own an accumulator and take every ``n_workers``-th
panel), compiled once with ``nogil=True``. :func:`spread` cuts the items into
``n_workers`` contiguous ranges and runs them at the same time, the calling thread
taking the first and the process's worker threads the others; a range's results go
to rows or accumulators no other range writes, so the result is the same however
the items are cut, and the same as one call over them all. A kernel that keeps an
accumulator per worker adds them in worker order afterwards (``finish_sums``), so
its result depends on the number of workers only, never on which thread ran what.

One serial loop, compiled once, serves one worker and many: numba's own parallel
loops (``parallel=True``) would need a second compilation of each such kernel,
several times slower than the serial one, paid by every new process on its first
fit.

Each worker thread waits on a lock of its own. Handing it a range stores the
range and releases that lock, which wakes that one thread; it releases a second
lock of its own when the range ends. A call therefore costs two lock operations
per worker and each worker's call of the compiled part, without a task queue or a
future per range. The GIL is held only to start a part: the part releases it.

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

from .jit import num_threads

PARALLEL_MIN_WORK = 1 << 19


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
    while True:
        team = _TEAM
        with team.busy:
            if team is not _TEAM:  # another call left it while it waited for the team
                continue
            try:
                team.run(run, args, cuts)
            except BaseException:
                if team.handed:  # interrupted while ranges still run: leave them to it
                    _new_team()
                raise
            return


class _Team:
    """The process's worker threads. Worker ``i`` waits on a lock of its own
    (``go[i]``); a call gives it a range by storing the job and releasing that lock,
    and the worker releases ``done[i]`` when its range ends. One call at a time holds
    the team (``busy``); a call from another thread waits for it. A call interrupted
    (``KeyboardInterrupt``) while ranges it handed out still run leaves the team to
    them, and later calls take a new one."""

    def __init__(self):
        self.busy = threading.Lock()
        self.go, self.done, self.job = [], [], []
        self.handed = []  # the workers given a range whose end is not yet waited for

    def run(self, run, args, cuts):
        """Ranges ``1 ..`` to the workers, range 0 on the calling thread; returns when
        every range has ended, raising the first range's error if any did."""
        others = len(cuts) - 2
        self._grow(others)
        for i in range(others):
            self.job[i] = (run, args + (cuts[i + 1], cuts[i + 2]))
            self.handed.append(i)
            self.go[i].release()
        try:
            run(*args, cuts[0], cuts[1])
        finally:
            while self.handed:  # no range still writing when the call returns
                self.done[self.handed[-1]].acquire()
                self.handed.pop()
            errors = [error for error in self.job[:others] if error is not None]
            self.job[:others] = [None] * others
        if errors:
            raise errors[0]

    def _grow(self, size):
        while len(self.go) < size:
            go, done = threading.Lock(), threading.Lock()
            go.acquire()
            done.acquire()
            i = len(self.go)
            self.go.append(go)
            self.done.append(done)
            self.job.append(None)
            threading.Thread(target=self._work, args=(i,), daemon=True,
                             name=f"kgroups-kernel-{i}").start()

    def _work(self, i):
        go, done = self.go[i], self.done[i]
        while True:
            go.acquire()
            run, args = self.job[i]
            try:
                run(*args)
                self.job[i] = None
            except BaseException as error:  # handed to the caller, which raises it
                self.job[i] = error
            done.release()


_TEAM = _Team()


def _new_team():
    """A new team for later calls; also in a child made by ``fork``, which has none of
    its parent's threads."""
    global _TEAM
    _TEAM = _Team()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_team)
