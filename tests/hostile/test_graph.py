"""Hostile inputs to kgroups.graph (issue: one front door).

Every public graph callable and reader gets bad graphs, bad files, bad labels and
bad parameters. Each case ends in a clear error (an ``InvalidParameterError``,
a ``ValueError``) naming the callable, the parameter or file and the value, or in
a correct answer: ``k`` non-empty communities and a finite objective.
"""

import os
import re
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kgroups._validation import InvalidParameterError
from kgroups.graph import (
    CommunityKGroups,
    GraphData,
    GraphInputWarning,
    as_adjacency,
    bethe_hessian,
    bethe_spectral,
    coverage,
    detect_communities,
    estimate_k,
    girvan_newman_benchmark,
    modularity,
    partition_quality,
    performance,
    read_graph,
    stochastic_block_model,
)

# data_too_large: hypothesis 6.80 (the oldest the test extra allows) counts the bounded
# lists of these strategies as overruns; newer releases do not
SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.data_too_large])
# networkx's karate graph carries Zachary's interaction counts as 'weight' (1 to 7):
# WEIGHTED_KARATE keeps them, KARATE is the same graph without them (no warning)
WEIGHTED_KARATE = nx.karate_club_graph()
KARATE = nx.karate_club_graph()
for _, _, _d in KARATE.edges(data=True):
    del _d["weight"]
TWO_CLIQUES = nx.disjoint_union(nx.complete_graph(6), nx.complete_graph(7))

# Every public callable that takes a graph, as (name, call(graph)).
GRAPH_CALLS = [
    ("CommunityKGroups", lambda g: CommunityKGroups(2, random_state=0).fit(g)),
    ("detect_communities", lambda g: detect_communities(g, 2, random_state=0)),
    ("estimate_k", lambda g: estimate_k(g)),
    ("bethe_hessian", lambda g: bethe_hessian(g)),
    ("bethe_spectral", lambda g: bethe_spectral(g, 2, random_state=0)),
    ("as_adjacency", lambda g: as_adjacency(g)),
    ("modularity", lambda g: modularity(g, [0, 1])),
    ("coverage", lambda g: coverage(g, [0, 1])),
    ("performance", lambda g: performance(g, [0, 1])),
    ("partition_quality", lambda g: partition_quality(g, [0, 1])),
]


def raises(match, owner=None):
    """pytest.raises for an InvalidParameterError whose message names ``owner`` and ``match``."""
    return pytest.raises(InvalidParameterError, match=(f"^{owner}: " if owner else "") + match)


def quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphInputWarning)
        return fn(*args, **kw)


def check_communities(labels, k, objective=0.0):
    counts = np.bincount(labels, minlength=k)
    assert counts.shape == (k,) and counts.min() >= 1, counts
    assert np.isfinite(objective)


# --------------------------------------------------------------- empty and edgeless graphs
@pytest.mark.parametrize("name, call", GRAPH_CALLS)
@pytest.mark.parametrize("empty", [nx.Graph(), nx.DiGraph(), np.zeros((0, 0)),
                                   sp.csr_matrix((0, 0))], ids=["nx", "nx-di", "dense", "sparse"])
def test_graph_without_nodes(name, call, empty):
    # networkx raised NetworkXError ("Graph has no nodes or edges") before
    owner = "CommunityKGroups" if name == "CommunityKGroups" else name
    with raises("(graph|X) is a (networkx )?graph without nodes", owner):
        call(empty)


@pytest.mark.parametrize("name, call", [c for c in GRAPH_CALLS if c[0] in (
    "CommunityKGroups", "detect_communities", "estimate_k", "bethe_spectral")])
@pytest.mark.parametrize("edgeless", [nx.empty_graph(4), np.zeros((4, 4)), sp.csr_matrix((4, 4))],
                         ids=["nx", "dense", "sparse"])
def test_graph_without_edges(name, call, edgeless):
    with raises(r"(graph|X) is a graph with 4 node\(s\) and no edges", name):
        call(edgeless)


def test_graph_without_edges_metrics_and_hessian():
    E = nx.empty_graph(4)
    with raises("r='sqrt-mean-degree' gives r=0.0", "bethe_hessian"):
        bethe_hessian(E)
    np.testing.assert_allclose(bethe_hessian(E, 2.0).toarray(), 3.0 * np.eye(4))
    for f in (modularity, coverage):
        with raises(f"{f.__name__} is undefined for a graph without edges", f.__name__):
            f(E, [0, 0, 1, 1])
    with raises("coverage is undefined", "partition_quality"):
        partition_quality(E, [0, 0, 1, 1])
    # performance is defined: the 4 inter pairs are non-edges, the 2 intra pairs are not edges
    assert performance(E, [0, 0, 1, 1]) == pytest.approx(4 / 6, abs=1e-15)
    assert as_adjacency(E).n_edges == 0
    with raises("performance needs a graph of at least 2 nodes", "performance"):
        performance(nx.empty_graph(1), [0])


