"""Kernels run compiled or as Python (``kgroups._kernels.jit``), as the user's setting
``kernels`` says (``kgroups.config_context``): the same numbers either way, the setting
reaches Dask's workers, and tiny calls in a fresh process never load numba."""

import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups import (KernelKGroups, KernelKMeans, config_context, disco, energy_distance,
                     energy_hclust, energy_test, get_config, set_config, within_energy)
from kgroups._kernels import jit as _jit, held_dense as dense

from tests._helpers import SEMIS, blobs, sparse_psd_gram


def both_ways(fn):
    """``fn()`` with the kernels as Python, then compiled, through the user's setting."""
    with config_context(kernels="python"):
        as_python = fn()
    with config_context(kernels="compiled"):
        compiled = fn()
    return as_python, compiled


def assert_identical(a, b, what):
    """Equal bit for bit (NaN where NaN), shapes and dtypes included."""
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, what
    assert np.array_equal(a, b, equal_nan=True), f"{what}: {a!r} != {b!r}"


def fitted(cls, X, w=None, **params):
    est = cls(**params).fit(X, sample_weight=w)
    Xn = X[:7]
    return {"labels": est.labels_, "objective": est.objective_, "W": est.within_energy_,
            "n_moves": np.array(est.n_moves_),
            "predict": est.predict(Xn) if not sp.issparse(X) else est.labels_,
            "transform": est.transform(Xn) if not sp.issparse(X) else est.objective_}


def assert_same_fit(make):
    py, jit = both_ways(make)
    for key in py:
        assert_identical(py[key], jit[key], key)


FITS = [(cls, engine, semi, params, weighted)
        for cls in (KernelKGroups, KernelKMeans)
        for engine in ("dense", "matrix-free", "low-rank")
        for semi, params in SEMIS
        for weighted in (False, True)
        if not (engine == "low-rank" and semi in ("localized", "sinusoidal"))
        and not (cls is KernelKMeans and semi == "sinusoidal")]


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")  # indefinite
@pytest.mark.parametrize("cls, engine, semi, params, weighted", FITS,
                         ids=[f"{c.__name__}-{e}-{s}{p}-{'w' if w else 'u'}"
                              for c, e, s, p, w in FITS])
def test_a_fit_is_identical_as_python_and_compiled(cls, engine, semi, params, weighted):
    X, _ = blobs(40, 3, 3, seed=len(semi) + 7 * weighted, spread=2.0)
    w = np.random.default_rng(5).uniform(0.5, 2.0, 40) if weighted else None
    extra = {"n_components": 12} if engine == "low-rank" else {}
    assert_same_fit(lambda: fitted(cls, X, w, n_clusters=3, engine=engine, semimetric=semi,
                                   random_state=1, n_init=3, **params, **extra))


@pytest.mark.parametrize("init", ["random", "k-means++", "spectral", "given"])
def test_every_start_is_identical_as_python_and_compiled(init):
    X, _ = blobs(50, 2, 4, seed=11, spread=2.5)
    start = np.random.default_rng(0).integers(0, 4, (3, 50)) if init == "given" else init
    assert_same_fit(lambda: fitted(KernelKGroups, X, n_clusters=4, init=start,
                                   random_state=2, n_init=3))


@pytest.mark.parametrize("cls", [KernelKGroups, KernelKMeans])
def test_precomputed_and_sparse_are_identical_as_python_and_compiled(cls):
    X, _ = blobs(40, 3, 3, seed=4)
    D = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    assert_same_fit(lambda: fitted(cls, D, n_clusters=3, semimetric="precomputed",
                                   random_state=0, n_init=2))
    G = sparse_psd_gram(60, 3, 9)
    assert_same_fit(lambda: fitted(cls, G, n_clusters=3, kernel="precomputed",
                                   engine="sparse", random_state=0, n_init=2))


def test_energy_statistics_are_identical_as_python_and_compiled():
    rng = np.random.default_rng(8)
    x, y = rng.normal(size=(30, 3)), rng.normal(0.5, 1.0, (25, 3))
    labels = rng.integers(0, 3, 30)
    def stats():
        test = energy_test(x, y, n_permutations=19, random_state=0)
        dc = disco(x, labels, n_permutations=19, random_state=0)
        tree = energy_hclust(x, 3)
        return {"energy_distance": energy_distance(x, y, alpha=0.5),
                "within_energy": within_energy(x, labels, semimetric="gaussian"),
                "energy_test": test.permutation_statistics, "disco": dc.permutation_statistics,
                "hclust": tree.distances, "hclust labels": tree.labels}

    py, jit = both_ways(stats)
    for key in py:
        assert_identical(py[key], jit[key], key)


def jit_disabled():
    from numba import config

    return bool(config.DISABLE_JIT)


