"""Sparse engine: numba kernels vs plain twins, vs the dense engine, and the backend API."""

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups import KernelKGroups
from kgroups._backends import ENGINES, DenseEngine, SparseEngine, select_engine
from kgroups._engine import _twins
from kgroups._engine._gain import cluster_stats, objective
from kgroups._engine.dense import build_m_dense, sweep_dense
from kgroups._engine.sparse import build_m_sparse, move_rows_sparse, sweep_sparse
from kgroups._kgroups import kgroups_single


# ---------------------------------------------------------------- plain twins
def build_m_sparse_twin(B, labels, k):
    """``M[l, i] = sum_{y in C_l} B[i, y]`` row by row from the CSR arrays."""
    M = np.zeros((k, B.shape[0]))
    for i in range(B.shape[0]):
        for p in range(B.indptr[i], B.indptr[i + 1]):
            M[labels[B.indices[p]], i] += B.data[p]
    return M


def sweep_sparse_twin(B, w, labels, k):
    """One sweep: every candidate move scored by recomputing Q from scratch."""
    return _twins.sweep_twin(B.toarray(), w, labels, k)


def move_rows_sparse_twin(B, points, old, new, M):
    M = M.copy()
    Bd = B.toarray()
    for i, o, nw in zip(points, old, new):
        M[o] -= Bd[i]
        M[nw] += Bd[i]
    return M


def random_sparse_B(n, density, rng, w=None):
    """Symmetric indefinite sparse kernel with a nonzero diagonal."""
    R = sp.random(n, n, density=density, random_state=np.random.RandomState(rng.integers(1 << 30)),
                  data_rvs=lambda m: rng.normal(size=m))
    K = (R + R.T).tocsr() + sp.diags(rng.normal(size=n))
    if w is None:
        w = np.ones(n)
    return sp.csr_matrix(sp.diags(w) @ K @ sp.diags(w)), w


