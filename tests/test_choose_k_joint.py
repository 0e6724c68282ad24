"""Nothing given: ``choose_k(X, semimetric="auto")`` and ``KernelKGroups(n_clusters="auto",
semimetric="auto")`` choose k and the semimetric from the data alone (the energy rule,
the graph's rule, and the arbiter of kgroups._choose_k.arbiter), and
``KernelKGroups(n_clusters="auto")`` with a fixed semimetric (kgroups._choose_k.estimator).
Each answer is checked through its trace."""

import pickle

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.metrics import adjusted_rand_score

import kgroups._choose_k.core as core
from kgroups import KernelKGroups, choose_k
from kgroups._choose_k.arbiter import CUT_RATIO, NO_STRUCTURE_RATIO
from kgroups._choose_k.trace import render
from kgroups.exceptions import DistinctRowsWarning, InvalidParameterError, KRangeWarning

NN = "nearest_neighbors"


def four_blobs(seed=0, n=100):
    rng = np.random.default_rng(seed)
    centres = np.array([[0, 0], [8, 0], [0, 8], [8, 8]])
    X = np.vstack([rng.normal(c, 1.0, (n, 2)) for c in centres])
    return X, np.repeat(np.arange(4), n)


def names(r):
    return [s.step for s in r.trace.steps]


def arbiter_step(r):
    [step] = [s for s in r.trace.steps if s.step == "arbiter"]
    return step


@pytest.fixture(scope="module")
def moons():
    return make_moons(1000, noise=0.05, random_state=0)


@pytest.fixture(scope="module")
def rings():
    return make_circles(1000, noise=0.05, factor=0.5, random_state=0)


def test_four_separated_blobs_give_four_energy():
    X, y = four_blobs()
    r = choose_k(X, semimetric="auto")
    assert r.k == 4 and r.semimetric == "energy" and r.method == "auto"
    # a point 3.8 standard deviations from its blob's centre is a lone outlier
    assert names(r) == ["outliers", "structure", "silhouette", "split", "graph eigengap",
                        "arbiter"]
    assert r.trace.steps[0].value == 399 and r.sample.size == 399
    assert [s.outcome for s in r.trace.steps][3:5] == ["k=4", "k=4"]
    arb = r.trace.steps[-1]                    # the energy partition of 4 is the graph's
    assert arb.threshold is None and arb.rule == "the same groups"
    assert list(arb.value.values()) == [0.0, 0.0]              # both cut no edge
    assert adjusted_rand_score(y, r.labels) == 1.0
    assert set(r.candidates) == {"energy", NN} and r.candidates["energy"].k == 4
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (4, "energy")
    assert adjusted_rand_score(y, est.labels_) == 1.0
    assert est.semimetric_choice_.semimetric == "energy"


def test_blobs_touching_in_pairs_give_the_graph_s_finer_groups():
    """Four blobs that touch in pairs: the energy rule stops short of the four (its
    silhouette is largest at the two pairs, and the split test splits one pair at most),
    the graph's eigengap answers 4, and the energy partition of 4 is those groups: rule
    2 takes them, whatever the cuts."""
    X, y = make_blobs(300, 2, centers=4, random_state=1)
    r = choose_k(X, semimetric="auto")
    assert r.candidates["energy"].k == choose_k(X).k in (2, 3)
    assert (r.k, r.semimetric) == (4, NN) and adjusted_rand_score(y, r.labels) > 0.9
    arb = arbiter_step(r)
    assert arb.rule == "finer groups" and arb.threshold is None
    cut_g, cut_e = arb.value.values()
    assert cut_g >= cut_e                      # the cut alone would have kept energy's 2
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (4, NN)


