"""Tests of kgroups._stats.pairsum: the pair-sum layer under the energy statistics.

Group sums are checked against double loops over the pairs with the semimetric
written out here (not kgroups._semimetrics); the Dask implementation against the
NumPy one; the dispatch, the refusals and the import structure (no cycle, Dask
imported only for dask input) directly.
"""

import ast
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from kgroups._stats import dispatch, pairsum
from kgroups._stats.pairsum import NumpyPairSums, Part, semimetric_spec
from kgroups._validation import InvalidParameterError

SRC = Path(__file__).resolve().parents[1] / "src" / "kgroups"


def rho_bf(x, y, semimetric, alpha=1.0, sigma=1.0):
    r = math.sqrt(sum((a - b) ** 2 for a, b in zip(x, y)))
    return {"energy": lambda: r**alpha,
            "gaussian": lambda: 2 - 2 * math.exp(-(r**2) / (2 * sigma**2)),
            "laplacian": lambda: 2 - 2 * math.exp(-r / (2 * sigma))}[semimetric]()


def sums_bf(Z, codes, w, k, **kw):
    P = np.zeros((k, k))
    for a in range(len(Z)):
        for b in range(len(Z)):
            P[codes[a], codes[b]] += w[a] * w[b] * rho_bf(Z[a], Z[b], **kw)
    return P


def spec(semimetric="energy", alpha=1.0, sigma=1.0, precomputed=False):
    return semimetric_spec("test", semimetric, alpha, sigma, 1.0, precomputed)


def tiny(seed=0):
    rng = np.random.default_rng(seed)
    X, Y = rng.normal(size=(9, 2)), rng.normal(0.5, size=(6, 2))
    lab = rng.choice(np.array(["u", "v", "w"]), 9)
    wx, wy = rng.uniform(0.2, 3.0, 9), rng.uniform(0.2, 3.0, 6)
    # groups: u, v, w of X (sorted labels), then Y as one group
    codes = np.concatenate([np.searchsorted(["u", "v", "w"], lab), np.full(6, 3)])
    return X, Y, lab, wx, wy, codes


# ------------------------------------------------------------------ NumPy vs brute force
@pytest.mark.parametrize("kw", [{"semimetric": "energy", "alpha": 1.0},
                                {"semimetric": "energy", "alpha": 0.6},
                                {"semimetric": "gaussian", "sigma": 0.8},
                                {"semimetric": "laplacian", "sigma": 1.5}])
def test_group_sums_equal_double_loop(kw):
    X, Y, lab, wx, wy, codes = tiny()
    parts = [Part(X, "X", labels=lab, weights=wx), Part(Y, "Y", weights=wy)]
    prep = dispatch.prepare(parts, spec(**kw), "test")
    assert (prep.k, prep.n) == (4, 15)
    np.testing.assert_array_equal(prep.codes, codes)
    np.testing.assert_allclose(prep.group_weights,
                               np.bincount(codes, np.concatenate([wx, wy])), rtol=1e-14)
    np.testing.assert_array_equal(prep.group_sizes, np.bincount(codes))
    assert list(prep.label_values) == ["u", "v", "w"]
    P = sums_bf(np.vstack([X, Y]), codes, np.concatenate([wx, wy]), 4, **kw)
    np.testing.assert_allclose(prep.backend.group_sums(prep), P, rtol=1e-12)
    np.testing.assert_allclose(prep.backend.group_sums(prep, "within"), np.diag(np.diag(P)),
                               rtol=1e-12)
    np.testing.assert_allclose(prep.backend.group_sums(prep, "between"),
                               P - np.diag(np.diag(P)), rtol=1e-12)


@pytest.mark.parametrize("kw", [{"semimetric": "energy", "alpha": 1.0},
                                {"semimetric": "energy", "alpha": 0.6},
                                {"semimetric": "gaussian", "sigma": 0.8},
                                {"semimetric": "laplacian", "sigma": 1.5}])
def test_pass_over_pairs_equals_double_loop(monkeypatch, kw):
    """The sums from the matrix-free engine's pass over the unordered pairs (taken
    from PARALLEL_MIN_WORK pairs on; here from any) equal the double loop, with two
    points 1e-9 apart at 1e6 from the rest (their distance exact: no norm expansion)."""
    monkeypatch.setattr(pairsum, "PARALLEL_MIN_WORK", 0)
    X, Y, lab, wx, wy, codes = tiny(3)
    X[1] = X[0] + 1e6
    X[2] = X[1] + 1e-9
    parts = [Part(X, "X", labels=lab, weights=wx), Part(Y, "Y", weights=wy)]
    prep = dispatch.prepare(parts, spec(**kw), "test")
    P = sums_bf(np.vstack([X, Y]), codes, np.concatenate([wx, wy]), 4, **kw)
    np.testing.assert_allclose(prep.backend.group_sums(prep), P, rtol=1e-12, atol=0)
    np.testing.assert_allclose(prep.backend.group_sums(prep, "within"), np.diag(np.diag(P)),
                               rtol=1e-12, atol=0)


