"""The Monte Carlo harness (``kgroups.experiments._methods``): methods, failed fits,
tables, warnings and the plotting extra.
"""

import warnings

import numpy as np
import pytest
from sklearn.cluster import SpectralClustering

from kgroups.experiments import _methods as _m
from kgroups.experiments._methods import (
    Claim,
    Method,
    claims_markdown,
    fit_labels,
    mean_sd,
    monte_carlo,
    run_methods,
    scores,
    sweep_table,
)


def test_bayes_accuracy_equal_covariances_is_normal_cdf():
    from scipy.stats import norm

    # Means 0.7 * 1_10 apart, identity covariance: Phi(0.7 sqrt(10) / 2) (ICML eq. 26).
    acc = _m.bayes_accuracy(np.vstack([np.zeros(10), np.full(10, 0.7)]), np.ones((2, 10)))
    assert abs(acc - norm.cdf(0.7 * np.sqrt(10) / 2)) < 0.003


def test_monte_carlo_is_reproducible_and_shaped():
    from kgroups.datasets import make_cigars

    methods = (_m.Method("k-means", "kmeans", n_init=1), _m.Method("kg", "kgroups", n_init=1))
    make = lambda m, rng: make_cigars((m, m), random_state=rng)  # noqa: E731
    a = _m.grid_monte_carlo((10, 20), make, methods, 2, 3, seed=4)
    b = _m.grid_monte_carlo((10, 20), make, methods, 2, 3, seed=4)
    assert a.shape == (2, 3, 2)
    np.testing.assert_array_equal(a, b)
    assert np.all((a >= 0.5) & (a <= 1.0))


def test_monte_carlo_is_reproducible_and_stacks():
    def trial(rng):
        return {"x": rng.normal(), "v": rng.normal(size=3)}

    a = monte_carlo(trial, 4, seed=7, progress=False)
    b = monte_carlo(trial, 4, seed=7, progress=False)
    c = monte_carlo(trial, 4, seed=8, progress=False)
    assert a["x"].shape == (4,) and a["v"].shape == (4, 3)
    assert np.array_equal(a["v"], b["v"]) and not np.array_equal(a["v"], c["v"])
    with pytest.raises(ValueError, match="trials=0"):
        monte_carlo(trial, 0)


def test_failed_fit_is_nan_and_counted():
    acc = np.array([[[0.8, np.nan], [0.6, 0.7]]])
    mean, sem = _m.mean_sem(acc)
    np.testing.assert_allclose(mean, [[0.7, 0.7]])
    text = _m.grid_table([1], acc, (_m.Method("a", "kmeans"), _m.Method("b", "gmm")), "n")
    assert "b: 1 failed fits" in text


def test_sweep_table_counts_failed_fits():
    curves = {"a": np.array([[0.9, 0.8], [0.7, 0.6]]), "GMM": np.array([[np.nan, 0.8], [0.7, 0.6]])}
    text = _m.sweep_table("n", [10, 20], curves)
    assert text.splitlines()[2] == "| 10 | 0.800 ± 0.141 | 0.700 ± 0.000 |"
    assert text.endswith("excluded from the means: GMM: 1 of 4")
    assert "Failed" not in _m.sweep_table("n", [10, 20], {"a": curves["a"]})


def test_mean_sd_and_sweep_table():
    values = np.array([[1.0, 2.0], [3.0, 6.0]])
    mean, sd = mean_sd(values)
    assert mean.tolist() == [2.0, 4.0]
    assert np.allclose(sd, [np.sqrt(2.0), np.sqrt(8.0)])
    table = sweep_table("n", [10, 20], {"m": values}, digits=2)
    assert table.splitlines()[2] == "| 10 | 2.00 ± 1.41 |"
    assert table.splitlines()[3] == "| 20 | 4.00 ± 2.83 |"


@pytest.mark.filterwarnings("ignore:Graph is not fully connected")
def test_new_methods_on_separated_data():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1], 30)
    X = np.where(y[:, None] == 0, 0.0, 10.0) + rng.normal(size=(60, 1))
    methods = (Method("s", "spectral"), Method("e", "onedim"))
    spectral, exact = run_methods(X, y, 2, methods, seed=0)
    assert exact.accuracy == 1.0
    # scikit-learn's SpectralClustering on the paper's x0 = 0 kernel (eq. 7): for
    # rho = |x - y| on the line that kernel is min(|x|, |y|) (same sign).
    x = X[:, 0]
    G = np.where(np.sign(x)[:, None] == np.sign(x)[None, :],
                 np.minimum(np.abs(x)[:, None], np.abs(x)[None, :]), 0.0)
    direct = SpectralClustering(2, affinity="precomputed", n_init=5, random_state=0)
    assert np.array_equal(spectral.labels, direct.fit_predict(G))
    got = scores((Method("g", "kgroups", "laplacian", {"sigma": 2.0}),), X, y, 2, 0, "nmi")
    assert got == {"g": 1.0}
    with pytest.raises(ValueError, match="method.kind='nope'"):
        run_methods(X, y, 2, (Method("x", "nope"),))


