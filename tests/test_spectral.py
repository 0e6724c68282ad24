"""Tests for the spectral relaxation baseline (paper eq. 29)."""

import numpy as np
import pytest
import scipy.sparse
from scipy.spatial.distance import cdist

from kgroups._spectral import (
    SpectralResult,
    kernel_from_semimetric_x0,
    spectral_embedding,
    spectral_kgroups,
)
from kgroups.metrics import accuracy


def _energy_kernel(X, alpha=1.0):
    """Energy kernel with x0 = 0: K = (|x|^a + |y|^a - |x-y|^a) / 2 (paper eq. 7)."""
    rho = cdist(X, X) ** alpha
    return kernel_from_semimetric_x0(rho, np.linalg.norm(X, axis=1) ** alpha)


def _blobs(rng, n_per=40, sep=6.0):
    X = np.vstack([rng.normal([1.0, 1.0], 0.5, (n_per, 2)),
                   rng.normal([1.0 + sep, 1.0 + sep / 2], 0.5, (n_per, 2))])
    return X, np.repeat([0, 1], n_per)


def _sbm_adjacency(rng, sizes=(60, 60, 60), p_in=0.3, p_out=0.02):
    y = np.repeat(np.arange(len(sizes)), sizes)
    P = np.where(y[:, None] == y[None, :], p_in, p_out)
    A = np.triu(rng.random(P.shape) < P, 1).astype(float)
    return scipy.sparse.csr_array(A + A.T), y


def _projector(E):
    return E @ E.T


@pytest.mark.parametrize("seed", range(5))
def test_separated_blobs_perfect(seed):
    X, y = _blobs(np.random.default_rng(seed))
    labels = spectral_kgroups(_energy_kernel(X), 2, random_state=seed).labels
    assert accuracy(y, labels) == 1.0
    assert labels.shape == (80,)


def test_embedding_matches_full_eigendecomposition():
    rng = np.random.default_rng(4)
    X, _ = _blobs(rng, n_per=30)
    G = _energy_kernel(X)
    w = rng.uniform(0.5, 2.0, size=G.shape[0])
    Gt = np.sqrt(w)[:, None] * G * np.sqrt(w)[None, :]
    vals, vecs = np.linalg.eigh(Gt)  # ascending
    assert vals[-2] - vals[-3] > 1e-3 * abs(vals[-1])  # eigengap: subspace well defined
    U = vecs[:, -2:]
    U = U / np.linalg.norm(U, axis=1, keepdims=True)
    E = spectral_embedding(G, 2, sample_weight=w, eigen_solver="dense")
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(_projector(E), _projector(U), atol=1e-9)


def test_sparse_agrees_with_dense():
    A, y = _sbm_adjacency(np.random.default_rng(0))
    E_sparse = spectral_embedding(A, 3, eigen_solver="auto", random_state=0)
    E_dense = spectral_embedding(A.toarray(), 3, eigen_solver="dense")
    np.testing.assert_allclose(_projector(E_sparse), _projector(E_dense), atol=1e-8)
    lab_sparse = spectral_kgroups(A, 3, random_state=1).labels
    lab_dense = spectral_kgroups(A.toarray(), 3, random_state=1).labels
    assert accuracy(lab_dense, lab_sparse) == 1.0
    assert accuracy(y, lab_dense) > 0.95
    # ARPACK on a dense array agrees too
    E_arpack = spectral_embedding(A.toarray(), 3, eigen_solver="arpack", random_state=2)
    np.testing.assert_allclose(_projector(E_arpack), _projector(E_dense), atol=1e-8)


def test_unit_weights_equal_no_weights():
    X, _ = _blobs(np.random.default_rng(8), sep=2.5)
    G = _energy_kernel(X)
    a = spectral_kgroups(G, 3, random_state=5).labels
    b = spectral_kgroups(G, 3, sample_weight=np.ones(G.shape[0]), random_state=5).labels
    np.testing.assert_array_equal(a, b)
    A, _ = _sbm_adjacency(np.random.default_rng(1))
    a = spectral_kgroups(A, 3, random_state=2).labels
    b = spectral_kgroups(A, 3, sample_weight=np.ones(A.shape[0]), random_state=2).labels
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(5))
def test_integer_weights_equal_repeated_rows(seed):
    # overlapping blobs, k = 3: k-means on the rows must use the weights to match
    rng = np.random.default_rng(seed)
    X, _ = _blobs(rng, n_per=25, sep=1.0)
    w = rng.integers(1, 6, size=X.shape[0])
    idx = np.repeat(np.arange(X.shape[0]), w)
    E_w = spectral_embedding(_energy_kernel(X), 3, sample_weight=w)
    E_r = spectral_embedding(_energy_kernel(X[idx]), 3)
    np.testing.assert_allclose(_projector(E_w)[np.ix_(idx, idx)], _projector(E_r), atol=1e-8)
    lab_w = spectral_kgroups(_energy_kernel(X), 3, sample_weight=w, random_state=0).labels
    lab_r = spectral_kgroups(_energy_kernel(X[idx]), 3, random_state=0).labels
    assert accuracy(lab_w[idx], lab_r) == 1.0


