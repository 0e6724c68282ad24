"""Dense kernels (``kgroups._kernels.held_dense``) against their plain twins."""

import numpy as np
import pytest

from kgroups._engines.dense import DenseEngine
from tests import _twins
from kgroups._kernels.gain import cluster_stats
from tests._twins import build_m_twin, sweep_twin
from kgroups._kernels.held_dense import build_m_dense, sweep_dense

from tests._helpers import brute_B, random_B, sweep_once, tiny_data


@pytest.mark.parametrize("psd", [True, False])
def test_numba_sweep_matches_twin(psd):
    rng = np.random.default_rng(3)
    n, k = 30, 4
    B, w = random_B(n, rng, psd)
    labels = rng.integers(0, k, n).astype(np.int64)
    M = build_m_dense(B, labels, k, 1)
    np.testing.assert_allclose(M, _twins.build_m_twin(B, labels, k), atol=1e-12)
    s, q, cnt = cluster_stats(M, labels, w)
    twin_labels, twin_moves = _twins.sweep_twin(B, w, labels, k)
    moves = sweep_dense(B, w, np.diag(B).copy(), labels, M, s, q, cnt)
    assert moves == twin_moves > 0
    assert labels.tolist() == twin_labels.tolist()
    np.testing.assert_allclose(M, _twins.build_m_twin(B, labels, k), atol=1e-10)
    assert q.sum() == pytest.approx(sum(B[np.ix_(labels == l, labels == l)].sum() for l in range(k)))


def test_tiny_dense_kernels():
    from kgroups._kernels import held_dense as dk
    from kgroups._kernels.gain import lloyd_assign
    from tests._twins import lloyd_assign_twin
    X, w, labels = tiny_data()
    B = brute_B(X, w, "energy", {})
    eng = DenseEngine.from_semimetric(X, w, "energy", {}, n_clusters=3)
    for n_workers in (1, 2, 3):
        np.testing.assert_allclose(dk.build_m_dense(eng.B, labels, 3, n_workers),
                                   build_m_twin(B, labels, 3), atol=1e-12)
    want, want_moves = sweep_twin(B, w, labels, 3)
    state, moves = sweep_once(eng, labels, 3)
    got, M = state.labels[0], state.M[0]
    assert moves == want_moves
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
    sums = dk.cluster_sums_rows(K[:5], w, got, 3, 2)
    np.testing.assert_allclose(sums, K[:5] @ (np.eye(3)[got] * w[:, None]), atol=1e-12)
