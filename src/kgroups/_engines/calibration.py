r"""The measured rates behind ``engine="auto"``'s choice of the GPU engine.

The GPU engine runs the matrix-free engine's algorithm with its passes over the
pairs of points on a device (:mod:`kgroups._engines.gpu`). Its cost model is
therefore the matrix-free engine's (:meth:`~kgroups._engines.matrix_free.
MatrixFreeEngine.cost_features`, ``COST_CONSTANTS``), with the work of those passes
done at the device's rate, plus what any fit costs on the device:

.. math::

    t_{\mathrm{gpu}} = \frac{r_{\mathrm{cpu}}}{r_{\mathrm{gpu}}}
        \sum_{i \in P} c_i f_i + \sum_{i \notin P} c_i f_i + t_0

where :math:`c_i, f_i` are the matrix-free engine's constants and work terms,
:math:`P` the terms of the passes over the pairs (:data:`PAIR_TERMS`; the others
are host work, the same on both), :math:`r_{\mathrm{cpu}}` and
:math:`r_{\mathrm{gpu}}` the pairs per second of a pass that builds ``M`` (the
matrix-free engine on this machine's cores, the GPU engine on its device) and
:math:`t_0` the seconds of a small fit on the device (allocations, transfers,
launches, synchronisations: the cost of a fit whatever its size).

:func:`measure` times these in a few seconds (the device only when a real one is
usable: numba's CUDA simulator is not a device). ``kgroups calibrate`` measures and
writes them; otherwise the first fit for which ``engine="auto"`` considers the GPU
engine on a machine with a usable device and no calibration measures them once (a
warning of the ``"kgroups"`` logger says so) and caches them. The file
(:func:`default_path`) records the machine and the device it was measured on; a
file from another machine or device is ignored. Nothing is measured at import.
"""

from __future__ import annotations

import json
import logging
import math
import os
import platform
import socket
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

# The environment variable naming the calibration file (default: default_path()).
ENV = "KGROUPS_CALIBRATION"
# The version of the file's layout; a file of another version is ignored.
FORMAT = 1
# The work terms of MatrixFreeEngine.cost_features that are passes over the pairs
# (building M, and the moves' O(n D) rows); the last, r n, is host work.
PAIR_TERMS = (0, 1, 2)
# The timed problem: points of N_FEATURES standard normal features, N_CLUSTERS
# random labels, the energy semimetric.
N_FEATURES = 8
N_CLUSTERS = 8
# A rate is timed at sizes doubling from its first one until a pass takes
# TARGET_SECONDS (or the largest size, or BUDGET_SECONDS of timing in all).
TARGET_SECONDS = 0.2
BUDGET_SECONDS = 2.0
CPU_SIZES = (1024, 32768)
GPU_SIZES = (8192, 262144)
# The fixed cost of a fit on the device: a fit of FIXED_N points, at most FIXED_SWEEPS
# sweeps.
FIXED_N = 2048
FIXED_SWEEPS = 10
# Without a calibration, a device is looked for (importing numba-cuda, about a second
# once per process) only for a fit predicted to take PROBE_SECONDS on the CPU.
PROBE_SECONDS = 1.0

logger = logging.getLogger("kgroups")

# Calibrations measured by this process that could not be written: (path, machine,
# device) -> Calibration, so that they are measured once.
_MEASURED: dict = {}


