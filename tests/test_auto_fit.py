"""``semimetric="auto"`` past ``AUTO_SAMPLE_N`` rows (``kgroups._auto_fit``): the energy
candidate judged on a sample, the graph's fit kept where it wins, the exact energy
fit from the sample's labels where it loses; below, both candidates fitted exactly.

The constants are patched small so that the sampled path runs on a few hundred rows."""

import numpy as np
import pytest
from sklearn.datasets import make_blobs, make_moons
from sklearn.metrics import adjusted_rand_score as ari

import kgroups._auto_fit as af
from kgroups import KernelKGroups

NN = "nearest_neighbors"
N = 600


@pytest.fixture
def small(monkeypatch):
    """The sampled path past 300 rows: samples of 200 rows (k = 2) or 300 (k = 3),
    128-row blocks."""
    monkeypatch.setattr(af, "AUTO_SAMPLE_N", 300)
    monkeypatch.setattr(af, "AUTO_SAMPLE_ROWS", 200)
    monkeypatch.setattr(af, "ROWS_PER_CLUSTER", 100)
    monkeypatch.setattr(af, "PREDICT_ROWS", 128)


@pytest.fixture
def spy(monkeypatch):
    """Records the sample fit and the start that ``_predict_all`` returns."""
    seen = {}
    real = af._predict_all

    def recording(sample, Xv, progress, seconds):
        seen["sample"], seen["start"] = sample, real(sample, Xv, progress, seconds)
        return seen["start"]

    monkeypatch.setattr(af, "_predict_all", recording)
    return seen


def moons(n=N):
    return make_moons(n, noise=0.05, random_state=0)


def blobs(n=N):
    return make_blobs(n, centers=[[0, 0], [6, 0], [3, 5]], cluster_std=0.7, random_state=1)


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
    assert "uniform sample of 200 of the 600 rows" in est.semimetric_choice_.reasoning
    assert set(est.engine_stats_["auto seconds"]) == {
        f"{NN} fit", "energy sample fit", "predict (graph nodes)", "cuts"}
    assert "start" not in spy  # rows are labelled only when energy wins
    cut = est.semimetric_choice_.normalized_cut
    assert cut[NN] < 0.5 * cut["energy"]


def test_blobs_keep_energy_fitted_exactly_from_the_sample_labels(small, spy):
    X, y = blobs()
    est = KernelKGroups(3, semimetric="auto", random_state=0).fit(X)
    assert est.semimetric_ == "energy" and ari(y, est.labels_) >= 0.95
    sample, start = spy["sample"], spy["start"]
    assert sample.labels_.shape == (300,) and sample.semimetric_ == "energy"
    # the start is the sample fit's predict of every row (here in 128-row blocks)
    np.testing.assert_array_equal(start, sample.predict(X))
    # the final fit is a plain exact energy fit from that start
    plain = KernelKGroups(3, init=start, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, plain.labels_)
    assert est.objective_ == plain.objective_ and est.n_init_ == 1
    assert "started from the sample fit's predict" in est.semimetric_choice_.reasoning
    assert {"predict (every row)", "energy fit"} <= set(est.engine_stats_["auto seconds"])
    assert est.engine_stats_["seconds"]["other candidates"] > 0


def test_given_init_labels_start_the_sample_and_the_final_fit(small, spy):
    X, y = blobs()
    est = KernelKGroups(3, semimetric="auto", init=y, random_state=0).fit(X)
    assert est.semimetric_ == "energy" and "start" not in spy
    plain = KernelKGroups(3, init=y, random_state=0).fit(X)
    np.testing.assert_array_equal(est.labels_, plain.labels_)
    assert "from the given init labels" in est.semimetric_choice_.reasoning


@pytest.mark.parametrize("make, k, kept", [(moons, 2, NN), (blobs, 3, "energy")],
                         ids=["moons", "blobs"])
def test_integer_weights_are_repeated_rows(small, make, k, kept):
    X, y = make()
    w = np.random.default_rng(3).integers(0, 4, X.shape[0])  # zeros: left out
    rep = np.repeat(np.arange(X.shape[0]), w)
    first = np.cumsum(w) - w  # each kept row's first copy in the repeated data
    a = KernelKGroups(k, semimetric="auto", random_state=0).fit(X, sample_weight=w)
    b = KernelKGroups(k, semimetric="auto", random_state=0).fit(X[rep])
    assert a.semimetric_ == b.semimetric_ == kept
    assert "uniform sample of" in a.semimetric_choice_.reasoning
    pos = w > 0
    assert ari(a.labels_[pos], b.labels_[first[pos]]) == 1.0
    assert ari(y[pos], a.labels_[pos]) >= 0.95


def test_below_the_threshold_both_fits_are_exact(small):
    X, _ = blobs(250)
    est = KernelKGroups(3, semimetric="auto", random_state=0).fit(X)
    energy = KernelKGroups(3, random_state=0).fit(X)
    assert est.semimetric_ == "energy" and "sample" not in est.semimetric_choice_.reasoning
    np.testing.assert_array_equal(est.labels_, energy.labels_)
    assert set(est.engine_stats_["auto seconds"]) == {f"{NN} fit", "energy fit", "cuts"}


def test_verbose_says_each_phase(small, capsys):
    X, _ = blobs()
    KernelKGroups(3, semimetric="auto", random_state=0, verbose=1).fit(X)
    out = capsys.readouterr().out
    phases = [f"auto: {NN} fit done in", "auto: energy sample fit done in",
              "auto: predict (graph nodes) done in", "auto: cuts done in",
              "auto: 600/600 rows labelled", "auto: predict (every row) done in",
              "auto: energy fit done in", "auto: kept semimetric='energy'"]
    at = [out.find(p) for p in phases]
    assert -1 not in at and at == sorted(at), out
    assert "on a uniform sample of 300 of the 600 rows" in out


def test_memory_is_checked_before_the_sample(small, monkeypatch):
    real = af.check_fits
    monkeypatch.setattr(af, "check_fits",
                        lambda nbytes, what, alt: real(nbytes * 2**50, what, alt))
    with pytest.raises(ValueError, match="semimetric='auto' on n=600 rows.*use "
                                         "semimetric='nearest_neighbors' or 'energy'"):
        KernelKGroups(2, semimetric="auto", random_state=0).fit(moons()[0])
