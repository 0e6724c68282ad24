"""Data on a CUDA device through ``fit``, ``predict``, ``transform`` and ``score``
(``kgroups._input_device``, the GPU engine and its predictor), under numba's CUDA
simulator: numba device arrays stand in for CuPy and PyTorch. The results equal the
host data's, and the data are never copied to the host (every copy is watched)."""

import warnings

import numpy as np
import pytest

from kgroups._engines.gpu import cuda_usable

pytestmark = pytest.mark.skipif(not cuda_usable(real_device=False),
                                reason="no CUDA device and NUMBA_ENABLE_CUDASIM is not set")

from kgroups import KernelKGroups, KernelKMeans, improving_moves  # noqa: E402
from tests._helpers import blobs  # noqa: E402


def dev(a):
    from numba import cuda
    return cuda.to_device(np.ascontiguousarray(a))


def is_device(a):
    return hasattr(a, "__cuda_ndarray__")


def span(a):
    """The bytes ``[lo, hi)`` that a device array (or a view of one) covers: the
    simulator's host memory behind it, or its memory on the device."""
    ary = getattr(a, "_ary", None)  # the simulator's NumPy array behind a device array
    iface = ary.__array_interface__ if ary is not None else a.__cuda_array_interface__
    item = np.dtype(iface["typestr"]).itemsize
    shape, strides = iface["shape"], iface.get("strides")
    if strides is None:  # C-contiguous
        strides = tuple(int(np.prod(shape[d + 1:])) * item for d in range(len(shape)))
    if 0 in shape:
        return 0, 0
    far = [(s - 1) * st for s, st in zip(shape, strides)]
    ptr = iface["data"][0]
    return ptr + sum(f for f in far if f < 0), ptr + sum(f for f in far if f > 0) + item


class Watch:
    """Fails the test when the host reads the memory of ``watched`` device arrays (a
    copy to the host, or ``np.asarray``, which copies through ``copy_to_host`` on a
    device and through the simulator's ``__getattr__``), counting every other copy."""

    def __init__(self, monkeypatch, *watched):
        from numba import cuda
        self.watched = [span(w) for w in watched]
        self.copies = 0
        cls = type(cuda.to_device(np.zeros(1)))
        real_copy, real_getattr = cls.copy_to_host, cls.__dict__.get("__getattr__")
        watch = self

        def copy_to_host(self, *args, **kwargs):
            watch.check(self, "copy_to_host")
            watch.copies += 1
            return real_copy(self, *args, **kwargs)

        def getattr_(self, name):  # the simulator's arrays hand NumPy's protocols on
            if name in ("__array__", "__array_interface__", "__array_struct__"):
                watch.check(self, name)
            return real_getattr(self, name)

        monkeypatch.setattr(cls, "copy_to_host", copy_to_host)
        if real_getattr is not None:
            monkeypatch.setattr(cls, "__getattr__", getattr_)

    def check(self, arr, how):
        lo, hi = span(arr)
        if any(lo < w_hi and w_lo < hi for w_lo, w_hi in self.watched):
            raise AssertionError(f"the data were read on the host ({how})")


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fit_predict_transform_score_on_device_data(monkeypatch, dtype):
    """A fit on device data (float64 and float32, weights on the device too) gives the
    labels, moves and W of the same fit on host data, with no host copy of X or of
    the new rows; predict and transform return device arrays equal to the host fit's,
    score the same number."""
    X, _ = blobs(45, 3, 3, seed=80, spread=2.0)
    X = X.astype(dtype)
    Xn = blobs(25, 3, 3, seed=81, spread=2.0)[0].astype(dtype)
    w = np.random.default_rng(82).uniform(0.5, 2.0, 45)
    kw = dict(n_clusters=3, engine="gpu", random_state=0, n_init=2)
    host = quiet(KernelKGroups(**kw).fit, X.astype(np.float64), sample_weight=w)
    dX, dXn, dw = dev(X), dev(Xn), dev(w)
    Watch(monkeypatch, dX, dXn)
    est = quiet(KernelKGroups(**kw).fit, dX, sample_weight=dw)
    assert isinstance(est.labels_, np.ndarray) and est.engine_ == "gpu"
    np.testing.assert_array_equal(est.labels_, host.labels_)
    assert est.n_moves_ == host.n_moves_
    assert est.within_energy_ == pytest.approx(host.within_energy_, rel=1e-12)
    assert est.n_features_in_ == 3 and not hasattr(est, "feature_names_in_")
    pred = est.predict(dXn)
    assert is_device(pred) and pred.dtype == np.int64
    np.testing.assert_array_equal(pred.copy_to_host(), host.predict(Xn.astype(np.float64)))
    dist = est.transform(dXn)
    assert is_device(dist) and dist.shape == (25, 3)
    np.testing.assert_allclose(dist.copy_to_host(), host.transform(Xn.astype(np.float64)),
                               rtol=1e-10, atol=1e-12)
    assert est.score(dXn) == pytest.approx(host.score(Xn.astype(np.float64)), rel=1e-10)
    # host rows into a device fit: the same numbers, as NumPy
    np.testing.assert_array_equal(est.predict(Xn), host.predict(Xn.astype(np.float64)))


