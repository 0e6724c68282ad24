"""The energy statistics of device arrays (``kgroups._stats.pairsum_cuda``), on a
device or under numba's CUDA simulator: equal to the in-memory values."""

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import (between_energy, disco, energy_distance, energy_test,  # noqa: E402
                     pairwise, total_energy, within_energy)

RTOL = 1e-12


def dev(a):
    from numba import cuda
    return cuda.to_device(np.ascontiguousarray(a))


@pytest.mark.parametrize("kw", [{}, {"alpha": 0.5}, {"semimetric": "gaussian", "sigma": 2.0},
                                {"semimetric": "sinusoidal", "theta": 3.0}])
def test_statistics_equal_the_in_memory_ones(kw):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(30, 3)), rng.normal(1.0, size=(25, 3))
    lab, w = rng.integers(0, 3, 30), rng.uniform(0.5, 2.0, 30)
    assert energy_distance(dev(X), dev(Y), **kw) == pytest.approx(
        energy_distance(X, Y, **kw), rel=RTOL)
    assert energy_distance(dev(X), Y, sample_weight_x=w, **kw) == pytest.approx(
        energy_distance(X, Y, sample_weight_x=w, **kw), rel=RTOL)
    for f in (within_energy, between_energy):
        assert f(dev(X), dev(lab), sample_weight=dev(w), **kw) == pytest.approx(
            f(X, lab, sample_weight=w, **kw), rel=RTOL)
    assert total_energy(dev(X), **kw) == pytest.approx(total_energy(X, **kw), rel=RTOL)


def test_permutations_on_the_device_match_in_memory():
    rng = np.random.default_rng(1)
    X, Y, Z = rng.normal(size=(15, 2)), rng.normal(0.5, size=(12, 2)), rng.normal(size=(10, 2))
    a = energy_test(dev(X), dev(Y), dev(Z), n_permutations=19, random_state=0)
    b = energy_test(X, Y, Z, n_permutations=19, random_state=0)
    assert a.statistic == pytest.approx(b.statistic, rel=RTOL) and a.pvalue == b.pvalue
    np.testing.assert_allclose(a.permutation_statistics, b.permutation_statistics, rtol=1e-11)
    lab = rng.integers(0, 3, 37)
    XYZ = np.vstack([X, Y, Z])
    a, b = (disco(dev(XYZ), lab, n_permutations=9, random_state=0),
            disco(XYZ, lab, n_permutations=9, random_state=0))
    assert a.statistic == pytest.approx(b.statistic, rel=RTOL) and a.pvalue == b.pvalue
    assert a.within == pytest.approx(b.within, rel=RTOL)


@pytest.mark.parametrize("n, k, B", [(37, 2, 5), (16, 3, 1), (50, 5, 9), (23, 1, 40)])
def test_relabelled_sums_equal_the_one_hot_product(n, k, B):
    """The device's sums of a batch of relabellings (the tiled product and its reduction
    by group) equal the brute-force sum over the pairs, at sizes that leave partial
    tiles of rows and of columns (16 x 16 under the simulator), several tiles of
    columns, a single relabelling and a single group."""
    from numba import cuda
    from kgroups._stats.dispatch import relabelled
    from kgroups._stats.pairsum_cuda import CudaPairSums
    rng = np.random.default_rng(n + k + B)
    A = rng.normal(size=(n, n))
    D = A + A.T
    codes = np.sort(rng.integers(0, k, size=n))[rng.permuted(np.tile(np.arange(n), (B, 1)),
                                                             axis=1)]  # the same sizes
    be, dD = CudaPairSums(), cuda.to_device(D)
    got = relabelled(be, dD, codes, k, be.row_sums(dD))
    want = np.zeros((B, k, k))
    for b in range(B):
        for i in range(n):
            for y in range(n):
                want[b, codes[b, i], codes[b, y]] += D[y, i]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(D).sum())


