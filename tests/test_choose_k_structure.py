"""The default's structure test (kgroups._choose_k.structure: the dip tests, the
reference test, the rescaled geometries) and its fits (kgroups._choose_k.geometry:
kernel k-means++ starts, one call per k, the split of a cluster)."""

import warnings

import numpy as np
import pytest

from kgroups import KernelKGroups, choose_k
from kgroups._choose_k import KRangeWarning
from kgroups._choose_k.geometry import Geometry, kmeanspp_labels
from kgroups._choose_k.methods import _rho_matrix
from kgroups._choose_k.result import DEFAULT_STRUCTURE_Z
from kgroups._choose_k.rules import structure_z
from kgroups._choose_k.structure import (
    STRUCTURE_ALPHA,
    find_structure,
    modes,
    references,
    rescaled,
)

PARAMS = {"semimetric": "energy", "alpha": 1.0, "sigma": 1.0, "theta": 1.0, "engine": "auto",
          "estimator": KernelKGroups}
OPTS = {"n_init": 3, "n_refs": 5}


def rings(rng, n_per=150, radii=(1.0, 3.0), noise=0.1):
    """Concentric rings: every projection and every convex piece looks like one cloud."""
    t = rng.uniform(0, 2 * np.pi, n_per * len(radii))
    r = np.repeat(radii, n_per) + rng.normal(0, noise, t.size)
    return np.c_[r * np.cos(t), r * np.sin(t)]


def geometry(X, seed=0, **opts):
    return Geometry(X, np.ones(len(X)), PARAMS, {**OPTS, **opts}, seed)


# --------------------------------------------------------------------------- geometry
def test_kmeanspp_seeds_one_far_group_each():
    """Two tight groups 100 apart and k = 2: the second seed is drawn with probability
    proportional to the distance from the first, so it falls in the other group."""
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 0.1, (20, 2)), rng.normal(100, 0.1, (20, 2))]
    D = _rho_matrix(X, PARAMS)
    for seed in range(10):
        lab = kmeanspp_labels(lambda idx: D[idx], np.ones(40), 2, np.random.default_rng(seed))
        assert len(set(zip(lab.tolist(), np.repeat([0, 1], 20).tolist()))) == 2


def test_kmeanspp_labels_use_every_cluster_even_with_copies():
    """Three distinct points, each twice: k = 3 uses the three (copies together); k = n
    gives every row a cluster of its own when the rows are distinct."""
    X = np.repeat([[0.0], [1.0], [5.0]], 2, axis=0)
    D = np.abs(X - X.T)
    for seed in range(5):
        lab = kmeanspp_labels(lambda idx: D[idx], np.ones(6), 3, np.random.default_rng(seed))
        assert sorted(set(lab.tolist())) == [0, 1, 2] and np.all(lab[::2] == lab[1::2])
    Y = np.arange(6.0)[:, None]
    E = np.abs(Y - Y.T)
    lab = kmeanspp_labels(lambda idx: E[idx], np.ones(6), 6, np.random.default_rng(1))
    assert sorted(lab.tolist()) == list(range(6))


def test_fit_is_one_call_and_keeps_the_lowest_energy(monkeypatch):
    X = np.random.default_rng(1).normal(size=(60, 2))
    g = geometry(X)
    calls, fit = [], KernelKGroups.fit

    def spy(self, X, y=None, sample_weight=None):
        calls.append(np.atleast_2d(np.asarray(self.init)).shape[0])
        return fit(self, X, y, sample_weight)

    monkeypatch.setattr(KernelKGroups, "fit", spy)
    start = np.repeat([0, 1, 2], 20)                    # a poor start: thirds of the rows
    labels, W = g.fit(3, start)
    assert calls == [OPTS["n_init"] + 1]                # one call, every start as a row
    again, W_again = g.fit(3)
    assert again is labels and W_again == W and len(calls) == 1   # kept: no new call
    again, W_again = g.fit(3, start)
    assert again is labels and W_again == W and calls == [OPTS["n_init"] + 1, 1]
    assert W == pytest.approx(KernelKGroups(3, init=labels).fit(X).within_energy_)
    assert W <= KernelKGroups(3, init=start).fit(X).within_energy_    # start was worse
    assert g.within_one() == pytest.approx(KernelKGroups(1).fit(X).within_energy_)