@dataclass(frozen=True)
class Calibration:
    """Rates of one machine (and device) for the GPU cost model.

    Attributes
    ----------
    machine : dict
        ``host``, ``cpu`` (model name) and ``cores`` of the machine measured
        (:func:`this_machine`).
    cpu_pairs_per_second : float
        Pairs per second of the matrix-free engine's pass that builds ``M``, every core.
    device : str or None
        The CUDA device measured (None: none was usable).
    gpu_pairs_per_second, gpu_fixed_seconds : float or None
        Pairs per second of the GPU engine's pass that builds ``M``, and the seconds of
        a fit of :data:`FIXED_N` points on the device.
    n_features : int
        Features of the timed points.
    measured : str
        When (UTC, ISO 8601).
    """

    machine: dict
    cpu_pairs_per_second: float
    device: str | None = None
    gpu_pairs_per_second: float | None = None
    gpu_fixed_seconds: float | None = None
    n_features: int = N_FEATURES
    measured: str = ""

    def to_dict(self):
        """The calibration as the file stores it."""
        return {"format": FORMAT, **asdict(self)}

    @classmethod
    def from_dict(cls, data, source="the calibration"):
        """From :meth:`to_dict`'s form; a ValueError naming ``source`` and the bad field."""
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            got = data.get("format") if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"{source}: format={got!r}, expected {FORMAT}")
        machine = data.get("machine")
        if not isinstance(machine, dict):
            raise ValueError(f"{source}: machine={machine!r} should be an object")
        gpu = data.get("device") is not None
        for key in ("cpu_pairs_per_second",) + (
                ("gpu_pairs_per_second", "gpu_fixed_seconds") if gpu else ()):
            v = data.get(key)
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not (
                    math.isfinite(v) and v >= 0) or (v == 0 and key != "gpu_fixed_seconds"):
                raise ValueError(f"{source}: {key}={v!r} should be a finite number > 0")
        d = data.get("n_features", N_FEATURES)
        if isinstance(d, bool) or not isinstance(d, int) or d < 1:
            raise ValueError(f"{source}: n_features={d!r} should be an integer >= 1")
        return cls(machine=machine, cpu_pairs_per_second=float(data["cpu_pairs_per_second"]),
                   device=data.get("device"),
                   gpu_pairs_per_second=_float(data.get("gpu_pairs_per_second")) if gpu else None,
                   gpu_fixed_seconds=_float(data.get("gpu_fixed_seconds")) if gpu else None,
                   n_features=int(data.get("n_features", N_FEATURES)),
                   measured=str(data.get("measured", "")))

    def describe(self):
        """Lines that say what was measured, for the command line."""
        m = self.machine
        lines = [f"machine: {m.get('host')} ({m.get('cpu')}, {m.get('cores')} cores), "
                 f"measured {self.measured or 'at an unknown time'}",
                 f"cpu (engine matrix-free, every core): {self.cpu_pairs_per_second:.3g} "
                 f"pairs/s (D={self.n_features})"]
        if self.device is None:
            lines.append("gpu: none measured (no CUDA device was usable)")
        else:
            lines += [f"gpu ({self.device}): {self.gpu_pairs_per_second:.3g} pairs/s, "
                      f"{self.gpu_pairs_per_second / self.cpu_pairs_per_second:.3g} x the cpu",
                      f"gpu fixed cost of a fit: {self.gpu_fixed_seconds:.3g} s"]
        return lines


def _float(v):
    return None if v is None else float(v)


def default_path():
    """The calibration file: ``$KGROUPS_CALIBRATION`` when set, else
    ``kgroups/calibration.json`` in the user's cache directory (``$XDG_CACHE_HOME``
    when it is an absolute path, else ``~/.cache``)."""
    named = os.environ.get(ENV)
    if named:
        return Path(named).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "")
    root = Path(base) if base and os.path.isabs(base) else Path.home() / ".cache"
    return root / "kgroups" / "calibration.json"


