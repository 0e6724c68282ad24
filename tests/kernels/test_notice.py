"""The note said while numba compiles kernels for a while (kgroups._kernels.notice)."""

import logging
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
