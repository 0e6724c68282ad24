"""choose_k's method="silhouette+gap" (the default before "silhouette+split"): its
decision rule on hand-made curves, its pieces against their plain definitions, and its
answers on a real table (raw wine), on data without structure and on the cases that
shaped it."""

import numpy as np
import pytest

from kgroups import KernelKGroups, choose_k
from kgroups._choose_k.methods import (
    _reference_sampler,
    _rho_matrix,
    _Sample,
    _silhouette_curve,
    reference_sample,
    standardize,
)
from kgroups._choose_k.rules import (
    SILHOUETTE_KEEP,
    decide_fallback,
    decide_silhouette_gap,
    structure_z,
)
from kgroups._semimetrics import pairwise
from kgroups._validation import InvalidParameterError

SG = "silhouette+gap"  # the default before "silhouette+split", a method of its own
PARAMS = {"semimetric": "energy", "alpha": 1.0, "sigma": 1.0, "theta": 1.0, "engine": "auto",
          "estimator": KernelKGroups}
KS = np.arange(1, 6)


def blobs(rng, centres, sd, n_per):
    return np.vstack([rng.normal(c, sd, (n_per, len(c))) for c in centres])


# --------------------------------------------------------------------------- the rule
def _refs(gains):
    """log W*_kb of 4 references whose gain over k = 1 has sd 0.1 / sqrt(1.25) * ...:
    log W*_1b = 0 and log W*_kb = -gain_k + (-0.1, 0.1, -0.1, 0.1), so sd_b = 0.1 and
    sigma_k = 0.1 * sqrt(1 + 1/4) for every k > 1."""
    jitter = np.array([-0.1, 0.1, -0.1, 0.1])[:, None]
    ref = -np.asarray(gains)[None, :] + jitter
    ref[:, 0] = 0.0
    return ref


SIGMA = 0.1 * np.sqrt(1.25)
REF = _refs([0.0, 1.0, 1.5, 2.0, 2.5])


def test_structure_z_is_the_gain_in_standard_errors():
    gap = np.array([0.2, 0.3, 0.9, 0.5, 0.2])
    np.testing.assert_allclose(structure_z(gap, REF)[1:], (gap[1:] - 0.2) / SIGMA)
    assert structure_z(gap, REF)[0] == 0.0


def test_no_k_above_three_standard_errors_is_no_structure():
    gap = np.array([0.0, 0.3, 0.33, 0.2, 0.1])            # z = 2.7, 2.95, 1.8, 0.9
    i, why = decide_silhouette_gap(KS, gap, np.full(5, 0.02), REF,
                                   np.array([np.nan, 0.9, 0.9, 0.9, 0.9]))
    assert i is None and "no k > 1" in why and "k=3: 3.0" in why   # 2.95 rounds to 3.0


def test_silhouette_picks_among_the_structured_k():
    # z: k=2 8.9, k=3 17.9, k=4 0.9, k=5 26.8 -> candidates 2, 3, 5
    gap = np.array([0.0, 1.0, 2.0, 0.1, 3.0])
    se = np.full(5, 0.05)
    sil = np.array([np.nan, 0.5, 0.7, 0.99, 0.3])          # 4 best but not structured
    i, why = decide_silhouette_gap(KS, gap, se, REF, sil)
    # globalSEmax among 2, 3, 5: k=5 (3.0) is finer but 0.3 < 0.8 * 0.7 = 0.56
    assert KS[i] == 3 and "[2, 3, 5]" in why and "would go on to k=5" in why


def test_a_finer_level_that_keeps_the_silhouette_wins():
    gap = np.array([0.0, 1.0, 1.2, 2.0, 1.9])
    se = np.full(5, 0.05)
    sil = np.array([np.nan, 0.90, 0.5, 0.73, 0.6])        # 0.73 >= 0.8 * 0.90 = 0.72
    i, why = decide_silhouette_gap(KS, gap, se, REF, sil)
    assert KS[i] == 4 and "finer level" in why
    sil[3] = 0.71                                          # below 0.72: the silhouette's k
    i, _ = decide_silhouette_gap(KS, gap, se, REF, sil)
    assert KS[i] == 2
    assert SILHOUETTE_KEEP == 0.8


def test_fallback_rule_is_first_se_max_among_the_structured_k():
    gap = np.array([0.0, 0.2, 1.0, 0.95, 1.3])            # z: 1.8, 8.9, 8.5, 11.6
    se = np.array([0.01, 0.01, 0.05, 0.05, 0.05])
    j, why = decide_fallback(KS, gap, se, REF)
    # candidates 3, 4, 5; first local maximum 3 (1.0 >= 0.95); smallest within 0.05: 3
    assert KS[j] == 3 and "'firstSEmax'" in why
    j, why = decide_fallback(KS, np.zeros(5), se, REF)
    assert j is None and "no k > 1" in why


