"""Backends: the Python objects that hold ``B = diag(w) K diag(w)`` for the drivers.

Every backend shares one interface (:class:`kgroups._backends._base.Engine`):

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

The numba kernels they call live in :mod:`kgroups._engine`.

``ENGINES`` maps the names accepted by ``engine=`` to backend classes;
:func:`select_engine` resolves ``"auto"``.
"""

from __future__ import annotations

from ._base import Engine
from ._memory import available_memory, check_fits, fits
from .dense import DenseEngine
from .lowrank import FOURIER_SEMIMETRICS, LANDMARKS, LowRankEngine
from .matrix_free import MatrixFreeEngine
from .sparse import SparseEngine

__all__ = ["ENGINES", "Engine", "LANDMARKS", "MATRIX_FREE_MAX_D", "MATRIX_FREE_MIN_N",
           "DenseEngine", "LowRankEngine", "MatrixFreeEngine", "SparseEngine", "available_memory",
           "check_engine_input", "check_fits", "choose_engine", "select_engine"]

ENGINES = {"dense": DenseEngine, "sparse": SparseEngine,
           "matrix-free": MatrixFreeEngine, "low-rank": LowRankEngine}

# engine="auto" takes the dense engine when DENSE_HEADROOM times the n x n
# kernel fits in the usable memory (room left for M, the data and the rest).
DENSE_HEADROOM = 1.5

# engine="auto" on raw data with a named semimetric: matrix-free from this many
# points on, for data of at most MATRIX_FREE_MAX_D columns, even when the dense
# kernel fits. The dense engine pays for writing and reading the n^2 kernel
# (page faults included); the matrix-free one pays O(D) per kernel entry, which
# loses for wide data. Measured with the symmetric matrix-free build
# (KernelKGroups(n_clusters=10, random_state=0), blobs, numba compiled, quiet
# 2-core machine), time of matrix-free / dense:
#   D=10, n=5k:   n_init=1 0.019 / 0.104 s, n_init=10 0.166 / 0.283 s;
#   D=10, n=20k:  n_init=1 0.30 / 5.04 s,   n_init=10 2.05 / 3.98 s
#                 (KernelKMeans: 0.25 / 5.19 s and 1.96 / 3.89 s);
#   D=50, n=5k:   n_init=1 0.042 / 0.131 s, n_init=10 0.389 / 0.375 s.
# Earlier, with one pass over all ordered pairs: n=10k, random start, ratio
# mf/dense D=2 0.37, D=10 0.56, D=20 0.27, D=30 0.84, D=50 1.21, D=100 2.12.
# So restarts, which share the dense kernel, still favour matrix-free at D <= 32.
MATRIX_FREE_MIN_N = 2000
MATRIX_FREE_MAX_D = 32


def select_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric="energy",
                  n_features=None, *, n_clusters):
    """The backend class for ``engine=name``; see :func:`choose_engine`."""
    return choose_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric,
                         n_features, n_clusters=n_clusters)[0]


def choose_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric="energy",
                  n_features=None, *, n_clusters):
    """``(backend class, why)`` for ``engine=name``; ``"auto"`` picks by input, size and memory.

    ``"auto"``: sparse input -> ``"sparse"``; a precomputed matrix -> ``"dense"``;
    raw data with a named semimetric, ``n_samples >= MATRIX_FREE_MIN_N`` and
    ``n_features <= MATRIX_FREE_MAX_D`` -> ``"matrix-free"`` (exact, and faster
    there: see the measurements above); otherwise ``"dense"`` when 1.5 times its
    memory (:meth:`DenseEngine.memory_bytes`, the n x n kernel in ``dtype`` and
    ``M`` for ``n_clusters``) fits in the usable memory, else ``"matrix-free"``
    (exact, O(n (k + D)) memory) for a named semimetric and ``"low-rank"``
    (Nystrom, approximate) for a callable one.
    """
    if name != "auto":
        return ENGINES[name], "asked for"
    if sparse_input:
        return ENGINES["sparse"], "auto: a scipy.sparse precomputed matrix"
    if precomputed:
        return ENGINES["dense"], "auto: a dense precomputed matrix"
    named = isinstance(semimetric, str)
    if (named and n_samples >= MATRIX_FREE_MIN_N
            and (n_features is None or n_features <= MATRIX_FREE_MAX_D)):
        return ENGINES["matrix-free"], (f"auto: raw data, n >= {MATRIX_FREE_MIN_N} and "
                                        f"D <= {MATRIX_FREE_MAX_D} (measured faster than dense)")
    dense_bytes = DenseEngine.memory_bytes(n_samples, n_features or 0, n_clusters=n_clusters,
                                           dtype=dtype)
    if fits(DENSE_HEADROOM * dense_bytes):
        return ENGINES["dense"], f"auto: the n x n kernel ({dense_bytes / 2**20:.0f} MiB) fits"
    why = f"auto: the n x n kernel ({dense_bytes / 2**30:.1f} GiB) does not fit"
    return (ENGINES["matrix-free"], why) if named else (ENGINES["low-rank"], why)


def check_engine_input(name, n_samples, *, kernel, semimetric, sparse_input, n_clusters,
                       n_components=256, landmarks="k-means++", owner="KernelKGroups"):
    """Refuse, with a ValueError naming the value and what is expected, an
    engine that cannot hold this input (called once ``"auto"`` is resolved).

    ``kernel`` is ``None`` or ``"precomputed"``; ``semimetric`` may be
    ``"precomputed"`` (X is an n x n semimetric matrix). ``n_clusters`` is the
    k of the fit (the memory each engine needs is checked by the engine's
    constructor, before it allocates, with this k).
    """
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
    if name in ("matrix-free", "low-rank") and precomputed:
        raise ValueError(
            f"{owner}: engine={name!r} needs raw data, got {what}; use engine='dense' or "
            "engine='sparse' (sparse Gram matrix)")
    if name == "matrix-free" and not isinstance(semimetric, str):
        raise ValueError(
            f"{owner}: engine='matrix-free' needs a named semimetric, got a callable "
            f"semimetric={semimetric!r}; use engine='dense' or engine='low-rank'")
    if name == "low-rank":
        _check_lowrank(n_samples, semimetric, n_components, landmarks, owner)


def _check_lowrank(n_samples, semimetric, n_components, landmarks, owner):
    if not 1 <= n_components <= n_samples:
        raise ValueError(
            f"{owner}: n_components={n_components!r} should be in [1, n_samples={n_samples}] "
            "for engine='low-rank' (at most one landmark per point; more features than "
            "points cost more than the exact engine='dense')")
    if landmarks == "fourier" and semimetric not in FOURIER_SEMIMETRICS:
        raise ValueError(
            f"{owner}: landmarks='fourier' (random Fourier features) needs semimetric in "
            f"{FOURIER_SEMIMETRICS}, got semimetric={semimetric!r}; use "
            "landmarks='k-means++' or 'uniform' (Nystrom)")
