"""The serial and parallel twins of each kernel (``kgroups._kernels.parallel``)."""

import pytest

from kgroups._kernels import parallel as _parallel, held_dense as dense, pairs_on_the_fly as matrix_free, pairwise

TWINS = [(dense.build_m_dense_serial, dense.build_m_dense),
         (dense.cluster_sums_rows_serial, dense.cluster_sums_rows),
         (matrix_free.build_m_sym_serial, matrix_free.build_m_sym),
         (matrix_free.build_m_multi_serial, matrix_free.build_m_multi),
         (matrix_free.apply_moves_serial, matrix_free.apply_moves),
         (matrix_free.kernel_column_mf_serial, matrix_free.kernel_column_mf),
         (pairwise.finish_block_serial, pairwise.finish_block)]


@pytest.mark.parametrize("serial, parallel", TWINS)
def test_twins_have_their_own_cache_entries(serial, parallel):
    """numba's disk cache names an entry by qualified name, not by the parallel
    flag: twins of one Python function shared one entry and the parallel one was
    loaded as the serial code. Each twin must compile its own copy."""
    serial, parallel = serial.dispatcher, parallel.dispatcher
    if not hasattr(parallel, "py_func"):  # NUMBA_DISABLE_JIT=1: plain functions
        pytest.skip("no dispatchers without the JIT")
    assert serial.py_func is not parallel.py_func
    assert serial.py_func.__qualname__ != parallel.py_func.__qualname__
    assert serial.py_func.__code__ is parallel.py_func.__code__  # one source
    assert parallel.targetoptions.get("parallel") and not serial.targetoptions.get("parallel")


def test_pick_by_work():
    assert _parallel.pick("s", "p", _parallel.PARALLEL_MIN_WORK) == "p"
    assert _parallel.pick("s", "p", _parallel.PARALLEL_MIN_WORK - 1) == "s"