# --------------------------------------------------------------- files
@pytest.fixture
def files(tmp_path):
    good = tmp_path / "g.gml"
    nx.write_gml(TWO_CLIQUES, good)
    text = good.read_text()
    out = {"truncated.gml": text[: len(text) // 2],
           "empty.gml": "",
           "garbage.gml": "graph [ node [ id 0 label",
           "binary.txt": bytes(range(256)) * 4,
           "binary.gml": b"\x00\x01\x02graph [\xff\xfe",
           "latin1.txt": "caf\xe9 na\xefve\n".encode("latin-1"),
           "one_field.txt": "1 2\n3\n",
           "comments.txt": "# nothing\n% here\n\n",
           "header_only.csv": "source,target\n"}
    paths = {}
    for name, content in out.items():
        p = tmp_path / name
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
        paths[name] = p
    paths["dir"] = tmp_path / "adir.gml"
    paths["dir"].mkdir()
    paths["missing"] = tmp_path / "missing.txt"
    return paths


FILE_ERRORS = [("truncated.gml", "is not a valid GML file"), ("empty.gml", "is not a valid GML"),
               ("garbage.gml", "is not a valid GML file"), ("binary.txt", "is a binary file"),
               ("binary.gml", "is a binary file"), ("latin1.txt", "is not UTF-8 text"),
               ("one_field.txt", r"line 2 \('3'\) has fewer than two fields"),
               ("comments.txt", "no edges found"),
               ("dir", "is a directory"), ("missing", "does not exist")]


@pytest.mark.parametrize("key, message", FILE_ERRORS)
def test_bad_files_name_the_file(files, key, message):
    path = files[key]
    sep = ": " if message.startswith(("line", "no edges")) else " "
    pattern = f"{path.name}'{sep}{message}"
    with raises(f"path='[^']*{pattern}", "read_graph"):
        read_graph(path)
    with raises(f"graph='[^']*{pattern}", "as_adjacency"):
        as_adjacency(str(path))
    with raises(f"X='[^']*{pattern}", "CommunityKGroups"):
        CommunityKGroups(2).fit(path)
    with raises(f"graph='[^']*{pattern}", "estimate_k"):
        estimate_k(os.fsencode(path))  # a bytes path too


def test_good_gml_through_every_reader(files, tmp_path):
    p = tmp_path / "g.gml"
    g = read_graph(p)
    assert (g.n_nodes, g.n_edges) == (13, 15 + 21)
    assert estimate_k(p, random_state=0) == estimate_k(TWO_CLIQUES, random_state=0) == 2
    res = detect_communities(p, random_state=0)
    check_communities(res.labels, 2, res.objective)
    assert sorted(np.bincount(res.labels)) == [6, 7]


def test_reader_parameter_errors(tmp_path):
    p = tmp_path / "e.txt"
    p.write_text("a b\nb c\n")
    with raises("delimiter=',,' should be None or a one-character string", "read_graph"):
        read_graph(p, delimiter=",,")
    with raises("directed=1 should be a boolean", "read_graph"):
        read_graph(p, directed=1)
    with raises("header='yes' should be None or a boolean", "read_graph"):
        read_graph(p, header="yes")
    h = tmp_path / "header.csv"
    h.write_text("source,target\n")
    with raises(f"path='{h}': only a header line, no edges", "read_graph"):
        read_graph(h, header=True)
    with raises("label='club' is only read from GML files", "read_graph"):
        read_graph(p, label="club")
    with raises("path=3 should be a file path", "read_graph"):
        read_graph(3)
    gml = tmp_path / "k.gml"
    nx.write_gml(nx.path_graph(3), gml)
    with raises(r"label='club': 3 nodes lack this attribute", "read_graph"):
        read_graph(gml, label="club")


# --------------------------------------------------------------- bad matrices and types
BAD_MATRICES = [
    (np.ones((2, 3)), r"the adjacency matrix should be square \(n_nodes, n_nodes\), got "
                      r"shape \(2, 3\)"),
    (sp.csr_matrix(np.ones((3, 2))), r"should be square .*got shape \(3, 2\)"),
    (np.ones(4), r"should be square .*got shape \(4,\)"),
    (np.ones((2, 2, 2)), r"should be square .*got shape \(2, 2, 2\)"),
    (np.array([[0, np.nan], [np.nan, 0]]), r"the adjacency matrix has entry \(0, 1\) = nan; "
                                           r"expected a finite number >= 0"),
    (np.array([[0, np.inf], [np.inf, 0]]), r"has entry \(0, 1\) = inf; expected a finite"),
    (np.array([[0, -1.0], [-1.0, 0]]), r"has entry \(0, 1\) = -1.0; expected a finite"),
    (np.array([["0", "1"], ["1", "0"]]), "should be an adjacency matrix of numbers, got dtype "
                                         "<U1"),
    (np.array([[0, 1j], [1j, 0]]), "should be an adjacency matrix of numbers, got dtype complex"),
    (np.array([[0, None], [None, 0]]), "should be an adjacency matrix of numbers, got dtype "
                                       "object"),
]


@pytest.mark.parametrize("A, message", BAD_MATRICES)
@pytest.mark.parametrize("name, call", [c for c in GRAPH_CALLS if c[0] in (
    "CommunityKGroups", "estimate_k", "as_adjacency", "modularity", "bethe_hessian")])
def test_bad_adjacency_matrices(A, message, name, call):
    with raises(f"(graph|X).*{message}", name):
        call(A)


def test_estimate_k_non_square_names_the_shape():
    # scipy said "inconsistent shapes" before
    with raises(r"graph: the adjacency matrix should be square \(n_nodes, n_nodes\), got shape "
                r"\(5, 4\)", "estimate_k"):
        estimate_k(sp.random(5, 4, density=0.5, random_state=0, format="csr"))


@pytest.mark.parametrize("bad", [3, 2.5, None, {"a": 1}, [[0, 1], [1, 0]], ((0, 1),), object()])
@pytest.mark.parametrize("name, call", GRAPH_CALLS)
def test_not_a_graph(bad, name, call):
    if name == "CommunityKGroups":  # fit(X): X is checked by as_adjacency's rules
        with raises(r"X=.* is not a graph; expected a networkx graph", name):
            call(bad)
    else:
        with raises(r"graph=.* should be a networkx graph, a scipy.sparse or NumPy adjacency "
                    r"matrix, a GraphData or a path", name):
            call(bad)


def test_graph_data_inconsistent():
    A = sp.csr_matrix(nx.to_scipy_sparse_array(nx.path_graph(3)))
    with raises(r"graph.nodes has 2 entries for 3 rows", "as_adjacency"):
        as_adjacency(GraphData(A, [0, 1]))
    with raises(r"X.adjacency='oops' should be a scipy.sparse or NumPy", "CommunityKGroups"):
        CommunityKGroups(2).fit(GraphData("oops", [0]))
    with raises(r"graph.labels contains None or NaN", "estimate_k"):
        estimate_k(GraphData(A, [0, 1, 2], np.array([0, None, 1], dtype=object)))


# --------------------------------------------------------------- direction and weights
def test_estimate_k_reads_graphs_as_detect_communities_does():
    # one-directional arcs gave k = 0 silently, weights a different k
    G = nx.disjoint_union_all([nx.complete_graph(7) for _ in range(3)])
    for u, v in [(0, 7), (7, 14), (14, 0)]:
        G.add_edge(u, v)
    A = sp.csr_matrix(nx.to_scipy_sparse_array(G, dtype=float))
    upper = sp.triu(A, 1).tocsr()
    weighted = A.multiply(np.random.default_rng(0).uniform(0.1, 9.0, A.shape)).tocsr()
    weighted = weighted + weighted.T
    assert estimate_k(A, random_state=0) == 3
    with pytest.warns(GraphInputWarning, match="symmetrised"):
        assert estimate_k(upper, random_state=0) == 3
    assert estimate_k(weighted, weight=None, random_state=0) == 3
    assert estimate_k(weighted, random_state=0) == 3   # the weights, read by default
    with pytest.warns(GraphInputWarning, match="symmetrised"):
        assert estimate_k(G.to_directed(), random_state=0) == 3
    assert quiet(detect_communities, upper, random_state=0).n_clusters == 3
    assert quiet(detect_communities, weighted, random_state=0).n_clusters == 3


# --------------------------------------------------------------- parameters
BAD_PARAMS = [
    ({"max_iter": 5.0}, "max_iter=5.0 should be an integer >= 1"),  # TypeError in range() before
    ({"max_iter": 0}, "max_iter=0 should be an integer >= 1"),
    ({"n_init": True}, "n_init=True should be an integer >= 1"),
    ({"n_clusters": 0}, "n_clusters=0 should be None or an integer >= 1"),
    ({"n_clusters": 2.5}, "n_clusters=2.5 should be None or an integer >= 1"),
    ({"n_clusters": "2"}, "n_clusters='2' should be None or an integer >= 1"),
    ({"max_k": 0}, "max_k=0 should be an integer >= 1"),
    ({"kmeans_n_init": -1}, "kmeans_n_init=-1 should be an integer >= 1"),
    ({"tol": 1.0}, r"tol=1.0 should be a number in \[0, 1\)"),
    ({"tol": np.nan}, r"tol=nan should be a number in \[0, 1\)"),
    ({"weights": "deg"}, r"weights='deg' should be one of 'none', 'degree'$"),
    ({"init": "kmeans"}, r"init='kmeans' should be one of 'bethe', 'random' or array-like"),
    ({"r": "sqrt"}, r"r='sqrt' should be one of 'sqrt-mean-degree', 'zeta' or a number in "
                    r"\(0, 1e\+150\)"),
    ({"r": 0}, r"r=0 should be one of .* or a number in \(0, 1e\+150\)"),
    ({"r": np.inf}, r"r=inf should be one of .* or a number in \(0, 1e\+150\)"),
    ({"r": 1e300}, r"r=1e\+300 should be one of .* or a number in \(0, 1e\+150\)"),
    ({"random_state": -1}, "random_state=-1 should be None, an integer in"),
    ({"random_state": "seed"}, "random_state='seed' should be None, an integer in"),
    ({"verbose": -1}, "verbose=-1 should be an integer >= 0 or a boolean"),
]


@pytest.mark.parametrize("params, message", BAD_PARAMS)
def test_community_parameters(params, message):
    with raises(message, "CommunityKGroups"):
        CommunityKGroups(**params).fit(KARATE)
    with raises(message, "detect_communities"):
        detect_communities(KARATE, **params)


def test_function_parameter_errors():
    with raises(r"k=2 is spelled n_clusters=2 \(the number of clusters is n_clusters across "
                r"kgroups\)$", "detect_communities"):
        detect_communities(KARATE, k=2)
    with raises(r"unexpected parameter\(s\) \['alpha'\]", "detect_communities"):
        detect_communities(KARATE, alpha=1.0)
    with raises("max_k=0 should be an integer >= 1", "estimate_k"):
        estimate_k(KARATE, max_k=0)
    with raises("r=-2.0 should be one of", "estimate_k"):
        estimate_k(KARATE, r=-2.0)
    with raises("n_clusters=0 should be an integer >= 1", "bethe_spectral"):
        bethe_spectral(KARATE, 0)
    with raises(r"n_samples=34 should be >= n_clusters=35", "bethe_spectral"):
        bethe_spectral(KARATE, 35)
    with raises("n_init=0 should be an integer >= 1", "bethe_spectral"):
        bethe_spectral(KARATE, 2, n_init=0)
    with raises("label=3 should be None or a string", "as_adjacency"):
        as_adjacency(KARATE, label=3)
    with raises("label='club' needs a networkx graph or a GML file", "as_adjacency"):
        as_adjacency(np.eye(2), label="club")
    with raises("resolution=-1 should be a number >= 0", "modularity"):
        modularity(KARATE, np.zeros(34), resolution=-1)


def test_community_size_errors():
    path = nx.Graph([(0, 1), (1, 2)])
    path.add_node(9)  # isolated: 3 non-isolated nodes
    with raises("n_clusters=4 should be at most the number of non-isolated nodes, 3",
                "CommunityKGroups"):
        CommunityKGroups(4).fit(path)
    with raises("n_clusters=4 should be at most", "CommunityKGroups"):
        CommunityKGroups(init=[0, 1, 2, 3]).fit(path)  # k = max label + 1


# --------------------------------------------------------------- init labels
INIT_ERRORS = [
    (np.zeros(5, int), r"init labels have shape \(5,\), expected \(34,\)"),
    (np.arange(34) % 3, r"init labels should lie in \[0, 1\], got min=0 max=2"),
    (-np.ones(34, int), r"init labels should lie in \[0, 1\], got min=-1 max=-1"),
    (np.full(34, 0.5), r"init labels should be integers in \[0, 1\]"),
    (np.r_[np.nan, np.zeros(33)], r"init labels should be integers in \[0, 1\]"),
    (np.array(["a", "b"] * 17), r"init labels should be integers in \[0, 1\]"),
    (np.zeros((34, 1), int), r"init labels have shape \(34, 1\)"),
    (sp.csr_matrix(np.zeros((1, 34))), "init labels should be a 1-D array"),
]


@pytest.mark.parametrize("labels, message", INIT_ERRORS)
def test_bad_init_labels(labels, message):
    with raises(message, "CommunityKGroups"):
        CommunityKGroups(2, init=labels).fit(KARATE)


@pytest.mark.parametrize("k", [2, None])
def test_ragged_init_labels_are_refused_by_name(k):
    with raises("init labels should be an array of integer labels, got a ragged sequence",
                "CommunityKGroups"):
        CommunityKGroups(k, init=[[0] * 34, [1] * 33]).fit(KARATE)


def test_init_labels_with_fewer_values_fill_every_community():
    # CommunityKGroups(3, init=<labels using 2 values>) returned an empty community before;
    # KernelKGroups fills an empty cluster with the node of best gain
    labels = np.arange(34) % 2
    cd = CommunityKGroups(3, init=labels).fit(KARATE)
    check_communities(cd.labels_, 3, cd.objective_)
    assert cd.n_clusters_ == 3 and cd.bethe_labels_ is None
    res = detect_communities(KARATE, 3, init=np.zeros(34, int))
    check_communities(res.labels, 3, res.objective)


def test_integral_float_and_list_init_labels():
    y = np.r_[np.zeros(6), np.ones(7)]
    cd = CommunityKGroups(init=list(y)).fit(TWO_CLIQUES)
    assert cd.n_clusters_ == 2
    np.testing.assert_array_equal(cd.labels_, y.astype(int))


def test_random_state_kinds_and_random_init():
    for rs in (0, np.random.default_rng(1), np.random.RandomState(2), None):
        cd = CommunityKGroups(2, init="random", n_init=2, random_state=rs).fit(TWO_CLIQUES)
        check_communities(cd.labels_, 2, cd.objective_)
        assert sorted(np.bincount(cd.labels_)) == [6, 7]
    a = CommunityKGroups(2, init="random", n_init=3, random_state=5).fit(KARATE)
    b = CommunityKGroups(2, init="random", n_init=3, random_state=5).fit(KARATE)
    np.testing.assert_array_equal(a.labels_, b.labels_)


def test_max_iter_warning_names_community_kgroups():
    from sklearn.exceptions import ConvergenceWarning

    A, _ = stochastic_block_model(300, 3, 6.0, 1.2, random_state=0)
    with pytest.warns(ConvergenceWarning, match="^CommunityKGroups: .*max_iter=1"):
        quiet(CommunityKGroups(3, init="random", max_iter=1, random_state=0).fit, A)


# --------------------------------------------------------------- metrics labels
@pytest.mark.parametrize("f", [modularity, coverage, performance, partition_quality])
@pytest.mark.parametrize("labels, message", [
    ([0, 1], r"labels has shape \(2,\), expected \(34,\)"),
    (np.r_[np.nan, np.zeros(33)], "labels contains NaN or infinity"),
    (np.array([None] + [0] * 33, dtype=object), "labels contains None or NaN"),
    (np.zeros((34, 2)), r"labels has shape \(34, 2\)"),
    (np.array([1, "a"] * 17, dtype=object), "labels mixes values that cannot be compared"),
    (3, r"labels=3 should be array-like"),
])
def test_metric_labels(f, labels, message):
    with raises(message, f.__name__):
        f(KARATE, labels)


def test_metric_labels_any_values():
    lab = np.array(["x"] * 6 + ["y"] * 7)
    assert coverage(TWO_CLIQUES, lab) == 1.0
    assert modularity(TWO_CLIQUES, lab) == pytest.approx(
        1 - (30 / 72) ** 2 - (42 / 72) ** 2, abs=1e-15)


# --------------------------------------------------------------- generators
@pytest.mark.parametrize("args, kw, message", [
    ((100, 1, 3.0, 1.0), {}, "n_clusters=1 should be an integer >= 2"),
    ((100, 2.0, 3.0, 1.0), {}, "n_clusters=2.0 should be an integer >= 2"),
    ((100, 3, 0.0, 1.0), {}, "d=0.0 should be a number > 0"),
    ((100, 3, 4.0, 2.5), {}, r"lam=2.5 should be in \[0, sqrt\(d\)\] = \[0, 2\]"),
    ((100, 3, 4.0, -0.1), {}, "lam=-0.1 should be a number >= 0"),
    ((2, 3, 4.0, 1.0), {}, "n=2 should be >= n_clusters=3"),
    ((10, 2, 9.0, 3.0), {}, "n=10 is too small for a=18"),
    ((0, 2, 3.0, 1.0), {}, "n=0 should be an integer >= 1"),
    ((100, 2, 3.0, 1.0), {"balanced": "yes"}, "balanced='yes' should be a boolean"),
    ((100, 2, 3.0, 1.0), {"random_state": 1.5}, "random_state=1.5 should be None"),
])
def test_sbm_errors(args, kw, message):
    with raises(message, "stochastic_block_model"):
        stochastic_block_model(*args, **kw)


def test_girvan_newman_errors():
    with raises(r"lam=5.0 should be in \[0, 4\]", "girvan_newman_benchmark"):
        girvan_newman_benchmark(5.0)
    with raises("lam=nan should be a number >= 0", "girvan_newman_benchmark"):
        girvan_newman_benchmark(float("nan"))
    A, y = girvan_newman_benchmark(2.0, random_state=np.random.RandomState(0))
    assert A.shape == (128, 128) and np.bincount(y).tolist() == [32] * 4


# --------------------------------------------------------------- hypothesis
@st.composite
def small_graphs(draw):
    n = draw(st.integers(2, 12))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=len(pairs), unique=True))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_edges_from(edges)
    return G


