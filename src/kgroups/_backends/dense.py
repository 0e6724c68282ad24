"""Dense backend: ``B = diag(w) K diag(w)`` held as an n x n array.

Memory n^2 (checked before allocation); a move costs O(n).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._engine import dense as _dense
from .._engine._parallel import pick
from .._semimetrics import pairwise
from ._memory import check_fits, fits

__all__ = ["DenseEngine"]


class DenseEngine:
    """Exact engine holding ``B`` as an n x n array (float64 or float32).

    Memory n^2 (checked before allocation); a move costs O(n).
    """

    name = "dense"

    def __init__(self, B, w):
        self.B = B
        self.w = w
        self.diag = np.ascontiguousarray(np.diagonal(B), dtype=np.float64)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, dtype=np.float64):
        """``B = -diag(w) rho diag(w) / 2`` from raw data, in one n x n buffer."""
        n = X.shape[0]
        alt = ("engine='matrix-free' (exact, O(n (k + D)) memory) or engine='auto'"
               if isinstance(semimetric, str) else "engine='low-rank' (approximate)")
        if np.dtype(dtype) == np.float64 and fits(n * n * 4):
            alt += ", or dtype='float32' (half the memory)"
        check_fits(n * n * np.dtype(dtype).itemsize, f"engine='dense': the kernel for n={n}", alt)
        B = pairwise(X, None, semimetric, out=np.empty((n, n), dtype=dtype),
                     scale=-0.5, wx=w, **params)
        return cls(B, w)

    @classmethod
    def from_matrix(cls, A, w, is_gram, dtype=np.float64):
        """From a precomputed semimetric (``K = -A/2``) or Gram matrix (``K = A``)."""
        n = A.shape[0]
        check_fits(n * n * np.dtype(dtype).itemsize, f"the dense kernel for n={n}",
                   "a sparse precomputed matrix")
        B = A.toarray().astype(dtype, copy=False) if sp.issparse(A) \
            else np.array(A, dtype=dtype, copy=True)
        if not is_gram:
            B *= -0.5
        _weight_in_place(B, w)
        return cls(B, w)

    def build_m(self, labels, k):
        n = self.B.shape[0]
        return pick(_dense.build_m_dense_serial, _dense.build_m_dense, n * n)(self.B, labels, k)

    def sweep(self, labels, M, s, q, cnt):
        return _dense.sweep_dense(self.B, self.w, self.diag, labels, M, s, q, cnt)

    def move_rows(self, points, old, new, M):
        _dense.move_rows_dense(self.B, points, old, new, M)

    def column(self, c):
        """Column ``c`` of the unweighted kernel ``K``."""
        return np.asarray(self.B[:, c], dtype=np.float64) / (self.w * self.w[c])

    def gram(self):
        """The unweighted kernel ``K`` as a dense float64 array (a copy)."""
        return np.asarray(self.B, dtype=np.float64) / np.outer(self.w, self.w)


def _weight_in_place(B, w):
    if not np.all(w == 1.0):
        B *= w[:, None]
        B *= w[None, :]
