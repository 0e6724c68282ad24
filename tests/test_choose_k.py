"""choose_k's named methods (kgroups._choose_k.criteria, their statistics
kgroups._stats.criteria): the gap statistic and its decision rules, prediction
strength, the silhouette, the eigengap of the energy kernel; the range of k
(kgroups._choose_k.core.check_k_range), the parameter checks, the result's repr and
plot. The default (method="auto") has tests/test_choose_k_default.py, the graph's rule
tests/test_choose_k_graph.py, and semimetric="auto" tests/test_choose_k_joint.py."""

import numpy as np
import pytest

from kgroups import ChooseKResult, KernelKGroups, KernelKMeans, choose_k
from kgroups._choose_k.core import check_k_range
from kgroups._choose_k.criteria import prediction_strength_curve, silhouette_curve
from kgroups._choose_k.fits import Fits, Setting
from kgroups._random_state import stream
from kgroups._rescale import sphering
from kgroups._stats import criteria, silhouette
from kgroups._stats.criteria import (GAP_RULES, gap_rule, prediction_strength_score, ps_rule,
                                     reference_sampler)
from kgroups.exceptions import InvalidParameterError


def blobs(rng, centres, sd, n_per):
    return np.vstack([rng.normal(c, sd, (n_per, len(c))) for c in centres])


THREE = ([0.0, 0.0], [8.0, 0.0], [0.0, 8.0])