def test_relabelled_sums_past_a_grid_of_columns(monkeypatch):
    """A batch of more relabellings than one grid's columns holds runs in several
    launches: the same sums."""
    from numba import cuda
    import kgroups._stats.pairsum_cuda as pc
    from kgroups._kernels.cuda import PERM_TILE
    rng = np.random.default_rng(5)
    A = rng.normal(size=(20, 20))
    # a tile of columns holds PERM_TILE relabellings of 2 groups (one column each, the
    # other group's from the row sums): three launches
    D, codes = cuda.to_device(A + A.T), rng.integers(0, 2, size=(2 * PERM_TILE + 3, 20))
    want = pc.CudaPairSums().relabelled_sums(D, codes, 2, 1)
    monkeypatch.setattr(pc, "MAX_GRID_Y", 1)
    np.testing.assert_allclose(pc.CudaPairSums().relabelled_sums(D, codes, 2, 1), want,
                               rtol=1e-13)


def test_rescaled_data_and_clear_errors():
    X = np.random.default_rng(2).normal(size=(20, 2))
    assert within_energy(dev(X * 1e200), np.arange(20) % 2) == pytest.approx(
        within_energy(X * 1e200, np.arange(20) % 2), rel=RTOL)
    bad = X.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"total_energy: X contains NaN or infinity \(1 entries"):
        total_energy(dev(bad))
    with pytest.raises(ValueError, match="device arrays take a named semimetric"):
        total_energy(dev(np.abs(X[:, :1] - X[:, 0])), precomputed=True)
    with pytest.raises(ValueError, match="pairwise: X is an array on a CUDA device"):
        pairwise(dev(X))


def test_device_arrays_refused_by_name_where_not_taken():
    """Device arrays go to the GPU engine only: another engine asked for, a fit whose
    predictor reads host memory, and estimators without a device path say so."""
    from kgroups import EnergyHierarchical, KernelKGroups
    X = np.random.default_rng(3).normal(size=(20, 2))
    with pytest.raises(ValueError, match="X is an array on a CUDA device and "
                       "engine='matrix-free' takes numpy arrays; use engine='auto' or "
                       "engine='gpu'"):
        KernelKGroups(2, engine="matrix-free").fit(dev(X))
    est = KernelKGroups(2, random_state=0, engine="dense").fit(X)
    with pytest.raises(ValueError, match=r"X is an array on a CUDA device, and this fit "
                       r"\(engine='dense'\) predicts from host memory"):
        est.predict(dev(X))
    with pytest.raises(ValueError, match="EnergyHierarchical: X is an array on a CUDA "
                       "device"):
        EnergyHierarchical(2).fit(dev(X))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_device_data_never_copied_to_the_host(monkeypatch, dtype):
    """float64 and float32 device arrays stay on the device (float32 converted there):
    every copy to the host is counted, and none is of the data (only labels, the
    range check and the k x n cluster sums); the values equal the in-memory ones of
    the same numbers."""
    rng = np.random.default_rng(4)
    X, Y = rng.normal(size=(30, 4)).astype(dtype), rng.normal(1.0, size=(25, 4)).astype(dtype)
    lab = rng.integers(0, 3, 30)
    dX, dY = dev(X), dev(Y)
    copies = []
    cls = type(dX)
    real = cls.copy_to_host

    def counted(self, *args, **kwargs):
        copies.append(self.size)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(cls, "copy_to_host", counted)
    ed = energy_distance(dX, dY)
    we = within_energy(dX, dev(lab))
    monkeypatch.setattr(cls, "copy_to_host", real)
    data = {X.size, Y.size, X.size + Y.size}  # 120, 100, 220: the parts and the pool
    assert copies and max(copies) <= 3 * 55 and not data & set(copies)
    assert ed == pytest.approx(energy_distance(X.astype(np.float64), Y), rel=RTOL)
    assert we == pytest.approx(within_energy(X.astype(np.float64), lab), rel=RTOL)
