"""choose_k: the gap statistic over W and the eigengap of the energy kernel's Laplacian."""

import numpy as np
import pytest

from kgroups import ChooseKResult, KernelKGroups, choose_k
from kgroups._choose_k import gap_rule, reference_sample
from kgroups._validation import InvalidParameterError


def blobs(rng, centres, sd, n_per):
    return np.vstack([rng.normal(c, sd, (n_per, len(c))) for c in centres])


THREE = ([0.0, 0.0], [8.0, 0.0], [0.0, 8.0])


# --------------------------------------------------------------------------- gap
@pytest.mark.parametrize("reference", ["pca", "box"])
def test_gap_picks_three_separated_blobs(reference):
    X = blobs(np.random.default_rng(0), THREE, 0.7, 40)
    r = choose_k(X, range(1, 7), reference=reference, random_state=0)
    assert r.k == 3 and r.method == "gap"
    assert r.k_values.tolist() == [1, 2, 3, 4, 5, 6]
    assert r.labels.shape == (120,) and np.bincount(r.labels).tolist() == [40, 40, 40]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_gap_picks_one_on_a_single_gaussian(seed):
    X = np.random.default_rng(seed).normal(size=(150, 2))
    assert choose_k(X, range(1, 7), random_state=seed).k == 1


def test_gap_curve_and_se_follow_the_formulas():
    X = blobs(np.random.default_rng(3), THREE, 1.0, 30)
    r = choose_k(X, range(1, 6), n_refs=7, random_state=1)
    assert r.ref_log_w.shape == (7, 5)
    l_bar = r.ref_log_w.sum(axis=0) / 7
    sd = np.sqrt(((r.ref_log_w - l_bar) ** 2).sum(axis=0) / 7)     # divisor B, as the paper
    np.testing.assert_allclose(r.values, l_bar - np.log(r.within_energy), rtol=1e-12)
    np.testing.assert_allclose(r.se, sd * np.sqrt(1 + 1 / 7), rtol=1e-12)
    first = next(i for i in range(4) if r.values[i] >= r.values[i + 1] - r.se[i + 1])
    assert r.k == r.k_values[first]


def test_one_se_rule_by_hand():
    # Gap(1)=0.1 < Gap(2)-s2=0.45; Gap(2)=0.5 >= Gap(3)-s3=0.5 -> k=2
    assert gap_rule(np.array([0.1, 0.5, 0.6, 0.7]), np.array([0.1, 0.05, 0.1, 0.1])) == 1
    # increasing by more than s at every step: the last k
    assert gap_rule(np.array([0.1, 0.5, 0.9]), np.array([0.01, 0.01, 0.01])) == 2


def test_within_energy_is_that_of_the_labels():
    rng = np.random.default_rng(4)
    X = blobs(rng, THREE + ([8.0, 8.0],), 1.5, 25)
    r = choose_k(X, range(1, 8), n_refs=2, random_state=0)
    # W of the returned labels, by brute force: sum_j (1 / 2 n_j) sum_{x,y in C_j} |x - y|
    D = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)
    brute = sum(D[np.ix_(r.labels == j, r.labels == j)].sum() / (2 * (r.labels == j).sum())
                for j in range(r.k))
    assert r.within_energy[r.k_values == r.k][0] == pytest.approx(brute, rel=1e-10)


def test_same_seed_same_result_and_one_restart_works():
    X = blobs(np.random.default_rng(5), THREE, 0.7, 30)
    a = choose_k(X, range(1, 6), n_init=1, random_state=0)
    b = choose_k(X, range(1, 6), n_init=1, random_state=0)
    assert a.k == 3 and np.array_equal(a.values, b.values)


