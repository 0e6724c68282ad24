"""The calibration behind engine="auto"'s choice of the GPU engine: the cached file,
its machine and device, the cost model and the choice on both sides of its crossover."""

import json
import logging
import math

import numpy as np
import pytest

from kgroups._engines import calibration
from kgroups._engines.gpu import GpuEngine
from kgroups._engines.matrix_free import MatrixFreeEngine
from kgroups._engines.select import choose_engine

DEVICE = "Test GPU"


def _cal(machine=None, device=DEVICE, cpu=1e9, gpu=1e11, fixed=0.5):
    return calibration.Calibration(
        machine=calibration.this_machine() if machine is None else machine,
        cpu_pairs_per_second=cpu, device=device,
        gpu_pairs_per_second=gpu if device else None,
        gpu_fixed_seconds=fixed if device else None, measured="2026-01-01T00:00:00Z")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A calibration file of its own, nothing measured, no process memo."""
    path = tmp_path / "cal.json"
    monkeypatch.setenv(calibration.ENV, str(path))
    monkeypatch.setattr(calibration, "_MEASURED", {})

    def refuse(gpu_engine=None):
        raise AssertionError("measured")

    monkeypatch.setattr(calibration, "measure", refuse)
    return path


@pytest.fixture
def device(monkeypatch):
    """A usable device named DEVICE (GpuEngine.available and the name patched)."""
    monkeypatch.setattr(GpuEngine, "available", classmethod(lambda cls: True))
    monkeypatch.setattr(calibration, "device_name", lambda: DEVICE)


def test_the_file_round_trips(cache):
    cal = _cal()
    assert calibration.save(cal) == cache
    assert calibration.load() == cal
    assert json.loads(cache.read_text())["format"] == calibration.FORMAT
    cpu_only = _cal(device=None)
    calibration.save(cpu_only, cache)
    assert calibration.load(cache) == cpu_only
    assert calibration.load(cache.with_name("none.json")) is None


def test_the_default_path_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.delenv(calibration.ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert calibration.default_path() == tmp_path / "kgroups" / "calibration.json"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/dir")  # not absolute: ignored (XDG spec)
    assert calibration.default_path().parts[-3:] == (".cache", "kgroups", "calibration.json")
    monkeypatch.setenv(calibration.ENV, str(tmp_path / "x.json"))
    assert calibration.default_path() == tmp_path / "x.json"


@pytest.mark.parametrize("text, field", [
    ("{not json", "cannot be read"),
    ('{"format": 99}', "format=99"),
    ('{"format": 1, "machine": {}, "cpu_pairs_per_second": -3}', "cpu_pairs_per_second=-3"),
    ('{"format": 1, "machine": {}, "cpu_pairs_per_second": 1, "device": "g", '
     '"gpu_pairs_per_second": null, "gpu_fixed_seconds": 0}', "gpu_pairs_per_second=None"),
])
def test_a_bad_file_is_named_or_ignored(cache, caplog, text, field):
    cache.write_text(text)
    with pytest.raises(ValueError, match=f"calibration file {cache}.*{field}"):
        calibration.load(cache, strict=True)
    with caplog.at_level(logging.WARNING, logger="kgroups"):
        assert calibration.load(cache) is None
    assert f"ignoring the calibration file {cache}" in caplog.text


def test_a_calibration_of_this_machine_and_device_is_used(cache, device):
    calibration.save(_cal())
    assert calibration.current(GpuEngine) == _cal()


@pytest.mark.parametrize("other", [
    {"machine": {"host": "elsewhere", "cpu": "another", "cores": 64}},
    {"device": "Another GPU"},
])
def test_a_calibration_of_another_machine_or_device_is_measured_again(cache, device,
                                                                      monkeypatch, caplog,
                                                                      other):
    calibration.save(_cal(**other))
    calls = []
    fresh = _cal(gpu=3e11)
    monkeypatch.setattr(calibration, "measure", lambda g=None: calls.append(g) or fresh)
    with caplog.at_level(logging.WARNING, logger="kgroups"):
        assert calibration.current(GpuEngine) == fresh
        assert calibration.current(GpuEngine) == fresh
    assert calls == [GpuEngine]  # once, then read from the file
    assert calibration.load() == fresh
    assert "measuring this machine's CPU and GPU (Test GPU)" in caplog.text


def test_nothing_is_probed_or_measured_when_not_asked(cache, monkeypatch):
    def ask(cls):
        raise AssertionError("asked for a device")

    monkeypatch.setattr(GpuEngine, "available", classmethod(ask))
    assert calibration.current(GpuEngine, probe=False) is None  # no file
    calibration.save(_cal(device=None))  # this machine, measured without a device
    assert calibration.current(GpuEngine, probe=False) is None
    calibration.save(_cal(machine={"host": "elsewhere"}))  # another machine's device
    assert calibration.current(GpuEngine, probe=False) is None


def test_a_device_that_appeared_since_a_cpu_only_calibration_is_measured(cache, device,
                                                                         monkeypatch):
    calibration.save(_cal(device=None))
    fresh = _cal()
    monkeypatch.setattr(calibration, "measure", lambda g=None: fresh)
    assert calibration.current(GpuEngine, probe=False) is None
    assert calibration.current(GpuEngine, probe=True) == fresh


def test_the_simulator_is_not_a_device(cache, monkeypatch):
    """Under numba's CUDA simulator the GPU engine is not available: no measurement,
    and engine="auto" never takes it, even with a calibration on file."""
    from numba import config

    from kgroups._kernels.numba_cuda import numba_cuda

    numba_cuda()  # imported as it is (switching the simulator on later must not swap it)
    monkeypatch.setattr(config, "ENABLE_CUDASIM", 1)
    monkeypatch.setattr(calibration, "device_name", lambda: DEVICE)
    assert not GpuEngine.available()
    calibration.save(_cal(gpu=1e15, fixed=0.0))
    assert calibration.current(GpuEngine) is None
    for n in (5000, 200_000):
        cls, why = choose_engine("auto", n, False, False, np.float64, "energy", 2,
                                 n_clusters=8, n_init=1)
        assert cls is not GpuEngine, why


def _crossover(d, r, ratio, fixed):
    """n where the GPU's predicted time equals the matrix-free engine's: the pair work
    a n^2 (a from the matrix-free constants and work terms: n^2 D per group of 10
    starts, r n^2, r n^2 D) saves (1 - 1/ratio) of itself, which pays the fixed cost."""
    c0, c1, c2, _ = MatrixFreeEngine.COST_CONSTANTS
    a = c0 * d * math.ceil(r / 10) + c1 * r + c2 * r * d
    return math.sqrt(fixed / ((1 - 1 / ratio) * a)), a


@pytest.mark.parametrize("d, r", [(2, 1), (20, 10)])
def test_auto_takes_the_gpu_past_the_crossover_of_its_cost_model(cache, device, d, r):
    calibration.save(_cal(cpu=1e9, gpu=1e11, fixed=0.5))  # the GPU 100 x the CPU
    n_star, a = _crossover(d, r, 100.0, 0.5)
    c3 = MatrixFreeEngine.COST_CONSTANTS[3]
    for n, expect in ((int(0.9 * n_star), MatrixFreeEngine), (int(1.1 * n_star), GpuEngine)):
        cls, why = choose_engine("auto", n, False, False, np.float64, "energy", d,
                                 n_clusters=8, n_init=r)
        assert cls is expect, (n, n_star, why)
        t_gpu = a * n * n / 100 + c3 * r * n + 0.5
        t_mf = a * n * n + c3 * r * n
        assert f"{GpuEngine.name} {t_gpu:.3g} s" in why
        assert f"{MatrixFreeEngine.name} {t_mf:.3g} s" in why
    assert 0.9 * n_star > MatrixFreeEngine.MIN_N_MODELLED  # the model holds on both sides


def test_without_a_calibration_the_fixed_rule_holds(cache, monkeypatch):
    monkeypatch.setattr(GpuEngine, "available", classmethod(lambda cls: False))
    kw = dict(n_clusters=8, n_init=1)
    assert GpuEngine.predicted_seconds(GpuEngine.MIN_N - 1, 2, **kw) == math.inf
    assert GpuEngine.predicted_seconds(GpuEngine.MIN_N, 2, **kw) == 0.0


def test_the_gpu_model_by_hand():
    """Pair terms at the GPU/CPU rate ratio, host terms as they are, plus the fixed cost."""
    n, d, r = 10_000, 3, 1
    c = MatrixFreeEngine.COST_CONSTANTS
    pairs = c[0] * n * n * d + c[1] * n * n + c[2] * n * n * d
    expect = pairs / 40 + c[3] * n + 0.25
    got = calibration.gpu_seconds(_cal(cpu=2e9, gpu=8e10, fixed=0.25), MatrixFreeEngine,
                                  n, d, r)
    assert got == pytest.approx(expect, rel=1e-12)


def test_the_timings_run_through_an_engine():
    """The timing helpers on the CPU engine (the GPU engine's interface is the same):
    a positive, finite rate of the order of the pairs a core can do, a fixed cost."""
    rate = calibration.pass_rate(MatrixFreeEngine, (256, 512), target=0.0, budget=1.0)
    assert 1e5 < rate < 1e12
    secs = calibration.fixed_seconds(MatrixFreeEngine, n=128, sweeps=2)
    assert 0.0 < secs < 5.0


def test_a_failed_measurement_falls_back_to_the_rule_once(cache, device, monkeypatch, caplog):
    calls = []

    def broken(gpu_engine=None):
        calls.append(gpu_engine)
        raise RuntimeError("device lost")

    monkeypatch.setattr(calibration, "measure", broken)
    kw = dict(n_clusters=8, n_init=1)
    with caplog.at_level(logging.WARNING, logger="kgroups"):
        assert GpuEngine.predicted_seconds(GpuEngine.MIN_N, 2, **kw) == 0.0
        assert GpuEngine.predicted_seconds(GpuEngine.MIN_N - 1, 2, **kw) == math.inf
    assert calls == [GpuEngine]
    assert "RuntimeError: device lost" in caplog.text
    assert not cache.exists()


@pytest.mark.skipif(not __import__("numba").config.ENABLE_CUDASIM,
                    reason="the GPU engine's timings run here under NUMBA_ENABLE_CUDASIM=1")
def test_the_timings_run_through_the_gpu_engine_under_the_simulator():
    """The measurement's code path on the GPU engine (the simulator's seconds mean
    nothing; measure() itself never times the simulator)."""
    assert not GpuEngine.available()
    rate = calibration.pass_rate(GpuEngine, (32, 64), target=0.0, budget=0.0)
    assert 0.0 < rate < math.inf
    assert 0.0 < calibration.fixed_seconds(GpuEngine, n=48, sweeps=2) < 60.0
