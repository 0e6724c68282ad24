"""When to use a parallel kernel.

Launching a numba parallel region costs from ~0.3 ms (workqueue layer) to
~15 ms (GNU OpenMP layer, measured on the 2-core CI machine). Each parallel
kernel is therefore compiled twice from one source, with and without
``parallel=True``; :func:`pick` takes the parallel one only when the work
(number of inner-loop steps) is large enough to pay for the launch.
"""

PARALLEL_MIN_WORK = 1 << 22


def pick(serial, parallel, work):
    """``parallel`` when ``work >= PARALLEL_MIN_WORK``, else ``serial``."""
    return parallel if work >= PARALLEL_MIN_WORK else serial
