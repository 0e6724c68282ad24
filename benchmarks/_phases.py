"""Time a kgroups estimator's fit by phase (benchmarks only; public attributes of a
private method are wrapped on the instance, so the estimator's name is unchanged).

``timed(est, phases)`` fills ``phases`` during ``est.fit``: ``"build"`` is
validation and the engine (``_prepare``), ``"sweeps"`` the Hartigan sweeps of
every start (the engine's ``sweep``, or ``sweep_batch`` for restarts swept
together); the rest of ``fit`` is the starting partitions and their M (the pass
over the pairs) and the runs' bookkeeping.
"""

import time


def _clocked(fn, phases, key):
    def run(*a, **kw):
        t0 = time.perf_counter()
        try:
            return fn(*a, **kw)
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
                    setattr(engine, name, _clocked(getattr(engine, name), phases, "sweeps"))
            phases.setdefault("sweeps", 0.0)
            return X, w, engine
        finally:
            phases["build"] = time.perf_counter() - t0

    est._prepare = _prepare
    return est
