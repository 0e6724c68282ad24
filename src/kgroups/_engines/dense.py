"""Dense backend: ``B = diag(w) K diag(w)`` held as an n x n array.

Memory n^2 (checked before allocation); a move costs O(n).
"""

from __future__ import annotations

import numpy as np

from .._kernels import held_dense as _dense
from .._kernels import seeding as _seeding
from .._kernels.jit import kernel_array
from .._kernels.parallel import workers
from .._semimetrics import (
    BLOCK_BYTES,
    centred_sq_norm_max,
    check_semimetric_range,
    diameter_sq,
    pairwise_unchecked,
    rho_max,
    robust_center,
)
from .._sparse import issparse
from .engine import Capabilities, HeldKernelEngine, abs_max
from .._memory import fits


class DenseEngine(HeldKernelEngine):
    """Exact engine holding ``B`` as an n x n array (float64 or float32).

    Memory n^2 (checked before allocation); a move costs O(n).
    """

    name = "dense"
    capabilities = Capabilities(
        exact=True, inputs=("raw data", "dense matrix", "sparse matrix"), semimetrics="any",
        memory="the n x n kernel (8 n^2 bytes in float64, 4 n^2 in float32)")
    # Seconds of a fit (KernelKGroups, k-means++ starts, numba code loaded, every core)
    # as sum_i COST_CONSTANTS[i] * cost_features(...)[i]; fitted by
    # benchmarks/bench_auto.py --fit (non-negative least squares on the relative error,
    # n in {2k, 5k, 10k, 20k} x D in {2, 10, 50, 100, 200} x n_init in {1, 10}, k = 10,
    # make_blobs(cluster_std=2.5)). The seconds are the calibration machine's; "auto"
    # uses only which engine is predicted faster.
    COST_CONSTANTS = (2.72e-11, 4.58e-09, 0.0, 1.94e-06)

    @classmethod
    def cost_features(cls, n_samples, n_features, n_init):
        """The work of a fit of n points, D columns and r starts: n^2 D (pairwise
        distances), n^2 (writing the kernel), r n^2 (each start's M and moves, O(n)
        each) and r n (each start's k-means++ seeding and sweeps' O(n k) scans)."""
        n, d, r = float(n_samples), float(max(n_features, 1)), float(max(n_init, 1))
        return (n * n * d, n * n, r * n * n, r * n)

    @classmethod
    def predicted_seconds(cls, n_samples, n_features, *, n_clusters, n_init):
        feats = cls.cost_features(n_samples, n_features, n_init)
        return float(sum(c * f for c, f in zip(cls.COST_CONSTANTS, feats)))

    def __init__(self, B, w, *, semimetric=None, params=None, is_gram=None):
        self.B = B
        self.build_entries = B.size
        self.w = kernel_array(w, np.float64)
        self.diag = kernel_array(np.diagonal(B), np.float64)
        self.semimetric, self.params, self.is_gram = semimetric, params, is_gram

    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        """The n x n kernel in ``dtype``, float64 scratch when it is not float64 (a
        pairwise block, or the dense copy of a sparse input: ``options["sparse_input"]``),
        the centred data, ``M`` (k x n), the labels of a run and of the best restart."""
        n, item = int(n_samples), np.dtype(dtype).itemsize
        scratch = 0
        if item != 8:
            scratch = 8 * n * n if (options or {}).get("sparse_input") \
                else min(BLOCK_BYTES, 8 * n * n)
        return n * n * item + scratch + 8 * n * (n_features + 2 * n_clusters + 6)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """``B = -diag(w) rho diag(w) / 2`` from raw data, in one n x n buffer."""
        n, d = X.shape
        alt = ("engine='matrix-free' (exact, O(n (k + D)) memory) or engine='auto'"
               if isinstance(semimetric, str) else "engine='low-rank' (approximate)")
        if np.dtype(dtype) == np.float64 and fits(n * n * 4):
            alt += ", or dtype='float32' (half the memory)"
        cls.check_memory(n, d, n_clusters=n_clusters, n_init=n_init, dtype=dtype,
                         alternative=alt)
        center, owner = None, (options or {}).get("owner", "pairwise")
        if isinstance(semimetric, str):  # the sums of M and q stay finite
            center = robust_center(X)
            check_semimetric_range(centred_sq_norm_max(X, center), semimetric, params,
                                   float(n) * n * np.max(w) ** 2,
                                   owner=f"{owner}: engine={cls.name!r}")
        B = pairwise_unchecked(X, None, semimetric, out=np.empty((n, n), dtype=dtype),
                               center=center, scale=-0.5, wx=w, owner=owner, **params)
        eng = cls(B, w, semimetric=semimetric, params=dict(params))
        eng.kernel_max = (0.5 * rho_max(semimetric, params, diameter_sq(X))
                          if isinstance(semimetric, str) else abs_max(B) / np.min(w) ** 2)
        return eng

    @classmethod
    def from_matrix(cls, A, w, *, is_gram, dtype=np.float64, n_clusters, n_init=1):
        """From a precomputed semimetric (``K = -A/2``) or Gram matrix (``K = A``)."""
        n = A.shape[0]
        cls.check_memory(n, n, n_clusters=n_clusters, n_init=n_init, dtype=dtype,
                         options={"sparse_input": issparse(A)},
                         alternative="a sparse precomputed Gram matrix with engine='sparse', "
                         "or dtype='float32'")
        # in C order whatever the caller's layout: the kernels are compiled for one
        B = A.toarray().astype(dtype, copy=False) if issparse(A) \
            else np.array(A, dtype=dtype, order="C", copy=True)
        if not is_gram:
            B *= -0.5
        kernel_max = abs_max(B)
        _weight_in_place(B, w)
        eng = cls(B, w, is_gram=bool(is_gram))
        eng.kernel_max = kernel_max
        return eng

    def build_m(self, labels, k):
        n = self.B.shape[0]
        return _dense.build_m_dense(self.B, labels, k, workers(n * n))

    def sweep_run(self, state, r):
        """One Hartigan sweep of run ``r``: O(n k) gains, O(n) per move."""
        return _dense.sweep_dense(self.B, self.w, self.diag, state.labels[r], state.M[r],
                                  state.s[r], state.q[r], state.cnt[r])

    def move_rows(self, points, old, new, M):
        _dense.move_rows_dense(self.B, points, old, new, M)

    def kmeanspp_labels(self, k, u, n_trials):
        """The kernel k-means++ seeding compiled whole on ``B``
        (:func:`kgroups._kernels.seeding.kmeanspp_dense`; ``u`` its uniforms)."""
        return _seeding.kmeanspp_dense(self.B, self.w, self.diag / (self.w * self.w), u, k,
                                       n_trials)

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
