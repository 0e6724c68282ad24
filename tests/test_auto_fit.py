"""``semimetric="auto"`` at a given k (``kgroups._choose_k.at_k``): both candidates fitted,
the arbiter of kgroups._choose_k.arbiter keeps one; past ``AUTO_SAMPLE_N`` rows the
energy candidate judged on a sample, the graph's fit kept where it wins, the exact
energy fit from the candidate's labels where it loses.

The constants are patched small so that the sampled path runs on a few hundred rows."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import make_blobs, make_moons
from sklearn.metrics import adjusted_rand_score as ari

import kgroups._choose_k.at_k as af
from kgroups import KernelKGroups
from kgroups._choose_k.arbiter import BALANCE, CUT_RATIO
from kgroups._choose_k.trace import Step, render

NN = "nearest_neighbors"
N = 600


@pytest.fixture
def small(monkeypatch):
    """The sampled path past 300 rows: samples of 200 rows (k = 2) or 300 (k = 3)."""
    monkeypatch.setattr(af, "AUTO_SAMPLE_N", 300)
    monkeypatch.setattr(af, "AUTO_SAMPLE_ROWS", 200)
    monkeypatch.setattr(af, "ROWS_PER_CLUSTER", 100)


@pytest.fixture
def spy(monkeypatch):
    """Records the energy candidate (and whether it was sampled) and the start that
    ``_labels`` returns for the exact energy fit."""
    seen = {}
    energy, labels = af._energy, af._labels

    def recording_energy(est, plan, Xv, w, pos, sampled):
        out = energy(est, plan, Xv, w, pos, sampled)
        seen["candidate"], seen["sampled"] = out[0], sampled
        return out

    def recording_labels(cand, k, Xv, pos, sampled):
        seen["start"] = labels(cand, k, Xv, pos, sampled)
        return seen["start"]

    monkeypatch.setattr(af, "_energy", recording_energy)
    monkeypatch.setattr(af, "_labels", recording_labels)
    return seen


def moons(n=N):
    return make_moons(n, noise=0.05, random_state=0)


def blobs(n=N):
    return make_blobs(n, centers=[[0, 0], [6, 0], [3, 5]], cluster_std=0.7, random_state=1)


def arbiter_step(est):
    """The arbiter's step in the choice's reasoning (its last sentence)."""
    text = est.semimetric_choice_.reasoning
    at = text.find("arbiter: normalised cut on the neighbourhood graph = ")
    assert at >= 0 and text.count("arbiter: ") == 1, text
    return text[at:]


def brute_ncut(A, w, labels, k):
    """sum_l cut(C_l) / vol(C_l), with cut(C) = sum_{i in C, j not in C} w_i A_ij w_j and
    vol(C) = sum_{i in C} w_i sum_j A_ij w_j, by loops over the dense adjacency."""
    A = A.toarray()
    total = 0.0
    for c in range(k):
        inside = labels == c
        vol = sum(w[i] * (A[i] @ w) for i in np.flatnonzero(inside))
        cut = sum(w[i] * A[i, j] * w[j] for i in np.flatnonzero(inside)
                  for j in np.flatnonzero(~inside) if A[i, j])
        total += cut / vol if vol > 0 else 0.0
    return total


def test_sample_size():
    assert af.sample_size(2) == af.AUTO_SAMPLE_ROWS
    assert af.sample_size(20) == 20 * af.ROWS_PER_CLUSTER
    assert af.sample_size(10**6) == af.AUTO_SAMPLE_N


def test_moons_keep_the_graph_judged_on_a_sample(small, spy):
    X, y = moons()
    graph = KernelKGroups(2, semimetric=NN, random_state=0).fit(X)
    est = KernelKGroups(2, semimetric="auto", random_state=0).fit(X)
    assert est.semimetric_ == NN and ari(y, est.labels_) >= 0.95
    np.testing.assert_array_equal(est.labels_, graph.labels_)  # the graph's fit, kept
    assert spy["sampled"] and spy["candidate"].Z.shape == (200, 2)
    assert "start" not in spy                                 # rows labelled only for energy
    assert set(est.engine_stats_["auto seconds"]) == {f"{NN} fit", "energy candidate"}
    cut = est.semimetric_choice_.normalized_cut
    assert cut[NN] < CUT_RATIO * cut["energy"]
    assert "the graph's groups cut below" in arbiter_step(est)
    assert "a uniform sample of 200 of the 600 rows" in est.semimetric_choice_.reasoning


def test_blobs_keep_energy_fitted_exactly_from_the_sample_labels(small, spy):
    X, y = blobs()
    est = KernelKGroups(3, semimetric="auto", random_state=0).fit(X)
    assert est.semimetric_ == "energy" and ari(y, est.labels_) >= 0.95
    cand, start = spy["candidate"], spy["start"]
    assert spy["sampled"] and cand.Z.shape == (300, 2)
    # the start is the sample fit's predict of every row: the estimator's predict of a
    # fit of the sample from the candidate's labels (a converged fit, kept as it is)
    sample_fit = KernelKGroups(3, init=cand.fits[3][0]).fit(cand.Z, sample_weight=cand.w)
    np.testing.assert_array_equal(sample_fit.labels_, cand.fits[3][0])
    np.testing.assert_array_equal(start, sample_fit.predict(X))
    # the final fit is a plain exact energy fit from that start
    plain = KernelKGroups(3, init=start, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, plain.labels_)
    assert est.objective_ == plain.objective_
    assert set(est.engine_stats_["auto seconds"]) == {f"{NN} fit", "energy candidate",
                                                      "energy fit"}
    assert est.engine_stats_["seconds"]["other candidates"] > 0


def test_given_init_labels_start_the_candidate_and_the_final_fit(small, spy):
    X, y = blobs()
    est = KernelKGroups(3, semimetric="auto", init=y, random_state=0).fit(X)
    assert est.semimetric_ == "energy" and "start" not in spy
    plain = KernelKGroups(3, init=y, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, plain.labels_)


@pytest.mark.parametrize("sampled", [True, False], ids=["sampled", "exact"])
@pytest.mark.parametrize("make, k, kept", [(moons, 2, NN), (blobs, 3, "energy")],
                         ids=["moons", "blobs"])
def test_integer_weights_are_repeated_rows(monkeypatch, sampled, make, k, kept):
    if sampled:
        monkeypatch.setattr(af, "AUTO_SAMPLE_N", 300)
        monkeypatch.setattr(af, "AUTO_SAMPLE_ROWS", 200)
        monkeypatch.setattr(af, "ROWS_PER_CLUSTER", 100)
    X, y = make(N if sampled else 250)
    w = np.random.default_rng(3).integers(0, 4, X.shape[0])  # zeros: left out
    rep = np.repeat(np.arange(X.shape[0]), w)
    first = np.cumsum(w) - w  # each kept row's first copy in the repeated data
    a = KernelKGroups(k, semimetric="auto", random_state=0).fit(X, sample_weight=w)
    b = KernelKGroups(k, semimetric="auto", random_state=0).fit(X[rep])
    assert a.semimetric_ == b.semimetric_ == kept
    pos = w > 0
    assert ari(a.labels_[pos], b.labels_[first[pos]]) == 1.0
    assert ari(y[pos], a.labels_[pos]) >= 0.95
    assert a.labels_.shape == (X.shape[0],)                   # zero weights labelled too
    np.testing.assert_array_equal(a.labels_[~pos], a.predict(X[~pos]))


def test_below_the_threshold_both_fits_are_exact(spy):
    X, y = blobs(250)
    est = KernelKGroups(3, semimetric="auto", random_state=0).fit(X)
    assert not spy["sampled"] and spy["candidate"].Z.shape == (250, 2)
    energy = KernelKGroups(3, random_state=0).fit(X)
    assert est.semimetric_ == "energy" and ari(est.labels_, energy.labels_) == 1.0
    assert set(est.engine_stats_["auto seconds"]) == {f"{NN} fit", "energy candidate",
                                                      "energy fit"}


def test_the_cuts_are_normalised_cuts_and_the_reasoning_their_step(spy):
    """The cuts the arbiter compared, by brute force on the graph's adjacency (each
    node labelled as its rows), and the reasoning the arbiter's step in words."""
    X, _ = moons(250)
    est = KernelKGroups(2, semimetric="auto", random_state=0).fit(X)
    graph = KernelKGroups(2, semimetric=NN, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, graph.labels_)
    fmap = graph._feature_map
    assert sp.issparse(fmap.graph)
    rows = np.flatnonzero(fmap.node_of_row >= 0)
    cut = est.semimetric_choice_.normalized_cut
    for name, labels in ((NN, graph.labels_), ("energy", spy["candidate"].fits[2][0])):
        lab = np.empty(fmap.nodes.shape[0], dtype=np.int64)
        lab[fmap.node_of_row[rows]] = labels[rows]
        assert cut[name] == pytest.approx(brute_ncut(fmap.graph, fmap.weights, lab, 2),
                                          rel=1e-10)
    assert cut["energy"] > 0 and cut[NN] < CUT_RATIO * cut["energy"]   # the check can fail
    ratio = cut[NN] / cut["energy"]
    assert est.semimetric_choice_.reasoning == render([Step(
        "arbiter", "normalised cut on the neighbourhood graph",
        {"graph's groups": cut[NN], "energy partition of 2": cut["energy"]}, CUT_RATIO,
        f"the graph's groups cut below {CUT_RATIO:g} times the energy partition's",
        "close: the ratio of the cuts is within a factor 1.25 of the threshold"
        if 0.8 <= ratio <= 1.25 else "")])


