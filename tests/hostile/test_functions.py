"""Hostile inputs to the public functions of the energy area.

energy_distance, g, within_energy, between_energy, total_energy, energy_test,
spectral_kgroups, spectral_embedding, kernel_from_semimetric_x0, onedim_kgroups
and kgroups.metrics (accuracy, overlap, nmi, ari), plus the package surface.

Each case ends in one of two ways: a ``ValueError`` (kgroups'
``InvalidParameterError``) whose message names the function, the parameter and
the offending value, or a correct, finite answer (checked against an answer
computed independently here, or an identity that must hold).
"""

import math
from contextlib import contextmanager
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import kgroups
from kgroups import (
    between_energy,
    choose_k,
    energy_distance,
    energy_test,
    kernel_from_semimetric_x0,
    onedim_kgroups,
    spectral_embedding,
    spectral_kgroups,
    total_energy,
    within_energy,
)
from kgroups._stats.energy import g
from kgroups._validation import InvalidParameterError
from kgroups.metrics import accuracy, ari, nmi, overlap

SETTINGS = settings(max_examples=25, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])
X6 = np.arange(12.0).reshape(6, 2)
LAB6 = np.array([0, 1, 0, 1, 2, 2])


@contextmanager
def raises_naming(func_name, *fragments):
    """A kgroups ValueError whose message starts with ``func_name:`` and names each fragment."""
    with pytest.raises(ValueError) as info:
        yield info
    msg = str(info.value)
    assert isinstance(info.value, InvalidParameterError), msg
    assert msg.startswith(f"{func_name}:"), msg
    for frag in fragments:
        assert frag in msg, (frag, msg)


def brute_energy_distance(X, Y, alpha=1.0):
    """2 mean|X-Y|^a - mean|X-X'|^a - mean|Y-Y'|^a by double loops (DESIGN table)."""
    def mean_rho(A, B):
        return sum(math.dist(a, b) ** alpha for a in A for b in B) / (len(A) * len(B))
    return 2 * mean_rho(X, Y) - mean_rho(X, X) - mean_rho(Y, Y)


def nan_semimetric(A, B):
    out = np.abs(A[:, None, 0] - B[None, :, 0])
    out[0, 0] = np.nan
    return out


