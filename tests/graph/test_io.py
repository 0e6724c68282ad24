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
    G = nx.karate_club_graph()   # networkx stores Zachary's interaction counts, 1 to 7
    g = no_warnings(as_adjacency, G, weight=None)
    assert (g.n_nodes, g.n_edges) == (34, 78) and g.weights is None
    A = g.adjacency
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0 and set(A.data) == {1.0}
    for u, v in G.edges():
        assert A[u, v] == 1.0
    # the default, as networkx: the same edges, and networkx's weights on them, silently
    gw = no_warnings(as_adjacency, G)
    assert (gw.adjacency != A).nnz == 0
    ref = nx.to_scipy_sparse_array(G, nodelist=list(G), weight="weight", format="csr")
    assert (gw.weights != ref).nnz == 0 and gw.weights.nnz == 156
    # a graph whose edges all weigh 1 (no attribute, or 1 everywhere) is unweighted
    assert no_warnings(as_adjacency, nx.path_graph(4)).weights is None
    H = nx.path_graph(3)
    nx.set_edge_attributes(H, 1, "weight")
    assert no_warnings(as_adjacency, H).weights is None
    # another attribute name: 'weight' is not used (networkx's convention), silently
    assert no_warnings(as_adjacency, G, weight="w").weights is None


def test_directed_graph_is_symmetrised_with_warning():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 1)])
    with pytest.warns(GraphInputWarning, match="directed input"):
        g = as_adjacency(D)
    assert g.n_edges == 2
    assert g.adjacency[1, 0] == 1.0


def test_self_loops_multi_edges_and_weights():
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2), (2, 2)])
    with pytest.warns(GraphInputWarning) as rec:   # default: parallel edges summed
        g = as_adjacency(M)
    text = " ".join(str(r.message) for r in rec)
    assert "1 self-loops were removed" in text and "1 parallel edges were merged" in text
    assert g.n_edges == 2 and g.adjacency.diagonal().sum() == 0
    assert g.weights.toarray().tolist() == [[0, 2, 0], [2, 0, 1], [0, 1, 0]]
    with pytest.warns(GraphInputWarning) as rec:   # weight=None: collapsed, as asked
        g = as_adjacency(M, weight=None)
    assert [str(r.message) for r in rec] == [
        "1 self-loops were removed (the Bethe Hessian is defined on simple graphs)"]
    assert g.n_edges == 2 and g.weights is None
    W = sp.csr_matrix(np.array([[0, 2.5, 0], [2.5, 0, 1], [0, 1, 0]]))
    g = no_warnings(as_adjacency, W, weight=None)
    assert g.adjacency.toarray().tolist() == [[0, 1, 0], [1, 0, 1], [0, 1, 0]]


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
    with pytest.raises(ValueError, match=r"^as_adjacency: graph: the adjacency matrix has "
                       r"entry \(0, 1\) = -1.0; expected a finite number >= 0 \(an edge "
                       r"weight; 0 means no edge\)$"):
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
    G = nx.Graph(nx.karate_club_graph())
    nx.set_edge_attributes(G, 1, "weight")   # unweighted
    detect_communities(G, random_state=0)
    assert len(calls) == 1
    g = as_adjacency(G)
    calls.clear()
    detect_communities(g, random_state=0)
    assert calls == []
    # weighted: cleaned once too
    calls.clear()
    detect_communities(nx.karate_club_graph(), random_state=0)
    assert len(calls) == 1
    calls.clear()
    # a new matrix assigned to a cleaned GraphData: checked again (directed -> symmetrised)
    g.adjacency = sp.csr_matrix(([1.0, 1.0], ([0, 1], [1, 2])), shape=(34, 34))
    with pytest.warns(GraphInputWarning, match="directed input"):
        h = as_adjacency(g)
    assert (h.adjacency != h.adjacency.T).nnz == 0 and len(calls) == 1
    # a GraphData made by hand: checked
    with pytest.warns(GraphInputWarning, match="self-loops"):
        as_adjacency(GraphData(sp.csr_matrix(np.eye(3)), [0, 1, 2]))


