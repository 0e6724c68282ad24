"""Kernel k-groups: hand-worked cases, brute force, properties, numba vs twin."""

import itertools

import numpy as np
import pytest

from kgroups import KernelKGroups, KernelKMeans, kernel_kgroups, pairwise
from kgroups._backends import DenseEngine
from kgroups._engine import _twins
from kgroups._engine._gain import cluster_stats, count_improving_moves
from kgroups._engine.dense import build_m_dense, sweep_dense
from kgroups._kgroups import kgroups_single

# The movie-rating matrix of the 2-means exercise (papers/kmeans-objectives-notes.txt).
D_NOTES = np.array([[5, 3, 1, 1], [3, 1, 5, 3], [2, 1, 5, 3],
                    [4, 3, 4, 2], [5, 5, 3, 1], [3, 1, 5, 3]], dtype=float)
Y_NOTES = np.array([0, 1, 1, 1, 0, 1])


def random_B(n, rng, psd=False):
    """A symmetric (possibly indefinite) weighted kernel and its weights."""
    A = rng.normal(size=(n, n))
    K = A @ A.T / n if psd else (A + A.T) / 2
    w = rng.uniform(0.5, 2.0, n)
    return K * np.outer(w, w), w


def all_labelings(n, k):
    """Every labelling with all k clusters non-empty (k**n of them, filtered)."""
    for lab in itertools.product(range(k), repeat=n):
        lab = np.array(lab)
        if np.unique(lab).size == k:
            yield lab


def test_notes_two_means_example():
    # With alpha = 2, rho = ||x - y||^2 and W is the k-means inertia: the notes'
    # solution Y has centroids (5,4,2,1), (3,1.5,4.75,2.75) and inertia 4 + 6.5.
    km = KernelKMeans(2, alpha=2.0, init=Y_NOTES).fit(D_NOTES)
    assert km.labels_.tolist() == Y_NOTES.tolist()
    assert km.n_moves_ == [0]
    assert km.within_energy_ == pytest.approx(10.5, rel=1e-12)
    kg = KernelKGroups(2, alpha=2.0, init=Y_NOTES).fit(D_NOTES)
    assert kg.within_energy_ <= 10.5 + 1e-9


@pytest.mark.parametrize("seed", range(4))
def test_local_optimum_and_global_bound_by_brute_force(seed):
    rng = np.random.default_rng(seed)
    n, k = 8, 3
    X = rng.normal(size=(n, 2))
    w = rng.integers(1, 4, n).astype(float)
    km = KernelKGroups(k, init="random", n_init=3, random_state=seed).fit(X, sample_weight=w)
    B = -0.5 * pairwise(X) * np.outer(w, w)
    q_best = max(_twins.objective_twin(B, lab, w, k) for lab in all_labelings(n, k))
    q_ours = _twins.objective_twin(B, km.labels_, w, k)
    assert km.objective_ == pytest.approx(q_ours, rel=1e-10)
    assert q_ours <= q_best + 1e-9
    # Hartigan local optimum: no single move of a non-singleton point raises Q.
    for i in range(n):
        if np.count_nonzero(km.labels_ == km.labels_[i]) == 1:
            continue
        for l in range(k):
            trial = km.labels_.copy()
            trial[i] = l
            assert _twins.objective_twin(B, trial, w, k) <= q_ours + 1e-9


def test_finds_global_optimum_of_separated_tiny_data():
    X = np.array([[0.0], [0.3], [0.1], [10.0], [10.4], [20.0], [20.1], [19.8], [10.2]])
    lab = KernelKGroups(3, n_init=5, random_state=1).fit_predict(X)
    B = -0.5 * pairwise(X)
    w = np.ones(len(X))
    best = max(all_labelings(len(X), 3), key=lambda L: _twins.objective_twin(B, L, w, 3))
    assert np.array_equal(np.unique(best * 10 + lab).size, 3)  # same partition