# --------------------------------------------------------------------- explicit cases
SPARSE = sp.csr_matrix(X6)
EXPLICIT_ERRORS = [
    # scipy.sparse data (issue 10)
    (lambda: energy_distance(SPARSE, X6), "energy_distance", ["X", "scipy.sparse"]),
    (lambda: energy_distance(X6, SPARSE), "energy_distance", ["Y", "scipy.sparse"]),
    (lambda: energy_test(SPARSE, X6), "energy_test", ["samples[0]", "scipy.sparse"]),
    (lambda: within_energy(SPARSE, LAB6), "within_energy", ["X", "scipy.sparse"]),
    (lambda: between_energy(SPARSE, LAB6), "between_energy", ["X", "scipy.sparse"]),
    (lambda: total_energy(SPARSE), "total_energy", ["X", "scipy.sparse"]),
    (lambda: g(SPARSE), "g", ["X", "scipy.sparse"]),
    (lambda: onedim_kgroups(sp.csr_matrix(np.ones((5, 1)))), "onedim_kgroups",
     ["x", "scipy.sparse"]),
    # labels with NaN / None / wrong length / ragged (issue 10)
    (lambda: within_energy(X6, [0, 1, np.nan, 1, 0, 0]), "within_energy", ["labels", "NaN"]),
    (lambda: between_energy(X6, [0, 1, np.nan, 1, 0, 0]), "between_energy", ["labels", "NaN"]),
    (lambda: within_energy(X6, [0, 1, None, 1, 0, 0]), "within_energy", ["labels", "None"]),
    (lambda: within_energy(X6, np.array([0, "a", 1, 1, 0, 0], dtype=object)), "within_energy",
     ["labels", "cannot be compared"]),
    (lambda: within_energy(X6, [0, 1]), "within_energy", ["labels", "(2,)", "(6,)"]),
    (lambda: within_energy(X6, [[0, 1], [1]]), "within_energy", ["labels"]),
    (lambda: within_energy(X6, 3), "within_energy", ["labels=3", "array-like"]),
    # data that is not numbers, NaN, inf, empty, wrong rank
    (lambda: energy_distance("abc", X6), "energy_distance", ["X='abc'", "array-like"]),
    (lambda: energy_distance([["a", "b"]], X6), "energy_distance", ["X=", "numbers"]),
    (lambda: energy_distance([[1, 2], [3]], X6), "energy_distance", ["X=", "numbers"]),
    (lambda: energy_distance([[1j, 2]], X6), "energy_distance", ["X=", "numbers"]),
    (lambda: energy_distance(X6, [[np.nan, 1.0]]), "energy_distance", ["Y[0, 0]=nan"]),
    (lambda: energy_distance(X6, [[1.0, -np.inf]]), "energy_distance", ["Y[0, 1]=-inf"]),
    (lambda: energy_distance([], X6), "energy_distance", ["X", "(0, 1)"]),
    (lambda: energy_distance(np.zeros((2, 0)), X6), "energy_distance", ["X", "(2, 0)"]),
    (lambda: energy_distance(3.0, X6), "energy_distance", ["X=3.0", "array-like"]),
    (lambda: energy_distance(np.zeros((2, 2, 2)), X6), "energy_distance", ["(2, 2, 2)"]),
    (lambda: energy_distance(X6, np.zeros((3, 5))), "energy_distance",
     ["X has 2 features but Y has 5"]),
    (lambda: energy_distance(X6, X6, unknown=1), "energy_distance", ["unknown"]),
    (lambda: energy_distance(X6), "energy_distance", ["Y"]),
    # semimetric parameters
    (lambda: energy_distance(X6, X6, alpha=0), "energy_distance", ["alpha=0", "(0, 2]"]),
    (lambda: energy_distance(X6, X6, alpha=2.5), "energy_distance", ["alpha=2.5"]),
    (lambda: energy_distance(X6, X6, alpha=np.nan), "energy_distance", ["alpha=nan"]),
    (lambda: energy_distance(X6, X6, alpha="1"), "energy_distance", ["alpha='1'"]),
    (lambda: energy_distance(X6, X6, alpha=True), "energy_distance", ["alpha=True"]),
    (lambda: energy_distance(X6, X6, semimetric="cosine"), "energy_distance",
     ["semimetric='cosine'"]),
    (lambda: energy_distance(X6, X6, semimetric=None), "energy_distance", ["semimetric=None"]),
    (lambda: energy_distance(X6, X6, semimetric="precomputed"), "energy_distance",
     ["precomputed"]),
    (lambda: within_energy(X6, LAB6, semimetric="gaussian", sigma=-1), "within_energy",
     ["sigma=-1"]),
    (lambda: within_energy(X6, LAB6, semimetric="sinusoidal", theta=0.0), "within_energy",
     ["theta=0.0"]),
    (lambda: within_energy(X6, LAB6, semimetric="gaussian", precomputed=True),
     "within_energy", ["precomputed=True", "semimetric='gaussian'"]),
    (lambda: within_energy(X6, LAB6, precomputed="yes"), "within_energy",
     ["precomputed='yes'", "boolean"]),
    # weights
    (lambda: energy_distance(X6, X6, sample_weight_x=[1, 1, -1, 1, 1, 1]), "energy_distance",
     ["sample_weight_x[2]=-1.0", ">= 0"]),
    (lambda: energy_distance(X6, X6, sample_weight_y=[1] * 5 + [np.inf]), "energy_distance",
     ["sample_weight_y[5]=inf"]),
    (lambda: within_energy(X6, LAB6, sample_weight=[1.0] * 5 + [-2]), "within_energy",
     ["sample_weight[5]=-2.0"]),
    (lambda: within_energy(X6, LAB6, sample_weight=[1.0] * 4), "within_energy",
     ["sample_weight", "(4,)", "(6,)"]),
    (lambda: total_energy(X6, sample_weight="heavy"), "total_energy", ["sample_weight"]),
    (lambda: total_energy(X6, sample_weight=0.0), "total_energy", ["sample_weight=0.0"]),
    # precomputed matrices (one semimetric check)
    (lambda: total_energy(np.ones((3, 4)), precomputed=True), "total_energy",
     ["square", "(3, 4)"]),
    (lambda: total_energy(np.array([[0, 1], [2, 0.0]]), precomputed=True), "total_energy",
     ["symmetric", "X[0, 1]=1.0"]),
    (lambda: total_energy(np.array([[0, -1], [-1, 0.0]]), precomputed=True), "total_energy",
     ["non-negative", "-1.0"]),
    (lambda: total_energy(np.eye(3), precomputed=True), "total_energy", ["zero diagonal"]),
    (lambda: within_energy(np.array([[0, np.nan], [np.nan, 0]]), [0, 1], precomputed=True),
     "within_energy", ["NaN"]),
    (lambda: g(X6, X6, precomputed=True), "g", ["Y should be None"]),
    # energy_test specifics
    (lambda: energy_test(X6), "energy_test", ["at least 2 samples, got 1"]),
    (lambda: energy_test(), "energy_test", ["at least 2 samples, got 0"]),
    (lambda: energy_test(X6, np.zeros((0, 2))), "energy_test", ["samples[1]", "(0, 2)"]),
    (lambda: energy_test(X6, X6, n_permutations=-1), "energy_test", ["n_permutations=-1"]),
    (lambda: energy_test(X6, X6, n_permutations=9.0), "energy_test", ["n_permutations=9.0"]),
    (lambda: energy_test(X6, X6, n_permutations=True), "energy_test", ["n_permutations=True"]),
    (lambda: energy_test(X6, X6, random_state=-1), "energy_test", ["random_state=-1"]),
    (lambda: energy_test(X6, X6, random_state="seed"), "energy_test", ["random_state='seed'"]),
    (lambda: energy_test(X6, "abc"), "energy_test", ["samples", "'abc'"]),
    # onedim_kgroups
    (lambda: onedim_kgroups([1.0]), "onedim_kgroups", ["x", "at least 2"]),
    (lambda: onedim_kgroups([]), "onedim_kgroups", ["x"]),
    (lambda: onedim_kgroups([1.0, np.nan]), "onedim_kgroups", ["x[1, 0]=nan"]),
    (lambda: onedim_kgroups(np.zeros((4, 2))), "onedim_kgroups", ["(4, 2)"]),
    (lambda: onedim_kgroups(["a", "b"]), "onedim_kgroups", ["x=", "numbers"]),
    (lambda: onedim_kgroups([1.0, 2.0], sample_weight=[1.0, -1.0]), "onedim_kgroups",
     ["sample_weight[1]=-1.0"]),
    (lambda: onedim_kgroups([1.0, 2.0], sample_weight=[1.0]), "onedim_kgroups",
     ["sample_weight", "(1,)"]),
    (lambda: onedim_kgroups(None), "onedim_kgroups", ["x=None"]),
    # spectral
    (lambda: spectral_kgroups(np.ones((3, 4)), 2), "spectral_kgroups", ["square", "(3, 4)"]),
    (lambda: spectral_kgroups(np.eye(3), 4), "spectral_kgroups",
     ["n_samples=3", "n_clusters=4"]),
    (lambda: spectral_kgroups(np.eye(3), 0), "spectral_kgroups", ["n_clusters=0"]),
    (lambda: spectral_kgroups(np.eye(3), 2.0), "spectral_kgroups", ["n_clusters=2.0"]),
    (lambda: spectral_kgroups(np.eye(3), "2"), "spectral_kgroups", ["n_clusters='2'"]),
    (lambda: spectral_kgroups(np.eye(3), 2, n_init=0), "spectral_kgroups", ["n_init=0"]),
    (lambda: spectral_kgroups(np.eye(3), 2, eigen_solver="lobpcg"), "spectral_kgroups",
     ["eigen_solver='lobpcg'"]),
    (lambda: spectral_kgroups(np.eye(3), 2, random_state=1.5), "spectral_kgroups",
     ["random_state=1.5"]),
    (lambda: spectral_kgroups(np.array([[1, 2], [0, 1.0]]), 1), "spectral_kgroups",
     ["symmetric", "G[0, 1]=2.0"]),
    (lambda: spectral_kgroups(np.diag([1.0, np.inf]), 1), "spectral_kgroups", ["G[1, 1]=inf"]),
    (lambda: spectral_kgroups([["a"]], 1), "spectral_kgroups", ["G=", "numeric"]),
    (lambda: spectral_kgroups(np.eye(3), 2, sample_weight=[1, 0, 1]), "spectral_kgroups",
     ["sample_weight[1]=0.0"]),
    (lambda: spectral_embedding(np.eye(3), 5), "spectral_embedding", ["n_clusters=5"]),
    (lambda: spectral_embedding(np.zeros((0, 0)), 1), "spectral_embedding", ["square"]),
    (lambda: kernel_from_semimetric_x0(np.eye(2), np.zeros(2)), "kernel_from_semimetric_x0",
     ["zero diagonal", "rho_matrix[0, 0]=1.0"]),
    (lambda: kernel_from_semimetric_x0(np.zeros((2, 2)), [0.0, np.nan]),
     "kernel_from_semimetric_x0", ["rho_to_x0", "nan"]),
    (lambda: kernel_from_semimetric_x0(np.zeros((2, 2)), np.zeros((2, 2))),
     "kernel_from_semimetric_x0", ["rho_to_x0", "(2, 2)"]),
    # metrics
    (lambda: accuracy([0, 1, 1], [0, 1]), "accuracy", ["labels_pred", "(2,)", "(3,)"]),
    (lambda: accuracy([], []), "accuracy", ["labels_true", "non-empty"]),
    (lambda: accuracy([0, np.nan], [0, 1]), "accuracy", ["labels_true", "NaN"]),
    (lambda: accuracy([0, 1], [None, 1]), "accuracy", ["labels_pred", "None"]),
    (lambda: accuracy([[0, 1], [1]], [0, 1]), "accuracy", ["labels_true"]),
    (lambda: accuracy(0, [0]), "accuracy", ["labels_true=0"]),
    (lambda: overlap([1, 1, 1], [0, 1, 0]), "overlap", ["k=1"]),
    (lambda: overlap([0, 1], np.array([0, "a"], dtype=object)), "overlap", ["labels_pred"]),
    (lambda: nmi([0, 1], [0, np.nan]), "nmi", ["labels_pred", "NaN"]),
    (lambda: ari([0, 1, 1], [0, 1]), "ari", ["labels_pred", "(2,)"]),
    (lambda: ari(sp.csr_matrix([[0, 1]]), [0, 1]), "ari", ["labels_true"]),
]


