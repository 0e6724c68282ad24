"""The shell commands of the Getting started page run as written, on the files they make.

Every ``.. code-block:: console`` of ``docs/getting_started.rst`` is a session: lines
starting with ``$ `` are commands (continued while a double quote is open), the lines
after a command are its output. The commands run one after another in an empty
temporary folder, with ``python`` and ``kgroups`` those of the interpreter running the
tests, and each printed line must equal the page's (``...`` on the page stands for any
text: the times).
"""

import os
import pathlib
import re
import subprocess
import sys

import pytest

PAGE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "getting_started.rst"


def console_sessions(text):
    """``[[(command, [output lines]), ...], ...]``, one list per console block."""
    sessions = []
    for block in re.findall(r"\.\. code-block:: console\n\n((?:   .*\n|\n)+)", text):
        lines = [line[3:] for line in block.rstrip("\n").split("\n")]
        steps = []
        for line in lines:
            if line.startswith("$ "):
                steps.append([line[2:], []])
            elif steps and steps[-1][0].count('"') % 2:   # a quote still open
                steps[-1][0] += "\n" + line
            elif steps:
                steps[-1][1].append(line)
        sessions.append([(cmd, out) for cmd, out in steps])
    return sessions


def matches(expected, line):
    pattern = ".*".join(re.escape(part) for part in expected.split("..."))
    return re.fullmatch(pattern, line) is not None


@pytest.fixture
def shell_env(tmp_path):
    """PATH with ``python`` and ``kgroups`` of this interpreter first."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, target in (("python", f'exec "{sys.executable}" "$@"'),
                         ("kgroups", f'exec "{sys.executable}" -m kgroups.cli "$@"')):
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\n{target}\n")
        shim.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_page_has_the_sessions_this_test_runs():
    sessions = console_sessions(PAGE.read_text(encoding="utf-8"))
    commands = [cmd.split()[0] for session in sessions for cmd, _ in session]
    assert commands == ["python", "head", "kgroups", "head"]


def test_getting_started_shell_commands_run_as_written(tmp_path, shell_env):
    work = tmp_path / "work"
    work.mkdir()
    for session in console_sessions(PAGE.read_text(encoding="utf-8")):
        for command, expected in session:
            done = subprocess.run(["/bin/sh", "-c", command], cwd=work, env=shell_env,
                                  capture_output=True, text=True, timeout=300)
            assert done.returncode == 0, (command, done.stderr[-2000:])
            printed = done.stdout.rstrip("\n").split("\n") if done.stdout else []
            assert len(printed) == len(expected), (command, printed, expected)
            for want, got in zip(expected, printed):
                assert matches(want, got), (command, want, got)
    labels = (work / "labels.csv").read_text().split()
    assert labels[0] == "label" and len(labels) == 601
