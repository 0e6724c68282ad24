"""choose_k's default, method="auto", with a semimetric of point data: the energy rule
(kgroups._choose_k.point: the structure test, the silhouette scan, the split walk, the
rescaled geometries), its structure test (kgroups._choose_k.structure: the dips, the
references), its fits (kgroups._choose_k.fits), its trace (kgroups._choose_k.trace), its
constants (kgroups._choose_k.constants), the data's seed and large data
(kgroups._choose_k.core). Each answer is checked through its trace: the steps that
decided, their thresholds (the constants) and outcomes."""

import inspect
import warnings

import numpy as np
import pytest
from scipy.spatial.distance import cdist
from sklearn.datasets import make_blobs, make_circles, make_moons
from sklearn.metrics import adjusted_rand_score as ari

import kgroups._choose_k.core as core
from kgroups import KernelKGroups, choose_k, datasets
from kgroups._choose_k import arbiter, at_k, constants, estimator, fits, graph, point, structure
from kgroups._choose_k.arbiter import (AGREE, BALANCE, CLEAN_CUT, CUT_RATIO,
                                       NO_STRUCTURE_RATIO, WITHIN, decide)
from kgroups._choose_k.constants import CONSTANTS
from kgroups._stats.criteria import within_share
from kgroups.metrics import weighted_ari
from kgroups._rows import canonical, projection_key
from kgroups._random_state import stream
from kgroups._choose_k.fits import Fits, Setting
from kgroups._choose_k.point import (SCAN_FACTOR, SCAN_MIN, SILHOUETTE_KEEP, SILHOUETTE_SE,
                                     SPLIT_ALPHA, scan, split_walk)
from kgroups._choose_k.result import ChooseKResult
from kgroups._choose_k.structure import (STRUCTURE_ALPHA, STRUCTURE_KMAX, STRUCTURE_Z,
                                         find_structure, modes, references, rescaled)
from kgroups._choose_k.trace import Step, Trace, render
from kgroups._stats import modes as cluster_modes
from kgroups._stats.dip import dip_test, margins, path_margins
from kgroups.exceptions import KRangeWarning

SIX = ([0.0, 0.0], [10.0, 0.0], [20.0, 0.0], [0.0, 10.0], [10.0, 10.0], [20.0, 10.0])


def blobs(rng, centres, sd, n_per):
    return np.vstack([rng.normal(c, sd, (n_per, len(c))) for c in centres])


def four_blobs(seed=0, n=60):
    """Four blobs of sd 1 on the corners of a square of side 8."""
    rng = np.random.default_rng(seed)
    X = blobs(rng, ([0.0, 0.0], [8.0, 0.0], [0.0, 8.0], [8.0, 8.0]), 1.0, n)
    return X, np.repeat(np.arange(4), n)


def cigars(rng, m, n_per=100):
    """m parallel elongated clusters (sd 6 along x, 0.5 along y), 4 apart in y."""
    return np.vstack([rng.normal(size=(n_per, 2)) * [6.0, 0.5] + [0.0, 4.0 * j]
                      for j in range(m)])


def rings(rng, n_per=150, radii=(1.0, 3.0), noise=0.1):
    """Concentric rings: every projection and every convex piece looks like one cloud."""
    t = rng.uniform(0, 2 * np.pi, n_per * len(radii))
    r = np.repeat(radii, n_per) + rng.normal(0, noise, t.size)
    return np.c_[r * np.cos(t), r * np.sin(t)]


