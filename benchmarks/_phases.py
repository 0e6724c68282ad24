"""Time a kgroups estimator's fit by phase (benchmarks only; public attributes of a
private method are wrapped on the instance, so the estimator's name is unchanged).

``timed(est, phases)`` fills ``phases`` during ``est.fit``: ``"build"`` is
validation and the engine (``_prepare``), ``"sweeps"`` the Hartigan sweeps of
every start (the engine's ``sweep``, or ``sweep_batch`` for restarts swept
together); the rest of ``fit`` is the starting partitions and their M (the pass
over the pairs) and the runs' bookkeeping.
"""

import time
import weakref


def _clocked(engine, name, phases, key):
    """``engine.name`` timed into ``phases[key]``; the wrapper holds the engine weakly
    (a bound method stored on its own instance would be a reference cycle, keeping
    each fit's engine alive until the garbage collector runs: a 1M-point low-rank
    engine then doubled the peak memory of two fits in one process)."""
    fn, ref = getattr(type(engine), name), weakref.ref(engine)

    def run(*a, **kw):
        t0 = time.perf_counter()
        try:
            return fn(ref(), *a, **kw)
        finally:
            phases[key] = phases.get(key, 0.0) + time.perf_counter() - t0
    return run


def timed(est, phases):
    prepare = est._prepare

    def _prepare(*a, **kw):
        t0 = time.perf_counter()
        try:
            X, w, engine = prepare(*a, **kw)
            for name in ("sweep", "sweep_batch"):
                if hasattr(engine, name):
                    setattr(engine, name, _clocked(engine, name, phases, "sweeps"))
            phases.setdefault("sweeps", 0.0)
            return X, w, engine
        finally:
            phases["build"] = time.perf_counter() - t0

    est._prepare = _prepare
    return est
