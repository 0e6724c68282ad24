"""Nothing given: ``choose_k(X, semimetric="auto")`` and ``KernelKGroups(n_clusters="auto")``
choose k (and the semimetric) from the data alone."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

from kgroups import KernelKGroups, choose_k
from kgroups._validation import InvalidParameterError


def four_blobs(seed=0, n=100):
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [8, 0], [0, 8], [8, 8]])
    X = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centres])
    return X, np.repeat(np.arange(4), n)


@pytest.fixture(scope="module")
def moons():
    return make_moons(1000, noise=0.05, random_state=0)


@pytest.fixture(scope="module")
def rings():
    return make_circles(1000, noise=0.05, factor=0.5, random_state=0)


def test_four_separated_blobs_give_four_energy():
    X, y = four_blobs()
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 4
    assert est.semimetric_ == "energy"
    assert adjusted_rand_score(y, est.labels_) > 0.95


@pytest.mark.parametrize("data", ["moons", "rings"])
def test_shapes_give_two_with_the_graph(data, request):
    X, y = request.getfixturevalue(data)
    r = choose_k(X, semimetric="auto", random_state=0)
    assert r.k == 2
    assert r.semimetric == "nearest_neighbors"
    assert adjusted_rand_score(y, r.labels) >= 0.95
    assert set(r.candidates) == {"energy", "nearest_neighbors"}
    assert "normalised cut" in r.reasoning
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (2, "nearest_neighbors")
    assert adjusted_rand_score(y, est.labels_) >= 0.95
    assert est.semimetric_choice_.semimetric == "nearest_neighbors"


@pytest.mark.parametrize("draw", ["gaussian", "uniform"])
def test_no_structure_gives_one_cluster(draw):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 2)) if draw == "gaussian" else rng.uniform(size=(400, 2))
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 1
    assert np.all(est.labels_ == 0)


def test_weights_are_repeated_rows():
    X, _ = four_blobs(n=30)
    rng = np.random.default_rng(3)
    w = rng.integers(1, 4, X.shape[0])
    a = KernelKGroups("auto", random_state=0).fit(X, sample_weight=w)
    b = KernelKGroups("auto", random_state=0).fit(np.repeat(X, w, axis=0))
    assert a.n_clusters_ == b.n_clusters_ == 4
    assert adjusted_rand_score(np.repeat(a.labels_, w), b.labels_) == 1.0


def test_predict_of_the_fitted_points_gives_the_labels(moons):
    X, _ = four_blobs()
    for Z, sem in ((X, "energy"), (moons[0], "auto")):
        est = KernelKGroups("auto", semimetric=sem, random_state=0).fit(Z)
        np.testing.assert_array_equal(est.predict(Z), est.labels_)
        assert est.transform(Z[:5]).shape == (5, est.n_clusters_)


def test_clone_and_pickle_keep_auto():
    X, _ = four_blobs(n=20)
    est = KernelKGroups("auto", random_state=0)
    assert clone(est).n_clusters == "auto"
    est.fit(X)
    again = pickle.loads(pickle.dumps(est))
    assert again.n_clusters == "auto" and again.n_clusters_ == est.n_clusters_
    np.testing.assert_array_equal(again.predict(X), est.labels_)
    assert est.n_clusters_choice_.k == est.n_clusters_
    assert est.n_clusters_choice_.reasoning


@pytest.mark.parametrize("bad", ["Auto", "best", None, 0, -2, 2.5, [3]])
def test_other_n_clusters_are_refused_by_name(bad):
    X, _ = four_blobs(n=10)
    with pytest.raises(InvalidParameterError, match="n_clusters"):
        KernelKGroups(bad).fit(X)


def test_auto_with_a_matrix_or_given_labels_is_refused():
    X, _ = four_blobs(n=10)
    D = np.abs(X[:, None, 0] - X[None, :, 0])
    with pytest.raises(InvalidParameterError, match="n_clusters='auto'.*integer"):
        KernelKGroups("auto", semimetric="precomputed").fit(D)
    with pytest.raises(InvalidParameterError, match="init given as labels"):
        KernelKGroups("auto", init=np.zeros(len(X), dtype=int)).fit(X)


def test_a_fixed_semimetric_uses_its_own_rule(rings):
    X, y = rings
    est = KernelKGroups("auto", semimetric="nearest_neighbors", random_state=0).fit(X)
    assert est.n_clusters_choice_.method == "graph eigengap"
    assert est.semimetric_ == "nearest_neighbors"
    assert est.n_clusters_ == 2


def test_choose_k_auto_refuses_another_method():
    X, _ = four_blobs(n=10)
    with pytest.raises(InvalidParameterError, match="semimetric='auto' has a rule of its own"):
        choose_k(X, semimetric="auto", method="silhouette")


def test_large_data_is_chosen_on_a_sample(monkeypatch):
    """Past SAMPLE_N rows the choice runs on a uniform sample; every row gets a label
    (choose_k: the fit of all rows from the sample's; the estimator: its own fit)."""
    from kgroups._choose_k import sample

    monkeypatch.setattr(sample, "SAMPLE_N", 200)
    X, y = four_blobs(n=150)
    r = choose_k(X, semimetric="auto", random_state=0)
    assert r.k == 4 and r.sample.shape == (200,) and r.labels.shape == (600,)
    assert np.unique(r.sample).size == 200
    assert adjusted_rand_score(y, r.labels) > 0.95
    assert "uniform sample of 200 of the 600 rows" in r.reasoning
    est = KernelKGroups("auto", random_state=0).fit(X)
    assert est.n_clusters_ == 4 and adjusted_rand_score(y, est.labels_) > 0.95
    exact = KernelKGroups(4, init=est.labels_).fit(X)     # a fixed point of the exact fit
    np.testing.assert_array_equal(exact.labels_, est.labels_)


def test_the_top_of_the_range_warns_at_the_callers_line():
    from kgroups._choose_k import KRangeWarning

    X, _ = four_blobs(n=30)
    with pytest.warns(KRangeWarning, match="widen k_range") as record:
        r = choose_k(X, range(1, 4), semimetric="auto", random_state=0)
    assert r.at_top and record[0].filename == __file__


@pytest.mark.parametrize("X", [np.zeros((2, 2)) + [[0, 0], [1, 1]], np.ones((50, 3)),
                               np.repeat([[0.0, 0.0], [5.0, 5.0]], 30, axis=0)],
                         ids=["two points", "one distinct row", "two distinct rows"])
def test_too_few_distinct_rows_to_compare_give_one_cluster(X):
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 1 and "one cluster" in est.n_clusters_choice_.reasoning
    assert np.all(est.labels_ == 0)


def test_awkward_inputs_keep_the_fit_s_front_door():
    """Column names, zero weights and lists go through the choice as through any fit;
    the graph semimetric on fewer distinct points than neighbours is refused by name."""
    pd = pytest.importorskip("pandas")
    X, _ = four_blobs(n=20)
    est = KernelKGroups("auto", random_state=0).fit(pd.DataFrame(X, columns=["a", "b"]))
    assert est.feature_names_in_.tolist() == ["a", "b"] and est.n_clusters_ == 4
    w = np.ones(len(X))
    w[:20] = 0.0                                          # the first blob left out
    est = KernelKGroups("auto", random_state=0).fit(X, sample_weight=w)
    assert est.n_clusters_ == 3 and est.labels_.shape == (80,)
    assert KernelKGroups("auto", random_state=0).fit(X.tolist()).n_clusters_ == 4
    with pytest.raises(InvalidParameterError, match="n_neighbors=10"):
        KernelKGroups("auto", semimetric="nearest_neighbors").fit(X[:5])