def test_a_far_small_group_keeps_energy():
    """Three blobs and a far group of 12 points, k = 4: the graph's smallest group
    holds less than BALANCE / 4 of the weight; the energy clusters lie within its
    groups: energy, the far group one cluster."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.5, (200, 2)) for c in ([0, 0], [5, 0], [0, 5])]
                  + [rng.normal([30, 30], 0.3, (12, 2))])
    y = np.repeat([0, 1, 2, 3], [200, 200, 200, 12])
    est = KernelKGroups(4, semimetric="auto", random_state=0).fit(X)
    assert est.semimetric_ == "energy" and ari(y, est.labels_) == 1.0
    assert f"below {BALANCE:g} / 4: the graph sets a small part apart" in arbiter_step(est)


def test_few_distinct_rows_keep_energy_and_say_why():
    X = np.repeat(np.random.default_rng(0).normal(size=(6, 2)) * 5, 10, axis=0)
    est = KernelKGroups(2, semimetric="auto", random_state=0).fit(X)
    choice = est.semimetric_choice_
    assert est.semimetric_ == choice.semimetric == "energy" and choice.normalized_cut == {}
    assert "6 distinct row(s)" in choice.reasoning and "n_neighbors=10" in choice.reasoning
    assert set(est.engine_stats_["auto seconds"]) == {"energy fit"}


def test_verbose_says_each_phase(small, capsys):
    X, _ = blobs()
    KernelKGroups(3, semimetric="auto", random_state=0, verbose=1).fit(X)
    out = capsys.readouterr().out
    phases = [f"auto: fitting semimetric='{NN}'", f"auto: {NN} fit done in",
              "auto: fitting semimetric='energy' on a sample",
              "auto: energy candidate done in", "auto: the exact energy fit of every row",
              "auto: energy fit done in", "auto: kept semimetric='energy'"]
    at = [out.find(p) for p in phases]
    assert -1 not in at and at == sorted(at), out
