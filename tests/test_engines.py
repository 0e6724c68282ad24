"""Engines: matrix-free (exact) and low-rank (approximate) against the dense engine,
brute-force twins, the memory guard and engine selection."""

import numpy as np
import pytest

import kgroups._backends._memory as memory
import kgroups._backends.matrix_free as mf_backend
from kgroups import KernelKGroups, KernelKMeans, pairwise
from kgroups._backends import (
    DenseEngine,
    LowRankEngine,
    MatrixFreeEngine,
    select_engine,
)
from kgroups._backends.lowrank import fourier_features, nystroem_features
from kgroups._engine._gain import cluster_stats
from kgroups._engine._twins import build_m_twin, sweep_twin
from kgroups._kgroups import kgroups_single

SEMIS = [("energy", {"alpha": 1.0}), ("energy", {"alpha": 0.7}), ("energy", {"alpha": 2.0}),
         ("gaussian", {"sigma": 1.3}), ("laplacian", {"sigma": 0.8}),
         ("localized", {}), ("sinusoidal", {"theta": 2.0})]


def blobs(n, d, k, seed, spread=1.0):
    rng = np.random.default_rng(seed)
    centres = rng.normal(0, 3, (k, d))
    y = rng.integers(0, k, n)
    return centres[y] + spread * rng.normal(size=(n, d)), y


def brute_B(X, w, semimetric, params):
    """``B = -diag(w) rho diag(w) / 2`` by explicit differences (no norm trick)."""
    D = np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    r = {"energy": lambda: D ** params.get("alpha", 1.0),
         "gaussian": lambda: 2 - 2 * np.exp(-D**2 / (2 * params["sigma"] ** 2)),
         "laplacian": lambda: 2 - 2 * np.exp(-D / (2 * params["sigma"])),
         "localized": lambda: D**2 * np.exp(-D / 2),
         "sinusoidal": lambda: D**2 * params["theta"] * np.sin(D / params["theta"])}[semimetric]()
    return -0.5 * w[:, None] * r * w[None, :]


@pytest.mark.parametrize("semimetric,params", SEMIS)
def test_matrix_free_build_m_matches_brute_force(semimetric, params):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(700, 3))  # 700 > one tile: crosses tile and cluster edges
    w = rng.uniform(0.5, 2.0, 700)
    labels = rng.integers(0, 5, 700)
    eng = MatrixFreeEngine.from_semimetric(X, w, semimetric, params, n_clusters=5)
    B = brute_B(X, w, semimetric, params)
    M = eng.build_m(labels, 5)
    np.testing.assert_allclose(M, build_m_twin(B, labels, 5), rtol=1e-10, atol=1e-10)
    c = 17
    np.testing.assert_allclose(eng.column(c), B[:, c] / (w * w[c]), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("batch", [1, 3, 64])
def test_matrix_free_sweep_matches_brute_force_twin(monkeypatch, batch):
    """Pending moves (flushed every ``batch``) give the move-at-a-time decisions."""
    monkeypatch.setattr(mf_backend, "BATCH", batch)
    rng = np.random.default_rng(2)
    X, _ = blobs(40, 2, 3, seed=3, spread=2.0)
    w = rng.uniform(0.5, 2.0, 40)
    labels = rng.integers(0, 3, 40)
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {}, n_clusters=3)
    B = brute_B(X, w, "energy", {})
    want, want_moves = sweep_twin(B, w, labels, 3)
    got = labels.copy()
    M = eng.build_m(got, 3)
    s, q, cnt = cluster_stats(M, got, w)
    moves = eng.sweep(got, M, s, q, cnt)
    assert want_moves > 5  # the sweep does move points
    assert moves == want_moves
    np.testing.assert_array_equal(got, want)
    # M, s, q are those of the new labels
    np.testing.assert_allclose(M, build_m_twin(B, got, 3), rtol=1e-10, atol=1e-10)
    s2, q2, _ = cluster_stats(build_m_twin(B, got, 3), got, w)
    np.testing.assert_allclose(q, q2, rtol=1e-10)
    np.testing.assert_allclose(s, s2, rtol=1e-12)