# --------------------------------------------------------------------------- pieces
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0])
def test_rho_matrix_is_the_energy_semimetric(alpha):
    """The product form of ||x - y||^alpha against the plain definition, on data far
    from the origin (centring keeps the rounding small)."""
    X = np.random.default_rng(0).normal(size=(40, 3)) + 1e3
    brute = np.linalg.norm(X[:, None] - X[None], axis=2) ** alpha
    np.testing.assert_allclose(_rho_matrix(X, {**PARAMS, "alpha": alpha}), brute,
                               rtol=1e-7, atol=1e-7)
    D = _rho_matrix(X, {**PARAMS, "semimetric": "gaussian", "sigma": 2.0})
    np.testing.assert_allclose(D, pairwise(X, semimetric="gaussian", sigma=2.0))


@pytest.mark.parametrize("kind", ["pca", "moments", "box"])
def test_reference_sampler_draws_what_reference_sample_draws(kind):
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3)) @ np.array([[3.0, 1.0, 0.0], [0.0, 1.0, 0.0],
                                               [0.0, 0.0, 0.2]])
    w = rng.uniform(0.5, 2.0, 200)
    a = _reference_sampler(X, w, kind)(np.random.default_rng(5))
    b = reference_sample(X, w, kind, np.random.default_rng(5))
    np.testing.assert_allclose(a, b, atol=1e-12)


def test_silhouette_from_the_matrix_is_the_block_silhouette():
    rng = np.random.default_rng(2)
    X = blobs(rng, ([0.0, 0.0], [5.0, 0.0], [0.0, 5.0]), 1.0, 20)
    w = rng.uniform(0.5, 2.0, 60)
    ks = np.array([1, 2, 3, 4])
    dense, rows = _Sample(X, w, PARAMS, True), _Sample(X, w, PARAMS, False)
    labels = [KernelKGroups(int(k), n_init=2, random_state=0).fit(X, sample_weight=w).labels_
              for k in ks]
    a, b = dense.silhouette(ks, labels), rows.silhouette(ks, labels)
    np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(a, _silhouette_curve(X, w, ks, labels, {
        p: PARAMS[p] for p in ("semimetric", "alpha", "sigma", "theta")}), rtol=1e-10)
    assert np.isnan(a[0])


def test_one_cluster_needs_no_fit():
    """W_1 from the matrix is the within energy of KernelKGroups(1), weighted."""
    rng = np.random.default_rng(9)
    X, w = rng.normal(size=(50, 3)), rng.uniform(0.5, 2.0, 50)
    W, labels = _Sample(X, w, PARAMS, True).within(np.array([1, 2]), 1, rng)
    fit = KernelKGroups(1).fit(X, sample_weight=w)
    assert W[0] == pytest.approx(fit.within_energy_, rel=1e-12)
    assert np.all(labels[0] == 0) and W[1] < W[0]


def test_standardize_scales_every_column_and_drops_constant_ones():
    rng = np.random.default_rng(3)
    X = np.column_stack([rng.normal(5.0, 3.0, 100), np.full(100, 2.0), rng.normal(0, 0.1, 100)])
    w = rng.uniform(0.5, 2.0, 100)
    Z = standardize(X, w)
    assert Z.shape == (100, 2)
    np.testing.assert_allclose(w @ Z / w.sum(), 0.0, atol=1e-12)
    np.testing.assert_allclose(w @ Z ** 2 / w.sum(), 1.0, rtol=1e-12)


# --------------------------------------------------------------------------- answers
def test_raw_wine_is_three_found_with_standardized_columns():
    """Raw wine: proline (in mg/l, sd 315) drowns the other twelve columns, and in
    X's geometry no k beats the reference samples; with every column at unit
    variance the three cultivars stand out."""
    from sklearn.datasets import load_wine
    from sklearn.metrics import adjusted_rand_score

    X, y = load_wine(return_X_y=True)
    r = choose_k(X, method=SG, random_state=0)
    assert r.k == 3 and r.geometry == "standardized" and r.standardized.k == 3
    assert r.sphered is None                                   # not needed
    assert np.all(r.structure_z[1:] < 3.0) and r.standardized.structure_z[2] > 3.0
    assert "X standardized" in r.reasoning and "k=3" in r.reasoning
    assert adjusted_rand_score(y, r.labels) > 0.8               # the standardized fit's labels


@pytest.mark.parametrize("name", ["gaussian", "gaussian 6x1 rotated", "uniform 3x1",
                                  "student t3"])
