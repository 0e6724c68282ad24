"""Experiments of the ICML draft and the arXiv paper: smoke runs, eigengap, helpers."""

import numpy as np
import pytest

from kgroups.experiments import registry
from kgroups.experiments import _methods as _m
from kgroups.experiments.icml_fig5 import eigengap_k

PAPER_ITEMS = {
    "icml-fig1": ["icml_fig1.png"],
    "icml-fig2": ["icml_fig2.png"],
    "icml-fig3": ["icml_fig3.png"],
    "icml-table1": ["icml_fig4.png"],
    "icml-fig5": ["icml_fig5_standin.png"],
    "arxiv-fig-1d": ["arxiv_fig_1d.png"],
    "arxiv-fig-gauss": ["arxiv_fig_gauss.png"],
    "arxiv-fig-unbalanced": ["arxiv_fig_unbalanced.png"],
    "arxiv-fig-weird": ["arxiv_fig_weird.png"],
}


@pytest.mark.parametrize("name", sorted(PAPER_ITEMS))
def test_quick_run_writes_markdown_and_pngs(name, tmp_path, monkeypatch):
    monkeypatch.delenv("KGROUPS_SYNAPSE", raising=False)
    module = registry()[name]
    assert module.TITLE and module.PAPER
    text = module.run(str(tmp_path), trials=2, quick=True, seed=1)
    md = tmp_path / f"{name}.md"
    assert md.read_text().strip() == text.strip()
    for png in PAPER_ITEMS[name]:
        data = (tmp_path / png).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000
    assert "paper" in text.lower()


def test_table1_reports_every_printed_paper_value(tmp_path):
    text = registry()["icml-table1"].run(str(tmp_path), trials=2, quick=True)
    printed = ("0.705 ± 0.065", "0.9987 ± 0.0008", "1.0 ± 0.0", "0.676 ± 0.002",
               "0.465 ± 0.03")
    for value in printed:
        assert value in text


def test_fig5_without_data_says_where_to_get_it(tmp_path, monkeypatch):
    monkeypatch.delenv("KGROUPS_SYNAPSE", raising=False)
    text = registry()["icml-fig5"].run(str(tmp_path), quick=True)
    assert "not run: data not shipped" in text and "Collman" in text


def test_fig5_reads_a_user_file(tmp_path):
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(c, 0.3, (30, 11)) for c in (-2.0, 0.0, 2.0)])
    path = tmp_path / "synapse.csv"
    np.savetxt(path, X, delimiter=",")
    text = registry()["icml-fig5"].run(str(tmp_path), quick=True, path=str(path))
    assert "| synapse, n=90 |" in text
    assert (tmp_path / "icml_fig5_synapse.png").is_file()


# ------------------------------------------------------------------ eigengap
def _rw_eigenvalues_brute(A):
    """Eigenvalues of I - D^{-1} A straight from the non-symmetric matrix."""
    L = np.eye(len(A)) - A / A.sum(axis=1, keepdims=True)
    return np.sort(np.linalg.eigvals(L).real)


def test_eigengap_eigenvalues_match_random_walk_laplacian():
    rng = np.random.default_rng(0)
    B = rng.uniform(0.1, 1.0, (9, 9))
    A = B + B.T
    res = eigengap_k(A, k_max=6)
    np.testing.assert_allclose(res.eigenvalues, _rw_eigenvalues_brute(A)[:7], atol=1e-10)
    np.testing.assert_allclose(res.gaps, np.diff(res.eigenvalues))


@pytest.mark.parametrize("sizes", [(5, 5), (4, 6, 3), (3, 3, 3, 3, 3)])
def test_eigengap_counts_disconnected_blocks(sizes):
    A = np.zeros((sum(sizes),) * 2)
    start = 0
    for s in sizes:
        A[start:start + s, start:start + s] = 1.0
        start += s
    assert eigengap_k(A, k_max=8).n_clusters == len(sizes)


@pytest.mark.parametrize("k", [3, 5])
def test_eigengap_finds_the_number_of_gaussian_blobs(k):
    rng = np.random.default_rng(k)
    centres = 8.0 * np.column_stack([np.cos(2 * np.pi * np.arange(k) / k),
                                     np.sin(2 * np.pi * np.arange(k) / k)])
    X = np.vstack([rng.normal(c, 0.5, (40, 2)) for c in centres])
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    assert eigengap_k(np.exp(-d2 / 2.0), k_max=8).n_clusters == k


def test_eigengap_threshold_picks_the_first_large_gap():
    # Two far groups, the second split in two: gaps after 2 (large) and 3 (largest).
    A = np.full((12, 12), 1e-3)
    A[:6, :6] = 1.0
    A[6:9, 6:9] = A[9:, 9:] = 1.0
    A[6:9, 9:] = A[9:, 6:9] = 0.05
    res = eigengap_k(A, k_max=6)
    assert res.n_clusters == 3
    assert eigengap_k(A, k_max=6, threshold=0.1).n_clusters == 2


@pytest.mark.parametrize("kwargs, match", [
    ({"affinity": np.ones((3, 2))}, "symmetric square"),
    ({"affinity": -np.ones((4, 4)), "k_max": 2}, "non-positive sums"),
    ({"affinity": np.ones((4, 4)), "k_max": 4}, "k_max=4"),
    ({"affinity": np.ones((4, 4)), "k_max": 2, "threshold": 0.0}, "threshold=0.0"),
])
def test_eigengap_errors(kwargs, match):
    with pytest.raises(ValueError, match=match):
        eigengap_k(**kwargs)


# ------------------------------------------------------------------ helpers
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
    # reworded warning shows again instead of being filtered by a stale pattern.
    import inspect

    from kgroups import _kernel_kmeans

    source = inspect.getsource(_kernel_kmeans)
    for category, message, why in _m.EXPECTED_WARNINGS:
        assert message.split(" after")[0] in source and category in source and why


def test_pyplot_names_the_extra_when_matplotlib_is_missing(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import raises ModuleNotFoundError
    with pytest.raises(ModuleNotFoundError, match=r"pip install 'kgroups\[plot\]'"):
        _m.pyplot()


def test_require_plot_fails_up_front_naming_the_extra(monkeypatch):
    import sys

    from kgroups.experiments import require_plot

    require_plot()  # installed here: no error
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.delitem(sys.modules, "matplotlib.pyplot", raising=False)
    with pytest.raises(ModuleNotFoundError, match=r"kgroups\[plot\]"):
        require_plot()
