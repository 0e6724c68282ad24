"""Graph partition quality against networkx on real graphs, and hand-worked values."""

import networkx as nx
import numpy as np
import pytest
from networkx.algorithms.community import modularity as nx_modularity
from networkx.algorithms.community import partition_quality as nx_partition_quality

from kgroups.datasets._real import load_drosophila, load_network
from kgroups.graph import coverage, modularity, partition_quality, performance


def as_sets(labels):
    return [set(np.flatnonzero(labels == c).tolist()) for c in np.unique(labels)]


@pytest.mark.parametrize("name", ["karate", "dolphins", "football", "polbooks"])
def test_against_networkx_real_graphs(name):
    G, y = load_network(name)
    rng = np.random.default_rng(0)
    for labels in (y, rng.integers(0, 3, y.size), np.zeros(y.size, int)):
        parts = as_sets(labels)
        assert modularity(G, labels) == pytest.approx(nx_modularity(G, parts), abs=1e-12)
        assert modularity(G, labels, resolution=0.5) == pytest.approx(
            nx_modularity(G, parts, resolution=0.5), abs=1e-12)
        cov, perf = nx_partition_quality(G, parts)
        assert partition_quality(G, labels) == pytest.approx((cov, perf), abs=1e-12)


def test_against_networkx_drosophila():
    A, y, _ = load_drosophila("left")
    G = nx.from_scipy_sparse_array(A)
    parts = as_sets(y)
    assert modularity(A, y) == pytest.approx(nx_modularity(G, parts), abs=1e-12)
    assert (coverage(A, y), performance(A, y)) == pytest.approx(
        nx_partition_quality(G, parts), abs=1e-12)


def test_hand_values_two_triangles():
    # two triangles joined by one edge: m = 7, 6 intra edges, 15 pairs
    G = nx.barbell_graph(3, 0)
    lab = np.array([0, 0, 0, 1, 1, 1])
    assert coverage(G, lab) == pytest.approx(6 / 7, abs=1e-15)
    # intra edges 6 + inter non-edges (9 inter pairs - 1 edge) = 14 of 15
    assert performance(G, lab) == pytest.approx(14 / 15, abs=1e-15)
    # each side: L_c = 3, D_c = 7 -> 2 * (3/7 - (7/14)^2)
    assert modularity(G, lab) == pytest.approx(2 * (3 / 7 - 0.25), abs=1e-15)
    assert modularity(G, np.zeros(6)) == pytest.approx(0.0, abs=1e-15)


def test_weighted_modularity_against_networkx_and_by_hand():
    """As networkx: modularity uses the 'weight' attribute where present (an edge
    without it weighs 1) and weight=None ignores it; coverage and performance count
    edges."""
    G = nx.karate_club_graph()   # Zachary's interaction counts, 1 to 7
    rng = np.random.default_rng(1)
    club = np.array([G.nodes[v]["club"] == "Officer" for v in G], dtype=int)
    for labels in (club, rng.integers(0, 3, 34)):
        parts = as_sets(labels)
        for weight in ("weight", None):
            assert modularity(G, labels, weight=weight) == pytest.approx(
                nx_modularity(G, parts, weight=weight), abs=1e-12)
        assert modularity(G, labels, 0.5) == pytest.approx(
            nx_modularity(G, parts, resolution=0.5), abs=1e-12)
        assert partition_quality(G, labels) == pytest.approx(
            nx_partition_quality(G, parts), abs=1e-12)
    # two triangles, the bridge weighs 4: m = 10, L_c = 3, D_c = 10 on each side
    B = nx.barbell_graph(3, 0)
    B[2][3]["weight"] = 4.0
    lab = np.array([0, 0, 0, 1, 1, 1])
    assert modularity(B, lab) == pytest.approx(2 * (3 / 10 - (10 / 20) ** 2), abs=1e-15)
    assert modularity(B, lab, weight=None) == pytest.approx(2 * (3 / 7 - 0.25), abs=1e-15)
    assert coverage(B, lab) == pytest.approx(6 / 7, abs=1e-15)
    # a matrix: its entries are the weights
    A = nx.to_scipy_sparse_array(B, nodelist=range(6), format="csr")
    assert modularity(A, lab) == pytest.approx(0.1, abs=1e-15)


def test_errors():
    G = nx.path_graph(4)
    with pytest.raises(ValueError,
                       match="modularity: labels has shape \\(2,\\), expected \\(4,\\)"):
        modularity(G, [0, 1])
    E = nx.empty_graph(3)
    with pytest.raises(ValueError, match="without edges"):
        coverage(E, [0, 0, 1])