# --------------------------------------------------------------- edge weights
def test_networkx_weights_missing_zero_parallel_directed_and_loops():
    G = nx.Graph([(0, 1, {"w": 2.5}), (1, 2, {}), (2, 3, {"w": 0})])
    with pytest.warns(GraphInputWarning, match=r"1 edges of weight 'w' = 0 were dropped"):
        g = as_adjacency(G, weight="w")
    # an edge without the attribute weighs 1 (networkx's convention); weight 0 is no edge
    assert g.weights.toarray().tolist() == [[0, 2.5, 0, 0], [2.5, 0, 1, 0], [0, 1, 0, 0],
                                            [0, 0, 0, 0]]
    assert g.adjacency.toarray().tolist() == (g.weights.toarray() > 0).astype(float).tolist()
    M = nx.MultiGraph([(0, 1, {"w": 1.0}), (0, 1, {"w": 3.0}), (1, 2, {"w": 2.0}),
                       (2, 2, {"w": 9.0})])
    with pytest.warns(GraphInputWarning) as rec:
        g = as_adjacency(M, weight="w")
    text = " ".join(str(r.message) for r in rec)
    assert "1 parallel edges were merged into single edges whose weight is the sum" in text
    assert "1 self-loops were removed" in text
    assert g.weights.toarray().tolist() == [[0, 4, 0], [4, 0, 2], [0, 2, 0]]
    D = nx.DiGraph([(0, 1, {"w": 1.0}), (1, 0, {"w": 2.0}), (1, 2, {"w": 5.0})])
    with pytest.warns(GraphInputWarning, match="an undirected edge weighs the sum of its two "
                      "arcs' weights"):
        g = as_adjacency(D, weight="w")
    assert g.weights.toarray().tolist() == [[0, 3, 0], [3, 0, 5], [0, 5, 0]]


@pytest.mark.parametrize("value, shown", [
    (float("nan"), "nan"), (float("inf"), "inf"), (-0.5, "-0.5"), ("heavy", "'heavy'"),
    (None, "None"), (10**400, "1" + "0" * 400), (np.float32(-2), "-2.0"),
])
@pytest.mark.parametrize("weight", ["weight", None])
def test_invalid_networkx_weights_name_the_edge(value, shown, weight):
    G = nx.Graph([("a", "b", {"weight": 1.0}), ("b", "c", {"weight": value})])
    note = " \\(weight=None does not use" if weight is None else "$"
    with pytest.raises(ValueError, match=rf"^as_adjacency: graph: edge \('b', 'c'\) has "
                       rf"'weight' = {shown}; expected a finite number >= 0 \(an edge weight; "
                       rf"0 means no edge\){note}"):
        as_adjacency(G, weight=weight)


@pytest.mark.parametrize("kind", ["dense", "csr", "coo"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf, -3.0])
def test_invalid_matrix_entries_name_the_entry(kind, value):
    A = np.zeros((4, 4))
    A[0, 1] = A[1, 0] = 1.0
    A[2, 3] = A[3, 2] = value
    M = {"dense": A, "csr": sp.csr_matrix(A), "coo": sp.coo_matrix(A)}[kind]
    for weight in (None, "weight"):
        with pytest.raises(ValueError, match=rf"^as_adjacency: graph: the adjacency matrix has "
                           rf"entry \(2, 3\) = {value!r}; expected a finite number >= 0"):
            as_adjacency(M, weight=weight)


def test_matrix_weights_kept_symmetrised_and_collapsed():
    W = np.array([[0, 2.5, 0], [2.5, 0, 1], [0, 1, 0]])
    g = no_warnings(as_adjacency, W, weight="weight")
    assert g.weights.toarray().tolist() == W.tolist() and g.n_edges == 2
    upper = sp.csr_matrix(np.triu(W))   # each edge given once: the sum is the edge's weight
    with pytest.warns(GraphInputWarning, match="symmetrised"):
        assert as_adjacency(upper, weight="weight").weights.toarray().tolist() == W.tolist()
    # the default reads the entries as weights (as networkx.from_numpy_array does)
    assert no_warnings(as_adjacency, W).weights.toarray().tolist() == W.tolist()
    assert no_warnings(as_adjacency, W, weight=None).weights is None


