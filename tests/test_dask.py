"""engine="dask" and the energy statistics of dask arrays (kgroups._dask,
kgroups._stats.pairsum_dask, kgroups._engines.dask).

Most tests run on Dask's local scheduler; the ``client`` ones on a
``LocalCluster`` of two worker processes, as a real cluster would.
"""

import os
import signal

import numpy as np
import pytest

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

from kgroups import KernelKGroups, KernelKMeans, energy_distance, within_energy  # noqa: E402
from kgroups.exceptions import InvalidParameterError  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore:Sending large graph:UserWarning")


def blobs(n, d, k, std, seed):
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-6, 6, size=(k, d))
    y = rng.integers(0, k, size=n)
    return centres[y] + std * rng.standard_normal((n, d)), y


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture
def client(cluster):
    """A client of the module's cluster for one test: Dask's default scheduler while the
    test runs only (a client left open would send every later test to the cluster)."""
    with distributed.Client(cluster) as cl:
        yield cl


# ------------------------------------------------------------------ brute force
def feature_q(F, a, w, labels, k):
    """Q of the engine kernel phi.phi' - a - a' from scratch (plain numpy)."""
    Q = 0.0
    for l in range(k):
        idx = labels == l
        if idx.any():
            S = (w[idx, None] * F[idx]).sum(0)
            s = w[idx].sum()
            Q += (S @ S - 2.0 * s * (w[idx] * a[idx]).sum()) / s
    return Q


def improving_moves_brute(F, a, w, labels, k):
    """Points one of whose single moves raises Q by more than rounding."""
    base = feature_q(F, a, w, labels, k)
    count = 0
    for i in range(labels.shape[0]):
        if (labels == labels[i]).sum() < 2:
            continue
        for l in range(k):
            if l == labels[i]:
                continue
            moved = labels.copy()
            moved[i] = l
            if feature_q(F, a, w, moved, k) > base + 1e-9 * abs(base):
                count += 1
                break
    return count


def fitted_features(est, X):
    """The fit's feature map on X, and a = K(x, x) / 2 (the engine's kernel)."""
    fmap = est._predictor.fmap
    return fmap(X), 0.5 * fmap.kdiag(X)


# ------------------------------------------------------------------ the engine
@pytest.mark.parametrize("landmarks", ["k-means++", "uniform"])
def test_same_start_same_optimum_as_lowrank(landmarks):
    X, y = blobs(240, 3, 3, 1.6, 0)
    start = np.random.default_rng(1).integers(0, 3, 240)
    kw = dict(n_components=20, landmarks=landmarks, random_state=5, init=start)
    lr = KernelKGroups(3, engine="low-rank", **kw).fit(X)
    dk = KernelKGroups(3, engine="dask", **kw).fit(da.from_array(X, chunks=(50, 3)))
    labels = dk.labels_.compute()
    # same landmarks: the same feature map
    F_lr, _ = fitted_features(lr, X)
    F_dk, a = fitted_features(dk, X)
    np.testing.assert_allclose(F_dk, F_lr, rtol=1e-9, atol=1e-9)
    assert abs(dk.within_energy_ / lr.within_energy_ - 1) < 1e-3
    assert improving_moves_brute(F_dk, a, np.ones(240), labels, 3) == 0
    # the reported W is the engine kernel's W of the labels
    assert dk.objective_ == pytest.approx(feature_q(F_dk, a, np.ones(240), labels, 3),
                                          rel=1e-10)


def test_weighted_optimum():
    X, _ = blobs(200, 2, 3, 1.5, 2)
    w = np.random.default_rng(3).integers(1, 4, 200).astype(float)
    start = np.random.default_rng(4).integers(0, 3, 200)
    kw = dict(n_components=16, random_state=0, init=start)
    lr = KernelKGroups(3, engine="low-rank", **kw).fit(X, sample_weight=w)
    dk = KernelKGroups(3, engine="dask", **kw).fit(da.from_array(X, chunks=(64, 2)),
                                                   sample_weight=da.from_array(w, chunks=64))
    F, a = fitted_features(dk, X)
    labels = dk.labels_.compute()
    assert improving_moves_brute(F, a, w, labels, 3) == 0
    assert abs(dk.within_energy_ / lr.within_energy_ - 1) < 1e-3
    np.testing.assert_allclose(dk.cluster_weights_, np.bincount(labels, weights=w), rtol=1e-12)