@pytest.mark.parametrize("call, func_name, fragments", EXPLICIT_ERRORS,
                         ids=[f"{c[1]}-{i}" for i, c in enumerate(EXPLICIT_ERRORS)])
def test_clear_error(call, func_name, fragments):
    with raises_naming(func_name, *fragments):
        call()


NAN_CALLABLE_CASES = {
    "energy_distance": lambda: energy_distance(X6, X6 + 1, semimetric=nan_semimetric),
    "within_energy": lambda: within_energy(X6, LAB6, semimetric=nan_semimetric),
    "between_energy": lambda: between_energy(X6, LAB6, semimetric=nan_semimetric),
    "total_energy": lambda: total_energy(X6, semimetric=nan_semimetric),
    "g": lambda: g(X6, semimetric=nan_semimetric),
    "energy_test": lambda: energy_test(X6, X6 + 1, semimetric=nan_semimetric,
                                       n_permutations=9),
}


@pytest.mark.parametrize("func_name", sorted(NAN_CALLABLE_CASES))
def test_callable_semimetric_returning_nan(func_name):
    """Issue 10: a clear error, never a NaN statistic. The error comes from
    ``pairwise`` (which checks a callable's output) or from the function's own
    check of its result; either way it says what is not finite."""
    with pytest.raises(ValueError) as info:
        NAN_CALLABLE_CASES[func_name]()
    msg = str(info.value)
    assert msg.startswith((f"{func_name}:", "pairwise")) or "semimetric" in msg, msg
    assert "finite" in msg or "NaN" in msg or "nan" in msg, msg