def rings_apart(rng, rings, sds, points):
    """Rings apart on nodes of a 3 x 3 grid 3 apart (as the curve draws of
    ``benchmarks/_curves.py``): how many, their noise sd and points per ring drawn from the
    ranges; ``(X, labels)``."""
    m, sd = int(rng.integers(*rings)), rng.uniform(*sds)
    parts = []
    for node in rng.permutation(9)[:m]:
        t = rng.uniform(0.0, 2.0 * np.pi, int(rng.integers(*points)))
        radius, centre = rng.uniform(0.7, 1.3), 3.0 * np.array([node % 3, node // 3])
        parts.append(centre + radius * np.c_[np.cos(t), np.sin(t)]
                     + rng.normal(0.0, sd, (t.size, 2)))
    return np.vstack(parts), np.repeat(np.arange(m), [len(P) for P in parts])


def steps(r, name=None):
    """The trace's steps (of that name)."""
    return [s for s in r.trace.steps if name is None or s.step == name]


def names(r):
    return [s.step for s in r.trace.steps]


def purity(labels, truth):
    """Share of the points whose cluster's majority class is their own."""
    return sum(np.bincount(truth[labels == c]).max() for c in np.unique(labels)) / len(labels)


def same_partition(a, b):
    return len(set(zip(a.tolist(), b.tolist()))) == len(set(a.tolist())) == len(set(b.tolist()))


def fits_of(X, w, labels_by_k, matrix=True):
    """A Fits of X whose fit of each k is the given labels (W unused)."""
    f = Fits(X, w, Setting(n_init=3), 0, matrix=matrix)
    f.fits.update({k: (np.asarray(lab), 1.0) for k, lab in labels_by_k.items()})
    return f


# =========================================================================== units
# --------------------------------------------------------------------------- constants
def test_every_constant_a_module_uses_is_its_record():
    used = {
        "STRUCTURE_ALPHA": structure.STRUCTURE_ALPHA, "STRUCTURE_Z": structure.STRUCTURE_Z,
        "STRUCTURE_KMAX": structure.STRUCTURE_KMAX,
        "STRUCTURE_MAX_N": structure.STRUCTURE_MAX_N,
        "STRUCTURE_SAMPLES": structure.STRUCTURE_SAMPLES,
        "N_REFS": inspect.signature(choose_k).parameters["n_refs"].default,
        "SCAN_MIN": point.SCAN_MIN, "SCAN_FACTOR": point.SCAN_FACTOR,
        "SILHOUETTE_SE": point.SILHOUETTE_SE, "SPLIT_ALPHA": point.SPLIT_ALPHA,
        "SILHOUETTE_KEEP": point.SILHOUETTE_KEEP, "SPLIT_MIN": fits.SPLIT_MIN,
        "SPLIT_N_INIT": fits.SPLIT_N_INIT, "PRECISION_STEP": point.PRECISION_STEP,
        "UNITS_RATIO": point.UNITS_RATIO,
        "COMPONENT_FLOOR": graph.COMPONENT_FLOOR, "CUT_RATIO": arbiter.CUT_RATIO,
        "NO_STRUCTURE_RATIO": arbiter.NO_STRUCTURE_RATIO,
        "WITHIN": arbiter.WITHIN, "BALANCE": arbiter.BALANCE, "AGREE": arbiter.AGREE,
        "CLEAN_CUT": arbiter.CLEAN_CUT,
        "SAMPLE_N": core.SAMPLE_N, "SAMPLES": core.SAMPLES,
        "GROUP_HALVINGS": core.GROUP_HALVINGS,
        "K_MAX": estimator.K_MAX, "CHOICE_STARTS": estimator.CHOICE_STARTS,
        "AUTO_SAMPLE_N": at_k.AUTO_SAMPLE_N,
        "AUTO_SAMPLE_ROWS": at_k.AUTO_SAMPLE_ROWS,
        "ROWS_PER_CLUSTER": at_k.ROWS_PER_CLUSTER}
    assert set(used) == set(CONSTANTS)                    # every record is used
    for name, v in used.items():
        assert v == CONSTANTS[name].value == constants.value(name), name
    assert arbiter.SPLIT_ALPHA == point.SPLIT_ALPHA      # one level for every dip split
    for name, c in CONSTANTS.items():                     # each says where it comes from
        assert c.meaning and c.source and c.decided_on, name
    # the values the papers and the designs give
    assert (STRUCTURE_ALPHA, STRUCTURE_Z, SPLIT_ALPHA, SILHOUETTE_KEEP) == (0.01, 3.5, 0.05, 0.7)


def test_the_plot_draws_the_constants():
    """The plot's reference lines are the thresholds the rule compared with."""
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = ChooseKResult(2, "auto", np.array([1, 2, 3]), structure_z=np.array([0.0, 5.0, np.nan]),
                      split_p=np.array([np.nan, 0.5, np.nan]))
    axes = r.plot()
    assert f"threshold {STRUCTURE_Z:g}" in axes[0].get_legend_handles_labels()[1]
    assert f"threshold {SPLIT_ALPHA:g}" in axes[1].get_legend_handles_labels()[1]
    plt.close("all")


# --------------------------------------------------------------------------- trace
def test_render_by_hand():
    got = render([
        Step("structure", "dip p-values", {"split": 0.00012345, "radial": 1.0}, 0.005,
             "modes: structure"),
        Step("silhouette", "mean silhouette by k", {3: 0.7123, np.int64(2): 0.6, 10: np.nan}),
        Step("split", "p by k", {4: 0.5}, 0.01, "k=4", "close: at k=[3]"),
        Step("geometry", "rescaled", "standardized", None, "not tried: why"),
        Step("sample", "rows", np.int64(200), None, ""),
    ])
    assert got == ("structure: dip p-values = {split: 0.000123, radial: 1} (threshold 0.005): "
                   "modes: structure. silhouette: mean silhouette by k = {2: 0.6, 3: 0.712, "
                   "10: nan}. split: p by k = {4: 0.5} (threshold 0.01): k=4 (close: at "
                   "k=[3]). geometry: rescaled = standardized: not tried: why. sample: rows = 200.")
    assert render([]) == ""


def test_trace_and_reasoning():
    t = Trace()
    t.add("split", "p by k", {3: 0.4}, 0.01, "k=3")
    assert t.steps == [Step("split", "p by k", {3: 0.4}, 0.01, "k=3", "")]
    u = Trace()
    u.add("answer", "no geometry shows structure", 1, None, "k=1")
    t.steps += u.steps
    assert [x.step for x in t.steps] == ["split", "answer"]
    r = ChooseKResult(3, "auto", np.arange(1, 4), trace=t, semimetric="energy")
    assert r.reasoning == render(t.steps)
    assert r.summary() == "k=3 with semimetric='energy' (split: k=3; answer: k=1)"
    # explain: the same sentences, a line each
    assert r.explain().splitlines() == [render([x]) for x in t.steps]
    r.at_top = True
    assert r.reasoning.startswith(render(t.steps) + " k=3 is the largest k of k_range")
    assert r.reasoning.endswith("widen k_range.") and r.explain(" ") == r.reasoning
    assert r.explain().splitlines()[-1] == r.top_note + "."
    with pytest.raises(AttributeError):
        r.reasoning = "set by hand"                      # read-only: the trace's words


# --------------------------------------------------------------------------- data seed
def test_seed_and_order_are_functions_of_the_data_alone():
    """The seed and the order of the rows do not change with the order the rows come in,
    also for z-scored columns, whose means are rounding noise that any sum in another
    order changes, nor with X's units."""
    rng = np.random.default_rng(0)
    X, w = rng.normal(size=(50, 3)), rng.uniform(0.5, 2.0, 50)
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    perm = rng.permutation(50)
    def seed_order(A, w):
        return canonical(projection_key(A), w)

    for A in (X, Z):
        s, order = seed_order(A, w)
        assert isinstance(s, int) and 0 <= s < 2**32
        s2, order2 = seed_order(A[perm], w[perm])
        assert s2 == s == seed_order(A.copy(), w.copy())[0]
        np.testing.assert_array_equal(A[perm][order2], A[order])
    Y = X.copy()
    Y[7, 1] += 1e-3
    s, order = seed_order(X, w)
    assert seed_order(Y, w)[0] != s                        # other data, another seed
    v = w.copy()
    v[3] *= 2
    assert seed_order(X, v)[0] != s                        # the weights count
    assert seed_order(X[:-1], w[:-1])[0] != s
    # a change of units (a scale and a shift of X, a common factor of the weights) is
    # the same data: the same seed and order
    for A, u in ((3.7 * X - 40.0, w), (X * 2.0 ** -600, 5.0 * w), (X + 1e6, w)):
        s2, order2 = seed_order(A, u)
        assert s2 == s
        np.testing.assert_array_equal(order2, order)
    # keys past float64 (rows near its largest value) and keys spanning it: a seed, quietly
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for key in (np.array([1.0, np.inf, -np.inf]), np.array([-1.7e308, 0.0, 1.7e308])):
            assert 0 <= canonical(key, np.ones(3))[0] < 2**32


@pytest.mark.parametrize("semimetric", ["energy", "auto"])
def test_the_answer_does_not_change_with_x_s_units(semimetric):
    """Five overlapping blobs, a set where the answer hangs on the draws: X in other
    units (scaled, shifted) is the same data, so the same draws (the seed is read in
    units of its own) and the same k, semimetric and partition, through choose_k and
    n_clusters="auto" alike."""
    X = make_blobs(400, centers=5, cluster_std=2.0, random_state=3)[0]
    r = choose_k(X, semimetric=semimetric)
    for A in (1024.0 * X, 3.7 * X - 40.0):
        q = choose_k(A, semimetric=semimetric)
        assert (q.k, q.semimetric) == (r.k, r.semimetric)
        assert ari(r.labels, q.labels) == 1.0
        est = KernelKGroups("auto", semimetric=semimetric, random_state=0).fit(A)
        assert (est.n_clusters_, est.semimetric_) == (r.k, r.semimetric)


def test_seed_and_answer_do_not_change_with_the_memory_layout_of_x():
    """X in column-major order, or a view of every other column of a wider array, is
    the same data: the same seed (each row's projection is summed over a contiguous
    copy of it) and the same answer, labels included."""
    rng = np.random.default_rng(0)
    X, w = rng.normal(size=(300, 14)), np.ones(300)
    X[:150, :3] += 2.5
    wide = np.repeat(X, 2, axis=1)[:, ::2]                      # strided, not contiguous
    s = canonical(projection_key(X), w)[0]
    assert canonical(projection_key(np.asfortranarray(X)), w)[0] == s
    assert canonical(projection_key(wide), w)[0] == s
    r = choose_k(X, range(1, 6))
    for A in (np.asfortranarray(X), wide):
        a = choose_k(A, range(1, 6))
        assert a.k == r.k and a.reasoning == r.reasoning
        np.testing.assert_array_equal(a.labels, r.labels)


def test_the_copies_of_x_are_checked_against_memory(monkeypatch):
    """Its distinct rows (a sorted copy, indices and inverse), X in the order of its
    rows, and read to its precision for the dip tests."""
    import kgroups._memory as memory

    X = np.random.default_rng(0).normal(size=(60, 3))
    monkeypatch.setattr(memory, "available_memory", lambda: 1000)
    with pytest.raises(ValueError, match=r"^choose_k's distinct rows of X \(60 x 3\) needs "
                       r".*\(5760 bytes\).*use a sample"):    # 2 x 60 x 3 x 8 + 48 x 60
        choose_k(X, range(1, 4))
    monkeypatch.setattr("kgroups._choose_k.api.choice_rows",
                        lambda X, w: (np.arange(60), np.arange(60), w))
    with pytest.raises(ValueError, match=r"^choose_k's two copies of X \(60 x 3\) needs "
                       r".*\(2880 bytes\).*use fewer columns"):   # 2 x 60 x 3 x 8 bytes
        choose_k(X, range(1, 4))


@pytest.mark.parametrize("semimetric", ["energy", "auto"])
def test_the_answer_does_not_change_with_the_order_of_the_rows(semimetric):
    """The same k and the same labels of every row, whatever order the rows come in,
    on z-scored blobs with copies of rows (ties in the order); the same k for
    ``n_clusters="auto"``."""
    X, _ = make_blobs(240, 3, centers=3, cluster_std=2.0, random_state=3)
    X = np.vstack([X, X[:20]])
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    r = choose_k(X, range(1, 8), semimetric=semimetric)
    for seed in (1, 2):
        perm = np.random.default_rng(seed).permutation(len(X))
        again = choose_k(X[perm], range(1, 8), semimetric=semimetric, random_state=seed)
        assert (again.k, again.semimetric) == (r.k, r.semimetric)
        np.testing.assert_array_equal(again.labels, r.labels[perm])
        for name, c in (r.candidates or {}).items():
            np.testing.assert_array_equal(again.candidates[name].labels, c.labels[perm])
        est = KernelKGroups("auto", semimetric=semimetric, random_state=seed).fit(X[perm])
        assert est.n_clusters_ == r.k


# --------------------------------------------------------------------------- arbiter
def _decide(*args, **kwargs):
    t = Trace()
    pick = decide(*args, t, **kwargs)
    [step] = t.steps
    assert step.step == "arbiter"
    return pick, step


def test_arbiter_without_structure_for_energy():
    """k_e = 1: the graph's groups must cut below NO_STRUCTURE_RATIO times the energy
    partition's, and each be bimodal with its nearest group (dip p below SPLIT_ALPHA),
    the dips read only where the cuts allow the graph."""
    pick, step = _decide(0.04, 0.1, 1, 3, 0.0, 0.3, pair_p=0.01)
    assert pick == "nearest_neighbors" and step.threshold == NO_STRUCTURE_RATIO == 0.5
    assert step.value == {"graph's groups": 0.04, "energy partition of 3": 0.1}
    assert ("each be bimodal with its nearest group along their discriminant or margins (dip "
            "p-values at most 0.01, below 0.05)") in step.outcome
    pick, step = _decide(0.04, 0.1, 1, 3, 0.0, 0.3, pair_p=0.3)   # groups of one cloud
    assert pick == "energy" and step.rule == "no structure" and "at most 0.3" in step.outcome
    called = []
    pick, step = _decide(0.06, 0.1, 1, 3, 0.0, 0.3,             # 0.6 of it: not enough
                         pair_p=lambda: called.append(1) or 0.01)
    assert pick == "energy" and step.threshold == NO_STRUCTURE_RATIO and not called
    assert step.rule == "no structure" and "bimodal" not in step.outcome


def test_without_structure_for_energy_the_graph_s_groups_must_be_bimodal():
    """A skewed cloud (lognormal, 2-D): energy finds no structure; the graph's groups cut
    below half the energy partition's (a tail cut off), but a group and its nearest
    are unimodal together along their means' line, so the answer stays 1 (it was 2 and
    3 on these two draws before the dips were read; on draw 0, its lone outliers left
    out of the choice, the groups no longer cut below half: the dips are not read)."""
    for seed in (0, 9):
        r = choose_k(np.random.default_rng(seed).lognormal(size=(300, 2)), semimetric="auto")
        step = r.trace.steps[-1]
        assert r.k == 1 and r.candidates["energy"].k == 1 and step.rule == "no structure"
    cuts = step.value                                             # draw 9's
    assert cuts["graph's groups"] < NO_STRUCTURE_RATIO * min(
        v for c, v in cuts.items() if c.startswith("energy"))
    assert ("and each be bimodal with its nearest group along their discriminant or "
            "margins (dip p-values at most") in step.outcome


def test_one_column_keeps_energy_on_every_path():
    """On a line every group is an interval, and the 10-neighbour graph falls apart
    wherever a gap is wider than the nearest points on both sides (inside one Gaussian:
    its groups cut below energy's and were kept on 13 of these 30 draws, 2 or 3 groups
    of a unimodal sample on 12, 3 of two Gaussians on 1): choose_k, n_clusters="auto"
    and semimetric="auto" at a given k keep energy, and say why."""
    ks = []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        for X, k in ((rng.normal(size=(300, 1)), 1), (rng.exponential(size=(300, 1)), 1),
                     (np.concatenate([rng.normal(8.0 * j, 1.0, 100) for j in range(2)]), 2)):
            r = choose_k(X, semimetric="auto")
            assert r.semimetric == "energy" and "one column: on a line" in r.reasoning
            ks.append(r.k == k)
    assert all(ks)
    km = KernelKGroups(2, semimetric="auto", random_state=0).fit(X.reshape(-1, 1))
    assert km.semimetric_ == "energy" and "one column" in km.semimetric_choice_.reasoning
    km = KernelKGroups("auto", semimetric="auto").fit(X.reshape(-1, 1))
    assert km.n_clusters_ == 2 and km.semimetric_ == "energy"



def test_arbiter_keeps_energy_where_the_graph_sets_a_small_part_apart():
    """The energy clusters within the graph's groups (WITHIN of the weight) and the
    graph's smallest group below BALANCE / k_g: energy, however low the graph's cut."""
    pick, step = _decide(0.001, 0.5, 4, 4, 1.0, 0.02)
    assert pick == "energy" and step.threshold is None
    assert step.rule == "a small part apart"
    assert _decide(0.001, 0.5, 4, 4, WITHIN, BALANCE / 4 - 1e-9)[0] == "energy"
    # either condition missing: the cuts decide (the graph, here)
    assert _decide(0.001, 0.5, 4, 4, WITHIN - 0.01, 0.02)[0] == "nearest_neighbors"
    assert _decide(0.001, 0.5, 4, 4, 1.0, BALANCE / 4)[0] == "nearest_neighbors"


def test_arbiter_keeps_energy_within_groups_the_graph_does_not_cut_cleanly():
    """More energy clusters than groups, nested in them (WITHIN), none bimodal with its
    neighbour (pair p = 1), the graph's own cut at least CLEAN_CUT: energy; a cleaner
    cut, fewer energy clusters or clusters across groups: the cuts decide."""
    args = (0.5, 8, 2, 1.0, 0.5, Trace(), 0.0, 1.0)
    assert decide(CLEAN_CUT, *args) == "energy"
    assert decide(CLEAN_CUT - 1e-9, *args) == "nearest_neighbors"
    pick, step = _decide(0.1, 0.5, 8, 2, WITHIN, 0.5)
    assert pick == "energy" and step.threshold is None
    assert step.rule == "not cleanly cut"
    assert _decide(0.1, 0.5, 8, 2, WITHIN - 0.01, 0.5)[0] == "nearest_neighbors"
    assert _decide(0.1, 0.5, 2, 2, 1.0, 0.5)[0] == "nearest_neighbors"


def test_arbiter_otherwise_compares_the_cuts():
    pick, step = _decide(0.05, 0.2, 8, 2, 0.5, 0.5)
    assert pick == "nearest_neighbors" and step.threshold == CUT_RATIO == 1.0
    assert step.margin == "" and step.rule == "the cuts"
    pick, step = _decide(0.2, 0.2, 8, 2, 0.5, 0.5)         # not below: energy
    assert pick == "energy" and step.threshold == CUT_RATIO
    assert step.margin.startswith("close")                  # ratio 1: within 1.25
    pick, step = _decide(0.19, 0.2, 8, 2, 0.5, 0.5)
    assert pick == "nearest_neighbors" and step.margin.startswith("close")
    pick, step = _decide(0.0, 0.0, 6, 6, 1.0, 0.2)          # two clean cuts: energy
    assert pick == "energy" and step.threshold == CUT_RATIO


def test_within_share_by_hand():
    P, G = np.array([0, 0, 1, 1, 2, 2]), np.array([0, 0, 0, 1, 1, 1])
    # cluster 0 in group 0 (2 of 2), cluster 1 split 1/1, cluster 2 in group 1: 5 of 6
    assert within_share(P, G, np.ones(6)) == pytest.approx(5 / 6)
    w = np.array([1.0, 1.0, 3.0, 1.0, 1.0, 1.0])            # the heavier half of cluster 1
    assert within_share(P, G, w) == pytest.approx(7 / 8)
    rep = np.repeat(np.arange(6), w.astype(int))
    assert within_share(P[rep], G[rep], np.ones(rep.size)) == pytest.approx(7 / 8)
    assert within_share(G, G, np.ones(6)) == 1.0
    assert within_share(np.zeros(6, np.int64), G, np.ones(6)) == 0.5


@pytest.mark.parametrize("seed", range(4))
def test_weighted_ari_is_the_ari_of_the_repeated_rows(seed):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 3, 40), rng.integers(0, 4, 40)
    b[:20] = a[:20]                                       # some agreement
    w = rng.integers(1, 5, 40)
    expected = ari(np.repeat(a, w), np.repeat(b, w))
    assert weighted_ari(a, b, w.astype(float)) == pytest.approx(expected, abs=1e-12)
    assert weighted_ari(a, b, np.ones(40)) == pytest.approx(ari(a, b), abs=1e-12)
    assert 0.0 < expected < 1.0                           # neither extreme


def test_weighted_ari_of_equal_and_of_one_cluster_partitions():
    a = np.array([0, 0, 1, 1, 2])
    assert weighted_ari(a, (a + 1) % 3, np.arange(1.0, 6.0)) == pytest.approx(1.0)
    one = np.zeros(5, dtype=np.int64)
    assert weighted_ari(one, one, np.ones(5)) == 1.0


# --------------------------------------------------------------------------- step 2
@pytest.mark.parametrize("matrix", [True, False])
def test_silhouette_se_by_brute_force(matrix):
    """The standard error of a difference of mean silhouettes, paired over the points:
    the sample standard deviation of the points' differences over sqrt(n), with the
    points' silhouettes of scikit-learn (rho of the energy semimetric is the
    Euclidean distance)."""
    from sklearn.metrics import silhouette_samples

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    labels = {k: rng.integers(0, k, 40) for k in (2, 3)}
    f = fits_of(X, np.ones(40), labels, matrix)
    d = silhouette_samples(X, labels[2]) - silhouette_samples(X, labels[3])
    assert f.silhouette_se(2, 3) == pytest.approx(d.std(ddof=1) / np.sqrt(40), rel=1e-10)
    assert f.silhouette(3) == pytest.approx(silhouette_samples(X, labels[3]).mean(),
                                            rel=1e-10)
    # integer weights count as repeated differences; weights that add up to less than
    # the points, as Kish's effective number of them
    w = rng.integers(1, 4, 40)
    a = fits_of(X, w.astype(float), labels, matrix)
    rep = np.repeat(a.point_silhouettes(2) - a.point_silhouettes(3), w)
    assert a.silhouette_se(2, 3) == pytest.approx(rep.std(ddof=1) / np.sqrt(w.sum()),
                                                  rel=1e-10)
    c = fits_of(X, w / w.sum(), labels, matrix)
    m = w.sum() ** 2 / (w @ w)
    expected = np.sqrt(np.sum((rep - rep.mean()) ** 2) / w.sum() / (m - 1.0))
    assert c.silhouette_se(2, 3) == pytest.approx(expected, rel=1e-10)
    assert f.silhouette_se(3, 3) == 0.0


class _Curve:
    """A stand-in for the geometry of step 2: given mean silhouettes, one standard
    error for every difference, and a record of the k fitted."""

    def __init__(self, sil, se):
        self.sil, self.se, self.grown = sil, se, []

    def grow(self, k):
        self.grown.append(k)

    def silhouette(self, k):
        return self.sil[k]

    def silhouette_se(self, k, best):
        return 0.0 if k == best else self.se


def test_scan_answers_the_smallest_k_near_the_largest_silhouette():
    """A plateau (0.395 at k = 3, 0.4 at k = 7, s.e. 0.02): step 2 answers 3, the
    smallest k within SILHOUETTE_SE standard errors of the largest; the curve is
    followed to max(SCAN_MIN, SCAN_FACTOR x 7) whatever the range past it."""
    sil = {2: 0.30, 3: 0.395, 4: 0.38, 5: 0.39, 6: 0.39, 7: 0.40}
    sil.update({k: 0.35 for k in range(8, 31)})
    top = max(SCAN_MIN, SCAN_FACTOR * 7)
    assert top == 14 and sil[2] < sil[7] - SILHOUETTE_SE * 0.02 <= sil[3]
    for k_max in (top, 20, 30):
        g = _Curve(sil, 0.02)
        assert scan(g, np.arange(1, k_max + 1)) == (3, 7, top, True)
        assert g.grown == list(range(2, top + 1))
    # a clear peak: the peak itself (0.39 < 0.40 - 0.5 x 0.02 at k = 5 is not)
    assert scan(_Curve({**sil, 3: 0.30}, 0.02), np.arange(1, 21))[:2] == (5, 7)
    assert scan(_Curve({**sil, 3: 0.30, 5: 0.30, 6: 0.30}, 0.002),
                np.arange(1, 21))[:2] == (7, 7)
    # the range ends before the rule decided
    assert scan(_Curve(sil, 0.02), np.arange(1, 9)) == (3, 7, 8, False)
    # a peak at 2: followed to SCAN_MIN
    g = _Curve({k: 0.9 if k == 2 else 0.5 for k in range(2, 31)}, 0.01)
    assert scan(g, np.arange(2, 31)) == (2, 2, SCAN_MIN, True)


class _Walk:
    """A stand-in for the geometry of step 3: the dip p-value of each cluster of the
    partition of k clusters, and the silhouette of each k."""

    def __init__(self, p, sil):
        self.p, self.sil, self.fitted = p, sil, []
        self.fits = {k: (np.arange(k), 1.0) for k in sil}

    def rng(self, *key):
        return key

    def bisect(self, labels, j, rng, gap=False):
        k = labels.size
        assert rng == (k, 3, j) and gap         # each cluster's own stream; a gap too
        return self.p[k][j], f"split {j} of {k}"

    def fit(self, k, start=None):
        self.fitted.append((k, start))
        return self.fits[k]

    def silhouette(self, k):
        return self.sil[k]


def test_split_walk_by_hand():
    ks, a = np.arange(1, 8), SPLIT_ALPHA
    # k=2: cluster 1 splits (a / 10 x 2 < a); k=3 keeps 0.75 / 0.8 of the silhouette;
    # at k=3 the smallest p 0.4 a x 3 = 1.2 a (Bonferroni): no split
    f = _Walk({2: [0.5, a / 10], 3: [0.2, 0.3, 0.4 * a]}, {2: 0.8, 3: 0.75})
    k, trail, done = split_walk(f, ks, 2)
    assert (k, trail, done) == (3, [(2, pytest.approx(a / 5)),
                                    (3, pytest.approx(1.2 * a))], True)
    assert f.fitted == [(3, "split 1 of 2")]            # started from that split
    # the next partition keeps less than SILHOUETTE_KEEP of the silhouette: stop
    f = _Walk({2: [0.5, a / 10]}, {2: 0.8, 3: SILHOUETTE_KEEP * 0.8 - 1e-9})
    k, trail, done = split_walk(f, ks, 2)
    assert k == 2 and done and trail[0] == (2, pytest.approx(a / 5))
    assert trail[1][0] == 3 and np.isnan(trail[1][1])
    # the top of the range: not decided
    f = _Walk({2: [a / 10, 0.5], 3: [a / 10, 0.5, 0.5]}, {2: 0.8, 3: 0.8})
    assert split_walk(f, np.arange(1, 4), 2) == (
        3, [(2, pytest.approx(a / 5)), (3, pytest.approx(0.3 * a))], False)
    # a range with a hole: the next k of the range, from its own starts
    f = _Walk({2: [a / 10, 0.5], 5: [0.5] * 5}, {2: 0.8, 5: 0.8})
    assert split_walk(f, np.array([1, 2, 5]), 2)[0] == 5
    assert f.fitted == [(5, None)]


# --------------------------------------------------------------------------- fits
def test_fit_keeps_the_lowest_energy_and_is_the_estimator_s():
    X = np.random.default_rng(1).normal(size=(60, 2))
    f = Fits(X, np.ones(60), Setting(n_init=3), 0)
    labels, W = f.fit(3)
    again, W_again = f.fit(3)
    assert again is labels and W_again == W                          # kept
    poor = np.repeat([0, 1, 2], 20)                                  # thirds of the rows
    assert f.fit(3, poor)[1] == W                                    # not worse
    est = KernelKGroups(3, init=labels).fit(X)
    np.testing.assert_array_equal(est.labels_, labels)               # a converged fit
    assert W == pytest.approx(est.within_energy_, rel=1e-10)
    assert W <= KernelKGroups(3, init=poor).fit(X).within_energy_ + 1e-12
    assert f.within_one() == pytest.approx(KernelKGroups(1).fit(X).within_energy_,
                                           rel=1e-12)
    g = Fits(X, np.ones(60), Setting(n_init=3), 0, matrix=False)
    assert g.D is None and g.within_one() == pytest.approx(f.within_one(), rel=1e-10)
    np.testing.assert_array_equal(g.fit(3)[0], labels)              # same streams


def test_rho_matrix_is_the_semimetric():
    X = np.random.default_rng(0).normal(size=(40, 3)) + 1e3
    for alpha in (0.5, 1.0, 2.0):
        brute = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1)) ** alpha
        np.testing.assert_allclose(fits.rho_matrix(X, Setting(alpha=alpha)), brute,
                                   rtol=1e-7, atol=1e-7)
    D = fits.rho_matrix(X[:10] - 1e3, Setting(semimetric="gaussian", sigma=2.0))
    d2 = ((X[:10, None] - X[None, :10]) ** 2).sum(-1)
    np.testing.assert_allclose(D, 2 - 2 * np.exp(-d2 / 8.0), atol=1e-12)