def test_one_cluster_without_structure(name):
    rng = np.random.default_rng(40)
    Q = np.linalg.qr(rng.normal(size=(2, 2)))[0]
    X = {"gaussian": lambda: rng.normal(size=(300, 2)),
         "gaussian 6x1 rotated": lambda: rng.normal(size=(300, 2)) * [6.0, 1.0] @ Q.T,
         "uniform 3x1": lambda: rng.random((300, 2)) * [3.0, 1.0],
         "student t3": lambda: rng.standard_t(3, (300, 2))}[name]()
    r = choose_k(X, range(1, 7), method=SG, random_state=0)
    assert r.k == 1 and r.geometry == "data" and np.all(r.labels == 0)
    assert r.sphered is not None and r.sphered.k == 1
    assert r.reasoning.endswith("No structure: k=1.")


def test_blobs_grid_and_clusters_within_clusters():
    from sklearn.datasets import make_blobs

    rng = np.random.default_rng(0)
    grid = np.vstack([rng.normal([4.0 * i, 4.0 * j], 0.5, (40, 2))
                      for i in range(4) for j in range(2)])
    assert choose_k(grid, range(1, 11), method=SG, random_state=0).k == 8
    assert choose_k(make_blobs(300, 2, centers=4, random_state=0)[0], method=SG,
                    random_state=0).k == 4
    # two groups 40 apart of two blobs 5 apart: the silhouette prefers the 2 groups,
    # the gap the 4 blobs, whose silhouette keeps 0.8 of the groups'
    nested = np.vstack([rng.normal([40.0 * g + 5.0 * (s - 0.5), 0.0], 0.7, (40, 2))
                        for g in range(2) for s in range(2)])
    r = choose_k(nested, range(1, 8), method=SG, random_state=0)
    assert r.k == 4 and "finer level" in r.reasoning
    assert r.silhouette[1] == np.nanmax(r.silhouette)         # the silhouette alone: 2


def test_parallel_elongated_clusters_show_with_standardized_columns():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(150, 2)) * [6.0, 0.5] + [0.0, 4.0 * j] for j in (0, 1)])
    r = choose_k(X, range(1, 11), method=SG, random_state=0)
    assert r.k == 2 and r.geometry == "standardized"
    truth = np.repeat([0, 1], 150)
    assert len(set(zip(r.labels.tolist(), truth.tolist()))) == 2


def test_rescaled_geometries_only_where_they_can_help():
    X = np.random.default_rng(10).normal(size=(120, 2)) * [3.0, 1.0]
    r = choose_k(X, range(1, 4), semimetric="gaussian", sigma=3.0, n_refs=3, method=SG,
                 random_state=0)
    assert r.k == 1 and r.standardized is None and r.sphered is None
    assert "X standardized is not tried: semimetric='gaussian'" in r.reasoning
    assert "which rescaling changes" in r.reasoning
    r = choose_k(X[:, 0], range(1, 4), n_refs=3, method=SG, random_state=0)    # one column
    assert r.k == 1 and r.standardized is None and r.sphered is None
    assert "already have equal variances" in r.reasoning and "one axis" in r.reasoning


def test_without_k_one_the_silhouette_decides():
    X = blobs(np.random.default_rng(4), ([0.0, 0.0], [8.0, 0.0], [0.0, 8.0]), 0.7, 20)
    r = choose_k(X, range(2, 6), method=SG, random_state=0, n_refs=3)
    assert r.k == 3 and r.structure_z is None and "no structure test" in r.reasoning


def test_rule_is_fixed():
    X = np.random.default_rng(6).normal(size=(30, 2))
    with pytest.raises(InvalidParameterError, match="rule='globalmax' applies to method"):
        choose_k(X, range(1, 3), method=SG, rule="globalmax")


def test_plot_shows_the_curves_that_decided():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rng = np.random.default_rng(7)
    X = np.vstack([rng.normal(size=(100, 2)) * [6.0, 0.5] + [0.0, 4.0 * j] for j in (0, 1)])
    r = choose_k(X, range(1, 5), n_refs=4, method=SG, random_state=0)
    assert r.geometry == "standardized"
    axes = r.plot()
    assert [ax.get_title() for ax in axes] == [
        "gap (globalSEmax)", "structure", "silhouette", "X standardized: gap (firstSEmax)",
        "X standardized: structure"]
    assert "3 s.e." in axes[1].get_legend_handles_labels()[1]
    for ax in axes:
        assert f"chosen k = {r.k}" in ax.get_legend_handles_labels()[1]
    text = " ".join(t.get_text() for t in axes[0].figure.texts).replace("\n", " ")
    assert text == r.reasoning
    plt.close("all")