def test_attributes_predict_and_separated_blobs():
    X, y = blobs(3000, 4, 4, 0.5, 7)
    Xd = da.from_array(X, chunks=(700, 4))
    est = KernelKGroups(4, engine="dask", n_components=32, random_state=0).fit(Xd)
    assert isinstance(est.labels_, da.Array) and est.labels_.chunks == (Xd.chunks[0],)
    labels = est.labels_.compute()
    from sklearn.metrics import adjusted_rand_score

    assert adjusted_rand_score(y, labels) == 1.0
    assert est.engine_ == "dask" and isinstance(est.n_iter_, int)
    assert np.isfinite(est.within_energy_) and est.objective_ == -est.within_energy_
    assert isinstance(est.cluster_weights_, np.ndarray) and est.cluster_weights_.sum() == 3000
    pred = est.predict(Xd)
    assert isinstance(pred, da.Array)
    np.testing.assert_array_equal(pred.compute(), labels)
    np.testing.assert_array_equal(est.predict(X[:100]), labels[:100])
    fp = KernelKGroups(4, engine="dask", n_components=32, random_state=0).fit_predict(Xd)
    np.testing.assert_array_equal(fp.compute(), labels)


def test_auto_picks_dask_and_numpy_input_with_engine_dask():
    X, _ = blobs(500, 2, 2, 0.5, 1)
    a = KernelKGroups(2, n_components=16, random_state=0).fit(da.from_array(X, chunks=100))
    b = KernelKGroups(2, engine="dask", n_components=16, random_state=0).fit(X)
    assert a.engine_ == b.engine_ == "dask"
    np.testing.assert_array_equal(a.labels_.compute(), b.labels_.compute())


def test_dataframe_input_and_feature_names():
    dd = pytest.importorskip("dask.dataframe")
    pd = pytest.importorskip("pandas")
    X, _ = blobs(400, 3, 2, 0.5, 3)
    df = dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "c"]), npartitions=3)
    est = KernelKGroups(2, n_components=16, random_state=0).fit(df)
    assert list(est.feature_names_in_) == ["a", "b", "c"]
    assert est.labels_.compute().shape == (400,)
    bad = dd.from_pandas(pd.DataFrame({"a": [1.0, 2.0, 3.0], "s": ["x", "y", "z"]}),
                         npartitions=1)
    with pytest.raises(ValueError, match=r"non-numeric columns \['s'\]"):
        KernelKGroups(2).fit(bad)


def test_never_an_empty_cluster():
    X = np.repeat(np.array([[0.0, 0.0], [5.0, 5.0]]), 300, axis=0)
    est = KernelKGroups(4, engine="dask", n_components=8, init="random",
                        random_state=0).fit(da.from_array(X, chunks=(100, 2)))
    assert (np.bincount(est.labels_.compute(), minlength=4) > 0).all()
    start = np.zeros(600, dtype=int)
    start[300:] = 1  # clusters 2 and 3 empty at the start
    est = KernelKGroups(4, engine="dask", n_components=8, init=start).fit(
        da.from_array(X, chunks=(100, 2)))
    assert (np.bincount(est.labels_.compute(), minlength=4) > 0).all()
    assert np.isfinite(est.within_energy_)


