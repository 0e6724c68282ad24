"""Matrix-free backend: exact kernel k-groups without the n x n kernel.

Holds the centred data and the weights; every kernel entry
``B[i, y] = -w_i w_y rho(x_i, x_y) / 2`` is computed when needed. Memory is
O(n (k + D)); building ``M`` costs O(n^2 D) (blocked, multi-threaded) and a move
O(n D), applied in batches of pending moves (see :mod:`kgroups._engine.matrix_free`).
"""

from __future__ import annotations

import numba
import numpy as np

from .._engine import matrix_free as _mf
from .._engine._parallel import pick
from .._engine.semimetric import NAMES, kernel_args
from .._semimetrics import centred_sq_norm_max, check_semimetric_range, pairwise_unchecked
from ._base import Engine
from ._memory import check_fits, fits

__all__ = ["MatrixFreeEngine"]

# Pending moves applied to M at once (each decision pays O(D) per pending move).
BATCH = 256


# Restarts whose M one pass over the pairs builds together (see build_ms).
MULTI_STARTS = 10


class MatrixFreeEngine(Engine):
    """Exact engine that never stores the kernel (named semimetrics on raw data).

    Same decisions as :class:`~kgroups._backends.dense.DenseEngine` from the same
    start (up to floating-point ties): ``M`` is exact and each decision sees the
    column the move-at-a-time algorithm would see.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    w : ndarray of shape (n_samples,)
    semimetric : str
        One of :data:`kgroups.SEMIMETRICS`.
    params : dict
        ``alpha``, ``sigma``, ``theta``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]])
    >>> eng = MatrixFreeEngine.from_semimetric(X, np.ones(4), "energy", {}, n_clusters=2)
    >>> eng.build_m(np.array([0, 0, 1, 1]), 2).round(2).tolist()
    [[-0.5, -0.5, -4.5, -5.5], [-5.5, -4.5, -0.5, -0.5]]
    """

    name = "matrix-free"

    def __init__(self, X, w, semimetric, params):
        if semimetric not in NAMES:
            raise ValueError(
                f"engine='matrix-free' needs a named semimetric (one of {NAMES}), "
                f"got semimetric={semimetric!r}; use engine='dense' or engine='low-rank'")
        X = np.asarray(X, dtype=np.float64)
        n = X.shape[0]
        w = np.asarray(w, dtype=np.float64)
        # the entries of B, and the sums of up to n^2 of them in M and q, stay finite
        check_semimetric_range(centred_sq_norm_max(X), semimetric, params,
                               float(n) * n * np.max(w, initial=0.0) ** 2,
                               owner="engine='matrix-free'")
        self.X = np.ascontiguousarray(X - X.mean(axis=0))
        self.XT = np.ascontiguousarray(self.X.T)
        self.w = w
        self.diag = np.zeros(n)
        self.semimetric = semimetric
        self.params = dict(params)
        self._args = kernel_args(semimetric, params)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """From raw data; ``dtype`` is ignored (everything is computed in float64)."""
        n, d = X.shape
        cls.check_memory(n, d, n_clusters=n_clusters, n_init=n_init,
                         alternative="engine='low-rank' (approximate, O(n m) memory) or "
                         "fewer clusters")
        return cls(X, w, semimetric, params)

    @classmethod
    def from_matrix(cls, A, w, *, is_gram, dtype=np.float64, n_clusters, n_init=1):
        raise ValueError("engine='matrix-free' needs raw data and a named semimetric, not a "
                         "precomputed matrix; use engine='dense' or engine='sparse'")

    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        """Bytes a fit needs for n points in D dimensions and k clusters (float64).

        The centred data twice (row-major and transposed) and a label-sorted copy
        while ``M`` is built, the temporary of the centring; the build's k x n
        accumulator per worker, its sorted result and ``M`` (k x n each); weights,
        labels, the sort order and the best restart's labels (n each).
        """
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        # n_init > 1: one pass builds every start's M (n_init k x n per worker, and
        # the n_init results), see build_ms
        r = min(int(n_init), MULTI_STARTS) if n_init > 1 else 0
        return 8 * n * (4 * d + 6 + (2 + numba.get_num_threads()) * k
                        + r * (1 + numba.get_num_threads()) * k)

    def build_m(self, labels, k):
        """``M`` (k x n) in one pass over the n (n - 1) / 2 pairs: O(n^2 D) time, O(nk) memory."""
        labels = np.asarray(labels, dtype=np.int64)
        order = np.argsort(labels, kind="stable")
        labs = np.ascontiguousarray(labels[order])
        bounds = np.searchsorted(labs, np.arange(k + 1)).astype(np.int64)
        XTs = np.ascontiguousarray(self.XT[:, order])
        n = labels.shape[0]
        # work: n^2 / 2 pairs, 4 rows per inner step
        fn = pick(_mf.build_m_sym_serial, _mf.build_m_sym, n * n // 8)
        n_threads = 1 if fn is _mf.build_m_sym_serial else numba.get_num_threads()
        Ms = fn(XTs, self.w[order], labs, bounds, n_threads, *self._args)
        M = np.empty_like(Ms)
        M[:, order] = Ms
        return M

    def build_ms(self, starts, k):
        """``M`` for every start, up to :data:`MULTI_STARTS` starts per pass over the
        pairs (:func:`build_m_multi`): restarts share the O(n^2 D) distance work and
        each adds O(n^2) sums. Fewer per pass when their accumulators do not fit."""
        if len(starts) == 1:
            yield self.build_m(starts[0], k)
            return
        n = len(starts[0])
        n_threads = numba.get_num_threads()
        group = min(len(starts), MULTI_STARTS)
        while group > 1 and not fits(8 * n * k * group * (1 + n_threads)):
            group //= 2
        for g0 in range(0, len(starts), group):
            chunk = starts[g0:g0 + group]
            if len(chunk) == 1:
                yield self.build_m(chunk[0], k)
                continue
            labs = np.ascontiguousarray(np.stack([np.asarray(l, dtype=np.int64) for l in chunk]))
            fn = pick(_mf.build_m_multi_serial, _mf.build_m_multi, n * n * len(chunk) // 4)
            Ms = fn(self.XT, self.w, labs, k,
                    1 if fn is _mf.build_m_multi_serial else n_threads, *self._args)
            for r in range(len(chunk)):
                yield np.ascontiguousarray(Ms[r * k:(r + 1) * k])

    def sweep(self, labels, M, s, q, cnt):
        """One Hartigan sweep in place; moves are applied to ``M`` in batches."""
        n = labels.shape[0]
        pend = np.empty(BATCH, dtype=np.int64)
        old = np.empty(BATCH, dtype=np.int64)
        new = np.empty(BATCH, dtype=np.int64)
        i, total = 0, 0
        while i < n:
            i, n_pend, moves = _mf.decide_mf(self.X, self.w, labels, M, s, q, cnt, i,
                                             pend, old, new, 0, *self._args)
            total += moves
            if n_pend:
                self._apply(pend, old, new, n_pend, M)
        return total

    def move_rows(self, points, old, new, M):
        """Apply a batch of moves to ``M`` (kernel k-means)."""
        points = np.ascontiguousarray(points, dtype=np.int64)
        self._apply(points, np.ascontiguousarray(old, dtype=np.int64),
                    np.ascontiguousarray(new, dtype=np.int64), points.shape[0], M)

    def _apply(self, pend, old, new, n_pend, M):
        # work: n_pend x n pairs, 4 movers per inner step
        fn = pick(_mf.apply_moves_mf_serial, _mf.apply_moves_mf, n_pend * self.X.shape[0] // 4)
        fn(self.X, self.XT, self.w, pend, old, new, n_pend, M, *self._args)

    def column(self, c):
        """Column ``c`` of the unweighted kernel ``K = -rho/2``."""
        fn = pick(_mf.kernel_column_mf_serial, _mf.kernel_column_mf, self.X.shape[0] * 64)
        return fn(self.X, self.XT, self.w, int(c), *self._args)

    def gram(self):
        """Dense ``K = -rho/2`` (small problems only; checked against free memory)."""
        n = self.X.shape[0]
        check_fits(8 * n * n, f"the dense Gram matrix for n={n} (spectral init)",
                   "init='k-means++'")
        return pairwise_unchecked(self.X, None, self.semimetric, scale=-0.5, **self.params)