def this_machine():
    """``{"host", "cpu", "cores"}`` of this machine: what a calibration must match."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f
                        if line.lower().startswith("model name")), cpu)
    except OSError:
        pass
    return {"host": socket.gethostname(), "cpu": cpu, "cores": os.cpu_count() or 1}


def device_name():
    """The name of the current CUDA device (call only when one is usable)."""
    from .._kernels.numba_cuda import numba_cuda

    name = numba_cuda().get_current_device().name
    return name.decode() if isinstance(name, bytes) else str(name)


def load(path=None, *, strict=False):
    """The calibration in ``path`` (:func:`default_path`), or None when there is none.

    A file that cannot be read as a calibration raises a ValueError naming it when
    ``strict``, else is ignored with a warning of the ``"kgroups"`` logger.
    """
    path = Path(path) if path is not None else default_path()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as err:
        return _unreadable(path, err.strerror, strict)
    try:
        return Calibration.from_dict(json.loads(text), source=str(path))
    except ValueError as err:  # json.JSONDecodeError is a ValueError
        return _unreadable(path, str(err), strict)


def _unreadable(path, why, strict):
    if strict:
        raise ValueError(f"calibration file {path} cannot be read: {why}")
    logger.warning("kgroups: ignoring the calibration file %s (%s)", path, why)
    return None


def save(cal, path=None):
    """Write ``cal`` to ``path`` (:func:`default_path`; folders created, the file
    replaced at once); returns the path."""
    path = Path(path) if path is not None else default_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(cal.to_dict(), indent=2) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    return path


def matches(cal, machine, device):
    """Whether ``cal`` was measured on ``machine`` with ``device`` (None: no device)."""
    return cal is not None and cal.machine == machine and cal.device == device


def _problem(n):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, N_FEATURES))
    return X, np.ones(n), rng.integers(0, N_CLUSTERS, n).astype(np.int64)


def pass_rate(engine, sizes, target=TARGET_SECONDS, budget=BUDGET_SECONDS):
    """Pairs per second of ``engine``'s pass that builds ``M`` (``build_m``), timed at
    sizes doubling from ``sizes[0]`` up to ``sizes[1]`` until one pass takes ``target``
    seconds or the timings ``budget`` seconds; the best of two passes at the last size,
    after an untimed one (code loaded, buffers made)."""
    first, last = sizes
    X, w, labels = _problem(last)
    begin, n = time.perf_counter(), first
    while True:
        eng = engine.from_semimetric(X[:n], w[:n], "energy", {}, n_clusters=N_CLUSTERS)
        eng.build_m(labels[:n], N_CLUSTERS)
        best = math.inf
        for _ in range(2):
            t0 = time.perf_counter()
            eng.build_m(labels[:n], N_CLUSTERS)
            best = min(best, time.perf_counter() - t0)
        del eng
        spent = time.perf_counter() - begin
        if best >= target or 2 * n > last or spent + 8 * best > budget:
            return n * (n - 1) / 2 / max(best, 1e-9)
        n *= 2


def fixed_seconds(engine, n=FIXED_N, sweeps=FIXED_SWEEPS):
    """Seconds of a small fit through ``engine``'s run interface (built from the data,
    one start, Hartigan sweeps until none moves or ``sweeps``, finished), the second of
    two (the first loads the code)."""
    X, w, labels = _problem(n)
    best = math.inf
    for _ in range(2):
        t0 = time.perf_counter()
        eng = engine.from_semimetric(X, w, "energy", {}, n_clusters=N_CLUSTERS)
        state = eng.start(labels[None], N_CLUSTERS, "hartigan")
        for _ in range(sweeps):
            if not np.any(eng.sweep(state)):
                break
        eng.finish(state)
        del eng, state
        best = time.perf_counter() - t0
    return best


def measure(gpu_engine=None):
    """A :class:`Calibration` of this machine: the matrix-free engine's pass rate, and,
    when ``gpu_engine`` (the GPU engine class) is given and available on a real device,
    its pass rate and fixed cost. A few seconds."""
    from .matrix_free import MatrixFreeEngine

    cpu = pass_rate(MatrixFreeEngine, CPU_SIZES)
    device = rate = fixed = None
    if gpu_engine is not None and gpu_engine.available():
        device = device_name()
        rate = pass_rate(gpu_engine, GPU_SIZES)
        fixed = fixed_seconds(gpu_engine)
    return Calibration(machine=this_machine(), cpu_pairs_per_second=cpu, device=device,
                       gpu_pairs_per_second=rate, gpu_fixed_seconds=fixed,
                       measured=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))


def measure_all(engines):
    """:func:`measure` with the first of ``engines`` (the registry's engine classes)
    that runs on a CUDA device (what ``kgroups calibrate`` measures), and why no
    device was measured (None when one was)."""
    from .._kernels.device import simulated

    gpus = [cls for cls in engines if "CUDA" in cls.capabilities.device]
    cal = measure(gpus[0] if gpus else None)
    why = None
    if cal.device is None:
        why = ("numba's CUDA simulator is on (NUMBA_ENABLE_CUDASIM=1), and it is not a "
               "device" if simulated() else
               "no usable CUDA device (or numba-cuda is not installed)")
    return cal, why


def current(gpu_engine, *, probe=True, path=None):
    """The calibration of this machine and its usable device, or None (no device).

    Read from ``path`` (:func:`default_path`) when it matches this machine and device;
    when none does and a device is usable, measured once (:func:`measure`, a warning of
    the ``"kgroups"`` logger says so) and written there. Whether a device is usable is
    asked (``gpu_engine.available()``: numba's simulator is not a device) only when
    the file holds a device of this machine, or when ``probe``.
    """
    path = Path(path) if path is not None else default_path()
    cal, machine = load(path), this_machine()
    on_file = cal is not None and cal.machine == machine and cal.device is not None
    if not (on_file or probe) or not gpu_engine.available():
        return None
    try:
        device = device_name()
    except Exception:  # noqa: BLE001 - a device that cannot be named is not usable
        return None
    if matches(cal, machine, device):
        return cal
    key = (str(path), tuple(sorted(machine.items())), device)
    if key not in _MEASURED:
        logger.warning("kgroups: measuring this machine's CPU and GPU (%s) rates for "
                       "engine='auto' (a few seconds, once; cached in %s; 'kgroups "
                       "calibrate' measures them ahead)", device, path)
        _MEASURED[key] = _measure_and_save(gpu_engine, path)
    return _MEASURED[key]


def _measure_and_save(gpu_engine, path):
    """:func:`measure` and :func:`save`; None (with a warning) when the measurement
    fails, so that a fit goes on with the rule of no calibration."""
    try:
        cal = measure(gpu_engine)
    except Exception as err:  # noqa: BLE001 - a device error must not fail the fit
        logger.warning("kgroups: the measurement of the GPU failed (%s: %s); engine='auto' "
                       "uses its rule without a calibration", type(err).__name__, err)
        return None
    try:
        save(cal, path)
    except OSError as err:
        logger.warning("kgroups: could not write the calibration to %s (%s)", path,
                       err.strerror)
    return cal


def gpu_seconds(cal, cpu_engine, n_samples, n_features, n_init):
    """Predicted seconds of a GPU fit (the module's formula): ``cpu_engine``'s
    (the matrix-free engine's) constants and work terms, the terms of
    :data:`PAIR_TERMS` at ``cal``'s GPU/CPU rate ratio, plus the fixed cost.

    Examples
    --------
    >>> class Model:
    ...     COST_CONSTANTS = (1.0, 0.0, 0.0, 2.0)
    ...     @classmethod
    ...     def cost_features(cls, n, d, r):
    ...         return (10.0, 0.0, 0.0, 1.0)
    >>> cal = Calibration({}, 1.0, "a GPU", 10.0, 0.5)
    >>> round(gpu_seconds(cal, Model, 100, 2, 1), 3)   # 10 / 10 + 2 + 0.5
    3.5
    """
    feats = cpu_engine.cost_features(n_samples, n_features, n_init)
    work = [c * f for c, f in zip(cpu_engine.COST_CONSTANTS, feats)]
    pairs = sum(work[i] for i in PAIR_TERMS)
    host = sum(work) - pairs
    speed = cal.gpu_pairs_per_second / cal.cpu_pairs_per_second
    return float(pairs / speed + host + cal.gpu_fixed_seconds)
