"""Backends: the Python objects that hold ``B = diag(w) K diag(w)`` for the drivers.

Every backend shares one interface (:class:`kgroups._engines.engine.Engine`):

* ``from_semimetric(X, w, semimetric, params, *, dtype, n_clusters, n_init,
  options)`` for raw data and ``from_matrix(A, w, *, is_gram, dtype, n_clusters,
  n_init)`` for a precomputed semimetric (``K = -A/2``) or Gram matrix (``K = A``);
  a backend that cannot take the input says so and names the alternative;
* ``memory_bytes(n_samples, n_features, *, n_clusters, n_init, dtype, options)``,
  checked before anything is allocated (a clear ValueError, never a MemoryError);
* for the drivers: ``build_m(labels, k) -> M`` (shape (k, n)), ``sweep(labels, M,
  s, q, cnt) -> moves`` (one Hartigan sweep in place), ``move_rows(points, old,
  new, M)`` (a batch of moves), ``column(c)`` (column ``c`` of the unweighted
  kernel ``K``), ``gram()`` (dense ``K``, small problems only), and the arrays
  ``w`` (weights) and ``diag`` (``B[i, i]``);
* for ``predict``: ``predictor(X_fit, labels, k)``, whose ``cross_sums(X_block)``
  gives the new rows' cluster sums and ``K(x, x)``.

The numba kernels they call live in :mod:`kgroups._kernels`.

``ENGINES`` maps the names accepted by ``engine=`` to backend classes;
:func:`select_engine` resolves ``"auto"``.
"""

from __future__ import annotations

from .._validation import InvalidParameterError
from .engine import Engine
from .._memory import MEMORY_FRACTION, available_memory, check_fits, total_memory
from .dask import DaskEngine
from .dense import DenseEngine
from .gpu import GpuEngine, cuda_usable
from .lowrank import FOURIER_SEMIMETRICS, LANDMARKS, LowRankEngine
from .matrix_free import MULTI_STARTS, MatrixFreeEngine
from .sparse import SparseEngine

__all__ = ["COST_CONSTANTS", "ENGINES", "Engine", "LANDMARKS", "MATRIX_FREE_MIN_N",
           "DaskEngine", "DenseEngine", "GPU_MIN_N", "GpuEngine", "LowRankEngine", "MatrixFreeEngine", "SparseEngine", "available_memory",
           "check_engine_input", "check_fits", "choose_engine", "cost_features",
           "predicted_seconds", "select_engine", "total_memory"]

ENGINES = {"dense": DenseEngine, "sparse": SparseEngine,
           "matrix-free": MatrixFreeEngine, "low-rank": LowRankEngine, "dask": DaskEngine,
           "gpu": GpuEngine}

# -- engine="auto": a cost model calibrated by benchmarks/bench_auto.py --------------
#
# Seconds of a fit (KernelKGroups, k-means++ starts, numba code loaded, every core)
# as a non-negative combination of the work each exact engine does, for n points,
# D columns and r = n_init starts (see cost_features):
#   dense:        n^2 D (pairwise distances) + n^2 (writing the kernel, page faults)
#                 + r n^2 (each start's M and moves, O(n) each) + r n (per start:
#                 the k-means++ start, sweeps' O(n k) scans, overheads)
#   matrix-free:  n^2 D ceil(r / MULTI_STARTS) (one pass over the pairs per group of
#                 starts) + r n^2 (each start's sums in that pass) + r n^2 D (moves
#                 cost O(n D) instead of O(n)) + r n (as for dense)
# COST_CONSTANTS are fitted by ``bench_auto.py --fit`` (non-negative least squares on
# the relative error) to the fastest of repeated fits of each cell of its grid,
# n in {2k, 5k, 10k, 20k} x D in {2, 10, 50, 100, 200} x n_init in {1, 10}, k = 10,
# make_blobs(cluster_std=2.5). The seconds depend on the machine the constants were
# fitted on; "auto" uses only which engine is predicted faster. bench_auto.py also
# times "auto" as an engine of its own against the best forced engine in every cell.
COST_CONSTANTS = {
    "dense": (2.72e-11, 4.58e-09, 0.0, 1.94e-06),
    "matrix-free": (3.19e-11, 4.98e-11, 0.0, 2.01e-06),
}

# From this many points "auto" takes the GPU engine when a CUDA device is usable (a
# named semimetric on raw data): below it the transfers and launches weigh more than
# the pair passes they speed up. Not yet calibrated on a device (see bench_gpu.py).
GPU_MIN_N = 50_000

# Below this many points "auto" takes the dense engine without consulting the model
# (the calibration grid starts here; below it a fit is quick with either engine).
MATRIX_FREE_MIN_N = 2000

