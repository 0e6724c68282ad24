"""Low-rank kernels (``kgroups._engine.lowrank``) on tiny data against the twins."""

import numpy as np

from kgroups._backends import LowRankEngine
from kgroups._engine._gain import cluster_stats
from kgroups._engine._twins import build_m_twin, sweep_twin

from tests._helpers import tiny_data


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
    eng.sync(got, M)  # M is brought up to date at the end of a run
    np.testing.assert_allclose(M, build_m_twin(Bt, got, 3), atol=1e-9)