@pytest.mark.parametrize("n, k, name, value", [(120, 4, "BLOCK_ELEMENTS", 50),
                                              (2400, 2, "PARALLEL_MIN_WORK", 2**62)])
def test_sums_do_not_depend_on_the_path(monkeypatch, n, k, name, value):
    """Blocks of one or a few rows give the sums of the default blocks; past
    PARALLEL_MIN_WORK pairs (every worker), the pass over the pairs gives the sums of
    the blocks of semimetric values (all, and each group's own pairs)."""
    rng = np.random.default_rng(n)
    X = rng.normal(size=(n, 4))
    lab = rng.integers(0, k, n)
    w = rng.uniform(0.5, 2.0, n)
    prep = dispatch.prepare([Part(X, labels=lab, weights=w)], spec(alpha=1.3), "test")
    ref = {which: prep.backend.group_sums(prep, which) for which in ("all", "within")}
    monkeypatch.setattr(pairsum, name, value)
    for which in ("all", "within"):
        np.testing.assert_allclose(prep.backend.group_sums(prep, which), ref[which],
                                   rtol=1e-12)


def test_precomputed_dense_and_sparse_and_pooled():
    X, _, lab, wx, _, codes = tiny(2)
    D = np.array([[rho_bf(a, b, "energy", 0.5) for b in X] for a in X])
    P = sums_bf(X, codes[:9], wx, 3, semimetric="energy", alpha=0.5)
    for A in (D, sp.csr_matrix(D)):
        prep = dispatch.prepare([Part(A, labels=lab, weights=wx)], spec(precomputed=True),
                               "test")
        np.testing.assert_allclose(prep.backend.group_sums(prep) * prep.factor, P,
                                   rtol=1e-12)
        np.testing.assert_allclose(prep.backend.pooled(prep) * prep.factor, D, rtol=1e-15)


def test_pooled_and_relabelled_sums():
    X, Y, lab, _, _, codes = tiny(3)
    prep = dispatch.prepare([Part(X, "X", labels=lab), Part(Y, "Y")], spec(alpha=0.7), "test")
    Z = np.vstack([X, Y])
    D = prep.backend.pooled(prep)
    brute = np.array([[rho_bf(a, b, "energy", 0.7) for b in Z] for a in Z])
    np.testing.assert_allclose(D, brute, rtol=1e-12, atol=1e-14)
    rng = np.random.default_rng(4)
    batch = np.array([rng.permutation(codes) for _ in range(5)])
    got = dispatch.relabelled(prep.backend, D, batch, 4, prep.backend.row_sums(D))
    assert got.shape == (5, 4, 4)
    part = prep.backend.relabelled_sums(D, batch, 4, 2)   # all but group 2's column
    np.testing.assert_array_equal(part[:, :, 2], 0.0)
    np.testing.assert_allclose(part[:, :, [0, 1, 3]], got[:, :, [0, 1, 3]], rtol=1e-13)
    for b in range(5):
        np.testing.assert_allclose(got[b], sums_bf(Z, batch[b], np.ones(15), 4,
                                                   semimetric="energy", alpha=0.7),
                                   rtol=1e-12)


def test_rescaling_is_exact_and_reported():
    X, _, lab, wx, _, _ = tiny(5)
    base = dispatch.prepare([Part(X, labels=lab, weights=wx)], spec(alpha=0.5), "test")
    big = dispatch.prepare([Part(X * 1e200, labels=lab, weights=wx * 1e300)], spec(alpha=0.5),
                          "test")
    c = 2.0 ** math.floor(math.log2(np.max(np.abs(X * 1e200))))
    assert big.factor == pytest.approx(c ** 0.5, rel=1e-15)
    assert big.weight_scales[0] == 2.0 ** math.floor(math.log2(np.max(wx * 1e300)))
    # the sums of the rescaled input times factor: the true sums with weights 1e300 / scale
    ratio = big.backend.group_sums(big) * big.factor / base.backend.group_sums(base)
    np.testing.assert_allclose(ratio, (1e200) ** 0.5 * (1e300 / big.weight_scales[0]) ** 2,
                               rtol=1e-12)
    # non-homogeneous semimetrics are not rescaled
    g = dispatch.prepare([Part(X * 1e200)], spec("gaussian"), "test")
    assert g.factor == 1.0 and g.weight_scales[0] == 1.0


