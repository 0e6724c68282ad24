"""Exact on any finite data (issue 35, item 8): a constant column of huge magnitude
changes no distance, weights 1e300 apart are summed as they are, and arrays of
objects get an error in kgroups' words.

Each expected value is computed independently of the code under test: the same
data without the constant column, or exact rational arithmetic (``fractions``)
over every partition of a tiny sample.
"""

import itertools
import warnings
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import adjusted_rand_score

from kgroups import (EnergyHierarchical, KernelKGroups, KernelKMeans, between_energy,
                     choose_k, config_context,
                     energy_distance, total_energy, within_energy)
from kgroups._validation import InvalidParameterError

BLOBS = np.vstack([np.random.default_rng(0).normal(0, 1, (30, 2)),
                   np.random.default_rng(1).normal(4, 1, (30, 2))])
LABELS = np.repeat([0, 1], 30)


def with_constant_column(X, value):
    return np.column_stack([X, np.full(X.shape[0], value)])


# ----------------------------------------------------------- (a) a huge constant column
@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("value", [1e300, -1.7e308, 1e-320])
@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_constant_column_changes_no_partition(Est, value, engine):
    """A constant column adds 0 to every distance: the same labels as without it, and
    W to 1e-12 (the magnitude that decides a rescaling is that of the centred data: the
    raw 1e300 would divide the ordinary columns down to subnormal numbers)."""
    ref = Est(2, random_state=0, engine=engine).fit(BLOBS)
    est = Est(2, random_state=0, engine=engine).fit(with_constant_column(BLOBS, value))
    np.testing.assert_array_equal(est.labels_, ref.labels_)
    assert est.within_energy_ == pytest.approx(ref.within_energy_, rel=1e-12, abs=0)
    np.testing.assert_array_equal(
        est.predict(with_constant_column(BLOBS[::7], value)), ref.predict(BLOBS[::7]))


def test_constant_column_hierarchical():
    ref = EnergyHierarchical(2).fit(BLOBS)
    est = EnergyHierarchical(2).fit(with_constant_column(BLOBS, 1e300))
    np.testing.assert_array_equal(est.children_, ref.children_)
    np.testing.assert_allclose(est.distances_, ref.distances_, rtol=1e-12)


# ----------------------------------------------------- (b) statistics, constant column
@pytest.mark.parametrize("value", [1.7e308, -1e300])
def test_constant_column_statistics(value):
    """The statistics of the data with and without a constant column at 1e300 or
    1.7e308 (judged raw, the data would be divided by 2**1023 and W would come out 0)."""
    Z = with_constant_column(BLOBS, value)
    assert within_energy(Z, LABELS) == pytest.approx(within_energy(BLOBS, LABELS),
                                                     rel=1e-12, abs=0)
    assert between_energy(Z, LABELS) == pytest.approx(between_energy(BLOBS, LABELS),
                                                      rel=1e-12, abs=0)
    assert total_energy(Z) == pytest.approx(total_energy(BLOBS), rel=1e-12, abs=0)
    assert energy_distance(Z[:30], Z[30:]) == pytest.approx(
        energy_distance(BLOBS[:30], BLOBS[30:]), rel=1e-12, abs=0)


# ----------------------------------------------------- (c) weights 1 and 1e-300 together
X8 = np.array([[0.0, 0.0], [0.3, 0.1], [0.1, 0.4], [0.5, 0.2],
               [5.0, 5.0], [5.2, 4.9], [4.8, 5.3], [5.1, 5.4]])
W8 = np.r_[1.0, np.full(7, 1e-300)]


def exact_within(X, labels, w):
    """W = sum_j (1 / (2 s_j)) sum_{x, y in C_j} w_x w_y |x - y| in exact rationals
    (the distances rounded once to float64)."""
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    total = Fraction(0)
    for j in np.unique(labels):
        idx = np.flatnonzero(labels == j)
        s = sum(Fraction(w[i]) for i in idx)
        pair = sum(Fraction(w[a]) * Fraction(w[b]) * Fraction(D[a, b])
                   for a in idx for b in idx)
        total += pair / (2 * s)
    return total


def best_partition(X, w):
    """The 2-partition of least exact W, by brute force over all of them."""
    n = X.shape[0]
    best = None
    for bits in itertools.product([0, 1], repeat=n - 1):
        labels = np.r_[0, bits]
        if labels.min() == labels.max():
            continue
        W = exact_within(X, labels, w)
        if best is None or W < best[0]:
            best = (W, labels)
    return best


@pytest.mark.parametrize("Est, python", [
    (KernelKGroups, True), (KernelKMeans, True), (KernelKMeans, False),
    (KernelKGroups, False)])
def test_weight_one_beside_weights_1e_300(Est, python):
    """The products 1e-600 of two small weights would underflow to 0 (and the k-means++
    seeding divide by them): the weights are rescaled by a power of two that keeps both
    ends normal. The optimum of the exact W, W to 1e-9, and the same fit as the weights
    times 2**600 or 2**-20."""
    W_best, labels = best_partition(X8, W8)
    with config_context(kernels="python" if python else "compiled"), \
            warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the Python twin's 0 / 0
        check_weight_one_beside_weights_1e_300(Est, W_best, labels)


