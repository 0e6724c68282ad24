"""The relabellings of a permutation test (``kgroups._kernels.permute``): each row of
keys sorted stably, the codes read in that order, the rows on every core."""

import numpy as np
import pytest

from kgroups._kernels import jit as _jit, parallel as _parallel, permute


@pytest.mark.parametrize("least", [0, 1 << 40])
def test_equal_to_numpy_stable_argsort_with_ties_by_position(monkeypatch, least):
    """The compiled bucket sort (any batch: ``least`` 0) and NumPy's sort (a small
    batch) give the relabellings of a stable sort of the keys."""
    monkeypatch.setattr(permute, "PARALLEL_MIN_WORK", least)
    rng = np.random.default_rng(0)
    keys = rng.random((9, 300))
    keys[:, 10:40] = 0.5          # ties: a stable sort keeps their order
    keys[3] = 0.25                # a row of equal keys: the identity
    codes = rng.integers(0, 4, 300)
    got = permute.permuted_codes(keys, codes)
    np.testing.assert_array_equal(got, codes[np.argsort(keys, axis=1, kind="stable")])
    np.testing.assert_array_equal(got[3], codes)
    assert all(np.array_equal(np.bincount(r, minlength=4), np.bincount(codes, minlength=4))
               for r in got)


def test_keys_out_of_the_unit_interval_still_sorted():
    """The buckets assume keys in [0, 1): keys beyond (negative, past 1, infinite) go to
    the end buckets and are still sorted."""
    rng = np.random.default_rng(2)
    keys = rng.normal(0.5, 2.0, (4, 200))
    keys[1, :5] = [np.inf, -np.inf, 1.0, 0.0, -0.0]
    codes = np.arange(200)
    want = codes[np.argsort(keys, axis=1, kind="stable")]
    got = np.empty_like(want)
    permute.permuted_rows(keys, codes, got, 0, 4)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("n_workers", [1, 2, 5])
def test_compiled_python_and_any_cut_into_ranges_agree(n_workers):
    rng = np.random.default_rng(1)
    keys = np.round(rng.random((7, 120)), 2)    # many ties
    codes = rng.integers(0, 3, 120)
    want = np.empty(keys.shape, dtype=np.int64)
    with _jit.as_python():
        permute.permuted_rows(keys, codes, want, 0, keys.shape[0])
    got = np.empty_like(want)
    _parallel.spread(permute.permuted_rows, keys.shape[0], n_workers, keys, codes, got)
    np.testing.assert_array_equal(got, want)
