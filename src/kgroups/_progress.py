"""Progress of a fit: a tqdm bar on stderr and, with ``verbose``, one line per event.

The bar counts the restarts done (``n_init``; its rate and time left are per restart,
which cost alike) and says the running restart's sweep and its moves (a run's number
of sweeps is not known ahead: most converge long before ``max_iter``). It appears only
after ``BAR_DELAY`` seconds and only when stderr is a terminal (``disable=None``), and
is removed when the fit ends. Its clock is redrawn every ``TICK`` seconds from the
start of the fit to its end, so that the bar shows and runs while nothing ends: a
sweep of large data (seconds each), and the steps before the first sweep, which have
nothing to count and say what runs (:meth:`FitProgress.waiting`): the preparation of
the engine (the n x n matrix of a dense engine, the neighbourhood graph) and the start
of runs, which sums their clusters over every pair of rows (both O(n^2) work). Work
with nothing to count at all (the choice of k, a hierarchical tree, a graph's
eigenvectors, the energy statistics' pass over the pairs, the command line reading
its file) has a line of its own with its clock (:func:`running`).
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import ExitStack, contextmanager

BAR_DELAY, TICK = 1.0, 0.5


def progress_bar(iterable=None, **kwargs):
    """A tqdm bar on stderr, only on a terminal (``disable=None``), removed when done,
    drawn from ``BAR_DELAY`` seconds on unless ``delay`` says otherwise.

    The one way kgroups draws progress (fits, the paper harness); ``kwargs`` go to tqdm.
    """
    from tqdm.auto import tqdm

    opts = {"disable": None, "leave": False, "file": sys.stderr, "dynamic_ncols": True,
            "delay": BAR_DELAY}
    opts.update(kwargs)
    return tqdm(iterable, **opts)


def draws_on(file):
    """Whether a bar with ``disable=None`` shows on ``file``: a terminal, or any file in
    a Jupyter kernel (where tqdm draws a widget instead). A fit checks this first, so
    that a fit off a terminal (a script's log, the command line's pipe) never imports
    tqdm."""
    if "ipykernel" in sys.modules:
        return True
    try:
        return bool(file.isatty())
    except (AttributeError, ValueError, OSError):  # no such method, or a closed file
        return False


class FitProgress:
    """Reporter handed to the single-run drivers as ``progress(sweep, moves, Q)``; with
    ``bar=False`` only its lines (``verbose``) and clock, for work whose fits have bars
    of their own."""

    def __init__(self, owner, n_init, verbose, bar=True):
        self.owner, self.n_init, self.verbose = owner, n_init, verbose
        self.t0 = time.perf_counter()
        self.bar = (progress_bar(total=n_init, desc=owner, unit="restart")
                    if bar and draws_on(sys.stderr) else None)
        self.restart, self.sweeps, self._swept = 0, 0, None
        # A sweep of large data runs for seconds (the first fit's often the only one):
        # the bar's clock is redrawn every TICK from the start to close(), by a thread,
        # so that it shows (from BAR_DELAY) and runs while no sweep ends.
        self._ticker = ExitStack()
        if self.bar is not None and not self.bar.disable:
            self._ticker.enter_context(redrawn(self.bar.refresh, self.elapsed))

    def say(self, text):
        """One line on stdout (only with ``verbose``), without breaking the bar."""
        if self.verbose and self.bar is not None:
            self.bar.write(f"{self.owner}: {text}", file=sys.stdout)
        elif self.verbose:
            print(f"{self.owner}: {text}", file=sys.stdout)

    def runs(self, n_init):
        """The number of restarts, once known (after the engine is prepared): the bar
        counts them."""
        self.n_init = n_init
        if self.bar is not None:
            self.bar.total = n_init

    def start(self, restart):
        self.restart, self.sweeps = restart, 0
        self.say(f"restart {restart + 1}/{self.n_init}: starting ({self.elapsed():.2f} s)")

    def __call__(self, sweep, moves, objective):
        # called once per sweep: off a terminal and without verbose it does nothing
        # else (formatting the line costs as much as a sweep of a small data set); the
        # bar's clock thread draws the postfix within TICK
        self.sweeps = sweep
        if self.bar is not None and not self.bar.disable:
            # the restarts swept together (in lockstep) and their moves, as one
            if self._swept is None or self._swept[0] != sweep:
                self._swept = (sweep, [], 0)
            ids, moved = self._swept[1] + [self.restart], self._swept[2] + moves
            self._swept = (sweep, ids, moved)
            self.bar.set_postfix_str(f"{runs_label(ids, self.n_init)}: sweep {sweep}, "
                                     f"{moved} moves", refresh=False)
        if self.verbose:
            self.say(f"restart {self.restart + 1}/{self.n_init}, sweep {sweep}: {moves} "
                     f"moves, Q = {objective:.10g} ({self.elapsed():.2f} s)")

    def end(self, objective):
        if self.bar is not None:
            self.bar.update(1)
        self.say(f"restart {self.restart + 1}/{self.n_init}: Q = {objective:.10g} after "
                 f"{self.sweeps} sweeps ({self.elapsed():.2f} s)")

    def sweep_of(self, restart, sweep, moves, objective):
        """A sweep of one of the restarts run in lockstep (``kgroups_batch``)."""
        self.restart = restart
        self(sweep, moves, objective)

    def end_of(self, restart, sweeps, objective):
        """The end of one of the restarts run in lockstep, after ``sweeps`` sweeps."""
        self.restart, self.sweeps = restart, sweeps
        self.end(objective)

    @contextmanager
    def waiting(self, what, then=""):
        """While a step without sweeps runs (preparing, the start of runs), the bar says
        ``what`` (at once where it shows already), then ``then`` (what follows: the
        sweeps of those runs); its clock runs all along (the ticker of ``__init__``).
        Off a terminal nothing runs."""
        bar = self.bar
        if bar is None or bar.disable:
            yield
            return
        bar.set_postfix_str(what, refresh=self.elapsed() >= BAR_DELAY)
        yield
        bar.set_postfix_str(then, refresh=False)
        self._swept = None  # the sweeps that follow are of the runs just started

    def close(self):
        self._ticker.close()    # the clock's thread stopped before the bar goes
        if self.bar is not None:
            self.bar.close()

    def elapsed(self):
        return time.perf_counter() - self.t0

    @contextmanager
    def phase(self, seconds, name, text, prefix=""):
        """Say ``text`` as the phase ``name`` starts and its seconds as it ends (with
        ``verbose``, each line after ``prefix``); add them to ``seconds[name]``
        (:func:`clocked`)."""
        self.say(f"{prefix}{text} ({self.elapsed():.2f} s)")
        with clocked(seconds, name):
            yield
        self.say(f"{prefix}{name} done in {seconds[name]:.2f} s ({self.elapsed():.2f} s)")


@contextmanager
def clocked(seconds, phase):
    """Add the wall time of the ``with`` body to ``seconds[phase]``."""
    t0 = time.perf_counter()
    try:
        yield
    finally:
        seconds[phase] = seconds.get(phase, 0.0) + time.perf_counter() - t0


def runs_label(ids, n):
    """Restarts ``ids`` (counted from 0) of ``n`` in words: ``restart 2/5``, ``restarts
    1-3/5``, ``restarts 1, 4 (of 5)``."""
    runs = [r + 1 for r in ids]
    if len(runs) == 1:
        return f"restart {runs[0]}/{n}"
    if runs[-1] - runs[0] == len(runs) - 1:
        return f"restarts {runs[0]}-{runs[-1]}/{n}"
    return f"restarts {', '.join(map(str, runs))} (of {n})"


@contextmanager
def redrawn(draw, elapsed):
    """``draw()`` every ``TICK`` seconds once ``elapsed()`` reaches ``BAR_DELAY`` (at once
    past it), by a thread of its own (the kernels release the GIL) that stops when the
    block ends."""
    if elapsed() >= BAR_DELAY:
        draw()
    stop = threading.Event()

    def tick():
        while not stop.wait(max(BAR_DELAY - elapsed(), TICK)):
            draw()

    ticker = threading.Thread(target=tick, name="kgroups progress", daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()


def counted(n, step, desc=None, unit="row"):
    """The first item of each block of ``step`` of ``n`` items; where ``desc`` names the
    work, a bar on a terminal counts the items done (``unit``)."""
    starts = range(0, n, step)
    if desc is None or not draws_on(sys.stderr):
        yield from starts
        return
    bar = progress_bar(total=n, desc=desc, unit=unit)
    try:
        for a in starts:
            yield a
            bar.update(min(step, n - a))
    finally:
        bar.close()


_LINE = threading.local()  # .shown: a line of running() is up in this thread


@contextmanager
def running(what):
    """A line of its own on a terminal for work that has nothing to count (the choice of
    k, whose scan stops where its rule decides): ``what`` and its clock, from
    ``BAR_DELAY`` on, removed when the work ends. Off a terminal nothing runs. Work
    within another's line (the energy statistics' pass within an estimator's score)
    adds none: the outer line names what the user asked for."""
    if getattr(_LINE, "shown", False) or not draws_on(sys.stderr):
        yield
        return
    bar = progress_bar(total=None, desc=what, bar_format="{desc} [{elapsed}]")
    t0, _LINE.shown = time.perf_counter(), True
    try:
        with redrawn(bar.refresh, lambda: time.perf_counter() - t0):
            yield
    finally:
        _LINE.shown = False
        bar.close()