def test_weighted_edge_lists(tmp_path):
    p = tmp_path / "w.txt"
    # a-b in both directions with one weight: one edge; b-c twice: summed; c-d weight 0
    p.write_text("a b 2\nb a 2\nb c 1.5\nc b 0.5\nc d 0\nd e 4\n")
    with pytest.warns(GraphInputWarning) as rec:
        g = read_graph(p, weight="weight")
    text = " ".join(str(r.message) for r in rec)
    assert "1 lines of weight 0 were dropped" in text
    assert "1 repeated edges were merged into single edges whose weight is the sum" in text
    assert g.nodes == ["a", "b", "c", "d", "e"]
    expected = np.zeros((5, 5))
    for i, j, w in [(0, 1, 2.0), (1, 2, 2.0), (3, 4, 4.0)]:
        expected[i, j] = expected[j, i] = w
    np.testing.assert_array_equal(g.weights.toarray(), expected)
    # directed: arcs summed into edges
    with pytest.warns(GraphInputWarning) as rec:
        d = read_graph(p, weight="weight", directed=True)
    text = " ".join(str(r.message) for r in rec)
    assert "sum of its two arcs" in text and "1 lines of weight 0 were dropped" in text
    assert d.weights[0, 1] == 4.0 and d.weights[1, 2] == 2.0
    # a header names the weight column
    h = tmp_path / "h.csv"
    h.write_text("source,target,time,weight\n1,2,100,0.5\n2,3,200,3\n")
    g = no_warnings(read_graph, h, weight="weight")
    assert g.weights[0, 1] == 0.5 and g.weights[1, 2] == 3.0
    # by default too; weight=None ignores the fields after the end points, silently
    assert no_warnings(read_graph, h).weights[0, 1] == 0.5
    assert no_warnings(read_graph, h, weight=None).weights is None
    # no header: the third field, where present (a line without one weighs 1)
    t = tmp_path / "t.txt"
    t.write_text("1 2 3\n2 3\n")
    assert no_warnings(read_graph, t).weights.toarray().tolist() == [
        [0, 3, 0], [3, 0, 1], [0, 1, 0]]
    # a list of two fields is unweighted, as before
    u = tmp_path / "u.txt"
    u.write_text("1 2\n2 3\n3 2\n")
    g = no_warnings(read_graph, u)
    assert g.weights is None and g.n_edges == 2


@pytest.mark.parametrize("text, message", [
    ("1 2 1\n2 3 nan\n", r"line 2 has weight 'nan' \(field 3\); expected a finite number >= 0"),
    ("1 2 1\n2 3 -1\n", r"line 2 has weight '-1' \(field 3\); expected a finite number >= 0"),
    ("1 2 1e999\n", r"line 1 has weight '1e999' \(field 3\); expected a finite number >= 0"),
    ("# c\n1 2 x\n", r"line 2 has weight 'x' \(field 3\), not a number; expected"),
])
def test_invalid_edge_list_weights_name_the_line(tmp_path, text, message):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(ValueError, match=rf"^read_graph: path='[^']*bad.txt': {message}.* "
                       r"\(pass weight=None if field 3 is not an edge weight\)$"):
        read_graph(p)
    assert no_warnings(read_graph, p, weight=None).weights is None


def test_weighted_graph_data_round_trip_and_checks():
    G = nx.Graph([(0, 1, {"weight": 2.0}), (1, 2, {"weight": 3.0})])
    g = as_adjacency(G, weight="weight")
    h = no_warnings(as_adjacency, g, weight="weight")
    assert (h.weights != g.weights).nnz == 0
    assert no_warnings(as_adjacency, g, weight=None).weights is None
    assert (no_warnings(as_adjacency, g).weights != g.weights).nnz == 0
    from kgroups.graph import GraphData

    bad = GraphData(g.adjacency, g.nodes, None, sp.csr_matrix(np.eye(3) + 0.0))
    with pytest.raises(ValueError, match="graph.weights .* and graph.adjacency .* do not hold "
                       "the same edges"):
        quiet_call(as_adjacency, bad, weight="weight")


ALL_ZERO = (r"whose {m} {noun} all have weight 0 \({source}\); an edge of weight 0 is no "
            r"edge, so no edge is left; give the edges positive weights, or {how} to count "
            r"every edge as 1$")


def zero_weight_barbell():
    """Two 5-cliques joined by one edge (21 edges), every edge of weight 0."""
    G = nx.barbell_graph(5, 0)
    nx.set_edge_attributes(G, 0, "weight")
    return G