# ------------------------------------------------------------- correct finite answers
def test_string_labels_and_one_cluster_are_fine():
    X = np.array([0.0, 1.0, 10.0, 12.0])
    assert within_energy(X, ["a", "a", "b", "b"]) == pytest.approx(1.5, rel=1e-14)
    assert between_energy(X, ["only"] * 4) == 0.0
    assert within_energy(X, ["only"] * 4) == pytest.approx(total_energy(X), rel=1e-14)
    assert within_energy(X, [0, 1, 2, 3]) == 0.0  # singletons: rho(x, x) = 0


def test_huge_and_tiny_data_rescaled_exactly():
    # rho_alpha is homogeneous of degree alpha: E(cX, cY) = c**alpha E(X, Y)
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(7, 2)), rng.normal(0.5, size=(5, 2))
    for alpha in (0.5, 1.0, 2.0):
        ref = brute_energy_distance(X, Y, alpha)
        for c in (1e200, 1e-200):
            expected = ref * c**alpha if alpha * math.log10(c) < 300 else math.inf
            if math.isinf(expected):  # 1e400: not a float64, so a clear error
                with raises_naming("energy_distance", "not finite"):
                    energy_distance(X * c, Y * c, alpha=alpha)
            else:
                got = energy_distance(X * c, Y * c, alpha=alpha)
                assert got == pytest.approx(expected, rel=1e-9)
    # the KernelKGroups case, for the energy functions: X * 1e200
    assert within_energy(X * 1e200, np.arange(7) % 3) == pytest.approx(
        1e200 * within_energy(X, np.arange(7) % 3), rel=1e-12)
    res = energy_test(X * 1e200, Y * 1e200, n_permutations=19, random_state=0)
    ref = energy_test(X, Y, n_permutations=19, random_state=0)
    assert res.statistic == pytest.approx(1e200 * ref.statistic, rel=1e-12)
    assert res.pvalue == ref.pvalue


