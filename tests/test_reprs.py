"""The reprs of the result objects are short: the class, the sizes and the key numbers,
never an array (issue 29). Every result is made on (or holds arrays of) 10,000 points."""

import numpy as np
import pytest
import scipy.sparse as sp

import kgroups
from kgroups.graph import CommunityResult, GraphData

N = 10_000
MAX_LEN = 300


def _number(x):
    """How a repr writes a float: 6 significant digits."""
    return f"{float(x):.6g}"


def _check(result, *expected):
    text = repr(result)
    assert len(text) < MAX_LEN, text
    assert text.startswith(type(result).__name__ + "("), text
    assert "array(" not in text and "\n" not in text, text
    for item in expected:
        assert item in text, (item, text)
    return text


@pytest.fixture(scope="module")
def blobs():
    X = np.random.default_rng(0).normal(size=(N, 2))
    X[: N // 2] += 4.0
    return X


@pytest.mark.parametrize("fit", [kgroups.kernel_kgroups, kgroups.kernel_kmeans])
def test_clustering_results(blobs, fit):
    res = fit(blobs, 2, n_init=1, random_state=0)
    _check(res, f"n_samples={N}", "n_clusters=2", f"within_energy={_number(res.within_energy)}",
           f"objective={_number(res.objective)}", f"n_iter={res.n_iter}")


def test_onedim_result(blobs):
    res = kgroups.onedim_kgroups(blobs[:, 0])
    _check(res, f"n_samples={N}", f"threshold={_number(res.threshold)}",
           f"within_energy={_number(res.within_energy)}",
           f"n_left={np.count_nonzero(res.labels == 0)}")


def test_test_results():
    stats = np.linspace(0.0, 1.0, N)
    res = kgroups.EnergyTestResult(12.5, 0.001, N, stats)
    _check(res, "statistic=12.5", "pvalue=0.001", f"n_permutations={N}")
    res = kgroups.DiscoResult(3.25, 0.01, 30.0, 10.0, 20.0, 1, N - 2, N, stats)
    _check(res, "statistic=3.25", "pvalue=0.01", "total=30", "between=10", "within=20",
           "df_between=1", f"df_within={N - 2}", f"n_permutations={N}")


def test_hierarchical_and_spectral_results():
    labels = np.arange(N) % 3
    res = kgroups.HierarchicalResult(labels, np.zeros((N - 1, 2), int), np.ones(N - 1),
                                     np.zeros((N - 1, 4)), 3, 1234.5678)
    _check(res, f"n_samples={N}", "n_clusters=3", "within_energy=1234.57")
    res = kgroups.SpectralResult(labels, np.array([0.5, 0.75, 1.0]), np.zeros((N, 3)))
    _check(res, f"n_samples={N}", "n_clusters=3", "eigenvalues=[0.5, 0.75, 1]")
    res = kgroups.SpectralResult(labels, np.arange(10.0), np.zeros((N, 10)))
    _check(res, "n_clusters=10", "eigenvalues=<ndarray of shape (10,)>")


def test_graph_results():
    labels = np.arange(N) % 4
    res = CommunityResult(labels, 4, labels.copy(), 0.5, 0.41, 0.9, 0.75, 3.0, 7,
                          list(range(N)), np.array([5, 17]))
    _check(res, f"n_nodes={N}", "n_clusters=4", "modularity=0.41", "coverage=0.9",
           "performance=0.75", "r=3", "n_iter=7", "n_isolated=2")
    rows = np.arange(N - 1)
    A = sp.coo_matrix((np.ones(N - 1), (rows, rows + 1)), shape=(N, N))
    graph = kgroups.graph.as_adjacency(A + A.T)
    graph.labels = labels
    _check(graph, f"n_nodes={N}", f"n_edges={N - 1}", "n_communities=4", "weighted=False")