def test_bisect_cuts_the_cluster_along_its_two_halves():
    rng = np.random.default_rng(2)
    X = np.r_[rng.normal([0, 0], 0.3, (40, 2)), rng.normal([4, 0], 0.3, (40, 2))]
    g = geometry(X)
    p, start = g.bisect(np.zeros(80, dtype=np.int64), 0, np.random.default_rng(0))
    assert p < 0.01 and sorted(np.bincount(start).tolist()) == [40, 40]
    assert len(set(zip(start.tolist(), np.repeat([0, 1], 40).tolist()))) == 2
    assert g.bisect(np.r_[np.zeros(70), np.ones(10)].astype(np.int64), 1,
                    np.random.default_rng(0)) == (1.0, None)          # too small to test


# --------------------------------------------------------------------------- structure
def test_radial_dip_finds_rings_that_the_split_dip_misses():
    g = geometry(rings(np.random.default_rng(3)))
    dips = modes(g)
    assert dips.p_radial < STRUCTURE_ALPHA / 2 <= dips.p_split
    assert dips.d_radial > dips.d_split > 0
    found, text, refs = find_structure(g, np.arange(1, 6), OPTS, "pca")
    assert found and refs is None and "multimodal" in text


def test_split_dip_finds_separated_blobs():
    rng = np.random.default_rng(4)
    X = np.r_[rng.normal([0, 0], 1.0, (60, 2)), rng.normal([8, 0], 1.0, (60, 2))]
    assert modes(geometry(X)).p_split < STRUCTURE_ALPHA / 2


def test_reference_test_is_the_gap_gain_in_standard_errors():
    """Without modes the references run: z is structure_z of the same log W (brute
    force), and a Gaussian stays below the threshold at every k."""
    X = np.random.default_rng(5).normal(size=(150, 2)) * [3.0, 1.0]
    g = geometry(X)
    found, text, refs = find_structure(g, np.arange(1, 6), OPTS, "pca")
    assert not found and "none above" in text
    log_w = np.log([g.within_one()] + [g.fit(k)[1] for k in range(2, 6)])
    gap = refs["ref_log_w"].mean(axis=0) - log_w
    np.testing.assert_allclose(refs["z"], structure_z(gap, refs["ref_log_w"]), rtol=1e-10)
    assert np.all(refs["z"][1:] <= DEFAULT_STRUCTURE_Z)


def test_references_are_the_same_whatever_the_range():
    X = np.random.default_rng(6).normal(size=(80, 2))
    a = references(geometry(X), np.arange(1, 4), OPTS, "pca")
    b = references(geometry(X), np.arange(1, 6), OPTS, "pca")
    np.testing.assert_allclose(a["ref_log_w"], b["ref_log_w"][:, :3], rtol=1e-12)


def test_rescaled_geometries():
    rng = np.random.default_rng(7)
    cigars = np.vstack([rng.normal(size=(100, 2)) * [6.0, 0.5] + [0.0, 4.0 * j]
                        for j in range(2)])
    Z, why = rescaled("multimodal axes", cigars, np.ones(200), np.arange(1, 5), PARAMS,
                      STRUCTURE_ALPHA)
    assert why is None and Z.shape == (200, 1)              # the short axis only
    assert np.corrcoef(Z[:, 0], cigars[:, 1])[0, 1] ** 2 > 0.99
    gauss = rng.normal(size=(200, 2))
    assert rescaled("multimodal axes", gauss, np.ones(200), np.arange(1, 5), PARAMS,
                    STRUCTURE_ALPHA)[1] == "no axis of X sphered is multimodal (dip test)"
    Z, why = rescaled("standardized", gauss * [100.0, 1.0], np.ones(200), np.arange(1, 5),
                      PARAMS, STRUCTURE_ALPHA)
    np.testing.assert_allclose(Z.std(axis=0), [1.0, 1.0])
    assert "k = 1 is not in k_range" in rescaled("standardized", gauss, np.ones(200),
                                                 np.arange(2, 5), PARAMS, STRUCTURE_ALPHA)[1]


# --------------------------------------------------------------------------- answers
def test_concentric_rings_have_structure():
    """Two concentric rings: the references find nothing (the within energy of their
    partitions falls as that of a uniform box), the radial dip finds the two radii.
    (Which k then is the silhouette's: it rises with k on rings, to the top of 1..10.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", KRangeWarning)
        r = choose_k(rings(np.random.default_rng(8)), range(1, 11), n_refs=4, random_state=0)
    assert r.k > 1 and r.geometry == "data" and "of the distances from the mean D = " in r.reasoning


def test_skewed_unimodal_data_is_one():
    """Exponential coordinates: one cloud, dense at a corner (the silhouette of its
    fits beats that of the uniform references at k = 3, so the silhouette is not a
    yardstick of structure here)."""
    X = np.random.default_rng(9).exponential(size=(300, 2))
    assert choose_k(X, range(1, 8), n_refs=5, random_state=0).k == 1