@pytest.mark.parametrize("make, match", [
    (lambda X: KernelKGroups(2, engine="dense").fit(da.from_array(X)),
     "X is a dask collection and engine='dense'"),
    (lambda X: KernelKMeans(2).fit(da.from_array(X)), "supported by KernelKGroups only"),
    (lambda X: KernelKGroups(2, init="spectral").fit(da.from_array(X)),
     "init='spectral' is not available with engine='dask'"),
    (lambda X: KernelKGroups(2, semimetric="precomputed").fit(da.from_array(X)),
     "needs raw data"),
    (lambda X: KernelKGroups(2).fit(da.from_array(X[:, 0])), "2-D"),
    (lambda X: KernelKGroups(2).fit(da.from_array(np.where(np.arange(60)[:, None] == 41,
                                                           np.nan, X), chunks=(20, 2))),
     r"X contains NaN .* rows 40:60"),
    (lambda X: KernelKGroups(2).fit(da.from_array(X, chunks=(20, 2)),
                                    sample_weight=da.from_array(-np.ones(60), chunks=20)),
     r"sample_weight\[0\]=-1.0.* rows 0:20"),
    (lambda X: KernelKGroups(2).fit(da.from_array(X, chunks=(20, 2)),
                                    sample_weight=da.from_array(np.arange(60.0), chunks=20)),
     r"sample_weight\[0\]=0.0.*: the Dask engine fits every row .* in memory, where a row "
     r"of weight 0 is left out"),
    (lambda X: KernelKGroups(2, engine="dask").fit(X, sample_weight=np.arange(60.0)),
     r"sample_weight\[0\]=0.0.*: the Dask engine fits every row"),
    (lambda X: KernelKGroups(61).fit(da.from_array(X)), "n_samples=60 should be >= "),
    (lambda X: KernelKGroups(2, n_components=0).fit(da.from_array(X)), "n_components"),
    (lambda X: KernelKGroups(2, engine="dask").fit(X[:, :0]), r"expected at least 1 row\(s\) and 1 column"),
])
def test_clear_errors(make, match):
    X, _ = blobs(60, 2, 2, 1.0, 0)
    with pytest.raises(ValueError, match=match):
        make(X)


def test_predict_checks_features():
    X, _ = blobs(200, 2, 2, 0.5, 0)
    est = KernelKGroups(2, engine="dask", n_components=8, random_state=0).fit(X)
    with pytest.raises(ValueError, match="X has 3 features"):
        est.predict(da.from_array(np.ones((5, 3))))
    with pytest.raises(ValueError, match="improving_moves: engine='dask' should be one of"):
        from kgroups import improving_moves

        improving_moves(X, np.arange(200) % 2, engine="dask")


# ------------------------------------------------------------------ exact energy
# Every energy statistic of dask input is computed on Dask over all pairs and equals the
# in-memory value up to the order of additions (relative 1e-12); what needs the pooled
# n x n matrix (permutations) or runs in memory only (g) is refused by name.
from kgroups import between_energy, disco, energy_test, total_energy  # noqa: E402
from kgroups._stats.energy import g  # noqa: E402

RTOL_DASK = 1e-12


def close(got, ref):
    return abs(got - ref) <= RTOL_DASK * abs(ref)


@pytest.mark.parametrize("kw", [{}, {"alpha": 0.5}, {"semimetric": "gaussian", "sigma": 2.0}])
def test_energy_distance_exact(kw):
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(900, 3)), rng.normal(0.2, 1.0, size=(700, 3))
    wx = rng.uniform(0.5, 2.0, 900)
    ref = energy_distance(X, Y, sample_weight_x=wx, **kw)
    got = energy_distance(da.from_array(X, chunks=(200, 3)), da.from_array(Y, chunks=(300, 3)),
                          sample_weight_x=da.from_array(wx, chunks=250), **kw)
    assert close(got, ref)
    # one in-memory, one dask
    assert close(energy_distance(X, da.from_array(Y, chunks=(300, 3)), sample_weight_x=wx,
                                 **kw), ref)


