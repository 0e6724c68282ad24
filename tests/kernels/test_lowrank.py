"""Low-rank kernels (``kgroups._kernels.feature_space``) on tiny data against the twins."""

import numpy as np

from kgroups._engines.lowrank import LowRankEngine
from kgroups._kernels.gain import cluster_stats
from tests._twins import build_m_twin, objective_twin, sweep_twin

from tests._helpers import sweep_once, tiny_data


def test_tiny_lowrank_kernels():
    X, w, labels = tiny_data()
    eng = LowRankEngine.from_semimetric(X, w, "energy", {}, n_clusters=3, options={
        "n_components": 5, "landmarks": "uniform", "random_state": 0})
    Bt = w[:, None] * (eng.F @ eng.F.T - eng.a[:, None] - eng.a[None, :]) * w[None, :]
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(Bt, labels, 3), atol=1e-9)
    want, want_moves = sweep_twin(Bt, w, labels, 3)
    state, moves = sweep_once(eng, labels, 3)
    got, M = state.labels[0], state.M[0]
    assert moves == want_moves
    np.testing.assert_array_equal(got, want)
    eng.sync(state)  # M is brought up to date at the end of a run
    np.testing.assert_allclose(M, build_m_twin(Bt, got, 3), atol=1e-9)


def test_tiny_best_moves_is_the_first_move_of_a_sweep():
    """``best_moves`` (the Dask engine's proposals) against fixed sums: each point's
    best single move, by recomputing Q on the explicit kernel for every target."""
    from kgroups._kernels.feature_space import best_moves

    X, w, labels = tiny_data()
    eng = LowRankEngine.from_semimetric(X, w, "energy", {}, n_clusters=3, options={
        "n_components": 5, "landmarks": "uniform", "random_state": 0})
    Bt = w[:, None] * (eng.F @ eng.F.T - eng.a[:, None] - eng.a[None, :]) * w[None, :]
    M = build_m_twin(Bt, labels, 3)
    s, q, cnt = cluster_stats(M, labels, w)
    got = best_moves(np.ascontiguousarray(M.T), labels, w, np.diag(Bt).copy(), s, q, cnt)
    base = objective_twin(Bt, labels, w, 3)
    for i in range(labels.shape[0]):
        j = labels[i]
        want = -1
        if np.count_nonzero(labels == j) > 1:
            gains = np.full(3, -np.inf)
            for l in range(3):
                if l != j:
                    trial = labels.copy()
                    trial[i] = l
                    gains[l] = objective_twin(Bt, trial, w, 3) - base
            if gains.max() > 1e-12 * max(1.0, abs(base)):
                want = int(np.argmax(gains))
        assert got[i] == want, i