@pytest.mark.parametrize("semimetric,params", SEMIS)
def test_exact_engines_same_labels_same_start(semimetric, params):
    rng = np.random.default_rng(4)
    X, _ = blobs(1500, 4, 5, seed=5, spread=1.5)
    w = rng.uniform(0.5, 2.0, 1500)
    start = rng.integers(0, 5, 1500)
    runs = {}
    for name in ("dense", "matrix-free"):
        km = KernelKGroups(5, semimetric=semimetric, init=start, engine=name,
                           max_iter=300, **params).fit(X, sample_weight=w)
        runs[name] = km
    d, m = runs["dense"], runs["matrix-free"]
    assert sum(d.n_moves_) > 100
    np.testing.assert_array_equal(d.labels_, m.labels_)
    assert d.n_moves_ == m.n_moves_
    np.testing.assert_allclose(d.objective_, m.objective_, rtol=1e-9)


def test_kernel_kmeans_matrix_free_matches_dense():
    rng = np.random.default_rng(6)
    X, _ = blobs(800, 3, 4, seed=7, spread=2.0)
    start = rng.integers(0, 4, 800)
    d = KernelKMeans(4, init=start, engine="dense", semimetric="gaussian", sigma=2.0).fit(X)
    m = KernelKMeans(4, init=start, engine="matrix-free", semimetric="gaussian", sigma=2.0).fit(X)
    assert d.n_iter_ > 2
    np.testing.assert_array_equal(d.labels_, m.labels_)


def test_matrix_free_rejects_callable_and_precomputed():
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(ValueError, match="named semimetric"):
        KernelKGroups(2, semimetric=lambda a, b: pairwise(a, b), engine="matrix-free").fit(X)
    with pytest.raises(ValueError, match="precomputed"):
        KernelKGroups(2, semimetric="precomputed", engine="matrix-free").fit(pairwise(X))


# -- low-rank ---------------------------------------------------------------

