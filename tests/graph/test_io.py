"""Graph input: networkx, matrices, edge lists (SNAP), GML; every clean-up is explicit."""

import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from kgroups.datasets._real import DATA_DIR, load_network
from kgroups.graph import GraphInputWarning, as_adjacency, read_graph
from kgroups.metrics import accuracy


def no_warnings(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphInputWarning)
        return fn(*args, **kw)


def test_networkx_graph_exact():
    G = nx.karate_club_graph()
    g = no_warnings(as_adjacency, G)
    assert (g.n_nodes, g.n_edges) == (34, 78)
    A = g.adjacency
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0 and set(A.data) == {1.0}
    for u, v in G.edges():
        assert A[u, v] == 1.0
    # edge weights of the karate graph are ignored without a warning (weight=None)


def test_directed_graph_is_symmetrised_with_warning():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 1)])
    with pytest.warns(GraphInputWarning, match="directed input"):
        g = as_adjacency(D)
    assert g.n_edges == 2
    assert g.adjacency[1, 0] == 1.0


def test_self_loops_multi_edges_and_weights():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 2)])
    with pytest.warns(GraphInputWarning) as rec:
        g = as_adjacency(M)
    text = " ".join(str(r.message) for r in rec)
    assert "1 self-loops were removed" in text and "collapsed" in text
    assert g.n_edges == 2 and g.adjacency.diagonal().sum() == 0
    W = sp.csr_matrix(np.array([[0, 2.5, 0], [2.5, 0, 1], [0, 1, 0]]))
    with pytest.warns(GraphInputWarning, match="collapsed"):
        assert as_adjacency(W).adjacency.toarray().tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]


def test_asymmetric_matrix_and_isolated_nodes():
    A = np.zeros((5, 5))
    A[0, 1] = A[2, 3] = 1
    with pytest.warns(GraphInputWarning, match="symmetrised"):
        g = as_adjacency(A)
    assert g.n_nodes == 5 and g.n_edges == 2  # node 4 stays, isolated
    assert np.diff(g.adjacency.indptr).tolist() == [1, 1, 1, 1, 0]


def test_bad_matrices():
    with pytest.raises(ValueError, match="square"):
        as_adjacency(sp.csr_matrix(np.ones((2, 3))))
    with pytest.raises(ValueError, match="negative entries"):
        as_adjacency(np.array([[0, -1.0], [-1.0, 0]]))
    with pytest.raises(ValueError, match="list of edges"):
        as_adjacency([[0, 1], [1, 0]])


def test_snap_edge_list(tmp_path):
    p = tmp_path / "ca-Tiny.txt"
    p.write_text("# Undirected graph: ca-Tiny.txt\n# Nodes: 4 Edges: 3\n"
                 "# FromNodeId\tToNodeId\n10\t20\n20\t10\n20\t35\n35\t20\n10\t35\n35\t10\n7\t7\n")
    with pytest.warns(GraphInputWarning, match="self-loops"):
        g = read_graph(p)
    assert g.nodes == [7, 10, 20, 35]
    assert g.n_edges == 3 and g.adjacency[0].nnz == 0  # node 7 only had a self-loop


def test_csv_edge_list_with_header_matches_loader():
    g = no_warnings(read_graph, DATA_DIR / "football_edges.csv")
    G, _ = load_network("football")
    assert g.n_edges == G.number_of_edges() == 613
    ref = nx.to_scipy_sparse_array(G, nodelist=g.nodes, weight=None)
    assert (g.adjacency != ref).nnz == 0


def test_directed_edge_list_and_repeated_lines(tmp_path):
    p = tmp_path / "arcs.txt"
    p.write_text("a b\nb c\na b\n")
    with pytest.warns(GraphInputWarning) as rec:
        g = read_graph(p, directed=True)
    text = " ".join(str(r.message) for r in rec)
    assert "1 repeated edge lines" in text and "directed input" in text
    assert g.nodes == ["a", "b", "c"] and g.n_edges == 2


@pytest.mark.parametrize("name", ["dolphins", "football", "polbooks"])
def test_gml_with_ground_truth(name):
    g = no_warnings(read_graph, DATA_DIR / f"{name}.gml", label="value")
    G, y = load_network(name)
    assert g.n_nodes == G.number_of_nodes() and g.n_edges == G.number_of_edges()
    # same partition as the bundled CSV labels (codes may differ by a permutation)
    assert accuracy(y, g.labels) == 1.0
    assert np.unique(g.labels).size == np.unique(y).size


def test_file_errors(tmp_path):
    with pytest.raises(ValueError, match="missing.txt' does not exist"):
        read_graph(tmp_path / "missing.txt")
    p = tmp_path / "one.txt"
    p.write_text("# only comments\n")
    with pytest.raises(ValueError, match="no edges"):
        read_graph(p)
    p.write_text("1 2\n3\n")
    with pytest.raises(ValueError, match="fewer than two fields"):
        read_graph(p)
    with pytest.raises(ValueError, match="only read from GML"):
        read_graph(DATA_DIR / "karate_edges.csv", label="club")
    G = nx.path_graph(3)
    with pytest.raises(ValueError, match="lack this attribute"):
        as_adjacency(G, label="club")


def test_a_graph_is_cleaned_once_per_call_chain(monkeypatch):
    """detect_communities checks its graph once (not again in fit and in the quality
    scores); a GraphData whose adjacency was replaced, or built by hand, is checked."""
    import kgroups.graph._io as gio
    from kgroups.graph import GraphData, detect_communities

    calls = []
    clean = gio.clean_adjacency
    monkeypatch.setattr(gio, "clean_adjacency",
                        lambda *a, **kw: calls.append(1) or clean(*a, **kw))
    G = nx.karate_club_graph()
    detect_communities(G, random_state=0)
    assert len(calls) == 1
    g = as_adjacency(G)
    calls.clear()
    detect_communities(g, random_state=0)
    assert calls == []
    # a new matrix assigned to a cleaned GraphData: checked again (directed -> symmetrised)
    g.adjacency = sp.csr_matrix(([1.0, 1.0], ([0, 1], [1, 2])), shape=(34, 34))
    with pytest.warns(GraphInputWarning, match="directed input"):
        h = as_adjacency(g)
    assert (h.adjacency != h.adjacency.T).nnz == 0 and len(calls) == 1
    # a GraphData made by hand: checked
    with pytest.warns(GraphInputWarning, match="self-loops"):
        as_adjacency(GraphData(sp.csr_matrix(np.eye(3)), [0, 1, 2]))