def test_choose_k_is_free_of_the_scale_of_x():
    """choose_k on X of magnitude 1e-300 or 1e300 runs on X times a power of two (its
    fits', exact) and answers as on X: the same k and partition, W (of k = 2, 3) and the
    references' log W* in X's units; a semimetric that is not scale-free gets a clear
    error."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(c, 0.5, (40, 2)) for c in ([0, 0], [5, 0], [0, 5])])
    ref = choose_k(X, range(1, 7), semimetric="auto")
    gap = choose_k(X, range(1, 5), method="gap", n_refs=5, random_state=0)
    for c in (1e-300, 1e300):
        r = choose_k(X * c, range(1, 7), semimetric="auto")
        assert (r.k, r.semimetric, ari(r.labels, ref.labels)) == (3, "energy", 1.0)
        np.testing.assert_allclose(r.within_energy[1:3], ref.within_energy[1:3] * c,
                                   rtol=1e-9)  # past k = 3, other starts' local optima
        g = choose_k(X * c, range(1, 5), method="gap", n_refs=5, random_state=0)
        np.testing.assert_allclose(g.gap, gap.gap, atol=1e-9)
        np.testing.assert_allclose(g.ref_log_w, gap.ref_log_w + math.log(c), atol=1e-9)
    with raises_naming("choose_k", "semimetric='localized' is not scale-free"):
        choose_k(X * 1e200, semimetric="localized")


def test_overflowing_statistic_is_an_error_not_inf():
    X = np.array([[0.0], [1e300]])
    with raises_naming("energy_distance", "not finite"):
        energy_distance(X, -X, alpha=2.0)  # true value ~1e600
    with raises_naming("total_energy", "overflow float64"):  # found by pairwise first
        total_energy(X, semimetric="localized")


def test_huge_and_tiny_weights():
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(6, 2)), rng.normal(size=(4, 2))
    wx, wy = rng.uniform(0.5, 2, 6), rng.uniform(0.5, 2, 4)
    ref = energy_distance(X, Y, sample_weight_x=wx, sample_weight_y=wy)
    for c in (1e300, 1e-300):
        got = energy_distance(X, Y, sample_weight_x=wx * c, sample_weight_y=wy)
        assert got == pytest.approx(ref, rel=1e-12)
        labels = np.arange(6) % 2
        W = within_energy(X, labels, sample_weight=wx)
        assert within_energy(X, labels, sample_weight=wx * c) == pytest.approx(c * W, rel=1e-12)
    assert g(X, Y, sample_weight_x=wx * 1e300, sample_weight_y=wy * 1e-300) == pytest.approx(
        g(X, Y, sample_weight_x=wx, sample_weight_y=wy), rel=1e-12)


def test_energy_test_generator_and_degenerate_samples():
    X = np.ones((4, 2))
    res = energy_test(X, X, n_permutations=19, random_state=np.random.default_rng(0))
    assert res.statistic == 0.0 and res.pvalue == 1.0  # every relabelling ties
    res = energy_test([0.0], [1.0], n_permutations=9, random_state=1)
    assert res.statistic == pytest.approx(1.0) and 0 < res.pvalue <= 1
    assert math.isnan(energy_test([0.0], [1.0], n_permutations=0).pvalue)


def test_gaussian_tiny_sigma():
    # rho = 2 - 2 exp(-r**2 / (2 sigma**2)) = 2 for every pair of distinct points
    X = np.array([[0.0], [1.0], [3.0], [4.0]])
    # W = sum_j (1 / (2 n_j)) sum_{x != y in C_j} 2 = 2 * (2 / 4 + 2 / 4)
    assert within_energy(X, [0, 0, 1, 1], semimetric="gaussian", sigma=1e-200) == 2.0


def test_onedim_degenerate():
    res = onedim_kgroups([3.0, 3.0, 3.0])
    assert res.within_energy == 0.0 and sorted(set(res.labels)) == [0, 1]
    res = onedim_kgroups(np.array([1.0, 2.0]), sample_weight=2.0)
    assert res.labels.tolist() == [0, 1] and res.within_energy == 0.0


def test_spectral_degenerate_inputs_give_k_nonempty_clusters():
    for G, k in ((np.ones((10, 10)), 3), (np.zeros((6, 6)), 2), (np.eye(4), 4),
                 (np.ones((1, 1)), 1), (np.diag([1e300, 1e300, -1e300]), 2)):
        res = spectral_kgroups(G, k, random_state=0)
        assert np.bincount(res.labels, minlength=k).min() >= 1
        assert res.labels.max() == k - 1
        assert np.all(np.isfinite(res.eigenvalues)) and np.all(np.isfinite(res.embedding))


# ------------------------------------------------------------------ hypothesis properties
finite_floats = st.floats(allow_nan=False, allow_infinity=False, width=64)
data_2d = hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 3)),
                     elements=finite_floats)


@SETTINGS
@given(X=data_2d, shift=st.floats(-3, 3), alpha=st.floats(0.05, 2.0))
# distances of 1e-302 beside coordinates of 2e6: the scale is the centred data's
@example(X=np.array([[2097152.0, 0.0]]), shift=2.96e-302, alpha=1.0)
def test_energy_distance_any_finite_data(X, shift, alpha):
    """Finite data of any magnitude: a finite E >= 0 (negative type) or a named error."""
    Y = X[::-1] + shift
    try:
        E = energy_distance(X, Y, alpha=alpha)
    except InvalidParameterError as err:
        assert str(err).startswith("energy_distance:") and "not finite" in str(err)
        return
    assert np.isfinite(E)
    with np.errstate(over="ignore"):
        scale = np.float64(max(1.0, float(np.max(np.abs(np.vstack([X, Y])))))) ** alpha
    assert E >= -1e-9 * scale


@SETTINGS
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(1, 8), st.integers(1, 2)),
                    elements=st.floats(-1e6, 1e6)),
       labels=st.lists(st.sampled_from(["a", "b", "c", 7]), min_size=8, max_size=8),
       data=st.data())
def test_w_plus_s_equals_t_for_any_labels(X, labels, data):
    labels = np.array(labels[: X.shape[0]], dtype=object)
    if len({type(v) for v in labels}) > 1:
        with raises_naming("within_energy", "labels"):
            within_energy(X, labels)
        return
    w = data.draw(hnp.arrays(np.float64, X.shape[0], elements=st.floats(1e-3, 1e3)))
    W = within_energy(X, labels, sample_weight=w)
    S = between_energy(X, labels, sample_weight=w)
    T = total_energy(X, sample_weight=w)
    assert min(W, S, T) >= -1e-9 * max(1.0, T)
    assert W + S == pytest.approx(T, rel=1e-9, abs=1e-9)


@SETTINGS
@given(x=hnp.arrays(np.float64, st.integers(2, 12), elements=finite_floats))
def test_onedim_any_finite_data(x):
    """Any finite values: both groups non-empty when two values differ, W finite and
    equal to the brute-force minimum over contiguous splits (computed on x scaled
    by the largest magnitude, where W is homogeneous of degree 1), or, where that
    minimum exceeds float64's range, an error saying so."""
    c = float(np.max(np.abs(x)))
    try:
        res = onedim_kgroups(x)
    except ValueError as exc:
        assert "overflows float64; divide x by a constant" in str(exc)
        xs = np.sort(x / c)
        best = min(sum(abs(a - b) for a in xs[:m] for b in xs[:m]) / (2 * m)
                   + sum(abs(a - b) for a in xs[m:] for b in xs[m:]) / (2 * (len(xs) - m))
                   for m in range(1, len(xs)) if xs[m - 1] < xs[m])
        assert best * c > 0.99 * np.finfo(np.float64).max
        return
    assert np.isfinite(res.within_energy) and res.within_energy >= 0
    assert set(res.labels.tolist()) == {0, 1}
    if np.unique(x).size == 1:
        return
    xs = np.sort(x / c)
    costs = []
    for m in range(1, len(xs)):
        if xs[m - 1] < xs[m]:
            left, right = xs[:m], xs[m:]
            costs.append(sum(abs(a - b) for a in left for b in left) / (2 * len(left))
                         + sum(abs(a - b) for a in right for b in right) / (2 * len(right)))
    assert res.within_energy / c == pytest.approx(min(costs), rel=1e-9, abs=1e-12)