@SETTINGS
@given(G=small_graphs(), k=st.integers(1, 12), weights=st.sampled_from(["none", "degree"]),
       init=st.sampled_from(["bethe", "random"]), seed=st.integers(0, 2**32 - 1))
def test_any_small_graph_gives_k_communities_or_a_clear_error(G, k, weights, init, seed):
    n_core = sum(1 for _, d in G.degree() if d > 0)
    est = CommunityKGroups(k, weights=weights, init=init, random_state=seed)
    if k > n_core:
        with raises(f"n_clusters={k} should be at most the number of non-isolated nodes, "
                    f"{n_core}", "CommunityKGroups"):
            est.fit(G)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # k-means may warn about duplicate eigenvector rows
        est.fit(G)
    check_communities(est.labels_, k, est.objective_)
    assert est.labels_.shape == (G.number_of_nodes(),)
    assert -0.5 - 1e-12 <= est.modularity_ <= 1 and 0 <= est.coverage_ <= 1


@SETTINGS
@given(G=small_graphs(), seed=st.integers(0, 2**32 - 1))
def test_estimated_k_is_used_and_filled(G, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        k = estimate_k(G, random_state=seed)
        res = detect_communities(G, random_state=seed)
    assert res.n_clusters == max(k, 1)
    check_communities(res.labels, res.n_clusters, res.objective)


finite_or_not = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                          st.integers(-3, 3), st.just(0.0))


