"""The semimetric of the neighbourhood graph (``semimetric="nearest_neighbors"``) and
``semimetric="auto"``: the kernel against a dense reference written here, its
properties, the graph's corner cases, new points, and the issue's numbers."""

import numpy as np
import pytest
import scipy.linalg
import scipy.sparse
import scipy.sparse.csgraph
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.metrics import adjusted_rand_score as ari

from kgroups import KernelKGroups, KernelKMeans
from kgroups._semimetrics import auto, neighbors as nb
from kgroups.datasets import load_dermatology, load_iris, load_wine

NN = "nearest_neighbors"


def _maximum_spanning_tree(W):
    """The edges of the maximum spanning tree of the connected graph of weights ``W``
    (0: no edge), by Prim's method on the dense matrix."""
    m = W.shape[0]
    tree = np.zeros((m, m), bool)
    inside = np.zeros(m, bool)
    inside[0] = True
    for _ in range(m - 1):
        cand = np.where(inside[:, None] & ~inside[None, :], W, 0.0)
        i, j = np.unravel_index(np.argmax(cand), cand.shape)
        assert cand[i, j] > 0, "the reference needs a connected graph"
        tree[i, j] = tree[j, i] = inside[j] = True
    return tree


def _reference_features(X, k, n_neighbors):
    """The embedding of the module docstring, by dense NumPy (no kgroups code): all
    pairwise distances, the core points, the locally scaled weights, the edges (either
    end naming the other, or both and the maximum spanning tree where at least
    ``mutual_share_needed`` of the relations are mutual), the symmetric walk matrix,
    ``eigh``, the rows normalised, the other points placed by the Nystrom
    extension; a connected graph of distinct points with unit weights only."""
    n = X.shape[0]
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    nbrs = np.argsort(D, axis=1)[:, :n_neighbors]
    r = D[np.arange(n), nbrs[:, -1]]
    core = np.flatnonzero(r <= nb.CORE_SPREAD * np.median(r[nbrs], axis=1))
    Dc = D[np.ix_(core, core)]
    m = len(core)
    order = np.argsort(Dc, axis=1)[:, :n_neighbors]
    scale = Dc[np.arange(m), order[:, nb.LOCAL_SCALE - 1]]
    near = np.zeros((m, m), bool)
    near[np.repeat(np.arange(m), n_neighbors), order.ravel()] = True
    weight = np.exp(-Dc ** 2 / np.outer(scale, scale))
    edges = near | near.T
    needed = 1 - (1 - nb.MUTUAL_SHARE) * np.sqrt(10 / n_neighbors)
    if (near & near.T).sum() >= needed * near.sum():
        edges = (near & near.T) | _maximum_spanning_tree(np.where(edges, weight, 0.0))
    A = np.where(edges, weight, 0.0)
    d = A.sum(1)
    S = A / np.sqrt(np.outer(d, d))
    lam, U = scipy.linalg.eigh(S)
    lam, U = lam[::-1][:k], U[:, ::-1][:, :k]
    psi = U / np.sqrt(d)[:, None]
    E = np.empty((n, k))
    E[core] = psi / np.linalg.norm(psi, axis=1, keepdims=True)
    rest = np.setdiff1d(np.arange(n), core)
    Dr = D[np.ix_(rest, core)]
    to_core = np.argsort(Dr, axis=1)[:, :n_neighbors]
    dr = np.take_along_axis(Dr, to_core, axis=1)
    a = np.exp(-dr ** 2 / (dr[:, [nb.LOCAL_SCALE - 1]] * scale[to_core]))
    P = np.einsum("ij,ijc->ic", a, psi[to_core]) / a.sum(1, keepdims=True) / lam
    E[rest] = P / np.linalg.norm(P, axis=1, keepdims=True)
    return E