def test_bisect_cuts_the_cluster_along_its_two_halves():
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal([0, 0], 0.3, (40, 2)), rng.normal([4, 0], 0.3, (40, 2))]
    f = Fits(X, np.ones(80), Setting(n_init=3), 0)
    p, start = f.bisect(np.zeros(80, dtype=np.int64), 0, np.random.default_rng(0))
    assert p < 0.01 and sorted(np.bincount(start).tolist()) == [40, 40]
    assert same_partition(start, np.repeat([0, 1], 40))
    p, start = f.bisect(np.zeros(80, dtype=np.int64), 0, np.random.default_rng(0), test=False)
    assert p == 1.0 and same_partition(start, np.repeat([0, 1], 40))
    small = np.zeros(80, dtype=np.int64)
    small[-(fits.SPLIT_MIN - 1):] = 1                                 # 19 points
    assert f.bisect(small, 1, np.random.default_rng(0)) == (1.0, None)   # too small
    one = Fits(rng.normal(size=(60, 2)), np.ones(60), Setting(n_init=3), 0)
    assert one.bisect(np.zeros(60, np.int64), 0, np.random.default_rng(0))[0] > 0.05


def test_the_split_walk_s_test_needs_a_gap_in_the_space_too():
    """Half a ring is bimodal along the line through its two quarters' means (its
    projection piles up at both ends), but the quarters are not apart: their margins
    spread from the cut, one mode. Two blobs are bimodal both ways. With ``gap`` the
    test is the larger p-value (both must reject); without it, step 1's, the line."""
    rng = np.random.default_rng(0)
    t = rng.uniform(0, np.pi, 400)
    arc = np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.03, (400, 2))
    f = Fits(arc, np.ones(400), Setting(n_init=3), 0)
    zero = np.zeros(400, dtype=np.int64)
    p_line, start = f.bisect(zero, 0, np.random.default_rng(0))
    p_gap, same = f.bisect(zero, 0, np.random.default_rng(0), gap=True)
    assert p_line < 1e-3 and p_gap > 0.2 and np.array_equal(start, same)
    side = start == 1
    assert p_gap == max(p_line, dip_test(margins(arc[~side], arc[side]))[1])
    blobs2 = np.r_[rng.normal([0, 0], 0.3, (40, 2)), rng.normal([4, 0], 0.3, (40, 2))]
    g = Fits(blobs2, np.ones(80), Setting(n_init=3), 0)
    assert g.bisect(np.zeros(80, dtype=np.int64), 0, np.random.default_rng(0), gap=True)[0] < 0.01


