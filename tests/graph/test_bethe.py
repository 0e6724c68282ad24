"""Bethe Hessian, estimate of k and spectral clustering (``kgroups.graph._bethe``)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from kgroups.datasets._real import load_drosophila, load_network
from kgroups.graph import (
    _bethe,
    as_adjacency,
    bethe_hessian,
    bethe_spectral,
    estimate_k,
    stochastic_block_model,
)
from kgroups.graph._bethe import bethe_r, smallest_eigenpairs
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


def _dense_negative(H):
    vals, vecs = np.linalg.eigh(H.toarray())
    return vals[vals < 0], vecs[:, vals < 0]


def test_negative_left_sees_exactly_a_missing_negative_eigenvector():
    # The check of the short count: with every negative eigenvector of H (dense eigh,
    # the reference) projected out, no Ritz value falls below 0; drop any one of them
    # and it does.
    A, _ = stochastic_block_model(600, 3, 10.0, 2.5, random_state=4)
    H = bethe_hessian(A)
    vals, V = _dense_negative(H)
    assert vals.size == 3
    v0 = np.random.default_rng(0).standard_normal(H.shape[0])
    assert not _bethe._negative_left(H, V, v0)
    for drop in range(vals.size):
        assert _bethe._negative_left(H, np.delete(V, drop, axis=1), v0)
    assert _bethe._negative_left(H, V[:, :0], v0)   # nothing found yet


def test_short_count_falls_back_to_the_full_run(monkeypatch):
    # Force the sparse path and a short run too short to converge anything: the
    # check sees the negative eigenvalues it missed and the full run counts them.
    monkeypatch.setattr(_bethe, "DENSE_MAX_NODES", 10)
    A, _ = stochastic_block_model(3000, 4, 10.0, 2.5, random_state=5)
    H = bethe_hessian(A)
    expect = _dense_negative(H)[0]
    assert expect.size == 4
    for quick in (1, 2, _bethe.ESTIMATE_QUICK_MAXITER):
        monkeypatch.setattr(_bethe, "ESTIMATE_QUICK_MAXITER", quick)
        vals, vecs = _bethe.negative_eigenpairs(H, random_state=0)
        np.testing.assert_allclose(vals, expect, rtol=1e-6)
        np.testing.assert_allclose(vecs.T @ vecs, np.eye(4), atol=1e-8)


def test_kmeans_rows_on_a_sample_matches_all_rows(monkeypatch):
    # Past KMEANS_SAMPLE rows the restarts run on a sample and one k-means on all rows
    # follows: on separated blobs it finds the planted groups, as k-means on all rows.
    rng = np.random.default_rng(6)
    centers = rng.normal(scale=6.0, size=(4, 3))
    y = np.repeat(np.arange(4), 500)
    X = centers[y] + rng.normal(size=(2000, 3))
    monkeypatch.setattr(_bethe, "KMEANS_SAMPLE", 300)
    sampled = _bethe.kmeans_rows(X, 4, 5, 0)
    assert sampled.dtype == np.int64 and sampled.shape == (2000,)
    assert overlap(y, sampled) == pytest.approx(1.0)
    # deterministic for a seed
    np.testing.assert_array_equal(sampled, _bethe.kmeans_rows(X, 4, 5, 0))


def test_core_hessian_drops_isolated_nodes_as_fancy_indexing_does():
    # Reference: scipy's own A[core][:, core] and the Bethe Hessian of that submatrix.
    G = nx.gnm_random_graph(60, 70, seed=7)
    G.add_nodes_from(range(60, 66))   # isolated nodes, some interleaved below
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, nodelist=sorted(G, key=lambda v: (v * 7) % 66)),
                      dtype=float)
    core = np.flatnonzero(np.diff(A.indptr) > 0)
    assert core.size < A.shape[0]
    H, r, got_core = _bethe.core_hessian(A, "sqrt-mean-degree", "test")
    np.testing.assert_array_equal(got_core, core)
    expected = _bethe.hessian(A[core][:, core], bethe_r(A))
    np.testing.assert_array_equal(H.toarray(), expected.toarray())
    assert H.has_sorted_indices