@SETTINGS
@given(n=st.integers(1, 6), data=st.data())
def test_any_matrix_is_a_clean_graph_or_a_clear_error(n, data):
    A = np.array(data.draw(st.lists(finite_or_not, min_size=n * n, max_size=n * n)),
                 dtype=np.float64).reshape(n, n)
    bad = ~np.isfinite(A) | (A < 0)
    if bad.any():
        i, j = np.argwhere(bad)[0]   # the first bad entry in row-major order
        value = re.escape(repr(float(A[i, j])))
        with raises(rf"graph: the adjacency matrix has entry \({i}, {j}\) = {value}; "
                    "expected a finite number >= 0", "as_adjacency"):
            quiet(as_adjacency, A)
        return
    g = quiet(as_adjacency, A)
    M = g.adjacency
    assert (M != M.T).nnz == 0 and M.diagonal().sum() == 0 and set(M.data) <= {1.0}
    off = (A != 0) | (A.T != 0)
    np.fill_diagonal(off, False)
    assert g.n_edges == off.sum() // 2


@SETTINGS
@given(content=st.binary(max_size=200), suffix=st.sampled_from([".txt", ".csv", ".gml"]))
def test_any_file_is_a_graph_or_a_clear_error(tmp_path_factory, content, suffix):
    p = tmp_path_factory.mktemp("h") / f"f{suffix}"
    p.write_bytes(content)
    try:
        g = quiet(read_graph, p)
    except InvalidParameterError as exc:
        assert str(exc).startswith(f"read_graph: path='{p}'"), str(exc)
        return
    assert g.n_nodes >= 1 and g.adjacency.shape == (g.n_nodes, g.n_nodes)


