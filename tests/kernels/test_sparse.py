"""Sparse kernels (``kgroups._kernels.held_sparse``) against plain twins and the dense kernels."""

import numpy as np
import pytest

from tests import _twins
from kgroups._kernels.gain import cluster_stats, objective
from kgroups._kernels.held_dense import build_m_dense, sweep_dense
from kgroups._kernels.held_sparse import build_m_sparse, move_rows_sparse, sweep_sparse

from tests._helpers import random_sparse_B


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


# -------------------------------------------------------------------- kernels
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_build_m_matches_twin_and_dense(seed):
    rng = np.random.default_rng(seed)
    B, _ = random_sparse_B(60, 0.1, rng)
    labels = rng.integers(0, 4, 60)
    M = build_m_sparse(B.indptr, B.indices, B.data, labels, 4, 2)
    np.testing.assert_allclose(M, build_m_sparse_twin(B, labels, 4), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(M, build_m_dense(B.toarray(), labels, 4, 1), rtol=1e-12, atol=1e-12)
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
    M_s = build_m_sparse(B.indptr, B.indices, B.data, lab_s, k, 1)
    s, q, cnt = cluster_stats(M_s, lab_s, w)
    q_before = objective(s, q)
    moves_s = sweep_sparse(B.indptr, B.indices, B.data, w, B.diagonal(), lab_s, M_s, s, q, cnt)
    # dense engine from the same start
    Bd = B.toarray()
    lab_d = lab0.copy()
    M_d = build_m_dense(Bd, lab_d, k, 1)
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
    M = build_m_sparse(B.indptr, B.indices, B.data, labels, 3, 1)
    pts = np.array([2, 5, 11])
    old = labels[pts]
    new = (old + 1) % 3
    expected = move_rows_sparse_twin(B, pts, old, new, M)
    move_rows_sparse(B.indptr, B.indices, B.data, pts, old, new, M)
    np.testing.assert_allclose(M, expected, atol=1e-12)
    labels[pts] = new
    np.testing.assert_allclose(M, build_m_sparse_twin(B, labels, 3), atol=1e-12)


def test_tiny_sparse_kernels():
    """Build, sweep and batched moves on a 12-node kernel (run as plain Python too)."""
    rng = np.random.default_rng(40)
    B, w = random_sparse_B(12, 0.3, rng, w=rng.uniform(0.5, 2.0, 12))
    labels = rng.integers(0, 3, 12)
    M = build_m_sparse(B.indptr, B.indices, B.data, labels, 3, 1)
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
