"""Points set aside (``noise``, trimmed kernel k-groups and kernel k-means): the exact
trimmed optimum by brute force on tiny inputs, no improving move at the end, weights
as repeated rows, far groups and strays, ``predict``, the engines, the parameter and
what the statistics do with label -1. The comparison with R's ``trimkmeans`` is in
tests/test_noise_reference.py, the kernels against their twins in
tests/kernels/test_trimmed.py."""

import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups import (KernelKGroups, KernelKMeans, between_energy, disco, improving_moves,
                     pairwise, within_energy)
from kgroups._engines.trimmed import budget_of
from kgroups.metrics import accuracy, ari
from tests._twins import trimmed_W, trimmed_W_all, trimmed_improving

TINY = [  # (seed, n, semimetric, params, share)
    (0, 7, "energy", {"alpha": 1.0}, 0.2), (1, 8, "energy", {"alpha": 2.0}, 0.3),
    (2, 8, "energy", {"alpha": 0.5}, 0.2), (3, 7, "gaussian", {"sigma": 1.0}, 0.3),
    (4, 8, "laplacian", {"sigma": 0.7}, 0.45), (5, 6, "energy", {"alpha": 1.0}, 0.34)]


def tiny(seed, n):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    X[0] += 4.0  # a stray
    return X


def kernel(X, semimetric, params):
    return -0.5 * pairwise(X, semimetric=semimetric, **params)


@pytest.mark.parametrize("seed, n, semimetric, params, share", TINY)
def test_fit_reaches_the_trimmed_optimum_of_the_brute_force(seed, n, semimetric, params, share):
    """Every kept set within the budget and every partition of it into 2 non-empty
    clusters: the fit's W (a few starts) is the smallest, and the fit has it."""
    X = tiny(seed, n)
    K, w = kernel(X, semimetric, params), np.ones(n)
    W, _ = trimmed_W_all(K, w, 2, budget_of(share, w))
    est = KernelKGroups(2, semimetric=semimetric, **params, noise=share, n_init=8,
                        random_state=seed).fit(X)
    assert est.n_noise_ == int(np.floor(share * n + 1e-9))
    assert trimmed_W(K, w, est.labels_, 2) == pytest.approx(W.min(), rel=1e-10, abs=1e-12)
    assert est.within_energy_ == pytest.approx(W.min(), rel=1e-10, abs=1e-12)
    assert est.objective_ == -est.within_energy_


@pytest.mark.parametrize("seed", [11, 12])
def test_with_weights_the_fit_reaches_the_optimum_of_whole_points(seed):
    """With weights 1 and 2 the budget is a weight (points are set aside whole); on
    these inputs several starts reach the brute force's optimum. (The search is local:
    with weights a swap may need a heavier point to leave than any can, and other
    inputs end at a local optimum, which the next test checks.)"""
    rng = np.random.default_rng(seed)
    X, w = tiny(seed, 7), rng.choice([1.0, 2.0], 7)
    K = kernel(X, "energy", {})
    W, grid = trimmed_W_all(K, w, 2, budget_of(0.25, w))
    est = KernelKGroups(2, noise=0.25, n_init=10, random_state=0).fit(X, sample_weight=w)
    assert est.within_energy_ == pytest.approx(W.min(), rel=1e-10)
    assert est.noise_weight_ == pytest.approx(w[est.labels_ == -1].sum())
    assert est.noise_weight_ <= 0.25 * w.sum()


