"""How a kernel runs on every core (``kgroups._kernels.parallel``): its part, compiled
once, run over ranges of its items at the same time."""

import os
import sys
import threading
import warnings

import numpy as np
import pytest

from kgroups._kernels import held_dense as dense, jit as _jit, parallel as _parallel

PARTS = [dense.m_dense_rows, dense.sums_rows]


def test_workers_by_work(monkeypatch):
    monkeypatch.setattr(_parallel, "num_threads", lambda: 5)
    assert _parallel.workers(_parallel.PARALLEL_MIN_WORK) == 5
    assert _parallel.workers(_parallel.PARALLEL_MIN_WORK - 1) == 1


@pytest.mark.parametrize("n_workers", [1, 2, 3, 7, 40])
def test_any_cut_into_ranges_gives_the_same_bits(n_workers):
    """Rows in ranges run at once (more workers than rows included) equal one call."""
    rng = np.random.default_rng(0)
    B = rng.normal(size=(37, 37))
    labels = rng.integers(0, 4, 37)
    want = np.zeros((4, 37))
    dense.m_dense_rows(B, labels, want, 0, 37)
    np.testing.assert_array_equal(dense.build_m_dense(B, labels, 4, n_workers), want)


@pytest.mark.parametrize("part", PARTS)
def test_a_part_is_compiled_once_without_the_gil(part):
    """One compilation serves one worker and many, and it releases the GIL so that the
    workers run at the same time."""
    disp = part.dispatcher
    if not hasattr(disp, "targetoptions"):  # NUMBA_DISABLE_JIT=1: plain functions
        pytest.skip("no dispatchers without the JIT")
    assert disp.targetoptions.get("nogil") and not disp.targetoptions.get("parallel")


def test_the_ranges_run_on_other_threads_at_once(monkeypatch):
    """Each range but the first goes to a worker thread; the caller runs the first and
    returns only when every range is done."""
    seen = []
    barrier = threading.Barrier(3, timeout=10)

    def part(out, lo, hi):  # a stand-in for a compiled part: all three must meet
        seen.append((lo, hi, threading.current_thread() is threading.main_thread()))
        barrier.wait()
        out[lo:hi] = lo

    fake = _jit.Kernel(part)
    compiled = lambda *args: part(*args)  # noqa: E731  (not the Python function)
    monkeypatch.setattr(fake, "target", lambda: compiled)
    out = np.full(9, -1)
    _parallel.spread(fake, 9, 3, out)
    assert sorted(seen) == [(0, 3, True), (3, 6, False), (6, 9, False)]
    assert out.tolist() == [0, 0, 0, 3, 3, 3, 6, 6, 6]


def test_an_error_in_a_range_reaches_the_caller_after_every_range_ends(monkeypatch):
    done = []

    def part(lo, hi):
        if lo > 0:
            raise FloatingPointError(f"range {lo}")
        done.append(lo)

    fake = _jit.Kernel(part)
    compiled = lambda *args: part(*args)  # noqa: E731
    monkeypatch.setattr(fake, "target", lambda: compiled)
    with pytest.raises(FloatingPointError, match="range"):
        _parallel.spread(fake, 4, 4)
    assert done == [0]


def test_as_python_one_call_over_every_item():
    calls = []

    def part(lo, hi):
        calls.append((lo, hi))

    with _jit.as_python():
        _parallel.spread(_jit.Kernel(part), 10, 4)
    assert calls == [(0, 10)]


@pytest.mark.skipif(not hasattr(os, "fork") or sys.platform == "darwin",
                    reason="fork is the platform's way to start a child here")
def test_a_forked_child_starts_its_own_workers():
    """The worker threads do not exist in a child made by fork: it makes its own
    instead of waiting on threads that are not there."""
    rng = np.random.default_rng(1)
    B, labels = rng.normal(size=(30, 30)), rng.integers(0, 3, 30)
    want = dense.build_m_dense(B, labels, 3, 1)
    dense.build_m_dense(B, labels, 3, 3)  # the parent's workers exist
    r, w = os.pipe()
    with warnings.catch_warnings():  # Python 3.12 warns of fork in a threaded process
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        ok = np.array_equal(dense.build_m_dense(B, labels, 3, 3), want)
        os.write(w, b"1" if ok else b"0")
        os._exit(0)
    os.close(w)
    _, status = os.waitpid(pid, 0)
    assert os.read(r, 1) == b"1" and status == 0


def test_calls_from_several_threads_at_once_each_get_their_own_result(monkeypatch):
    """Calls on several threads share the workers one call at a time; each result is
    its own call's, also when a later call asks for more workers than exist yet."""
    monkeypatch.setattr(_parallel, "_TEAM", _parallel._Team())
    rng = np.random.default_rng(2)
    cases = [(rng.normal(size=(41, 41)), rng.integers(0, 3, 41), n_workers)
             for n_workers in (2, 5, 3, 8, 2, 6)]
    want = [dense.build_m_dense(B, labels, 3, 1) for B, labels, _ in cases]
    got = [None] * len(cases)

    def call(c):
        B, labels, n_workers = cases[c]
        for _ in range(20):
            got[c] = dense.build_m_dense(B, labels, 3, n_workers)

    threads = [threading.Thread(target=call, args=(c,)) for c in range(len(cases))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    assert len(_parallel._TEAM.go) == 7  # the most workers asked for, less the caller


def test_the_workers_run_again_after_an_error(monkeypatch):
    """A range that raised leaves its worker waiting for the next call, and the call
    keeps none of the errors it raised."""
    monkeypatch.setattr(_parallel, "_TEAM", _parallel._Team())

    def part(out, lo, hi):
        if out is None:
            raise ValueError("bad range")
        out[lo:hi] = 1

    fake = _jit.Kernel(part)
    compiled = lambda *args: part(*args)  # noqa: E731
    monkeypatch.setattr(fake, "target", lambda: compiled)
    with pytest.raises(ValueError, match="bad range"):
        _parallel.spread(fake, 6, 3, None)
    assert _parallel._TEAM.job == [None, None]  # the errors are not kept past the call
    out = np.zeros(6)
    _parallel.spread(fake, 6, 3, out)
    assert out.tolist() == [1.0] * 6


def test_a_call_interrupted_while_ranges_run_leaves_them_a_team_of_their_own(monkeypatch):
    """Interrupted while waiting for the workers (Ctrl-C), the call cannot know when
    their ranges end: later calls take a new team, so none returns before its own
    ranges end."""
    team = _parallel._Team()
    monkeypatch.setattr(_parallel, "_TEAM", team)
    team._grow(1)

    class Interrupted:  # the wait for worker 0, interrupted once
        def __init__(self, lock):
            self.lock, self.calls = lock, 0

        def acquire(self):
            self.calls += 1
            if self.calls == 1:
                raise KeyboardInterrupt
            return self.lock.acquire()

    team.done[0] = Interrupted(team.done[0])
    slow, first = threading.Event(), [True]

    def part(out, lo, hi):
        if lo > 0 and first:  # the interrupted call's range, still running after it
            first.pop()
            slow.wait(10)
        out[lo:hi] = lo

    fake = _jit.Kernel(part)
    compiled = lambda *args: part(*args)  # noqa: E731
    monkeypatch.setattr(fake, "target", lambda: compiled)
    with pytest.raises(KeyboardInterrupt):
        _parallel.spread(fake, 4, 2, np.zeros(4))
    assert _parallel._TEAM is not team
    out = np.zeros(4)
    _parallel.spread(fake, 4, 2, out)
    assert out.tolist() == [0, 0, 2, 2]
    slow.set()
