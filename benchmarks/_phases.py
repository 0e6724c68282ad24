"""Time a kgroups estimator's fit by phase (benchmarks only; public attributes of a
private method are wrapped on the instance, so the estimator's name is unchanged).

``timed(est, phases)`` fills ``phases`` during ``est.fit``: ``"build"`` is
validation and the engine (``_prepare``), ``"sweeps"`` the Hartigan sweeps of
every start (``_single_run``); the rest of ``fit`` is the starting partitions and
their M (the pass over the pairs).
"""

import time


def timed(est, phases):
    prepare, single_run = est._prepare, est._single_run

    def _prepare(*a, **kw):
        t0 = time.perf_counter()
        try:
            return prepare(*a, **kw)
        finally:
            phases["build"] = time.perf_counter() - t0

    def _single_run(*a, **kw):
        t0 = time.perf_counter()
        try:
            return single_run(*a, **kw)
        finally:
            phases["sweeps"] = phases.get("sweeps", 0.0) + time.perf_counter() - t0

    est._prepare, est._single_run = _prepare, _single_run
    return est