@pytest.mark.parametrize("data", ["moons", "rings"])
def test_shapes_give_two_with_the_graph(data, request):
    X, y = request.getfixturevalue(data)
    r = choose_k(X, semimetric="auto", random_state=0)
    assert r.k == 2 and r.semimetric == NN
    assert adjusted_rand_score(y, r.labels) >= 0.95
    assert set(r.candidates) == {"energy", NN} and r.candidates[NN].k == 2
    # the trace: the energy rule's steps, the graph's eigengap, energy's tiles of the
    # shapes (its own answer, which the arbiter judges), then the arbiter's cut
    assert names(r) == ["structure", "silhouette", "split", "graph eigengap", "tiles",
                        "arbiter"]
    assert r.trace.steps[0].outcome == "modes: structure"
    graph, tiled, arb = r.trace.steps[-3:]
    assert tiled.outcome == f"k={r.candidates['energy'].k}" == f"k={choose_k(X).k}"
    assert graph.outcome == "k=2" and max(graph.value, key=graph.value.get) == 2
    assert arb.threshold == CUT_RATIO and arb.outcome.startswith("the graph's groups cut")
    cut_g, cut_e = arb.value.values()
    assert (cut_g, cut_e) == (r.cuts[NN], r.cuts["energy"]) and cut_g < CUT_RATIO * cut_e
    assert r.reasoning == render(r.trace.steps)
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (2, NN)
    assert adjusted_rand_score(y, est.labels_) >= 0.95
    choice = est.semimetric_choice_
    assert choice.semimetric == NN and choice.normalized_cut == r.cuts
    assert choice.reasoning == est.n_clusters_choice_.reasoning


@pytest.mark.parametrize("draw", ["gaussian", "uniform"])
def test_no_structure_gives_one_cluster(draw):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(400, 2)) if draw == "gaussian" else rng.uniform(size=(400, 2))
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 1 and est.semimetric_ == "energy"
    assert np.all(est.labels_ == 0)
    r = est.n_clusters_choice_
    arb = arbiter_step(r)
    assert arb.threshold == NO_STRUCTURE_RATIO and arb.outcome.startswith("no structure")
    assert [s.outcome for s in r.trace.steps if s.step == "answer"] == ["k=1"]
    # energy's own k reads the graph's groups with the same clause: still one cluster
    assert r.candidates["energy"].k == 1 and choose_k(X).k == 1


def test_the_same_answer_for_every_random_state(moons):
    for X in (four_blobs(n=40)[0], moons[0][::2]):
        rs = [choose_k(X, semimetric="auto", random_state=s) for s in range(5)]
        assert len({(r.k, r.semimetric) for r in rs}) == 1
        for r in rs[1:]:
            np.testing.assert_array_equal(r.labels, rs[0].labels)
        est = {(e.n_clusters_, e.semimetric_) for e in (
            KernelKGroups("auto", semimetric="auto", random_state=s).fit(X) for s in (0, 4))}
        assert est == {(rs[0].k, rs[0].semimetric)}


