"""The front door itself: the constraint table, its rules and who may reach the engines."""

import inspect
import pathlib
import re

import numpy as np
import pytest

import kgroups
from kgroups import _validation as v

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_integer_rule():
    rule = v.Integer(1)
    assert rule(1) and rule(np.int64(3)) and rule(np.uint8(2))
    assert not rule(True) and not rule(np.bool_(True)) and not rule(2.0) and not rule(0)
    assert not rule("3") and not rule(None)
    assert str(v.Integer(1, 5)) == "an integer in [1, 5]"


def test_real_rule():
    rule = v.Real(0, 2, "right")
    assert rule(2) and rule(0.5) and rule(np.float32(1.0))
    assert not rule(0) and not rule(2.0000001) and not rule(float("nan")) and not rule(True)
    assert not v.Real()(float("inf"))
    assert str(rule) == "a number in (0, 2]"
    # numbers numpy does not compute with, and an integer beyond float64, are refused
    from decimal import Decimal
    from fractions import Fraction
    assert not rule(Fraction(1, 2)) and not rule(Decimal("0.5")) and not v.Real()(10 ** 400)
    X = np.random.default_rng(0).normal(size=(20, 2))
    with pytest.raises(v.InvalidParameterError, match=r"alpha=Fraction\(1, 2\) should be"):
        kgroups.KernelKGroups(2, alpha=Fraction(1, 2)).fit(X)


def test_error_names_owner_parameter_value_and_expectation():
    with pytest.raises(v.InvalidParameterError) as err:
        v.validate_params("KernelKGroups", {"engine": "tpu"})
    msg = str(err.value)
    assert msg.startswith("KernelKGroups: engine='tpu' should be one of")
    assert isinstance(err.value, ValueError) and isinstance(err.value, TypeError)


def test_zero_weights_only_where_allowed():
    w = np.array([0.0, -0.0, 2.0])
    np.testing.assert_array_equal(v.check_sample_weight(w, 3, allow_zero=True), w)
    with pytest.raises(v.InvalidParameterError, match=r"sample_weight\[0\]=0.0; .* > 0"):
        v.check_sample_weight(w, 3)
    with pytest.raises(v.InvalidParameterError, match="every sample_weight is zero"):
        v.check_sample_weight(np.zeros(3), 3, allow_zero=True)
    with pytest.raises(v.InvalidParameterError, match=r"sample_weight\[1\]=-1e-300; .* >= 0"):
        v.check_sample_weight([1.0, -1e-300], 2, allow_zero=True)


def test_complex_weights_are_refused_not_cast():
    """numpy would keep the real part of complex weights (a ComplexWarning): refused."""
    for w in (np.full(3, 1j), np.array([1, 2, 3j], dtype=object)):
        with pytest.raises(v.InvalidParameterError, match="should be an array of real numbers"):
            v.check_sample_weight(w, 3)
    np.testing.assert_array_equal(v.check_sample_weight(["1", "2.5", 3], 3), [1.0, 2.5, 3.0])


@pytest.mark.parametrize("w, expected", [
    ([1.0, 3.0, 0.0], 1.0),                # safe: unchanged
    ([1e40, 3e39], 2.0 ** 132),            # the largest's power of two, as pow2_scale
    ([1.0, 1e-300], 2.0 ** -498),          # 1e300 apart: half-way between the exponents
    ([2.0 ** 700, 2.0 ** -100, 0.0], 2.0 ** 301),  # frexp exponents 701 and -99
])
def test_weight_scale_keeps_products_of_two_weights_normal(w, expected):
    w = np.asarray(w)
    c = v.pow2_weight_scale(w)
    assert c == expected
    pos = w[w > 0] / c
    assert np.all(np.isfinite(pos * pos.max())) and np.all(pos * pos.min() >= 2.0 ** -1022)


def test_did_you_mean():
    params = ("n_clusters", "alpha", "random_state", "semimetric")
    assert v.did_you_mean("k", params) == " (did you mean n_clusters?)"
    assert v.did_you_mean("alpah", params) == " (did you mean alpha?)"
    assert v.did_you_mean("seed", params) == " (did you mean random_state?)"
    assert v.did_you_mean("zzz", params) == ""
    assert v.did_you_mean("k", ("alpha",)) == ""  # no n_clusters to suggest


def test_arrays_are_described_by_shape_not_dumped():
    assert v.describe(np.zeros((100, 3))) == "an array of shape (100, 3) and dtype float64"
    assert len(v.describe("x" * 500)) <= 60


def test_unknown_parameter_is_a_programming_error():
    with pytest.raises(KeyError):
        v.validate_params("KernelKGroups", {"no_such_parameter": 1})


def _public_callables():
    import kgroups.graph
    import kgroups.metrics

    for module in (kgroups, kgroups.graph, kgroups.metrics):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) and hasattr(obj, "fit"):
                yield name, obj
            elif inspect.isfunction(obj) and name in v.PARAMETER_CONSTRAINTS:
                yield name, obj


@pytest.mark.parametrize("name, obj", list(_public_callables()))
def test_every_parameter_of_a_public_callable_has_a_rule(name, obj):
    if inspect.isclass(obj):
        names = list(obj().get_params())
    else:
        names = [p.name for p in inspect.signature(inspect.unwrap(obj)).parameters.values()
                 if p.kind != inspect.Parameter.VAR_KEYWORD]
    row = v.PARAMETER_CONSTRAINTS[name]
    missing = [p for p in names if p not in row]
    assert not missing, f"{name}: parameters without a constraint: {missing}"