def check_weight_one_beside_weights_1e_300(Est, W_best, labels):
    est = Est(2, random_state=0, n_init=10).fit(X8, sample_weight=W8)
    assert est.labels_.tolist() in (labels.tolist(), (1 - labels).tolist())
    assert est.within_energy_ == pytest.approx(float(W_best), rel=1e-9, abs=0)
    np.testing.assert_allclose(est.cluster_weights_.sum(), W8.sum(), rtol=1e-15)
    for c in (2.0 ** 600, 2.0 ** -20):
        scaled = Est(2, random_state=0, n_init=10).fit(X8, sample_weight=W8 * c)
        np.testing.assert_array_equal(scaled.labels_, est.labels_)
        assert scaled.within_energy_ == pytest.approx(est.within_energy_ * c, rel=1e-12, abs=0)


def exact_cross(A, B, wa, wb):
    """sum_{a, b} wa wb |a - b| / (sum wa sum wb) in exact rationals."""
    D = np.sqrt(((A[:, None] - B[None]) ** 2).sum(-1))
    num = sum(Fraction(wa[i]) * Fraction(wb[j]) * Fraction(D[i, j])
              for i in range(len(A)) for j in range(len(B)))
    return num / (sum(Fraction(v) for v in wa) * sum(Fraction(v) for v in wb))


@pytest.mark.parametrize("labels", [np.r_[0, 0, 0, 1, 1, 1, 1, 1], np.r_[0, 1, 1, 1, 1, 1, 1, 1]])
def test_weight_one_beside_weights_1e_300_statistics(labels):
    """The products 1e-600 of two small weights must not underflow to 0 (which makes W
    0 for the second partition and 9 times too small for the first)."""
    W = exact_within(X8, labels, W8)
    T = exact_within(X8, np.zeros(8, int), W8)
    assert within_energy(X8, labels, sample_weight=W8) == pytest.approx(float(W), rel=1e-9,
                                                                        abs=0)
    assert total_energy(X8, sample_weight=W8) == pytest.approx(float(T), rel=1e-9, abs=0)
    assert between_energy(X8, labels, sample_weight=W8) == pytest.approx(float(T - W),
                                                                         rel=1e-9, abs=0)
    a, b = labels == 0, labels == 1
    E = (2 * exact_cross(X8[a], X8[b], W8[a], W8[b]) - exact_cross(X8[a], X8[a], W8[a], W8[a])
         - exact_cross(X8[b], X8[b], W8[b], W8[b]))
    got = energy_distance(X8[a], X8[b], sample_weight_x=W8[a], sample_weight_y=W8[b])
    assert got == pytest.approx(float(E), rel=1e-9, abs=0)


THREE = np.vstack([np.random.default_rng(2).normal(c, 0.3, (40, 2))
                   for c in ([0, 0], [5, 0], [0, 5])])


@pytest.mark.parametrize("c", [2.0 ** 1000, 2.0 ** -1000])
def test_the_choice_of_k_under_weights_of_extreme_magnitude(c):
    """The choice of k (``choose_k``, ``n_clusters="auto"``, ``semimetric="auto"`` at a
    given k) with every weight c: the same partitions as with weights 1 (a common factor
    of the weights changes none; the names of the clusters may differ), W scaled by c
    exactly (c a power of two), and no overflow nor division by zero on the way (an
    error here, not a warning)."""
    w = np.full(THREE.shape[0], c)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for method in ("auto", "gap"):
            one = choose_k(THREE, method=method, random_state=0)
            big = choose_k(THREE, method=method, sample_weight=w, random_state=0)
            assert big.k == one.k == 3 and adjusted_rand_score(one.labels, big.labels) == 1.0
            np.testing.assert_array_equal(big.within_energy, one.within_energy * c)
        for k, semimetric in (("auto", "auto"), ("auto", "nearest_neighbors"), (3, "auto")):
            one = KernelKGroups(k, semimetric=semimetric, random_state=0).fit(THREE)
            big = KernelKGroups(k, semimetric=semimetric, random_state=0).fit(
                THREE, sample_weight=w)
            assert (big.n_clusters_, big.semimetric_) == (one.n_clusters_, one.semimetric_)
            assert adjusted_rand_score(one.labels_, big.labels_) == 1.0


@pytest.mark.parametrize("semimetric", ["laplacian", "gaussian"])
@pytest.mark.parametrize("engine, dtype", [("dense", "float64"), ("matrix-free", "float64"),
                                           ("matrix-free", "float32")])
