"""Numbers at the edges of floating point (issue 27): distances that keep their digits
(an outlier far away, data near 1e-300 or 1e150, translated data), weights of any
scale, subnormal data, and engines refusing a semimetric they cannot represent."""

import warnings

import numpy as np
import pytest

from kgroups import KernelKGroups, KernelKMeans, improving_moves, pairwise, within_energy
from kgroups import datasets

ORDINARY = np.vstack([np.random.default_rng(0).normal(0, 1, (100, 2)),
                      np.random.default_rng(1).normal(4, 1, (100, 2))])


def difference_matrix(X):
    """The Euclidean distances by direct differences, in extended precision."""
    Xl = X.astype(np.longdouble)
    return np.sqrt(((Xl[:, None] - Xl[None]) ** 2).sum(-1))


@pytest.mark.parametrize("far", [1e20, 1e100, 1e150])
@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_an_outlier_does_not_cost_the_ordinary_points_their_digits(far, engine):
    """Same start: the labels of a fit on the semimetric matrix computed by direct
    differences, and W within 1e-10 of that reference (before the centre became the
    median, W came out 38% low at 1e20)."""
    X = np.vstack([ORDINARY, [[far, -far]]])
    start = np.r_[np.random.default_rng(2).integers(0, 2, 200), 2]
    D = difference_matrix(X)
    ref = KernelKGroups(3, semimetric="precomputed", init=start).fit(
        np.asarray(D / far, dtype=np.float64))  # scaled: the sums of D stay finite
    got = KernelKGroups(3, engine=engine, init=start).fit(X)
    np.testing.assert_array_equal(got.labels_, ref.labels_)
    assert got.within_energy_ == pytest.approx(ref.within_energy_ * far, rel=1e-10)
    assert within_energy(X, got.labels_) == pytest.approx(got.within_energy_, rel=1e-10)


@pytest.mark.parametrize("gap", [1e6, 1e12, 1e15])
@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_tight_groups_far_apart_keep_their_digits(gap, engine):
    """Three tight groups, one at the origin and two ``gap`` away: the engines that
    keep only the centred data (matrix-free) difference centred coordinates, so
    centring must be exact (an inexact centre between the groups would leave W of
    the far groups wrong in the fifth digit at 1e12). Default start: W equals the
    direct-difference reference to 1e-10 and no single move lowers the reference W."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 1, (60, 2)), rng.normal(0, 1, (60, 2)) + gap,
                   rng.normal(0, 1, (60, 2)) + [gap, 3.0]])
    D = difference_matrix(X)
    got = KernelKGroups(3, engine=engine, random_state=0).fit(X)
    W = 0.0
    for j in range(3):
        m = got.labels_ == j
        W += float(D[np.ix_(m, m)].sum()) / (2 * m.sum())
    assert got.within_energy_ == pytest.approx(W, rel=1e-10)
    assert improving_moves(np.asarray(D, dtype=np.float64), got.labels_,
                           semimetric="precomputed") == 0


@pytest.mark.parametrize("cls", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_a_random_start_across_far_groups_leaves_no_rounding_in_w(cls, engine):
    """A random start mixes groups 1e12 apart: the sums of M begin as sums of 1e12-sized
    distances and end as sums of distances near 1, so their updates' rounding would
    make W wrong in the fifth digit; the run's M is rebuilt (one more sweep, on exact
    sums) and W equals the direct-difference reference to 1e-10."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(0, 1, (60, 2)), rng.normal(0, 1, (60, 2)) + 1e12,
                   rng.normal(0, 1, (60, 2)) + [1e12, 3.0]])
    start = rng.integers(0, 3, 180)
    D = difference_matrix(X)
    got = cls(3, engine=engine, init=start).fit(X)
    W = 0.0
    for j in range(3):
        m = got.labels_ == j
        W += float(D[np.ix_(m, m)].sum()) / (2 * m.sum())
    assert got.within_energy_ == pytest.approx(W, rel=1e-10)
    if cls is KernelKGroups:
        assert improving_moves(np.asarray(D, dtype=np.float64), got.labels_,
                               semimetric="precomputed") == 0


def test_ordinary_data_keeps_its_m():
    """The bound of the rounding in M stays far below the rebuild threshold on
    overlapping blobs (no extra pass): the sweeps end with one sweep of no move."""
    from sklearn.datasets import make_blobs

    X, _ = make_blobs(3000, 5, centers=5, cluster_std=2.5, random_state=0)
    est = KernelKGroups(5, init="random", n_init=1, random_state=0).fit(X)
    assert est.n_moves_[-1] == 0 and est.n_moves_[-2] > 0


@pytest.mark.parametrize("far", [1.0, 1e12, 1e20, 1e100, 1e150])
def test_pairwise_keeps_every_distance_to_1e_12(far):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (150, 3)), [[far, 0, 0]], rng.normal(1e3, 1, (20, 3)),
                   rng.normal(-far / 7, 1, (10, 3))])
    D = difference_matrix(X)
    P = pairwise(X)
    off = D > 0
    assert float(np.max(np.abs(P[off] - D[off]) / D[off])) <= 1e-12
    assert np.all(np.diag(P) == 0)