@pytest.mark.parametrize("semimetric", ["auto", "nearest_neighbors"])
@pytest.mark.parametrize("init", ["spectral", "k-means++", "random"])
def test_every_named_init_chooses_with_the_graph(moons, semimetric, init):
    # the choice's fits start as the estimator's do: the spectral start of the graph's
    # fits reads the graph's own kernel (it was refused, naming rho_to_origin)
    X, y = moons[0][::4], moons[1][::4]
    est = KernelKGroups("auto", semimetric=semimetric, init=init, random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (2, "nearest_neighbors")
    assert adjusted_rand_score(y, est.labels_) == 1.0


def test_weights_are_repeated_rows(moons):
    X, _ = four_blobs(n=30)
    w = np.random.default_rng(3).integers(1, 4, X.shape[0])
    for sem in ("energy", "auto"):
        a = KernelKGroups("auto", semimetric=sem, random_state=0).fit(X, sample_weight=w)
        b = KernelKGroups("auto", semimetric=sem, random_state=0).fit(np.repeat(X, w, axis=0))
        assert a.n_clusters_ == b.n_clusters_ == 4 and a.semimetric_ == b.semimetric_
        assert adjusted_rand_score(np.repeat(a.labels_, w), b.labels_) == 1.0
    M, y = moons[0][::4], moons[1][::4]
    w = np.random.default_rng(4).integers(1, 4, M.shape[0])
    a = choose_k(M, semimetric="auto", sample_weight=w)
    b = choose_k(np.repeat(M, w, axis=0), semimetric="auto")
    assert (a.k, a.semimetric) == (b.k, b.semimetric) == (2, NN)
    assert adjusted_rand_score(np.repeat(a.labels, w), b.labels) == 1.0
    assert adjusted_rand_score(y, a.labels) >= 0.95


def test_predict_of_the_fitted_points_gives_the_labels(moons):
    X, _ = four_blobs()
    for Z, sem in ((X, "energy"), (moons[0], "auto")):
        est = KernelKGroups("auto", semimetric=sem, random_state=0).fit(Z)
        np.testing.assert_array_equal(est.predict(Z), est.labels_)
        assert est.transform(Z[:5]).shape == (5, est.n_clusters_)


def test_the_fit_is_an_ordinary_fit_of_the_chosen_k():
    X, _ = four_blobs(n=40)
    est = KernelKGroups("auto", random_state=0).fit(X)
    plain = KernelKGroups(est.n_clusters_, init=est.labels_).fit(X)
    np.testing.assert_array_equal(plain.labels_, est.labels_)
    assert est.objective_ == pytest.approx(plain.objective_, rel=1e-12)
    assert est.within_energy_ == pytest.approx(plain.within_energy_, rel=1e-12)


def test_the_graph_is_judged_in_the_units_energy_found_structure_in():
    """Moons in columns of units 100 and 1, beside a column of noise in units of 1,000:
    X's own units show energy no structure, X standardized does. The graph's candidate
    is built and judged there too (in X's units the noise column cuts its groups, ARI
    near 0), and the estimator fits the chosen graph in those units."""
    X, y = make_moons(400, noise=0.06, random_state=0)
    Z = np.c_[X * [100.0, 1.0], np.random.default_rng(0).normal(0.0, 1e3, 400)]
    r = choose_k(Z, semimetric="auto", random_state=0)
    e, g = r.candidates["energy"], r.candidates[NN]
    assert e.geometry == g.geometry == r.geometry == "standardized"
    assert g.rescaling is e.rescaling
    assert "eigengap" in (step := r.trace.steps[-2]).step and "on X standardized" in step.statistic
    assert (r.k, r.semimetric) == (2, NN) and adjusted_rand_score(y, r.labels) > 0.8
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(Z)
    assert (est.n_clusters_, est.semimetric_) == (2, NN)
    assert adjusted_rand_score(r.labels, est.labels_) == 1.0
    np.testing.assert_array_equal(est.predict(Z), est.labels_)
    raw = KernelKGroups(2, semimetric=NN, random_state=0).fit(Z)   # the graph in X's units
    assert adjusted_rand_score(y, raw.labels_) < 0.3
    da = pytest.importorskip("dask.array")        # the same data out of memory: the same
    lazy = KernelKGroups("auto", semimetric="auto", random_state=0).fit(da.from_array(Z, 100))
    labels = np.asarray(getattr(lazy.labels_, "compute", lambda: lazy.labels_)())
    assert (lazy.n_clusters_, lazy.semimetric_) == (2, NN)
    assert adjusted_rand_score(est.labels_, labels) == 1.0


def test_a_choice_in_a_rescaled_geometry_is_fitted_there():
    """Raw wine (proline in mg/l drowns the other columns): k is found with every
    column at unit variance; the fit runs there too, so its labels are the choice's
    (in X's own units, Hartigan's moves from them drift to proline's split), and new
    rows, given in X's columns, are mapped the same way."""
    pd = pytest.importorskip("pandas")
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    r = choose_k(X, range(1, 31), semimetric="auto", random_state=0)
    assert r.geometry == "standardized" and r.k == 3
    df = pd.DataFrame(X, columns=[f"c{j}" for j in range(13)])
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(df)
    assert est.n_clusters_ == 3 and adjusted_rand_score(r.labels, est.labels_) == 1.0
    assert adjusted_rand_score(y, est.labels_) > 0.85
    assert est.n_features_in_ == 13 and list(est.feature_names_in_) == list(df.columns)
    np.testing.assert_array_equal(est.predict(df), est.labels_)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict(df.iloc[::7]),
                                  est.labels_[::7])
    T = est.transform(df)
    np.testing.assert_array_equal(T.argmin(axis=1), est.labels_)
    raw = KernelKGroups(3, init=est.labels_).fit(X)  # the same start in X's units
    assert adjusted_rand_score(y, raw.labels_) < 0.5
    est.set_params(n_clusters=3).fit(X)  # an ordinary fit forgets the map
    assert est._rescaling is None
    np.testing.assert_array_equal(est.predict(X), est.labels_)


