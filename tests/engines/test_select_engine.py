"""Engine selection (``kgroups._engines.select`` and the registry): the engine table,
the ``"auto"`` rule, and the ``engine_`` an estimator reports.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import kgroups._engines.select as backends
import kgroups._memory as memory
from kgroups import KernelKGroups, KernelKMeans
from kgroups._engines import matrix_free, registry
from kgroups._engines.dense import DenseEngine
from kgroups._engines.gpu import GpuEngine
from kgroups._engines.lowrank import LowRankEngine
from kgroups._engines.matrix_free import MULTI_STARTS, MatrixFreeEngine
from kgroups._engines.select import choose_engine, select_engine
from kgroups._engines.sparse import SparseEngine

from tests._helpers import CALLABLE, blobs, sparse_psd_gram


sel = select_engine
ENGINES = registry.engines()
MATRIX_FREE_MIN_N = MatrixFreeEngine.MIN_N_MODELLED


@pytest.fixture(autouse=True)
def no_device(monkeypatch):
    """The CPU engines' rule: no usable CUDA device. Where one is, "auto" takes the GPU
    engine wherever its calibration predicts it faster (tests/engines/test_calibration.py)."""
    monkeypatch.setattr(GpuEngine, "available", classmethod(lambda cls: False))


def test_select_engine_auto(monkeypatch):
    assert select_engine("auto", 500, False, False, np.float64, n_clusters=3) is DenseEngine
    assert select_engine("low-rank", 500, False, False, np.float64, n_clusters=3) is LowRankEngine
    # a machine too small for the 5000 x 5000 kernel (200 MB): matrix-free or low-rank
    monkeypatch.setattr(backends, "total_memory", lambda: 100 * 2**20)
    assert select_engine("auto", 5000, False, False, np.float64, n_clusters=3) is MatrixFreeEngine
    assert select_engine("auto", 5000, False, False, np.float64,
                         semimetric=lambda a, b: a, n_clusters=3) is LowRankEngine
    assert select_engine("auto", 5000, True, False, np.float64, n_clusters=3) is DenseEngine


def _predicted(engine, n, d, r):
    """The cost model written out from its documented terms (not through the code)."""
    a, b, c, e = ENGINES[engine].COST_CONSTANTS
    if engine == "dense":
        return a * n * n * d + b * n * n + c * r * n * n + e * r * n
    passes = -(-r // MULTI_STARTS)
    return a * n * n * d * passes + b * r * n * n + c * r * n * n * d + e * r * n


def test_auto_follows_the_cost_model():
    """n = 20k with D = 50, 100, 200 (and 2, 10), one and ten starts: the engine
    with the lower predicted time."""
    n = 20_000
    for d in (2, 10, 50, 100, 200):
        for r in (1, 10):
            want = ("matrix-free" if _predicted("matrix-free", n, d, r)
                    < _predicted("dense", n, d, r) else "dense")
            got = sel("auto", n, False, False, np.float64, n_features=d, n_clusters=10, n_init=r)
            assert got is ENGINES[want], (d, r)


def test_cost_model_constants_are_positive_and_shaped():
    for engine in ("dense", "matrix-free"):
        consts = ENGINES[engine].COST_CONSTANTS
        assert len(consts) == 4 and all(c >= 0 for c in consts) and any(c > 0 for c in consts)
        assert np.isclose(ENGINES[engine].predicted_seconds(8000, 8, n_clusters=10, n_init=2),
                          _predicted(engine, 8000, 8, 2), rtol=1e-12)


def test_auto_is_deterministic_whatever_memory_is_free(monkeypatch):
    """Same call twice gives the same engine, also when the free memory changes
    between the calls (it is no input of the choice)."""
    free = iter([64 * 2**30, 2**20, 64 * 2**30, 2**20] * 50)
    monkeypatch.setattr(memory, "available_memory", lambda: next(free))
    for n, d, r in [(1000, 5, 1), (5000, 2, 10), (20_000, 50, 1), (20_000, 200, 10),
                    (60_000, 10, 1)]:
        first = choose_engine("auto", n, False, False, np.float64, n_features=d,
                              n_clusters=10, n_init=r)
        second = choose_engine("auto", n, False, False, np.float64, n_features=d,
                               n_clusters=10, n_init=r)
        assert first == second, (n, d, r)


def test_auto_memory_guard_uses_total_memory(monkeypatch):
    """The dense engine is no candidate when 1.5 x its estimate exceeds 80% of the
    total memory: 20k points need 3.2 GB (float64), 1.6 GB (float32)."""
    f64, f32 = np.float64, np.float32
    monkeypatch.setattr(backends, "total_memory", lambda: 4 * 2**30)
    assert sel("auto", 20_000, False, False, f64, n_features=200, n_clusters=10) \
        is MatrixFreeEngine
    assert sel("auto", 20_000, False, False, f64, semimetric=CALLABLE, n_features=200,
               n_clusters=10) is LowRankEngine
    # float32 halves the kernel: 1.5 x 1.6 GB fits in 80% of 4 GiB
    assert sel("auto", 20_000, False, False, f32, semimetric=CALLABLE, n_features=200,
               n_clusters=10) is DenseEngine
    # precomputed matrices have no other engine
    assert sel("auto", 20_000, True, False, f64, n_clusters=10) is DenseEngine


def test_auto_rule():
    big, small = MATRIX_FREE_MIN_N, MATRIX_FREE_MIN_N - 1
    f64 = np.float64
    assert sel("auto", small, False, False, f64, n_features=2, n_clusters=3) is DenseEngine
    assert sel("auto", small, False, False, f64, n_features=2, n_clusters=3,
               n_init=10) is DenseEngine
    # callables and precomputed matrices have no matrix-free engine
    assert sel("auto", big, False, False, f64, semimetric=CALLABLE, n_clusters=3) is DenseEngine
    assert sel("auto", big, True, False, f64, n_clusters=3) is DenseEngine
    assert sel("auto", big, True, True, f64, n_clusters=3) is SparseEngine


def test_engine_table_and_auto_selection():
    assert ENGINES["sparse"] is SparseEngine
    assert select_engine("auto", 100, True, True, np.float64, n_clusters=2) is SparseEngine
    assert select_engine("auto", 100, True, False, np.float64, n_clusters=2) is DenseEngine


def test_engine_attribute_names_the_engine_auto_chose(monkeypatch):
    X, _ = blobs(300, 2, 3, seed=1)
    assert KernelKGroups(3, random_state=0).fit(X).engine_ == "dense"
    K = sparse_psd_gram(60, 2, seed=2)
    assert KernelKMeans(2, kernel="precomputed", random_state=0).fit(K).engine_ == "sparse"
    # 1 MiB holds no n x n kernel but does hold the matrix-free engine's buffers on two
    # threads (it keeps buffers per thread: on 16 threads neither engine would fit)
    monkeypatch.setattr(matrix_free, "num_threads", lambda: 2)
    monkeypatch.setattr(backends, "total_memory", lambda: 2**20)
    assert KernelKGroups(3, random_state=0).fit(X).engine_ == "matrix-free"
    lr = KernelKGroups(3, semimetric=CALLABLE, n_components=20, random_state=0).fit(X)
    assert lr.engine_ == "low-rank"


def test_auto_estimator_passes_its_starts(monkeypatch):
    """The estimator asks with its n_init (1 for given labels). With constants where
    one start favours matrix-free (3e-10 n^2 < 1e-9 n^2) and ten favour dense
    (3e-9 n^2 > 1e-9 n^2), the engine it reports shows which n_init it passed."""
    monkeypatch.setattr(DenseEngine, "COST_CONSTANTS", (0.0, 1e-9, 0.0, 0.0))
    monkeypatch.setattr(MatrixFreeEngine, "COST_CONSTANTS", (0.0, 0.0, 1e-10, 0.0))
    X, _ = blobs(MATRIX_FREE_MIN_N, 3, 3, seed=17, spread=0.5)
    one = KernelKGroups(3, n_init=1, random_state=0).fit(X)
    many = KernelKGroups(3, n_init=10, random_state=0).fit(X)
    given = KernelKGroups(3, init=one.labels_, n_init=10).fit(X)  # given labels run once
    assert (one.engine_, many.engine_, given.engine_) == ("matrix-free", "dense", "matrix-free")
    assert KernelKGroups(3, n_init=1, random_state=0).fit(X[:-1]).engine_ == "dense"


def test_sparse_precomputed_is_not_silently_densified_without_engine():
    G = sp.random(30, 30, density=0.1, random_state=0)
    G = G + G.T
    try:
        KernelKGroups(2, kernel="precomputed", random_state=0).fit(G)
    except ValueError as err:  # before the sparse engine exists the error must be clear
        assert "sparse" in str(err)


def test_benchmark_fits_the_model_the_library_uses():
    """benchmarks/bench_auto.py (public API only) writes the cost terms out again;
    its constants are only right if the terms are the library's."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "bench_auto.py"
    spec = importlib.util.spec_from_file_location("bench_auto", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.MULTI_STARTS == MULTI_STARTS
    for engine in ("dense", "matrix-free"):
        for n, d, r in [(2000, 2, 1), (5000, 50, 10), (20_000, 200, 25), (777, 1, 3)]:
            assert np.allclose(bench.cost_features(engine, n, d, r),
                               ENGINES[engine].cost_features(n, d, r), rtol=1e-12)