def test_estimators_validate_only_through_the_table():
    """One integer rule and one symmetry tolerance in the code base."""
    src = ROOT / "src" / "kgroups"
    offenders = []
    for path in src.rglob("*.py"):
        if path.name == "_validation.py":
            continue
        text = path.read_text()
        if re.search(r"isinstance\([^)]*numbers\.Integral", text):
            offenders.append(f"{path.relative_to(ROOT)}: its own integer rule")
        if re.search(r"abs\(\s*(\w+)\s*-\s*\1\.T\s*\)", text):
            offenders.append(f"{path.relative_to(ROOT)}: its own symmetry check")
    assert not offenders, offenders


def test_only_estimators_and_backends_reach_drivers_and_engines():
    """No module outside the estimator layer reaches the driver, the engines or the
    kernels (``run_starts``, ``_engines``, ``_kernels``, ``_driver`` imports)."""
    # _hierarchical.py is the estimator layer of its own numba kernel; _semimetrics/
    # computes semimetric blocks with the kernels; _choose_k*.py only ask _memory
    # whether their n x n matrix fits; _cli_options.py reads the engines' names from
    # the registry; _driver.py is the one run loop over the engines; _input_device.py
    # checks and views data on a CUDA device with the device kernels; _predict.py
    # places new rows with the fitted engine's predictor, under the kernels' size
    # tiers (kgroups._kernels.jit.tiered); _fitting.py is the estimators' fit, which
    # _base.py dresses in scikit-learn's machinery, and _noise.py its runs with points
    # set aside (the trimmed runs of the engine, through the driver). Inside _engines/,
    # _kernels/ and _stats/ the layers are tests/test_layers.py's to check.
    allowed = {"_base.py", "_fitting.py", "_predict.py", "_kgroups.py", "_kernel_kmeans.py", "_init.py",
               "_progress.py", "_validation.py", "_hierarchical.py", "_input.py",
               "_input_device.py", "_driver.py", "_cli_options.py", "_noise.py"}
    pattern = re.compile(r"\b(run_starts)\b|(from|import) [.\w]*\b_(engines|kernels|driver)\b")
    # bench_gpu.py times the GPU engine's pair pass itself, below the public API, and
    # bench_roofline.py the matrix-free engine's and its pass's inner loop (the kernels
    # of _kernels/pairs_sym.py), bench_launch.py the start of the kernels' ranges on
    # the worker threads (_kernels/parallel.py); the command line's calibrate measures
    # the engines' rates (_engines.calibration); bench_predict.py the predictor's two
    # paths on the same fit (_engines/engine.py's RawDataPredictor), profile_gpu.py the
    # GPU engine's builds of M under Nsight Compute
    allowed_benchmarks = {"bench_gpu.py", "bench_roofline.py", "bench_launch.py",
                          "bench_predict.py", "profile_gpu.py"}
    allowed_lines = {"from ._engines import calibration, registry"}
    # the choice of k's fits run through the estimator's engine and run loop (one
    # private path for every k, X validated once)
    allowed_files = {pathlib.Path("src/kgroups/_choose_k/fits.py")}
    offenders = []
    for base in (ROOT / "src" / "kgroups", ROOT / "benchmarks"):
        for path in base.rglob("*.py"):
            rel = path.relative_to(ROOT)
            if any(part.startswith(".") for part in rel.parts):
                continue    # benchmarks/.data: the peers' environments, not the project's
            if path.parent.name in ("_engines", "_kernels", "_stats", "_semimetrics") or (
                    path.parent == ROOT / "src" / "kgroups" and path.name in allowed) or (
                    path.parent == ROOT / "benchmarks" and path.name in allowed_benchmarks) or (
                    rel in allowed_files):
                continue
            for no, line in enumerate(path.read_text().splitlines(), 1):
                if pattern.search(line) and line.strip() not in allowed_lines:
                    offenders.append(f"{rel}:{no}: {line.strip()}")
    assert not offenders, "\n".join(offenders)


@pytest.mark.parametrize("n", [1, 3, 127, 128, 129, 300])
def test_max_asymmetry_is_the_brute_force_one(n):
    """The blockwise symmetry check finds the largest |A[i, j] - A[j, i]| and a pair
    where it is, dense (blocks of SYMMETRY_BLOCK rows, any remainder) and sparse."""
    import scipy.sparse as sp

    rng = np.random.default_rng(n)
    A = rng.normal(size=(n, n))
    brute = np.abs(A - A.T)
    worst, i, j = v._max_asymmetry(A)
    assert worst == brute.max() and brute[i, j] == brute.max()
    S = sp.csr_matrix(np.where(rng.random((n, n)) < 0.3, A, 0.0))
    dense = S.toarray()
    worst, i, j = v._max_asymmetry(S)
    assert worst == np.abs(dense - dense.T).max() == abs(dense[i, j] - dense[j, i])
    sym = A + A.T
    assert v._max_asymmetry(sym)[0] == 0.0 and v._max_asymmetry(sp.csr_matrix(sym))[0] == 0.0