@pytest.mark.parametrize("load", ["load_iris", "load_wine", "load_seeds", "load_glass",
                                  "load_dermatology", "load_ionosphere"])
def test_labels_do_not_depend_on_scale_or_translation(load):
    """X, 1e-300 X, 1e150 X and X + 1e12 give one partition (energy, alpha 1 and 1/2)."""
    X, y = getattr(datasets, load)()
    k = len(np.unique(y))
    for alpha in (1.0, 0.5):
        base = KernelKGroups(k, alpha=alpha, random_state=0).fit(X).labels_
        for Z in (X * 1e-300, X * 1e150, X + 1e12):
            np.testing.assert_array_equal(
                KernelKGroups(k, alpha=alpha, random_state=0).fit(Z).labels_, base)


@pytest.mark.parametrize("cls", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("c", [1e-250, 1e-170, 1e170, 1e250])
def test_weights_at_any_scale(cls, c):
    """A common factor of the weights changes no label; W and the cluster weights
    scale with it (they are linear in the weights)."""
    w = np.random.default_rng(4).uniform(0.5, 2.0, 200)
    a = cls(2, random_state=0).fit(ORDINARY, sample_weight=w)
    b = cls(2, random_state=0).fit(ORDINARY, sample_weight=w * c)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    np.testing.assert_array_equal(a.predict(ORDINARY), b.predict(ORDINARY))
    assert b.within_energy_ == pytest.approx(a.within_energy_ * c, rel=1e-12)
    np.testing.assert_allclose(b.cluster_weights_, a.cluster_weights_ * c, rtol=1e-12)


def test_weights_wider_than_float64_are_refused_by_name():
    w = np.ones(200)
    w[0] = 1e-200
    w[1] = 1e200
    with pytest.raises(ValueError, match=r"sample_weight spans more than float64's range"):
        KernelKGroups(2).fit(ORDINARY, sample_weight=w)


def test_subnormal_data():
    a = KernelKGroups(2, random_state=0).fit(ORDINARY)
    b = KernelKGroups(2, random_state=0).fit(ORDINARY * 1e-310)
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.within_energy_ == pytest.approx(a.within_energy_ * 1e-310, rel=1e-6)


@pytest.mark.parametrize("engine", ["low-rank", "dask"])
@pytest.mark.parametrize("semimetric", ["localized", "sinusoidal"])
def test_approximate_engines_refuse_a_semimetric_not_of_negative_type(engine, semimetric):
    if engine == "dask":
        pytest.importorskip("dask.array")
    with pytest.raises(ValueError, match=rf"engine='{engine}' approximates a positive "
                                         rf"semidefinite kernel .* semimetric='{semimetric}'"):
        KernelKGroups(2, engine=engine, semimetric=semimetric).fit(ORDINARY)


def test_pairwise_checks_memory_before_allocating(monkeypatch):
    from kgroups import _memory
    monkeypatch.setattr(_memory, "available_memory", lambda: 1000)
    with pytest.raises(ValueError, match=r"pairwise: the 200 x 200 matrix .* \(320000 bytes\)"):
        pairwise(ORDINARY)


def test_no_warning_from_extreme_inputs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelKGroups(2, random_state=0).fit(np.vstack([ORDINARY, [[1e150, 0]]]))


def test_hierarchical_weights_at_any_scale():
    from kgroups import energy_hclust
    a = energy_hclust(ORDINARY, 2)
    for c in (1e-200, 1e200):
        b = energy_hclust(ORDINARY, 2, sample_weight=np.full(200, c))
        np.testing.assert_array_equal(a.labels, b.labels)


def test_float32_kernel_with_tiny_weights():
    """w_i w_j K_ij of weights 1e-25 underflows float32: the weights are scaled first."""
    a = KernelKGroups(2, dtype="float32", random_state=0).fit(ORDINARY)
    b = KernelKGroups(2, dtype="float32", random_state=0).fit(ORDINARY,
                                                            sample_weight=np.full(200, 1e-25))
    np.testing.assert_array_equal(a.labels_, b.labels_)
    assert b.within_energy_ == pytest.approx(a.within_energy_ * 1e-25, rel=1e-6)


def test_a_callable_that_is_not_a_semimetric_is_refused():
    def skew(A, B):
        return np.abs(A[:, None, 0] - 2.0 * B[None, :, 0])

    with pytest.raises(ValueError, match=r"is not symmetric: rho\(x_\d+, x_\d+\)"):
        KernelKGroups(2, semimetric=skew, engine="dense").fit(ORDINARY)
    with pytest.raises(ValueError, match=r"rho\(x_\d+, x_\d+\) = 1\.0; a semimetric is 0"):
        pairwise(ORDINARY, semimetric=lambda A, B: np.ones((len(A), len(B))))


def test_one_message_for_a_text_column_at_every_entry_point():
    pd = pytest.importorskip("pandas")
    from kgroups import energy_hclust
    df = pd.DataFrame({"a": ORDINARY[:, 0], "s": ["x"] * 200})
    for call in (lambda: KernelKGroups(2).fit(df), lambda: energy_hclust(df, 2),
                 lambda: within_energy(df, np.arange(200) % 2)):
        with pytest.raises(ValueError, match=r"X is a DataFrame with non-numeric columns \['s'\]"):
            call()