@pytest.mark.parametrize("case", range(8))
def test_no_single_move_of_any_kind_lowers_w_at_the_end(case):
    """Every move, swap, point set aside or brought back, checked by recomputing W (unit
    weights and weights, kernels of negative type and not, a Gram matrix), and
    improving_moves(noise=...) says 0 there and counts the same points as the brute
    force at a random labelling."""
    rng = np.random.default_rng(100 + case)
    n = 8
    X = tiny(100 + case, n)
    w = np.ones(n) if case % 2 == 0 else rng.choice([1.0, 2.0, 3.0], n)
    semimetric, params = [("energy", {}), ("localized", {}), ("energy", {"alpha": 2.0}),
                          ("sinusoidal", {"theta": 1.0})][case % 4]
    k, share = 2 + case % 2, [0.2, 0.3, 0.4][case % 3]
    K = kernel(X, semimetric, params)
    budget = budget_of(share, w)
    kw = dict(semimetric=semimetric, **params, noise=share)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the indefinite kernels' max_iter warnings
        est = KernelKGroups(k, n_init=3, random_state=case, **kw).fit(X, sample_weight=w)
    assert trimmed_improving(K, w, est.labels_, k, budget) == []
    assert improving_moves(X, est.labels_, sample_weight=w, **kw) == 0
    labels = rng.integers(-1, k, n)
    labels[:k] = np.arange(k)
    while w[labels == -1].sum() > budget:
        labels[np.flatnonzero(labels == -1)[0]] = 0
    assert improving_moves(X, labels, sample_weight=w, **kw) == \
        len(trimmed_improving(K, w, labels, k, budget, rtol=1e-12))


def test_gram_matrix_and_indefinite_gram():
    """A precomputed Gram matrix (diagonal not 0): W = sum_kept w_i K_ii - Q is what
    the search minimises, to the brute force's optimum; an indefinite Gram has no
    improving move left."""
    X = tiny(7, 7)
    F = np.c_[X, np.ones(7)]
    G = F @ F.T  # the linear kernel: W is the within sum of squares
    W, _ = trimmed_W_all(G, np.ones(7), 2, budget_of(0.3, np.ones(7)))
    est = KernelKGroups(2, kernel="precomputed", noise=0.3, n_init=8, random_state=0).fit(G)
    assert est.within_energy_ == pytest.approx(W.min(), rel=1e-10)
    A = np.random.default_rng(7).normal(size=(8, 8))
    H = (A + A.T) / 2
    est = KernelKGroups(2, kernel="precomputed", noise=0.3, n_init=3, random_state=0).fit(H)
    assert trimmed_improving(H, np.ones(8), est.labels_, 2, budget_of(0.3, np.ones(8))) == []


# -- noise=None and noise=0 ---------------------------------------------------------
def blobs_and_strays(seed=0, n=40, strays=4):
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (n, 2)), rng.normal([7, 0], 1, (n, 2)),
                   rng.uniform(-40, 40, (strays, 2)) + [60, 60]])
    return X


def test_a_fit_without_noise_imports_nothing_of_the_trimmed_search():
    code = ("import sys, numpy as np\nfrom kgroups import KernelKGroups\n"
            "X = np.random.default_rng(0).normal(size=(30, 2))\n"
            "KernelKGroups(2, random_state=0).fit(X)\n"
            "print(sorted(m for m in sys.modules if 'trimmed' in m or 'noise' in m))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("engine", ["dense", "matrix-free", "low-rank"])
def test_noise_zero_is_the_fit_without_noise(engine):
    X = blobs_and_strays()
    kw = dict(engine=engine, n_init=2, random_state=0, n_components=30)
    a = KernelKGroups(3, **kw).fit(X)
    b = KernelKGroups(3, noise=0.0, **kw).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.objective_ == a.objective_ and b.n_noise_ == 0
    assert b.noise_threshold_ == np.inf and b.noise_weight_ == 0.0
    assert not hasattr(a, "n_noise_")


def test_a_refit_without_noise_forgets_the_noise_attributes():
    X = blobs_and_strays()
    est = KernelKGroups(2, noise=0.05, random_state=0).fit(X)
    assert est.n_noise_ == 4
    est.set_params(noise=None).fit(X)
    assert not any(hasattr(est, a) for a in ("n_noise_", "noise_weight_", "noise_threshold_",
                                              "noise_share_"))
    assert (est.labels_ >= 0).all() and (est.predict([[500.0, 500.0]]) >= 0).all()


# -- the shapes of noise ----------------------------------------------------------
def test_weights_equal_repeated_rows_where_the_copies_are_not_split():
    """Two far strays of weight 2 each against four rows: with a budget of 4 both copies
    of each go, the same partition and W either way (from the same start)."""
    rng = np.random.default_rng(3)
    core = np.vstack([rng.normal(0, 1, (20, 2)), rng.normal([6, 0], 1, (20, 2))])
    strays = np.array([[40.0, 40.0], [-40.0, 35.0]])
    start = (core[:, 0] > 3).astype(int)
    Xw, w = np.vstack([core, strays]), np.r_[np.ones(40), 2.0, 2.0]
    Xr = np.vstack([core, strays[[0, 0, 1, 1]]])
    share = 4.0 / 44.0
    a = KernelKGroups(2, noise=share, init=np.r_[start, 0, 0]).fit(Xw, sample_weight=w)
    b = KernelKGroups(2, noise=share, init=np.r_[start, 0, 0, 0, 0]).fit(Xr)
    np.testing.assert_array_equal(a.labels_[:40], b.labels_[:40])
    assert (a.labels_[40:] == -1).all() and (b.labels_[40:] == -1).all()
    assert a.within_energy_ == pytest.approx(b.within_energy_, rel=1e-12)
    assert a.noise_weight_ == 4.0 and a.n_noise_ == 2 and b.n_noise_ == 4


def test_a_far_tight_group_is_a_cluster_not_noise():
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 1, (100, 2)), rng.normal([50, 50], 0.1, (5, 2))])
    est = KernelKGroups(2, noise=0.03, random_state=0).fit(X)
    far = est.labels_[100:]
    assert (far >= 0).all() and len(set(far.tolist())) == 1
    assert est.n_noise_ == 3 and (est.labels_[:100] != far[0]).all()


