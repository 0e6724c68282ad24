"""Bethe Hessian, estimate of k and spectral clustering (``kgroups.graph._bethe``)."""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from kgroups.datasets._real import load_drosophila, load_network
from kgroups.graph import (
    GraphInputWarning,
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
    # 800 nodes: the dense reference is cheap, and one restart still misses some.
    monkeypatch.setattr(_bethe, "DENSE_MAX_NODES", 10)
    A, _ = stochastic_block_model(800, 4, 10.0, 2.5, random_state=5)
    H = bethe_hessian(A)
    expect = _dense_negative(H)[0]
    assert expect.size == 4
    check, missed = _bethe._negative_left, []

    def spied_check(H, V, v0):
        found = check(H, V, v0)
        missed.append(found and V.shape[1] < 4)
        return found

    monkeypatch.setattr(_bethe, "_negative_left", spied_check)
    for quick in (1, 2, _bethe.ESTIMATE_QUICK_MAXITER):
        monkeypatch.setattr(_bethe, "ESTIMATE_QUICK_MAXITER", quick)
        missed.clear()
        vals, vecs = _bethe.negative_eigenpairs(H, random_state=0)
        np.testing.assert_allclose(vals, expect, rtol=1e-6)
        np.testing.assert_allclose(vecs.T @ vecs, np.eye(4), atol=1e-8)
        if quick == 1:
            assert any(missed)   # the short run missed some, the check saw it: full run


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


# --------------------------------------------------------------- edge weights
def unweighted(graph):
    """The 0/1 adjacency of ``graph`` (its weights ignored, silently)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphInputWarning)
        return as_adjacency(graph, weight=None).adjacency


def weighted_path():
    # 0 -1.0- 1 -2.0- 2, and r chosen so that tanh(beta) = 1/2, tanh(2 beta) = 4/5:
    # mean tanh^2 = (1/4 + 16/25) / 2 = 0.445 = 1/r^2
    G = nx.Graph([(0, 1, {"w": 1.0}), (1, 2, {"w": 2.0})])
    return G, float(np.sqrt(1 / 0.445))


def test_weighted_bethe_hessian_by_hand():
    G, r = weighted_path()
    H = bethe_hessian(G, r, weight="w").toarray()
    # t/(1-t^2): 2/3 and 20/9; t^2/(1-t^2): 1/3 and 16/9; factor r^2 - 1 = 111/89
    expected = 111 / 89 * np.array([[1 + 1 / 3, -2 / 3, 0],
                                    [-2 / 3, 1 + 1 / 3 + 16 / 9, -20 / 9],
                                    [0, -20 / 9, 1 + 16 / 9]])
    np.testing.assert_allclose(H, expected, rtol=1e-13, atol=0)
    beta = _bethe.spin_glass_beta(np.array([1.0, 2.0]), r)
    assert np.tanh(beta) == pytest.approx(0.5, rel=1e-14)


def test_spin_glass_beta_solves_its_condition():
    rng = np.random.default_rng(0)
    for r in (1.05, 2.0, 7.0):
        w = rng.lognormal(0.0, 1.5, 200)
        beta = _bethe.spin_glass_beta(w, r)
        assert np.mean(np.tanh(beta * w) ** 2) == pytest.approx(1 / r**2, rel=1e-13)
        # unique: below and above beta, the mean is below and above 1/r^2
        assert np.mean(np.tanh(0.999 * beta * w) ** 2) < 1 / r**2
        assert np.mean(np.tanh(1.001 * beta * w) ** 2) > 1 / r**2


@pytest.mark.parametrize("value", [1.0, 3.5, 1e-250, 1e250])
def test_equal_weights_give_the_unweighted_results_exactly(value):
    G = nx.karate_club_graph()
    nx.set_edge_attributes(G, value, "w")
    A = as_adjacency(G, weight="w").adjacency
    np.testing.assert_array_equal(bethe_hessian(G, weight="w").toarray(),
                                  bethe_hessian(A).toarray())
    assert estimate_k(G, weight="w", random_state=0) == estimate_k(A, random_state=0) == 2
    np.testing.assert_array_equal(bethe_spectral(G, 2, weight="w", random_state=0),
                                  bethe_spectral(A, 2, random_state=0))


def test_weighted_formula_reduces_to_h_r_for_equal_couplings():
    # the weighted code path itself (not its shortcut): t = 1/r on every edge gives H_r
    A = star_plus_edge()
    for r in (1.2, 2.0, 5.0):
        W = A * 7.0
        H = _bethe.coupling_hessian(_bethe.bethe_couplings(W, r), r).toarray()
        np.testing.assert_allclose(H, _bethe.hessian(A, r).toarray(), rtol=1e-13, atol=1e-13)


def test_weighted_hessian_is_invariant_to_a_common_factor():
    G = nx.karate_club_graph()
    H = bethe_hessian(G, weight="weight").toarray()
    assert not np.allclose(H, bethe_hessian(unweighted(G)).toarray())
    for c in (1e-200, 1e-3, 1e200):
        Gc = G.copy()
        for _, _, d in Gc.edges(data=True):
            d["weight"] *= c
        Hc = bethe_hessian(Gc, weight="weight").toarray()
        np.testing.assert_allclose(Hc, H, rtol=1e-12, atol=1e-12)


def weighted_sbm(n, c, ratio, seed):
    """Two groups with the same edge density inside and across: only weights differ
    (inside: ratio times the weight across, times a factor in [0.8, 1.25])."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    u, v = rng.integers(0, n, int(c * n / 2)), rng.integers(0, n, int(c * n / 2))
    keep = u < v
    u, v = u[keep], v[keep]
    _, first = np.unique(u * n + v, return_index=True)
    u, v = u[first], v[first]
    w = np.where(y[u] == y[v], ratio, 1.0) * rng.uniform(0.8, 1.25, u.size)
    W = sp.coo_matrix((w, (u, v)), shape=(n, n)).tocsr()
    return (W + W.T).tocsr(), y


def test_weights_carry_communities_the_edges_do_not():
    # Edges alone carry no information here (mean degree about 10): unweighted, the
    # Bethe Hessian has one negative eigenvalue, one community; weighted, it finds the
    # two groups (seeds 0-3 give overlaps 0.92 to 0.94).
    W, y = weighted_sbm(2000, 20.0, 5.0, 0)
    A = unweighted(W)
    assert estimate_k(A, random_state=0) == estimate_k(W, weight=None, random_state=0) == 1
    assert overlap(y, bethe_spectral(A, 2, random_state=0)) < 0.1
    assert estimate_k(W, weight="weight", random_state=0) == estimate_k(W, random_state=0) == 2
    assert overlap(y, bethe_spectral(W, 2, weight="weight", random_state=0)) > 0.88


def test_weighted_refusals():
    G, _ = weighted_path()
    with pytest.raises(ValueError, match=r"^bethe_hessian: the weighted Bethe Hessian needs "
                       r"r > 1 .*got r=0.9 on this graph; pass a number r > 1, or weight=None"):
        bethe_hessian(G, 0.9, weight="w")
    bethe_hessian(G, 0.9)  # unweighted: any r > 0
    K = nx.karate_club_graph()
    K[0][1]["weight"] = 1000.0
    with pytest.raises(ValueError, match=r"^estimate_k: edge \(0, 1\) has weight 1000, 333 "
                       r"times the median edge weight: .*beta\*w = 162 is above 10 .*compress "
                       r"the weights \(e.g. np.log1p\) or pass weight=None"):
        estimate_k(K, weight="weight")
    assert estimate_k(K, weight=None) == 2  # unweighted


# --------------------------------------------------------------- k >= 1
@pytest.mark.parametrize("G", [nx.path_graph(30), nx.Graph([(0, 1)]), nx.star_graph(5),
                               nx.balanced_tree(2, 5)], ids=["path", "edge", "star", "tree"])
def test_estimate_k_is_one_without_negative_eigenvalues(G):
    A = as_adjacency(G).adjacency
    H, r, _ = _bethe.core_hessian(A, "sqrt-mean-degree", "test")
    assert np.linalg.eigvalsh(H.toarray()).min() >= 0   # reference: dense, no negative one
    with pytest.warns(UserWarning, match=rf"^estimate_k: no community structure detected at "
                      rf"r={r:.3g}: the Bethe Hessian has 0 negative eigenvalue\(s\), so k = 1"):
        assert estimate_k(G) == 1


# --------------------------------------------------------------- memory
def test_dense_eigendecomposition_memory_is_checked(monkeypatch):
    import kgroups._memory as memory

    monkeypatch.setattr(memory, "available_memory", lambda: 10_000)
    with pytest.raises(ValueError, match=r"^bethe_spectral: the dense eigendecomposition of the "
                       r"34 x 34 Bethe Hessian \(graphs of at most 1000 nodes use it\) needs "
                       r".* GiB .*use a machine or a moment with more free memory"):
        bethe_spectral(as_adjacency(load_network("karate")[0]).adjacency, 2)
    # past DENSE_MAX_NODES, asking for n - 1 eigenvectors needs the dense eigh too
    monkeypatch.setattr(_bethe, "DENSE_MAX_NODES", 10)
    A, _ = stochastic_block_model(600, 2, 10.0, 3.0, random_state=0)
    H = bethe_hessian(A)
    with pytest.raises(ValueError, match=r"600 x 600 Bethe Hessian \(for 599 eigenvectors: "
                       r"sparse Lanczos needs fewer than n - 1 = 599\) needs .* GiB .*use "
                       r"fewer communities \(n_clusters, k or max_k below 599\) instead"):
        smallest_eigenpairs(H, 599)
    assert smallest_eigenpairs(H, 2, 0)[0].shape == (2,)  # Lanczos: no dense matrix
    monkeypatch.setattr(memory, "available_memory", lambda: 2**40)
    assert smallest_eigenpairs(H, 599)[1].shape == (600, 599)
