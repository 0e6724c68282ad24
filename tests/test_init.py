"""Initialisations (``kgroups._init``): every ``init`` finds separated blobs."""

import numpy as np
import pytest

from kgroups import KernelKGroups


@pytest.mark.parametrize("init", ["k-means++", "kernel-k-means++", "random", "spectral"])
def test_inits_cluster_separated_blobs(init):
    rng = np.random.default_rng(10)
    y = np.repeat(np.arange(3), 40)
    X = np.array([[0, 0], [10, 0], [0, 10]])[y] + rng.normal(size=(120, 2))
    km = KernelKGroups(3, init=init, n_init=3, random_state=0).fit(X)
    from sklearn.metrics import adjusted_rand_score
    assert adjusted_rand_score(y, km.labels_) == 1.0
    assert km.fit_predict(X).tolist() == KernelKGroups(
        3, init=init, n_init=3, random_state=0).fit(X).labels_.tolist()


# --------------------------------------------------------------------------- n_init="auto"
@pytest.mark.parametrize("n, expected", [(10, 30), (1333, 30), (1334, 29), (2000, 20),
                                         (5000, 8), (10_000, 4), (39_999, 1), (40_000, 1),
                                         (10**7, 1)])
def test_auto_n_init_follows_the_documented_rule(n, expected):
    # min(30, 40_000 // n), at least 1 (module docstring); values written out by hand
    from kgroups._init import resolve_n_init

    assert resolve_n_init("auto", "kernel-k-means++", n) == expected
    assert resolve_n_init("auto", "random", n) == expected
    assert resolve_n_init(7, "k-means++", n) == 7
    assert resolve_n_init("auto", np.zeros(n, dtype=int), n) == 1  # given labels run once


def test_default_init_and_n_init_resolve_as_documented():
    import inspect

    from kgroups import KernelKMeans

    X, _ = _three_blobs(120)
    for cls in (KernelKGroups, KernelKMeans):
        sig = inspect.signature(cls).parameters
        assert sig["init"].default == "kernel-k-means++" and sig["n_init"].default == "auto"
        assert cls(3, random_state=0).fit(X).n_init_ == 30  # 40_000 // 120 > 30
        assert cls(3, n_init=4, random_state=0).fit(X).n_init_ == 4
        start = np.arange(120) % 3
        assert cls(3, init=start, n_init="auto").fit(X).n_init_ == 1


def test_auto_n_init_is_the_best_of_that_many_starts():
    # the default is exactly n_init=30 here: same random stream, same starts, same result
    X, _ = _three_blobs(90, spread=4.0)
    auto = KernelKGroups(3, random_state=3).fit(X)
    thirty = KernelKGroups(3, n_init=30, random_state=3).fit(X)
    assert auto.labels_.tolist() == thirty.labels_.tolist()
    one = KernelKGroups(3, n_init=1, random_state=3).fit(X)
    # the best of thirty (runs within rounding of each other tie, TIE_RTOL)
    assert auto.objective_ >= one.objective_ - 1e-12 * abs(one.objective_)


def test_n_init_auto_is_in_the_constraint_table():
    from kgroups._validation import InvalidParameterError

    for bad in ("Auto", "best", 0, 2.0, True):
        with pytest.raises(InvalidParameterError, match="n_init=.*'auto'.*integer >= 1"):
            KernelKGroups(2, n_init=bad).fit(np.arange(8.0).reshape(4, 2))


def _three_blobs(n, spread=1.0):
    rng = np.random.default_rng(10)
    y = np.arange(n) % 3
    return np.array([[0, 0], [10, 0], [0, 10]])[y] + spread * rng.normal(size=(n, 2)), y


