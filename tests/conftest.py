"""Hypothesis profiles: ``ci`` (the default, a bounded number of examples per property)
and ``long`` for a deeper search on demand::

    KGROUPS_HYPOTHESIS=long .venv/bin/python -m pytest tests/test_properties.py
"""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("KGROUPS_HYPOTHESIS", "ci"))
