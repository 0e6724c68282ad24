"""Low-rank backend (``kgroups._engines.lowrank``): exact on its own kernel, Nystroem
and Fourier features, closeness to the exact objective, and its predictor.
"""

import numpy as np
import pytest

from kgroups import KernelKGroups, pairwise
from kgroups._engines.lowrank import LowRankEngine
from kgroups._engines.lowrank import fourier_features, nystroem_features
from kgroups._kernels.gain import cluster_stats
from tests._twins import build_m_twin, sweep_twin

from tests._helpers import blobs, sweep_once


def test_lowrank_is_exact_for_its_own_kernel():
    """On the features' kernel Kt the low-rank sweep is the brute-force Hartigan sweep."""
    rng = np.random.default_rng(8)
    X, _ = blobs(40, 2, 3, seed=9, spread=2.0)
    w = rng.uniform(0.5, 2.0, 40)
    eng = LowRankEngine.from_semimetric(X, w, "energy", {}, n_clusters=3, options={
        "n_components": 8, "landmarks": "uniform", "random_state": 0})
    F = eng.F
    x0 = np.median(eng.feature_map.L, axis=0)  # the base point: the landmarks' centre
    np.testing.assert_allclose(eng.feature_map.c, x0, rtol=1e-15, atol=0)
    kd = pairwise(X, x0[None, :])[:, 0]  # K0(x, x) = rho(x, x0)
    Bt = w[:, None] * (F @ F.T - (kd[:, None] + kd[None, :]) / 2) * w[None, :]
    labels = rng.integers(0, 3, 40)
    np.testing.assert_allclose(eng.build_m(labels, 3), build_m_twin(Bt, labels, 3),
                               rtol=1e-9, atol=1e-9)
    want, want_moves = sweep_twin(Bt, w, labels, 3)
    state, moves = sweep_once(eng, labels, 3)
    got, M = state.labels[0], state.M[0]
    assert moves == want_moves > 5
    np.testing.assert_array_equal(got, want)
    eng.sync(state)  # the low-rank engine defers M to the end of a run
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


def test_lowrank_predict_new_points_uses_the_fitted_feature_map():
    """New points: the engine kernel Kt computed by hand from the fit's map."""
    X, _ = blobs(400, 2, 4, seed=4, spread=2.0)
    new = np.random.default_rng(5).normal(0, 4, (30, 2))
    km = KernelKGroups(4, engine="low-rank", n_components=10, random_state=1).fit(X)
    fmap = km._predictor.fmap
    F, Fn = fmap(X), fmap(new)
    a, an = fmap.kdiag(X) / 2, fmap.kdiag(new) / 2
    Kt = Fn @ F.T - an[:, None] - a[None, :]          # Kt(new, train)
    Z = np.eye(4)[km.labels_]
    Ktt = F @ F.T - a[:, None] - a[None, :]
    s, q = Z.sum(0), np.einsum("il,ij,jl->l", Z, Ktt, Z)
    kxx = (Fn * Fn).sum(1) - 2 * an
    want = np.argmax((q + 2 * Kt @ Z + kxx[:, None]) / (s + 1) - q / s, axis=1)
    np.testing.assert_array_equal(km.predict(new), want)
    np.testing.assert_allclose(q, km._q, rtol=1e-9)


@pytest.mark.parametrize("seed, k, spread", [(0, 10, 2.5), (1, 4, 3.0), (2, 6, 1.0)])
def test_bounded_sweeps_make_the_same_moves(monkeypatch, seed, k, spread):
    """Skipping the points a bound proves still changes nothing: same labels, same
    moves in every sweep, same objective as the plain low-rank sweeps."""
    import kgroups._engines.lowrank as lrb

    X, _ = blobs(3000, 5, k, seed=seed, spread=spread)
    w = np.random.default_rng(seed).uniform(0.5, 2.0, X.shape[0])
    fits = {}
    monkeypatch.setattr(lrb, "BOUNDS_MIN_WORK", 0)  # bounded sweeps at every n
    for bounds in (False, True):
        monkeypatch.setattr(lrb, "BOUNDS", bounds)
        fits[bounds] = KernelKGroups(k, engine="low-rank", n_components=48, init="random",
                                     random_state=seed).fit(X, sample_weight=w)
    np.testing.assert_array_equal(fits[True].labels_, fits[False].labels_)
    assert fits[True].n_moves_ == fits[False].n_moves_ and fits[True].n_iter_ > 3
    assert fits[True].objective_ == pytest.approx(fits[False].objective_, rel=1e-12)