def test_within_energy_exact_and_scaled():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(800, 4))
    lab = rng.integers(0, 5, 800)
    w = rng.uniform(0.5, 3.0, 800)
    ref = within_energy(X, lab, sample_weight=w, alpha=1.5)
    got = within_energy(da.from_array(X, chunks=(170, 4)), da.from_array(lab, chunks=300),
                        sample_weight=w, alpha=1.5)
    assert close(got, ref)
    # in-memory X with dask labels runs on Dask too, in the labels' row blocks
    assert close(within_energy(X, da.from_array(lab, chunks=300), sample_weight=w, alpha=1.5),
                 ref)
    big = within_energy(X * 1e200, lab)
    assert close(within_energy(da.from_array(X * 1e200, chunks=(300, 4)), lab), big)


@pytest.mark.parametrize("labels_kind", ["numpy", "dask"])
@pytest.mark.parametrize("weights_kind", ["none", "numpy", "dask"])
def test_between_and_total_energy_exact(labels_kind, weights_kind):
    rng = np.random.default_rng(2)
    X = rng.normal(size=(700, 3)) + rng.integers(0, 3, (700, 1))
    # integer labels, a negative one among them (not -1, which marks points set aside)
    lab = rng.choice(np.array(["a", "b", "c", "d"]), 700) if labels_kind == "numpy" \
        else rng.choice(np.array([-2, 0, 1, 2]), 700)
    w = None if weights_kind == "none" else rng.uniform(0.5, 2.0, 700)
    Xd = da.from_array(X, chunks=(160, 3))
    labd = lab if labels_kind == "numpy" else da.from_array(lab, chunks=200)
    wd = da.from_array(w, chunks=333) if weights_kind == "dask" else w
    for f, args, dargs in ((between_energy, (X, lab), (Xd, labd)),
                           (within_energy, (X, lab), (Xd, labd)),
                           (total_energy, (X,), (Xd,))):
        ref = f(*args, sample_weight=w, alpha=0.8)
        got = f(*dargs, sample_weight=wd, alpha=0.8)
        assert close(got, ref), (f.__name__, got, ref)
    # W + S = T (eq. 18), all three on Dask
    W = within_energy(Xd, labd, sample_weight=wd)
    S = between_energy(Xd, labd, sample_weight=wd)
    assert abs(W + S - total_energy(Xd, sample_weight=wd)) <= 1e-12 * (W + S)


def test_energy_test_statistic_exact():
    rng = np.random.default_rng(5)
    samples = [rng.normal(m, 1.0, size=(n, 2)) for m, n in ((0, 300), (0.3, 200), (0, 250))]
    ref = energy_test(*samples, n_permutations=0).statistic
    got = energy_test(*[da.from_array(x, chunks=(90, 2)) for x in samples[:2]], samples[2],
                      n_permutations=0)
    assert close(got.statistic, ref) and np.isnan(got.pvalue) and got.n_permutations == 0
    # 1-D dask samples are one feature, as in memory
    a, b = samples[0][:, 0], samples[1][:, 0]
    ref1 = energy_test(a, b, n_permutations=0, alpha=1.5).statistic
    got1 = energy_test(da.from_array(a, chunks=70), da.from_array(b, chunks=70),
                       n_permutations=0, alpha=1.5).statistic
    assert close(got1, ref1)


def test_disco_exact():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(600, 2))
    lab = rng.integers(0, 3, 600)
    X[lab == 1] += 0.4
    ref = disco(X, lab, n_permutations=0, alpha=0.7)
    got = disco(da.from_array(X, chunks=(150, 2)), da.from_array(lab, chunks=150),
                n_permutations=0, alpha=0.7)
    for key in ("statistic", "total", "between", "within"):
        assert close(getattr(got, key), getattr(ref, key)), key
    assert (got.df_between, got.df_within, got.n_permutations) == (2, 597, 0)
    assert np.isnan(got.pvalue)


