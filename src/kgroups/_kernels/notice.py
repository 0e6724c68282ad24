"""One line when numba compiles kernels for a while: the first use after an install.

The kernels are compiled for the machine the first time they run and cached on disk
(``cache=True``), so the first fit of each engine waits for its kernels (their serial
and parallel forms compile apart) where later fits and processes do not. Once the
compilations of this process have taken ``NOTICE_AFTER`` seconds in all, a warning
of the ``"kgroups"`` logger says what is happening, once per process; Python prints
it on standard error when logging is not configured. Loads from the cache are not
compilations and say nothing.

Where numba can write its cache nowhere (:func:`cache_unavailable`: a read-only
install whose home directory is read-only too), every process compiles the kernels
again: the note is said at once then, and names the variable that gives numba a
writable folder.
"""

from __future__ import annotations

import logging
import threading
import time

from numba.core import event

# Seconds of compilation, summed over the process, after which the note is said.
NOTICE_AFTER = 1.0

MESSAGE = ("kgroups: compiling its numerical kernels for this machine (first use of an "
           "engine after an install: up to a minute on a small machine; they are cached on "
           "disk, so later runs start at once)")
NO_CACHE_MESSAGE = ("kgroups: numba cannot cache the kernels it compiles here ({reason}), so "
                    "every new process compiles them again on first use (up to a minute on a "
                    "small machine); set the environment variable NUMBA_CACHE_DIR to a "
                    "writable folder to keep them")


class CompileNotice(event.Listener):
    """Sums the time numba spends compiling; says :data:`MESSAGE` once past
    :data:`NOTICE_AFTER` seconds (from a timer while a compilation runs, so the note
    comes while the user waits, not after)."""

    def __init__(self, logger=None):
        self.logger = logging.getLogger("kgroups") if logger is None else logger
        self.lock = threading.Lock()
        self.depth = 0  # compilations nest: a kernel compiles the kernels it calls
        self.spent = 0.0
        self.t0 = None
        self.timer = None
        self.said = False

    def on_start(self, ev):
        with self.lock:
            self.depth += 1
            if self.depth > 1 or self.said:
                return
            self.t0 = time.perf_counter()
            self.timer = threading.Timer(max(0.0, NOTICE_AFTER - self.spent), self.say)
            self.timer.daemon = True
            self.timer.start()

    def on_end(self, ev):
        with self.lock:
            self.depth -= 1
            if self.depth > 0 or self.t0 is None:
                return
            self.spent += time.perf_counter() - self.t0
            self.t0 = None
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            late = self.spent >= NOTICE_AFTER and not self.said
        if late:  # the timer did not get its turn before the compilation ended
            self.say()

    def say(self, message=MESSAGE):
        with self.lock:
            if self.said:
                return
            self.said = True
        self.logger.warning(message)


_LISTENER = CompileNotice()
event.register("numba:compile", _LISTENER)


def cache_unavailable(reason):
    """Say, once per process and at once, that the kernels cannot be cached (numba's
    ``reason``) and where to point ``NUMBA_CACHE_DIR``; the note of a long compilation
    is then not said again."""
    _LISTENER.say(NO_CACHE_MESSAGE.format(reason=reason))