@pytest.mark.parametrize("k", [1, 2])
def test_the_strays_go_and_no_point_inside_a_cluster(k):
    X = blobs_and_strays(n=100, strays=6)
    est = KernelKGroups(k, noise=6 / 206, random_state=0).fit(X)
    np.testing.assert_array_equal(np.flatnonzero(est.labels_ == -1), np.arange(200, 206))
    if k == 2:
        assert accuracy(np.repeat([0, 1], 100), est.labels_[:200]) == 1.0


def test_predict_sets_far_points_aside_and_keeps_near_ones():
    X = blobs_and_strays()
    est = KernelKGroups(2, noise=0.05, random_state=0).fit(X)
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    near = est.predict([[0.0, 0.0], [7.0, 0.0]])
    assert near[0] >= 0 and near[1] >= 0 and near[0] != near[1]
    np.testing.assert_array_equal(est.predict([[300.0, 0.0], [-200.0, 90.0]]), [-1, -1])
    # predict's rule: the smallest insertion cost s_l d_l / (s_l + 1) against the threshold
    d = est.transform([[3.5, 0.0], [30.0, 30.0]])
    s = est.cluster_weights_
    cost = (d * s / (s + 1)).min(axis=1)
    want = np.where(cost >= est.noise_threshold_, -1, np.argmin(d * s / (s + 1), axis=1))
    np.testing.assert_array_equal(est.predict([[3.5, 0.0], [30.0, 30.0]]), want)
    # zero-weight rows follow predict's rule, -1 included
    w = np.r_[np.ones(len(X)), 0.0, 0.0]
    Xz = np.vstack([X, [[0.2, 0.1], [500.0, 500.0]]])
    z = KernelKGroups(2, noise=0.05, random_state=0).fit(Xz, sample_weight=w)
    assert z.labels_[-2] >= 0 and z.labels_[-1] == -1
    assert z.n_noise_ == est.n_noise_ + 1 and z.noise_weight_ == est.noise_weight_


@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_predict_of_the_training_rows_gives_their_labels_on_many_columns(engine):
    """On data of many columns predict's sums come from blocks of values (a matrix
    product, not the pairs' differences): the training rows still get their labels,
    -1 for each point set aside, the threshold's own point included."""
    from kgroups._engines.engine import PREDICT_BLAS_MIN_D

    rng = np.random.default_rng(1)
    D = PREDICT_BLAS_MIN_D + 20
    X = np.vstack([rng.normal(c, 3.0, (200, D)) for c in (0.0, 4.0, 8.0)]
                  + [rng.uniform(-30, 30, (30, D))])
    est = KernelKGroups(3, noise=0.05, engine=engine, random_state=0).fit(X)
    assert est._predictor.inner.from_blocks and est.n_noise_ > 0
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def test_kernel_kmeans_with_noise_sets_the_farthest_points_aside():
    X = blobs_and_strays()
    est = KernelKMeans(2, noise=0.05, random_state=0).fit(X)
    np.testing.assert_array_equal(np.flatnonzero(est.labels_ == -1), np.arange(80, 84))
    assert est.objective_ == -est.within_energy_
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    assert (est.transform(X[80:]).min(axis=1) >= est.noise_threshold_ - 1e-9).all()