@pytest.mark.parametrize("seed", range(5))
def test_the_split_test_along_the_data_sees_no_gap_in_a_whole_ring(seed):
    """A whole ring cut in two by a line: its straight-line margins may show two modes
    (its far ends come back near the other side), its margins along the data do not (a
    path to the other side grows evenly from the two cuts); two blobs apart show a gap
    both ways. ``gap="path"`` is the largest of the line's p-value and those of the
    :func:`path_margins` of each half at the line the other half drew (rebuilt here from
    the same draws: the halves, then each half's 2-cluster fit)."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0, 2 * np.pi, 300)
    ring = np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.05, (300, 2))
    zero = np.zeros(300, dtype=np.int64)
    f = Fits(ring, np.ones(300), Setting(n_init=2), seed)
    p_line, start = f.bisect(zero, 0, np.random.default_rng(seed))
    p_path, same = f.bisect(zero, 0, np.random.default_rng(seed), gap="path")
    assert np.array_equal(start, same) and p_path > SPLIT_ALPHA
    draw = np.random.default_rng(seed)
    perm = draw.permutation(300)
    halves, ps = (np.sort(perm[:150]), np.sort(perm[150:])), [p_line]
    lines = []
    for own in halves:
        half = Fits(ring[own], np.ones(150), Setting(n_init=constants.SPLIT_N_INIT),
                    int(draw.integers(2**31 - 1)), matrix=False).fit(2)[0]
        a, b = ring[own][half == 0].mean(axis=0), ring[own][half == 1].mean(axis=0)
        lines.append((b - a, 0.5 * (a + b) @ (b - a)))
    for (v, mid), other in zip(lines, halves[::-1]):
        side = ring[other] @ v > mid
        ps.append(dip_test(path_margins(ring[other][~side], ring[other][side], 10))[1])
    assert np.array_equal(start == 1, ring @ lines[0][0] > lines[0][1])
    assert p_path == max(ps)
    blobs2 = np.r_[rng.normal([0, 0], 1.0, (150, 2)), rng.normal([5, 0], 1.0, (150, 2))]
    g = Fits(blobs2, np.ones(300), Setting(n_init=2), seed)
    assert g.bisect(zero, 0, np.random.default_rng(seed), gap="path")[0] < 0.01


def test_bisect_reads_each_half_on_the_line_of_the_other_and_combines_by_fisher(monkeypatch):
    """The split test is cross-fitted: the dip test reads each half of the cluster's
    points projected on the line of the other half's 2-cluster fit (two blobs: each
    projection with the blobs apart along it), and the two p-values are combined by
    Fisher's method: -2 ln(p1 p2) against the chi-squared law of 4 degrees of freedom
    (scipy's, here)."""
    from scipy.stats import chi2

    rng = np.random.default_rng(2)
    X = np.r_[rng.normal([0, 0], 0.3, (41, 2)), rng.normal([4, 0], 0.3, (40, 2))]
    seen, given = [], iter([0.03, 0.2])
    monkeypatch.setattr(fits, "dip_test",
                        lambda t, w: seen.append(np.asarray(t)) or (0.0, next(given)))
    p, _ = Fits(X, np.ones(81), Setting(n_init=3), 0).bisect(
        np.zeros(81, dtype=np.int64), 0, np.random.default_rng(0))
    assert sorted(t.size for t in seen) == [40, 41]
    assert p == pytest.approx(chi2.sf(-2 * np.log(0.03 * 0.2), 4), rel=1e-12)
    for t in seen:
        values = np.sort(t)
        assert np.max(np.diff(values)) > 0.5 * (values[-1] - values[0])


def test_split_dip_keeps_its_level_on_skewed_unimodal_data():
    """Lognormal and exponential draws have one mode: the split dip falls below the
    structure test's level (STRUCTURE_ALPHA / 2) on at most 1 of 30 draws of each
    (pooling the two halves' projections, each scaled to its own line, did on 9 of
    30 lognormal draws of 300 points: a skewed projection beside a shifted or
    mirrored one has two shoulders)."""
    for make in (lambda rng: rng.lognormal(size=(300, 2)),
                 lambda rng: rng.exponential(size=(300, 2)),
                 lambda rng: rng.lognormal(size=(100, 10))):
        low = [Fits(X := make(np.random.default_rng(1000 + s)), np.ones(len(X)), Setting(),
                    7 + s, matrix=False).bisect(np.zeros(len(X), np.int64), 0,
                                                np.random.default_rng([7 + s, 0, 5]))[0]
               < STRUCTURE_ALPHA / 2 for s in range(30)]
        assert sum(low) <= 1


# --------------------------------------------------------------------------- structure
def geometry(X, seed=0):
    return Fits(X, np.ones(len(X)), Setting(n_init=3), seed)


def test_radial_dip_finds_rings_that_the_split_dip_misses():
    g = geometry(rings(np.random.default_rng(3)))
    p = modes(g)
    assert p["radial"] < STRUCTURE_ALPHA / 2 <= p["split"]
    t = Trace()
    found, z = find_structure(g, np.arange(1, 6), 5, "pca", t)
    assert found and z is None
    [s] = t.steps
    assert (s.step, s.threshold, s.outcome) == ("structure", STRUCTURE_ALPHA / 2,
                                                "modes: structure")
    assert s.value == p


def test_split_dip_finds_separated_blobs():
    rng = np.random.default_rng(4)
    X = np.r_[rng.normal([0, 0], 1.0, (60, 2)), rng.normal([8, 0], 1.0, (60, 2))]
    assert modes(geometry(X))["split"] < STRUCTURE_ALPHA / 2


def test_reference_test_is_the_gap_gain_in_standard_errors():
    """Without modes the references run: z is the gain Gap(k) - Gap(1) over the
    standard error sd_b(log W*_kb - log W*_1b) sqrt(1 + 1/B) (brute force from the
    same log W), and a Gaussian stays below STRUCTURE_Z at every k."""
    X = np.random.default_rng(5).normal(size=(150, 2)) * [3.0, 1.0]
    g = geometry(X)
    ks = np.arange(1, 6)
    t = Trace()
    found, zk = find_structure(g, ks, 5, "pca", t)
    assert not found and [s.outcome for s in t.steps] == ["no modes", "no structure"]
    assert t.steps[1].threshold == STRUCTURE_Z
    least = min(t.steps[0].value.values())          # "close" only within a factor 1.5
    assert least >= 1.5 * STRUCTURE_ALPHA / 2 and t.steps[0].margin == ""
    z, _, [ref] = references(geometry(X), ks, 5, "pca")
    assert ref.shape == (5, 5) and np.isfinite(ref).all()
    log_w = np.log([g.within_one()] + [g.fit(k)[1] for k in range(2, 6)])
    gain = (ref.mean(0) - log_w) - (ref.mean(0) - log_w)[0]
    d = ref - ref[:, :1]
    sd = np.sqrt(((d - d.mean(0)) ** 2).sum(0) / 5) * np.sqrt(1 + 1 / 5)
    np.testing.assert_allclose(z[1:], gain[1:] / sd[1:], rtol=1e-10)
    assert zk == pytest.approx(dict(zip(range(1, 6), z)), nan_ok=True)
    assert np.all(z[1:] <= STRUCTURE_Z)
    assert t.steps[1].value == pytest.approx(dict(zip(range(2, 6), z[1:])))


def test_references_stop_at_the_first_k_that_shows_structure():
    """Two blobs 4 standard deviations apart (no modes at this size): the references
    are fitted at k = 2, whose gain passes STRUCTURE_Z, and no further."""
    X = blobs(np.random.default_rng(1), [[0.0, 0.0], [4.0, 0.0]], 1.0, 50)
    z, _, [ref] = references(geometry(X), np.arange(1, 6), 4, "pca")
    assert z[1] > STRUCTURE_Z and np.isnan(z[2:]).all() and np.isnan(ref[:, 2:]).all()
    X, _ = make_blobs(300, 2, centers=4, random_state=0)   # through choose_k: at k = 3
    r = choose_k(X, range(1, 8))
    s = steps(r, "structure")
    assert [x.outcome for x in s] == ["no modes", "structure"]
    assert list(s[1].value) == [2, 3] and s[1].value[2] <= STRUCTURE_Z < s[1].value[3]
    assert s[1].value == pytest.approx({2: r.structure_z[1], 3: r.structure_z[2]})
    assert np.isnan(r.structure_z[3:]).all()


def test_the_silhouette_is_read_from_the_first_k_that_beats_the_references():
    """Three Gaussians in a row, 3.5 standard deviations apart: no modes, and the
    best 2-cluster fit lowers W no more than it does on the references (its gain is
    below STRUCTURE_Z) while that of 3 lowers it more. The silhouette alone is
    highest at 2 (the outer blob against the other two); read from k = 3 it finds
    the three blobs, with 1 in the range or not (the structure test still runs). The
    bundled glass with columns at unit variance, alike."""
    y = np.repeat(np.arange(3), 150)
    centres = np.array([[0.0, 0.0], [3.5, 0.0], [7.0, 0.0]])
    X = centres[y] + np.random.default_rng(4).standard_normal((450, 2))
    r = choose_k(X)
    assert r.structure_z[1] <= STRUCTURE_Z < r.structure_z[2]
    [sil] = steps(r, "silhouette")
    assert min(sil.value) == 3 and "from k=3, the first gain" in sil.statistic
    bayes = ari(y, np.argmin(cdist(X, centres), axis=1))   # the blobs overlap: about 0.79
    assert r.k == 3 and ari(y, r.labels) >= bayes - 0.02
    assert choose_k(X, method="silhouette").k == 2 and choose_k(X, range(2, 11)).k == 3
    X, _ = datasets.load_glass(standardize=True)
    r = choose_k(X)
    assert r.structure_z[1] <= STRUCTURE_Z < r.structure_z[2]
    assert min(steps(r, "silhouette")[0].value) == 3 and r.k >= 3


def test_references_are_the_same_whatever_the_range():
    X = np.random.default_rng(6).normal(size=(80, 2))
    za, _, a = references(geometry(X), np.arange(1, 4), 4, "pca")
    zb, _, b = references(geometry(X), np.arange(1, 6), 4, "pca")
    np.testing.assert_allclose(a, b[..., :3], rtol=1e-12)
    np.testing.assert_allclose(za, zb[:3], rtol=1e-12)


def test_references_run_on_samples_of_large_data(monkeypatch):
    """Past STRUCTURE_MAX_N rows the reference test runs on disjoint uniform samples of
    that many (at most STRUCTURE_SAMPLES): each sample's z is that of the test on the
    sample alone, and the test reads their median."""
    X = np.random.default_rng(8).normal(size=(170, 2))
    monkeypatch.setattr(structure, "STRUCTURE_MAX_N", 50)
    monkeypatch.setattr(structure, "STRUCTURE_SAMPLES", 3)
    z, zs, ref = references(geometry(X, seed=4), np.arange(1, 5), 3, "pca")
    assert zs.shape == (3, 4) and ref.shape == (3, 3, 4)
    perm = np.random.default_rng([4, 0, 4]).permutation(170)
    monkeypatch.setattr(structure, "STRUCTURE_MAX_N", 1000)
    for i in range(3):
        sub = np.sort(perm[50 * i:50 * (i + 1)])
        zi, _, [ri] = references(geometry(X[sub], seed=stream(4, "structure sample", i)),
                                 np.arange(1, 5), 3, "pca")
        np.testing.assert_allclose(ref[i], ri, rtol=1e-12)
        np.testing.assert_allclose(zs[i], zi, rtol=1e-12)
    np.testing.assert_allclose(z, np.median(zs, axis=0), rtol=1e-12)


def test_the_trace_says_what_the_reference_test_ran_on(monkeypatch):
    """All the rows, one sample of STRUCTURE_MAX_N, or the median of several."""
    monkeypatch.setattr(structure, "STRUCTURE_MAX_N", 50)
    said = {}
    for n in (40, 70, 170):
        t = Trace()
        X = np.random.default_rng(8).normal(size=(n, 2))
        find_structure(geometry(X, seed=4), np.arange(1, 4), 3, "pca", t)
        said[n] = t.steps[-1].statistic.split("by k")[1]
    assert said == {40: "", 70: " (on a sample of 50 rows)",
                    170: " (the median of 3 samples of 50 rows)"}


def test_rescaled_geometries():
    rng = np.random.default_rng(7)
    X = cigars(rng, 2)
    energy = Setting()
    m, why = rescaled("multimodal axes", X, np.ones(200), energy, X)
    Z = m(X)
    assert why is None and Z.shape == (200, 1)              # the short axis only
    assert np.corrcoef(Z[:, 0], X[:, 1])[0, 1] ** 2 > 0.99
    np.testing.assert_array_equal(m(X[::-1]), Z[::-1])      # a map of rows, row by row
    gauss = rng.normal(size=(200, 2))
    assert rescaled("multimodal axes", gauss, np.ones(200), energy, gauss) == (
        None, "no axis of X sphered is multimodal (dip test)")
    w = rng.uniform(0.5, 2.0, 200)
    m, why = rescaled("standardized", gauss * [100.0, 1.0], w, energy, None)
    Z = m(gauss * [100.0, 1.0])
    np.testing.assert_allclose(w @ Z / w.sum(), 0.0, atol=1e-12)
    np.testing.assert_allclose(w @ Z ** 2 / w.sum(), 1.0, rtol=1e-12)
    for same in (np.c_[gauss[:, 0], gauss[:, 0]], np.c_[gauss[:, 0], 1.02 * gauss[:, 1]]):
        assert "variances are equal but for sampling error" in rescaled(
            "standardized", same, w, energy, None)[1]
    assert rescaled("standardized", gauss * [1.5, 1.0], w, energy, None)[1] is None
    Z, why = rescaled("multimodal axes", rng.normal(size=(20, 30)), np.ones(20), energy, None)
    assert Z is None and "19 axes of variance for 20 points" in why
    for name in ("multimodal axes", "standardized"):
        Z, why = rescaled(name, X, np.ones(200), Setting(semimetric="gaussian"), X)
        assert Z is None and "semimetric='gaussian'" in why


# =========================================================================== answers
def test_blobs_are_four_and_the_trace_says_why():
    X, y = four_blobs()
    r = choose_k(X)
    assert r.k == 4 and r.method == "auto" and r.semimetric == "energy"
    assert r.geometry == "data" and ari(y, r.labels) == 1.0 and not r.at_top
    assert names(r) == ["structure", "silhouette", "split"]
    dips, sil, split = r.trace.steps
    assert dips.threshold == STRUCTURE_ALPHA / 2 and dips.outcome == "modes: structure"
    assert min(dips.value.values()) < STRUCTURE_ALPHA / 2
    assert sil.outcome == "largest at k=4" and max(sil.value, key=sil.value.get) == 4
    assert sil.value == pytest.approx({k: r.silhouette[k - 1] for k in sil.value})
    assert list(sil.value) == list(range(2, SCAN_MIN + 1))     # by k, followed to SCAN_MIN
    assert split.threshold == SPLIT_ALPHA and split.outcome == "k=4"
    assert split.value == {4: pytest.approx(r.split_p[3])} and split.value[4] >= SPLIT_ALPHA
    assert r.reasoning == render(r.trace.steps)
    X, y = make_blobs(300, 2, centers=4, random_state=0)
    r = choose_k(X)
    assert r.k == 4 and ari(y, r.labels) > 0.8     # two of its blobs touch


def test_one_gaussian_blob_and_a_uniform_square_are_one():
    rng = np.random.default_rng(2)
    for X in (rng.normal(size=(300, 2)), rng.random((300, 2))):
        r = choose_k(X)
        assert r.k == 1 and np.all(r.labels == 0) and not r.at_top
        assert names(r) == ["structure", "structure", "geometry", "geometry", "answer"]
        dips, refs = steps(r, "structure")
        assert dips.outcome == "no modes" and min(dips.value.values()) >= STRUCTURE_ALPHA / 2
        assert refs.outcome == "no structure" and refs.threshold == STRUCTURE_Z
        assert max(refs.value.values()) <= STRUCTURE_Z and len(refs.value) == STRUCTURE_KMAX - 1
        axes, std = steps(r, "geometry")
        assert (axes.value, axes.outcome) == (
            "multimodal axes", "not tried: no axis of X sphered is multimodal (dip test)")
        assert std.value == "standardized" and std.outcome.startswith(
            "not tried: its columns' variances are equal but for sampling error")
        assert steps(r, "answer")[0].outcome == "k=1"
        assert np.all(r.structure_z[1:STRUCTURE_KMAX] <= STRUCTURE_Z)
        assert np.isnan(r.structure_z[STRUCTURE_KMAX:]).all()


@pytest.mark.parametrize("name, make", [
    ("student t3", lambda rng: rng.standard_t(3, size=(200, 2))),
    ("gaussian 6x1 rotated", lambda rng: rng.normal(size=(300, 2)) * [6.0, 1.0]
     @ np.linalg.qr(rng.normal(size=(2, 2)))[0].T),
    ("exponential", lambda rng: rng.exponential(size=(300, 2))),
    ("lognormal", lambda rng: rng.lognormal(size=(300, 2))),
])
def test_other_unimodal_data_are_one(name, make):
    """One mode, five draws: at most one answers more than one cluster (the tests run
    at level 0.01; skewed draws answered 2 or 3 on three of these five lognormal
    draws while the split dip pooled mirrored projections)."""
    answers = [choose_k(make(np.random.default_rng(s)), range(1, 8), n_refs=5) for s in range(5)]
    assert sum(r.k > 1 for r in answers) <= 1
    assert all(steps(r, "answer")[0].outcome == "k=1" for r in answers if r.k == 1)


def test_moons_and_rings_answer_energy_tiles_within_the_shapes():
    """choose_k(X) answers the energy semimetric's k: its partitions cut moons and rings
    into tiles, and the graph's groups (cleanly cut, not energy's partition of two,
    some tile not bimodal with its nearest) bring the silhouette's many tiles down to
    the fewest within the shapes, each within one shape but for a few points where two
    shapes come close; semimetric="auto" takes the graph's groups, the shapes."""
    for X, y in (make_moons(400, noise=0.05, random_state=0),
                 make_circles(400, factor=0.5, noise=0.05, random_state=0)):
        r = choose_k(X, range(1, 31))
        assert names(r) == ["structure", "silhouette", "split", "graph eigengap", "tiles"]
        assert r.candidates is None and not r.at_top
        split = next(s for s in r.trace.steps if s.step == "split")
        assert 2 < r.k < int(split.outcome.removeprefix("k=")) and purity(r.labels, y) >= 0.9
        assert r.trace.steps[-1].value == r.k
        j = choose_k(X, range(1, 31), semimetric="auto")
        assert j.semimetric == "nearest_neighbors" and j.k == 2 and ari(y, j.labels) >= 0.95
        assert j.candidates["energy"].k == r.k


def test_rings_with_auto_answer_two_whatever_the_range():
    """The energy rule's pieces of rings do not settle (the silhouette grows with k);
    semimetric="auto" answers the graph's two rings whatever the range."""
    X, y = make_circles(400, factor=0.5, noise=0.05, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        answers = {choose_k(X, ks, semimetric="auto").k
                   for ks in (range(1, 16), range(1, 31), range(2, 16))}
    assert answers == {2}


def test_a_real_table_and_its_trace():
    """The bundled wine (as the TPAMI paper preprocessed it): 3, the cultivars; the
    raw table (proline in mg/l drowns the other columns): 3 with every column at unit
    variance, found in the standardized geometry."""
    from sklearn.datasets import load_wine

    X, y = datasets.load_wine()
    r = choose_k(X)
    assert r.k == 3 and ari(y, r.labels) > 0.85
    dips, refs = steps(r, "structure")
    assert dips.outcome == "no modes" and refs.outcome == "structure"
    assert refs.threshold == STRUCTURE_Z and max(refs.value.values()) > STRUCTURE_Z
    [split] = steps(r, "split")
    assert split.outcome == "k=3" and split.threshold == SPLIT_ALPHA
    X, y = load_wine(return_X_y=True)
    r = choose_k(X)
    assert r.k == 3 and r.geometry == "standardized" and r.standardized.k == 3
    assert r.multimodal_axes is None and ari(y, r.labels) > 0.8
    assert [(s.value, s.outcome) for s in steps(r, "geometry")] == [
        ("multimodal axes", "not tried: no axis of X sphered is multimodal (dip test)"),
        ("standardized", "k=3")]
    assert "geometry: standardized: k=3" in r.summary()
    own, std = steps(r, "structure")[1], steps(r, "structure")[3]
    assert own.outcome == "no structure" and std.outcome == "structure"
    assert np.all(r.structure_z[1:STRUCTURE_KMAX] <= STRUCTURE_Z)


@pytest.mark.parametrize("name", ["iris", "wine", "seeds", "glass", "ionosphere"])
def test_bundled_tables_one_k_whatever_the_range(name):
    X, _ = getattr(datasets, f"load_{name}")()
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        ks = {choose_k(X, range(1, top)).k for top in (11, 16, 21)}
    assert len(ks) == 1 and 2 <= ks.pop() < 10


def test_blobs_one_k_whatever_the_range():
    X = blobs(np.random.default_rng(0), SIX, 0.8, 20)
    rs = [choose_k(X, range(1, top), n_refs=4) for top in (8, 13, 25)]
    assert {r.k for r in rs} == {6}
    for r in rs[1:]:                     # the same silhouettes wherever both computed
        np.testing.assert_allclose(r.silhouette[1:7], rs[0].silhouette[1:7], rtol=1e-12)
    assert np.isnan(rs[2].silhouette[2 * 6:]).all()       # nothing past max(10, 2 x 6)


@pytest.mark.parametrize("make", [
    lambda: make_blobs(2000, 2, centers=5, cluster_std=1.0, random_state=0)[0],
    lambda: make_moons(300, noise=0.05, random_state=0)[0],
    lambda: datasets.load_glass()[0],
], ids=["blobs 2000", "moons", "glass"])
def test_the_same_answer_for_every_random_state(make):
    X = make()
    rs = [choose_k(X, random_state=s) for s in range(5)]
    assert len({r.k for r in rs}) == 1
    for r in rs[1:]:
        np.testing.assert_array_equal(r.labels, rs[0].labels)
        assert r.reasoning == rs[0].reasoning
    est = [KernelKGroups("auto", random_state=s).fit(X).n_clusters_ for s in (0, 3)]
    assert est == [rs[0].k] * 2


def test_row_order_does_not_change_the_answer():
    X, y = four_blobs(3)
    perm = np.random.default_rng(0).permutation(len(X))
    a, b = choose_k(X), choose_k(X[perm])
    assert a.k == b.k == 4 and same_partition(a.labels[perm], b.labels)


def test_integer_weights_are_repeated_rows():
    X, _ = four_blobs(n=30)
    w = np.random.default_rng(3).integers(1, 4, X.shape[0])
    a = choose_k(X, sample_weight=w)
    b = choose_k(np.repeat(X, w, axis=0))
    assert a.k == b.k == 4 and ari(np.repeat(a.labels, w), b.labels) == 1.0
    assert names(a) == names(b)
    c = choose_k(X, sample_weight=w / 7.0)              # only relative weights matter
    assert c.k == 4 and same_partition(c.labels, a.labels)


@pytest.mark.parametrize("semimetric", ["energy", "auto"])
def test_copies_of_a_row_are_the_row_with_their_weight(semimetric):
    """Forty draws of one Gaussian, each copied five times, are forty points of weight
    5: one cluster, with the same trace. Read row by row, the dips would see each
    point's copies as a mode of its own."""
    P = np.random.default_rng(0).normal(size=(40, 2))
    a = choose_k(P, sample_weight=np.full(40, 5.0), semimetric=semimetric)
    b = choose_k(np.repeat(P, 5, axis=0), semimetric=semimetric)
    assert a.k == b.k == 1 and a.reasoning == b.reasoning
    X, y = four_blobs(n=30)                            # copies of some rows, not all
    c = np.random.default_rng(1).integers(1, 4, X.shape[0])
    a = choose_k(X, sample_weight=c, semimetric=semimetric)
    b = choose_k(np.repeat(X, c, axis=0), semimetric=semimetric)
    assert a.k == b.k == 4 and a.reasoning == b.reasoning
    np.testing.assert_array_equal(np.repeat(a.labels, c), b.labels)


def test_the_trace_says_when_copies_or_weights_make_the_rows_unequal():
    """Five spots, each thirty copies of one row, are five rows of weight 30 to the
    choice: five points, which show no structure. The trace's first step says so (five
    distinct rows of effective size 5); the one-line summary leaves it out, and rows
    of equal unit weight have no such step."""
    spots = np.array([[0.0, 0.0], [5.0, 5.0], [0.0, 5.0], [5.0, 0.0], [9.0, 9.0]])
    r = choose_k(np.repeat(spots, 30, axis=0))
    first = r.trace.steps[0]
    assert r.k == 1 and first.step == "rows" and first.outcome == ""
    assert first.value == {"distinct rows": 5, "effective size": 5.0}
    assert "rows" not in r.summary() and r.explain().startswith("rows: the distinct rows")
    X, _ = four_blobs(n=30)
    w = np.r_[np.full(60, 1.0), np.full(60, 3.0)]
    step = choose_k(X, sample_weight=w).trace.steps[0]
    assert step.value == {"distinct rows": 120, "effective size": 240**2 / 600}  # 96
    assert choose_k(X).trace.steps[0].step == "structure"
    assert choose_k(X, sample_weight=np.ones(120)).trace.steps[0].step == "structure"


@pytest.mark.parametrize("semimetric", ["energy", "auto"])
def test_copies_are_compared_by_value_zero_and_minus_zero_alike(semimetric):
    """Rows that differ only in the sign of a zero (as ``-X`` or a centring leaves them)
    are copies of one row: the same answer and trace as the row with their weight."""
    P = np.random.default_rng(0).normal(size=(40, 2))
    P[::2, 1] = 0.0
    Q = P.copy()
    Q[Q == 0.0] = -0.0
    a = choose_k(P, sample_weight=np.full(40, 5.0), semimetric=semimetric)
    b = choose_k(np.vstack([P, Q, P, Q, P]), semimetric=semimetric)
    assert a.k == b.k and a.reasoning == b.reasoning
    np.testing.assert_array_equal(np.tile(a.labels, 5), b.labels)


def test_a_sample_of_data_with_copies_is_of_distinct_rows(monkeypatch):
    """Past SAMPLE_N distinct rows the sample is drawn from the distinct rows; it names
    the first copy of each, and every row, copies included, is labelled."""
    monkeypatch.setattr(core, "SAMPLE_N", 200)
    X, y = four_blobs(n=150)
    X, y = np.vstack([X, X[:300]]), np.r_[y, y[:300]]
    r = choose_k(X, semimetric="auto", random_state=0)
    assert r.k == 4 and r.labels.shape == (900,) and ari(y, r.labels) == 1.0
    assert r.sample.shape == (200,) and np.all(np.diff(r.sample) > 0) and r.sample[-1] < 600
    assert all(c.labels.shape == (200,) for c in r.candidates.values())


def test_answer_at_the_top_of_the_range_warns_at_the_callers_line():
    X = blobs(np.random.default_rng(1), SIX, 0.8, 20)
    with pytest.warns(KRangeWarning, match="widen k_range") as record:
        r = choose_k(X, range(1, 4), n_refs=4)
    assert record[0].filename == __file__ and len(record) == 1
    assert r.k == 3 and r.at_top and r.reasoning.endswith("widen k_range.")
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        r = choose_k(X, range(1, 9), n_refs=4)
    assert r.k == 6 and not r.at_top
    assert issubclass(KRangeWarning, UserWarning)


def test_clusters_within_clusters_split():
    """Two groups 40 apart of two blobs 5 apart: the silhouette prefers the 2 groups;
    each group's held-out half projects to two modes, so the walk goes to 3, then 4,
    where no cluster splits."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal([40.0 * g + 5.0 * (s - 0.5), 0.0], 0.7, (40, 2))
                   for g in range(2) for s in range(2)])
    r = choose_k(X, range(1, 8), n_refs=4)
    assert r.k == 4 and np.nanargmax(r.silhouette) == 1          # the silhouette alone: 2
    [sil] = steps(r, "silhouette")
    [split] = steps(r, "split")
    assert sil.outcome == "largest at k=2" and split.outcome == "k=4"
    assert list(split.value) == [2, 3, 4]
    assert split.value[2] < SPLIT_ALPHA and split.value[3] < SPLIT_ALPHA
    assert split.value[4] >= SPLIT_ALPHA
    assert r.silhouette[3] >= SILHOUETTE_KEEP * r.silhouette[1]


def test_split_walk_stops_where_the_silhouette_falls():
    """A pair of blobs 4 standard deviations apart and a small blob far away: the
    pair's cluster splits at k = 2, but the 3-cluster fit keeps less than
    SILHOUETTE_KEEP of the silhouette of k = 2, so the walk stops at 2 and says why."""
    rng = np.random.default_rng(13)
    X = np.vstack([rng.normal([0.0, 0.0], 0.5, (200, 2)), rng.normal([2.0, 0.0], 0.5, (200, 2)),
                   rng.normal([20.0, 0.0], 0.5, (50, 2))])
    r = choose_k(X, range(1, 8), n_refs=4)
    tested, floor = steps(r, "split")
    assert tested.outcome == "k=2" and tested.value[2] < SPLIT_ALPHA and list(tested.value) == [2]
    assert floor.threshold == SILHOUETTE_KEEP and floor.outcome == "below: k=2"
    assert floor.value == pytest.approx(r.silhouette[2] / r.silhouette[1])
    assert floor.value < SILHOUETTE_KEEP and np.isnan(r.split_p[2])


@pytest.mark.parametrize("m", [2, 3])
def test_parallel_elongated_clusters(m):
    """m clusters along x, 4 apart in y: X shows no structure (its energy partitions
    cut across them); the short principal axis is multimodal, and there they
    separate: the answer is m, and its labels are the m clusters."""
    X = cigars(np.random.default_rng(4), m)
    truth = np.repeat(np.arange(m), 100)
    r = choose_k(X, range(1, 8), n_refs=4)
    assert r.multimodal_axes is not None and r.multimodal_axes.k == m
    assert same_partition(r.multimodal_axes.labels, truth)
    assert steps(r, "geometry")[0].outcome == f"k={m}" and r.standardized is None
    declared = [s for s in steps(r, "structure") if s.value == {"axes": 1}]
    assert len(declared) == 1 and declared[0].outcome == "structure"
    assert r.k == m and r.geometry == "multimodal axes"
    assert same_partition(r.labels, truth)


def test_without_k_one_the_same_rule_never_answering_one():
    """Without 1 in the range the structure test still chooses the geometry (and where
    the silhouette starts), so the answer is that of the whole range wherever X shows
    structure; where no geometry does, steps 2-3 run on X itself, and the trace says so."""
    X = blobs(np.random.default_rng(5), SIX[:3], 0.7, 20)
    r = choose_k(X, range(2, 6))
    assert r.k == 3 and r.k_values.tolist() == [2, 3, 4, 5] and r.gap is None
    assert names(r)[:3] == ["structure", "silhouette", "split"]
    raw_wine = datasets.load_wine(standardize=False)[0]
    full, two = choose_k(raw_wine), choose_k(raw_wine, range(2, 11))
    assert (two.k, two.geometry) == (full.k, full.geometry) == (3, "standardized")
    assert same_partition(two.labels, full.labels)
    cloud = np.random.default_rng(0).normal(size=(300, 2)) * [3.0, 1.0]
    assert choose_k(cloud, range(1, 11)).k == 1
    r = choose_k(cloud, range(2, 11))
    assert r.k >= 2 and r.geometry == "data" and r.structure_z.shape == (9,)
    [fallback] = [s for s in r.trace.steps if s.statistic == "the least k of k_range"]
    assert fallback.value == 2 and "1 is not in the range" in fallback.outcome
    assert r.trace.steps.index(fallback) > max(
        i for i, s in enumerate(r.trace.steps) if s.step == "geometry")
    assert np.isfinite(r.silhouette[0]) and r.labels.max() + 1 == r.k
    r = choose_k(cloud, [6, 7, 8])          # the references at k = 2..5 all the same
    assert list(steps(r, "structure")[1].value) == [2, 3, 4, 5] and r.k in (6, 7, 8)


@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_every_engine_of_the_energy_semimetric_gives_the_same_answer(engine):
    """The fits of the energy rule run on the engine asked for; the neighbourhood
    graph the arbiter builds is the graph's own business."""
    X = blobs(np.random.default_rng(6), SIX[:3], 0.7, 12)
    a = choose_k(X, range(1, 5), n_refs=2)
    b = choose_k(X, range(1, 5), n_refs=2, engine=engine)
    assert a.k == b.k == 3 and names(a) == names(b)
    np.testing.assert_allclose(a.silhouette, b.silhouette, rtol=1e-6, equal_nan=True)
    assert KernelKGroups("auto", engine=engine, random_state=0).fit(X).n_clusters_ == 3


def test_another_semimetric_runs_the_energy_rule_alone():
    """Another semimetric of point data: the energy rule (no graph, no rescaled
    geometry: its partitions depend on the units)."""
    X, _ = four_blobs(n=30)
    r = choose_k(X, semimetric="gaussian", sigma=2.0)
    assert r.k == 4 and r.semimetric == "gaussian"
    assert "arbiter" not in names(r) and r.candidates is None
    Z = np.random.default_rng(1).normal(size=(200, 2)) * [3.0, 1.0]
    r = choose_k(Z, range(1, 5), semimetric="laplacian", sigma=3.0, n_refs=3)
    assert r.k == 1 and r.standardized is None and r.multimodal_axes is None
    assert all("semimetric='laplacian'" in s.outcome for s in steps(r, "geometry"))


def test_rounded_data_are_read_to_their_precision():
    """A Gaussian in the plane rounded to half its standard deviation and counts (four
    Poisson columns) have no clusters, and three Gaussians rounded alike have three.
    Read as they are, their repeated values make combs that the dips read as modes;
    the dips read X to its precision, the fits X itself. The copies of a rounded cell
    are one row of their weight: the dips read it at the sample's effective size (235
    cells of 900 rows read as 124 points), and the three show structure."""
    rng = np.random.default_rng(11)
    y = np.repeat([0, 1, 2], 300)
    for X, k in ((np.round(rng.normal(size=(1000, 2)) / 0.5) * 0.5, 1),
                 (rng.poisson(3.0, size=(1000, 4)).astype(float), 1),
                 (np.round(blobs(rng, [[0, 0], [6, 0], [0, 6]], 1.0, 300) / 0.5) * 0.5, 3)):
        r = choose_k(X, range(1, 11))
        outcomes = [s.outcome for s in steps(r, "structure")]   # X's own geometry first
        assert r.k == k and (outcomes[:2] == ["no modes", "no structure"] if k == 1 else
                             outcomes in (["modes: structure"], ["no modes", "structure"]))
        assert k == 1 or ari(y, r.labels) > 0.98
        assert choose_k(X, range(1, 11), semimetric="auto").k == k


def test_independent_codes_are_one_cluster_and_rows_apart_along_codes_are_clusters():
    """Ten independent fair bits have no clusters: read as they are, the line of a
    2-cluster fit lies near one bit and the dip reads its two levels as modes (k = 12
    on this draw); unrelated to the other bits, they are read to
    their precision: one cluster. Codes whose rows lie apart are clusters all the same:
    three prototypes of 30 bits with a tenth flipped (bits that vary together keep their
    atoms), and a bit ten times the spread of a Gaussian column beside it (read to its
    precision, the reference test on X sees it)."""
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2, (300, 10)).astype(float)
    r = choose_k(bits)
    assert r.k == 1 and [s.outcome for s in steps(r, "structure")][:2] == [
        "no modes", "no structure"]
    assert choose_k(bits, semimetric="auto").k == 1
    y = np.repeat([0, 1, 2], 100)
    codes = np.abs(rng.integers(0, 2, (3, 30))[y] - (rng.random((300, 30)) < 0.1))
    b = rng.integers(0, 2, 300)
    for X, truth in ((codes.astype(float), y), (np.c_[10.0 * b, rng.normal(size=300)], b)):
        r = choose_k(X)
        assert r.k == np.unique(truth).size and ari(truth, r.labels) == 1.0


def test_a_group_apart_is_structure_for_the_energy_rule():
    """Four tight points far from a 400-point blob move neither dip nor the gain over the
    references, but they are a separated group of the neighbourhood graph: structure,
    and the energy rule's two clusters are the blob and the four. One far point alone is
    an outlier, no group: one cluster."""
    rng = np.random.default_rng(5)
    blob = rng.normal(0, 1, (400, 2))
    X = np.vstack([blob, rng.normal(30, 0.05, (4, 2))])
    r = choose_k(X)
    assert r.k == 2 and ari(np.repeat([0, 1], [400, 4]), r.labels) == 1.0
    [apart] = [s for s in steps(r, "structure") if s.value == 4]
    assert apart.outcome == "a group apart: structure"
    r = choose_k(np.vstack([blob, [[30.0, 30.0]]]))
    assert r.k == 1 and all("apart" not in s.outcome for s in r.trace.steps)


def test_the_far_small_group_is_found():
    """Three blobs and a far group of 12 points (2 % of the weight): the energy rule's
    4; with semimetric="auto" the graph's smallest group holds less than BALANCE / k_g
    of the weight, it only sets a small part apart: the energy rule's 4 stands."""
    rng = np.random.default_rng(3)
    X = np.vstack([blobs(rng, [[0, 0], [5, 0], [0, 5]], 0.5, 200),
                   rng.normal([30, 30], 0.3, (12, 2))])
    y = np.repeat([0, 1, 2, 3], [200, 200, 200, 12])
    r = choose_k(X, range(1, 16))
    assert r.k == 4 and ari(y, r.labels) == 1.0 and "arbiter" not in names(r)
    r = choose_k(X, range(1, 16), semimetric="auto")
    assert r.k == 4 and ari(y, r.labels) == 1.0 and r.semimetric == "energy"
    [arb] = steps(r, "arbiter")
    assert arb.threshold is None and arb.rule == "a small part apart"


def test_too_few_distinct_rows_are_one_cluster():
    X = np.repeat([[0.0, 0.0], [5.0, 5.0]], 30, axis=0)
    r = choose_k(X)
    assert r.k == 1 and np.all(r.labels == 0)
    r = choose_k(np.ones((20, 3)))
    assert r.k == 1 and np.all(r.labels == 0)


def test_arbiter_takes_finer_groups_that_the_energy_partition_of_k_g_is():
    """Rule 2: energy answers fewer clusters than the graph has groups, and the energy
    partition of k_g clusters is those groups (ARI >= AGREE): the graph, however the
    cuts compare and whatever the nesting; below AGREE the cut decides."""
    t = Trace()
    assert decide(0.5, 0.001, 2, 4, 0.0, 0.5, t, AGREE) == "nearest_neighbors"
    assert t.steps[0].threshold is None and t.steps[0].rule == "finer groups"
    # the one-line summary names the clause and its number, not the cuts it overrode
    assert t.steps[0].short == f"the graph's groups, finer than energy's (ARI {AGREE:.2f})"
    assert decide(0.5, 0.001, 2, 4, 0.0, 0.5, t2 := Trace(), AGREE - 1e-9) == "energy"
    assert (t2.steps[0].rule, t2.steps[0].short) == ("the cuts", "energy")
    assert decide(0.5, 0.001, 1, 4, 0.0, 0.5, Trace(), 1.0) == "energy"   # rule 1 first


def test_arbiter_keeps_energy_where_its_partition_of_k_g_is_the_graph_s_groups():
    """Rule 3: the energy clusters nest in the graph's groups and the energy partition
    of as many clusters is those groups (ARI >= AGREE): energy, however the cuts
    compare, at k_e = k_g or where a group splits by energy's split test (more
    clusters: the clouds a group holds); where none splits, energy's further clusters
    are pieces of the groups: the graph. Below AGREE, or not nested, the cut decides."""
    t = Trace()
    assert decide(0.001, 0.5, 6, 2, WITHIN, 0.5, t, AGREE, split_p=SPLIT_ALPHA / 2) == "energy"
    assert t.steps[0].threshold is None and t.steps[0].rule == "the same groups"
    assert t.steps[0].short == f"energy, the same groups (ARI {AGREE:.2f})"
    assert "a group splits" in t.steps[0].outcome
    t = Trace()     # as many clusters: the split test is not read
    assert decide(0.001, 0.5, 2, 2, WITHIN, 0.5, t, AGREE, split_p=lambda: 1 / 0) == "energy"
    assert t.steps[0].rule == "the same groups"
    t = Trace()
    assert decide(0.0, 0.0, 6, 2, WITHIN, 0.5, t, AGREE, split_p=SPLIT_ALPHA) == \
        "nearest_neighbors"
    assert t.steps[0].rule == "pieces of the same groups"
    assert "energy's 6 clusters are pieces of the graph's 2 groups" in t.steps[0].outcome
    for within, agree in ((WITHIN, AGREE - 1e-9), (WITHIN - 0.01, 1.0)):
        assert decide(0.001, 0.5, 6, 2, within, 0.5, Trace(), agree, split_p=0.0) == \
            "nearest_neighbors"


def test_arbiter_keeps_energy_where_its_clusters_within_a_group_are_bimodal():
    """Rule 3: more energy clusters than groups, nested, each bimodal with its nearest
    neighbour in its group (pair_dips below SPLIT_ALPHA): energy; at k_e = k_g, or
    unimodal pairs, the cut decides."""
    t = Trace()
    assert decide(0.001, 0.5, 6, 2, WITHIN, 0.5, t, 0.0, SPLIT_ALPHA / 2) == "energy"
    assert t.steps[0].rule == "bimodal pairs" and t.steps[0].threshold is None
    for k_e, pair_p in ((6, SPLIT_ALPHA), (2, 0.0)):
        assert decide(0.001, 0.5, k_e, 2, WITHIN, 0.5, Trace(), 0.0, pair_p) == \
            "nearest_neighbors"


@pytest.mark.parametrize("seed, sd", [(1, 0.10), (2, 0.13), (3, 0.10)])
def test_two_sine_waves_are_the_graph_s_two_not_energy_s_arches(seed, sd):
    """Two sine waves 2.9 apart: energy answers 8 clusters, each wave cut into arches
    within the graph's groups. Two adjacent arches are bimodal along their
    discriminant (the wave bends) but not apart: rule 3 does not keep them, and the
    cut answers the two waves."""
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 4 * np.pi, (2, 300))
    X = np.vstack([np.c_[x[j], np.sin(x[j]) + 2.9 * j] + rng.normal(0, sd, (300, 2))
                   for j in (0, 1)])
    r = choose_k(X, semimetric="auto")
    assert r.candidates["energy"].k == 8 and steps(r, "arbiter")[0].rule == "the cuts"
    assert (r.k, r.semimetric) == (2, "nearest_neighbors")
    assert ari(np.repeat([0, 1], 300), r.labels) == 1.0