def brute_rho(X, alpha=1.0):
    return np.sqrt(((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)) ** alpha


def fits_of(X, w, labels_by_k, matrix=True):
    """A Fits of X whose fit of each k is the given labels (W unused)."""
    f = Fits(X, w, Setting(n_init=1), 0, matrix=matrix)
    f.fits.update({k: (np.asarray(lab), 1.0) for k, lab in labels_by_k.items()})
    return f


# --------------------------------------------------------------------------- rules
# Hand-worked curves, k = 1..6. A: the near tie Gap(1) = 0.185, Gap(2) = 0.186,
# then a first local maximum at k = 3 and the global one at k = 5, all s_k = 0.02.
#   globalmax: 0.45 is largest -> k=5.   firstmax: 0.30 >= 0.29 first -> k=3.
#   Tibs2001SEmax: 0.185 >= 0.186 - 0.02 at k=1 -> k=1.
#   firstSEmax: first max k=3, smallest k with Gap >= 0.30 - 0.02 = 0.28 -> k=3.
#   globalSEmax: global max k=5, smallest k with Gap >= 0.45 - 0.02 = 0.43 -> k=5.
# B: unequal s_k.
#   globalmax -> 5; firstmax: 0.26 >= 0.25 -> k=3.
#   Tibs2001SEmax: 0.10 < 0.20 - 0.01; 0.20 >= 0.26 - 0.07 = 0.19 -> k=2.
#   firstSEmax: first max k=3, Gap >= 0.26 - 0.07 = 0.19 first at k=2 -> k=2.
#   globalSEmax: global max k=5, Gap >= 0.40 - 0.15 = 0.25 first at k=3 -> k=3.
CURVE_A = ([0.185, 0.186, 0.30, 0.29, 0.45, 0.44], [0.02] * 6,
           {"globalmax": 5, "firstmax": 3, "Tibs2001SEmax": 1, "firstSEmax": 3,
            "globalSEmax": 5})
CURVE_B = ([0.10, 0.20, 0.26, 0.25, 0.40, 0.39], [0.01, 0.01, 0.07, 0.01, 0.15, 0.01],
           {"globalmax": 5, "firstmax": 3, "Tibs2001SEmax": 2, "firstSEmax": 2,
            "globalSEmax": 3})


@pytest.mark.parametrize("curve", [CURVE_A, CURVE_B], ids=["near-tie", "unequal-se"])
@pytest.mark.parametrize("rule", GAP_RULES)
def test_rules_on_hand_worked_curves(curve, rule):
    gap, se, expected = curve
    assert gap_rule(np.array(gap), np.array(se), rule) + 1 == expected[rule]


def test_rules_edge_cases():
    up = np.array([0.1, 0.5, 0.9])                 # rising by more than s at every step
    se = np.full(3, 0.01)
    assert [gap_rule(up, se, r) for r in GAP_RULES] == [2, 2, 2, 2, 2]
    one = np.array([0.3])
    assert [gap_rule(one, np.array([0.1]), r) for r in GAP_RULES] == [0] * 5
    # se_factor = 0 turns the SE rules into the max rules (R: firstmax == firstSEmax
    # with SE.factor = 0); Tibs2001SEmax becomes the first local maximum
    gap, se, _ = CURVE_B
    gap, se = np.array(gap), np.array(se)
    assert gap_rule(gap, se, "firstSEmax", 0.0) == gap_rule(gap, se, "firstmax") == 2
    assert gap_rule(gap, se, "globalSEmax", 0.0) == gap_rule(gap, se, "globalmax") == 4
    assert gap_rule(gap, se, "Tibs2001SEmax", 0.0) == 2
    # se_factor = 2.5 widens every allowance: globalSEmax's threshold 0.40 - 0.375 = 0.025
    assert gap_rule(gap, se, "globalSEmax", 2.5) == 0
    with pytest.raises(InvalidParameterError, match="rule='max'"):
        gap_rule(gap, se, "max")


def test_ps_rule():
    assert ps_rule(np.array([1.0, 0.95, 0.7, 0.85, 0.5])) == 3
    assert ps_rule(np.array([1.0, 0.95, 0.7, 0.85, 0.5]), cutoff=0.9) == 1
    assert ps_rule(np.array([0.5, 0.6])) == 0      # none stable: the first k


# --------------------------------------------------------------------------- prediction strength
def brute_ps(test_labels, predicted, w):
    """Tibshirani & Walther eq. 2.1 by a loop over ordered pairs, weighted."""
    worst = None
    for j in np.unique(test_labels):
        members = np.flatnonzero(test_labels == j)
        num = den = 0.0
        for a in members:
            for b in members:
                if a != b:
                    den += w[a] * w[b]
                    num += w[a] * w[b] * (predicted[a] == predicted[b])
        if den > 0:
            worst = num / den if worst is None else min(worst, num / den)
    return 0.0 if worst is None else worst


def brute_insertion(Z, w, labels, k, X_new):
    """The cluster whose within energy W(C) = sum_{i,j in C} w_i w_j rho_ij / (2 s_C)
    rises least when x joins it with weight 1, by loops."""
    out = []
    for x in X_new:
        rise = []
        for c in range(k):
            idx = np.flatnonzero(labels == c)
            if idx.size == 0:
                rise.append(np.inf)
                continue
            q = sum(w[i] * w[j] * np.linalg.norm(Z[i] - Z[j]) for i in idx for j in idx)
            r = sum(w[i] * np.linalg.norm(x - Z[i]) for i in idx)
            s = w[idx].sum()
            rise.append((q + 2 * r) / (2 * (s + 1)) - q / (2 * s))
        out.append(int(np.argmin(rise)))
    return np.array(out)


@pytest.mark.parametrize("seed", range(6))
def test_prediction_strength_score_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    test_labels = rng.integers(0, 3, n)
    test_labels = np.unique(test_labels, return_inverse=True)[1].ravel()
    predicted = rng.integers(0, 3, n)
    w = rng.uniform(0.2, 3.0, n) if seed % 2 else np.ones(n)
    got = prediction_strength_score(test_labels, predicted, None if seed % 2 == 0 else w)
    assert got == pytest.approx(brute_ps(test_labels, predicted, w), abs=1e-12)


def test_prediction_strength_score_by_hand():
    # cluster 0 = {0, 1, 2} predicted (1, 1, 0): 2 of 6 ordered pairs together;
    # cluster 1 = {3, 4} predicted (0, 0): 2 of 2; cluster 2 = {5} has no pair
    assert prediction_strength_score(np.array([0, 0, 0, 1, 1, 2]),
                                     np.array([1, 1, 0, 0, 0, 1])) == pytest.approx(1 / 3)
    assert prediction_strength_score(np.array([0, 1]), np.array([0, 0])) == 0.0


def test_predict_is_the_brute_force_insertion_rule_and_the_estimator_s_predict():
    rng = np.random.default_rng(19)
    X = blobs(rng, THREE, 2.5, 8)
    w = rng.uniform(0.5, 2.0, 24)
    X_new = rng.normal(3.0, 4.0, (30, 2))
    f = Fits(X, w, Setting(n_init=3), 5)
    for k in (2, 3, 4):
        labels = f.fit(k)[0]
        got = f.predict(k, X_new)
        np.testing.assert_array_equal(got, brute_insertion(X, w, labels, k, X_new))
        est = KernelKGroups(k, init=labels).fit(X, sample_weight=w)
        np.testing.assert_array_equal(est.labels_, labels)        # a converged fit
        np.testing.assert_array_equal(est.predict(X_new), got)
    assert np.unique(got).size > 1                                 # the check can fail


def test_prediction_strength_curve_against_brute_force():
    """Both halves of each split, every k: the halves' own fits, the other half's fit
    predicting by the insertion rule (brute force), pairs counted by a loop."""
    rng = np.random.default_rng(20)
    X = blobs(rng, THREE, 2.5, 6)                      # 18 points, overlapping a little
    w = rng.uniform(0.5, 2.0, 18)
    ks, setting, seed = np.array([1, 2, 3, 4]), Setting(n_init=2), 31
    runs = prediction_strength_curve(X, w, ks, setting, 2, seed)
    assert runs.shape == (4, 4)
    perm_rng = np.random.default_rng([seed, 7])
    for s in range(2):
        perm = perm_rng.permutation(18)
        halves = (np.sort(perm[:9]), np.sort(perm[9:]))
        half_fits = [Fits(X[h], w[h], setting, stream(seed, "prediction strength", 2 * s + t))
                     for t, h in enumerate(halves)]
        for t in (0, 1):
            test, train = halves[t], halves[1 - t]
            for j, k in enumerate(ks):
                if k == 1:
                    assert runs[2 * s + t, j] == 1.0
                    continue
                own = half_fits[t].fit(int(k))[0]
                other = half_fits[1 - t].fit(int(k))[0]
                pred = brute_insertion(X[train], w[train], other, int(k), X[test])
                assert runs[2 * s + t, j] == pytest.approx(brute_ps(own, pred, w[test]),
                                                           abs=1e-12)
    assert runs[:, 1:].min() < 1.0                      # the check can fail: not all ones


def test_prediction_strength_method():
    X = blobs(np.random.default_rng(21), THREE, 0.7, 30)
    r = choose_k(X, range(1, 6), method="prediction_strength", n_splits=3, random_state=0)
    assert r.k == 3 and r.criteria == ["prediction_strength"] and r.cutoff == 0.8
    assert r.prediction_strength_runs.shape == (6, 5)
    np.testing.assert_allclose(r.prediction_strength, r.prediction_strength_runs.mean(0))
    np.testing.assert_allclose(r.prediction_strength_se,
                               r.prediction_strength_runs.std(0, ddof=1) / np.sqrt(6))
    assert r.prediction_strength[2] == pytest.approx(1.0) and r.prediction_strength[0] == 1.0
    assert r.labels.shape == (90,) and sorted(np.bincount(r.labels)) == [30, 30, 30]
    [step] = r.trace.steps
    assert (step.step, step.threshold, step.outcome) == ("prediction strength", 0.8, "k=3")
    assert step.value == pytest.approx(dict(zip(range(1, 6), r.prediction_strength)))


def test_repeated_rows_hold_no_more_clusters_than_distinct_rows():
    """Prediction strength and the silhouette compare no k above the number of distinct
    rows (a fit of more splits copies of a row): two points, 15 copies each, give 2;
    the silhouette on one distinct row has no k to compare."""
    Z = np.r_[np.zeros((15, 2)), np.ones((15, 2))]
    for method in ("prediction_strength", "silhouette"):
        r = choose_k(Z, method=method, random_state=0)
        assert r.k == 2 and r.k_values[-1] == 2
    with pytest.raises(InvalidParameterError, match="no more clusters than X's 1 distinct"):
        choose_k(np.ones((30, 2)), method="silhouette")
    assert choose_k(np.ones((30, 2)), method="prediction_strength").k == 1


def test_prediction_strength_below_the_cutoff_everywhere_is_the_smallest_k():
    Z = np.random.default_rng(25).uniform(size=(80, 2))
    r = choose_k(Z, [4, 5, 6], method="prediction_strength", n_splits=2, random_state=0)
    assert r.prediction_strength.max() < 0.8 and r.k == 4
    assert "none reaches the cutoff" in r.trace.steps[0].outcome


# --------------------------------------------------------------------------- silhouette
def test_silhouette_matches_scikit_learn_and_blocks(monkeypatch):
    from sklearn.metrics import silhouette_score

    X = blobs(np.random.default_rng(22), THREE, 1.5, 15)
    r = choose_k(X, range(1, 6), method="silhouette", random_state=0)
    assert np.isnan(r.silhouette[0]) and r.k == 3
    D = brute_rho(X)
    f = Fits(X, np.ones(45), Setting(), 0)
    ks = np.arange(1, 6)
    mine = silhouette_curve(f, ks)
    for k in range(2, 6):
        assert mine[k - 1] == pytest.approx(
            silhouette_score(D, f.fit(k)[0], metric="precomputed"), abs=1e-12)
        assert f.silhouette(k) == pytest.approx(mine[k - 1], abs=1e-12)
    monkeypatch.setattr(silhouette, "BLOCK_BYTES", 8 * 45 * 7)      # blocks of 7 rows
    g = Fits(X, np.ones(45), Setting(), 0, matrix=False)
    assert g.D is None
    g.fits.update(f.fits)
    np.testing.assert_allclose(silhouette_curve(g, ks), mine, equal_nan=True, atol=1e-12)


def test_fits_holding_the_matrix_run_the_dense_engine_and_find_the_same_fits():
    # the fits of one geometry share an engine, so where rho's matrix fits they run dense
    # (engine="auto" weighs one fit, which below 5,000 rows is dense too); the exact
    # matrix-free engine finds the same fits
    rng = np.random.default_rng(3)
    X = blobs(rng, THREE, 2.0, 700)
    w = np.ones(X.shape[0])
    held, free = Fits(X, w, Setting(), 0), Fits(X, w, Setting(), 0, matrix=False)
    named = Fits(X, w, Setting(engine="matrix-free"), 0, matrix=False)
    assert held.D is not None and free.D is None
    names = [f.built(3).engine.name for f in (held, free, named)]
    assert names == ["dense", "dense", "matrix-free"]
    for k in (2, 3, 4):
        a, b = held.fit(k), named.fit(k)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1] == pytest.approx(b[1], rel=1e-9)


