"""The default of choose_k, method="auto" -> "silhouette+split": one answer whatever the
range (digits, blobs), the warning at the top of the range, k = 1 without structure,
clusters within clusters (the split walk), parallel elongated clusters (the multimodal
axes), the work it does (one call per k, how far), and the command line."""

import warnings

import numpy as np
import pytest

from kgroups import KernelKGroups, choose_k
from kgroups._choose_k import KRangeWarning
from kgroups._choose_k.result import DEFAULT_STRUCTURE_Z
from kgroups._choose_k.rules import AUTO_METHODS, auto_method
from kgroups._choose_k.geometry import Geometry
from kgroups._choose_k.silsplit import (
    SCAN_FACTOR,
    SCAN_MIN,
    SILHOUETTE_KEEP,
    SILHOUETTE_SE,
    SPLIT_ALPHA,
    _scan,
)
from kgroups._choose_k.structure import STRUCTURE_KMAX


def blobs(rng, centres, sd, n_per):
    return np.vstack([rng.normal(c, sd, (n_per, len(c))) for c in centres])


SIX = ([0.0, 0.0], [10.0, 0.0], [20.0, 0.0], [0.0, 10.0], [10.0, 10.0], [20.0, 10.0])


def spy_fits(monkeypatch):
    """Record (n_clusters, n_samples, number of starts given as init rows) of every
    KernelKGroups fit."""
    calls, fit = [], KernelKGroups.fit

    def spy(self, X, y=None, sample_weight=None):
        init = np.asarray(self.init) if not isinstance(self.init, str) else None
        starts = 0 if init is None else np.atleast_2d(init).shape[0]
        calls.append((self.n_clusters, len(X), starts))
        return fit(self, X, y, sample_weight)

    monkeypatch.setattr(KernelKGroups, "fit", spy)
    return calls


PARAMS = {"semimetric": "energy", "alpha": 1.0, "sigma": 1.0, "theta": 1.0, "engine": "auto",
          "estimator": KernelKGroups}


# --------------------------------------------------------------------------- step 2
def _geometry(X, w, fits, matrix=True):
    g = Geometry(X, w, PARAMS, {"n_init": 1}, 0, matrix=matrix)
    g.fits.update({k: (lab, 1.0) for k, lab in fits.items()})
    return g


@pytest.mark.parametrize("matrix", [True, False])
def test_silhouette_se_by_brute_force(matrix):
    """The standard error of a difference of mean silhouettes, paired over the points:
    the sample standard deviation of the points' differences over sqrt(n), with the
    points' silhouettes of scikit-learn (rho of the energy semimetric is the
    Euclidean distance)."""
    from sklearn.metrics import silhouette_samples

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    fits = {k: rng.integers(0, k, 40) for k in (2, 3)}
    g = _geometry(X, np.ones(40), fits, matrix)
    d = silhouette_samples(X, fits[2]) - silhouette_samples(X, fits[3])
    assert g.silhouette_se(2, 3) == pytest.approx(d.std(ddof=1) / np.sqrt(40), rel=1e-10)
    assert g.silhouette(3) == pytest.approx(silhouette_samples(X, fits[3]).mean(), rel=1e-10)
    # integer weights count as repeated differences; weights that add up to less than
    # the points, as Kish's effective number of them
    w = rng.integers(1, 4, 40)
    a = _geometry(X, w.astype(float), fits, matrix)
    d = a.point_silhouettes(2) - a.point_silhouettes(3)
    rep = np.repeat(d, w)
    assert a.silhouette_se(2, 3) == pytest.approx(rep.std(ddof=1) / np.sqrt(w.sum()), rel=1e-10)
    c = _geometry(X, w / w.sum(), fits, matrix)
    m = w.sum() ** 2 / (w @ w)
    expected = np.sqrt(np.sum((rep - rep.mean()) ** 2) / w.sum() / (m - 1.0))
    assert c.silhouette_se(2, 3) == pytest.approx(expected, rel=1e-10)


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
    assert sil[7] - SILHOUETTE_SE * 0.02 <= sil[3] and sil[2] < sil[7] - SILHOUETTE_SE * 0.02
    for k_max in (top, 20, 30):
        g = _Curve(sil, 0.02)
        assert _scan(g, np.arange(1, k_max + 1)) == (3, 7, top, True)
        assert g.grown == list(range(2, top + 1))
    # a clear peak: the peak itself
    g = _Curve({**sil, 3: 0.30}, 0.02)
    assert _scan(g, np.arange(1, 21))[:2] == (5, 7)
    g = _Curve({**sil, 3: 0.30, 5: 0.30, 6: 0.30}, 0.002)
    assert _scan(g, np.arange(1, 21))[:2] == (7, 7)
    # the range ends before the rule decided
    assert _scan(_Curve(sil, 0.02), np.arange(1, 9)) == (3, 7, 8, False)


