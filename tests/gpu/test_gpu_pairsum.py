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


def test_two_sample_test_on_the_device_matches_in_memory():
    """Two samples whose sizes fill no strip or tile: the device's p-value, statistic
    and permutation statistics are the CPU's for the same random state."""
    rng = np.random.default_rng(6)
    X, Y = rng.normal(size=(19, 3)), rng.normal(0.3, size=(26, 3))
    for kw in ({}, {"alpha": 0.5}, {"semimetric": "gaussian", "sigma": 2.0}):
        a = energy_test(dev(X), dev(Y), n_permutations=39, random_state=0, **kw)
        b = energy_test(X, Y, n_permutations=39, random_state=0, **kw)
        assert a.statistic == pytest.approx(b.statistic, rel=RTOL) and a.pvalue == b.pvalue
        np.testing.assert_allclose(a.permutation_statistics, b.permutation_statistics,
                                   rtol=1e-11)


def _points(n, seed, d=3):
    """``n`` random points, and the device handle of a permutation test on them."""
    from numba import cuda

    from kgroups._kernels.semimetric import kernel_args
    from kgroups._stats.pairsum_cuda import PooledPoints

    X = np.random.default_rng(seed).normal(size=(n, d))
    return X, PooledPoints(cuda.to_device(np.ascontiguousarray(X.T)), kernel_args("energy", {}))


def _relabellings(n, k, B, seed):
    """``B`` random relabellings of ``n`` points in ``k`` groups of the same sizes."""
    rng = np.random.default_rng(seed)
    return np.sort(rng.integers(0, k, size=n))[rng.permuted(np.tile(np.arange(n), (B, 1)),
                                                            axis=1)]


def _brute_force(X, codes, k):
    """``P_b[g, h]``: the sum of ``rho`` over every ordered pair (i, y) with i in group
    g and y in group h of relabelling b, pair by pair."""
    D = pairwise(X)
    want = np.zeros((codes.shape[0], k, k))
    for b in range(codes.shape[0]):
        for i in range(X.shape[0]):
            for y in range(X.shape[0]):
                want[b, codes[b, i], codes[b, y]] += D[i, y]
    return want, np.abs(D).sum()


@pytest.mark.parametrize("n, k, B", [(37, 2, 5), (45, 3, 4), (16, 3, 1), (70, 2, 9),
                                     (50, 5, 40), (23, 1, 7)])
def test_relabelled_sums_equal_the_brute_force_sums(n, k, B):
    """The device's sums of a batch of relabellings (the pairs' rho tile by tile, the
    indicators as bits, the largest group's row from the row sums) equal the sum over
    the pairs: sizes that fill no strip (8 points), word (32) or tile of points, an
    odd number of strips (a strip paired with itself), a single relabelling, more
    columns than a block holds (5 groups x 40: two tiles of columns under the
    simulator) and a single group."""
    from kgroups._stats.dispatch import relabelled
    from kgroups._stats.pairsum_cuda import CudaPairSums

    X, pooled = _points(n, n + k + B)
    codes = _relabellings(n, k, B, n + k)
    be = CudaPairSums()
    got = relabelled(be, pooled, codes, k, be.row_sums(pooled))
    want, scale = _brute_force(X, codes, k)
    if B > 1 and k > 1:  # the relabellings' sums differ: the bits are not ignored
        assert np.abs(want[0] - want[1]).max() > 1e-3 * scale / n
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-13 * scale)