def test_device_data_match_the_matrix_free_engine_with_left_out_rows():
    """Zero-weight rows (left out of the fit, labelled by predict's rule) and a given
    start: the device fit makes the matrix-free engine's moves on the host data, and
    no improving move is left."""
    X, _ = blobs(60, 2, 3, seed=83, spread=2.5)
    w = np.random.default_rng(84).uniform(0.5, 2.0, 60)
    w[[3, 17, 40]] = 0.0
    start = np.random.default_rng(85).integers(0, 3, 60)
    kw = dict(n_clusters=3, init=start, semimetric="laplacian", sigma=1.5)
    g = quiet(KernelKGroups(engine="gpu", **kw).fit, dev(X), sample_weight=w)
    m = quiet(KernelKGroups(engine="matrix-free", **kw).fit, X, sample_weight=w)
    np.testing.assert_array_equal(g.labels_, m.labels_)
    assert g.n_moves_ == m.n_moves_
    assert g.within_energy_ == pytest.approx(m.within_energy_, rel=1e-12)
    keep = w > 0
    assert improving_moves(X[keep], g.labels_[keep], sample_weight=w[keep],
                           semimetric="laplacian", sigma=1.5, engine="dense") == 0


def test_rescaled_device_data_and_auto_engine():
    """Entries beyond the safe magnitude are rescaled on the device by a power of two
    (energy is scale-free): the partition of the unscaled data, W in the data's units;
    ``engine="auto"`` takes device data to the GPU engine."""
    X, _ = blobs(50, 2, 2, seed=86, spread=3.0)
    big = X * 2.0 ** 200
    ref = quiet(KernelKGroups(2, engine="matrix-free", random_state=1, n_init=2).fit, X)
    est = quiet(KernelKGroups(2, random_state=1, n_init=2).fit, dev(big))
    assert est.engine_ == "gpu"
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    assert est.within_energy_ == pytest.approx(ref.within_energy_ * 2.0 ** 200, rel=1e-12)


def test_kernel_kmeans_on_device_data():
    X, _ = blobs(60, 2, 3, seed=87, spread=2.0)
    kw = dict(n_clusters=3, random_state=2, engine="gpu", n_init=2)
    g = quiet(KernelKMeans(**kw).fit, dev(X))
    h = quiet(KernelKMeans(**kw).fit, X)
    np.testing.assert_array_equal(g.labels_, h.labels_)
    np.testing.assert_array_equal(g.predict(dev(X)).copy_to_host(), h.predict(X))


def test_bad_device_input_named():
    """Wrong shapes, NaN, another number of features, a precomputed matrix and a
    spectral start on device data get errors naming what is wrong."""
    X, _ = blobs(30, 2, 2, seed=88, spread=2.0)
    with pytest.raises(ValueError, match="X should be a 2-D array .* on the device, got "
                       r"shape \(30,\); reshape"):
        KernelKGroups(2, engine="gpu").fit(dev(X[:, 0]))
    bad = X.copy()
    bad[4, 1] = np.nan
    with pytest.raises(ValueError, match=r"X contains NaN or infinity \(1 entries, on the "
                       "device\\)"):
        KernelKGroups(2, engine="gpu").fit(dev(bad))
    with pytest.raises(ValueError, match="takes raw data, not a precomputed matrix"):
        KernelKGroups(2, semimetric="precomputed").fit(dev(np.zeros((4, 4))))
    with pytest.raises(ValueError, match="init='spectral' is not available with "
                       "engine='gpu'"):
        quiet(KernelKGroups(2, engine="gpu", init="spectral").fit, dev(X))
    est = quiet(KernelKGroups(2, engine="gpu", random_state=0, n_init=1).fit, dev(X))
    with pytest.raises(ValueError, match="X has 3 features, but KernelKGroups was fitted "
                       "with 2"):
        est.predict(dev(np.zeros((3, 3))))


