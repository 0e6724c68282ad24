"""The one run loop: restarts, convergence, progress and warnings for every engine and
both move rules.

Kernel k-groups (Hartigan's rule, paper Algorithm 2) and kernel k-means (Lloyd's
rule, Algorithm 1) share it; the engines (:mod:`kgroups._engines`) share its run
interface. For a group of starts that the engine runs at once
(``engine.group_size``), :func:`run_starts`

1. starts the runs (``engine.start``: each start's ``M``, its empty clusters filled,
   the cluster statistics; Algorithm 2 step 1-2);
2. sweeps every active run (``engine.sweep``; steps 3-15) until a sweep moves no
   point, fewer than ``tol * n`` points, or ``max_iter`` sweeps; under Lloyd's rule
   a partition seen before (an indefinite kernel can make the assignments cycle)
   also stops the run, with a ``ConvergenceWarning``;
3. rebuilds ``M`` of a converged run whose moves may have left visible rounding in
   it (:func:`drift`) and sweeps again from the rebuilt ``M``;
4. finishes them (``engine.finish``: ``Q`` from fresh sums) and keeps the best.

Why the rebuild: a move adds the kernel row of the moved point to one cluster's sums
and subtracts it from another's (Algorithm 2, steps 11-12), so an entry of ``M``
carries the rounding of every value that passed through it. From a start far from
the end (a random partition of clusters 1e12 apart), entries that held sums of
1e12-sized distances end as sums of distances near 1: their rounding, far larger
than those distances, would decide the last moves and make ``W`` wrong in its fifth
digit. :func:`drift` bounds that rounding relative to the entries of each cluster at
the end; past ``DRIFT_RTOL`` the run's ``M`` is rebuilt once from its labels (one
pass, like its start) and the sweeps go on until no move is left.
"""

from __future__ import annotations

import warnings
from contextlib import nullcontext

import numpy as np

from ._progress import clocked, runs_label

# Relative difference in Q below which two runs tie (the earlier start is kept).
TIE_RTOL = 1e-12
# Bound of the rounding left in M by a run's moves, relative to the entries of its
# clusters, past which M is rebuilt (see the module docstring).
DRIFT_RTOL = 1e-7


def convergence_warning():
    """scikit-learn's ``ConvergenceWarning``, the category of a run's warnings (imported
    when a run warns: a fit that does not warn needs nothing of scikit-learn)."""
    from sklearn.exceptions import ConvergenceWarning

    return ConvergenceWarning


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
        Built for these data (:mod:`kgroups._engines`).
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
        ids = list(range(g0, g0 + R))
        with clocked(seconds, "start"), _starting(progress, ids, "summing the clusters"):
            state = engine.start(starts[g0:g0 + R], n_clusters, rule)
        _sweeps(engine, state, max_iter, n * tol, ids, progress, owner, seconds)
        stale = [r for r in range(R) if state.converged[r]
                 and drift(engine, state, r) > DRIFT_RTOL]
        with clocked(seconds, "finish"):
            results = engine.finish(state)
        if stale:  # M rebuilt from the labels, then the sweeps go on
            with clocked(seconds, "start"), _starting(progress, [g0 + r for r in stale],
                                                      "summing the clusters again", False):
                fresh = engine.start([results[r].labels for r in stale], n_clusters, rule)
            fresh.n_moves = [list(state.n_moves[r]) for r in stale]
            _sweeps(engine, fresh, max_iter, n * tol, [g0 + r for r in stale], progress,
                    owner, seconds)
            with clocked(seconds, "finish"):
                for r, run in zip(stale, engine.finish(fresh)):
                    results[r] = run
        for r, run in enumerate(results):
            if progress is not None:
                progress.end_of(g0 + r, run.n_iter, run.objective)
            best = better(best, run)
        g0 += R
    if not best.converged:
        warnings.warn(f"{owner}: the best run stopped at max_iter={max_iter} before "
                      f"converging ({best.n_moves[-1]} points moved in its last sweep, so "
                      "single moves that lower W may remain); raise max_iter",
                      convergence_warning())
    return best


def _starting(progress, ids, what, say=True):
    """The start of the runs ``ids`` on ``progress`` (each said to start, with ``say``):
    the bar says ``what`` they are doing while their sums are built (no sweep yet)."""
    if progress is None:
        return nullcontext()
    for r in ids if say else ():
        progress.start(r)
    runs = runs_label(ids, progress.n_init)
    return progress.waiting(f"{runs}: {what}", f"{runs}: sweeping")


def drift(engine, state, r):
    """A bound of the rounding that run ``r``'s moves left in its ``M``, relative to the
    entries of its clusters (0 for an engine without ``kernel_max``).

    Every entry of ``M`` is a running sum whose partial sums are at most
    ``s_total kmax`` in size (``kmax`` bounds ``|K|``, ``s`` are the cluster
    weights), and each move adds one rounding of at most ``eps`` times a partial sum
    to an entry; an entry of cluster ``l`` at the end is about ``|q_l| / s_l`` in
    size. So the relative error is at most ``eps moves s_total kmax max_l s_l / |q_l|``.
    The bound is pessimistic (roundings add like a random walk, and partial sums are
    rarely that large): on ten overlapping blobs in 10-D from a random start it is
    about 3e-9 at 100,000 points and grows with the number of moves, below
    ``DRIFT_RTOL``, while clusters far apart compared to their own spread (1e12) put
    it far above. A cluster of zero within-sum (one point) makes it infinite.
    """
    kmax = engine.kernel_max
    moves = sum(state.n_moves[r])
    if kmax is None or moves == 0:
        return 0.0
    s, q = state.s[r], np.abs(state.q[r])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = np.max(np.where(q > 0, s / q, np.inf))
        return float(np.finfo(np.float64).eps * moves * np.sum(s) * kmax * ratio)


def _sweeps(engine, state, max_iter, least, ids, progress, owner, seconds):
    """Sweep every active run of ``state`` until it converges or has ``max_iter``
    sweeps (counting those in ``state.n_moves``); ``ids`` number its runs for the
    progress reports."""
    seen = ([{engine.fingerprint(state, r)} for r in range(state.n_runs)]
            if state.rule == "lloyd" else None)
    while state.active.any():
        for r in map(int, state.active.nonzero()[0]):
            if len(state.n_moves[r]) >= max_iter:
                state.active[r] = False
        if not state.active.any():
            break
        with clocked(seconds, "sweeps"):
            moved = engine.sweep(state)
        for r in map(int, state.active.nonzero()[0]):
            it = len(state.n_moves[r])
            _after_sweep(engine, state, r, it, int(moved[r]), least, seen, owner)
            if progress is not None:
                progress.sweep_of(ids[r], it + 1, int(moved[r]), state.objective(r))


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
                      convergence_warning())
        state.converged[r], state.active[r] = True, False  # stopped on purpose
        return
    seen[r].add(key)
