"""One quick reproduction for the whole test run, shared by every test that reads it.

``kgroups reproduce all --quick`` runs once, in a fresh process, as a user types it
(``python -m kgroups.cli``), into a temporary folder. The smoke test of the command
(``test_reproduce_smoke.py``) and the tests of each item's quick report (the paper's
values printed, the figures drawn, the rows of a table) read that one run instead of
running the item again in the test process.

The data the items read are the ones the package ships: the variables that point
an item at a user's file (``KGROUPS_SYNAPSE``, ``KGROUPS_GRQC``, ``KGROUPS_DATA_*``)
are left out of the run's environment. The tests of those variables run their item
themselves, with a file they write.

The tests that read it are marked ``reproduction`` (``tests/conftest.py``): ``make
test`` leaves them out and ``make test-reproduction`` runs them in one process, which
makes the run once. Under pytest-xdist the tests of this folder run on one worker, so
that a plain ``pytest -n 2`` makes it once too (``tests/conftest.py``, ``ONE_WORKER``).
"""

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

HANG_GUARD_S = 1200  # not a speed check: only stops a hung run from eating the CI budget


@dataclass(frozen=True)
class QuickReproduction:
    """The folder the run wrote and the finished process (return code, stdout, stderr)."""

    out: Path
    proc: subprocess.CompletedProcess

    def report(self, name):
        """The Markdown report of item ``name``, checked to be the one the run printed.

        The command prints what the item's ``run`` returned; the file is what it wrote.
        """
        assert self.proc.returncode == 0, self.proc.stderr[-3000:]
        text = (self.out / f"{name}.md").read_text()
        assert text.strip() and text.strip() in self.proc.stdout, name
        return text


def _user_data_variable(name):
    return name in ("KGROUPS_SYNAPSE", "KGROUPS_GRQC") or name.startswith("KGROUPS_DATA_")


@pytest.fixture(scope="session")
def quick_reproduction(tmp_path_factory):
    out = tmp_path_factory.mktemp("reproduce")
    env = {k: v for k, v in os.environ.items() if not _user_data_variable(k)}
    proc = subprocess.run(
        [sys.executable, "-m", "kgroups.cli", "reproduce", "all", "--quick",
         "--out", str(out)],
        capture_output=True, text=True, timeout=HANG_GUARD_S, env=env)
    return QuickReproduction(out, proc)