def test_alpha_two_is_the_classical_gap_statistic():
    """W with alpha=2 is k-means' within sum of squares (exactly), so the curve is
    Tibshirani et al.'s: compare with KMeans on independent reference draws."""
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(6)
    X = blobs(rng, THREE, 1.0, 30)
    ks = range(1, 6)
    B = 10
    r = choose_k(X, ks, alpha=2.0, n_refs=B, random_state=0)
    inertia = np.array([KMeans(k, n_init=10, random_state=0).fit(X).inertia_ for k in ks])
    np.testing.assert_allclose(r.within_energy[:3], inertia[:3], rtol=1e-9)  # k <= 3: optimum
    assert np.all(r.within_energy <= inertia * 1.01)
    # the classical gap, written independently: PCA-box references, KMeans, log W
    m = X.mean(0)
    V = np.linalg.svd(X - m)[2].T
    Z = (X - m) @ V
    ref = np.empty((B, len(ks)))
    for b in range(B):
        R = (Z.min(0) + rng.random(Z.shape) * np.ptp(Z, 0)) @ V.T + m
        ref[b] = np.log([KMeans(k, n_init=3, random_state=0).fit(R).inertia_ for k in ks])
    gap = ref.mean(0) - np.log(inertia)
    sd = ref.std(0)
    # two independent means of B draws differ by about sd * sqrt(2 / B): allow 4 of those
    assert np.all(np.abs(r.values - gap) <= 4 * sd * np.sqrt(2 / B) + 0.01)
    assert r.k == 3 and gap_rule(gap, sd * np.sqrt(1 + 1 / B)) == 2


@pytest.mark.parametrize("kind", ["box", "pca"])
def test_reference_samples_fill_the_right_box(kind):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 2)) @ np.array([[3.0, 1.0], [0.0, 0.3]]) + 5.0
    w = np.ones(400)
    R = reference_sample(X, w, kind, rng)
    if kind == "box":
        assert np.all(R >= X.min(0)) and np.all(R <= X.max(0))
    else:  # inside the box of the principal-axis coordinates, and filling it
        V = np.linalg.svd(X - X.mean(0))[2].T
        Z, ZR = (X - X.mean(0)) @ V, (R - X.mean(0)) @ V
        assert np.all(ZR >= Z.min(0) - 1e-9) and np.all(ZR <= Z.max(0) + 1e-9)
        assert np.all(np.ptp(ZR, 0) > 0.9 * np.ptp(Z, 0))


# --------------------------------------------------------------------------- eigengap
@pytest.mark.parametrize("params", [{}, {"semimetric": "gaussian", "sigma": 2.0}])
def test_eigengap_picks_separated_blobs(params):
    X = blobs(np.random.default_rng(8), THREE, 0.5, 40)
    r = choose_k(X, method="eigengap", **params)
    assert r.k == 3 and r.method == "eigengap" and r.k_values[0] == 2
    assert r.se is None and r.labels is None and r.eigenvalues.shape == (11,)


def test_eigenvalues_are_those_of_the_random_walk_laplacian():
    rng = np.random.default_rng(9)
    X = blobs(rng, THREE, 1.0, 15)
    r = choose_k(X, range(1, 6), method="eigengap")
    x0 = X.mean(0)
    rho = lambda a, b: np.linalg.norm(a - b)  # noqa: E731
    G = np.array([[0.5 * (rho(a, x0) + rho(b, x0) - rho(a, b)) for b in X] for a in X])
    L = np.eye(len(X)) - G / G.sum(1)[:, None]                  # I - D^-1 G
    lam = np.sort(np.linalg.eigvals(L).real)[:6]
    np.testing.assert_allclose(r.eigenvalues, lam, atol=1e-10)
    np.testing.assert_allclose(r.values, lam[1:] - lam[:-1], atol=1e-10)
    assert r.k == r.k_values[np.argmax(lam[1:] - lam[:-1])]


def test_eigengap_integer_weights_are_repeated_rows():
    rng = np.random.default_rng(10)
    X = blobs(rng, THREE, 1.0, 10)
    w = rng.integers(1, 4, len(X))
    a = choose_k(X, range(1, 5), method="eigengap", sample_weight=w)
    b = choose_k(np.repeat(X, w, axis=0), range(1, 5), method="eigengap")
    np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, atol=1e-10)


def test_eigengap_needs_positive_degrees():
    X = np.random.default_rng(11).normal(size=(30, 2))
    with pytest.raises(InvalidParameterError, match="positive degrees.*alpha=2.0"):
        choose_k(X, method="eigengap", alpha=2.0)