def test_gmm_starts_differ_and_bad_gmm_init_raises():
    rng = np.random.default_rng(2)
    y = np.repeat([0, 1], 40)
    X = np.where(y[:, None] == 0, 0.0, 6.0) + rng.normal(size=(80, 2))
    for gmm_init in ("kmeans", "kmeans-fit", "k-means++"):
        labels = fit_labels(Method("g", "gmm", gmm_init=gmm_init), X, 2, 0)
        assert abs(np.mean(labels == y) - 0.5) > 0.45, gmm_init  # near 0 or 1: separated
    # A typo in the harness is a bug to see, not a failed fit to average away.
    with pytest.raises(ValueError, match="method.gmm_init='nope'"):
        fit_labels(Method("g", "gmm", gmm_init="nope"), X, 2, 0)


@pytest.mark.parametrize("gmm_init", ["kmeans", "kmeans-fit", "k-means++"])
def test_em_breakdown_is_the_one_failed_fit(gmm_init):
    # Points exactly on a line, far from the origin: each component's covariance is
    # singular up to rounding, EM's Cholesky fails and scikit-learn raises its
    # "ill-defined empirical covariance" ValueError. That is a failed fit (None, NaN).
    t = np.random.default_rng(0).normal(size=60)
    X, y = np.c_[t, t] * 1e6, (t > 0).astype(int)
    method = Method("g", "gmm", gmm_init=gmm_init)
    assert fit_labels(method, X, 2, 0) is None
    assert np.isnan(scores((method,), X, y, 2, 0)["g"])
    with pytest.raises(ValueError, match="'g' failed to fit"):
        run_methods(X, y, 2, (method,))


def test_other_fit_errors_propagate():
    X = np.random.default_rng(0).normal(size=(30, 2))
    # Any other ValueError, from any method, is not a failed fit.
    with pytest.raises(ValueError, match="alpha"):
        fit_labels(Method("kg", "kgroups", params={"alpha": 5.0}), X, 2, 0)
    with pytest.raises(ValueError):
        fit_labels(Method("km", "kmeans"), X, 40, 0)  # more clusters than points


def test_claims_markdown_accepts_claims_and_tuples():
    text = claims_markdown([Claim("a", True, "x"), ("b", False, "y")])
    assert text.splitlines()[2] == "| a | reproduced | x |"
    assert text.splitlines()[3] == "| b | **not reproduced** | y |"


def test_single_thread_filters_only_the_expected_warnings():
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    cycle = "KernelKMeans: the assignments cycle after 7 iterations (the kernel ...); stopping"
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        with _m.single_thread():
            warnings.warn(cycle, ConvergenceWarning)                    # expected: filtered
            warnings.warn(cycle, UserWarning)                           # other category
            warnings.warn("stopped at max_iter=3", ConvergenceWarning)  # other message
            warnings.warn("Mean of empty slice", RuntimeWarning)       # only _all_nan_ok
        warnings.warn(cycle, ConvergenceWarning)                        # outside the block
    assert [(w.category, str(w.message)) for w in rec] == [
        (UserWarning, cycle), (ConvergenceWarning, "stopped at max_iter=3"),
        (RuntimeWarning, "Mean of empty slice"), (ConvergenceWarning, cycle)]


def test_expected_warnings_are_the_libraries_own_text():
    # Each filtered message is the start of a message the library really emits, so a
    # reworded warning shows again instead of being filtered by a stale pattern: an
    # indefinite Gram matrix on which kernel k-means cycles emits it.
    from kgroups import KernelKMeans

    A = np.random.default_rng(0).normal(size=(12, 12))
    rec = []
    for seed in range(200):
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            KernelKMeans(3, kernel="precomputed", init="random", max_iter=500,
                         random_state=seed).fit((A + A.T) / 2)
        if rec:
            break
    emitted = [(r.category.__name__, str(r.message)) for r in rec]
    for category, message, why in _m.EXPECTED_WARNINGS:
        assert why and any(c == category and m.startswith(message) for c, m in emitted), emitted


def test_pyplot_names_the_extra_when_matplotlib_is_missing(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import raises ModuleNotFoundError
    with pytest.raises(ModuleNotFoundError, match=r"the plot extra \(pip install '\.\[plot\]'"):
        _m.pyplot()