def test_the_choices_fits_build_the_estimators_engine_request():
    # the choice of k judges the fits the estimator runs: its low-rank options too
    # (the estimator's n_components and landmarks, not the defaults), in float64
    from kgroups import KernelKGroups
    from kgroups._engines.lowrank import FourierMap, NystroemMap
    rng = np.random.default_rng(4)
    X = blobs(rng, THREE, 2.0, 100)
    n, w = X.shape[0], np.ones(X.shape[0])
    for landmarks, kind in (("uniform", NystroemMap), ("fourier", FourierMap)):
        est = KernelKGroups("auto", engine="low-rank", n_components=20, landmarks=landmarks,
                            semimetric="gaussian", dtype="float32")
        eng = Fits(X, w, Setting.of(est), 0, matrix=False).built(3).engine
        assert eng.name == "low-rank" and eng.F.shape == (n, 20)
        assert isinstance(eng.feature_map, kind) and eng.F.dtype == np.float64
    default = Fits(X, w, Setting(engine="low-rank", semimetric="gaussian"), 0, matrix=False)
    assert default.built(3).engine.F.shape == (n, 256)


def test_weighted_silhouette_by_hand():
    """a_i: weighted mean rho to the other points of its cluster; b_i: smallest such
    mean to another cluster; weighted mean of (b - a) / max(a, b)."""
    rng = np.random.default_rng(23)
    X = rng.normal(size=(9, 2))
    lab = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    w = rng.uniform(0.5, 2.0, 9)
    D = brute_rho(X)
    s = []
    for i in range(9):
        own = [j for j in range(9) if lab[j] == lab[i] and j != i]
        a = sum(w[j] * D[i, j] for j in own) / sum(w[j] for j in own)
        b = min(sum(w[j] * D[i, j] for j in range(9) if lab[j] == c)
                / sum(w[j] for j in range(9) if lab[j] == c) for c in set(lab) - {lab[i]})
        s.append((b - a) / max(a, b))
    want = np.dot(w, s) / w.sum()
    for matrix in (True, False):
        f = fits_of(X, w, {3: lab}, matrix)
        assert silhouette_curve(f, np.array([3]))[0] == pytest.approx(want, abs=1e-12)
        assert f.silhouette(3) == pytest.approx(want, abs=1e-12)
        np.testing.assert_allclose(f.point_silhouettes(3), s, atol=1e-12)