def test_dataframe_and_series_inputs():
    dd = pytest.importorskip("dask.dataframe")
    import pandas as pd
    rng = np.random.default_rng(7)
    X = rng.normal(size=(300, 3))
    lab = rng.integers(0, 3, 300)
    df = dd.from_pandas(pd.DataFrame(X, columns=["a", "b", "c"]), npartitions=3)
    series = dd.from_pandas(pd.Series(lab), npartitions=3)
    assert close(between_energy(df, series), between_energy(X, lab))
    assert close(disco(df, lab, n_permutations=0).statistic,
                 disco(X, lab, n_permutations=0).statistic)
    assert close(energy_distance(df["a"], X[:50, 0]), energy_distance(X[:, 0], X[:50, 0]))


@pytest.mark.parametrize("call, fragments", [
    (lambda X, lab: energy_test(X, X, n_permutations=999),
     ["energy_test:", "n_permutations=999", "dask", "n_permutations=0", "subsample"]),
    (lambda X, lab: disco(X, lab, n_permutations=5),
     ["disco:", "n_permutations=5", "dask", "n_permutations=0", "subsample"]),
    (lambda X, lab: g(X),
     ["g:", "X is a dask Array", "X.compute()", "subsample", "energy_distance"]),
    (lambda X, lab: g(np.ones((5, 2)),
                                                   sample_weight_x=da.ones(5)),
     ["g:", "sample_weight_x is a dask Array", "in-memory"]),
    (lambda X, lab: within_energy(X, lab, precomputed=True),
     ["within_energy:", "precomputed", "dask", "in memory"]),
])
def test_refused_on_dask_by_name(call, fragments):
    # a dask array whose computation fails: the refusal comes before any pass over it
    X = da.from_array(np.ones((6, 2)), chunks=(3, 2)).map_blocks(_explode, dtype=float)
    with pytest.raises(ValueError) as info:
        call(X, np.arange(6) % 2)
    for frag in fragments:
        assert frag in str(info.value), (frag, str(info.value))


def _explode(block):
    raise AssertionError("computed")


def test_energy_dask_errors():
    X = da.from_array(np.ones((10, 2)))
    with pytest.raises(ValueError, match="X has 2 features but Y has 3"):
        energy_distance(X, da.from_array(np.ones((5, 3))))
    with pytest.raises(ValueError, match="Y contains NaN"):
        energy_distance(X, da.from_array(np.full((5, 2), np.nan)))
    with pytest.raises(ValueError, match=r"labels has shape \(7,\), expected \(10,\)"):
        within_energy(X, da.from_array(np.zeros(7)))
    with pytest.raises(ValueError, match="labels contains NaN"):
        within_energy(X, da.from_array(np.array([0.0, np.nan] * 5), chunks=4))
    with pytest.raises(ValueError, match=r"sample_weight\[1\]=0\.0.*rows 3:6"):
        within_energy(da.from_array(np.arange(20.0).reshape(10, 2), chunks=(3, 2)),
                      np.arange(10) % 2, sample_weight=da.from_array(
                          np.array([1.0, 1, 1, 1, 0, 1, 1, 1, 1, 1]), chunks=3))
    with pytest.raises(ValueError, match=r"samples\[0\] has 2 features but samples\[1\] has 3"):
        energy_test(X, np.ones((4, 3)), n_permutations=0)


def test_nan_callable_semimetric_named_from_a_task():
    def nan_semimetric(A, B):
        return np.full((len(A), len(B)), np.nan)

    X = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(3, 2))
    with pytest.raises(ValueError, match=r"^energy_distance: the callable semimetric.*nan"):
        energy_distance(X, X + 1, semimetric=nan_semimetric)


def test_huge_weights_and_data_rescaled_on_dask():
    rng = np.random.default_rng(8)
    X, Y = rng.normal(size=(40, 2)), rng.normal(size=(30, 2))
    w = rng.uniform(0.5, 2.0, 40)
    ref = energy_distance(X, Y, sample_weight_x=w)
    got = energy_distance(da.from_array(X * 1e250, chunks=(15, 2)), Y * 1e250,
                          sample_weight_x=da.from_array(w * 1e300, chunks=15), alpha=0.5)
    assert close(got, energy_distance(X * 1e250, Y * 1e250, sample_weight_x=w, alpha=0.5))
    assert close(energy_distance(da.from_array(X, chunks=(7, 2)), Y,
                                 sample_weight_x=w * 1e-300), ref)
    # T is linear in the weights: huge weights give a huge, finite T
    T = total_energy(X, sample_weight=w)
    assert close(total_energy(da.from_array(X, chunks=(9, 2)), sample_weight=w * 1e300),
                 T * 1e300)