# -- engines, the parameter, init with -1 -------------------------------------------
def test_the_engines_agree_from_the_same_start():
    """Dense and matrix-free (|x - y|^2), dense and sparse on the Gram matrix of the
    same geometry (the linear kernel: the same W up to shifts), low-rank with exact
    features: the same labels, the same W."""
    X = blobs_and_strays(seed=2, n=25)
    start = np.r_[(X[:50, 0] > 3.5).astype(int), 0, 0, 0, 0]
    F = np.c_[X, np.ones(len(X))]
    G = F @ F.T
    fits = [KernelKGroups(2, alpha=2.0, noise=0.06, init=start, engine=e,
                          n_components=len(X)).fit(X)
            for e in ("dense", "matrix-free", "low-rank")]
    fits += [KernelKGroups(2, kernel="precomputed", noise=0.06, init=start, engine=e).fit(A)
             for e, A in (("dense", G), ("sparse", sp.csr_matrix(G)))]
    for est in fits[1:]:
        np.testing.assert_array_equal(est.labels_, fits[0].labels_)
        assert est.within_energy_ == pytest.approx(fits[0].within_energy_, rel=1e-8)
    assert [f.engine_ for f in fits] == ["dense", "matrix-free", "low-rank", "dense", "sparse"]
    assert fits[0].n_noise_ == 3


def test_the_dask_engine_refuses_noise_by_name():
    da = pytest.importorskip("dask.array")
    X = da.from_array(blobs_and_strays(), chunks=30)
    with pytest.raises(ValueError, match=r"engine='dask' does not set points aside \(noise\)"):
        KernelKGroups(2, noise=0.05, engine="dask").fit(X)


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("bad", [0.7, 0.5, -0.1, "yes", True, np.nan])
def test_bad_values_of_noise_are_refused_by_name(Est, bad):
    with pytest.raises(ValueError, match=r"noise=.* should be None or 'auto' or a number "
                                         r"in \[0, 0.5\)"):
        Est(2, noise=bad).fit(blobs_and_strays())


def test_auto_goes_through_the_one_function(monkeypatch):
    X = blobs_and_strays()
    import kgroups._noise as noise
    seen = {}

    def share(run, engine, n_clusters, owner):
        seen.update(labels=np.asarray(run.labels), k=n_clusters, n=engine.n_samples)
        return 0.05, "because"
    monkeypatch.setattr(noise, "resolve_noise_share", share)
    a = KernelKGroups(2, noise="auto", random_state=0).fit(X)
    b = KernelKGroups(2, noise=0.05, random_state=0).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert a.noise_share_ == 0.05 and seen["k"] == 2 and seen["n"] == len(X)
    assert a.noise_reasoning_ == "because" and "noise=0.05" in b.noise_reasoning_
    assert (seen["labels"] >= 0).all()


def test_init_labels_may_set_points_aside():
    X = blobs_and_strays()
    start = np.r_[(X[:80, 0] > 3.5).astype(int), -1, -1, -1, -1]
    est = KernelKGroups(2, noise=0.05, init=start).fit(X)
    np.testing.assert_array_equal(est.labels_, start)
    assert est.n_iter_ == 1  # from the optimum nothing moves
    with pytest.raises(ValueError, match=r"set aside 4 point\(s\) of weight 4, more than "
                                         r"noise=0.03 allows"):
        KernelKGroups(2, noise=0.03, init=start).fit(X)
    with pytest.raises(ValueError, match=r"should lie in \[0, 1\], got min=-1"):
        KernelKGroups(2, init=start).fit(X)
    with pytest.raises(ValueError, match=r"\[-1, 1\] \(-1: set aside\), got min=-1 max=2"):
        KernelKGroups(2, noise=0.05, init=np.r_[start[:-1], 2]).fit(X)