def test_silhouette_of_a_cluster_of_copies_is_zero():
    """A cluster that holds only copies of one point is that point repeated: its rows
    get silhouette 0, as a point alone in its cluster does (Rousseeuw's convention),
    not the 1 that a = 0 would give; every other row the usual (b - a) / max(a, b)."""
    rng = np.random.default_rng(24)
    U = rng.normal(size=(7, 2))
    rows = np.repeat(np.arange(7), [1, 3, 1, 2, 1, 1, 4])
    X = U[rows]
    lab = np.array([0, 1, 0, 2, 2, 0, 3])[rows]       # clusters 1 and 3: copies of one point
    got = silhouette_curve(fits_of(X, np.ones(len(X)), {4: lab}), np.array([4]))[0]
    D = brute_rho(X)
    s = np.zeros(len(X))
    for i in range(len(X)):
        own = [j for j in range(len(X)) if lab[j] == lab[i] and j != i]
        if not own or not D[i, own].any():
            continue                                   # alone, or among its copies: 0
        a = D[i, own].mean()
        b = min(D[i, lab == c].mean() for c in set(lab) - {lab[i]})
        s[i] = (b - a) / max(a, b)
    assert got == pytest.approx(s.mean(), abs=1e-12)
    assert (s[np.isin(lab, [1, 3])] == 0).all() and (s[lab == 2] != 0).all()
    weighted = silhouette_curve(fits_of(U[[1, 0, 2, 5]], np.array([3.0, 1, 1, 1]),
                                        {2: [0, 1, 1, 1]}), np.array([2]))[0]
    repeated = silhouette_curve(fits_of(U[[1, 1, 1, 0, 2, 5]], np.ones(6),
                                        {2: [0, 0, 0, 1, 1, 1]}), np.array([2]))[0]
    assert repeated == pytest.approx(weighted, abs=1e-12)   # a point alone, or its copies


# --------------------------------------------------------------------------- gap
def test_gap_curve_and_se_follow_the_formulas():
    X = blobs(np.random.default_rng(3), THREE, 1.0, 30)
    r = choose_k(X, range(1, 6), method="gap", n_refs=7, random_state=1)
    assert r.ref_log_w.shape == (7, 5) and r.rule == "firstSEmax"
    l_bar = r.ref_log_w.sum(axis=0) / 7
    sd = np.sqrt(((r.ref_log_w - l_bar) ** 2).sum(axis=0) / 7)     # divisor B, as the paper
    np.testing.assert_allclose(r.gap, l_bar - np.log(r.within_energy), rtol=1e-12)
    np.testing.assert_allclose(r.gap_se, sd * np.sqrt(1 + 1 / 7), rtol=1e-12)
    assert r.k == 3


@pytest.mark.parametrize("rule", GAP_RULES)
def test_each_rule_through_choose_k(rule):
    X = blobs(np.random.default_rng(4), THREE + ([8.0, 8.0],), 1.5, 20)
    r = choose_k(X, range(1, 7), method="gap", rule=rule, n_refs=4, random_state=0)
    assert r.rule == rule and r.k == r.k_values[gap_rule(r.gap, r.gap_se, rule)]
    [step] = r.trace.steps
    assert step.step == "gap" and step.outcome == f"k={r.k}" and repr(rule) in step.statistic
    assert step.value == pytest.approx(dict(zip(range(1, 7), r.gap)))


def test_within_energy_is_that_of_the_labels():
    rng = np.random.default_rng(4)
    X = blobs(rng, THREE + ([8.0, 8.0],), 1.5, 25)
    r = choose_k(X, range(1, 8), method="gap", n_refs=2, random_state=0)
    D = brute_rho(X)
    brute = sum(D[np.ix_(r.labels == j, r.labels == j)].sum() / (2 * (r.labels == j).sum())
                for j in range(r.k))
    assert r.within_energy[r.k_values == r.k][0] == pytest.approx(brute, rel=1e-10)
    assert r.within_energy[0] == pytest.approx(D.sum() / (2 * len(X)), rel=1e-10)


def test_alpha_two_is_the_classical_gap_statistic():
    """W with alpha=2 is k-means' within sum of squares (exactly), so the curve is
    Tibshirani et al.'s: compare with KMeans on independent reference draws."""
    from sklearn.cluster import KMeans

    rng = np.random.default_rng(6)
    X = blobs(rng, THREE, 1.0, 30)
    ks, B = range(1, 6), 10
    r = choose_k(X, ks, method="gap", alpha=2.0, n_refs=B, random_state=0)
    inertia = np.array([KMeans(k, n_init=10, random_state=0).fit(X).inertia_ for k in ks])
    np.testing.assert_allclose(r.within_energy[:3], inertia[:3], rtol=1e-9)  # k <= 3: optimum
    assert np.all(r.within_energy <= inertia * 1.05)                 # k > 3: local optima
    f = Fits(X, np.ones(90), Setting(alpha=2.0), 0)
    for k in ks:                          # W_k is the within sum of squares of its labels
        labels, W = (np.zeros(90, np.int64), f.within_one()) if k == 1 else f.fit(k)
        ss = sum(((X[labels == j] - X[labels == j].mean(0)) ** 2).sum() for j in range(k))
        assert W == pytest.approx(ss, rel=1e-10)
    m = X.mean(0)
    V = np.linalg.svd(X - m)[2].T
    Z = (X - m) @ V
    ref = np.empty((B, len(ks)))
    for b in range(B):
        R = (Z.min(0) + rng.random(Z.shape) * np.ptp(Z, 0)) @ V.T + m
        ref[b] = np.log([KMeans(k, n_init=3, random_state=0).fit(R).inertia_ for k in ks])
    gap, sd = ref.mean(0) - np.log(inertia), ref.std(0)
    # two independent means of B draws differ by about sd * sqrt(2 / B): allow 4 of those
    assert np.all(np.abs(r.gap - gap) <= 4 * sd * np.sqrt(2 / B) + 0.01)
    assert r.k == 3 and gap_rule(gap, sd * np.sqrt(1 + 1 / B)) == 2