def test_clone_and_pickle_keep_auto():
    X, _ = four_blobs(n=20)
    est = KernelKGroups("auto", random_state=0)
    assert clone(est).n_clusters == "auto"
    est.fit(X)
    again = pickle.loads(pickle.dumps(est))
    assert again.n_clusters == "auto" and again.n_clusters_ == est.n_clusters_ == 4
    np.testing.assert_array_equal(again.predict(X), est.labels_)
    assert est.n_clusters_choice_.k == est.n_clusters_
    assert again.n_clusters_choice_.reasoning == est.n_clusters_choice_.reasoning
    assert [s.step for s in again.n_clusters_choice_.trace.steps] == names(
        est.n_clusters_choice_)
    fitted = clone(KernelKGroups("auto", semimetric="auto")).fit(X)
    assert pickle.loads(pickle.dumps(fitted)).semimetric_choice_.semimetric == "energy"


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
    est = KernelKGroups("auto", semimetric=NN, random_state=0).fit(X)
    r = est.n_clusters_choice_
    assert r.method == "auto" and names(r) == ["graph eigengap"]
    assert est.semimetric_ == NN and est.n_clusters_ == 2
    assert adjusted_rand_score(y, est.labels_) >= 0.95
    est = KernelKGroups("auto", semimetric="gaussian", sigma=2.0, random_state=0).fit(
        four_blobs(n=30)[0])
    assert est.n_clusters_ == 4 and "arbiter" not in names(est.n_clusters_choice_)


def test_choose_k_auto_refuses_another_method():
    X, _ = four_blobs(n=10)
    with pytest.raises(InvalidParameterError, match="semimetric='auto' has a rule of its own"):
        choose_k(X, semimetric="auto", method="silhouette")