label_values = st.one_of(st.integers(-3, 3), st.sampled_from(["x", "y"]), st.none(),
                         st.sampled_from([np.nan, 0.5]))


@SETTINGS
@given(t=st.lists(label_values, min_size=0, max_size=8),
       p=st.lists(label_values, min_size=0, max_size=8))
def test_metrics_any_labels(t, p):
    """Any label lists: a value in range or an error naming the metric and a parameter."""
    for func in (accuracy, overlap, nmi, ari):
        try:
            v = func(t, p)
        except InvalidParameterError as err:
            msg = str(err)
            assert msg.startswith(f"{func.__name__}:") and "labels_" in msg, msg
            continue
        assert np.isfinite(v)
        if func is accuracy:
            assert 0 < v <= 1
        elif func is nmi:
            assert -1e-12 <= v <= 1 + 1e-12
        else:
            assert v <= 1 + 1e-12


@SETTINGS
@given(A=hnp.arrays(np.float64, st.tuples(st.integers(1, 7), st.integers(1, 7)),
                    elements=st.floats(-1e3, 1e3)),
       k=st.integers(1, 4))
def test_spectral_any_matrix(A, k):
    """Any real matrix: a clear error (not square / n < k), else k non-empty clusters."""
    n = A.shape[0]
    if A.shape[0] == A.shape[1]:
        A = A + A.T
    try:
        res = spectral_kgroups(A, k, random_state=0, n_init=1)
    except InvalidParameterError as err:
        msg = str(err)
        assert msg.startswith("spectral_kgroups:")
        assert A.shape[0] != A.shape[1] or n < k, msg
        return
    assert np.bincount(res.labels, minlength=k).min() >= 1 and res.labels.max() == k - 1