def test_bounded_sweep_skips_and_stops_at_a_hartigan_optimum():
    """In the tail most points are skipped, and when a sweep moves nothing every
    point (evaluated or skipped) has no improving move in feature space."""
    from kgroups._kernels import feature_space as lrk
    from kgroups._kernels.gain import count_improving_moves

    X, _ = blobs(2000, 4, 5, seed=3, spread=2.5)
    w = np.ones(2000)
    eng = LowRankEngine.from_semimetric(X, w, "energy", {}, n_clusters=5,
                                        options={"n_components": 32, "random_state": 0})
    labels = np.random.default_rng(3).integers(0, 5, 2000)
    M = eng.build_m(labels, 5)
    s, q, cnt = cluster_stats(M, labels, w)
    S, A = eng._sums(labels, 5)
    state = (np.einsum("ij,ij->i", S, S), np.full(2000, np.inf), np.zeros(2000),
             np.zeros(2000), np.zeros(2000), np.zeros(6))
    evaluated = []
    for _ in range(100):
        moves, ev = lrk.sweep_lowrank_bounded(eng.F, eng.a, w, eng.diag, labels, S, A, s, q,
                                              cnt, *state)
        evaluated.append(ev)
        if moves == 0:
            break
    assert moves == 0 and evaluated[0] == 2000 and min(evaluated) < 2000 // 4
    M = eng.build_m(labels, 5)
    s, q, cnt = cluster_stats(M, labels, w)
    assert count_improving_moves(M, labels, w, eng.diag, s, q, cnt) == 0


def test_refreshed_bounds_hold_and_are_tight(monkeypatch):
    """After sweeps have moved points (M stale), the bounds a sweep starts from are the
    exact feature-space distances to the means, up to the bounds' slack: up >= the
    distance to the own mean, lo <= the distance to the nearest other mean; M is
    brought up to date on the way (as sync would)."""
    import kgroups._engines.lowrank as lrb

    monkeypatch.setattr(lrb, "BOUNDS_MIN_WORK", 0)  # bounded sweeps at every n
    X, _ = blobs(1500, 4, 5, seed=4, spread=2.5)
    w = np.random.default_rng(4).uniform(0.5, 2.0, X.shape[0])
    eng = LowRankEngine.from_semimetric(X, w, "energy", {}, n_clusters=5,
                                        options={"n_components": 24, "random_state": 0})
    labels = np.random.default_rng(5).integers(0, 5, X.shape[0])
    state, moves = sweep_once(eng, labels, 5)
    assert moves > 0 and eng.sweep(state)[0] > 0
    assert state.stale[0]
    eng._refresh_bounds(state, 0)
    labels, M, st = state.labels[0], state.M[0], state.bounds
    np.testing.assert_allclose(M, eng.build_m(labels, 5), rtol=1e-9, atol=1e-9)
    Z = np.eye(5)[labels] * w[:, None]
    mu = (Z.T @ eng.F) / Z.sum(0)[:, None]
    d = np.sqrt(((eng.F[:, None, :] - mu[None]) ** 2).sum(-1))
    own = d[np.arange(X.shape[0]), labels]
    other = np.where(np.arange(5)[None, :] == labels[:, None], np.inf, d).min(1)
    assert np.all(st.up[0] >= own) and np.all(st.lo[0] <= other)
    np.testing.assert_allclose(st.up[0], own, rtol=1e-6)
    np.testing.assert_allclose(st.lo[0], other, rtol=1e-6)


@pytest.mark.parametrize("landmarks", ["k-means++", "uniform"])
def test_n_components_is_capped_at_the_number_of_points(landmarks):
    """The default n_components=256 on 60 points: 60 landmarks, which reproduce the
    kernel on the data, so the fit is the exact engine's from the same start."""
    X, _ = blobs(60, 2, 3, seed=4, spread=1.5)
    start = np.random.default_rng(0).integers(0, 3, 60)
    lr = KernelKGroups(3, engine="low-rank", landmarks=landmarks, init=start).fit(X)
    exact = KernelKGroups(3, engine="dense", init=start).fit(X)
    np.testing.assert_array_equal(lr.labels_, exact.labels_)
    assert lr.within_energy_ == pytest.approx(exact.within_energy_, rel=1e-8)
