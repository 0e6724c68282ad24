"""Backends: the Python objects that hold ``B = diag(w) K diag(w)`` for the drivers.

A backend offers what the single-run drivers need, whatever the storage:

``build_m(labels, k) -> M`` (shape (k, n)), ``sweep(labels, M, s, q, cnt) -> moves``
(one Hartigan sweep in place), ``move_rows(points, old, new, M)`` (apply a batch
of moves to ``M``), ``column(c)`` (column ``c`` of the unweighted kernel ``K``),
``gram()`` (dense ``K``, small problems only), and the arrays ``w`` (weights) and
``diag`` (``B[i, i]``).

Construction goes through two class methods: ``from_semimetric(X, w,
semimetric, params, dtype)`` for raw data and ``from_matrix(A, w, is_gram,
dtype)`` for a precomputed semimetric (``K = -A/2``) or Gram matrix (``K = A``).
The numba kernels they call live in :mod:`kgroups._engine`.

``ENGINES`` maps the names accepted by ``engine=`` to backend classes;
:func:`select_engine` resolves ``"auto"``.
"""

from __future__ import annotations

import numpy as np

from ._memory import available_memory, check_fits, fits
from .dense import DenseEngine
from .lowrank import LowRankEngine
from .matrix_free import MatrixFreeEngine
from .sparse import SparseEngine

__all__ = ["ENGINES", "DenseEngine", "LowRankEngine", "MatrixFreeEngine", "SparseEngine",
           "available_memory", "check_fits", "select_engine"]

ENGINES = {"dense": DenseEngine, "sparse": SparseEngine,
           "matrix-free": MatrixFreeEngine, "low-rank": LowRankEngine}

# engine="auto" takes the dense engine when DENSE_HEADROOM times the n x n
# kernel fits in the usable memory (room left for M, the data and the rest).
DENSE_HEADROOM = 1.5


def select_engine(name, n_samples, precomputed, sparse_input, dtype, semimetric="energy"):
    """The backend class for ``engine=name``; ``"auto"`` picks by input and memory.

    ``"auto"``: sparse input -> ``"sparse"``; a precomputed matrix, or raw data
    whose n x n kernel (in ``dtype``) fits comfortably -> ``"dense"``; otherwise
    ``"matrix-free"`` (exact, O(n (k + D)) memory) for a named semimetric and
    ``"low-rank"`` (Nystrom, approximate) for a callable one.
    """
    if name != "auto":
        return ENGINES[name]
    if sparse_input:
        if "sparse" not in ENGINES:
            raise ValueError("a sparse precomputed matrix needs the sparse engine, "
                             "which is not available; pass a dense matrix")
        return ENGINES["sparse"]
    dense_bytes = float(n_samples) ** 2 * np.dtype(dtype).itemsize
    if precomputed or fits(DENSE_HEADROOM * dense_bytes):
        return ENGINES["dense"]
    if isinstance(semimetric, str):
        return ENGINES["matrix-free"]
    return ENGINES["low-rank"]
