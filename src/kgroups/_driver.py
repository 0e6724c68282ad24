"""The one run loop: restarts, convergence, progress and warnings for every engine and
both move rules.

Kernel k-groups (Hartigan's rule, paper Algorithm 2) and kernel k-means (Lloyd's
rule, Algorithm 1) share it; the engines (:mod:`kgroups._backends`) share its run
interface. For a group of starts that the engine runs at once
(``engine.group_size``), :func:`run_starts`

1. starts the runs (``engine.start``: each start's ``M``, its empty clusters filled,
   the cluster statistics; Algorithm 2 step 1-2);
2. sweeps every active run (``engine.sweep``; steps 3-15) until a sweep moves no
   point, fewer than ``tol * n`` points, or ``max_iter`` sweeps; under Lloyd's rule
   a partition seen before (an indefinite kernel can make the assignments cycle)
   also stops the run, with a ``ConvergenceWarning``;
3. finishes them (``engine.finish``: ``Q`` from fresh sums) and keeps the best.
"""

from __future__ import annotations

import time
import warnings
from contextlib import contextmanager

from sklearn.exceptions import ConvergenceWarning

__all__ = ["TIE_RTOL", "better", "clocked", "run_starts"]

# Relative difference in Q below which two runs tie (the earlier start is kept).
TIE_RTOL = 1e-12


@contextmanager
def clocked(seconds, phase):
    """Add the wall time of the ``with`` body to ``seconds[phase]``."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        seconds[phase] = seconds.get(phase, 0.0) + time.perf_counter() - t0


def better(best, run):
    """The run to keep of ``best`` (None at first) and ``run``: a later start wins only
    by more than rounding, so that starts reaching one partition keep the first one's
    labels on any scale."""
    if best is None or run.objective > best.objective + TIE_RTOL * abs(best.objective):
        return run
    return best


def run_starts(engine, starts, n_clusters, *, rule="hartigan", max_iter=300, tol=0.0,
               progress=None, owner="KernelKGroups", seconds=None):
    """Run every start to convergence on ``engine``; the best run (a ``RunResult``).

    Parameters
    ----------
    engine : Engine
        Built for these data (:mod:`kgroups._backends`).
    starts : list
        Starting partitions in the engine's form (label arrays, or what its
        ``given_starts``, ``random_start`` and ``extend`` made).
    n_clusters : int
    rule : {"hartigan", "lloyd"}
        Kernel k-groups or kernel k-means.
    max_iter : int
        Sweeps per run at most.
    tol : float
        A run stops when a sweep moves fewer than ``tol * n_samples`` points.
    progress : FitProgress or None
        Told of each run's start, sweeps and end (:mod:`kgroups._progress`).
    owner : str
        The estimator, in warnings.
    seconds : dict or None
        Wall time per phase (``"start"``, ``"sweeps"``, ``"finish"``) is added here.
    """
    seconds = {} if seconds is None else seconds
    n = engine.n_samples
    best = None
    g0 = 0
    while g0 < len(starts):
        R = max(1, min(engine.group_size(starts[g0:], n_clusters), len(starts) - g0))
        with clocked(seconds, "start"):
            state = engine.start(starts[g0:g0 + R], n_clusters, rule)
        seen = [{engine.fingerprint(state, r)} for r in range(R)] if rule == "lloyd" else None
        for r in range(R):
            if progress is not None:
                progress.start(g0 + r)
        for it in range(max_iter):
            if not state.active.any():
                break
            with clocked(seconds, "sweeps"):
                moved = engine.sweep(state)
            for r in map(int, state.active.nonzero()[0]):
                _after_sweep(engine, state, r, it, int(moved[r]), n * tol, seen, owner)
                if progress is not None:
                    progress.sweep_of(g0 + r, it + 1, int(moved[r]), state.objective(r))
        with clocked(seconds, "finish"):
            results = engine.finish(state)
        for r, run in enumerate(results):
            if progress is not None:
                progress.end_of(g0 + r, run.n_iter, run.objective)
            best = better(best, run)
        g0 += R
    if not best.converged:
        warnings.warn(f"{owner}: the best run stopped at max_iter={max_iter} before "
                      f"converging ({best.n_moves[-1]} points moved in its last sweep, so "
                      "single moves that lower W may remain); raise max_iter",
                      ConvergenceWarning)
    return best


def _after_sweep(engine, state, r, it, moves, least, seen, owner):
    """Record run ``r``'s sweep ``it``; stop it when it converged (or cycles)."""
    state.n_moves[r].append(moves)
    if moves == 0 or moves < least:
        state.converged[r], state.active[r] = True, False
        return
    if seen is None:
        return
    key = engine.fingerprint(state, r)
    if key in seen[r]:
        warnings.warn(f"{owner}: the assignments cycle after {it + 1} iterations (the "
                      "kernel is probably not positive semidefinite); stopping",
                      ConvergenceWarning)
        state.converged[r], state.active[r] = True, False  # stopped on purpose
        return
    seen[r].add(key)