@SETTINGS
@given(labels=st.lists(st.one_of(st.integers(-5, 5), st.sampled_from(["a", "b", "c"])),
                       min_size=13, max_size=13))
def test_any_labels_give_metrics_in_range_or_a_clear_error(labels):
    kinds = {type(v) for v in labels}
    if len(kinds) > 1:
        with raises("labels mixes values", "modularity"):
            modularity(TWO_CLIQUES, np.array(labels, dtype=object))
        return
    q = modularity(TWO_CLIQUES, labels)
    c, p = partition_quality(TWO_CLIQUES, labels)
    assert -0.5 <= q <= 1 and 0 <= c <= 1 and 0 <= p <= 1
    assert c == coverage(TWO_CLIQUES, labels) and p == performance(TWO_CLIQUES, labels)


# --------------------------------------------------------------- the caller's matrix
def _messy_adjacency(kind):
    """Two 6-cliques joined by one arc, with edge weights 2, one self-loop, one
    duplicate entry and unsorted rows: everything clean_adjacency changes."""
    A = np.zeros((12, 12))
    A[:6, :6] = A[6:, 6:] = 2.0
    np.fill_diagonal(A, 0.0)
    A[0, 6] = 1.0  # one way only
    A[3, 3] = 1.0
    if kind == "dense":
        return A
    M = sp.csr_matrix(A)
    rows = [M.indices[M.indptr[i]:M.indptr[i + 1]][::-1] for i in range(12)]
    vals = [M.data[M.indptr[i]:M.indptr[i + 1]][::-1] for i in range(12)]
    rows[1], vals[1] = np.append(rows[1], 2), np.append(vals[1], 5.0)  # (1, 2) twice
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
    cls = sp.csr_array if kind == "csr_array" else sp.csr_matrix
    return cls((np.concatenate(vals), np.concatenate(rows), indptr), shape=(12, 12))