def test_all_zero_networkx_weights_are_refused_as_such():
    """Issue 41 (6): the edges a user gave all weigh 0; the refusal says so, not 'no
    edges'. Only some edges of weight 0, or a matrix of zeros, change nothing."""
    from kgroups.graph import CommunityKGroups, detect_communities

    G = zero_weight_barbell()
    with pytest.warns(GraphInputWarning, match="21 edges of weight 'weight' = 0 were dropped"):
        with pytest.raises(ValueError, match=r"^detect_communities: graph is a graph with 10 "
                           r"node\(s\) " + ALL_ZERO.format(m=21, noun=r"edge\(s\)", source=
                           "attribute 'weight'", how="pass weight=None")):
            detect_communities(G, random_state=0)
    # another attribute, through CommunityKGroups
    nx.set_edge_attributes(G, 0.0, "w")
    with pytest.raises(ValueError, match=r"^CommunityKGroups: X is a graph with 10 node\(s\) "
                       + ALL_ZERO.format(m=21, noun=r"edge\(s\)", source="attribute 'w'",
                                         how="pass weight=None")):
        quiet_call(CommunityKGroups(2, weight="w").fit, G)
    # as_adjacency(G) then a graph function: its edges are gone, weight=None cannot help
    g = quiet_call(as_adjacency, G)
    assert g.n_edges == 0
    for weight in ("weight", None):
        with pytest.raises(ValueError, match=ALL_ZERO.format(
                m=21, noun=r"edge\(s\)", source="attribute 'weight'",
                how=r"make the graph again with as_adjacency\(\.\.\., weight=None\)")):
            detect_communities(g, weight=weight, random_state=0)
    # a matrix assigned since is another graph: the usual message
    g.adjacency = sp.csr_matrix((10, 10))
    with pytest.raises(ValueError, match=r"graph with 10 node\(s\) and no edges; the Bethe"):
        detect_communities(g, random_state=0)
    # edges of weight 0 and a self-loop: both said
    G.add_edge(0, 0, weight=2.0)
    with pytest.raises(ValueError, match=r"whose 21 edge\(s\) of weight 0 \(attribute "
                       r"'weight'\) were dropped and whose 1 other\(s\) were self-loops"):
        quiet_call(detect_communities, G, random_state=0)
    # a matrix's zeros are not edges
    with pytest.raises(ValueError, match=r"^detect_communities: graph is a graph with 4 "
                       r"node\(s\) and no edges; the Bethe Hessian"):
        detect_communities(np.zeros((4, 4)), random_state=0)
    # only some edges of weight 0: they are dropped, the rest is used (the bridge 4-5)
    H = nx.barbell_graph(5, 0)
    H.edges[4, 5]["weight"] = 0
    with pytest.warns(GraphInputWarning, match="1 edges of weight 'weight' = 0 were dropped"):
        res = detect_communities(H, n_clusters=2, random_state=0)
    assert accuracy(res.labels, [0] * 5 + [1] * 5) == 1.0


def test_all_zero_edge_list_weights_are_refused_as_such(tmp_path):
    from kgroups.graph import detect_communities

    p = tmp_path / "zero.txt"
    p.write_text("".join(f"{u} {v} 0\n" for u, v in nx.barbell_graph(5, 0).edges))
    with pytest.warns(GraphInputWarning, match="21 lines of weight 0 were dropped"):
        with pytest.raises(ValueError, match=r"^detect_communities: graph is a graph with 10 "
                           r"node\(s\) " + ALL_ZERO.format(m=21, noun=r"edge-list line\(s\)",
                                                           source="field 3",
                                                           how="pass weight=None")):
            detect_communities(p, random_state=0)
    g = quiet_call(read_graph, p)
    assert (g.n_nodes, g.n_edges) == (10, 0)
    with pytest.raises(ValueError, match=ALL_ZERO.format(
            m=21, noun=r"edge-list line\(s\)", source="field 3",
            how=r"make the graph again with read_graph\(\.\.\., weight=None\)")):
        detect_communities(g, random_state=0)
    # a header naming the weight column
    h = tmp_path / "zero.csv"
    h.write_text("u,v,time,w\n1,2,7,0\n2,3,8,0\n")
    with pytest.raises(ValueError, match=r"graph with 3 node\(s\) " + ALL_ZERO.format(
            m=2, noun=r"edge-list line\(s\)", source="column 'w'", how="pass weight=None")):
        quiet_call(detect_communities, h, weight="w", random_state=0)