@pytest.mark.parametrize("c", [2.0 ** 600, 2.0 ** -600])
def test_weights_of_extreme_magnitude_fit_on_dask_as_in_memory(c):
    """KernelKGroups on dask rows with every weight c: weights far from 1 are divided by
    a power of two, as in memory (their products w_i w_j overflowed, or underflowed to
    0 and left W = 0 and a partition of chance); the partition of weights 1, W and the
    cluster weights scaled by c exactly."""
    X, _ = blobs(300, 2, 3, 0.4, 5)
    Xd, w = da.from_array(X, chunks=(100, 2)), np.full(300, c)
    one = KernelKGroups(3, random_state=0).fit(Xd)
    big = KernelKGroups(3, random_state=0).fit(Xd, sample_weight=da.from_array(w, chunks=100))
    np.testing.assert_array_equal(np.asarray(big.labels_), np.asarray(one.labels_))
    assert big.within_energy_ == one.within_energy_ * c
    np.testing.assert_array_equal(big.cluster_weights_, one.cluster_weights_ * c)


# ------------------------------------------------------------------ on a cluster
def test_cluster_matches_local_scheduler(client):
    X, _ = blobs(1500, 3, 3, 1.8, 11)
    start = np.random.default_rng(0).integers(0, 3, 1500)
    kw = dict(n_components=24, random_state=2, init=start)
    Xd = da.from_array(X, chunks=(300, 3))
    on_cluster = KernelKGroups(3, engine="dask", **kw).fit(Xd)
    with distributed.worker_client if False else _no_client():
        local = KernelKGroups(3, engine="dask", **kw).fit(Xd)
    np.testing.assert_array_equal(on_cluster.labels_.compute(), local.labels_.compute())
    assert on_cluster.n_moves_ == local.n_moves_
    assert on_cluster.within_energy_ == pytest.approx(local.within_energy_, rel=1e-12)
    # exact statistics on the cluster
    rng = np.random.default_rng(2)
    Y = rng.normal(size=(600, 3))
    ref = energy_distance(X, Y)
    got = energy_distance(Xd, da.from_array(Y, chunks=(250, 3)))
    assert abs(got - ref) <= 1e-10 * ref


class _no_client:
    """Run the body on Dask's local scheduler although a client exists."""

    def __enter__(self):
        import dask

        self._cfg = dask.config.set(scheduler="sync")
        self._patch = pytest.MonkeyPatch()
        self._patch.setattr("kgroups._dask_io.client_or_none", lambda: None)
        return self

    def __exit__(self, *exc):
        self._patch.undo()
        self._cfg.__exit__(*exc)


def test_worker_killed_mid_fit_is_survived(client, monkeypatch):
    X, _ = blobs(2000, 3, 4, 2.0, 5)
    Xd = da.from_array(X, chunks=(250, 3)).persist()
    kw = dict(n_components=24, random_state=0, init="random")
    ref = KernelKGroups(4, engine="dask", **kw).fit(Xd)
    assert ref.n_iter_ >= 2
    from kgroups import _progress

    original = _progress.FitProgress.__call__
    killed = []

    def kill_after_first_sweep(self, sweep, moves, objective):
        if sweep == 1 and not killed:
            victim = sorted(client.scheduler_info()["workers"])[0]
            pid = client.run(os.getpid, workers=[victim])[victim]
            os.kill(pid, signal.SIGKILL)
            killed.append(victim)
        return original(self, sweep, moves, objective)

    monkeypatch.setattr(_progress.FitProgress, "__call__", kill_after_first_sweep)
    again = KernelKGroups(4, engine="dask", **kw).fit(Xd)
    assert killed
    np.testing.assert_array_equal(again.labels_.compute(), ref.labels_.compute())
    assert again.within_energy_ == pytest.approx(ref.within_energy_, rel=1e-12)