def test_three_parallel_cigars_the_graph_joins_two_of_are_energy_s_three():
    """Three parallel cigars: the graph's eigengap answers 2 groups (two of the cigars
    in one), energy 3 clusters on X's multimodal axis (X itself shows energy none); the
    graph's groups of X pass the arbiter's first clause (structure on X), and the pair
    in one group is bimodal across the cigars: rule 3 keeps energy's 3, not the cut."""
    X = cigars(np.random.default_rng(17), 3)
    r = choose_k(X, semimetric="auto")
    assert r.candidates["nearest_neighbors"].k == 2
    assert [a.rule for a in steps(r, "arbiter")] == ["no structure", "bimodal pairs"]
    assert (r.k, r.semimetric) == (3, "energy")
    assert ari(np.repeat([0, 1, 2], 100), r.labels) == 1.0


def test_pair_dips_tell_blobs_within_a_group_from_the_arcs_of_a_ring():
    """Two blobs 5 sd apart in one group are bimodal along the line of their means;
    adjacent arcs of a ring (energy's pieces of it) are not; no group of two: 1."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(0, 1, (150, 2)), rng.normal(0, 1, (150, 2)) + [5, 0]])
    one, w = np.zeros(300, dtype=np.int64), np.ones(300)
    assert cluster_modes.pair_dips(X, w, np.repeat([0, 1], 150), one) < SPLIT_ALPHA
    assert cluster_modes.pair_dips(X, w, np.repeat([0, 1], 150), np.repeat([0, 1], 150)) == 1.0
    R, ring = make_circles(600, factor=0.5, noise=0.05, random_state=0)
    arc = np.floor((np.arctan2(R[:, 1], R[:, 0]) + np.pi) / (np.pi / 4)).astype(int) % 8
    E = np.unique(2 * arc + ring, return_inverse=True)[1]
    assert cluster_modes.pair_dips(R, np.ones(600), E, ring) >= SPLIT_ALPHA


def test_pair_dips_ask_a_gap_in_the_space_as_the_split_walk_does():
    """Half a ring cut into its quarters (energy's tiles of one bent curve, in one
    group): along their discriminant the quarters are bimodal (the projection piles up
    at both ends), but their margins along the data spread from the cut: the pair's
    p-value is the larger, not below SPLIT_ALPHA. Two blobs in one group reject both
    ways."""
    rng = np.random.default_rng(0)
    t = rng.uniform(0, np.pi, 400)
    arc = np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.03, (400, 2))
    E, one, w = (t > np.pi / 2).astype(np.int64), np.zeros(400, dtype=np.int64), np.ones(400)
    mu = np.array([arc[E == 0].mean(axis=0), arc[E == 1].mean(axis=0)])
    p_line = dip_test(cluster_modes.discriminant(arc, E, mu, 0, 1), w)[1]
    p_gap = dip_test(path_margins(arc[E == 0], arc[E == 1], 10))[1]
    assert p_line < 1e-3 and p_gap > SPLIT_ALPHA
    assert cluster_modes.pair_dips(arc, w, E, one) == p_gap
    blobs2 = np.r_[rng.normal([0, 0], 0.3, (150, 2)), rng.normal([2.5, 0], 0.3, (150, 2))]
    assert cluster_modes.pair_dips(blobs2, np.ones(300), np.repeat([0, 1], 150),
                             np.zeros(300, dtype=np.int64)) < SPLIT_ALPHA


def test_margins_along_the_data_do_not_pile_up_where_a_wave_bends_back():
    """Two arches of a sine wave (one cut across a curve): straight-line margins grow
    more slowly than the arc where the wave bends back and pile up away from the cut
    (the dip rejects); along the neighbourhood graph they grow as the arc, one mode.
    Both see the gap between two blobs, and with no path at all each row's margin
    keeps its side's sign."""
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 2 * np.pi, 800)
    wave = np.c_[x, np.sin(x)] + rng.normal(0, 0.1, (800, 2))
    up = x < np.pi
    assert dip_test(margins(wave[up], wave[~up]))[1] < 1e-3
    assert dip_test(path_margins(wave[up], wave[~up], 10))[1] > SPLIT_ALPHA
    A, B = rng.normal([0, 0], 0.3, (200, 2)), rng.normal([1.5, 0], 0.3, (200, 2))
    assert dip_test(path_margins(A, B, 10))[1] < 1e-3
    far = path_margins(A, B + [100.0, 0.0], 10)
    assert np.all(far[:200] > 0) and np.all(far[200:] < 0)