def test_lowrank_is_exact_for_its_own_kernel():
    """On the features' kernel Kt the low-rank sweep is the brute-force Hartigan sweep."""
    rng = np.random.default_rng(8)
    X, _ = blobs(40, 2, 3, seed=9, spread=2.0)
    w = rng.uniform(0.5, 2.0, 40)
    eng = LowRankEngine.from_semimetric(X, w, "energy", {}, n_clusters=3, options={
        "n_components": 8, "landmarks": "uniform", "random_state": 0})
    F = eng.F
    kd = pairwise(X, X.mean(0)[None, :])[:, 0]  # K0(x, x) = rho(x, x0), x0 = mean
    Bt = w[:, None] * (F @ F.T - (kd[:, None] + kd[None, :]) / 2) * w[None, :]
    labels = rng.integers(0, 3, 40)
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(Bt, labels, 3),
                               rtol=1e-9, atol=1e-9)
    want, want_moves = sweep_twin(Bt, w, labels, 3)
    got = labels.copy()
    M = eng.build_m(got, 3)
    s, q, cnt = cluster_stats(M, got, w)
    assert eng.sweep(got, M, s, q, cnt) == want_moves > 5
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(M, build_m_twin(Bt, got, 3), rtol=1e-9, atol=1e-9)
    # kernel k-means batch update of M
    new = (got + 1) % 3
    pts = np.array([0, 5, 9])
    eng.move_rows(pts, got[pts], new[pts], M)
    got[pts] = new[pts]
    np.testing.assert_allclose(M, build_m_twin(Bt, got, 3), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(eng.column(4), Bt[:, 4] / (w * w[4]), atol=1e-9)


@pytest.mark.parametrize("semimetric,params", [("energy", {"alpha": 1.0}),
                                                ("energy", {"alpha": 1.5}),
                                                ("laplacian", {"sigma": 1.0})])
def test_nystroem_with_all_points_as_landmarks_is_exact(semimetric, params):
    """m = n landmarks: the feature-space distance is rho (negative type)."""
    X = np.random.default_rng(10).normal(size=(60, 3))
    F = nystroem_features(X, 60, semimetric, params, "k-means++", np.random.default_rng(0))
    rho_t = ((F[:, None] - F[None]) ** 2).sum(-1)
    rho = pairwise(X, None, semimetric, **params)
    np.testing.assert_allclose(rho_t, rho, atol=1e-6 * rho.max())


@pytest.mark.parametrize("semimetric", ["gaussian", "laplacian"])
def test_fourier_features_approximate_the_kernel(semimetric):
    X = np.random.default_rng(11).normal(size=(30, 3))
    m = 40000  # error ~ 1/sqrt(m) ~ 0.005 per entry
    F = fourier_features(X, m, semimetric, 1.5, np.random.default_rng(12))
    K = 1.0 - pairwise(X, None, semimetric, sigma=1.5) / 2.0
    assert np.abs(F @ F.T - K).max() < 0.04
    F_small = fourier_features(X, 8, semimetric, 1.5, np.random.default_rng(12))
    assert np.abs(F_small @ F_small.T - K).max() > 0.05  # the check can fail


def exact_w(X, labels):
    """W = sum_j (1 / (2 n_j)) sum_{x, y in C_j} ||x - y|| by brute force."""
    return sum(pairwise(X[labels == l]).sum() / (2 * np.sum(labels == l))
               for l in np.unique(labels))


@pytest.mark.parametrize("landmarks", ["k-means++", "uniform"])
def test_lowrank_objective_close_to_exact(landmarks):
    X, _ = blobs(2000, 5, 6, seed=13, spread=2.5)
    start = np.random.default_rng(14).integers(0, 6, 2000)
    ex = KernelKGroups(6, init=start, engine="matrix-free").fit(X)
    lr = KernelKGroups(6, init=start, engine="low-rank", n_components=128,
                       landmarks=landmarks, random_state=0).fit(X)
    w_ex, w_lr = exact_w(X, ex.labels_), exact_w(X, lr.labels_)
    np.testing.assert_allclose(w_ex, ex.within_energy_, rtol=1e-9)
    assert w_lr <= 1.02 * w_ex
    # the engine's own W estimates the exact W of its labels
    assert abs(lr.within_energy_ - w_lr) < 0.05 * w_lr


def test_lowrank_fourier_estimator_and_errors():
    X, y = blobs(600, 2, 3, seed=15, spread=0.5)
    km = KernelKGroups(3, semimetric="gaussian", sigma=2.0, engine="low-rank",
                       landmarks="fourier", n_components=64, random_state=0).fit(X)
    assert km.labels_.shape == (600,)
    with pytest.raises(ValueError, match="fourier"):
        KernelKGroups(3, engine="low-rank", landmarks="fourier").fit(X)
    with pytest.raises(ValueError, match="landmarks='grid'"):
        KernelKGroups(3, engine="low-rank", landmarks="grid").fit(X)
    with pytest.raises(ValueError, match="n_components=0"):
        KernelKGroups(3, engine="low-rank", n_components=0).fit(X)


# -- engine selection and the memory guard -------------------------------------

def test_select_engine_auto(monkeypatch):
    assert select_engine("auto", 500, False, False, np.float64, n_clusters=3) is DenseEngine
    assert select_engine("low-rank", 500, False, False, np.float64, n_clusters=3) is LowRankEngine
    monkeypatch.setattr(memory, "available_memory", lambda: 10 * 2**20)  # 10 MiB
    assert select_engine("auto", 5000, False, False, np.float64, n_clusters=3) is MatrixFreeEngine
    assert select_engine("auto", 5000, False, False, np.float64,
                         semimetric=lambda a, b: a, n_clusters=3) is LowRankEngine
    assert select_engine("auto", 5000, True, False, np.float64, n_clusters=3) is DenseEngine


def test_forced_dense_too_big_raises_clear_error_auto_succeeds(monkeypatch):
    X, y = blobs(3000, 3, 3, seed=16, spread=0.5)
    avail = 40 * 2**20  # 40 MiB: the 72 MB float64 kernel does not fit
    monkeypatch.setattr(memory, "available_memory", lambda: avail)
    with pytest.raises(ValueError) as err:
        KernelKGroups(3, engine="dense", random_state=0).fit(X)
    msg = str(err.value)
    # the n x n kernel, then 8 bytes x n x (D + 2k + 6): data, M (k x n), labels
    need = 3000 * 3000 * 8 + 8 * 3000 * (3 + 2 * 3 + 6)
    assert str(need) in msg and "0.04 GiB" in msg and "matrix-free" in msg
    km = KernelKGroups(3, engine="auto", random_state=0).fit(X)
    dense_free = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    np.testing.assert_array_equal(km.labels_, dense_free.labels_)


def test_kgroups_single_matrix_free_reaches_hartigan_optimum():
    """After convergence no single move lowers W (checked by brute force)."""
    X, _ = blobs(300, 2, 4, seed=17, spread=2.0)
    w = np.ones(300)
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {}, n_clusters=4)
    run = kgroups_single(eng, np.random.default_rng(18).integers(0, 4, 300), 4, 200)
    B = brute_B(X, w, "energy", {})
    _, moves = sweep_twin(B, w, run.labels, 4)
    assert run.converged and moves == 0