@pytest.mark.parametrize("init", ["k-means++", "kernel-k-means++"])
def test_low_rank_starts_large_inputs_from_a_sample(monkeypatch, init):
    """Past SAMPLE_ROWS points the low-rank engine's start is the estimator's fit on a
    sample, extended by the nearest mean in feature space (checked against the means
    computed here from the engine's features); the exact engines never start so."""
    import kgroups._base as base_mod
    import kgroups._init as init_mod
    from kgroups._engines.lowrank import LowRankEngine
    from tests._helpers import blobs

    monkeypatch.setattr(init_mod, "SAMPLE_ROWS", 300)
    X, y = blobs(1200, 3, 4, seed=3, spread=1.0)
    seen = []
    fit_sample = base_mod.BaseKernelClustering._fit_sample

    def spy(self, Xs, *args):
        seen.append(Xs.shape[0])
        return fit_sample(self, Xs, *args)

    monkeypatch.setattr(base_mod.BaseKernelClustering, "_fit_sample", spy)
    est = KernelKGroups(4, init=init, n_init=2, engine="low-rank", n_components=40,
                        random_state=1).fit(X)
    assert seen == [300, 300]
    assert len(np.unique(est.labels_)) == 4
    eng = LowRankEngine.from_semimetric(X, np.ones(1200), "energy", {}, n_clusters=4,
                                        options={"n_components": 40, "random_state": 0})
    idx = np.arange(0, 1200, 4)
    lab = np.arange(idx.shape[0]) % 4
    mu = np.stack([eng.F[idx[lab == l]].mean(axis=0) for l in range(4)])
    want = np.argmin(((eng.F[:, None, :] - mu[None, :, :]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(eng.extend(idx, X[idx], np.ones(300), lab, 4), want)
    seen.clear()
    KernelKGroups(4, init=init, n_init=2, engine="matrix-free", random_state=1).fit(X)
    assert seen == []
    # a callable semimetric: the sample fit would be dense, so no sample start
    KernelKGroups(4, init=init, n_init=1, engine="low-rank", n_components=40, random_state=1,
                  semimetric=lambda A, B: np.sqrt(((A[:, None] - B[None]) ** 2).sum(-1))
                  ).fit(X)
    assert seen == []


def test_sample_start_shows_progress(monkeypatch, capsys):
    """verbose=1 says when the sample start's fit begins and ends (it is long work)."""
    import kgroups._init as init_mod
    from tests._helpers import blobs

    monkeypatch.setattr(init_mod, "SAMPLE_ROWS", 200)
    X, _ = blobs(600, 3, 3, seed=4, spread=1.0)
    KernelKGroups(3, n_init=1, engine="low-rank", n_components=30, random_state=0,
                  verbose=1).fit(X)
    out = capsys.readouterr().out
    assert "exact fit of a 200-point sample (10 starts)" in out
    assert "sample fit done, W = " in out


# --------------------------------------------------------------------------- kernel k-means++
def _kmeanspp_with_numpy_choice(engine, k, rng):
    """The seeding written with ``Generator.choice`` and numpy sums (the reference):
    seeds drawn D^2-weighted, the best of ``2 + log k`` candidates per seed."""
    w = engine.w
    kdiag = engine.diag / (w * w)
    n, n_trials = w.shape[0], 2 + int(np.log(k))

    def dist_to(c):
        return np.maximum(kdiag + kdiag[c] - 2.0 * engine.column(c), 0.0)

    closest = dist_to(int(rng.choice(n, p=w / w.sum())))
    labels = np.zeros(n, dtype=np.int64)
    for c in range(1, k):
        pot = w * closest
        scored = []
        for cand in rng.choice(n, size=n_trials, p=pot / pot.sum()):
            dc = dist_to(int(cand))
            scored.append((float((w * np.minimum(closest, dc)).sum()), len(scored), dc))
        dc = min(scored)[2]
        labels[dc < closest] = c
        closest = np.minimum(closest, dc)
    return labels


@pytest.mark.parametrize("engine", ["dense", "matrix-free"])
def test_kernel_kmeanspp_draws_as_numpy_choice(engine):
    """The seeding from pre-drawn uniforms (compiled whole on the dense engine, from
    the engine's columns on the matrix-free one) picks the seeds ``Generator.choice``
    picks from the same random stream: same labels as the reference above, for
    weights, float32 kernels, alpha = 1/2 and several k."""
    from tests._helpers import blobs

    rng = np.random.default_rng(5)
    X, _ = blobs(300, 4, 5, seed=8, spread=3.0)
    w = rng.uniform(0.5, 2.0, X.shape[0])
    cases = [({}, None), ({"alpha": 0.5}, w), ({"semimetric": "gaussian", "sigma": 2.0}, w)]
    if engine == "dense":
        cases.append(({"dtype": "float32"}, w))
    for params, weights in cases:
        for k in (2, 5, 9):
            est = KernelKGroups(k, engine=engine, **params)
            eng = est._prepare(X, weights)[2]
            for seed in range(8):
                got = eng.kmeanspp_start(k, np.random.default_rng(seed))
                want = _kmeanspp_with_numpy_choice(eng, k, np.random.default_rng(seed))
                np.testing.assert_array_equal(got, want)


def test_compiled_and_column_seedings_agree_when_points_coincide():
    """Fewer distinct points than k: once every point coincides with a seed the
    potential is zero and the candidates are drawn uniformly, in both seedings alike."""
    from kgroups._engines.engine import Engine

    X = np.repeat([[0.0, 0.0], [3.0, 1.0]], 10, axis=0)
    eng = KernelKGroups(4, engine="dense")._prepare(X, None)[2]
    for seed in range(10):
        u = np.random.default_rng(seed).random(1 + 3 * (2 + int(np.log(4))))
        a = eng.kmeanspp_labels(4, u, 2 + int(np.log(4)))  # compiled on the dense B
        b = Engine.kmeanspp_labels(eng, 4, u, 2 + int(np.log(4)))  # from its columns
        np.testing.assert_array_equal(a, b)
        assert set(np.unique(a)) <= {0, 1, 2, 3} and len(np.unique(a)) == 2