@pytest.mark.parametrize("kind", ["csr_matrix", "csr_array", "dense"])
@pytest.mark.parametrize("name, call", [
    ("as_adjacency", lambda g: as_adjacency(g)),
    ("detect_communities", lambda g: detect_communities(g, 2, random_state=0)),
    ("bethe_hessian", lambda g: bethe_hessian(g)),
    ("modularity", lambda g: modularity(g, [0] * 6 + [1] * 6)),
    ("estimate_k", lambda g: estimate_k(g)),
])
def test_graph_calls_leave_the_callers_matrix_alone(kind, name, call):
    """Cleaning a graph (weights to 1, loops and duplicates out, symmetrised, rows
    sorted) works on a copy: the caller's arrays are unchanged."""
    g = _messy_adjacency(kind)
    before = [a.copy() for a in ((g,) if kind == "dense" else (g.data, g.indices, g.indptr))]
    quiet(call, g)
    after = (g,) if kind == "dense" else (g.data, g.indices, g.indptr)
    for b, a in zip(before, after):
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------- edge weights (issue 27)
WEIGHTED_CALLS = [
    ("CommunityKGroups", lambda g, w: CommunityKGroups(2, weight=w, random_state=0).fit(g)),
    ("detect_communities", lambda g, w: detect_communities(g, 2, weight=w, random_state=0)),
    ("estimate_k", lambda g, w: estimate_k(g, weight=w)),
    ("bethe_hessian", lambda g, w: bethe_hessian(g, weight=w)),
    ("bethe_spectral", lambda g, w: bethe_spectral(g, 2, weight=w, random_state=0)),
    ("as_adjacency", lambda g, w: as_adjacency(g, weight=w)),
]