@pytest.mark.parametrize("kind", ["box", "pca"])
def test_reference_samples_fill_the_right_box(kind):
    rng = np.random.default_rng(7)
    X = rng.normal(size=(400, 2)) @ np.array([[3.0, 1.0], [0.0, 0.3]]) + 5.0
    R = reference_sampler(X, np.ones(400), kind)(rng)
    assert R.shape == X.shape
    if kind == "box":
        assert np.all(R >= X.min(0)) and np.all(R <= X.max(0))
        assert np.all(np.ptp(R, 0) > 0.9 * np.ptp(X, 0))
    else:
        V = np.linalg.svd(X - X.mean(0))[2].T
        Z, ZR = (X - X.mean(0)) @ V, (R - X.mean(0)) @ V
        assert np.all(ZR >= Z.min(0) - 1e-9) and np.all(ZR <= Z.max(0) + 1e-9)
        assert np.all(np.ptp(ZR, 0) > 0.9 * np.ptp(Z, 0))
        # not the coordinates' box: the principal box's corners lie outside it
        assert np.any(R < X.min(0)) or np.any(R > X.max(0))


def test_moments_reference_has_the_data_covariance():
    """Uniform along the principal axes, over +- sqrt(3) standard deviations: the
    data's mean and covariance, not its ranges."""
    rng = np.random.default_rng(42)
    X = rng.normal(size=(20_000, 2)) @ np.array([[3.0, 1.0], [0.0, 0.5]]) + [1.0, -2.0]
    R = reference_sampler(X, np.ones(len(X)), "moments")(rng)
    np.testing.assert_allclose(R.mean(0), X.mean(0), atol=0.05)
    np.testing.assert_allclose(np.cov(R.T), np.cov(X.T), rtol=0.05, atol=0.02)
    _, sd, V = np.linalg.svd((X - X.mean(0)) / np.sqrt(len(X)), full_matrices=False)
    Z = (R - X.mean(0)) @ V.T
    assert np.all(np.abs(Z) <= np.sqrt(3.0) * sd + 1e-9)
    assert np.all(np.abs(Z).max(0) > 0.99 * np.sqrt(3.0) * sd)     # fills the box


def test_sphering_whitens_and_drops_null_axes():
    rng = np.random.default_rng(41)
    A = np.array([[3.0, 1.0, 0.0], [0.0, 0.5, 0.0], [1.0, 0.0, 0.0]])   # rank 2
    X = rng.normal(size=(400, 3)) @ A + 7.0
    w = rng.uniform(0.5, 2.0, 400)
    Z = sphering(X, w)(X)
    assert Z.shape == (400, 2)
    np.testing.assert_allclose(w @ Z / w.sum(), 0.0, atol=1e-12)
    np.testing.assert_allclose((Z * (w / w.sum())[:, None]).T @ Z, np.eye(2), atol=1e-10)
    # distances are Mahalanobis distances of the covariance (pseudo-inverse: rank 2)
    mean = w @ X / w.sum()
    S = ((X - mean) * (w / w.sum())[:, None]).T @ (X - mean)
    d = X[:5, None, :] - X[None, 5:10, :]
    maha = np.sqrt(np.einsum("abi,ij,abj->ab", d, np.linalg.pinv(S, rcond=1e-10), d))
    np.testing.assert_allclose(np.linalg.norm(Z[:5, None] - Z[None, 5:10], axis=2), maha,
                               rtol=1e-8)


# --------------------------------------------------------------------------- eigengap
@pytest.mark.parametrize("params", [{}, {"semimetric": "gaussian", "sigma": 2.0}])
def test_eigengap_picks_separated_blobs(params):
    X = blobs(np.random.default_rng(8), THREE, 0.5, 40)
    r = choose_k(X, method="eigengap", **params)
    assert r.k == 3 and r.method == "eigengap" and r.k_values[0] == 2
    assert r.gap is None and r.criteria == ["eigengap"] and r.eigenvalues.shape == (16,)
    [step] = r.trace.steps
    assert step.step == "eigengap" and step.outcome == "k=3"


def dense_rw_eigenvalues(X, m):
    """The m smallest eigenvalues of I - D^-1 G, G the energy kernel with base point
    the mean, by a dense eigensolver of the plain matrix."""
    x0 = X.mean(0)
    r0 = np.linalg.norm(X - x0, axis=1)
    G = 0.5 * (r0[:, None] + r0[None, :] - brute_rho(X))
    L = np.eye(len(X)) - G / G.sum(1)[:, None]
    return np.sort(np.linalg.eigvals(L).real)[:m]


def test_eigenvalues_are_those_of_the_random_walk_laplacian():
    X = blobs(np.random.default_rng(9), THREE, 1.0, 15)
    r = choose_k(X, range(1, 6), method="eigengap")
    lam = dense_rw_eigenvalues(X, 6)
    np.testing.assert_allclose(r.eigenvalues, lam, atol=1e-10)
    np.testing.assert_allclose(r.eigengap[1:], lam[2:] - lam[1:-1], atol=1e-10)
    assert np.isnan(r.eigengap[0])  # k = 1: one cluster, no gap read
    assert r.k == r.k_values[1 + np.argmax(lam[2:] - lam[1:-1])]