# engine="auto" refuses the dense engine for raw data when DENSE_HEADROOM times its
# memory estimate exceeds MEMORY_FRACTION of the machine's TOTAL memory (fixed, so
# that two identical calls choose the same engine; what is free at call time is
# checked when the engine is built, which refuses with a clear error).
DENSE_HEADROOM = 1.5


def cost_features(engine, n_samples, n_features, n_init):
    """The work terms of :data:`COST_CONSTANTS` for ``engine`` ("dense" or "matrix-free")."""
    n, d, r = float(n_samples), float(max(n_features, 1)), float(max(n_init, 1))
    n2 = n * n
    if engine == "dense":
        return (n2 * d, n2, r * n2, r * n)
    passes = float(-(-int(r) // MULTI_STARTS))
    return (n2 * d * passes, r * n2, r * n2 * d, r * n)


def predicted_seconds(engine, n_samples, n_features, n_init=1):
    """Predicted seconds of a fit with ``engine`` ("dense" or "matrix-free")."""
    feats = cost_features(engine, n_samples, n_features, n_init)
    return float(sum(c * f for c, f in zip(COST_CONSTANTS[engine], feats)))


def select_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric="energy",
                  n_features=None, *, n_clusters, n_init=1, input_kind="numpy"):
    """The backend class for ``engine=name``; see :func:`choose_engine`."""
    return choose_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric,
                         n_features, n_clusters=n_clusters, n_init=n_init,
                         input_kind=input_kind)[0]


def choose_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric="energy",
                  n_features=None, *, n_clusters, n_init=1, input_kind="numpy",
                  owner="KernelKGroups"):
    """``(backend class, why)`` for ``engine=name``; ``"auto"`` picks the exact engine
    the cost model predicts faster.

    The choice depends only on the arguments (never on the memory free at call time),
    so two identical calls choose the same engine. ``"auto"``:

    * dask input (``input_kind="dask"``) -> ``"dask"`` (the only engine that takes it);
    * sparse input -> ``"sparse"``; a dense precomputed matrix -> ``"dense"``;
    * raw data with a named semimetric, at least ``GPU_MIN_N`` points and a usable
      CUDA device (not the simulator) -> ``"gpu"``;
    * raw data: ``"dense"`` is a candidate when ``DENSE_HEADROOM`` times its memory
      estimate (:meth:`DenseEngine.memory_bytes`) is within ``MEMORY_FRACTION`` of
      the machine's total memory (:func:`total_memory`);
    * a callable semimetric -> ``"dense"`` if a candidate, else ``"low-rank"``
      (Nystrom, approximate: the only engine left);
    * a named semimetric -> ``"dense"`` below ``MATRIX_FREE_MIN_N`` points, else the
      faster of ``"dense"`` and ``"matrix-free"`` by :func:`predicted_seconds` for
      ``(n_samples, n_features, n_init)``; ``"matrix-free"`` when ``"dense"`` is no
      candidate. ``n_features=None`` counts as 1.

    ``n_init`` is the number of starts the fit runs (1 for given labels).
    """
    if input_kind == "dask":
        if name not in ("auto", "dask"):
            raise InvalidParameterError(
                f"{owner}: X is a dask collection and engine={name!r}; use engine='auto' or "
                "'dask' (distributed, low-rank), or pass X.compute() for an in-memory engine")
        return DaskEngine, "asked for" if name == "dask" else "auto: dask input"
    if name != "auto":
        return ENGINES[name], "asked for"
    if sparse_input:
        return ENGINES["sparse"], "auto: a scipy.sparse precomputed matrix"
    if precomputed:
        return ENGINES["dense"], "auto: a dense precomputed matrix"
    if (isinstance(semimetric, str) and n_samples >= GPU_MIN_N
            and cuda_usable(real_device=True)):
        return GpuEngine, f"auto: a CUDA device and n >= {GPU_MIN_N}"
    d = n_features or 1
    dense_bytes = DenseEngine.memory_bytes(n_samples, d, n_clusters=n_clusters, n_init=n_init,
                                           dtype=dtype)
    limit = MEMORY_FRACTION * total_memory()
    dense_ok = DENSE_HEADROOM * dense_bytes <= limit
    too_big = (f"auto: the n x n kernel ({dense_bytes / 2**30:.2f} GiB, x{DENSE_HEADROOM}) "
               f"exceeds {MEMORY_FRACTION:.0%} of the total memory ({limit / 2**30:.1f} GiB)")
    if not isinstance(semimetric, str):
        if dense_ok:
            return ENGINES["dense"], "auto: callable semimetric, the n x n kernel fits"
        return ENGINES["low-rank"], too_big
    if not dense_ok:
        return ENGINES["matrix-free"], too_big
    if n_samples < MATRIX_FREE_MIN_N:
        return ENGINES["dense"], f"auto: n < {MATRIX_FREE_MIN_N}, the n x n kernel is small"
    t_dense, t_mf = (predicted_seconds(e, n_samples, d, n_init) for e in ("dense", "matrix-free"))
    pick = "matrix-free" if t_mf < t_dense else "dense"
    return ENGINES[pick], (f"auto: cost model, predicted dense {t_dense:.3g} s, "
                           f"matrix-free {t_mf:.3g} s (n={n_samples}, D={d}, n_init={n_init})")