def test_a_sigma_below_the_smallest_float_once_rescaled(semimetric, engine, dtype):
    """sigma=1e-300 on X of magnitude 1e200: X is divided by a power of two near 2**665
    to keep its distances finite, and sigma with it, which underflows to 0. Every pair
    of distinct rows is then infinitely far (rho = 2, as on X of magnitude 1 with that
    sigma), and no float32 pass is certified for it: the fit of X, not a division by
    zero."""
    params = {"semimetric": semimetric, "sigma": 1e-300, "engine": engine, "dtype": dtype,
              "random_state": 0}
    one = KernelKGroups(3, **params).fit(THREE)
    big = KernelKGroups(3, **params).fit(THREE * 1e200)
    np.testing.assert_array_equal(big.labels_, one.labels_)
    # rho = 2 for every distinct pair: a cluster of n_j rows adds n_j (n_j - 1) 2 / (2 n_j),
    # so W = n - k = 117 for any partition
    assert big.within_energy_ == one.within_energy_ == 117.0


@pytest.mark.parametrize("scale", [(1e200, 1e200), (1e-200, 1e-200), (1e200, 1e-200),
                                   (2.5e307, 1.0)])
def test_standardize_at_any_magnitude(scale):
    """Columns z-scored (``--standardize``, the choice's standardized geometry) at
    magnitudes whose squares overflow or underflow float64, alike or apart: the columns
    of X z-scored, none taken for constant (squares of 1e-200 read as 0 would make every
    row one), no overflow on the way (squares of 1e200 read as inf would make NaN)."""
    from kgroups._rescale import standardize

    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = standardize(THREE * scale)
    np.testing.assert_allclose(got, standardize(THREE), rtol=1e-12, atol=1e-12)
    assert np.allclose(got.std(axis=0), 1.0)


# ----------------------------------------------------------- (d, e) arrays of objects
STRINGS = np.array([["a", "b"], ["c", "d"], ["e", "f"]], dtype=object)
ROWS = np.empty(3, dtype=object)
for _i in range(3):
    ROWS[_i] = np.array([float(_i), 2.0])


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans, EnergyHierarchical])
@pytest.mark.parametrize("X, fragment", [
    (STRINGS, "should be an array of numbers"),
    (np.array([["a", "b"], ["c", "d"], ["e", "f"]]), "should be an array of numbers"),
    (ROWS, "a 1-D array of objects whose items are rows; pass np.vstack(X)"),
])
def test_object_arrays_get_our_message(Est, X, fragment):
    """kgroups' message, naming the class, not numpy's 'could not convert string to
    float' or 'setting an array element with a sequence'."""
    with pytest.raises(InvalidParameterError) as info:
        Est(n_clusters=2).fit(X)
    msg = str(info.value)
    assert msg.startswith(f"{Est.__name__}: X"), msg
    assert fragment in msg, msg


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("method", ["predict", "transform", "score"])
def test_object_arrays_to_new_data(Est, method):
    est = Est(2, random_state=0).fit(BLOBS)
    for X in (STRINGS, ROWS):
        with pytest.raises(InvalidParameterError, match=f"^{Est.__name__}: X"):
            getattr(est, method)(X)


@pytest.mark.parametrize("Est", [KernelKGroups, KernelKMeans, EnergyHierarchical])
def test_numbers_written_as_text_are_read_as_numbers(Est):
    """Issue 93: an array of numeric strings (str or bytes, as a CSV read without
    conversion gives) fits as its numbers do, as scikit-learn's KMeans reads it; the
    three-row example of the issue first."""
    kw = {} if Est is EnergyHierarchical else {"random_state": 0}
    small = np.array([["1.5", "2"], ["3", "4"], ["5", "6"]])
    ref = Est(2, **kw).fit(small.astype(float)).labels_
    np.testing.assert_array_equal(Est(2, **kw).fit(small).labels_, ref)
    text = np.array([[repr(v) for v in row] for row in BLOBS.tolist()])
    for X in (text, text.astype(bytes), text.astype(object)):
        np.testing.assert_array_equal(Est(2, **kw).fit(X).labels_,
                                      Est(2, **kw).fit(BLOBS).labels_)
    if Est is not EnergyHierarchical:
        est = Est(2, random_state=0).fit(BLOBS)
        np.testing.assert_array_equal(est.predict(text[:5]), est.predict(BLOBS[:5]))


def test_text_names_its_entry_and_column_not_the_array():
    """Issue 93: a column of words is named with its first word and the fix; the array
    is not printed (not even a small one)."""
    X = np.array([["1.5", "2", "red"], ["3", "4", "blue"], ["5", "6", "red"]])
    for fit in (KernelKGroups(2).fit, KernelKMeans(2).fit, EnergyHierarchical(2).fit,
                lambda X: energy_distance(X, X)):
        with pytest.raises(InvalidParameterError) as info:
            fit(X)
        msg = str(info.value)
        assert "X[0, 2]='red' is not one: column 2 of X holds text; drop that column or " \
               "encode it as numbers" in msg, msg
        assert "[[" not in msg and "array(" not in msg and "blue" not in msg, msg


def test_object_array_of_numbers_still_works():
    est = KernelKGroups(2, random_state=0).fit(BLOBS.astype(object))
    ref = KernelKGroups(2, random_state=0).fit(BLOBS)
    np.testing.assert_array_equal(est.labels_, ref.labels_)