def test_eigengap_never_answers_one_cluster():
    """The eigengap method is for k >= 2 even when k_range holds 1 (as the command line's
    --k-min 1 gives): on iris with alpha = 1.5 lambda_2 - lambda_1 is the largest
    difference, and k = 1 was answered."""
    from kgroups.datasets import load_iris

    X = load_iris()[0]
    r = choose_k(X, range(1, 16), method="eigengap", alpha=1.5)
    lam = r.eigenvalues
    assert lam[1] - lam[0] > np.max(lam[2:] - lam[1:-1])  # the k = 1 difference is largest
    assert r.k == 1 + int(np.argmax(lam[2:] - lam[1:-1])) + 1 == 2


def test_eigengap_integer_weights_are_repeated_rows():
    rng = np.random.default_rng(10)
    X = blobs(rng, THREE, 1.0, 10)
    w = rng.integers(1, 4, len(X))
    a = choose_k(X, range(1, 5), method="eigengap", sample_weight=w)
    b = choose_k(np.repeat(X, w, axis=0), range(1, 5), method="eigengap")
    np.testing.assert_allclose(a.eigenvalues, b.eigenvalues, atol=1e-10)
    assert a.k == b.k == 3


def test_eigengap_needs_positive_degrees():
    X = np.random.default_rng(11).normal(size=(30, 2))
    with pytest.raises(InvalidParameterError, match="positive degrees.*alpha <= 1"):
        choose_k(X, method="eigengap", alpha=2.0)


def test_lanczos_eigensolver_past_1500_points():
    """Past 1,500 points the eigenvalues come from Lanczos (eigsh): those of the dense
    symmetric matrix D^-1/2 G D^-1/2 all the same."""
    import scipy.linalg

    rng = np.random.default_rng(17)
    X = blobs(rng, THREE, 1.0, 534)                                   # 1602 points
    got = criteria.laplacian_eigenvalues(X, np.ones(len(X)), 5, Setting().rho)
    x0 = X.mean(0)
    r0 = np.linalg.norm(X - x0, axis=1)
    G = 0.5 * (r0[:, None] + r0[None, :]) - 0.5 * brute_rho(X)
    s = 1.0 / np.sqrt(G.sum(1))
    mu = scipy.linalg.eigvalsh(G * s[:, None] * s[None, :], subset_by_index=[1597, 1601])
    np.testing.assert_allclose(got, np.sort(1.0 - mu), atol=1e-8)


# --------------------------------------------------------------------------- k_range
def test_check_k_range_by_hand():
    """The default range 1..15 (2..15 for the silhouette and the eigengap) cut to what
    the method can use on n rows of which some are distinct."""
    def ks(*args):
        return check_k_range(*args).tolist()

    assert ks(None, "auto", "energy", 100, 100) == list(range(1, 16))
    assert ks(None, "auto", "energy", 12, 12) == list(range(1, 12))
    assert ks(None, "auto", "energy", 8, 8) == list(range(1, 8))       # k <= n - 1
    assert ks(None, "auto", "energy", 50, 6) == list(range(1, 6))      # k < distinct rows
    assert ks(None, "auto", "nearest_neighbors", 50, 6) == list(range(1, 5))
    assert ks(None, "gap", "energy", 50, 6) == list(range(1, 6))
    assert ks(None, "prediction_strength", "energy", 12, 12) == list(range(1, 7))
    assert ks(None, "silhouette", "energy", 100, 100) == list(range(2, 16))
    assert ks(None, "eigengap", "energy", 6, 6) == list(range(2, 6))
    assert ks([5, 2, 3], "auto", "energy", 100, 100) == [2, 3, 5]      # sorted
    assert ks(range(1, 2), "auto", "nearest_neighbors", 100, 100) == [1]
    assert ks(np.array([[1, 2], [3, 4]]), "gap", "energy", 100, 100) == [1, 2, 3, 4]
    with pytest.raises(InvalidParameterError, match="k >= 2 for method='auto'"):
        check_k_range([1], "auto", "energy", 100, 100)
    # no k >= 2 at all: said so, not as a k_range the user never gave ('goes up to k=2')
    for method in ("silhouette", "eigengap"):
        with pytest.raises(InvalidParameterError, match=rf"^choose_k: method='{method}' "
                           r"compares k >= 2 clusters, and X allows none: .* X's 1 distinct"):
            check_k_range(None, method, "energy", 3, 1)
        # nor where k_range=[1] is given on X of two rows: said, not numpy's all-NaN slice
        with pytest.raises(InvalidParameterError, match=rf"^choose_k: k_range=\[1\] should "
                           rf"hold a k >= 2 for method='{method}' .*, and X allows none"):
            choose_k(np.array([[0.0, 1.0], [2.0, 3.0]]), [1], method=method)
    with pytest.raises(InvalidParameterError, match="k_range goes up to k=5"):
        check_k_range([1, 5], "auto", "energy", 100, 5)


@pytest.mark.parametrize("k_range, match", [
    ([0, 1, 2], "integers >= 1; got 0"),
    ([1, 2.5], "got 2.5"),
    ([1, "3"], "got '3'"),
    ([True, 2], "got True"),
    ([], "non-empty"),
    ([2, 2, 3], "repeated"),
    (range(1, 31), "k < 20, the number of distinct rows"),
])
def test_bad_k_range(k_range, match):
    X = np.random.default_rng(12).normal(size=(20, 2))
    with pytest.raises(InvalidParameterError, match=f"choose_k: .*{match}"):
        choose_k(X, k_range)