bad_values = st.one_of(st.none(), st.booleans(), st.text(max_size=3), st.floats(),
                       st.integers(-5, 5), st.lists(st.integers(), max_size=2))


@SETTINGS
@given(value=bad_values)
def test_bad_scalar_parameters_named(value):
    """Any value for a scalar parameter: accepted when valid, else an error naming it."""
    cases = [
        ("energy_distance", "alpha", lambda v: energy_distance(X6, X6 + 1, alpha=v),
         lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
         and 0 < v <= 2),
        ("energy_test", "n_permutations",
         lambda v: energy_test(X6, X6 + 1, n_permutations=v, random_state=0),
         lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0),
        ("spectral_kgroups", "n_clusters", lambda v: spectral_kgroups(np.eye(4), v),
         lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= 4),
        ("within_energy", "sigma",
         lambda v: within_energy(X6, LAB6, semimetric="laplacian", sigma=v),
         lambda v: isinstance(v, (int, float)) and not isinstance(v, bool)
         and np.isfinite(v) and v > 0),
    ]
    for owner, name, call, valid in cases:
        if valid(value):
            out = call(value)
            assert out is not None
        else:
            with raises_naming(owner, name):
                call(value)


# ------------------------------------------------------------------------ public surface
def test_every_public_name_resolves_and_is_listed():
    assert set(kgroups.__all__) <= set(dir(kgroups))
    for name in kgroups.__all__:
        assert getattr(kgroups, name) is not None
    ns = {}
    exec("from kgroups import *", ns)  # noqa: S102 - the star import a user would write
    assert set(kgroups.__all__) <= set(ns)
    assert kgroups.metrics.__name__ == "kgroups.metrics"
    with pytest.raises(AttributeError, match="no_such_name"):
        kgroups.no_such_name  # noqa: B018


