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
    """Each range but the first goes to the pool; the caller runs the first and
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
    """The pool's threads do not exist in a child made by fork: it makes its own
    instead of waiting on threads that are not there."""
    rng = np.random.default_rng(1)
    B, labels = rng.normal(size=(30, 30)), rng.integers(0, 3, 30)
    want = dense.build_m_dense(B, labels, 3, 1)
    dense.build_m_dense(B, labels, 3, 3)  # the parent's pool exists
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


def test_a_pool_replaced_by_a_larger_one_still_takes_work(monkeypatch):
    """A call on another thread may hold the smaller pool while a call asking for more
    workers makes a larger one: the smaller pool must still run what it is given."""
    monkeypatch.setattr(_parallel, "_POOL", {"executor": None, "size": 0})
    small = _parallel._pool(1)
    assert _parallel._pool(3) is not small
    assert small.submit(lambda: 7).result(timeout=10) == 7