# ------------------------------------------------------------------ dispatch
def test_kind_table_and_choice():
    assert set(dispatch.IMPLEMENTATIONS) >= {"numpy", "dask"}
    assert dispatch.array_kind(np.ones(3), [1.0], None, sp.eye(2)) == "numpy"
    assert isinstance(dispatch.choose({"X": np.ones((2, 2))}, "test"), NumpyPairSums)

    class FakeDask:  # a dask collection as is_dask_collection sees one
        def __dask_graph__(self):
            return {}

    assert dispatch.array_kind(np.ones(3), FakeDask()) == "dask"
    with pytest.raises(InvalidParameterError,
                       match=r"^g: sample_weight_x is a dask FakeDask; g runs on in-memory"):
        dispatch.choose({"X": np.ones((2, 2)), "sample_weight_x": FakeDask()}, "g",
                       kinds=("numpy",))


def test_dask_implementation_equals_numpy():
    da = pytest.importorskip("dask.array")
    X, Y, lab, wx, wy, _ = tiny(6)
    parts_np = [Part(X, "X", labels=lab, weights=wx), Part(Y, "Y", weights=wy)]
    parts_da = [Part(da.from_array(X, chunks=(4, 2)), "X", labels=lab,
                     weights=da.from_array(wx, chunks=4)), Part(Y, "Y", weights=wy)]
    a = dispatch.prepare(parts_np, spec(alpha=1.2), "test")
    b = dispatch.prepare(parts_da, spec(alpha=1.2), "test")
    assert b.backend.kind == "dask" and b.codes is None
    assert (b.n, b.k, list(b.label_values)) == (a.n, a.k, list(a.label_values))
    np.testing.assert_allclose(b.group_weights, a.group_weights, rtol=1e-14)
    np.testing.assert_array_equal(b.group_sizes, a.group_sizes)
    for which in ("all", "within", "between"):
        np.testing.assert_allclose(b.backend.group_sums(b, which), a.backend.group_sums(a, which),
                                   rtol=1e-12, atol=0)
    with pytest.raises(InvalidParameterError, match="n_permutations=3 with dask input"):
        dispatch.prepare(parts_da, spec(), "test", n_permutations=3)
    with pytest.raises(InvalidParameterError, match="pooled n x n .* not built for dask"):
        b.backend.pooled(b)


def test_dask_is_imported_only_for_dask_input():
    code = ("import sys, numpy as np, kgroups; "
            "kgroups.energy_distance(np.zeros(3), np.ones(2)); kgroups.disco(np.arange(4.0), "
            "[0, 0, 1, 1], n_permutations=9); kgroups.energy_test([0.0, 1.0], [2.0], "
            "n_permutations=0); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('dask', "
            "'distributed') or m.endswith('pairsum_dask')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


# ------------------------------------------------------------------ import structure
def _imports(path):
    """Modules of kgroups that ``path`` imports anywhere (top level or inside functions)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(SRC.parent).with_suffix("").parts[:-1])
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[:len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.add(mod)
            out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return {m for m in out if m.startswith("kgroups")}


def test_statistics_import_the_layer_and_nothing_dask():
    for name in ("energy.py", "disco.py"):
        mods = _imports(SRC / "_stats" / name)
        assert {"kgroups._stats.pairsum", "kgroups._stats.dispatch"} <= mods, name
        assert not [m for m in mods if "dask" in m or "cuda" in m
                    or m.startswith("kgroups._engines")], (name, mods)


def test_layer_never_imports_the_statistics_and_has_no_cycle():
    layer = {p.name: _imports(p) for p in (SRC / "_stats").glob("pairsum*.py")}
    assert set(layer) == {"pairsum.py", "pairsum_dask.py", "pairsum_cuda.py"}
    for name, mods in layer.items():
        assert not {m for m in mods if m.startswith(("kgroups._stats.energy",
                                                     "kgroups._stats.disco",
                                                     "kgroups._stats.dispatch"))}, name
    # the Dask and CUDA implementations depend on the interface, never the other way
    # round; the dispatch imports them by name (tests/test_layers.py counts that)
    assert not [m for m in layer["pairsum.py"] if "pairsum_dask" in m or "pairsum_cuda" in m]
    assert "kgroups._stats.pairsum" in layer["pairsum_dask.py"]
    assert "kgroups._stats.pairsum" in layer["pairsum_cuda.py"]