def test_kernel_from_semimetric_x0_hand_checked():
    # rho = ||x - y||^2 with x0 = 0 gives the linear kernel x . y
    rng = np.random.default_rng(6)
    X = rng.normal(size=(7, 3))
    K = kernel_from_semimetric_x0(cdist(X, X, "sqeuclidean"), np.sum(X**2, axis=1))
    np.testing.assert_allclose(K, X @ X.T, atol=1e-12)
    # a different base point changes the kernel by a(x) + a(y): K0 - K1 = a_i + a_j
    x0 = np.array([1.0, -2.0, 0.5])
    K1 = kernel_from_semimetric_x0(cdist(X, X), np.linalg.norm(X - x0, axis=1))
    K0 = kernel_from_semimetric_x0(cdist(X, X), np.linalg.norm(X, axis=1))
    a = (np.linalg.norm(X, axis=1) - np.linalg.norm(X - x0, axis=1)) / 2
    np.testing.assert_allclose(K0 - K1, a[:, None] + a[None, :], atol=1e-12)
    K_sp = kernel_from_semimetric_x0(scipy.sparse.csr_array(cdist(X, X)), np.linalg.norm(X, axis=1))
    np.testing.assert_allclose(K_sp, K0, atol=0)


def test_result_eigenvalues_and_embedding():
    rng = np.random.default_rng(9)
    X, _ = _blobs(rng, n_per=20)
    G = _energy_kernel(X)
    w = rng.uniform(0.5, 2.0, size=G.shape[0])
    res = spectral_kgroups(G, 3, sample_weight=w, random_state=0)
    assert isinstance(res, SpectralResult)
    Gt = np.sqrt(w)[:, None] * G * np.sqrt(w)[None, :]
    vals = np.linalg.eigvalsh(Gt)  # ascending
    np.testing.assert_allclose(res.eigenvalues, vals[-3:], rtol=1e-10)
    np.testing.assert_array_equal(res.embedding, spectral_embedding(G, 3, sample_weight=w))
    assert res.labels.shape == (40,)


def test_fill_empty_clusters():
    from kgroups._spectral import _fill_empty
    # k-means found 2 clusters of 6 identical-ish rows; k = 4 asks for two more
    U = np.array([[1.0, 0.0]] * 4 + [[0.9, 0.1], [0.0, 1.0], [0.0, 1.0], [0.2, 0.8]])
    labels = np.array([0, 0, 0, 0, 0, 1, 1, 1])
    got = _fill_empty(labels, U, 4)
    # cluster 2 gets row 4 (farthest from the centre of cluster 0, the largest);
    # cluster 0 (4 equal rows) is still the largest: cluster 3 gets its first row
    assert got.tolist() == [3, 0, 0, 0, 2, 1, 1, 1]
    assert _fill_empty(np.array([1, 0, 1, 0]), U[:4], 2).tolist() == [1, 0, 1, 0]


def test_generator_random_state():
    X, y = _blobs(np.random.default_rng(3))
    a = spectral_kgroups(_energy_kernel(X), 2, random_state=np.random.default_rng(0)).labels
    assert accuracy(y, a) == 1.0
    E = spectral_embedding(_energy_kernel(X), 2, eigen_solver="arpack",
                           random_state=np.random.default_rng(1))
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0, rtol=1e-12)


def test_errors():
    G = np.eye(4)
    with pytest.raises(ValueError, match=r"spectral_kgroups: .*square.*got shape \(3, 4\)"):
        spectral_kgroups(np.ones((3, 4)), 2)
    asym = np.eye(4)
    asym[0, 1] = 0.5
    with pytest.raises(ValueError, match=r"symmetric, but G\[0, 1\]=0.5 != G\[1, 0\]=0.0"):
        spectral_kgroups(asym, 2)
    with pytest.raises(ValueError, match=r"symmetric"):
        spectral_kgroups(scipy.sparse.csr_array(asym), 2)
    with pytest.raises(ValueError, match=r"n_samples=4 should be >= n_clusters=5"):
        spectral_kgroups(G, 5)
    with pytest.raises(ValueError, match=r"n_clusters=0"):
        spectral_kgroups(G, 0)
    bad = np.eye(4)
    bad[2, 2] = np.nan
    with pytest.raises(ValueError, match=r"G contains NaN or infinity: G\[2, 2\]=nan"):
        spectral_kgroups(bad, 2)
    with pytest.raises(ValueError, match="NaN or infinity"):
        spectral_kgroups(scipy.sparse.csr_array(bad), 2)
    with pytest.raises(ValueError, match=r"sample_weight\[1\]=-1.0"):
        spectral_kgroups(G, 2, sample_weight=[1.0, -1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"sample_weight has shape \(2,\), expected \(4,\)"):
        spectral_kgroups(G, 2, sample_weight=[1.0, 1.0])
    with pytest.raises(ValueError, match="eigen_solver='lobpcg'"):
        spectral_kgroups(G, 2, eigen_solver="lobpcg")
    with pytest.raises(ValueError, match="n_init=0"):
        spectral_kgroups(G, 2, n_init=0)
    with pytest.raises(ValueError, match=r"spectral_embedding: n_clusters=2.5"):
        spectral_embedding(G, 2.5)
    with pytest.raises(ValueError, match=r"rho_to_x0 should have shape \(4,\)"):
        kernel_from_semimetric_x0(np.zeros((4, 4)), np.zeros(3))
    with pytest.raises(ValueError, match=r"kernel_from_semimetric_x0: .*square.*\(2, 3\)"):
        kernel_from_semimetric_x0(np.zeros((2, 3)), np.zeros(2))
    with pytest.raises(ValueError, match=r"zero diagonal.*rho_matrix\[0, 0\]=1.0"):
        kernel_from_semimetric_x0(np.eye(3), np.zeros(3))