def test_pair_dips_cross_parallel_stripes_along_their_discriminant():
    """Two long stripes side by side whose means' line is slanted (one shifted along
    its length): the line of the means blurs the gap with the stripes' length, their
    discriminant crosses them at right angles and sees it."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.uniform((0, 0), (8, 0.3), (200, 2)),
                   rng.uniform((0.2, 0.45), (8.2, 0.75), (200, 2))])
    E = np.repeat([0, 1], 200)
    assert cluster_modes.pair_dips(X, np.ones(400), E, np.zeros(400, dtype=np.int64)) < SPLIT_ALPHA


def test_pair_dips_read_parts_within_the_pair_s_group_and_pool_them():
    """With ``parts`` each pair is read on every part's rows of the two clusters in
    their group, labelled by the part's labels: all rows labelled by E are E's own
    reading; rows a part labels into the pair from another group (a half's fit may join
    pieces of two groups) are left out, where read they would pile up far along the data
    (no path) and fake a gap; no part that holds two rows of each: 1."""
    rng = np.random.default_rng(1)
    t = rng.uniform(0, 2 * np.pi, 400)
    X = np.vstack([np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.03, (400, 2)),
                   rng.normal(0, 0.3, (100, 2)) + [30, 0]])
    E = np.r_[(t > np.pi).astype(np.int64), np.full(100, 2)]     # a ring's two arcs, a blob
    G, w, rows = np.repeat([0, 1], [400, 100]), np.ones(500), np.arange(500)
    arcs = cluster_modes.pair_dips(X, w, E, G)
    assert arcs >= SPLIT_ALPHA
    assert cluster_modes.pair_dips(X, w, E, G, parts=[(rows, E)]) == arcs
    joined = np.where(E == 2, 0, E)
    assert cluster_modes.pair_dips(X, w, E, G, parts=[(rows, joined)]) == arcs
    assert cluster_modes.pair_dips(X, w, joined, np.zeros(500, dtype=np.int64)) < SPLIT_ALPHA
    assert cluster_modes.pair_dips(X, w, E, G, parts=[(rows[:3], E[:3])]) == 1.0
    assert cluster_modes.pair_dips(X, w, E, G, parts=[]) == 1.0


def test_crossfit_labels_each_half_by_a_fit_of_the_other_in_the_labels_numbering():
    """Fits.crossfit: the rows split in two halves, each labelled by the predict of the
    fit of k on the other half, its clusters named as those of the given labels they
    overlap most: three blobs come back whole, in the labels' numbering; none where a
    half holds fewer than k rows."""
    X, y = make_blobs(120, centers=[[0, 0], [8, 0], [0, 8]], random_state=0)
    names = np.array([2, 0, 1])[y]
    f = Fits(X, np.ones(120), Setting(n_init=3), 0)
    parts = f.crossfit(3, names)
    assert len(parts) == 2
    np.testing.assert_array_equal(np.sort(np.concatenate([r for r, _ in parts])), np.arange(120))
    assert abs(parts[0][0].size - parts[1][0].size) <= 1
    for rows, labels in parts:
        np.testing.assert_array_equal(labels, names[rows])
    assert Fits(X[:5], np.ones(5), Setting(n_init=3), 0).crossfit(3, names[:5]) == []


def test_rings_energy_cuts_at_their_thin_spots_are_four_rings():
    """Four rings of 200 points apart: energy's split walk cuts one ring where its sample
    happens to be thin, and read on the points whose fit drew the cut its arcs look apart
    along the data (dip p-value 0.0006), so energy's five clusters stood. Read on each
    half labelled by a fit of the other half, they do not: energy's tiles step answers
    the fewest clusters within the graph's groups, the four rings."""
    rng = np.random.default_rng(0)

    def ring(x, y):
        t = rng.uniform(0, 2 * np.pi, 200)
        return np.c_[x + np.cos(t), y + np.sin(t)] + rng.normal(0, 0.06, (200, 2))

    X = np.vstack([ring(x, y) for x in (0, 3) for y in (0, 3)])
    for r in (choose_k(X), choose_k(X, semimetric="auto")):
        assert steps(r, "split")[-1].outcome == "k=5" and steps(r, "tiles")[0].outcome == "k=4"
        assert r.k == 4 and ari(np.repeat(np.arange(4), 200), r.labels) == 1.0


def test_margins_by_hand():
    """Each row's distance to the other group's nearest row less that to its own group's
    nearest other row, turned negative for the second group; a row alone: 0 from its own."""
    X, E = np.array([[0.0], [1.0], [2.0], [5.0], [6.0]]), np.array([0, 0, 0, 1, 1])
    np.testing.assert_allclose(cluster_modes.margins(X, E, None, 0, 1), [4, 3, 2, -2, -3])
    np.testing.assert_allclose(cluster_modes.margins(X, E, None, 1, 0), [2, 3, -4, -3, -2])
    X, E = np.array([[0.0, 0.0], [3.0, 4.0], [3.0, 5.0]]), np.array([0, 1, 1])
    np.testing.assert_allclose(cluster_modes.margins(X, E, None, 0, 1),
                               [5, 1 - 5, 1 - np.hypot(3, 5)])


@pytest.mark.parametrize("d", [1, 2, 3, 8, 9, 20])
def test_margins_equal_brute_force_in_any_dimension(d):
    """The nearest rows come from a k-d tree in few columns and a brute-force search in
    many: both are the brute-force distances, copies of a row included (a copy is the
    nearest other row, at distance 0)."""
    rng = np.random.default_rng(d)
    A, B = np.round(rng.normal(size=(60, d)), 1), np.round(rng.normal(1.0, 1.0, (40, d)), 1)
    A[:5] = A[5]
    D = np.sqrt(((np.vstack([A, B])[:, None, :] - np.vstack([A, B])[None]) ** 2).sum(-1))
    np.fill_diagonal(D, np.inf)
    own = np.r_[D[:60, :60].min(1), D[60:, 60:].min(1)]
    other = np.r_[D[:60, 60:].min(1), D[60:, :60].min(1)]
    np.testing.assert_allclose(margins(A, B), np.r_[other[:60] - own[:60],
                                                    own[60:] - other[60:]], atol=1e-12)


def test_pair_dips_read_the_graph_s_groups_along_their_margins():
    """Energy without structure (E one cluster): the graph's groups are read along their
    margins. Two rings round one centre have the same mean, but the gap between them
    keeps every margin from 0; a Gaussian cut in two by a line
    and a skewed cloud with its tail cut off have margins near 0 at the cut: one mode."""
    one = np.zeros(600, dtype=np.int64)
    R, ring = make_circles(600, factor=0.5, noise=0.05, random_state=0)
    w = np.ones(600)
    assert cluster_modes.pair_dips(R, w, one, ring) < SPLIT_ALPHA
    rng = np.random.default_rng(0)
    X = rng.normal(size=(600, 2))
    assert cluster_modes.pair_dips(X, w, one, (X[:, 0] > 0).astype(np.int64)) >= SPLIT_ALPHA
    X = rng.lognormal(size=(600, 2))
    tail = (X.sum(axis=1) > np.quantile(X.sum(axis=1), 0.8)).astype(np.int64)
    assert cluster_modes.pair_dips(X, w, one, tail) >= SPLIT_ALPHA


def test_group_dips_read_the_graph_s_groups_within_each_energy_cluster():
    """Rule 3b's test: each group of more than ``least`` rows with its nearest such group
    in the same energy cluster. A Gaussian cut in two by a line, beside a far blob that
    energy holds apart: the halves are one mode; two blobs in one energy cluster are
    two; a group of ``least`` rows or fewer is not read, and where no cluster holds two
    groups to read the answer is ``none``."""
    rng = np.random.default_rng(0)
    X = np.vstack([rng.normal(size=(400, 2)), rng.normal(20, 1, (200, 2))])
    E = np.repeat([0, 1], [400, 200])
    G = np.r_[(X[:400, 0] > 0).astype(np.int64), np.full(200, 2)]
    w = np.ones(600)
    assert cluster_modes.group_dips(X, w, G, E, least=11) >= SPLIT_ALPHA
    B = np.vstack([rng.normal(0, 1, (200, 2)), rng.normal([6, 0], 1, (200, 2)), X[400:]])
    assert cluster_modes.group_dips(B, w, np.repeat([0, 1, 2], 200), E, least=11) < SPLIT_ALPHA
    G = np.r_[np.zeros(395, dtype=np.int64), np.ones(5, dtype=np.int64), np.full(200, 2)]
    assert cluster_modes.group_dips(X, w, G, E, least=11, none=0.0) == 0.0
    assert cluster_modes.group_dips(X, w, G, E, least=4) >= SPLIT_ALPHA


def test_arms_that_no_line_separates_are_the_graph_s_where_energy_sees_no_structure():
    """Three arms of a spiral: energy's rule finds no structure; the graph's groups are
    the arms, cut below half the energy partition's. Along their linear discriminant
    alone the arms are not bimodal (dip p 0.052: one cluster); along their margins they
    are (the gaps between the arms), so the answer is the graph's 3. Energy's own k is not
    1 there: the graph's groups show structure, and steps 2-3 run on X."""
    rng = np.random.default_rng(2)
    t = np.pi * np.sqrt(rng.uniform(0.25, 6.25, 120))       # the same angles on each arm
    X = np.vstack([np.c_[t * np.cos(t + 2 * np.pi * j / 3), t * np.sin(t + 2 * np.pi * j / 3)]
                   for j in range(3)])
    X += rng.normal(0, 0.05, X.shape)
    y = np.repeat([0, 1, 2], 120)
    r = choose_k(X, semimetric="auto")
    assert (r.k, r.semimetric, r.trace.steps[-1].rule) == (3, "nearest_neighbors", "no structure")
    assert ari(y, r.labels) == 1.0
    assert "along their discriminant or margins" in r.trace.steps[-1].outcome
    assert [s.outcome for s in r.trace.steps if s.step == "answer"] == ["k=1"]  # energy's
    own = choose_k(X)
    steps = [s.step for s in own.trace.steps]
    assert steps[-4:] == ["graph eigengap", "structure", "silhouette", "split"]
    assert "answer" not in steps
    assert own.trace.steps[-3].short == "the graph's groups show it"
    assert (own.k, r.candidates["energy"].k) == (3, 3)   # energy's clusters, not the arms
    for seed in (0, 5):                         # one answer, whatever the entry point or seed
        assert KernelKGroups("auto", random_state=seed).fit(X).n_clusters_ == own.k
    with pytest.warns(KRangeWarning, match="the structure is the neighbourhood graph's "
                      "groups, which energy cuts into ever more pieces"):
        assert choose_k(X, range(1, 4)).k == 3  # the top: widening gives more pieces


def test_separated_rings_with_outliers_are_the_rings():
    """Five separated thin rings and 30 uniform outliers: the graph's groups are the
    rings (ARI 1 on the ring points), and energy's partition of 5 clusters is the same;
    energy's split walk cuts the rings into arcs. No ring splits by energy's split test
    with the sides' margins along the data (an arc's path to the other arc grows
    evenly from the cut): the arcs are tiles of the rings, and energy's own k is the
    fewest of its partitions within them, the 5 rings, which the arbiter finds to be the
    graph's groups."""
    rng = np.random.default_rng(0)
    t, r = rng.uniform(0, 2 * np.pi, (5, 300)), 1.5 + rng.normal(0, 0.08, (5, 300))
    centres = np.array([[0, 0], [6, 0], [0, 6], [6, 6], [3, 3]])
    X = np.vstack([np.c_[c[0] + r[j] * np.cos(t[j]), c[1] + r[j] * np.sin(t[j])]
                   for j, c in enumerate(centres)] + [rng.uniform(-4, 10, (30, 2))])
    y = np.repeat(np.arange(5), 300)
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 5 and ari(y, est.labels_[:1500]) >= 0.95
    step = next(s for s in est.n_clusters_choice_.trace.steps if s.step == "arbiter")
    assert step.rule == "the same groups" and est.n_clusters_choice_.candidates["energy"].k == 5
    assert [s.outcome for s in steps(est.n_clusters_choice_)[3:6]] == ["k=15", "k=5", "k=5"]
    own = choose_k(X)
    assert own.k == 5 and ari(y, own.labels[:1500]) >= 0.95