def test_the_far_small_group_is_found():
    """Three blobs and a far group of 12 points (2 % of the weight): the graph's
    smallest group holds less than BALANCE / k_g of the weight, it only sets a small
    part apart: energy's 4 clusters, the far group one of them."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.5, (200, 2)) for c in ([0, 0], [5, 0], [0, 5])]
                  + [rng.normal([30, 30], 0.3, (12, 2))])
    y = np.repeat([0, 1, 2, 3], [200, 200, 200, 12])
    r = choose_k(X, range(1, 16), semimetric="auto")
    assert (r.k, r.semimetric) == (4, "energy")
    assert adjusted_rand_score(y, r.labels) == 1.0
    arb = arbiter_step(r)
    assert arb.threshold is None and arb.rule == "a small part apart"
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (4, "energy")
    assert adjusted_rand_score(y, est.labels_) == 1.0


def test_large_data_is_chosen_on_a_sample(monkeypatch):
    """Past SAMPLE_N rows the choice runs on a uniform sample; every row gets a label
    (choose_k: the fit of all rows from the sample's; the estimator: its own fit)."""
    monkeypatch.setattr(core, "SAMPLE_N", 200)
    X, y = four_blobs(n=150)
    r = choose_k(X, semimetric="auto", random_state=0)
    assert r.k == 4 and r.sample.shape == (200,) and r.labels.shape == (600,)
    assert np.unique(r.sample).size == 200
    assert adjusted_rand_score(y, r.labels) > 0.95
    last = r.trace.steps[-1]
    assert (last.step, last.value) == ("sample", 200)
    assert "a uniform sample of 200 of the 600 rows" in render([last])
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 4 and adjusted_rand_score(y, est.labels_) > 0.95
    assert est.n_clusters_choice_.sample.shape == (200,)
    assert est.n_clusters_choice_.trace.steps[-1].step == "sample"
    exact = KernelKGroups(4, init=est.labels_).fit(X)     # a fixed point of the exact fit
    np.testing.assert_array_equal(exact.labels_, est.labels_)
    M, ym = make_moons(600, noise=0.05, random_state=0)
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(M)
    assert (est.n_clusters_, est.semimetric_) == (2, NN)
    assert adjusted_rand_score(ym, est.labels_) >= 0.95
    np.testing.assert_array_equal(est.predict(M), est.labels_)


def test_the_top_of_the_range_warns_at_the_callers_line():
    X, _ = four_blobs(n=30)
    with pytest.warns(KRangeWarning, match="widen k_range") as record:
        r = choose_k(X, range(1, 4), semimetric="auto", random_state=0)
    assert r.at_top and record[0].filename == __file__


@pytest.mark.parametrize("X", [np.zeros((2, 2)) + [[0, 0], [1, 1]], np.ones((50, 3)),
                               np.repeat([[0.0, 0.0], [5.0, 5.0]], 30, axis=0)],
                         ids=["two points", "one distinct row", "two distinct rows"])
def test_too_few_distinct_rows_to_compare_give_one_cluster(X):
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 1 and est.semimetric_ == "energy"
    [step] = est.n_clusters_choice_.trace.steps
    assert (step.step, step.outcome) == ("range", "one cluster")
    assert step.value == {"points": len(X), "distinct": len(np.unique(X, axis=0))}
    assert np.all(est.labels_ == 0)


def test_awkward_inputs_keep_the_fit_s_front_door():
    """Column names, zero weights and lists go through the choice as through any fit;
    the graph semimetric on fewer distinct points than neighbours links each to all
    the others, and says so at the caller's line."""
    pd = pytest.importorskip("pandas")
    X, _ = four_blobs(n=20)
    est = KernelKGroups("auto", random_state=0).fit(pd.DataFrame(X, columns=["a", "b"]))
    assert est.feature_names_in_.tolist() == ["a", "b"] and est.n_clusters_ == 4
    w = np.ones(len(X))
    w[:20] = 0.0                                          # the first blob left out
    est = KernelKGroups("auto", random_state=0).fit(X, sample_weight=w)
    assert est.n_clusters_ == 3 and est.labels_.shape == (80,)
    assert KernelKGroups("auto", random_state=0).fit(X.tolist()).n_clusters_ == 4
    with pytest.warns(DistinctRowsWarning, match="n_neighbors=10") as record:
        est = KernelKGroups("auto", semimetric=NN).fit(X[:5])
    assert record[0].filename == __file__ and est.labels_.shape == (5,)


@pytest.mark.parametrize("how", [{}, {"semimetric": "auto"},
                                 {"method": "silhouette", "random_state": 0},
                                 {"method": "gap", "random_state": 0}])
def test_zero_weights_are_removed_rows_for_choose_k_too(how):
    """choose_k takes the zero weights the estimator takes: the choice is that of the rows
    of positive weight (the same k and labels), and each removed row gets the label that
    the chosen fit's predict gives it (the estimator's n_clusters="auto" gives the same);
    too few rows of positive weight are refused in those words."""
    X, _ = four_blobs(n=20)
    w = np.ones(len(X))
    w[[3, 25, 47, 60]] = 0.0
    r, kept = choose_k(X, sample_weight=w, **how), choose_k(X[w > 0], **how)
    assert r.k == kept.k == 4 and r.labels.shape == (80,)
    np.testing.assert_array_equal(r.labels[w > 0], kept.labels)
    np.testing.assert_array_equal(r.sample, np.flatnonzero(w > 0))
    removed = r.labels[[3, 25, 47, 60]]
    assert all((r.labels[w > 0][(np.flatnonzero(w > 0) // 20) == b] == removed[i]).all()
               for i, b in enumerate([0, 1, 2, 3]))  # each in its own blob's cluster
    if not how:
        est = KernelKGroups("auto", random_state=0).fit(X, sample_weight=w)
        assert adjusted_rand_score(est.labels_, r.labels) == 1.0
    with pytest.raises(ValueError, match="choose_k: sample_weight leaves 1 row of positive"):
        choose_k(X, sample_weight=np.r_[1.0, np.zeros(79)], **how)


def test_a_far_tight_group_is_a_cluster():
    """A 1,000-point blob and 5 tight points 40 standard deviations away: no dip and no
    gain over the references sees 5 points, but they are a separated group of the
    neighbourhood graph, structure for energy's step 1 (a group apart); energy's two
    clusters are then the graph's two components, and the arbiter keeps energy."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (1000, 2)), rng.normal(40, 0.1, (5, 2))])
    y = np.repeat([0, 1], [1000, 5])
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (2, "energy")
    assert adjusted_rand_score(y, est.labels_) == 1.0
    r = est.n_clusters_choice_
    e = r.candidates["energy"]
    assert e.k == 2 and adjusted_rand_score(y, e.labels) == 1.0
    dips, apart = [s for s in e.trace.steps if s.step == "structure"]
    assert dips.outcome == "no modes" and apart.value == 5
    assert apart.outcome == "a group apart: structure"
    arb = arbiter_step(r)
    assert arb.rule == "the same groups" and arb.value["graph's groups"] == 0.0


def test_a_small_far_group_is_two_modes_at_equal_weights():
    """A blob of 20 points 10 standard deviations from one of 1,000: too many for a
    separated group, too few for a dip at their own sizes (p = 1) or for energy's
    references. The graph's two components are bimodal once the two weigh the same,
    and the arbiter keeps them (energy's answer it judged was 1; energy's own k then
    reads the structure the graph showed)."""
    X, y = make_blobs([1000, 20], centers=np.array([[0.0, 0.0], [10.0, 0.0]]),
                      random_state=0)
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (2, NN)
    assert adjusted_rand_score(y, est.labels_) == 1.0
    r = est.n_clusters_choice_
    assert [s.outcome for s in r.trace.steps if s.step == "answer"] == ["k=1"]
    assert arbiter_step(r).rule == "components" and r.candidates["energy"].k > 1


def test_a_far_group_that_passes_the_density_test_is_a_cluster():
    """Eight points 10 from a 5-D blob of 400: each member's neighbours are mostly its
    fellows, so it passes the graph's density test, yet the group is apart: a
    separated group, a component of the graph (a cut of 0), and a cluster when nothing
    is given. Joined to the blob by edges of weight near 0, the graph's groups cut
    near 0 but not 0, and energy, seeing no structure, answered one cluster."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(400, 5)), rng.normal(10 / np.sqrt(5), 0.3, (8, 5))])
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (2, NN)
    assert adjusted_rand_score(np.repeat([0, 1], [400, 8]), est.labels_) == 1.0
    assert arbiter_step(est.n_clusters_choice_).value["graph's groups"] == 0.0


@pytest.mark.parametrize("far", [50.0, 1e4])
def test_lone_outliers_are_no_clusters(far):
    """Three blobs and three single points far from them and from each other: each point
    is outside the neighbourhood of its nearest rows (a lone row of the graph), an
    outlier, not a cluster (as may be a blob's farthest point); the choice runs without
    them and the fit of every row starts from that choice's labels. Kept in, each was a cluster of its own and, 10,000 away,
    the three blobs became one (k = 4 with a single lone point: three clusters and it)."""
    rng = np.random.default_rng(2)
    B = np.vstack([rng.normal(c, 1, (150, 2)) for c in ([0, 0], [8, 0], [0, 8])])
    X = np.vstack([B, np.array([[1, 1], [-1, 0.5], [0.3, -1]]) * far])
    y = np.repeat([0, 1, 2], 150)
    for est in (KernelKGroups("auto", semimetric="auto", random_state=0).fit(X),
                KernelKGroups("auto", random_state=0).fit(X)):
        assert est.n_clusters_ == 3 and adjusted_rand_score(y, est.labels_[:450]) == 1.0
        step = est.n_clusters_choice_.trace.steps[0]
        assert step.step == "outliers" and f"less {453 - step.value} lone" in step.outcome
    r = choose_k(X)
    assert r.k == 3 and r.labels.shape == (453,) and adjusted_rand_score(y, r.labels[:450]) == 1
    assert r.sample[-1] < 450 and r.sample.size >= 448   # a blob's farthest point may be lone


def test_a_far_point_of_two_points_weight_is_a_pair():
    """A point is an outlier, two are a group: a far row of twice the weight of the others
    counts as two points (a pair apart, as two copies of it are), one of the weight of
    the others is left out of the choice."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (200, 2)), [[1e3, 1e3]]])
    assert choose_k(X).k == 1
    two = choose_k(X, sample_weight=np.r_[np.ones(200), 2.0])
    assert two.k == choose_k(np.vstack([X, X[-1:]])).k == 2
    assert all(s.step != "outliers" for s in two.trace.steps)


@pytest.mark.parametrize("seed", [0, 1])
def test_a_far_small_group_with_structure_of_its_own_is_a_cluster(seed):
    """An elongated cloud of 300 points and 5 points 6 standard deviations away, two
    close pairs and a fifth point (as iris5's five setosa): each member's distances jump
    most inside the group, and all of them at its edge. The graph keeps the five as a
    component (not outliers placed through the cloud). Energy's step 1 sees the group
    apart (structure), but its 2-cluster fit halves the long cloud, whose W falls more
    that way: the graph's groups cut the graph at 0, below it, and the arbiter takes
    them."""
    five = np.array([[0, 0], [0.1, 0], [0.6, 0.5], [0.7, 0.5], [0.3, 1.1]])
    X = np.vstack([np.random.default_rng(seed).normal(0, 1, (300, 2)) * [2, 1],
                   five + [12.0, 0.0]])
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (2, NN)
    assert adjusted_rand_score(np.repeat([0, 1], [300, 5]), est.labels_) == 1.0
    r = est.n_clusters_choice_
    assert r.candidates["energy"].k == 2 and r.cuts[NN] == 0.0 < r.cuts["energy"]
    assert arbiter_step(r).rule == "the cuts"


@pytest.mark.parametrize("seed", [1017, 3017])
def test_the_components_a_near_line_s_graph_falls_into_are_one_cloud(seed):
    """One Gaussian of 300 points on a near-line (a second column 1e-3 as wide): energy
    sees one cloud, and the 10-neighbour graph falls apart at gaps of the sample into
    two components of a hundred points and more. Groups that large must still be
    bimodal with their nearest (a tight far group of at most n_neighbors + 1 points
    need not): they are not, one cluster."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=300)
    X = np.c_[x, 1e-3 * rng.normal(size=300)]
    r = choose_k(X, range(1, 16), semimetric="auto")
    g = r.candidates[NN]
    assert g.k == 2 and np.bincount(g.labels).min() > 11 and r.cuts[NN] == 0.0
    assert (r.k, r.semimetric) == (1, "energy")
    assert arbiter_step(r).rule == "no structure"
    assert r.candidates["energy"].k == 1 and choose_k(X, range(1, 16)).k == 1


def test_tight_far_groups_beside_rings_are_clusters():
    """Two rings and three far groups of 4 points: the graph's five groups, components of
    the graph. Groups of at most n_neighbors + 1 rows are the graph's separated groups, not
    a small part it set apart (BALANCE reads the groups larger than that), so energy's
    tiles of the rings are not kept."""
    X, y = make_circles(600, factor=0.5, noise=0.03, random_state=0)
    rng = np.random.default_rng(1)
    far = np.vstack([rng.normal(c, 0.01, (4, 2)) for c in ([2.5, 2.5], [-2.5, 2.5],
                                                          [2.5, -2.5])])
    X, y = np.vstack([X, far]), np.r_[y, np.repeat([2, 3, 4], 4)]
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert (est.n_clusters_, est.semimetric_) == (5, NN)
    assert adjusted_rand_score(y, est.labels_) == 1.0
    assert arbiter_step(est.n_clusters_choice_).rule != "a small part apart"


@pytest.mark.parametrize("seed", [0, 3, 8])
def test_a_blob_whose_graph_falls_apart_at_a_gap_is_one_cluster(seed):
    """Two blobs 8 standard deviations apart, the first column a million times wider
    than the second: the 10-neighbour graph is that of a line, and falls apart at a gap
    of one blob's sample (a cut of 0). Its extra group lies within an energy cluster and
    is not bimodal with its neighbour there along their discriminant or margins: energy's
    two clusters, the trace naming the clause."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal([8, 0], 1, (200, 2))]) * [1e6, 1]
    r = choose_k(X, semimetric="auto")
    assert r.candidates[NN].k >= 3 and r.candidates["energy"].k == 2
    assert (r.k, r.semimetric) == (2, "energy")
    assert adjusted_rand_score(np.repeat([0, 1], 200), r.labels) == 1.0
    arb = arbiter_step(r)
    assert arb.rule == "groups without modes" and "not bimodal" in arb.outcome


@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_auto_runs_the_graph_candidate_on_the_engine_that_holds_it(moons, engine):
    """engine='dense' or 'matrix-free' with semimetric='auto': the graph's candidate,
    whose kernel is feature columns, runs on the engine that holds them, and the choice
    says so; energy's candidate keeps the engine asked for."""
    X, y = moons
    for k in (2, "auto"):
        est = KernelKGroups(k, semimetric="auto", engine=engine, random_state=0).fit(X)
        assert est.semimetric_ == NN and est.engine_ == "low-rank"
        assert adjusted_rand_score(y, est.labels_) >= 0.95
        assert f"engine={engine!r} does not hold" in est.semimetric_choice_.reasoning
    est = KernelKGroups(3, semimetric="auto", engine=engine, random_state=0).fit(four_blobs()[0])
    assert est.semimetric_ == "energy" and est.engine_ == engine


def test_auto_with_an_engine_that_runs_neither_candidate_is_refused(moons):
    for k in (2, "auto"):
        with pytest.raises(InvalidParameterError, match="semimetric='auto' chooses between "
                           "'energy' and 'nearest_neighbors'.*engine='sparse' runs neither"):
            KernelKGroups(k, semimetric="auto", engine="sparse").fit(moons[0])


def test_numpy_and_dask_arrays_of_the_same_data_get_the_same_choice(monkeypatch):
    """Past SAMPLE_N rows the choice runs on a sample drawn from the data's own seed, the
    same rows whatever the container and its chunks: the same k, semimetric and reasons."""
    da = pytest.importorskip("dask.array")
    monkeypatch.setattr(core, "SAMPLE_N", 300)
    monkeypatch.setattr("kgroups._choose_k.estimator.SAMPLE_N", 300)
    X = make_moons(1200, noise=0.06, random_state=0)[0]
    for X in (X, np.vstack([X, X[::3]])):      # and with copies of a third of the rows
        ref = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
        for chunks in (250, 700):
            est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(
                da.from_array(X, chunks=(chunks, 2)))
            assert (est.n_clusters_, est.semimetric_) == (ref.n_clusters_, ref.semimetric_)
            ours = [s for s in est.n_clusters_choice_.trace.steps if s.step != "sample"]
            theirs = [s for s in ref.n_clusters_choice_.trace.steps if s.step != "sample"]
            assert render(ours) == render(theirs)