# --------------------------------------------------------------------------- range
def test_digits_one_k_whatever_the_range(monkeypatch):
    """Digits (1797 x 64): one k in 8..12 with k_range 1..10, 1..15, 1..20 and 1..30,
    the same silhouettes on the k all computed, no warning; with 1..30 nothing past
    k = 2 x k is fitted."""
    from sklearn.datasets import load_digits

    X = load_digits().data
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        short = [choose_k(X, range(1, top), random_state=0) for top in (11, 16, 21)]
        calls = spy_fits(monkeypatch)
        long = choose_k(X, range(1, 31), random_state=0)
    assert {r.k for r in short} == {long.k} and 8 <= long.k <= 12 and not long.at_top
    assert max(k for k, n, _ in calls if n == X.shape[0]) == SCAN_FACTOR * long.k
    for r in short:
        np.testing.assert_allclose(long.silhouette[1:10], r.silhouette[1:10], rtol=1e-12)
    assert np.isnan(long.silhouette[SCAN_FACTOR * long.k:]).all()
    assert f"followed to k={SCAN_FACTOR * long.k}" in long.reasoning


@pytest.mark.parametrize("name", ["iris", "wine", "seeds", "dermatology", "glass",
                                  "ionosphere"])
def test_bundled_tables_one_k_whatever_the_range(name):
    """The bundled real tables (as the TPAMI paper preprocessed them): one answer with
    k_range 1..10, 1..15 and 1..20 wherever it lies inside 1..10, with no warning."""
    from kgroups import datasets

    X, _ = getattr(datasets, f"load_{name}")()
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        ks = {choose_k(X, range(1, top), random_state=0).k for top in (11, 16, 21)}
    assert len(ks) == 1 and 1 <= ks.pop() < 10


def test_blobs_one_k_whatever_the_range():
    X = blobs(np.random.default_rng(0), SIX, 0.8, 20)
    ks = {choose_k(X, range(1, top), n_refs=4, random_state=3).k for top in (8, 13, 25)}
    assert ks == {6}


def test_answer_at_the_top_of_the_range_warns():
    X = blobs(np.random.default_rng(1), SIX, 0.8, 20)
    with pytest.warns(KRangeWarning, match="widen k_range"):
        r = choose_k(X, range(1, 4), n_refs=4, random_state=0)
    assert r.k == 3 and r.at_top and "k may be larger than the range allows" in r.reasoning
    with warnings.catch_warnings():
        warnings.simplefilter("error", KRangeWarning)
        r = choose_k(X, range(1, 9), n_refs=4, random_state=0)
    assert r.k == 6 and not r.at_top
    assert issubclass(KRangeWarning, UserWarning)


# --------------------------------------------------------------------------- answers
@pytest.mark.parametrize("name, make", [
    ("gaussian 3x1", lambda rng: rng.normal(size=(200, 2)) * [3.0, 1.0]),
    ("uniform square", lambda rng: rng.random((200, 2))),
    ("student t3", lambda rng: rng.standard_t(3, size=(200, 2))),
])
def test_no_structure_is_one(name, make):
    r = choose_k(make(np.random.default_rng(2)), range(1, 8), n_refs=5, random_state=0)
    assert r.k == 1 and "No structure: k=1" in r.reasoning and np.all(r.labels == 0)
    assert np.all(r.structure_z[1:STRUCTURE_KMAX] <= DEFAULT_STRUCTURE_Z)
    assert np.isnan(r.structure_z[STRUCTURE_KMAX:]).all()      # references stop at k = 5
    assert "no modes" in r.reasoning


def test_clusters_within_clusters_split():
    """Two groups 40 apart of two blobs 5 apart: the silhouette prefers the 2 groups;
    each group's held-out half projects to two modes, so the answer moves to 3, then
    4, where no cluster splits."""
    rng = np.random.default_rng(3)
    X = np.vstack([rng.normal([40.0 * g + 5.0 * (s - 0.5), 0.0], 0.7, (40, 2))
                   for g in range(2) for s in range(2)])
    r = choose_k(X, range(1, 8), n_refs=4, random_state=0)
    assert r.k == 4 and np.nanargmax(r.silhouette) == 1          # the silhouette alone: 2
    assert r.split_p[1] < SPLIT_ALPHA and r.split_p[3] >= SPLIT_ALPHA
    assert r.silhouette[3] >= SILHOUETTE_KEEP * r.silhouette[1]
    assert "at k=2 a cluster splits" in r.reasoning and "at k=4 none splits" in r.reasoning