@pytest.mark.parametrize("psd", [True, False])
def test_numba_sweep_matches_twin(psd):
    rng = np.random.default_rng(3)
    n, k = 30, 4
    B, w = random_B(n, rng, psd)
    labels = rng.integers(0, k, n).astype(np.int64)
    M = build_m_dense(B, labels, k)
    np.testing.assert_allclose(M, _twins.build_m_twin(B, labels, k), atol=1e-12)
    s, q, cnt = cluster_stats(M, labels, w)
    twin_labels, twin_moves = _twins.sweep_twin(B, w, labels, k)
    moves = sweep_dense(B, w, np.diag(B).copy(), labels, M, s, q, cnt)
    assert moves == twin_moves > 0
    assert labels.tolist() == twin_labels.tolist()
    np.testing.assert_allclose(M, _twins.build_m_twin(B, labels, k), atol=1e-10)
    assert q.sum() == pytest.approx(sum(B[np.ix_(labels == l, labels == l)].sum() for l in range(k)))


@pytest.mark.parametrize("psd", [True, False])
def test_objective_rises_every_sweep_any_symmetric_kernel(psd):
    rng = np.random.default_rng(11)
    n, k = 60, 5
    B, w = random_B(n, rng, psd)
    engine = DenseEngine(B, w)
    labels = rng.integers(0, k, n).astype(np.int64)
    previous = _twins.objective_twin(B, labels, w, k)
    for _ in range(50):
        run = kgroups_single(engine, labels, k, max_iter=1)
        q = _twins.objective_twin(B, run.labels, w, k)
        assert run.objective == pytest.approx(q, rel=1e-9, abs=1e-9)
        if run.n_moves[0] == 0:
            break
        assert q > previous
        previous, labels = q, run.labels
    M = build_m_dense(B, labels, k)
    s, qq, cnt = cluster_stats(M, labels, w)
    assert count_improving_moves(M, labels, w, np.diag(B).copy(), s, qq, cnt) == 0
    assert np.bincount(labels, minlength=k).min() >= 1  # Hartigan never empties


def test_labels_do_not_depend_on_base_point_x0():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 3)) + 50.0  # far from the origin
    rho = pairwise(X)
    init = rng.integers(0, 3, len(X))
    ref = KernelKGroups(3, init=init).fit(X).labels_
    for x0 in (np.zeros(3), X[0], rng.normal(size=3) * 10):
        r0 = np.linalg.norm(X - x0, axis=1)
        G = 0.5 * (r0[:, None] + r0[None, :] - rho)
        lab = KernelKGroups(3, kernel="precomputed", init=init).fit(G).labels_
        assert lab.tolist() == ref.tolist()


def test_precomputed_semimetric_equals_raw():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(70, 2))
    init = rng.integers(0, 4, len(X))
    raw = KernelKGroups(4, alpha=0.5, init=init).fit(X)
    pre = KernelKGroups(4, semimetric="precomputed", init=init).fit(pairwise(X, alpha=0.5))
    assert raw.labels_.tolist() == pre.labels_.tolist()
    assert raw.within_energy_ == pytest.approx(pre.within_energy_, rel=1e-10)


def test_gram_within_energy_is_trace_minus_q():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 2))
    G = X @ X.T  # linear kernel: induced semimetric is ||x - y||^2
    km = KernelKGroups(2, kernel="precomputed", init="random", random_state=0).fit(G)
    ref = KernelKGroups(2, alpha=2.0, init=km.labels_).fit(X)
    assert ref.labels_.tolist() == km.labels_.tolist()
    assert km.within_energy_ == pytest.approx(ref.within_energy_, rel=1e-10)


def test_integer_weights_equal_repeated_rows():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(25, 2))
    reps = rng.integers(1, 4, len(X))
    Xr = np.repeat(X, reps, axis=0)
    lab = rng.integers(0, 3, len(X))
    # Same partition, same objective (up to the rounding of the norm trick).
    B_w = -0.5 * pairwise(X) * np.outer(reps, reps)
    B_r = -0.5 * pairwise(Xr)
    assert _twins.objective_twin(B_w, lab, reps.astype(float), 3) == pytest.approx(
        _twins.objective_twin(B_r, np.repeat(lab, reps), np.ones(len(Xr)), 3), rel=1e-9)
    # Lloyd treats copies identically: the whole run is the same.
    km_w = KernelKMeans(3, init=lab).fit(X, sample_weight=reps)
    km_r = KernelKMeans(3, init=np.repeat(lab, reps)).fit(Xr)
    assert np.repeat(km_w.labels_, reps).tolist() == km_r.labels_.tolist()
    assert km_w.objective_ == pytest.approx(km_r.objective_, rel=1e-9)