def test_import_kgroups_loads_nothing_heavy():
    code = ("import sys, kgroups; heavy = ['sklearn', 'numba', 'scipy', 'matplotlib', "
            "'networkx', 'kgroups.graph', 'kgroups.experiments', 'kgroups._stats.energy']; "
            "print([m for m in heavy if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def public_functions():
    """Every public function of kgroups, kgroups.graph and kgroups.metrics, by name."""
    import kgroups.graph
    import kgroups.metrics

    return {name: getattr(module, name)
            for module in (kgroups, kgroups.graph, kgroups.metrics)
            for name in module.__all__
            if callable(getattr(module, name)) and not isinstance(getattr(module, name), type)}


@pytest.mark.parametrize("name", sorted(public_functions()))
def test_every_public_function_names_itself_on_a_bad_keyword(name):
    """A keyword no function takes: kgroups' error, naming the function (rho_to_origin
    let Python's TypeError through)."""
    with raises_naming(name):
        public_functions()[name](bogus_keyword=1)


@pytest.mark.parametrize("call, owner, hint", [
    (lambda: kgroups.kernel_kgroups(X6, k=2), "kernel_kgroups", "k (did you mean n_clusters?)"),
    (lambda: kgroups.kernel_kmeans(X6, 2, seed=0), "kernel_kmeans",
     "(did you mean random_state?)"),
    (lambda: energy_distance(X6, X6, alpah=1.0), "energy_distance", "(did you mean alpha?)"),
    (lambda: within_energy(X6, LAB6, metric="energy"), "within_energy",
     "(did you mean semimetric?)"),
])
def test_a_likely_slip_gets_a_suggestion(call, owner, hint):
    with raises_naming(owner, hint):
        call()


# ---------------------------------------------------------------- zero sample weights
ZX = np.random.default_rng(21).normal(size=(24, 2))
ZLAB = np.repeat([0, 1, 2], 8)
ZW = np.random.default_rng(22).uniform(0.5, 2.0, 24)
ZW[[1, 9, 10, 23]] = 0.0
ZW_GROUP = ZW.copy()
ZW_GROUP[16:] = 0.0  # every sample of label 2 weighs 0


@pytest.mark.parametrize("w", [ZW, ZW_GROUP], ids=["rows", "a whole group"])
def test_zero_weights_count_as_removed_rows(w):
    """W, S, T, g and the energy distance equal those of the samples of positive weight
    (a group whose samples all weigh 0 adds nothing); a brute-force W as the reference."""
    keep = w > 0
    X, lab, wk = ZX[keep], ZLAB[keep], w[keep]
    for f in (within_energy, between_energy):
        assert f(ZX, ZLAB, sample_weight=w) == pytest.approx(
            f(X, lab, sample_weight=wk), rel=1e-12, abs=0)
    assert total_energy(ZX, sample_weight=w) == pytest.approx(
        total_energy(X, sample_weight=wk), rel=1e-12, abs=0)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    brute = sum(wk[lab == j] @ D[np.ix_(lab == j, lab == j)] @ wk[lab == j]
                / (2 * wk[lab == j].sum()) for j in np.unique(lab))
    assert within_energy(ZX, ZLAB, sample_weight=w) == pytest.approx(brute, rel=1e-12)
    a, b = ZLAB == 0, ZLAB == 1
    assert energy_distance(ZX[a], ZX[b], sample_weight_x=w[a], sample_weight_y=w[b]) == \
        pytest.approx(energy_distance(ZX[a & keep], ZX[b & keep], sample_weight_x=w[a & keep],
                                      sample_weight_y=w[b & keep]), rel=1e-12)
    assert g(ZX, sample_weight_x=w) == pytest.approx(g(X, sample_weight_x=wk), rel=1e-12)


def test_all_zero_weights_of_a_sample_are_refused():
    with raises_naming("energy_distance", "every sample_weight_y is zero"):
        energy_distance(ZX[:5], ZX[5:10], sample_weight_y=np.zeros(5))
    with raises_naming("within_energy", "every sample_weight is zero"):
        within_energy(ZX, ZLAB, sample_weight=np.zeros(24))
    with raises_naming("within_energy", "sample_weight[3]=-1.0", ">= 0"):
        within_energy(ZX, ZLAB, sample_weight=np.r_[np.ones(3), -1.0, np.ones(20)])


def test_onedim_within_energy_beyond_float64_is_an_error():
    """Values near float64's largest whose minimal W exceeds it (found by the property
    above): an error naming x, not an infinite W."""
    big = np.finfo(np.float64).max
    x = np.repeat([-big, 0.0, big], 4)  # two of the three blocks share a group: W = 2 big
    with raises_naming("onedim_kgroups", "overflows float64; divide x by a constant"):
        onedim_kgroups(x)
    res = onedim_kgroups(x / 4)  # the same data scaled: W = big / 2
    assert res.within_energy == pytest.approx(big / 2, rel=1e-12)
    with raises_naming("onedim_kgroups", "divide x or sample_weight by a constant"):
        onedim_kgroups(x / 4, sample_weight=np.full(12, 1e300))
