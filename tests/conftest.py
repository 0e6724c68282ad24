"""Hypothesis profiles: ``ci`` (the default, a bounded number of examples per property)
and ``long`` for a deeper search on demand::

    KGROUPS_HYPOTHESIS=long .venv/bin/python -m pytest tests/test_properties.py

and every test's engine calibration (``engine="auto"``'s GPU cost model) in a file of
its own, so that a test run never reads or writes the user's.
"""

import os

import pytest
from hypothesis import HealthCheck, settings


@pytest.fixture(autouse=True)
def _own_calibration_file(tmp_path_factory, monkeypatch):
    path = tmp_path_factory.getbasetemp() / "kgroups-calibration.json"
    monkeypatch.setenv("KGROUPS_CALIBRATION", str(path))

settings.register_profile("ci", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("KGROUPS_HYPOTHESIS", "ci"))