@pytest.mark.parametrize("source", ["networkx", "edge list"])
def test_all_zero_weights_with_weight_none_count_every_edge(tmp_path, source):
    """The remedy the message gives works: weight=None reads every edge as 1, silently."""
    from kgroups.graph import detect_communities

    G = zero_weight_barbell()
    graph = G
    if source == "edge list":
        graph = tmp_path / "zero.txt"
        graph.write_text("".join(f"{u} {v} 0\n" for u, v in G.edges))
    g = no_warnings(as_adjacency, graph, weight=None)
    assert g.n_edges == 21 and g.weights is None
    res = no_warnings(detect_communities, graph, weight=None, random_state=0)
    assert res.n_clusters == 2
    assert accuracy(res.labels, [0] * 5 + [1] * 5) == 1.0


def quiet_call(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)
        return fn(*args, **kw)


def test_dense_input_memory_is_checked(monkeypatch):
    import kgroups._memory as memory

    monkeypatch.setattr(memory, "available_memory", lambda: 1000)
    with pytest.raises(ValueError, match=r"^as_adjacency: graph: the sparse copy of the dense "
                       r"30 x 30 adjacency matrix \(58 nonzero entries\) needs .* GiB .*use a "
                       r"scipy.sparse matrix or a networkx graph instead"):
        as_adjacency(nx.to_numpy_array(nx.path_graph(30)))
    as_adjacency(sp.csr_matrix(nx.to_numpy_array(nx.path_graph(30))))  # sparse: no copy


@pytest.mark.parametrize("call", ["as_adjacency", "detect_communities", "estimate_k",
                                  "bethe_hessian", "CommunityKGroups", "modularity"])
def test_weight_default_uses_the_weight_attribute_silently(call):
    """The karate club carries interaction counts: the default uses them, as networkx's
    algorithms do, without a warning (the same result as weight='weight');
    weight=None reads the same graph unweighted, also without a word."""
    from kgroups import graph as kg

    G = nx.karate_club_graph()
    if call == "CommunityKGroups":
        def fn(graph, **kw):
            return kg.CommunityKGroups(random_state=0, **kw).fit(graph).labels_
    elif call == "modularity":
        club = [G.nodes[v]["club"] == "Officer" for v in G]

        def fn(graph, **kw):
            return kg.modularity(graph, club, **kw)
    else:
        kw0 = {"random_state": 0} if call in ("detect_communities", "estimate_k") else {}

        def fn(graph, **kw):
            return getattr(kg, call)(graph, **kw0, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        default = fn(G)
        weighted = fn(G, weight="weight")
        unweighted = fn(G, weight=None)
    if call == "bethe_hessian":
        assert (default != weighted).nnz == 0 and (default != unweighted).nnz > 0
    elif call == "as_adjacency":
        assert (default.weights != weighted.weights).nnz == 0 and unweighted.weights is None
    elif call == "detect_communities":
        np.testing.assert_array_equal(default.labels, weighted.labels)
        assert unweighted.n_clusters == 2
    elif call == "CommunityKGroups":
        np.testing.assert_array_equal(default, weighted)
    elif call == "modularity":
        assert default == weighted and default != unweighted
    else:
        assert default == weighted == unweighted == 2


def test_karate_club_runs_with_warnings_as_errors():
    """The issue's check, as a user types it: ``python -W error::Warning -c ...``, the
    four calls in one process (a warning names its line in the traceback)."""
    import subprocess
    import sys

    code = ("import networkx as nx\n"
            "from kgroups.graph import CommunityKGroups, detect_communities, estimate_k, "
            "modularity\n"
            "G = nx.karate_club_graph()\n"
            "detect_communities(G, random_state=0)\n"
            "CommunityKGroups(random_state=0).fit(G)\n"
            "estimate_k(G, random_state=0)\n"
            "modularity(G, [d['club'] == 'Officer' for _, d in G.nodes(data=True)])\n")
    run = subprocess.run([sys.executable, "-W", "error::Warning", "-c", code],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
