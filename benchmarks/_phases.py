"""A fit's time by phase, from the estimator's ``engine_stats_["seconds"]``.

``"build"`` is validation and the engine (``"prepare"``), ``"sweeps"`` the sweeps of
every start, ``"init"`` the starting partitions, each start's M and the runs' ends
(``"init"``, ``"start"``, ``"finish"``).
"""


def phase_times(est):
    """``{"build", "sweeps", "init"}`` seconds of the last fit of ``est``."""
    s = est.engine_stats_["seconds"]
    return {"build": s.get("prepare", 0.0), "sweeps": s.get("sweeps", 0.0),
            "init": s.get("init", 0.0) + s.get("start", 0.0) + s.get("finish", 0.0)}
