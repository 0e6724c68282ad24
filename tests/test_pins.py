"""The minimum versions pyproject.toml allows are the ones ``make test-oldest`` runs
the suite with (``.ci/oldest.txt``): a pin raised or added in one place and not the
other fails here."""

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _minimum_pins():
    """``{name: version}`` of every ``name>=version`` of pyproject.toml's dependencies
    and of the extras ``make test-oldest`` installs (test, plot, dask)."""
    text = (ROOT / "pyproject.toml").read_text()
    def table(name):
        return re.split(rf"(?m)^\[{re.escape(name)}\]$", text)[1].split("\n[", 1)[0]

    project, extras = table("project"), table("project.optional-dependencies")
    chosen = [project] + [m.group(0) for m in re.finditer(
        r"(?ms)^(test|plot|dask) = \[.*?\]$", extras)]
    pins = {}
    for block in chosen:
        for name, version in re.findall(r'"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([0-9.]+)"',
                                        block):
            pins[name.lower()] = version
    return pins


def _oldest():
    pins = {}
    for line in (ROOT / ".ci" / "oldest.txt").read_text().splitlines():
        m = re.match(r"([A-Za-z0-9_.-]+)==([0-9.]+)", line.strip())
        if m:
            pins[m.group(1).lower()] = m.group(2)
    return pins


def _release(version):
    parts = [int(p) for p in version.split(".")]
    return parts + [0] * (3 - len(parts))


def test_every_minimum_pin_is_the_version_the_oldest_suite_runs():
    pins, oldest = _minimum_pins(), _oldest()
    assert {"numpy", "scipy", "numba", "scikit-learn", "networkx", "matplotlib",
            "dask"} <= set(pins)
    assert set(pins) == set(oldest), set(pins) ^ set(oldest)
    for name, version in pins.items():
        assert _release(oldest[name]) == _release(version), (name, version, oldest[name])