def test_split_walk_stops_where_the_silhouette_falls():
    """A pair of blobs 4 standard deviations apart and a small blob far away: the
    pair's cluster splits at k = 2 (two modes), but the 3-cluster fit keeps less
    than 0.7 of the silhouette of k = 2 (the pair's points sit close to the other
    half of the pair), so the walk stops at 2 and says why."""
    rng = np.random.default_rng(13)
    X = np.vstack([rng.normal([0.0, 0.0], 0.5, (200, 2)), rng.normal([2.0, 0.0], 0.5, (200, 2)),
                   rng.normal([20.0, 0.0], 0.5, (50, 2))])
    r = choose_k(X, range(1, 8), n_refs=4, random_state=0)
    assert r.k == 2 and r.split_p[1] < SPLIT_ALPHA and np.isnan(r.split_p[2])
    assert r.silhouette[2] < SILHOUETTE_KEEP * r.silhouette[1]
    assert "but the silhouette of k=3" in r.reasoning


@pytest.mark.parametrize("m", [2, 3])
def test_parallel_elongated_clusters(m):
    """m clusters along x, 4 apart in y: X shows no structure (its energy partitions
    cut across them); the short principal axis is multimodal, and there they
    separate."""
    rng = np.random.default_rng(4)
    X = np.vstack([rng.normal(size=(100, 2)) * [6.0, 0.5] + [0.0, 4.0 * j] for j in range(m)])
    r = choose_k(X, range(1, 8), n_refs=4, random_state=0)
    assert r.k == m and r.geometry == "multimodal axes" and r.multimodal_axes.k == m
    assert "1 of its axes are multimodal" in r.reasoning and r.standardized is None
    truth = np.repeat(np.arange(m), 100)
    assert len(set(zip(r.labels.tolist(), truth.tolist()))) == m


def test_without_k_one_no_structure_test():
    X = blobs(np.random.default_rng(5), SIX[:3], 0.7, 20)
    r = choose_k(X, range(2, 6), random_state=0)
    assert r.k == 3 and r.structure_z is None and r.gap is None
    assert "Gap" not in r.reasoning and "dip of a held-out half along" not in r.reasoning


def test_engines_without_a_matrix_give_the_same_answer():
    X = blobs(np.random.default_rng(6), SIX[:3], 0.7, 12)
    a = choose_k(X, range(1, 5), n_refs=2, random_state=0)
    b = choose_k(X, range(1, 5), n_refs=2, engine="matrix-free", random_state=0)
    assert a.k == b.k == 3
    np.testing.assert_allclose(a.silhouette, b.silhouette, rtol=1e-6, equal_nan=True)


def test_large_data_path_gives_the_same_answer(monkeypatch):
    """Past FIT_MATRIX_MAX_N points the fits run from the coordinates, and past
    STRUCTURE_MAX_N the reference test runs on a subsample: the same answer here,
    with the thresholds lowered to small data (and overlapping blobs, so that the
    reference test runs)."""
    from kgroups._choose_k import geometry, structure

    X = blobs(np.random.default_rng(1), [[0.0, 0.0], [4.0, 0.0]], 1.0, 40)
    a = choose_k(X, range(1, 6), n_refs=3, random_state=0)
    assert a.structure_z is not None
    monkeypatch.setattr(geometry, "FIT_MATRIX_MAX_N", 10)
    monkeypatch.setattr(structure, "STRUCTURE_MAX_N", 40)
    kinds, fit = [], KernelKGroups.fit

    def spy(self, X, y=None, sample_weight=None):
        kinds.append((len(X), self.semimetric))
        return fit(self, X, y, sample_weight)

    monkeypatch.setattr(KernelKGroups, "fit", spy)
    b = choose_k(X, range(1, 6), n_refs=3, random_state=0)
    assert a.k == b.k == 2 and b.structure_z is not None
    assert 40 in {n for n, _ in kinds}                            # the subsample's fits
    # from the coordinates (and the neighbourhood graph's fit of step 4)
    assert {m for _, m in kinds} == {"energy", "nearest_neighbors"}