@pytest.mark.parametrize("data", ["blobs and noise", "uniform square"])
def test_kernel_equals_a_dense_reference_and_is_psd(data, monkeypatch):
    """Two Gaussian blobs in uniform noise: 77 % of the neighbour relations mutual
    (78 % needed at 8 neighbours), the symmetric graph; points of a uniform square:
    83 %, the mutual graph and its spanning tree."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (60, 2)), rng.normal([5, 0], 1, (60, 2)),
                   rng.uniform(-4, 9, (12, 2))])
    if data == "uniform square":
        X = rng.uniform(0, 1, (150, 2))
    shares, mutual_graph = [], nb.mutual_graph

    def spy(D, n_neighbors):
        shares.append(D.minimum(D.T).nnz / D.nnz)
        return mutual_graph(D, n_neighbors)

    monkeypatch.setattr(nb, "mutual_graph", spy)
    fmap = nb.NeighborGraphMap.fit(X, np.ones(len(X)), n_neighbors=8, n_clusters=3,
                                   random_state=0)
    assert (shares[0] >= nb.mutual_share_needed(8)) == (data == "uniform square")
    assert fmap.n_components == 1 and fmap.nodes.shape[0] < X.shape[0]  # some not core
    K = fmap.features @ fmap.features.T
    E = _reference_features(X, 3, 8)
    np.testing.assert_allclose(K, E @ E.T, atol=1e-8)  # the Gram: any basis of the space
    lam = np.linalg.eigvalsh(K)
    assert lam.min() >= -1e-10 * lam.max()
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_mutual_graph_by_brute_force(seed):
    """Random one-sided relations of random weights, some pairs both ways, in three
    groups with no relation between them: the symmetric graph below the share; at or
    above it the mutual pairs and the maximum spanning tree (Prim, dense) of each
    group, so the components are those of the symmetric graph."""
    rng = np.random.default_rng(seed)
    m, sizes = 30, [12, 10, 8]
    group = np.repeat(np.arange(3), sizes)
    R = (rng.random((m, m)) < 0.3) & (group[:, None] == group[None, :])
    np.fill_diagonal(R, False)
    R |= R.T & (rng.random((m, m)) < (0.5 if seed % 2 else 0.98))  # mostly mutual or not
    for g in range(3):  # each group connected: a chain of relations
        idx = np.flatnonzero(group == g)
        R[idx[:-1], idx[1:]] = True
    Wsym = np.triu(rng.uniform(0.05, 1.0, (m, m)), 1)
    Wsym = Wsym + Wsym.T
    D = scipy.sparse.csr_matrix(np.where(R, Wsym, 0.0))
    either = R | R.T
    share = (R & R.T).sum() / R.sum()
    expected = either
    if share >= nb.MUTUAL_SHARE:  # the share needed at 10 neighbours
        tree = np.zeros((m, m), bool)
        for g in range(3):
            idx = np.flatnonzero(group == g)
            block = np.ix_(idx, idx)
            tree[block] = _maximum_spanning_tree(np.where(either, Wsym, 0.0)[block])
        expected = (R & R.T) | tree
    A = nb.mutual_graph(D, 10).toarray()
    np.testing.assert_array_equal(A > 0, expected)
    np.testing.assert_allclose(A[expected], Wsym[expected])
    n_comp, comp = scipy.sparse.csgraph.connected_components(A)
    assert n_comp == 3 and ari(group, comp) == 1.0
    assert (share >= nb.MUTUAL_SHARE) == (seed % 2 == 0)


@pytest.mark.parametrize("n_neighbors", [3, 5, 10, 20])
def test_the_share_needed_follows_that_of_an_even_density(n_neighbors):
    """Points of an even density are mutual neighbours more often the more neighbours
    each names (76 % at 3, 89 % at 20 in a square); the share needed rises with them,
    so a uniform square gets the mutual graph at every n_neighbors and a 10-D Gaussian
    cloud (hubs: 46 to 52 % mutual) at none."""
    rng = np.random.default_rng(0)
    for U, mutual in ((rng.random((3000, 2)), True), (rng.normal(size=(3000, 10)), False)):
        A, _ = nb.knn_graph(U, n_neighbors)
        near = nb._index(U).kneighbors(U, n_neighbors + 1)[1][:, 1:]
        rows = np.repeat(np.arange(3000), n_neighbors)
        R = scipy.sparse.csr_matrix((np.ones(near.size), (rows, near.ravel())), shape=(3000, 3000))
        assert (A.nnz < R.maximum(R.T).nnz) == mutual


def test_sparse_outer_arms_of_a_spiral_stay_apart():
    """Three arms drawn at equal steps of angle, so each is sparser outwards: an outer
    point's neighbours reach across to the next arm's denser stretch, whose points do
    not name it back. The mutual graph drops those edges and finds the arms; the
    symmetric graph (every relation kept) joins them."""
    t = np.linspace(1.3 * 2 * np.pi / 7, 1.3 * 2 * np.pi, 100)
    X = np.vstack([np.c_[t * np.cos(t + a * 2 * np.pi / 3), t * np.sin(t + a * 2 * np.pi / 3)]
                   for a in range(3)])
    y = np.repeat(np.arange(3), 100)
    assert ari(y, KernelKGroups(3, semimetric=NN, random_state=0).fit_predict(X)) == 1.0
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(nb, "MUTUAL_SHARE", 1.01)
        assert ari(y, KernelKGroups(3, semimetric=NN, random_state=0).fit_predict(X)) < 0.5


def test_more_components_than_clusters_group_them_by_distance():
    rng = np.random.default_rng(1)
    centres = np.array([[0, 0], [3, 0], [0, 3], [30, 0], [33, 0]], float)
    X = np.vstack([rng.normal(c, 0.3, (60, 2)) for c in centres])
    y = np.repeat([0, 0, 0, 1, 1], 60)
    km = KernelKGroups(2, semimetric=NN, random_state=0).fit(X)
    assert km._feature_map.n_components == 5
    assert ari(y, km.labels_) == 1.0


def test_components_are_the_limit_of_vanishing_bridges():
    """Five components, three eigenvectors: those of the graph joined along its
    components' spanning tree by bridges of weight eps / length^2, eps -> 0 (dense,
    eps = 1e-6), compared through the Gram of the rows normalised (any basis)."""
    rng = np.random.default_rng(2)
    centres = np.array([[0, 0], [4, 0], [0, 5], [20, 0], [26, 1]], float)
    U = np.vstack([rng.normal(c, 0.4, (25, 2)) for c in centres])
    w = rng.uniform(0.5, 2.0, U.shape[0])
    A, _ = nb.knn_graph(U, 5)
    psi, lam, n_comp = nb.walk_eigenvectors(U, A, w, 3, np.random.default_rng(0))
    assert n_comp == 5 and np.allclose(lam, 1.0)
    comp = np.repeat(np.arange(5), 25)
    B = A.toarray()
    for i, j, length in nb.component_bridges(U, comp, 5):
        B[i, j] = B[j, i] = 1e-6 / length ** 2
    d = B @ w
    S = np.sqrt(np.outer(w / d, w / d)) * B
    _, V = scipy.linalg.eigh(S, subset_by_index=[U.shape[0] - 3, U.shape[0] - 1])
    ref = V / np.sqrt(w * d)[:, None]
    E, F = nb.normalise_rows(psi), nb.normalise_rows(ref)
    np.testing.assert_allclose(E @ E.T, F @ F.T, atol=1e-4)


def test_fewer_components_than_clusters():
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal(0, 1, (80, 2)), rng.normal([40, 0], 1, (80, 2))])
    km = KernelKGroups(4, semimetric=NN, random_state=0).fit(X)
    assert km._feature_map.n_components == 2
    # four clusters, none across the two components
    assert np.unique(km.labels_).size == 4
    assert not set(km.labels_[:80]) & set(km.labels_[80:])


def test_n_neighbors_at_least_the_distinct_points_links_all_of_them_with_a_warning():
    """Issue 54: fewer distinct points than n_neighbors + 1 were refused (scikit-learn's
    checks on a few distinct rows failed); the graph now links every point to all the
    others and says so."""
    from kgroups.exceptions import DistinctRowsWarning

    X = np.vstack([np.eye(3)] * 4)  # 12 rows, 3 distinct points
    with pytest.warns(DistinctRowsWarning, match=r"n_neighbors=3 but X has 3 distinct "
                      r"points of positive weight: the neighbourhood graph links each point "
                      r"to the 2 others") as record:
        est = KernelKGroups(3, semimetric=NN, n_neighbors=3, random_state=0).fit(X)
    assert record[0].filename == __file__
    assert np.unique(est.labels_).size == 3
    assert all(np.unique(est.labels_[i::3]).size == 1 for i in range(3))
    assert est._feature_map.n_neighbors == 2 and est.n_neighbors == 3
    with pytest.raises(ValueError, match=r"n_neighbors=0 .*int"):
        KernelKGroups(2, semimetric=NN, n_neighbors=0).fit(X)
    with pytest.raises(ValueError, match=r"1 distinct point\(s\) of positive weight "
                       r"\(n_samples=5\); semimetric='nearest_neighbors' needs at least 2"):
        KernelKGroups(1, semimetric=NN).fit(np.ones((5, 2)))


def test_integer_weights_are_repeated_rows():
    """Node weights: duplicates are one node whose weight is the sum of theirs."""
    X, _ = make_moons(120, noise=0.06, random_state=0)
    reps = np.random.default_rng(4).integers(1, 4, X.shape[0])
    a = KernelKGroups(2, semimetric=NN, random_state=0).fit(X, sample_weight=reps)
    Xr = np.repeat(X, reps, axis=0)
    b = KernelKGroups(2, semimetric=NN, random_state=0,
                      init=np.repeat(a.labels_, reps)).fit(Xr)
    np.testing.assert_allclose(np.repeat(a._feature_map.features, reps, axis=0),
                               b._feature_map.features, atol=1e-10)
    np.testing.assert_array_equal(np.repeat(a.labels_, reps), b.labels_)
    assert b.within_energy_ == pytest.approx(a.within_energy_, rel=1e-10)


def test_predict_transform_and_new_points():
    X, y = make_moons(600, noise=0.05, random_state=1)
    km = KernelKGroups(2, semimetric=NN, random_state=0).fit(X)
    np.testing.assert_array_equal(km.predict(X), km.labels_)
    Xn, yn = make_moons(200, noise=0.05, random_state=2)
    assert ari(yn, km.predict(Xn)) > 0.95
    D = km.transform(Xn)
    assert D.shape == (200, 2) and np.all(D >= 0)
    np.testing.assert_array_equal(D.argmin(axis=1), km.predict(Xn))
    assert km.score(X) == pytest.approx(-km.within_energy_, rel=1e-9)


def test_labels_do_not_depend_on_scale_translation_or_row_order():
    X, _ = make_circles(400, factor=0.5, noise=0.05, random_state=0)
    a = KernelKGroups(2, semimetric=NN, random_state=0).fit_predict(X)
    b = KernelKGroups(2, semimetric=NN, random_state=0).fit_predict(X * 1e-3 + 7.0)
    perm = np.random.default_rng(0).permutation(400)
    c = KernelKGroups(2, semimetric=NN, random_state=0).fit_predict(X[perm])
    assert ari(a, b) == 1.0 and ari(a[perm], c) == 1.0


def test_duplicates_zero_weights_and_kernel_kmeans():
    X, y = make_moons(300, noise=0.05, random_state=3)
    Xd = np.vstack([X, X[:50]])  # duplicated points
    assert ari(np.r_[y, y[:50]], KernelKGroups(2, semimetric=NN, random_state=0)
               .fit_predict(Xd)) == 1.0
    w = np.ones(300)
    w[::7] = 0.0  # left out of the fit, labelled by predict's rule
    assert ari(y, KernelKGroups(2, semimetric=NN, random_state=0)
               .fit(X, sample_weight=w).labels_) == 1.0
    assert ari(y, KernelKMeans(2, semimetric=NN, random_state=0).fit_predict(X)) == 1.0


def test_engines_that_cannot_take_it_and_dask_input_are_refused():
    X, _ = make_moons(100, noise=0.05, random_state=0)
    with pytest.raises(ValueError, match="engine='dense' does not take semimetric="
                                         "'nearest_neighbors'.*engine='low-rank'"):
        KernelKGroups(2, semimetric=NN, engine="dense").fit(X)
    with pytest.raises(ValueError, match="improving_moves"):
        from kgroups import improving_moves
        improving_moves(X, np.r_[np.zeros(50), np.ones(50)].astype(int), semimetric="auto")


@pytest.mark.parametrize("data", [make_moons(1000, noise=0.05, random_state=0),
                                  make_circles(1000, factor=0.5, noise=0.05, random_state=0)],
                         ids=["moons", "circles"])
def test_moons_and_circles(data):
    X, y = data
    assert ari(y, KernelKGroups(2, semimetric=NN, random_state=0).fit_predict(X)) >= 0.95
    est = KernelKGroups(2, semimetric="auto", random_state=0).fit(X)
    assert est.semimetric_ == NN and ari(y, est.labels_) >= 0.95
    cuts = est.semimetric_choice_.normalized_cut
    assert cuts[NN] < cuts["energy"] and "the graph's groups cut below" in \
        est.semimetric_choice_.reasoning


def _z(X):
    return (X - X.mean(0)) / X.std(0)


def test_auto_costs_little_on_overlapping_blobs():
    """On overlapping blobs at a given k the normalised cut favours the graph's
    partition (which minimises a cut like it): over ten draws, the choice costs at
    most 0.02 of mean ARI against energy's (one draw alone moves by up to 0.08 as a
    few boundary points change sides)."""
    costs = []
    for seed in range(10):
        X, y = make_blobs(500, centers=4, cluster_std=1.5, random_state=seed)
        energy = ari(y, KernelKGroups(4, random_state=0).fit_predict(X))
        est = KernelKGroups(4, semimetric="auto", random_state=0).fit(X)
        costs.append(energy - ari(y, est.labels_))
    assert np.mean(costs) <= 0.02


@pytest.mark.parametrize("name", ["iris", "wine", "dermatology"])
def test_auto_costs_little_on_tables(name):
    """On compact clusters the choice keeps energy, or a graph partition nearly as
    good."""
    X, y = {"iris": load_iris, "wine": load_wine, "dermatology": load_dermatology}[name]()
    k = np.unique(y).size
    energy = ari(y, KernelKGroups(k, random_state=0).fit_predict(X))
    est = KernelKGroups(k, semimetric="auto", random_state=0).fit(X)
    assert ari(y, est.labels_) >= energy - 0.05
    assert est.predict(X).shape == y.shape


def test_auto_attributes_and_refit():
    X, y = make_moons(300, noise=0.05, random_state=0)
    est = KernelKGroups(2, semimetric="auto", random_state=0).fit(X)
    assert est.semimetric == "auto" and est.semimetric_ == NN
    assert set(est.semimetric_choice_.normalized_cut) == set(auto.CANDIDATES)
    assert "other candidates" in est.engine_stats_["seconds"]
    est.set_params(semimetric="energy").fit(X)
    assert est.semimetric_ == "energy" and est.semimetric_choice_ is None


def test_normalized_cut_by_brute_force():
    rng = np.random.default_rng(5)
    A = rng.random((9, 9)) < 0.4
    A = np.triu(A, 1)
    A = (A + A.T).astype(float)
    w = rng.uniform(0.5, 2.0, 9)
    labels = rng.integers(0, 3, 9)
    want = 0.0
    for l in range(3):
        inside = labels == l
        cut = sum(w[i] * A[i, j] * w[j] for i in np.flatnonzero(inside)
                  for j in np.flatnonzero(~inside))
        vol = sum(w[i] * A[i, j] * w[j] for i in np.flatnonzero(inside) for j in range(9))
        want += cut / vol if vol > 0 else 0.0
    import scipy.sparse as sp
    assert auto.normalized_cut(sp.csr_matrix(A), w, labels, 3) == pytest.approx(want)


def test_dask_input_is_refused_by_name():
    da = pytest.importorskip("dask.array")
    X, _ = make_moons(200, noise=0.05, random_state=0)
    for semimetric in (NN, "auto"):
        with pytest.raises(ValueError, match="builds the neighbourhood graph of X in memory, "
                                             "and X is a dask collection"):
            KernelKGroups(2, semimetric=semimetric).fit(da.from_array(X, chunks=50))


def _far_group(size, centre, seed=0):
    rng = np.random.default_rng(seed)
    return np.vstack([rng.normal(0, 1, (1000, 2)), rng.normal(centre, 0.05, (size, 2))])


@pytest.mark.parametrize("size, centre, n_neighbors", [(5, [40, 40], 10), (3, [40, 40], 10),
                                                       (5, [8, 0], 10), (2, [8, 0], 15)],
                         ids=["5 far", "3 far", "5 at moderate distance", "pair, nn=15"])
def test_a_small_far_group_is_a_cluster_of_its_own(size, centre, n_neighbors):
    """Fewer than n_neighbors points, tight and far from a blob (issue 47): they fail
    the density test, yet form a component of their own, not a piece of the blob."""
    X = _far_group(size, centre)
    est = KernelKGroups(2, semimetric=NN, n_neighbors=n_neighbors, random_state=0).fit(X)
    assert sorted(np.bincount(est.labels_).tolist()) == [size, 1000]
    assert np.unique(est.labels_[1000:]).size == 1
    assert est._feature_map.n_components == 2
    np.testing.assert_array_equal(est.predict(X), est.labels_)
    counts = nb.neighbour_counts(np.unique(X, axis=0), n_neighbors)
    assert np.sum(counts == size - 1) == size  # joined to their fellows only


@pytest.mark.parametrize("size", [7, 8, 10])
def test_a_far_group_of_more_than_half_the_neighbours_is_a_group(size):
    """More than n_neighbors / 2 points in a group 10 from a 5-D blob: most of each
    member's neighbours are its fellows, as far out as it is, so the members pass the
    density test; the group is still one (a component of the graph, each member joined
    to its fellows only), not nodes joined to the blob by edges of weight near 0."""
    rng = np.random.default_rng(size)
    X = np.vstack([rng.normal(size=(400, 5)), rng.normal(10 / np.sqrt(5), 0.3, (size, 5))])
    dist, nbr, core = nb._density(X, 10)
    assert core[400:].all()  # they pass the density test
    np.testing.assert_array_equal(np.flatnonzero(nb.in_separated_groups(X, 10)),
                                  np.arange(400, 400 + size))
    np.testing.assert_array_equal(nb.neighbour_counts(X, 10)[400:], size - 1)
    est = KernelKGroups(2, semimetric=NN, random_state=0).fit(X)
    assert est._feature_map.n_components == 2
    assert sorted(np.bincount(est.labels_).tolist()) == [size, 400]


def test_a_far_group_with_repeated_rows_equals_weights():
    X = _far_group(3, [40, 40])
    reps = np.random.default_rng(6).integers(1, 4, X.shape[0])
    a = KernelKGroups(2, semimetric=NN, random_state=0).fit(X, sample_weight=reps)
    b = KernelKGroups(2, semimetric=NN, random_state=0).fit(np.repeat(X, reps, axis=0))
    np.testing.assert_array_equal(np.repeat(a.labels_, reps), b.labels_)
    assert sorted(np.bincount(a.labels_).tolist()) == [3, 1000]


def test_lone_outliers_and_noise_pairs_are_not_groups():
    """A single far point is placed through its neighbours as before (not a node); the
    chance pairs of uniform background noise around two moons are not groups."""
    X = _far_group(1, [40, 40])
    counts = nb.neighbour_counts(X, 10)
    assert counts[1000] == 0 and set(np.unique(counts[:1000])) <= {0, 10}
    Xm, _ = make_moons(600, noise=0.05, random_state=0)
    noise = np.random.default_rng(7).uniform([-1.5, -1.0], [2.5, 1.5], (120, 2))
    for k in (5, 10, 15):
        assert set(np.unique(nb.neighbour_counts(np.vstack([Xm, noise]), k))) <= {0, k}


def _brute_separated_groups(U, k, core):
    """separated_groups by loops over rows and sizes (tiny inputs): the rule of its
    docstring, every size g tried, a row in nested groups taking the largest."""
    n = U.shape[0]
    D = np.sqrt(((U[:, None] - U[None]) ** 2).sum(-1))
    order = [np.argsort(D[i], kind="stable")[1:k + 1] for i in range(n)]
    r = np.array([D[i, order[i][-1]] for i in range(n)])
    out = np.zeros(n, dtype=int)
    for g in range(2, k + 1):
        apart = [all(D[i, j] > nb.CORE_SPREAD * r[j] for j in order[i][g - 1:])
                 for i in range(n)]
        M = sum(1 for i in range(n) if not core[i] or apart[i])  # the candidates at size g
        group = {}
        for i in range(n):
            d = D[i, order[i]]
            if apart[i] and (d[g - 1] / d[g - 2]) ** (g - 1) > M:
                group[i] = frozenset([i, *order[i][:g - 1]])
        for i, G in group.items():
            if all(group.get(j) == G for j in G):
                out[i] = len(G)
    return out


def test_separated_groups_by_brute_force():
    """Far pairs and triples, a lone outlier, background noise, and a far group of two
    close pairs and a fifth point: its members jump most at different sizes within it
    (a pair, four), and all of them at its edge: one group of five."""
    rng = np.random.default_rng(8)
    five = np.array([[0, 0], [0.01, 0], [0.4, 0.3], [0.41, 0.3], [0.2, 0.8]])
    U = np.vstack([rng.normal(0, 1, (60, 2)), rng.normal([15, 0], 0.02, (2, 2)),
                   rng.normal([0, 15], 0.02, (3, 2)), [[-12.0, -12.0]],
                   rng.uniform(-3, 3, (6, 2)), five + [30.0, 30.0]])
    k = 10
    from sklearn.neighbors import NearestNeighbors
    dist, idx = NearestNeighbors().fit(U).kneighbors(U, n_neighbors=k + 1)
    r = dist[:, -1]
    core = r <= nb.CORE_SPREAD * np.median(r[idx[:, 1:]], axis=1)
    got = nb.separated_groups(dist, idx, core)
    np.testing.assert_array_equal(got, _brute_separated_groups(U, k, core))
    assert got[60:65].tolist() == [2, 2, 3, 3, 3] and not got[65:72].any()
    assert got[72:].tolist() == [5] * 5
    for seed in range(6):  # random layouts: small groups of every size in a background
        rng = np.random.default_rng(seed)
        U = np.vstack([rng.uniform(-10, 10, (80, 2))] + [
            rng.normal(rng.uniform(-30, 30, 2), rng.choice([0.05, 0.5]), (g, 2))
            for g in rng.integers(2, 8, 4)])
        dist, idx = NearestNeighbors().fit(U).kneighbors(U, n_neighbors=k + 1)
        r = dist[:, -1]
        core = r <= nb.CORE_SPREAD * np.median(r[idx[:, 1:]], axis=1)
        np.testing.assert_array_equal(nb.separated_groups(dist, idx, core),
                                      _brute_separated_groups(U, k, core))


@pytest.mark.parametrize("threads", [1, 2])
def test_nearest_rows_break_ties_by_row_whatever_the_threads(threads):
    # rows of 0s and 1s: most distances tie; the neighbours are the exact k nearest,
    # ties to the lower row, against a brute-force reference, with one or two threads
    from threadpoolctl import threadpool_limits

    rng = np.random.default_rng(5)
    U = (rng.random((400, 12)) < 0.3).astype(float)
    U = np.unique(U, axis=0)
    Q = np.vstack([U[:50], (rng.random((20, 12)) < 0.5).astype(float)])
    D = np.sqrt(((Q[:, None, :] - U[None, :, :]) ** 2).sum(-1))
    ref = np.array([np.lexsort((np.arange(U.shape[0]), row))[:10] for row in D])
    with threadpool_limits(threads):
        dist, rows = nb.NearestRows(U).kneighbors(Q, 10)
    np.testing.assert_array_equal(rows, ref)
    np.testing.assert_array_equal(dist, np.take_along_axis(D, ref, axis=1))
