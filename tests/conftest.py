"""Hypothesis profiles: ``ci`` (the default, a bounded number of examples per property)
and ``long`` for a deeper search on demand::

    KGROUPS_HYPOTHESIS=long .venv/bin/python -m pytest tests/test_properties.py

and every test's engine calibration (``engine="auto"``'s GPU cost model) in a file of
its own, so that a test run never reads or writes the user's.

Under pytest-xdist (``pytest -n 2``, as ``make test`` runs the suite) each test goes to
the next free worker, except the tests of each entry of ``ONE_WORKER``: they share a
costly module or session fixture (or, in a cold numba cache, the compilation of the same
kernels), and run together on one worker, which makes it once.
"""

import os

import pytest
from hypothesis import HealthCheck, settings


# Paths (from the project's root) whose tests run together on one worker under xdist.
ONE_WORKER = (
    "tests/experiments/",       # one `kgroups reproduce all --quick` (its conftest.py)
    "tests/test_dask.py",       # one LocalCluster of two worker processes
    "tests/test_packaging.py",  # one build of the sdist and wheel, one venv
    "tests/test_pinned_runs.py",  # the kernels of every engine, compiled once in a cold cache
)


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """xdist's ``--dist load`` (the default of ``-n``), with ``ONE_WORKER``'s groups.

    (Its ``--dist loadgroup`` would do it with marks, but does not group under pytest 9:
    the group is written into a node id attribute that pytest no longer reads.)
    """
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedFixtureScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid):
            path = nodeid.split("::", 1)[0]
            return next((group for group in ONE_WORKER if path.startswith(group)), nodeid)

    return SharedFixtureScheduling(config, log)


def pytest_collection_modifyitems(items):
    """Marks ``reproduction`` the tests that read the quick reproduction of the papers
    (``tests/experiments/conftest.py``), so that a run can leave them out as a group."""
    for item in items:
        if "quick_reproduction" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.reproduction)


@pytest.fixture(autouse=True)
def _own_calibration_file(tmp_path_factory, monkeypatch):
    path = tmp_path_factory.getbasetemp() / "kgroups-calibration.json"
    monkeypatch.setenv("KGROUPS_CALIBRATION", str(path))

settings.register_profile("ci", max_examples=100, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("long", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("KGROUPS_HYPOTHESIS", "ci"))