def test_zigzags_with_outliers_are_not_kept_in_pieces_by_one_halving():
    """Three zigzags of five strokes (165 to 284 points each) and 4 % of outliers uniform
    over the box: energy cuts each zigzag into three tiles, and the graph's groups are
    the zigzags. On the sparsest zigzag, one random halving of energy's split test of the
    groups rejected (p = 0.013, 0.038 after Bonferroni: the tiles kept as clusters) where
    other halvings give 0.10 to 0.31; twice the median p-value of three halvings does
    not reject, and energy's own k is the fewest tiles within the groups: the zigzags."""
    rng = np.random.default_rng([0, 55])
    m, strokes, sd = int(rng.integers(2, 5)), int(rng.integers(3, 7)), rng.uniform(0.03, 0.08)
    share, parts = rng.uniform(0.0, 0.05), []
    for j in range(m):
        x = rng.uniform(0.0, strokes, int(rng.integers(150, 300)))
        parts.append(np.c_[x, 0.8 * np.abs((x % 2.0) - 1.0) + 2.5 * j]
                     + rng.normal(0.0, sd, (x.size, 2)))
    nb = int(share * sum(len(p) for p in parts))
    X = np.vstack(parts + [np.c_[rng.uniform(-1.0, strokes + 1.0, nb),
                                 rng.uniform(-1.0, 2.5 * m, nb)]])
    y = np.concatenate([np.full(len(p), j) for j, p in enumerate(parts)])
    assert (m, strokes, nb) == (3, 5, 25)
    r = choose_k(X, semimetric="auto")
    assert r.k == 3 and ari(y, r.labels[:y.size]) == 1.0
    assert r.candidates["energy"].k == 3
    tiles = next(s for s in r.trace.steps if s.step == "tiles")
    assert "twice the median dip p-value of 3 random halvings" in tiles.statistic


def test_large_rings_apart_are_not_split_by_one_half_s_thin_spot():
    """Five rings apart of 500 to 1,000 points each (the size of Gagolewski's ``circles``):
    with that many points the split test along the data is powerful, and energy's split of
    a ring can fall where the sample is thin. The path margins must show the gap in both
    halves, each at the line the other half drew (the largest p-value, not Fisher's
    combination of two p-values of one sample, with which a ring splits and energy's 13
    arcs are kept): no ring splits, energy's tiles step answers the fewest of its
    partitions within the graph's groups, the rings, and the arbiter finds them to be the
    groups."""
    X, y = rings_apart(np.random.default_rng([99, 0]), (3, 6), (0.02, 0.08), (500, 1000))
    r = choose_k(X, semimetric="auto")
    assert y.max() == 4 and r.k == 5 and ari(y, r.labels) == 1.0
    assert steps(r, "split")[-1].outcome == "k=13" and steps(r, "tiles")[0].outcome == "k=5"
    step = next(s for s in r.trace.steps if s.step == "arbiter")
    assert step.rule == "the same groups" and r.semimetric == "energy"


def test_the_arbiter_judges_energy_s_own_answer_after_its_tiles_step():
    """Three sparse rings apart, two of which the neighbourhood graph joins (its 2
    groups): energy's split walk answers 5 (two rings cut into arcs) and its tiles step
    the fewest of its partitions within the groups, the 3 rings, which is ``choose_k(X)``.
    The arbiter judges that answer, not the walk's 5: the two rings in one group are
    bimodal along their discriminant and apart along the data, so the 3 rings stand
    where the 5 lost to the graph's cut."""
    X, y = rings_apart(np.random.default_rng([0, 52]), (2, 6), (0.03, 0.10), (100, 300))
    r = choose_k(X, semimetric="auto")
    assert y.max() == 2 and r.candidates["nearest_neighbors"].k == 2 and choose_k(X).k == 3
    assert [s.outcome for s in steps(r)[2:5]] == ["k=5", "k=2", "k=3"]   # split, graph, tiles
    assert steps(r, "arbiter")[0].rule == "bimodal pairs"
    assert (r.k, r.semimetric) == (3, "energy") and ari(y, r.labels) == 1.0


def test_touching_blobs_in_components_keep_energy_s_clusters():
    """Two far pairs of unit blobs 3.8 apart: the graph's groups are the two pairs (its
    components), energy's partition of two clusters is the same, and energy answers more.
    A pair splits by energy's split test with the sides' margins along the data (a
    valley along the line, and paths that thin out at the cut): energy's clusters are
    the clouds the components hold, not pieces of them."""
    rng = np.random.default_rng(0)
    C = np.array([[0, 0], [3.8, 0], [25, 0], [28.8, 0]])
    X, y = np.vstack([rng.normal(c, 1.0, (300, 2)) for c in C]), np.repeat(np.arange(4), 300)
    r = choose_k(X, semimetric="auto")
    step = next(s for s in r.trace.steps if s.step == "arbiter")
    assert r.candidates["nearest_neighbors"].k == 2 and r.semimetric == "energy"
    assert step.rule == "the same groups" and "a group splits" in step.outcome
    assert r.k > 2 and ari(y, r.labels) > ari(y, r.candidates["nearest_neighbors"].labels)


def test_a_group_too_small_to_test_keeps_energy_s_clusters():
    """Three blobs rounded to integers: 40 distinct rows, the graph's two groups (two
    blobs joined) energy's partition of two, energy's three clusters within them. The
    group that holds two of them has 25 rows of effective size 11: too few for the
    split test (SPLIT_MIN), which cannot tell clouds from pieces there, so energy's
    clusters stand (the graph's two would join two blobs)."""
    X, y = make_blobs(600, centers=3, random_state=2, cluster_std=0.6)
    r = choose_k(np.round(X), semimetric="auto")
    step = next(s for s in r.trace.steps if s.step == "arbiter")
    assert r.k == 3 and r.semimetric == "energy" and ari(y, r.labels) > 0.9
    assert step.rule == "the same groups" and "too small for energy's split test" in step.outcome


def test_pieces_split_tests_only_the_groups_that_hold_pieces():
    """``pieces_split``: energy's split test (the sides' margins along the data) of the
    groups of E that hold two of energy's clusters or more, each on GROUP_HALVINGS random
    halvings (twice their median p-value), times their number; 0 where such a group has
    an effective size below SPLIT_MIN."""
    rng = np.random.default_rng(1)
    X = np.r_[rng.normal((0, 0), 1, (100, 2)), rng.normal((5, 0), 1, (100, 2)),
              rng.normal((30, 0), 1, (100, 2))]
    E = np.repeat([0, 0, 1], 100)                    # the groups: two blobs, one blob
    labels = np.repeat([0, 1, 2], 100)               # energy's clusters: the blobs
    f = Fits(X, np.ones(300), Setting(n_init=2), 0)
    p = core.pieces_split(f, E, labels, 2)           # one group holds two: tested alone
    keys = [(2, 6, 0), (2, 6, 0, 1), (2, 6, 0, 2)]  # halving h's random stream
    each = [f.bisect(E, 0, f.rng(*key), gap="path")[0] for key in keys]
    assert core.GROUP_HALVINGS == 3 and p == min(1.0, 2 * float(np.median(each))) < 0.01
    w = np.ones(300)
    w[:190] = 1e-3                                   # the first group's effective size ~ 10
    g = Fits(X, w, Setting(n_init=2), 0)
    assert core.pieces_split(g, E, labels, 2) == 0.0
    assert core.pieces_split(f, E, E, 2) == 1.0      # none holds two


def test_clusters_hidden_by_a_column_of_larger_units_split_within_clusters():
    """Three blobs, two of them side by side along the second column, the first column in
    units 100 times larger: X's units show two clusters (the large column's two places), one
    of them two blobs apart along the small column. Within those clusters the columns'
    spreads differ by two orders of magnitude (units), so the split walk goes on with each
    column at unit spread within them, where that cluster splits: three, as the user would
    find by rescaling the columns. On a 2 x 2 grid nothing given finds the four."""
    for seed in (0, 1):
        X, y = make_blobs(300, centers=[[0, 0], [8, 0], [0, 8]], random_state=seed)
        X = X * [100.0, 1.0]
        r = choose_k(X)
        step = next(s for s in r.trace.steps if s.step == "geometry")
        assert (r.k, r.geometry) == (3, "standardized within clusters") and ari(y, r.labels) > 0.98
        assert step.outcome == "k=3: a cluster splits there" and step.value[2] < 0.05
        assert r.rescaling.scale[0] > 10 * r.rescaling.scale[1]   # the large column's units
        est = KernelKGroups("auto", semimetric="auto").fit(X)
        assert est.n_clusters_ == 3 and ari(y, est.labels_) > 0.98
    X, y = make_blobs(400, centers=[[0, 0], [10, 0], [0, 10], [10, 10]], random_state=0)
    est = KernelKGroups("auto", semimetric="auto").fit(X * [100.0, 1.0])
    assert est.n_clusters_ == 4 and ari(y, est.labels_) > 0.98
    assert est.n_clusters_choice_.geometry == "standardized within clusters"


def test_clusters_of_one_shape_keep_x_s_units():
    """Clusters spread alike along the columns (rings), or a few times more along one
    (elongated blobs side by side): shapes, not units; no other geometry is tried, the
    answer is X's units' (rescaling them would cut rings and strokes into pieces apart)."""
    rng = np.random.default_rng(3)
    t = rng.uniform(0, 2 * np.pi, 900)
    rings = np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.05, (900, 2)) + np.repeat(
        [[0, 0], [4, 0], [8, 0]], 300, axis=0)
    long = np.vstack([rng.normal(size=(200, 2)) * [4, 1] + [0, 8 * j] for j in range(3)])
    for X, k in ((rings, 3), (long, 3)):
        r = choose_k(X)
        assert r.k == k and r.geometry == "data"
        assert not [s for s in r.trace.steps if s.step == "geometry"]
    from kgroups._rescale import within_standardizing

    m, sd = within_standardizing(long, np.ones(600), choose_k(long).labels)
    assert 2 < sd[0] / sd[1] < 10                     # spreads differ, by less than units do


def test_a_uniform_square_is_not_standardized_for_a_second_look():
    """A uniform square whose reference test passes 3.5 standard errors once its columns
    are z-scored (k = 4 there) though it fails in X's units: its columns' variances differ
    by sampling error only, so X standardized is X again and is not tried; k = 1."""
    X = np.random.default_rng(12).uniform(size=(500, 2))
    r = choose_k(X)
    geo = {s.value: s.outcome for s in r.trace.steps if s.step == "geometry"}
    assert r.k == 1 and "equal but for sampling error" in geo["standardized"]


@pytest.mark.parametrize("seed", [0, 1])
def test_clusters_only_on_the_multimodal_axes_stand_against_a_graph_of_x_without_structure(seed):
    """Three blobs on a line, their other column in units 100 times larger: X shows energy
    no structure, its one multimodal axis three clusters; the graph of X is one cloud cut
    in two (by the large column), which does not pass the arbiter's first clause, so
    energy's three stand, for nothing given and for KernelKGroups("auto") alike."""
    X, y = make_blobs(300, centers=[[0, 0], [8, 0], [16, 0]], random_state=seed)
    X = X * [1.0, 100.0]
    r = choose_k(X, semimetric="auto")
    assert r.candidates["nearest_neighbors"].k == 2
    assert (r.k, r.semimetric, r.geometry) == (3, "energy", "multimodal axes")
    assert steps(r, "arbiter")[0].rule == "no structure"
    assert ari(y, r.labels) == 1.0
    est = KernelKGroups("auto", semimetric="auto", random_state=0).fit(X)
    assert est.n_clusters_ == 3 and ari(y, est.labels_) == 1.0


@pytest.mark.parametrize("seed", [0, 1])
def test_tight_parallel_stripes_the_graph_joins_are_energy_s(seed):
    """Four stripes 8 x 0.3 with gaps of 1.5, 4 and 8 times the nearest-neighbour
    distance: the graph's eigengap joins the three close ones into one group, energy
    (on the multimodal axis) finds the four; the groups are components of the graph
    (structure on X, the arbiter's first clause), and each stripe is bimodal with its
    neighbour across the stripes, so rule 3 keeps energy's four, not the cut."""
    rng = np.random.default_rng(seed)
    S = [rng.uniform((0, 0), (8, 0.3), (200, 2)) for _ in range(4)]
    s = np.mean([np.sort(cdist(P, P), axis=1)[:, 1].mean() for P in S])
    y0 = np.r_[0.0, np.cumsum(0.3 + s * np.array([1.5, 4.0, 8.0]))]
    X = np.vstack([P + (0, y0[j]) for j, P in enumerate(S)])
    r = choose_k(X, semimetric="auto")
    assert r.candidates["nearest_neighbors"].k == 2
    assert [a.rule for a in steps(r, "arbiter")] == ["components", "bimodal pairs"]
    assert (r.k, r.semimetric) == (4, "energy")
    assert ari(np.repeat(np.arange(4), 200), r.labels) >= 0.95


def test_few_distinct_rows_skip_the_graph():
    """No more distinct rows than n_neighbors + 1: no neighbourhood graph, energy.
    Three rows, however many copies, are three points: too few to show structure."""
    X = np.repeat([[0.0, 0.0], [5.0, 5.0], [9.0, 0.0]], 30, axis=0)
    r = choose_k(X, semimetric="auto")
    assert r.k == 1 and r.semimetric == "energy"
    arb = steps(r, "arbiter")[0]
    assert arb.value == 3 and arb.threshold == 11 and "too few" in arb.outcome


def test_large_data_are_chosen_on_a_sample(monkeypatch):
    """Past SAMPLE_N rows the choice runs on a uniform sample (drawn from the data's
    seed); every row is labelled by the fit of all rows started from the sample's."""
    monkeypatch.setattr(core, "SAMPLE_N", 200)
    X, y = four_blobs(n=150)
    r = choose_k(X, random_state=0)
    assert r.k == 4 and r.labels.shape == (600,) and ari(y, r.labels) == 1.0
    assert r.sample.shape == (200,) and np.all(np.diff(r.sample) > 0)
    last = r.trace.steps[-1]
    assert last.step == "sample" and last.value == 200
    assert "the fit of all rows" in last.outcome
    exact = KernelKGroups(4, init=r.labels).fit(X)        # a fixed point of the exact fit
    np.testing.assert_array_equal(exact.labels_, r.labels)
    again = choose_k(X, random_state=1)
    np.testing.assert_array_equal(again.sample, r.sample)
    np.testing.assert_array_equal(again.labels, r.labels)


def test_past_sample_n_each_of_disjoint_samples_votes(monkeypatch):
    """Past SAMPLE_N rows the choice runs on each of SAMPLES disjoint samples, and k is the
    answer of most of them: each sample's answer is the choice on its rows alone."""
    from kgroups._rows import disjoint_samples

    monkeypatch.setattr(core, "SAMPLE_N", 200)
    X = make_moons(700, noise=0.1, random_state=3)[0]
    ks = range(1, 9)
    r = choose_k(X, ks, semimetric="nearest_neighbors")
    seed, order = canonical(projection_key(X), np.ones(700))
    samples = disjoint_samples(seed, order, 200, constants.SAMPLES)
    assert len(samples) == 3 and np.unique(np.concatenate(samples)).size == 600
    each = [choose_k(X[s], ks, semimetric="nearest_neighbors").k for s in samples]
    vote = steps(r, "samples")[0]
    assert vote.value == {f"sample {i + 1}": f"k={k} nearest_neighbors"
                          for i, k in enumerate(each)}
    assert r.k == max(set(each), key=each.count)
    assert r.sample.size == 200 and any(np.array_equal(r.sample, np.sort(s)) for s in samples)