def check_engine_input(name, n_samples, *, kernel, semimetric, sparse_input, n_clusters,
                       n_components=256, landmarks="k-means++", owner="KernelKGroups",
                       init=None, rule="hartigan"):
    """Refuse, with a ValueError naming the value and what is expected, an
    engine that cannot hold this input or run this fit (called once ``"auto"`` is
    resolved, before any work).

    ``kernel`` is ``None`` or ``"precomputed"``; ``semimetric`` may be
    ``"precomputed"`` (X is an n x n semimetric matrix). ``n_clusters`` is the
    k of the fit (the memory each engine needs is checked by the engine's
    constructor, before it allocates, with this k); ``init`` the named start or
    labels, ``rule`` the move rule of the estimator.
    """
    cls = ENGINES[name]
    if rule not in cls.rules:
        raise InvalidParameterError(
            f"{owner}: engine={name!r} is supported by KernelKGroups only (Hartigan's "
            f"rule); pass X.compute() for an in-memory {owner}")
    if isinstance(init, str) and init in cls.unavailable_inits:
        raise InvalidParameterError(
            f"{owner}: init={init!r} is not available with engine={name!r}; use "
            "'kernel-k-means++' or 'k-means++' (an in-memory fit of a sample), 'random' "
            "or an array of labels")
    precomputed = kernel == "precomputed" or semimetric == "precomputed"
    what = ("a precomputed Gram matrix" if kernel == "precomputed" else
            "a precomputed semimetric matrix" if precomputed else
            f"raw data with semimetric={semimetric!r}")
    if name == "sparse" and not (sparse_input and kernel == "precomputed"):
        if kernel == "precomputed":
            got, hint = ("a dense Gram matrix", "pass scipy.sparse.csr_matrix(X) when it is "
                         "mostly zeros, or use engine='dense'")
        elif precomputed:
            got = (f"a {'sparse' if sparse_input else 'dense'} semimetric matrix "
                   "(semimetric='precomputed')")
            hint = ("its kernel K = -rho/2 needs every pair (a missing entry would mean "
                    "rho = 0): use engine='dense', or pass a sparse Gram matrix with "
                    "kernel='precomputed'")
        else:
            got, hint = what, ("its kernel is dense n x n (every pair has a distance): use "
                               "engine='dense', engine='matrix-free' or engine='auto'")
        raise ValueError(f"{owner}: engine='sparse' needs a scipy.sparse precomputed Gram "
                         f"matrix (kernel='precomputed'), got {got}; {hint}")
    if precomputed and not cls.takes_precomputed:
        raise ValueError(
            f"{owner}: engine={name!r} needs raw data, got {what}; use engine='dense' or "
            "engine='sparse' (sparse Gram matrix)")
    if cls.needs_negative_type and isinstance(semimetric, str) \
            and semimetric in ("localized", "sinusoidal"):
        raise ValueError(
            f"{owner}: engine={name!r} approximates a positive semidefinite kernel (its "
            f"features span K = -rho/2 plus a base point, which needs a semimetric of "
            f"negative type) and semimetric={semimetric!r} is not of negative type: its "
            "objective would be wrong; use engine='dense' or engine='matrix-free' (exact)")
    if not isinstance(semimetric, str) and not cls.takes_callable:
        raise ValueError(
            f"{owner}: engine={name!r} needs a named semimetric, got a callable "
            f"semimetric={semimetric!r}; use engine='dense' or engine='low-rank'")
    if name in ("low-rank", "dask"):
        _check_lowrank(semimetric, landmarks, owner)


def _check_lowrank(semimetric, landmarks, owner):
    if landmarks == "fourier" and semimetric not in FOURIER_SEMIMETRICS:
        raise ValueError(
            f"{owner}: landmarks='fourier' (random Fourier features) needs semimetric in "
            f"{FOURIER_SEMIMETRICS}, got semimetric={semimetric!r}; use "
            "landmarks='k-means++' or 'uniform' (Nystrom)")