# --------------------------------------------------------------------------- errors
@pytest.mark.parametrize("k_range, match", [
    ([0, 1, 2], "integers >= 1; got 0"),
    ([1, 2.5], "got 2.5"),
    ([1, "3"], "got '3'"),
    ([], "non-empty"),
    ([2, 2, 3], "repeated"),
    (range(1, 31), "k < 20"),
])
def test_bad_k_range(k_range, match):
    X = np.random.default_rng(12).normal(size=(20, 2))
    with pytest.raises(InvalidParameterError, match=f"choose_k: .*{match}"):
        choose_k(X, k_range)


def test_k_range_against_duplicate_rows_and_eigengap_size():
    X = np.repeat(np.arange(4.0)[:, None], 5, axis=0)           # 20 rows, 4 distinct
    with pytest.raises(InvalidParameterError, match="4 distinct rows"):
        choose_k(X, range(1, 5))
    assert choose_k(X, range(1, 4), random_state=0).k_values.tolist() == [1, 2, 3]
    with pytest.raises(InvalidParameterError, match="k <= n_samples - 1 = 19"):
        choose_k(np.random.default_rng(0).normal(size=(20, 2)), range(2, 21), method="eigengap")


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "bic"}, "method='bic' should be one of"),
    ({"n_refs": 0}, "n_refs=0 should be an integer >= 1"),
    ({"reference": "uniform"}, "reference='uniform'"),
    ({"semimetric": "precomputed"}, "semimetric='precomputed'"),
    ({"alpha": 3.0}, "alpha=3.0"),
    ({"n_init": 0}, "n_init=0 should be an integer >= 1"),
    ({"sample_weight": -1.0}, "should be"),
    ({"bogus": 1}, "unexpected keyword|got an unexpected"),
])
def test_bad_parameters_name_the_parameter(kwargs, match):
    X = np.random.default_rng(13).normal(size=(20, 2))
    with pytest.raises(InvalidParameterError, match=match):
        choose_k(X, range(1, 3), **kwargs)


def test_bad_data():
    with pytest.raises(InvalidParameterError, match="choose_k: X contains NaN"):
        choose_k([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]], [1, 2])
    with pytest.raises(InvalidParameterError, match="at least 2 row"):
        choose_k([[0.0, 1.0]], [1])


def test_default_range_is_cut_to_the_data():
    X = np.random.default_rng(14).normal(size=(6, 2))
    assert choose_k(X, random_state=0).k_values.tolist() == [1, 2, 3, 4, 5]
    assert choose_k(X, method="eigengap").k_values.tolist() == [2, 3, 4, 5]


def test_fits_go_through_kernel_kgroups(monkeypatch):
    calls = []
    fit = KernelKGroups.fit

    def spy(self, X, y=None, sample_weight=None):
        calls.append(self.n_clusters)
        return fit(self, X, y, sample_weight)

    monkeypatch.setattr(KernelKGroups, "fit", spy)
    X = blobs(np.random.default_rng(15), THREE, 0.7, 10)
    choose_k(X, range(1, 4), n_refs=2, random_state=0)
    assert set(calls) == {1, 2, 3}


# --------------------------------------------------------------------------- plot
@pytest.mark.parametrize("method", ["gap", "eigengap"])
def test_plot_with_agg(method):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X = blobs(np.random.default_rng(16), THREE, 0.7, 15)
    r = choose_k(X, range(2, 5), method=method, n_refs=2, random_state=0)
    assert isinstance(r, ChooseKResult)
    fig, ax = plt.subplots()
    assert r.plot(ax) is ax
    assert ax.get_xlabel() == "k" and f"chosen k = {r.k}" in ax.get_legend_handles_labels()[1]
    plt.close("all")


def test_lanczos_and_dense_eigensolvers_agree(monkeypatch):
    import kgroups._choose_k as ck

    X = blobs(np.random.default_rng(17), THREE, 1.0, 20)
    dense = choose_k(X, range(2, 6), method="eigengap")
    monkeypatch.setattr(ck, "DENSE_EIGEN_MAX_N", 10)             # force eigsh
    lanczos = choose_k(X, range(2, 6), method="eigengap")
    np.testing.assert_allclose(lanczos.eigenvalues, dense.eigenvalues, atol=1e-8)
    assert lanczos.k == dense.k