@pytest.mark.parametrize("answers, kept", [((2, 4, 4), 1), ((4, 2, 4), 0), ((2, 3, 4), 0)])
def test_the_vote_keeps_most_samples_answer_or_the_first(monkeypatch, answers, kept):
    """The vote of the samples: the answer two of three give, from the first sample that
    gives it (its fit labels every row), or the first sample's where no two agree."""
    monkeypatch.setattr(core, "SAMPLE_N", 100)
    X, y = four_blobs(n=75)
    seen, real = [], core.default

    def scripted(Xs, ws, ks, setting, opts, seed):
        r = real(Xs, ws, np.array([answers[len(seen)]]), setting, opts,
                 seed)
        seen.append(Xs.copy())
        return r

    monkeypatch.setattr(core, "default", scripted)
    with warnings.catch_warnings():          # the scripted range of one k
        warnings.simplefilter("ignore", KRangeWarning)
        r = choose_k(X)
    assert len(seen) == 3 and r.k == answers[kept]
    assert {tuple(x) for x in X[r.sample]} == {tuple(x) for x in seen[kept]}
    assert steps(r, "samples")[0].outcome.endswith(f"k={answers[kept]}")


def test_a_sample_s_rescaled_geometry_labels_every_row_there(monkeypatch):
    """Two parallel cigars past SAMPLE_N rows: k is found on the sample's multimodal
    axes, and every row is labelled, and the fit of all rows run, in that geometry (in
    X's own units the fit from those labels would cut the cigars across)."""
    monkeypatch.setattr(core, "SAMPLE_N", 200)
    X = cigars(np.random.default_rng(7), 2, n_per=200)
    r = choose_k(X, range(1, 7), n_refs=4, random_state=0)
    assert r.k == 2 and r.geometry == "multimodal axes" and r.rescaling is not None
    assert ari(np.repeat([0, 1], 200), r.labels) == 1.0
    exact = KernelKGroups(2, init=r.labels).fit(r.rescaling(X))  # a fixed point there
    np.testing.assert_array_equal(exact.labels_, r.labels)


def test_plot_draws_the_default_s_curves():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X = cigars(np.random.default_rng(4), 2)
    r = choose_k(X, range(1, 8), n_refs=4)
    # X's own: the reference test (no structure); the multimodal axes': the rest
    assert r.criteria == ["structure", "multimodal axes silhouette", "multimodal axes split"]
    axes = r.plot()
    assert [ax.get_title() for ax in axes] == [c.replace("_", " ") for c in r.criteria]
    for ax in axes:
        assert f"chosen k = {r.k}" in ax.get_legend_handles_labels()[1]
    text = " ".join(t.get_text() for t in axes[0].figure.texts).replace("\n", " ")
    assert text == r.reasoning
    # under the panels, each step of the reasoning starts a line
    lines = axes[0].figure.texts[0].get_text().split("\n")
    steps = [f"{s.step}: {s.statistic}" for s in r.trace.steps]
    assert len(steps) > 3 and sum(ln.startswith(tuple(steps)) for ln in lines) == len(steps)
    plt.close("all")


def test_tiles_across_the_graphs_groups_go_up_to_the_fewest_within():
    """Two concentric rings, the inner of fewer points: the silhouette's 3 clusters
    straddle the rings (pie slices); the graph's two rings are cleanly cut and not
    energy's partition of 2, so energy's k is the fewest clusters that lie within the
    rings, more than 3."""
    rng = np.random.default_rng(0)

    def ring(n, radius):
        t = rng.uniform(0, 2 * np.pi, n)
        return radius * np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.05, (n, 2))

    X, y = np.r_[ring(900, 4.0), ring(300, 2.5)], np.repeat([0, 1], [900, 300])
    r = choose_k(X)
    split = next(s for s in r.trace.steps if s.step == "split")
    assert split.outcome == "k=3" and names(r)[-2:] == ["graph eigengap", "tiles"]
    assert "energy's 3 lie across them" in r.trace.steps[-1].statistic
    assert r.k > 3 and purity(r.labels, y) >= 0.95 and not r.at_top


def test_tiles_that_cross_every_group_are_those_closest_to_the_groups():
    """Three concentric rings 1 apart: energy's tiles (pie slices) cross the rings at
    every k of the range, and the split walk goes on to its top. No partition lies
    within the rings, so energy's k is the one of more clusters than rings whose partition
    agrees best with them (the adjusted Rand index in the trace is that of the answer's
    labels with the rings, which the graph finds): below the top, without a warning, and
    closer to the rings than the top's 15 tiles (ARI 0.08)."""
    rng = np.random.default_rng(0)

    def ring(n, radius):
        t = rng.uniform(0, 2 * np.pi, n)
        return radius * np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.06, (n, 2))

    X = np.r_[ring(200, 1.0), ring(400, 2.0), ring(600, 3.0)]
    y = np.repeat([0, 1, 2], [200, 400, 600])
    assert ari(y, choose_k(X, semimetric="nearest_neighbors").labels) == 1.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        r = choose_k(X)
    split = next(s for s in r.trace.steps if s.step == "split")
    step = r.trace.steps[-1]
    assert split.outcome == "k=15" and step.step == "tiles" and 3 < r.k < 15
    assert f"agrees best with them (adjusted Rand index {ari(y, r.labels):.2f})" in \
        step.statistic
    assert not r.at_top and ari(y, r.labels) > 0.12


def test_the_undecided_top_of_the_range_is_no_tiles_answer(monkeypatch):
    """The three rings of the test above, with an agreement that grows with the number of
    clusters (the top's tiles closest to the rings, as on interleaved 3-D shapes): the
    split walk reached the top of the range undecided, which is where the range ended,
    not a number of clusters; the answer is the closest below it, without a warning."""
    rng = np.random.default_rng(0)

    def ring(n, radius):
        t = rng.uniform(0, 2 * np.pi, n)
        return radius * np.c_[np.cos(t), np.sin(t)] + rng.normal(0, 0.06, (n, 2))

    X = np.r_[ring(200, 1.0), ring(400, 2.0), ring(600, 3.0)]
    monkeypatch.setattr(arbiter, "weighted_ari", lambda a, b, w: float(np.unique(a).size))
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        r = choose_k(X)
    split = next(s for s in r.trace.steps if s.step == "split")
    assert split.outcome == "k=15" and r.trace.steps[-1].step == "tiles"
    assert r.k == 14 and not r.at_top


def test_auto_keeping_energy_answers_its_tiles_and_says_so(monkeypatch):
    """Where the arbiter keeps energy, semimetric="auto" answers energy's own answer,
    after its step of tiles, and the trace ends with that step (the arbiter's verdict
    forced here: on rings it takes the graph)."""
    from kgroups._choose_k import core

    X, _ = make_circles(400, factor=0.5, noise=0.05, random_state=0)
    monkeypatch.setattr(core, "judge", lambda cut, *a, **k: ("energy", {}))
    r = choose_k(X, semimetric="auto")
    assert r.semimetric == "energy" and r.k == r.candidates["energy"].k == choose_k(X).k
    assert [s.step for s in r.trace.steps][-2:] == ["graph eigengap", "tiles"]


def test_an_answer_at_the_top_of_a_short_range_warns():
    """Twelve groups on a line, the range up to 7: the split walk still finds a
    bimodal cluster at its top, so the answer is the top of the range, which may move
    when the range grows: the warning, at the caller's line."""
    rng = np.random.default_rng(0)
    X = (np.repeat(10.0 * np.arange(12), 30) + rng.normal(size=360))[:, None]
    with pytest.warns(KRangeWarning, match="widen k_range") as record:
        r = choose_k(X, range(1, 8))
    assert r.k == 7 and r.at_top and r.reasoning.endswith("widen k_range.")
    assert record[0].filename == __file__


def test_tiles_of_rings_do_not_depend_on_the_range_top():
    """Rings: the fewest energy clusters within the graph's two rings is the answer
    whether the range stops at it or goes on (not the top of the range: no warning)."""
    X, y = make_circles(600, factor=0.5, noise=0.05, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        r, wide = choose_k(X, range(1, 11)), choose_k(X, range(1, 21))
    assert r.k == wide.k and not r.at_top and r.trace.steps[-1].step == "tiles"
    assert purity(r.labels, y) >= 0.9


def test_a_grid_and_touching_blobs_keep_the_energy_answer():
    """Blobs that the energy fit finds: a 3 x 3 grid (9), a 4 x 2 grid of tight blobs
    (8; issue 28), six blobs in two rows (6), four blobs of which two pairs touch (4)."""
    rng = np.random.default_rng(2)
    grid = blobs(rng, [[5.0 * i, 5.0 * j] for i in range(3) for j in range(3)], 0.6, 25)
    r = choose_k(grid, range(1, 16))
    assert r.k == 9
    rng = np.random.default_rng(0)
    grid = blobs(rng, [[4.0 * i, 4.0 * j] for i in range(4) for j in range(2)], 0.5, 40)
    r = choose_k(grid)
    assert r.k == 8 and same_partition(r.labels, np.repeat(np.arange(8), 40))
    X = blobs(np.random.default_rng(3), [[0, 0], [5, 0], [0, 5], [5, 5], [10, 0], [10, 5]],
              0.5, 60)
    assert choose_k(X, range(1, 16)).k == 6
    rng = np.random.default_rng(1017)         # a draw of the synthetic study: sd 1.5,
    while True:                               # centres at least 8 apart in [-10, 10]^2
        c = rng.uniform(-10, 10, (4, 2))
        if np.linalg.norm(c[:, None] - c[None], axis=2)[np.triu_indices(4, 1)].min() >= 8:
            break
    X = np.vstack([rng.normal(c[j], 1.5, (50, 2)) for j in range(4)])
    r = choose_k(X, range(1, 11))
    assert r.k == 4 and ari(np.repeat(np.arange(4), 50), r.labels) > 0.9


def test_digits_one_k_whatever_the_range():
    """Digits (1797 x 64): one k in 8..12 with k_range 1..15 and 1..30, the same
    silhouettes where both computed, no warning; with 1..30 nothing past
    max(SCAN_MIN, SCAN_FACTOR x k_b) is fitted, k_b the k of the largest silhouette
    (the split walk may move the answer past it; a range that ends before the walk
    stops answers its top with a KRangeWarning)."""
    from sklearn.datasets import load_digits

    X = load_digits().data
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        short, long = choose_k(X, range(1, 16)), choose_k(X, range(1, 31))
    assert short.k == long.k and 8 <= long.k <= 12 and not long.at_top
    np.testing.assert_allclose(long.silhouette[1:15], short.silhouette[1:15], rtol=1e-12)
    if long.k > 10:
        with pytest.warns(KRangeWarning, match="widen k_range"):
            assert choose_k(X, range(1, 11)).k == 10
    best = int(np.nanargmax(long.silhouette)) + 1
    assert best <= long.k
    top = max(SCAN_MIN, SCAN_FACTOR * best)
    assert np.isfinite(long.silhouette[1:top]).all() and np.isnan(long.silhouette[top:]).all()
    assert steps(long, "silhouette")[0].statistic.endswith(f"(followed to k={top})")


def test_the_work_one_fit_per_k_and_no_references_where_dips_find_modes(monkeypatch):
    """Six separated blobs of 10 points: the dips find modes, so no reference is
    fitted; X is fitted once per k up to max(SCAN_MIN, SCAN_FACTOR x 6) = 12, each from
    n_init named starts and, while the heaviest cluster of k - 1 has SPLIT_MIN points,
    one from its split; the split tests fit halves of clusters with 2 clusters."""
    X = blobs(np.random.default_rng(7), SIX, 0.8, 10)          # 60 points
    calls, run = [], Fits.run

    def spy(self, k, starts):
        calls.append((self.setting.semimetric, self.Z.shape[0], int(k), len(starts)))
        return run(self, k, starts)

    def no_references(*args, **kwargs):
        raise AssertionError("references fitted although the dips found modes")

    monkeypatch.setattr(Fits, "run", spy)
    monkeypatch.setattr(structure, "references", no_references)
    r = choose_k(X, range(1, 16), n_init=4)
    assert r.k == 6 and r.structure_z is None
    whole = [(k, s) for sem, n, k, s in calls if sem == "energy" and n == 60]
    assert [k for k, _ in whole] == list(range(2, 13))          # once each, in order
    assert dict(whole) == {2: 4, **{k: 5 for k in range(3, 7)}, **{k: 4 for k in range(7, 13)}}
    halves = {(n, k, s) for sem, n, k, s in calls if sem == "energy" and n != 60}
    assert halves and all(k == 2 and s == fits.SPLIT_N_INIT and n <= 30 for n, k, s in halves)


def test_command_line_prints_k_and_why(tmp_path, capsys):
    from kgroups.cli import main

    X = blobs(np.random.default_rng(11), SIX[:3], 0.7, 20)
    path = tmp_path / "three.csv"
    np.savetxt(path, np.column_stack([X, np.repeat([0, 1, 2], 20)]), delimiter=",")
    assert main(["choose-k", str(path), "--k-max", "5", "--seed", "0", "--n-refs", "4",
                 "--label-column", "-1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("k = 3   (method auto, k in 1..5")
    r = choose_k(X, range(1, 6), n_refs=4)
    # why: one line per step of the trace
    assert "\nwhy:\n  " + r.explain("\n  ") + "\n" in out and "ARI of its labels" in out
    assert len(r.trace.steps) == 3 and r.explain().count("\n") == 2
    assert main(["choose-k", str(path), "--k-min", "4", "--k-max", "2"]) == 2
    assert "1 <= k-min <= k-max" in capsys.readouterr().err


def test_command_line_range_is_the_library_s_default(tmp_path, capsys):
    """Without --k-max, choose-k compares choose_k's default range (1..15, cut to what
    the data allow: 4 rows, 4 distinct: k < 4); a range beyond the data is named by the
    options; --plot takes only a file of an image format, before any work."""
    from kgroups.cli import main

    path = tmp_path / "four.csv"
    X = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 9.0]])
    np.savetxt(path, X, delimiter=",")
    assert main(["choose-k", str(path)]) == 0
    assert capsys.readouterr().out.startswith(f"k = {choose_k(X).k}   (method auto, k in 1..3,")
    assert main(["choose-k", str(path), "--k-max", "9"]) == 2
    assert "--k-min/--k-max (1..9) goes up to k=9" in capsys.readouterr().err
    pytest.importorskip("matplotlib")
    assert main(["choose-k", str(path), "--plot", str(tmp_path / "curves.txt")]) == 2
    assert ".txt is not an image format" in capsys.readouterr().err
    assert not (tmp_path / "curves.txt").exists()
    # a library error names the options of the parameters it names
    assert main(["choose-k", str(path), "--method", "gap", "--semimetric", "auto"]) == 2
    assert capsys.readouterr().err.endswith(
        "semimetric='auto' has a rule of its own (method='auto'); got method='gap' (set by "
        "--method, --semimetric)\n")


def test_command_line_defaults_are_the_library_defaults():
    from kgroups import _cli_options as table
    from kgroups._validation import PARAMETER_CONSTRAINTS

    sig = inspect.signature(choose_k).parameters
    for name in ("method", "n_refs", "n_splits", "n_init", "semimetric", "alpha",
                 "n_neighbors"):
        assert table.CHOOSE_K_DEFAULTS[name] == sig[name].default
    assert set(table.CHOOSE_K_METHODS) == set(
        PARAMETER_CONSTRAINTS["choose_k"]["method"][0].values)
