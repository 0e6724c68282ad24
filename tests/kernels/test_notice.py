"""The note said while numba compiles kernels for a while (kgroups._kernels.notice)."""

import logging
import os
import subprocess
import sys
import textwrap
import time

from kgroups._kernels import notice as _notice


class _Log(logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []

    def emit(self, record):
        self.lines.append(record.getMessage())


def _listener():
    log, handler = logging.getLogger("kgroups.test_notice"), _Log()
    log.addHandler(handler)
    log.propagate = False
    return _notice.CompileNotice(log), handler


def test_said_once_while_a_long_compilation_runs(monkeypatch):
    monkeypatch.setattr(_notice, "NOTICE_AFTER", 0.05)
    note, log = _listener()
    note.on_start(None)
    note.on_start(None)  # a nested compilation
    time.sleep(0.3)
    assert log.lines == [_notice.MESSAGE]  # from the timer, before the end
    note.on_end(None)
    note.on_end(None)
    note.on_start(None)
    time.sleep(0.1)
    note.on_end(None)
    assert log.lines == [_notice.MESSAGE]


def test_short_compilations_add_up(monkeypatch):
    monkeypatch.setattr(_notice, "NOTICE_AFTER", 0.2)
    note, log = _listener()
    for _ in range(2):
        note.on_start(None)
        time.sleep(0.05)
        note.on_end(None)
    assert log.lines == [] and 0.09 < note.spent < 0.2
    note.on_start(None)
    time.sleep(0.3)
    note.on_end(None)
    assert log.lines == [_notice.MESSAGE]


def test_a_real_compilation_reaches_the_listener(monkeypatch):
    from numba import njit

    seen = []
    monkeypatch.setattr(_notice._LISTENER, "say", lambda: seen.append(True))
    monkeypatch.setattr(_notice._LISTENER, "said", False)
    monkeypatch.setattr(_notice._LISTENER, "spent", 0.0)
    monkeypatch.setattr(_notice, "NOTICE_AFTER", 0.0)

    @njit
    def twice(x):
        return 2 * x

    assert twice(3) == 6
    time.sleep(0.05)
    assert seen


# A process where numba can cache nothing: every folder its cache locators would try
# (NUMBA_CACHE_DIR, beside the sources, the home directory) refuses writes, as in a
# read-only container whose HOME is read-only too. Patched in numba itself, since a
# read-only copy of the package does not stop root (who runs CI) from writing.
READ_ONLY_FIT = textwrap.dedent("""
    import numpy as np
    from numba.core import caching

    def unwritable(self):
        raise PermissionError(30, "Read-only file system", self._cache_path)

    caching._CacheLocator.ensure_cache_path = unwritable
    import numba
    try:
        numba.njit(cache=True)(lambda x: x)
    except RuntimeError as error:  # the failure mode itself, from numba
        print("numba:", error)
    from kgroups import KernelKGroups, config_context
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(15, 2)), rng.normal(size=(15, 2)) + 8.0])
    with config_context(kernels="compiled"):
        labels = KernelKGroups(2, engine="dense", n_init=1, random_state=0).fit(X).labels_
    print("split:", sorted((labels[:15] == labels[0]).tolist() + (labels[15:] != labels[0]).tolist()) == [True] * 30)
""")


def test_a_read_only_install_fits_and_says_where_the_cache_can_go():
    """No writable cache folder: the fit runs (its kernels compiled in memory) and one
    note on standard error names ``NUMBA_CACHE_DIR``."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    done = subprocess.run([sys.executable, "-c", READ_ONLY_FIT], capture_output=True,
                          text=True, env=env, timeout=300)
    assert "no locator available" in done.stdout, done.stdout + done.stderr
    assert done.returncode == 0, done.stderr
    assert "split: True" in done.stdout
    notes = [ln for ln in done.stderr.splitlines() if ln.startswith("kgroups:")]
    assert len(notes) == 1 and "NUMBA_CACHE_DIR" in notes[0], done.stderr