# -- scikit-learn's machinery and the statistics -------------------------------------
def test_clone_pickle_pipeline_and_grid_search():
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    X = blobs_and_strays()
    est = KernelKGroups(2, noise=0.05, random_state=0).fit(X)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.predict(X), est.labels_)
    assert clone(est).get_params()["noise"] == 0.05
    pipe = make_pipeline(StandardScaler(), KernelKGroups(2, noise=0.05, random_state=0))
    assert (pipe.fit_predict(X) == -1).sum() == 4
    grid = GridSearchCV(KernelKGroups(2, random_state=0), {"noise": [None, 0.05]}, cv=2).fit(X)
    assert grid.best_params_["noise"] in (None, 0.05)
    # score leaves out the new points predict sets aside
    assert est.score(X) == pytest.approx(est.score(X[est.labels_ >= 0]), rel=1e-12)


def test_the_statistics_and_metrics_leave_label_minus_one_out():
    X = blobs_and_strays()
    est = KernelKGroups(2, noise=0.05, random_state=0).fit(X)
    lab, kept = est.labels_, est.labels_ >= 0
    assert within_energy(X, lab) == pytest.approx(est.within_energy_, rel=1e-10)
    assert within_energy(X, lab) == within_energy(X[kept], lab[kept])
    assert between_energy(X, lab) == pytest.approx(between_energy(X[kept], lab[kept]))
    a = disco(X, lab, n_permutations=9, random_state=0)
    b = disco(X[kept], lab[kept], n_permutations=9, random_state=0)
    assert (a.statistic, a.df_within, a.pvalue) == (b.statistic, b.df_within, b.pvalue)
    D = pairwise(X)
    assert within_energy(D, lab, precomputed=True) == pytest.approx(est.within_energy_)
    truth = np.r_[np.zeros(40), np.ones(40), -np.ones(4)]
    assert accuracy(truth, lab) == 1.0 and ari(truth, lab) == 1.0
    assert accuracy(truth, np.r_[lab[:80], 0, 0, 0, 0]) < 1.0  # -1 in labels_true: a class
    with pytest.raises(ValueError, match="every label is -1"):
        within_energy(X, -np.ones(len(X), dtype=int))


def test_max_iter_warns_and_a_rebuilt_m_gives_the_same_end(monkeypatch):
    """The driver's safety cap warns as for any run; a run whose M the driver rebuilds
    from its labels (-1 included) goes on to the same end."""
    from sklearn.exceptions import ConvergenceWarning

    import kgroups._driver as driver
    X = blobs_and_strays()
    with pytest.warns(ConvergenceWarning, match="max_iter=1"):
        KernelKGroups(2, noise=0.05, max_iter=1, n_init=1, random_state=0).fit(X)
    a = KernelKGroups(2, noise=0.05, n_init=1, random_state=0).fit(X)
    monkeypatch.setattr(driver, "DRIFT_RTOL", -1.0)  # every converged run rebuilt
    b = KernelKGroups(2, noise=0.05, n_init=1, random_state=0).fit(X)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.within_energy_ == pytest.approx(a.within_energy_, rel=1e-12)


def test_the_dask_statistics_leave_label_minus_one_out():
    da = pytest.importorskip("dask.array")
    X = blobs_and_strays()
    lab = np.r_[np.zeros(40, int), np.ones(40, int), -np.ones(4, int)]
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(X))
    kept = lab >= 0
    Xd, labd, wd = (da.from_array(a, chunks=30) for a in (X, lab, w))
    assert within_energy(Xd, labd, sample_weight=wd) == pytest.approx(
        within_energy(X[kept], lab[kept], sample_weight=w[kept]), rel=1e-12)
    assert between_energy(Xd, lab) == pytest.approx(between_energy(X[kept], lab[kept]),
                                                    rel=1e-12)
    assert disco(Xd, labd, n_permutations=0).statistic == pytest.approx(
        disco(X[kept], lab[kept], n_permutations=0).statistic, rel=1e-12)