# --------------------------------------------------------------------------- work
def test_one_call_per_k_and_references_only_without_modes(monkeypatch):
    """Six separated blobs (the point rule asked for by name: at 10 points a blob,
    ``"auto"`` finds their modes in the distances from the mean alone and takes the
    graph's rule, which answers 6 too): the dips find modes, so no reference is
    fitted; X is
    fitted once per k up to the horizon (n_init kernel k-means++ starts and one from
    a split, in one call), once more per k of the split walk, and 2-cluster fits of
    halves of clusters."""
    X = blobs(np.random.default_rng(7), SIX, 0.8, 10)          # 60 points
    calls = spy_fits(monkeypatch)
    r = choose_k(X, range(1, 16), method="silhouette+split", n_refs=3, n_init=4,
                 random_state=0)
    assert r.k == 6 and r.structure_z is None and r.gap is None
    whole = [(k, s) for k, n, s in calls if n == 60]
    assert max(k for k, _ in whole) == max(SCAN_MIN, SCAN_FACTOR * 6) == 12
    firsts = {}
    for k, s in whole:
        firsts.setdefault(k, s)
    # n_init starts, and one from a split of the largest cluster of k - 1 while it has
    # SPLIT_MIN points (here up to k = 6: the six blobs have 10 each)
    assert firsts == {2: 4, **{k: 5 for k in range(3, 7)}, **{k: 4 for k in range(7, 13)}}
    assert all(sum(kk == k for kk, _ in whole) <= 2 for k in firsts)
    assert all(k == 2 and n < 60 for k, n, _ in calls if n != 60)   # halves of clusters


def test_references_stop_at_the_first_k_that_shows_structure(monkeypatch):
    """Two blobs 4 standard deviations apart (no modes): the references are fitted
    at k = 2, whose
    gain passes 3.5 standard errors, and at no larger k."""
    X = blobs(np.random.default_rng(1), [[0.0, 0.0], [4.0, 0.0]], 1.0, 50)
    calls = spy_fits(monkeypatch)
    r = choose_k(X, range(1, 8), n_refs=4, random_state=0)
    assert r.structure_z[1] > DEFAULT_STRUCTURE_Z and np.isnan(r.structure_z[2:]).all()
    assert r.ref_log_w.shape == (4, 7) and np.isnan(r.ref_log_w[:, 2:]).all()
    refs = [k for k, n, s in calls if n == 100 and s == 1]
    assert refs.count(2) == 4 and 3 not in refs


def test_auto_is_the_point_rule_and_has_a_table():
    assert auto_method("energy") == "silhouette+split" and isinstance(AUTO_METHODS, dict)
    assert auto_method(lambda a, b: a) == "silhouette+split"
    X = blobs(np.random.default_rng(9), SIX[:3], 0.7, 10)
    assert choose_k(X, range(1, 8), n_refs=2, random_state=0).method == "silhouette+split"


def test_a_grid_of_blobs_keeps_the_point_rule():
    """A 3 x 3 grid of blobs: the neighbourhood graph's groups are the blobs, which the
    energy fit finds too: the point rule's 9 clusters stand."""
    X = blobs(np.random.default_rng(2), [[5.0 * i, 5.0 * j] for i in range(3)
                                         for j in range(3)], 0.6, 25)
    r = choose_k(X, range(1, 16), random_state=0)
    assert r.method == "silhouette+split" and r.k == 9 and r.graph_agreement is None


def test_plot_draws_the_structure_and_split_tests():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X = blobs(np.random.default_rng(1), [[0.0, 0.0], [4.0, 0.0]], 1.0, 50)
    r = choose_k(X, range(1, 6), n_refs=3, random_state=0)
    axes = r.plot()
    assert [ax.get_title() for ax in axes] == ["gap", "structure", "silhouette", "split"]
    assert f"{DEFAULT_STRUCTURE_Z:g} s.e." in axes[1].get_legend_handles_labels()[1]
    assert f"level {SPLIT_ALPHA:g}" in axes[3].get_legend_handles_labels()[1]
    plt.close("all")


# --------------------------------------------------------------------------- command
def test_command_line_prints_k_and_why(tmp_path, capsys):
    from kgroups.cli import main

    X = blobs(np.random.default_rng(11), SIX[:3], 0.7, 20)
    path = tmp_path / "three.csv"
    np.savetxt(path, np.column_stack([X, np.repeat([0, 1, 2], 20)]), delimiter=",")
    assert main(["choose-k", str(path), "--k-max", "5", "--seed", "0", "--n-refs", "4",
                 "--label-column", "-1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("k = 3   (method silhouette+split, k in 1..5")
    assert "why: silhouette+split: on X," in out and "ARI of its labels" in out
    assert main(["choose-k", str(path), "--k-min", "4", "--k-max", "2"]) == 2
    assert "1 <= k-min <= k-max" in capsys.readouterr().err


def test_command_line_defaults_are_the_library_defaults():
    import inspect

    from kgroups import _cli_options as table
    from kgroups._validation import PARAMETER_CONSTRAINTS

    sig = inspect.signature(choose_k).parameters
    for name in ("method", "n_refs", "n_splits", "n_init", "semimetric", "alpha"):
        assert table.CHOOSE_K_DEFAULTS[name] == sig[name].default
    assert set(table.CHOOSE_K_METHODS) == set(
        PARAMETER_CONSTRAINTS["choose_k"]["method"][0].values)