def test_a_kernel_runs_as_python_without_numba():
    kernel = _jit.Kernel(dense.m_dense_rows.py_func, tag="probe", cache=False)
    B, labels = np.arange(16.0).reshape(4, 4), np.array([0, 1, 0, 1])
    M, M2 = np.zeros((2, 4)), np.zeros((2, 4))
    with _jit.as_python():
        kernel(B, labels, M, 0, 4)
    assert kernel._dispatcher is None  # nothing compiled
    np.testing.assert_array_equal(M, [[B[i, [0, 2]].sum() for i in range(4)],
                                      [B[i, [1, 3]].sum() for i in range(4)]])
    kernel(B, labels, M2, 0, 4)
    assert_identical(M2, M, "compiled")
    assert kernel._dispatcher is not None
    if not jit_disabled():  # NUMBA_DISABLE_JIT=1: numba.njit gives the function back
        assert kernel.dispatcher.py_func.__qualname__ == "m_dense_rows__probe"


def test_compiled_kernels_call_the_compiled_kernels_they_name():
    from kgroups._kernels import gain as _gain

    if jit_disabled():
        pytest.skip("no dispatchers without the JIT")
    disp = dense.sweep_dense.dispatcher
    glob = disp.py_func.__globals__
    assert glob["best_move"] is _gain.best_move.dispatcher
    assert glob is not vars(dense)  # the module keeps its kernels
    # a part of a parallel kernel lets the other workers run while it does
    assert dense.m_dense_rows.dispatcher.targetoptions.get("nogil")


def read_only(a):
    a = np.array(a)
    a.setflags(write=False)
    return a


def compiled_signatures():
    """Every kgroups kernel made compiled so far, with the argument types it holds
    compiled code for (compiled here or loaded from numba's disk cache)."""
    return {(kern.__module__, kern.__qualname__): set(kern._dispatcher.signatures)
            for name, module in list(sys.modules.items()) if name.startswith("kgroups.")
            for kern in vars(module).values()
            if isinstance(kern, _jit.Kernel) and not isinstance(kern, _jit.Intrinsic)
            and kern._dispatcher is not None}


def new_signatures(run):
    """The (kernel, argument types) that ``run()`` adds to :func:`compiled_signatures`."""
    before = compiled_signatures()
    run()
    return sorted((key[1], str(sig)) for key, sigs in compiled_signatures().items()
                  for sig in sigs - before.get(key, set()))


def test_inputs_of_any_layout_run_the_kernels_compiled_for_c_arrays(tmp_path):
    """numba compiles a kernel once per type of its arguments, and an array's type
    holds its layout and whether it is read-only. A Fortran-ordered, strided or
    read-only input (data, a precomputed matrix, a model loaded as a memory map) runs
    the kernels compiled for C-ordered writable ones, without compiling its own."""
    import joblib

    if jit_disabled():
        pytest.skip("no compilation without the JIT")
    X, _ = blobs(60, 3, 3, seed=7)
    A = np.sqrt(((X[:, None] - X[None]) ** 2).sum(-1))
    strided = np.repeat(X, 2, axis=1)[:, ::2]  # X's values, every other column

    w = np.random.default_rng(8).uniform(0.5, 2.0, 60)
    w_strided = np.repeat(w, 2)[::2]  # w's values, every other entry of a longer array

    def fits(X, A, frozen, w=w):
        for engine in ("dense", "matrix-free", "low-rank"):
            for n_init in (1, 3):  # one start, and starts sharing their pass
                est = KernelKGroups(3, engine=engine, n_init=n_init, random_state=0)
                est.fit(X, sample_weight=w)
                if frozen:  # every array of the model read-only
                    joblib.dump(est, tmp_path / "model")
                    est = joblib.load(tmp_path / "model", mmap_mode="r")
                est.predict(X[:5])
        KernelKGroups(3, semimetric="precomputed", n_init=2, random_state=0).fit(A, sample_weight=w)
        KernelKGroups(3, kernel="precomputed", engine="sparse", n_init=2,
                      random_state=0).fit(sp.csr_matrix(np.exp(-A * A)), sample_weight=w)

    with config_context(kernels="compiled"):
        fits(X, A, frozen=False)
        # a kernel called with a new type of array is seen (int16: no fit makes one)
        probe = new_signatures(lambda: dense.move_rows_dense(
            np.zeros((2, 2), np.int16), *[np.zeros(0, np.int64)] * 3, np.zeros((1, 2))))
        assert [(name, "int16" in sig) for name, sig in probe] == [("move_rows_dense", True)]
        other = new_signatures(lambda: (
            fits(np.asfortranarray(X), np.asfortranarray(A), frozen=True),
            fits(read_only(X), read_only(A), frozen=True, w=read_only(w)),
            fits(strided, A.T, frozen=False, w=w_strided)))
    assert other == []


@pytest.fixture
def fresh_tier(monkeypatch):
    """The tiering state of a process that has run no kernel yet."""
    monkeypatch.setattr(_jit, "_STATE", {"compiled": False, "python_seconds": 0.0})
    return _jit._STATE