def _karate_with(value):
    G = WEIGHTED_KARATE.copy()
    G[5][16]["weight"] = value
    return G


@pytest.mark.parametrize("value, shown", [(float("nan"), "nan"), (-2.0, "-2.0"),
                                          (float("-inf"), "-inf"), ("3", "'3'")])
@pytest.mark.parametrize("name, call", GRAPH_CALLS)
def test_invalid_networkx_weights_are_refused_by_every_call(name, call, value, shown):
    # every graph callable, with its default (weight="weight", or unweighted for coverage
    # and performance, where the conventional 'weight' attribute is checked all the same)
    with raises(rf"(graph|X): edge \(5, 16\) has 'weight' = {shown}; expected a finite "
                r"number >= 0 \(an edge weight; 0 means no edge\)", name):
        call(_karate_with(value))


@pytest.mark.parametrize("value, shown", [(float("nan"), "nan"), (-2.0, "-2.0"),
                                          (float("inf"), "inf"), (None, "None")])
@pytest.mark.parametrize("name, call", WEIGHTED_CALLS)
def test_invalid_weights_are_refused_by_every_weighted_call(name, call, value, shown):
    with raises(rf"(graph|X): edge \(5, 16\) has 'w' = {shown}; expected a finite number "
                r">= 0 \(an edge weight; 0 means no edge\)$", name):
        call(_karate_with_attribute("w", value), "w")
    A = nx.to_numpy_array(KARATE, weight=None)
    A[5, 16] = A[16, 5] = np.nan if value is None else value
    with raises(r"(graph|X): the adjacency matrix has entry \(5, 16\) = ", name):
        call(A, "weight")


def _karate_with_attribute(attr, value):
    G = nx.Graph(KARATE.edges())
    nx.set_edge_attributes(G, 1.5, attr)
    G[5][16][attr] = value
    return G


@pytest.mark.parametrize("name, call", WEIGHTED_CALLS)
def test_weighted_graphs_through_every_call(name, call):
    # the weighted karate graph (interaction counts 1 to 7) is accepted everywhere and
    # read weighted by default, as networkx reads it; weight=None asks for the
    # unweighted graph; neither says a word; another attribute name, absent, is unweighted
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphInputWarning)
        call(WEIGHTED_KARATE, "weight")
        call(WEIGHTED_KARATE, None)
        call(WEIGHTED_KARATE, "absent")


