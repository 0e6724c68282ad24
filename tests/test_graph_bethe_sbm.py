"""Bethe Hessian, estimate of k, spectral clustering, and the SBM generators."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from kgroups.datasets._real import load_drosophila, load_network
from kgroups.graph import (
    as_adjacency,
    bethe_hessian,
    bethe_spectral,
    estimate_k,
    girvan_newman_benchmark,
    stochastic_block_model,
)
from kgroups.graph import _bethe
from kgroups.graph._bethe import bethe_r, smallest_eigenpairs
from kgroups.graph._sbm import sbm_parameters
from kgroups.metrics import overlap


def star_plus_edge():
    # star 0-{1,2,3} and an edge 4-5: degrees 3,1,1,1,1,1
    return sp.csr_matrix(nx.to_scipy_sparse_array(nx.Graph([(0, 1), (0, 2), (0, 3), (4, 5)])),
                         dtype=float)


def test_bethe_hessian_by_hand():
    A = star_plus_edge()
    d = np.array([3, 1, 1, 1, 1, 1.0])
    assert bethe_r(A) == pytest.approx(np.sqrt(8 / 6), rel=1e-15)
    # zeta = sum d^2 / sum d - 1 = 14/8 - 1
    assert bethe_r(A, "zeta") == pytest.approx(np.sqrt(14 / 8 - 1), rel=1e-15)
    H = bethe_hessian(A, 1.5).toarray()
    expected = (1.5**2 - 1) * np.eye(6) - 1.5 * A.toarray() + np.diag(d)
    np.testing.assert_allclose(H, expected, rtol=0, atol=1e-15)
    assert bethe_hessian(A).nnz == A.nnz + 6


def test_bad_r():
    A = star_plus_edge()
    for r in (0, -1.0, "sqrt", np.nan, True):
        with pytest.raises(ValueError, match="bethe_hessian: r="):
            bethe_hessian(A, r)
    with pytest.raises(ValueError, match="without edges"):
        bethe_r(sp.csr_matrix((3, 3)))
    # zeta = 0 when every edge is an isolated pair: a clear error, not r = 0
    with pytest.raises(ValueError, match="zeta"):
        bethe_hessian(nx.Graph([(0, 1), (2, 3)]), "zeta")


def test_lanczos_agrees_with_dense(monkeypatch):
    A, _ = stochastic_block_model(800, 4, 8.0, 2.5, random_state=3)
    H = bethe_hessian(A)
    vals_d, vecs_d = smallest_eigenpairs(H, 4, 0)
    monkeypatch.setattr(_bethe, "DENSE_MAX_NODES", 10)
    vals_s, vecs_s = smallest_eigenpairs(H, 4, 0)
    np.testing.assert_allclose(vals_s, vals_d, rtol=1e-7)
    # same invariant subspace: the projector onto the span agrees
    np.testing.assert_allclose(vecs_s @ vecs_s.T, vecs_d @ vecs_d.T, atol=1e-5)
    assert estimate_k(A, random_state=0) == 4
    assert np.all(vals_d < 0)


def test_estimate_k_sbm_and_cap(monkeypatch):
    monkeypatch.setattr(_bethe, "DENSE_MAX_NODES", 10)   # force the sparse path
    A, _ = stochastic_block_model(3000, 6, 10.0, 3.0, random_state=1)
    assert estimate_k(A, random_state=0) == 6
    with pytest.warns(UserWarning, match="Raise max_k"):
        assert estimate_k(A, max_k=3, random_state=0) == 3
    with pytest.raises(ValueError, match="max_k"):
        estimate_k(A, max_k=0)


@pytest.mark.parametrize("side", ["left", "right"])
def test_estimate_k_drosophila_is_two(side):
    # TPAMI section 6 (Table V): "For both graphs we found that k = 2".
    A, _, _ = load_drosophila(side)
    assert estimate_k(A) == 2


def test_bethe_spectral_real_networks():
    # Bethe column of TPAMI Table IV: karate 1.00, dolphins 0.97, football 0.90.
    for name, k, expect in (("karate", 2, 1.0), ("dolphins", 2, 0.967), ("football", 12, 0.90)):
        G, y = load_network(name)
        ov = overlap(y, bethe_spectral(as_adjacency(G).adjacency, k, random_state=0))
        assert ov >= expect - 0.005, (name, ov)


def test_sbm_parameters():
    a, b = sbm_parameters(4, 16.0, 3.5)
    assert (a, b) == (16 + 3.5 * 3 * 4, 16 - 3.5 * 4)
    assert (a - b) / (4 * np.sqrt(16)) == pytest.approx(3.5)
    assert (a + 3 * b) / 4 == pytest.approx(16.0)
    for bad, name in (((1, 3, 1), "k="), ((3, 0, 1), "d="), ((3, 4.0, 2.5), "lam=")):
        with pytest.raises(ValueError, match="stochastic_block_model: " + name):
            stochastic_block_model(100, *bad)


@pytest.mark.parametrize("n, direct", [(3000, True), (60000, False)])
def test_sbm_edge_statistics(n, direct):
    k, d, lam = 3, 6.0, 1.5
    a, b = sbm_parameters(k, d, lam)
    A, y = stochastic_block_model(n, k, d, lam, balanced=True, random_state=5)
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0 and A.max() == 1
    sizes = np.bincount(y)
    assert sizes.max() - sizes.min() <= 1
    assert (n // k) ** 2 > 2 * (1 << 20) or direct  # the large case uses pair sampling
    coo = sp.triu(A, 1).tocoo()
    same = y[coo.row] == y[coo.col]
    exp_in = a / n * np.sum(sizes * (sizes - 1) / 2)
    exp_out = b / n * (n * n - np.sum(sizes**2)) / 2
    # counts are binomial: within 5 standard deviations
    assert abs(same.sum() - exp_in) < 5 * np.sqrt(exp_in)
    assert abs((~same).sum() - exp_out) < 5 * np.sqrt(exp_out)


def test_sbm_random_classes_and_reproducible():
    A1, y1 = stochastic_block_model(5000, 5, 3.0, 1.0, random_state=9)
    A2, y2 = stochastic_block_model(5000, 5, 3.0, 1.0, random_state=9)
    assert (A1 != A2).nnz == 0 and np.array_equal(y1, y2)
    counts = np.bincount(y1)
    assert counts.min() < counts.max()  # multinomial, not forced equal
    assert abs(A1.sum() / 5000 - 3.0) < 0.15


def test_girvan_newman_benchmark():
    A, y = girvan_newman_benchmark(2.0, random_state=0)
    assert A.shape == (128, 128) and np.bincount(y).tolist() == [32] * 4
    a, _ = sbm_parameters(4, 16.0, 1.5)
    degs = [girvan_newman_benchmark(1.5, random_state=s)[0].sum() / 128 for s in range(200)]
    # each node has n/k - 1 partners at p = a/n, n - n/k at b/n: mean d - a/n
    assert abs(np.mean(degs) - (16 - a / 128)) < 0.15