def test_kernel_sums_each_unordered_pair_once():
    """The kernel's own output: ``S_b[g, j]``, the sums over the pairs i <= y (i = y
    halved) of rho with i in the g-th and y in the j-th group but the largest, against
    the brute-force sum; 3 groups over 3 strips (the middle one paired with itself)
    and 4 relabellings."""
    from numba import cuda

    from kgroups._kernels import cuda as kernels
    from kgroups._kernels import cuda_permute as kp
    from kgroups._stats.pairsum_cuda import _indicator_words

    n, k, B, skip = 21, 3, 4, 0
    X, pooled = _points(n, 7)
    codes = _relabellings(n, k, B, 8)
    D = pairwise(X)
    U = np.triu(D, 1) + np.diag(np.diag(D)) / 2
    others = np.array([1, 2])
    onehot = codes[:, None, :] == others[None, :, None]
    bits = cuda.to_device(_indicator_words(onehot, -(-n // kp.WORD)))
    blocks, cols = kp.strip_pairs(n), B * (k - 1)
    part = cuda.device_array((blocks, k - 1, cols))
    warps, tiles = kp.launch_shape(cols)
    kp.relabelled_pairs[(blocks, tiles), warps * kp.LANES](pooled.ZT, bits, k - 1, part,
                                                           *pooled.args)
    out = cuda.device_array((k - 1, cols))
    kp.sum_parts[kernels.blocks((k - 1) * cols), kernels.THREADS](part, out)
    got = out.copy_to_host()
    for b in range(B):
        for g in range(k - 1):
            for j in range(k - 1):
                want = onehot[b, g] @ U @ onehot[b, j]
                assert got[g, b * (k - 1) + j] == pytest.approx(want, rel=1e-13, abs=1e-13)


def test_a_wrong_bit_is_caught(monkeypatch):
    """The brute-force comparison catches a kernel that reads one indicator wrong: one
    bit flipped in the words the kernel receives gives other sums."""
    import kgroups._stats.pairsum_cuda as pc
    from kgroups._stats.dispatch import relabelled

    n, k, B = 37, 2, 3
    X, pooled = _points(n, 9)
    codes = _relabellings(n, k, B, 10)
    want, scale = _brute_force(X, codes, k)
    real = pc._indicator_words

    def flipped(onehot, words):
        out = real(onehot, words)
        out[0, 1] ^= np.uint32(1 << 5)  # point 5 of relabelling 1 in the other group
        return out

    monkeypatch.setattr(pc, "_indicator_words", flipped)
    be = pc.CudaPairSums()
    got = relabelled(be, pooled, codes, k, be.row_sums(pooled))
    assert np.abs(got - want).max() > 1e-6 * scale / n


def test_relabelled_sums_past_a_grid_of_columns_and_of_partial_sums(monkeypatch):
    """A batch of more relabellings than one grid's tiles of columns holds runs in
    several launches, and partial sums capped below a block per pair of strips make
    each block take several: the same sums."""
    import kgroups._stats.pairsum_cuda as pc
    from kgroups._kernels.cuda_permute import BLOCK_COLUMNS

    n, k = 43, 3
    X, pooled = _points(n, 11)
    codes = _relabellings(n, k, BLOCK_COLUMNS // (k - 1) + 3, 12)  # two grids of one tile
    be = pc.CudaPairSums()
    be.row_sums(pooled)
    want = be.relabelled_sums(pooled, codes, k, 1)
    monkeypatch.setattr(pc, "MAX_GRID_Y", 1)
    np.testing.assert_allclose(be.relabelled_sums(pooled, codes, k, 1), want, rtol=1e-13)
    monkeypatch.setattr(pc, "PART_BYTES", 1)  # one block, all the pairs of strips
    np.testing.assert_allclose(be.relabelled_sums(pooled, codes[:5], k, 1), want[:5],
                               rtol=1e-13)


def test_permutations_refused_when_the_device_memory_is_short(monkeypatch):
    """The indicators and partial sums of a batch are checked against the free device
    memory before anything is allocated: a clear error naming n_permutations."""
    import kgroups._kernels.device as device

    X = np.random.default_rng(13).normal(size=(20, 2))
    monkeypatch.setattr(device, "device_free_memory", lambda: 1000.0)
    with pytest.raises(ValueError, match=r"relabellings of 20 points needs .* GiB of device "
                       r"memory but .* are free; pass fewer n_permutations"):
        energy_test(dev(X[:9]), dev(X[9:]), n_permutations=99, random_state=0)


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