def test_transform_and_fit_transform():
    X, _ = blobs(600, 3, 3, 1.0, 4)
    Xd = da.from_array(X, chunks=(150, 3))
    est = KernelKGroups(3, engine="dask", n_components=24, random_state=0).fit(Xd)
    D = est.transform(Xd)
    assert isinstance(D, da.Array) and D.chunks == (Xd.chunks[0], (3,))
    D = D.compute()
    np.testing.assert_allclose(D, est.transform(X), rtol=1e-12)
    # brute force in the fit's feature space: ||phi(x) - mu_l||^2 with phi.phi' - a - a'
    F, a = fitted_features(est, X)
    labels = est.labels_.compute()
    for l in range(3):
        mu = F[labels == l].mean(axis=0)
        mu_a = a[labels == l].mean()
        # Kt(x, x) - 2 mean_y Kt(x, y) + mean_yz Kt(y, z), Kt = phi.phi' - a - a'
        want = (F * F).sum(1) - 2 * a - 2 * (F @ mu - a - mu_a) + (mu @ mu - 2 * mu_a)
        np.testing.assert_allclose(D[:, l], np.maximum(want, 0), rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(
        KernelKGroups(3, engine="dask", n_components=24, random_state=0).fit_transform(Xd)
        .compute(), D, rtol=1e-12)


@pytest.mark.parametrize("init", ["kernel-k-means++", "k-means++"])
def test_sample_start_ends_at_a_hartigan_optimum(init, monkeypatch):
    # a sample smaller than the data, so that the start (nearest sample mean, with
    # bounds from it) is not already the optimum
    monkeypatch.setattr("kgroups._init.SAMPLE_ROWS", 120)
    X, _ = blobs(300, 2, 3, 2.5, 9)
    est = KernelKGroups(3, engine="dask", init=init, n_components=20, random_state=1).fit(
        da.from_array(X, chunks=(70, 2)))
    F, a = fitted_features(est, X)
    labels = est.labels_.compute()
    assert improving_moves_brute(F, a, np.ones(300), labels, 3) == 0
    assert est.objective_ == pytest.approx(feature_q(F, a, np.ones(300), labels, 3), rel=1e-10)


def test_energy_statistics_on_cluster(client):
    rng = np.random.default_rng(9)
    X = rng.normal(size=(500, 2))
    lab = rng.integers(0, 3, 500)
    w = rng.uniform(0.5, 2.0, 500)
    Xd = da.from_array(X, chunks=(120, 2))
    assert close(between_energy(Xd, da.from_array(lab, chunks=120), sample_weight=w),
                 between_energy(X, lab, sample_weight=w))
    assert close(disco(Xd, lab, n_permutations=0).statistic,
                 disco(X, lab, n_permutations=0).statistic)


@pytest.mark.parametrize("semimetric, engine", [("energy", "dask"), ("auto", None)])
def test_n_clusters_auto_chooses_on_a_sample_and_labels_every_row(semimetric, engine,
                                                                   monkeypatch):
    """Issue 54: n_clusters='auto' on a dask array was refused; k (and the semimetric)
    are chosen on a uniform sample brought to memory, then k is fitted on every row by
    the Dask engine (energy), or fitted on the sample and every row labelled by its
    predict (the graph, which does not run on Dask)."""
    from sklearn.datasets import make_blobs, make_moons
    from sklearn.metrics import adjusted_rand_score

    from kgroups._choose_k import estimator

    monkeypatch.setattr(estimator, "SAMPLE_N", 300)
    if semimetric == "energy":
        X, y = make_blobs(900, 2, centers=[[0, 0], [8, 0], [0, 8]], random_state=0)
    else:
        X, y = make_moons(900, noise=0.05, random_state=0)
    Xd = da.from_array(X, chunks=(200, 2))
    est = KernelKGroups("auto", semimetric=semimetric, random_state=0).fit(Xd)
    labels = np.asarray(est.labels_.compute())
    assert labels.shape == (900,) and adjusted_rand_score(y, labels) > 0.99
    r = est.n_clusters_choice_
    assert est.n_clusters_ == (3 if semimetric == "energy" else 2)
    step = r.trace.steps[-1]
    assert r.sample.size == 300 and (step.step, step.value) == ("sample", 300)
    assert "of the 900 rows, drawn from the dask input" in step.outcome
    if engine is not None:
        assert est.engine_ == engine
    else:
        assert est.semimetric_ == "nearest_neighbors" and "predict" in r.reasoning


@pytest.mark.parametrize("engine, match", [
    ("auto", "engine='dask' does not set points aside"),
    ("dense", "X is a dask collection and engine='dense' takes numpy arrays")])
def test_n_clusters_auto_with_noise_the_dask_engine_refuses_is_refused_before_the_choice(
        monkeypatch, engine, match):
    """noise with a semimetric the Dask engine fits every row of: that engine does not set
    points aside, and the fit says so before it chooses k (the choice is never run); an
    engine named that does not take the dask array is named as the cause."""
    from kgroups._choose_k import estimator

    def never(*args, **kwargs):
        raise AssertionError("the choice ran before the refusal")

    monkeypatch.setattr(estimator, "_choose", never)
    Xd = da.from_array(np.random.default_rng(0).normal(size=(400, 2)), chunks=(100, 2))
    with pytest.raises(InvalidParameterError, match=match):
        KernelKGroups("auto", noise="auto", engine=engine).fit(Xd)


def test_n_clusters_auto_fits_every_row_in_the_geometry_where_k_was_found():
    """Raw wine's columns hide its cultivars; k is found on the columns standardized.
    As in memory, the Dask fit of every row runs there (its rows mapped lazily), and
    predict maps new rows the same way; a dask DataFrame keeps its column names. In X's
    own units the same k falls below 0.5."""
    dd = pytest.importorskip("dask.dataframe")
    from sklearn.datasets import load_wine
    from sklearn.metrics import adjusted_rand_score

    frame, y = load_wine(return_X_y=True, as_frame=True)
    for Xd in (da.from_array(frame.to_numpy(), chunks=(60, 13)),
               dd.from_pandas(frame, npartitions=3)):
        est = KernelKGroups("auto", random_state=0).fit(Xd)
        labels = np.asarray(est.labels_.compute())
        assert est.engine_ == "dask" and est.n_clusters_ == 3
        assert est.n_clusters_choice_.geometry == "standardized"
        assert adjusted_rand_score(y, labels) > 0.85 and est.n_features_in_ == 13
        np.testing.assert_array_equal(np.asarray(est.predict(Xd).compute()), labels)
    assert list(est.feature_names_in_) == list(frame.columns)
    raw = KernelKGroups(3, engine="dask", random_state=0).fit(Xd)
    assert adjusted_rand_score(y, np.asarray(raw.labels_.compute())) < 0.5


def test_take_reads_in_increasing_order_and_returns_the_rows_in_the_order_asked():
    """Dask.take reads an unordered index in increasing order (one piece per chunk, not
    many) and hands the rows and weights back in the order of the index."""
    from kgroups._input import DASK

    X = da.from_array(np.arange(2000.0).reshape(1000, 2), chunks=(10, 2))
    w = da.from_array(np.arange(1000.0), chunks=10)
    idx = np.random.default_rng(0).permutation(1000)[:500]
    Xs, ws = DASK.take(X, w, idx)
    np.testing.assert_array_equal(Xs, np.stack([2.0 * idx, 2.0 * idx + 1], axis=1))
    np.testing.assert_array_equal(ws, idx.astype(float))