def test_weights_at_any_scale_give_the_same_labels():
    base = CommunityKGroups(weight="weight", random_state=0).fit(WEIGHTED_KARATE)
    assert base.n_clusters_ == 2
    for c in (1e-250, 1e-3, 1e250):
        G = WEIGHTED_KARATE.copy()
        for _, _, d in G.edges(data=True):
            d["weight"] *= c
        est = CommunityKGroups(weight="weight", random_state=0).fit(G)
        assert est.n_clusters_ == 2
        np.testing.assert_array_equal(est.labels_, base.labels_)


def _core_negative_count(G):
    """Reference: the negative eigenvalues of the dense H_r of the non-isolated nodes,
    from numpy's eigvalsh (those within 1e-9 of 0 may fall either way)."""
    A = nx.to_numpy_array(G, weight=None)
    d = A.sum(axis=1)
    r = np.sqrt(d.mean())
    core = d > 0
    H = (r * r - 1) * np.eye(core.sum()) - r * A[np.ix_(core, core)] + np.diag(d[core])
    vals = np.linalg.eigvalsh(H)
    return int(np.sum(vals < -1e-9)), int(np.sum(vals < 1e-9))


@SETTINGS
@given(G=small_graphs(), seed=st.integers(0, 2**32 - 1))
def test_estimate_k_is_the_negative_count_and_never_zero(G, seed):
    low, high = _core_negative_count(G)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        k = estimate_k(G, random_state=seed)
    assert 1 <= k and max(low, 1) <= k <= max(high, 1)
    said = [str(w.message) for w in caught if "no community structure" in str(w.message)]
    assert bool(said) == (k == 1 and low == 0 and high == 0) or (low == 0 < high)


@SETTINGS
@given(G=small_graphs(), k=st.integers(1, 4), seed=st.integers(0, 2**32 - 1),
       spread=st.floats(0.0, 2.0), scale=st.integers(-800, 800))
def test_any_weighted_small_graph_gives_k_communities_or_a_clear_error(G, k, seed, spread,
                                                                       scale):
    rng = np.random.default_rng(seed)
    for _, _, d in G.edges(data=True):
        d["weight"] = float(np.exp(spread * rng.standard_normal()))
    n_core = sum(1 for _, deg in G.degree() if deg > 0)
    est = CommunityKGroups(min(k, n_core), weight="weight", random_state=seed)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(G)
    except InvalidParameterError as exc:
        assert re.match(r"CommunityKGroups: (the weighted Bethe Hessian needs r > 1|edge .* has "
                        r"weight .* times the median edge weight)", str(exc)), str(exc)
        return
    check_communities(est.labels_, min(k, n_core), est.objective_)
    # a power-of-two factor on every weight changes no bit of the result
    G2 = G.copy()
    for _, _, d in G2.edges(data=True):
        d["weight"] = float(np.ldexp(d["weight"], scale))
    est2 = CommunityKGroups(min(k, n_core), weight="weight", random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est2.fit(G2)
    np.testing.assert_array_equal(est2.labels_, est.labels_)
    assert est2.objective_ == est.objective_


@pytest.mark.parametrize("name, call", WEIGHTED_CALLS)
def test_weight_parameter_type(name, call):
    with raises(r"weight=3 should be None or a string \(an edge attribute name\)", name):
        call(KARATE, 3)


def test_directed_weighted_graph_reads_as_the_sum_of_its_arcs():
    # every edge as two arcs of its weight: each undirected weight doubled, which a
    # common factor cannot change
    G = WEIGHTED_KARATE
    with pytest.warns(GraphInputWarning, match="sum of its two arcs"):
        H_directed = bethe_hessian(G.to_directed(), weight="weight").toarray()
    np.testing.assert_allclose(H_directed, bethe_hessian(G, weight="weight").toarray(),
                               rtol=1e-12, atol=1e-12)
    Gl = G.copy()
    Gl.add_edge(3, 3, weight=50.0)
    with pytest.warns(GraphInputWarning, match="self-loops were removed"):
        H_loop = bethe_hessian(Gl, weight="weight").toarray()
    np.testing.assert_array_equal(H_loop, bethe_hessian(G, weight="weight").toarray())


def test_a_self_loop_of_the_largest_weight_is_removed_not_doubled():
    """A self-loop weighing 2^1023 beside an arc (found by the property above): the loop
    is removed before the arcs are symmetrised, so its weight never doubles to inf."""
    A = np.array([[2.0 ** 1023, 1.0], [0.0, 0.0]])
    g = quiet(as_adjacency, A)
    assert g.n_edges == 1 and g.adjacency[0, 1] == g.adjacency[1, 0] == 1.0