def test_float32_matches_float64_and_row_permutation():
    rng = np.random.default_rng(9)
    centers = rng.normal(scale=8, size=(4, 3))
    X = np.vstack([c + rng.normal(size=(40, 3)) for c in centers])
    init = np.repeat(np.arange(4), 40)
    flip = rng.random(len(X)) < 0.15
    init[flip] = rng.integers(0, 4, flip.sum())  # a noisy start near the truth
    a = KernelKGroups(4, init=init).fit(X)
    b = KernelKGroups(4, init=init, dtype="float32").fit(X)
    assert a.labels_.tolist() == b.labels_.tolist()
    perm = rng.permutation(len(X))
    c = KernelKGroups(4, init=init[perm]).fit(X[perm])
    assert c.labels_.tolist() == a.labels_[perm].tolist()
    assert c.within_energy_ == pytest.approx(a.within_energy_, rel=1e-9)


@pytest.mark.parametrize("init", ["k-means++", "kernel-k-means++", "random", "spectral"])
def test_inits_cluster_separated_blobs(init):
    rng = np.random.default_rng(10)
    y = np.repeat(np.arange(3), 40)
    X = np.array([[0, 0], [10, 0], [0, 10]])[y] + rng.normal(size=(120, 2))
    km = KernelKGroups(3, init=init, n_init=3, random_state=0).fit(X)
    from sklearn.metrics import adjusted_rand_score
    assert adjusted_rand_score(y, km.labels_) == 1.0
    assert km.fit_predict(X).tolist() == KernelKGroups(
        3, init=init, n_init=3, random_state=0).fit(X).labels_.tolist()


def test_restarts_keep_best_and_are_reproducible():
    rng = np.random.default_rng(12)
    X = rng.normal(size=(150, 2))
    one = [KernelKGroups(5, init="random", random_state=s).fit(X).objective_ for s in range(5)]
    best = KernelKGroups(5, init="random", n_init=8, random_state=3).fit(X)
    again = KernelKGroups(5, init="random", n_init=8, random_state=3).fit(X)
    assert best.labels_.tolist() == again.labels_.tolist()
    assert best.objective_ >= np.median(one) - 1e-9


def test_predict_insertion_gain():
    rng = np.random.default_rng(13)
    X = np.vstack([rng.normal(0, 1, (50, 2)), rng.normal(8, 1, (50, 2))])
    km = KernelKGroups(2, random_state=0).fit(X)
    new = np.array([[0.0, 0.0], [8.0, 8.0], [0.5, -0.3]])
    pred = km.predict(new)
    assert pred[0] == pred[2] == km.labels_[0] != pred[1]
    # Brute force: inserting the point where Q rises most.
    w = np.ones(len(X) + 1)
    Xa = np.vstack([X, new[1:2]])
    B = -0.5 * pairwise(Xa)
    gains = [_twins.objective_twin(B, np.append(km.labels_, l), w, 2) for l in range(2)]
    assert int(np.argmax(gains)) == pred[1]
    assert km.score(X) == pytest.approx(-km.within_energy_, rel=1e-9)


def test_function_matches_estimator():
    rng = np.random.default_rng(14)
    X = rng.normal(size=(60, 3))
    res = kernel_kgroups(X, 3, random_state=4, n_init=2)
    est = KernelKGroups(3, random_state=4, n_init=2).fit(X)
    assert res.labels.tolist() == est.labels_.tolist()
    assert res.within_energy == pytest.approx(est.within_energy_)


def test_verbose_prints_sweeps(capsys):
    X = np.random.default_rng(0).normal(size=(30, 2))
    KernelKGroups(2, init="random", verbose=1, random_state=0).fit(X)
    assert "sweep 1:" in capsys.readouterr().out


def test_empty_cluster_in_given_labels_is_filled():
    X = np.random.default_rng(1).normal(size=(20, 2))
    init = np.zeros(20, dtype=int)
    init[:10] = 1  # cluster 2 empty
    km = KernelKGroups(3, init=init).fit(X)
    assert np.bincount(km.labels_, minlength=3).min() >= 1