def test_dlpack_arrays_are_device_arrays():
    """An array that speaks only DLPack on a CUDA device is taken as device data, and
    without CuPy or PyTorch to view it the error says what to pass."""
    from kgroups._input_device import on_cuda_device

    class DLPackOnly:
        shape = (4, 2)

        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("not read in this test")

    class HostDLPack(DLPackOnly):
        def __dlpack_device__(self):
            return (1, 0)

    assert on_cuda_device(DLPackOnly()) and not on_cuda_device(HostDLPack())
    assert not on_cuda_device(np.zeros(3))
    try:
        import cupy  # noqa: F401
    except ImportError:
        try:
            import torch  # noqa: F401
        except ImportError:
            with pytest.raises(ValueError, match="DLPack array on a CUDA device"):
                KernelKGroups(2, engine="gpu").fit(DLPackOnly())


def test_the_watch_sees_every_host_read(monkeypatch):
    """The watch of these tests fails on a copy of watched data (or of a view of it) and
    on NumPy reading it, and counts the other copies."""
    dX = dev(np.ones((5, 2)))
    watch = Watch(monkeypatch, dX)
    for read in (dX.copy_to_host, lambda: np.asarray(dX), dX[1:3].copy_to_host):
        with pytest.raises(AssertionError, match="read on the host"):
            read()
    dev(np.ones(3)).copy_to_host()
    assert watch.copies == 1


def test_n_clusters_auto_chooses_on_a_host_sample_and_fits_on_the_device(monkeypatch):
    """Issue 54: n_clusters='auto' on a device array chooses k on a uniform sample
    copied to the host, then fits that k on the device (two starts: n_init="auto"
    would run 30 on these 90 rows)."""
    from sklearn.metrics import adjusted_rand_score

    from kgroups._choose_k import estimator

    monkeypatch.setattr(estimator, "SAMPLE_N", 60)
    X, y = blobs(90, 3, 2, seed=3)
    est = quiet(KernelKGroups("auto", random_state=0, n_init=2).fit, dev(X))
    assert est.n_clusters_ == 2 and est.engine_ == "gpu"
    assert est.n_clusters_choice_.sample.size == 60
    assert "uniform sample of 60 of the 90 rows, drawn from the cuda input" in \
        est.n_clusters_choice_.reasoning
    assert adjusted_rand_score(y, np.asarray(est.labels_)) > 0.99


def test_n_clusters_auto_draws_the_sample_a_dask_array_of_the_same_rows_draws(monkeypatch):
    """The sample is drawn from the rows' values alone: a device array's keys, read a few
    rows at a time copied to the host, give the rows a dask array of the same data gives."""
    da = pytest.importorskip("dask.array")
    from kgroups import _input
    from kgroups._choose_k import estimator

    monkeypatch.setattr(estimator, "SAMPLE_N", 60)
    monkeypatch.setattr(_input, "KEY_ROWS", 16)   # keys read 16 rows at a time
    monkeypatch.setattr(_input, "KEY_BYTES", 1)
    X, _ = blobs(90, 3, 2, seed=3)
    on_device = quiet(KernelKGroups("auto", random_state=0, n_init=2).fit, dev(X))
    on_dask = quiet(KernelKGroups("auto", random_state=0, n_init=2).fit,
                    da.from_array(X, chunks=(25, 2)))
    np.testing.assert_array_equal(on_device.n_clusters_choice_.sample,
                                  on_dask.n_clusters_choice_.sample)
    assert on_device.n_clusters_ == on_dask.n_clusters_