# -------------------------------------------------------------------- kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_build_m_matches_twin_and_dense(seed):
    rng = np.random.default_rng(seed)
    B, _ = random_sparse_B(60, 0.1, rng)
    labels = rng.integers(0, 4, 60)
    M = build_m_sparse(B.indptr, B.indices, B.data, labels, 4)
    np.testing.assert_allclose(M, build_m_sparse_twin(B, labels, 4), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(M, build_m_dense(B.toarray(), labels, 4), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(M, _twins.build_m_twin(B.toarray(), labels, 4), atol=1e-12)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_sweep_matches_twin_and_dense(seed):
    rng = np.random.default_rng(seed)
    w = rng.uniform(0.5, 2.0, 40)
    B, w = random_sparse_B(40, 0.15, rng, w)
    k = 3
    lab0 = rng.integers(0, k, 40)
    # numba sparse sweep
    lab_s = lab0.copy()
    M_s = build_m_sparse(B.indptr, B.indices, B.data, lab_s, k)
    s, q, cnt = cluster_stats(M_s, lab_s, w)
    q_before = objective(s, q)
    moves_s = sweep_sparse(B.indptr, B.indices, B.data, w, B.diagonal(), lab_s, M_s, s, q, cnt)
    # dense engine from the same start
    Bd = B.toarray()
    lab_d = lab0.copy()
    M_d = build_m_dense(Bd, lab_d, k)
    sd, qd, cd = cluster_stats(M_d, lab_d, w)
    moves_d = sweep_dense(Bd, w, np.ascontiguousarray(np.diagonal(Bd)), lab_d, M_d, sd, qd, cd)
    # plain twin (recomputes Q for every candidate move)
    lab_t, moves_t = sweep_sparse_twin(B, w, lab0, k)
    assert moves_s == moves_d == moves_t > 0
    np.testing.assert_array_equal(lab_s, lab_d)
    np.testing.assert_array_equal(lab_s, lab_t)
    # incremental M, q agree with a rebuild, and Q rose
    np.testing.assert_allclose(M_s, build_m_sparse_twin(B, lab_s, k), atol=1e-10)
    np.testing.assert_allclose(objective(s, q), _twins.objective_twin(Bd, lab_s, w, k), rtol=1e-10)
    assert objective(s, q) > q_before


def test_move_rows_matches_twin():
    rng = np.random.default_rng(7)
    B, _ = random_sparse_B(30, 0.2, rng)
    labels = rng.integers(0, 3, 30)
    M = build_m_sparse(B.indptr, B.indices, B.data, labels, 3)
    pts = np.array([2, 5, 11])
    old = labels[pts]
    new = (old + 1) % 3
    expected = move_rows_sparse_twin(B, pts, old, new, M)
    move_rows_sparse(B.indptr, B.indices, B.data, pts, old, new, M)
    np.testing.assert_allclose(M, expected, atol=1e-12)
    labels[pts] = new
    np.testing.assert_allclose(M, build_m_sparse_twin(B, labels, 3), atol=1e-12)


# -------------------------------------------------------------------- backend
def test_engines_agree_on_full_runs():
    rng = np.random.default_rng(11)
    B, w = random_sparse_B(80, 0.08, rng, rng.uniform(0.5, 2, 80))
    lab0 = rng.integers(0, 4, 80)
    run_s = kgroups_single(SparseEngine(B, w), lab0, 4, 100)
    run_d = kgroups_single(DenseEngine(B.toarray(), w), lab0, 4, 100)
    np.testing.assert_array_equal(run_s.labels, run_d.labels)
    assert run_s.objective == pytest.approx(run_d.objective, rel=1e-12)
    assert run_s.converged


def test_estimator_sparse_equals_dense_precomputed():
    rng = np.random.default_rng(12)
    K, _ = random_sparse_B(70, 0.1, rng)
    w = rng.integers(1, 4, 70).astype(float)
    lab0 = rng.integers(0, 3, 70)
    a = KernelKGroups(3, kernel="precomputed", init=lab0).fit(K, sample_weight=w)
    b = KernelKGroups(3, kernel="precomputed", init=lab0, engine="dense").fit(K.toarray(),
                                                                              sample_weight=w)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.objective_ == pytest.approx(b.objective_, rel=1e-12)
    assert a.within_energy_ == pytest.approx(b.within_energy_, rel=1e-12)


def test_from_matrix_weights_and_views():
    rng = np.random.default_rng(13)
    K, _ = random_sparse_B(25, 0.2, rng)
    w = rng.uniform(0.5, 2.0, 25)
    eng = SparseEngine.from_matrix(K, w, is_gram=True, n_clusters=3)
    Kd = K.toarray()
    np.testing.assert_allclose(eng.B.toarray(), Kd * np.outer(w, w), rtol=1e-14)
    np.testing.assert_allclose(eng.diag, np.diagonal(Kd) * w * w, rtol=1e-14)
    np.testing.assert_allclose(eng.column(4), Kd[:, 4], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(eng.gram(), Kd, rtol=1e-12, atol=1e-14)
    e32 = SparseEngine.from_matrix(K, w, is_gram=True, dtype=np.float32, n_clusters=3)
    assert e32.B.dtype == np.float32


def test_float32_storage_same_partition():
    rng = np.random.default_rng(14)
    K, w = random_sparse_B(60, 0.1, rng)
    lab0 = rng.integers(0, 3, 60)
    e64 = SparseEngine.from_matrix(K, w, is_gram=True, n_clusters=3)
    e32 = SparseEngine.from_matrix(K, w, is_gram=True, dtype=np.float32, n_clusters=3)
    r64 = kgroups_single(e64, lab0, 3, 100)
    r32 = kgroups_single(e32, lab0, 3, 100)
    np.testing.assert_array_equal(r64.labels, r32.labels)
    assert r32.objective == pytest.approx(r64.objective, rel=1e-5)


def test_clear_errors():
    K = sp.identity(5, format="csr")
    with pytest.raises(ValueError, match="sparse semimetric matrix gives a dense kernel"):
        SparseEngine.from_matrix(K, np.ones(5), is_gram=False, n_clusters=2)
    with pytest.raises(ValueError, match="raw data with semimetric='energy'"):
        SparseEngine.from_semimetric(np.zeros((5, 2)), np.ones(5), "energy", {}, n_clusters=2)
    with pytest.raises(ValueError, match="semimetric matrix should have a zero diagonal"):
        KernelKGroups(2, semimetric="precomputed").fit(K)
    with pytest.raises(ValueError, match="sparse semimetric"):
        KernelKGroups(2, semimetric="precomputed").fit(sp.csr_matrix(np.ones((5, 5)) - np.eye(5)))


def test_engine_table_and_auto_selection():
    assert ENGINES["sparse"] is SparseEngine
    assert select_engine("auto", 100, True, True, np.float64, n_clusters=2) is SparseEngine
    assert select_engine("auto", 100, True, False, np.float64, n_clusters=2) is DenseEngine


def test_tiny_sparse_kernels():
    """Build, sweep and batched moves on a 12-node kernel (run as plain Python too)."""
    rng = np.random.default_rng(40)
    B, w = random_sparse_B(12, 0.3, rng, w=rng.uniform(0.5, 2.0, 12))
    labels = rng.integers(0, 3, 12)
    M = build_m_sparse(B.indptr, B.indices, B.data, labels, 3)
    np.testing.assert_allclose(M, build_m_sparse_twin(B, labels, 3), atol=1e-12)
    want, want_moves = sweep_sparse_twin(B, w, labels, 3)
    got = labels.copy()
    s, q, cnt = cluster_stats(M, got, w)
    moves = sweep_sparse(B.indptr, B.indices, B.data, w, B.diagonal().astype(np.float64), got,
                         M, s, q, cnt)
    assert moves == want_moves
    np.testing.assert_array_equal(got, want)
    pts = np.array([1, 7], dtype=np.int64)
    new = (got[pts] + 1) % 3
    want_M = move_rows_sparse_twin(B, pts, got[pts], new, M)
    move_rows_sparse(B.indptr, B.indices, B.data, pts, got[pts].astype(np.int64), new, M)
    np.testing.assert_allclose(M, want_M, atol=1e-12)