def test_parallel_and_serial_matrix_free_kernels_agree():
    from kgroups._engine import matrix_free as mfk
    rng = np.random.default_rng(19)
    X = rng.normal(size=(1200, 3))
    w = rng.uniform(0.5, 2.0, 1200)
    eng = MatrixFreeEngine(X, w, "laplacian", {"sigma": 1.0})
    labels = rng.integers(0, 4, 1200)
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(5)).astype(np.int64)
    XTs = np.ascontiguousarray(eng.XT[:, order])
    Ms1 = mfk.build_m_sym(XTs, w[order], labs, bounds, 2, *eng._args)
    Ms2 = mfk.build_m_sym_serial(XTs, w[order], labs, bounds, 1, *eng._args)
    np.testing.assert_allclose(Ms1, Ms2, rtol=1e-12, atol=1e-12)
    M1, M2 = np.empty_like(Ms1), np.empty_like(Ms2)
    M1[:, order], M2[:, order] = Ms1, Ms2
    pend = rng.choice(1200, 50, replace=False).astype(np.int64)
    old, new = labels[pend], (labels[pend] + 1) % 4
    mfk.apply_moves_mf(eng.X, eng.XT, w, pend, old, new, 50, M1, *eng._args)
    mfk.apply_moves_mf_serial(eng.X, eng.XT, w, pend, old, new, 50, M2, *eng._args)
    np.testing.assert_allclose(M1, M2, rtol=1e-12, atol=1e-12)
    labels[pend] = new
    np.testing.assert_allclose(M1, eng.build_m(labels, 4), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 9, 530])