def test_tiered_runs_tiny_work_as_python_until_its_budget_is_spent(fresh_tier, monkeypatch):
    modes = []

    def probe():
        modes.append(_jit._PYTHON.get())

    with _jit.tiered(_jit.PYTHON_MAX_WORK):
        probe()
    with _jit.tiered(_jit.PYTHON_MAX_WORK + 1):
        probe()
    assert modes == [True, False] and fresh_tier["python_seconds"] > 0
    fresh_tier["python_seconds"] = _jit.PYTHON_BUDGET
    with _jit.tiered(1):
        probe()
    fresh_tier.update(python_seconds=0.0, compiled=True)
    with _jit.tiered(1):
        probe()
    assert modes[2:] == [False, False]
    fresh_tier["compiled"] = False
    with _jit.as_python(False), _jit.tiered(1):  # an explicit choice is kept
        probe()
    with _jit.tiered(1), _jit.tiered(10**9):  # so is tiered's own, nested, either way
        probe()
    with _jit.tiered(10**9), _jit.tiered(1):
        probe()
    assert modes[4:] == [False, True, False]


def test_making_a_dispatcher_ends_the_python_tier(fresh_tier):
    kernel = _jit.Kernel(dense.m_dense_rows.py_func, tag="probe2", cache=False)
    assert _jit.python_pays(1)
    kernel.dispatcher
    assert fresh_tier["compiled"] and not _jit.python_pays(1)


FRESH = textwrap.dedent("""
    import sys
    import numpy as np
    from kgroups import KernelKGroups
    X = np.random.default_rng(0).random(({n}, 2))
    est = KernelKGroups(3, random_state=0).fit(X)
    est.predict(X[:5]); est.transform(X[:5]); est.score(X[:5])
    print(sorted(m for m in ("numba", "llvmlite") if m in sys.modules))
""")


STATISTICS = textwrap.dedent("""
    import sys
    import numpy as np
    from kgroups import disco, energy_distance, energy_hclust, energy_test, pairwise
    rng = np.random.default_rng(0)
    x, y = rng.random(({n}, 3)), rng.random((25, 3))
    energy_distance(x, y); energy_test(x, y, random_state=0); pairwise(x)
    disco(np.vstack([x, y]), [0] * {n} + [1] * 25, random_state=0); energy_hclust(x, 3)
    print(sorted(m for m in ("numba", "llvmlite") if m in sys.modules))
""")


@pytest.mark.parametrize("n, loaded", [(50, "[]"), (400, "['llvmlite', 'numba']")])
@pytest.mark.parametrize("script", [FRESH, STATISTICS], ids=["fit", "statistics"])
def test_a_tiny_call_in_a_fresh_process_does_not_load_numba(script, n, loaded):
    out = subprocess.run([sys.executable, "-c", script.format(n=n)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.strip() == loaded


def test_the_setting_is_seen_scoped_and_checked():
    assert get_config() == {"kernels": "auto"}
    with config_context(kernels="python"):
        assert get_config()["kernels"] == "python"
        with config_context(kernels="compiled"):
            assert get_config()["kernels"] == "compiled"
        assert get_config()["kernels"] == "python"
    assert get_config()["kernels"] == "auto"
    with pytest.raises(ValueError, match=r"^config_context: kernels='fast' should be None or "
                       r"one of 'auto', 'compiled', 'python'"):
        config_context(kernels="fast").__enter__()
    with pytest.raises(ValueError, match="^set_config: kernels='numba'"):
        set_config(kernels="numba")
    assert get_config() == {"kernels": "auto"}


def test_the_setting_decides_every_call_and_tiered_follows_it(monkeypatch):
    """"python": a kernel called anywhere runs as its Python function (no dispatcher
    made); "compiled": a tiny call compiles; set_config reaches another thread."""
    import threading

    kernel = _jit.Kernel(dense.m_dense_rows.py_func, tag="setting", cache=False)
    B, labels = np.arange(16.0).reshape(4, 4), np.array([0, 1, 0, 1])
    with config_context(kernels="python"):
        kernel(B, labels, np.zeros((2, 4)), 0, 4)
        with _jit.tiered(10**12):
            assert _jit._PYTHON.get() is True
    assert kernel._dispatcher is None
    with config_context(kernels="compiled"), _jit.tiered(1):
        assert _jit._PYTHON.get() is False
    seen = []
    try:
        set_config(kernels="python")
        t = threading.Thread(target=lambda: seen.append(get_config()["kernels"]))
        t.start()
        t.join()
    finally:
        set_config(kernels="auto")
    assert seen == ["python"]


def test_the_setting_reaches_dask_workers():
    """A Dask task made inside config_context runs with that setting on a worker thread
    (where the context of the caller is not), and the fit is the same in both modes."""
    da = pytest.importorskip("dask.array")
    import dask

    from kgroups._config import carried

    with config_context(kernels="python"):
        task = dask.delayed(carried(lambda: get_config()["kernels"]), pure=True)()
    assert task.compute(scheduler="threads") == "python"
    X, _ = blobs(400, 3, 3, seed=7, spread=2.0)
    fits = both_ways(lambda: KernelKGroups(3, n_components=16, random_state=0)
                     .fit(da.from_array(X, chunks=100)).labels_.compute())
    assert_identical(*fits, "dask labels")