def test_k_range_against_the_data():
    X = np.repeat(np.arange(4.0)[:, None], 5, axis=0)           # 20 rows, 4 distinct
    with pytest.raises(InvalidParameterError, match="k < 4, the number of distinct rows"):
        choose_k(X, range(1, 5), method="gap")
    assert choose_k(X, range(1, 4), method="gap", random_state=0).k_values.tolist() == [1, 2, 3]
    Y = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(InvalidParameterError, match="k <= n_samples - 1 = 19"):
        choose_k(Y, range(2, 21), method="eigengap")
    with pytest.raises(InvalidParameterError, match="halves of 10 points"):
        choose_k(Y, range(1, 12), method="prediction_strength")
    with pytest.raises(InvalidParameterError, match="k >= 2 for method='silhouette'"):
        choose_k(Y, [1], method="silhouette")


@pytest.mark.parametrize("kwargs, match", [
    ({"method": "bic"}, "method='bic' should be one of"),
    ({"method": "silhouette+split"}, "method='silhouette\\+split' should be one of"),
    ({"method": "silhouette+gap"}, "method='silhouette\\+gap' should be one of"),
    ({"method": "gap+ps"}, "method='gap\\+ps' should be one of"),
    ({"method": "gap+ps+sphered"}, "method='gap\\+ps\\+sphered' should be one of"),
    ({"rule": "max"}, "rule='max' should be None or one of"),
    ({"method": "silhouette", "rule": "globalmax"}, "rule='globalmax' applies to method"),
    ({"rule": "globalmax"}, "rule='globalmax' applies to method='gap' only"),
    ({"method": "gap", "semimetric": "auto"}, "semimetric='auto' has a rule of its own"),
    ({"method": "silhouette", "semimetric": "nearest_neighbors"},
     "semimetric='nearest_neighbors' has a rule of its own"),
    ({"se_factor": -1.0}, "se_factor=-1.0 should be a number >= 0"),
    ({"cutoff": 0.0}, r"cutoff=0.0 should be a number in \(0, 1\]"),
    ({"cutoff": 1.5}, "cutoff=1.5"),
    ({"n_splits": 0}, "n_splits=0 should be an integer >= 1"),
    ({"n_refs": 0}, "n_refs=0 should be an integer >= 1"),
    ({"n_neighbors": 0}, "n_neighbors=0 should be an integer >= 1"),
    ({"reference": "uniform"}, "reference='uniform'"),
    ({"semimetric": "precomputed"}, "semimetric='precomputed'"),
    ({"alpha": 3.0}, "alpha=3.0"),
    ({"n_init": 0}, "n_init=0 should be an integer >= 1"),
    ({"engine": "dask"}, "engine='dask'"),
    ({"sample_weight": -1.0}, "sample_weight"),
    ({"bogus": 1}, "unexpected keyword|got an unexpected"),
])
def test_bad_parameters_name_the_parameter(kwargs, match):
    X = np.random.default_rng(13).normal(size=(20, 2))
    with pytest.raises(InvalidParameterError, match=match):
        choose_k(X, range(1, 3), **kwargs)


@pytest.mark.parametrize("kwargs, match", [
    ({"semimetric": "gaussian", "sigma": 1e200},
     r"k=1 is 0.0; .*'gaussian' is 0 on every pair of rows: its sigma is far beyond"),
    ({"semimetric": "sinusoidal"}, r"k=[12] is -[0-9.]+; .*'sinusoidal' takes negative values"),
])
def test_the_gap_names_why_w_is_not_positive(kwargs, match):
    """log W_k needs W_k > 0: a Gaussian of sigma far beyond the data is 0 on every pair
    (W_1 = 0), and the sinusoidal semimetric takes negative values (W_k < 0); the message
    names the cause, not a smaller k_range."""
    X = np.random.default_rng(13).normal(size=(60, 2)) * [3, 1]
    with pytest.raises(InvalidParameterError, match=match):
        choose_k(X, range(1, 4), method="gap", random_state=0, **kwargs)


@pytest.mark.parametrize("cls", [KernelKGroups, KernelKMeans])
@pytest.mark.parametrize("params, X, match", [
    ({"semimetric": "sinusoidal"}, np.random.default_rng(13).normal(size=(60, 2)) * [3, 1],
     r"the within energy of the fit with k=1 is -[0-9.]+; .*'sinusoidal' takes negative"),
    ({"semimetric": "localized", "engine": "low-rank"}, np.array([[0.0, 1], [6e39, 2]]),
     r"X has entries of magnitude 3e\+39, .*'localized' is not scale-free"),
])
def test_n_clusters_auto_names_the_estimator_not_choose_k(cls, params, X, match):
    """The choice inside fit speaks in the estimator's name: the user called
    KernelKGroups("auto").fit, not choose_k."""
    with pytest.raises(InvalidParameterError, match=rf"^{cls.__name__}: {match}"):
        cls("auto", random_state=0, **params).fit(X)


def test_one_distinct_row_is_one_cluster_for_the_graph_too():
    """No k >= 2 on one distinct row: k = 1 without a graph, as energy answers (it was
    refused with "n_samples=1" for three rows: the count of distinct rows)."""
    r = choose_k(np.ones((3, 2)), semimetric="nearest_neighbors")
    assert (r.k, r.semimetric, r.labels.tolist()) == (1, "nearest_neighbors", [0, 0, 0])
    with pytest.raises(InvalidParameterError, match=r"^KernelKGroups: X has 1 distinct point"
                                                    r"\(s\) of positive weight \(n_samples=3\)"):
        KernelKGroups("auto", semimetric="nearest_neighbors").fit(np.ones((3, 2)))


