"""ICML Fig. 5 (``icml_fig5``): the synapse data (missing or a user file) and the
eigengap estimate of k.
"""

import numpy as np
import pytest

from kgroups.experiments import registry
from kgroups.experiments.icml_fig5 import eigengap_k


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