def test_symmetric_build_matches_pair_twin(n):
    """Each pair once, rows in blocks of 4 (n % 4 != 0), tiles of 512, duplicates
    (the cancellation guard), any number of workers: all give the brute-force M."""
    from kgroups._engine import matrix_free as mfk
    from kgroups._engine._twins import build_m_pairs_twin
    rng = np.random.default_rng(20)
    X = rng.normal(5.0, 1.0, size=(n, 3))  # off-centre before centring
    X[n // 2] = X[0]  # an exact duplicate pair
    w = rng.uniform(0.5, 2.0, n)
    labels = rng.integers(0, 3, n)
    eng = MatrixFreeEngine(X, w, "energy", {"alpha": 0.5})
    want = build_m_pairs_twin(eng.X, w, labels, 3, lambda r: r ** 0.5)
    np.testing.assert_allclose(want, build_m_twin(brute_B(X, w, "energy", {"alpha": 0.5}),
                                                  labels, 3), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(eng.build_m(labels, 3), want, rtol=1e-11, atol=1e-12)
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(4)).astype(np.int64)
    XTs = np.ascontiguousarray(eng.XT[:, order])
    for fn, n_threads in ((mfk.build_m_sym_serial, 3), (mfk.build_m_sym, 2)):
        Ms = fn(XTs, w[order], labs, bounds, n_threads, *eng._args)
        np.testing.assert_allclose(Ms, want[:, order], rtol=1e-11, atol=1e-12)


def test_apply_moves_matches_pair_twin_with_duplicates():
    """Moves applied four at a time (7 movers), a mover duplicated in the data."""
    from kgroups._engine import matrix_free as mfk
    from kgroups._engine._twins import build_m_pairs_twin
    rng = np.random.default_rng(21)
    X = rng.normal(size=(600, 2))
    X[5] = X[100]
    w = rng.uniform(0.5, 2.0, 600)
    labels = rng.integers(0, 3, 600)
    eng = MatrixFreeEngine(X, w, "gaussian", {"sigma": 0.7})
    rho = lambda r: 2 - 2 * np.exp(-r**2 / (2 * 0.7**2))  # noqa: E731
    M = eng.build_m(labels, 3)
    pend = np.array([5, 100, 0, 599, 300, 301, 7], dtype=np.int64)
    old, new = labels[pend], (labels[pend] + 2) % 3
    mfk.apply_moves_mf_serial(eng.X, eng.XT, w, pend, old, new, 7, M, *eng._args)
    labels[pend] = new
    np.testing.assert_allclose(M, build_m_pairs_twin(eng.X, w, labels, 3, rho),
                               rtol=1e-11, atol=1e-12)


# -- the memory guard counts k ---------------------------------------------------

def test_matrix_free_estimate_counts_the_k_by_n_arrays(monkeypatch):
    """n = 1e6, D = 10, k = 1000, 2 workers: M, the sorted build result and one k x n
    accumulator per worker are 4 k x n float64 arrays = 32 GB (about 30 GiB)."""
    import numba
    monkeypatch.setattr(numba, "get_num_threads", lambda: 2)
    got = MatrixFreeEngine.memory_bytes(10**6, 10, n_clusters=1000)
    k_by_n = 4 * 8 * 10**6 * 1000
    assert k_by_n <= got <= k_by_n + 8 * 10**6 * 100  # plus O(n D) for the data
    assert 29.5 * 2**30 < got < 30.5 * 2**30
    assert MatrixFreeEngine.memory_bytes(10**6, 10, n_clusters=1) < 2**30


@pytest.mark.parametrize("engine", ["matrix-free", "auto"])
def test_matrix_free_refuses_many_clusters_before_allocating(monkeypatch, engine):
    X, _ = blobs(3000, 10, 3, seed=22)
    monkeypatch.setattr(memory, "available_memory", lambda: 20 * 2**20)  # 20 MiB

    def no_alloc(*args, **kwargs):
        raise AssertionError("the engine was built although it does not fit")

    monkeypatch.setattr(MatrixFreeEngine, "__init__", no_alloc)
    with pytest.raises(ValueError) as err:
        KernelKGroups(1000, engine=engine).fit(X)
    msg = str(err.value)
    assert not isinstance(err.value, MemoryError)
    assert "n_clusters=1000" in msg and "GiB" in msg and "bytes" in msg and "low-rank" in msg
    # k x n float64 arrays dominate: at least 3 x 8 x 3000 x 1000 bytes are named
    need = int(msg.split("(")[1].split(" bytes")[0])
    assert need >= 3 * 8 * 3000 * 1000


def test_matrix_free_fits_with_few_clusters_under_the_same_memory(monkeypatch):
    X, _ = blobs(3000, 10, 3, seed=22)
    monkeypatch.setattr(memory, "available_memory", lambda: 20 * 2**20)
    km = KernelKGroups(3, engine="matrix-free", random_state=0).fit(X)
    assert km.engine_ == "matrix-free" and np.bincount(km.labels_).min() > 0


def test_dense_estimate_counts_k(monkeypatch):
    n = 1000
    small = DenseEngine.memory_bytes(n, 5, n_clusters=2)
    big = DenseEngine.memory_bytes(n, 5, n_clusters=900)
    assert big - small == 2 * 8 * n * 898  # M and one more k x n array per extra cluster
    # the n x n kernel (8 MB) fits in 12 MiB but not with k = 900 clusters
    monkeypatch.setattr(memory, "available_memory", lambda: 12 * 2**20)
    X = np.random.default_rng(23).normal(size=(n, 5))
    with pytest.raises(ValueError, match="n_clusters=900"):
        DenseEngine.from_semimetric(X, np.ones(n), "energy", {}, n_clusters=900)
    DenseEngine.from_semimetric(X, np.ones(n), "energy", {}, n_clusters=2)


# -- every kernel on tiny inputs (run as plain Python by `make test-python`) ------

def tiny_data(n=11, d=3, k=3, seed=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) + 4.0
    X[n - 1] = X[0]  # a duplicate: the cancellation guard
    return X, rng.uniform(0.5, 2.0, n), rng.integers(0, k, n)


@pytest.mark.parametrize("semimetric,params", SEMIS)
def test_tiny_pairwise_finish_every_semimetric(semimetric, params):
    X, w, _ = tiny_data()
    np.testing.assert_allclose(pairwise(X, None, semimetric, scale=-0.5, wx=w, **params),
                               brute_B(X, w, semimetric, params), rtol=1e-10, atol=1e-12)
    Y = X[:4] + 0.5
    want = brute_B(np.vstack([X, Y]), np.ones(15), semimetric, params)[:11, 11:] * -2.0
    np.testing.assert_allclose(pairwise(X, Y, semimetric, **params), want, rtol=1e-10,
                               atol=1e-12)


def test_tiny_dense_kernels():
    from kgroups._engine import dense as dk
    from kgroups._engine._gain import lloyd_assign
    from kgroups._engine._twins import lloyd_assign_twin
    X, w, labels = tiny_data()
    B = brute_B(X, w, "energy", {})
    eng = DenseEngine.from_semimetric(X, w, "energy", {}, n_clusters=3)
    for fn in (dk.build_m_dense, dk.build_m_dense_serial):
        np.testing.assert_allclose(fn(eng.B, labels, 3), build_m_twin(B, labels, 3), atol=1e-12)
    want, want_moves = sweep_twin(B, w, labels, 3)
    got = labels.copy()
    M = eng.build_m(got, 3)
    s, q, cnt = cluster_stats(M, got, w)
    assert eng.sweep(got, M, s, q, cnt) == want_moves
    np.testing.assert_array_equal(got, want)
    pts = np.array([0, 4], dtype=np.int64)
    new = (got[pts] + 1) % 3
    eng.move_rows(pts, got[pts], new, M)
    got[pts] = new
    np.testing.assert_allclose(M, build_m_twin(B, got, 3), atol=1e-12)
    s, q, _ = cluster_stats(M, got, w)
    out = got.copy()
    lloyd_assign(M, s, q, w, out)
    np.testing.assert_array_equal(out, lloyd_assign_twin(B, w, got, 3))
    K = B / np.outer(w, w)
    sums = dk.cluster_sums_rows_serial(K[:5], w, got, 3)
    np.testing.assert_allclose(sums, K[:5] @ (np.eye(3)[got] * w[:, None]), atol=1e-12)


@pytest.mark.parametrize("batch", [1, 4])
def test_tiny_matrix_free_kernels(monkeypatch, batch):
    """Tiles (gram4, finish_row, wsum, scatter_rows), the symmetric build, decide and
    apply (sweep with pending moves), and one kernel column."""
    from kgroups._engine import matrix_free as mfk
    monkeypatch.setattr(mf_backend, "BATCH", batch)
    X, w, labels = tiny_data()
    B = brute_B(X, w, "energy", {"alpha": 0.5})
    eng = MatrixFreeEngine.from_semimetric(X, w, "energy", {"alpha": 0.5}, n_clusters=3)
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(B, labels, 3),
                               rtol=1e-10, atol=1e-12)
    order = np.argsort(labels, kind="stable")
    labs = np.ascontiguousarray(labels[order])
    bounds = np.searchsorted(labs, np.arange(4)).astype(np.int64)
    Ms = mfk.build_m_sym(np.ascontiguousarray(eng.XT[:, order]), w[order], labs, bounds, 2,
                         *eng._args)
    np.testing.assert_allclose(Ms, build_m_twin(B, labels, 3)[:, order], rtol=1e-10,
                               atol=1e-12)
    want, want_moves = sweep_twin(B, w, labels, 3)
    got = labels.copy()
    M = eng.build_m(got, 3)
    s, q, cnt = cluster_stats(M, got, w)
    assert eng.sweep(got, M, s, q, cnt) == want_moves > 0
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(M, build_m_twin(B, got, 3), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(eng.column(2), B[:, 2] / (w * w[2]), rtol=1e-10, atol=1e-12)
    out = np.arange(4 * 9, dtype=np.float64).reshape(4, 9) / 8.0
    ws = np.linspace(0.5, 1.5, 12)
    racc = np.zeros((4, 2))
    mfk.wsum_rows(ws, out, 5, 12, 3, racc, 1)  # columns 5..11 of a tile starting at 3
    np.testing.assert_allclose(racc[:, 1], out[:, 2:9] @ ws[5:12], rtol=1e-15)
    assert not racc[:, 0].any()


def test_tiny_lowrank_kernels():
    X, w, labels = tiny_data()
    eng = LowRankEngine.from_semimetric(X, w, "energy", {}, n_clusters=3, options={
        "n_components": 5, "landmarks": "uniform", "random_state": 0})
    Bt = w[:, None] * (eng.F @ eng.F.T - eng.a[:, None] - eng.a[None, :]) * w[None, :]
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(Bt, labels, 3), atol=1e-9)
    want, want_moves = sweep_twin(Bt, w, labels, 3)
    got = labels.copy()
    M = eng.build_m(got, 3)
    s, q, cnt = cluster_stats(M, got, w)
    assert eng.sweep(got, M, s, q, cnt) == want_moves
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(M, build_m_twin(Bt, got, 3), atol=1e-9)