def test_bad_data():
    with pytest.raises(InvalidParameterError, match="choose_k: X contains NaN"):
        choose_k([[0.0, 1.0], [np.nan, 2.0], [1.0, 1.0]], [1, 2])
    with pytest.raises(InvalidParameterError, match="at least 2 row"):
        choose_k([[0.0, 1.0]], [1])


def test_default_range_is_cut_to_the_data():
    X = np.random.default_rng(14).normal(size=(12, 2))
    assert choose_k(X, n_refs=2).k_values.tolist() == list(range(1, 12))    # k <= n - 1
    assert choose_k(X, method="prediction_strength", n_splits=1,
                    random_state=0).k_values.tolist() == list(range(1, 7))   # halves of 6
    assert choose_k(X, method="gap", n_refs=2, random_state=0).k_values.tolist() == list(
        range(1, 12))
    assert choose_k(X, method="eigengap").k_values.tolist() == list(range(2, 12))
    assert choose_k(X, method="silhouette", random_state=0).k_values.tolist() == list(
        range(2, 12))


def test_named_methods_follow_random_state():
    """The named methods' draws come from random_state: the same seed, the same curves."""
    X = blobs(np.random.default_rng(15), THREE, 2.0, 15)
    a, b = (choose_k(X, range(1, 5), method="gap", n_refs=3, random_state=7) for _ in "ab")
    np.testing.assert_array_equal(a.ref_log_w, b.ref_log_w)
    c = choose_k(X, range(1, 5), method="gap", n_refs=3, random_state=8)
    assert not np.allclose(a.ref_log_w, c.ref_log_w)


def test_fits_are_those_of_the_estimator():
    """Each k's labels are a converged fit of KernelKGroups, and W_k its within energy."""
    X = blobs(np.random.default_rng(16), THREE, 2.0, 15)
    w = np.random.default_rng(1).uniform(0.5, 2.0, 45)
    r = choose_k(X, range(1, 5), method="gap", n_refs=2, sample_weight=w, random_state=0)
    f = Fits(X, w, Setting(), 3)
    for k in (2, 3, 4):
        labels, W = f.fit(k)
        est = KernelKGroups(k, init=labels).fit(X, sample_weight=w)
        np.testing.assert_array_equal(est.labels_, labels)
        assert W == pytest.approx(est.within_energy_, rel=1e-10)
    est = KernelKGroups(r.k, init=r.labels).fit(X, sample_weight=w)
    assert r.within_energy[r.k - 1] == pytest.approx(est.within_energy_, rel=1e-10)
    assert f.within_one() == pytest.approx(
        KernelKGroups(1).fit(X, sample_weight=w).within_energy_, rel=1e-12)


# --------------------------------------------------------------------------- result
def test_repr_is_short_and_says_the_key_numbers():
    X = blobs(np.random.default_rng(18), THREE, 0.7, 15)
    assert repr(choose_k(X, range(1, 6), method="gap", n_refs=2, random_state=0)) == (
        "ChooseKResult(k=3, method='gap', rule='firstSEmax', k_values=1..5, "
        "curves=[gap(5,)])")
    assert repr(choose_k(X, range(1, 6), method="prediction_strength", n_splits=1,
                         random_state=0)) == (
        "ChooseKResult(k=3, method='prediction_strength', cutoff=0.8, k_values=1..5, "
        "curves=[prediction_strength(5,)])")
    assert repr(choose_k(X, [2, 3, 5], method="silhouette")) == (
        "ChooseKResult(k=3, method='silhouette', k_values=[2, 3, 5], "
        "curves=[silhouette(3,)])")
    assert repr(choose_k(X, range(2, 5), method="eigengap")) == (
        "ChooseKResult(k=3, method='eigengap', k_values=2..4, curves=[eigengap(3,)])")
    text = repr(choose_k(X, range(1, 6)))
    assert text.startswith("ChooseKResult(k=3, method='auto', k_values=1..5, "
                           "geometry='data', curves=[")
    assert "silhouette(5,)" in text and "split(5,)" in text and "array" not in text


@pytest.mark.parametrize("method", ["gap", "prediction_strength", "silhouette", "eigengap"])
def test_plot_with_agg(method):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    X = blobs(np.random.default_rng(16), THREE, 0.7, 15)
    r = choose_k(X, range(2, 5), method=method, n_refs=2, n_splits=1, random_state=0)
    assert isinstance(r, ChooseKResult)
    ax = r.plot()
    assert ax.get_xlabel() == "k" and ax.get_title().startswith(method.replace("_", " "))
    assert f"chosen k = {r.k}" in ax.get_legend_handles_labels()[1]
    text = " ".join(t.get_text() for t in ax.figure.texts).replace("\n", " ")
    assert text == r.reasoning
    _, ax = plt.subplots()
    assert r.plot(ax, criteria=r.criteria[:1]) is ax
    with pytest.raises(InvalidParameterError, match="criteria="):
        r.plot(criteria=["bic"])
    with pytest.raises(InvalidParameterError, match="got 2 Axes for 1 criteria"):
        r.plot(plt.subplots(1, 2)[1])
    plt.close("all")


def test_plot_without_matplotlib(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_matplotlib(name, *args, **kwargs):
        if name.startswith("matplotlib"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    r = ChooseKResult(2, "gap", np.array([1, 2]), gap=np.array([0.1, 0.2]),
                      gap_se=np.array([0.01, 0.01]))
    with pytest.raises(ModuleNotFoundError, match="plot extra"):
        r.plot()
