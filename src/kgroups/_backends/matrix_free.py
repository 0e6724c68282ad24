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
from .._engine._bounds import refresh_bounds, refresh_bounds_serial
from .._engine._gain import class_signatures, sum_classes
from .._engine._parallel import pick
from .._engine.semimetric import NAMES, NEGATIVE_TYPE, kernel_args
from .._semimetrics import centred_sq_norm_max, check_semimetric_range, pairwise_unchecked
from ._base import Engine
from ._memory import check_fits, fits

__all__ = ["MatrixFreeEngine"]

# Pending moves applied to M at once (each decision pays O(D) per pending move), at
# most BATCH, and applied as soon as the decisions have paid PENDING_WORK such
# corrections since the first of them (about the fixed cost of one parallel apply).
BATCH = 256
PENDING_WORK = 4096
# The runs of sweep_batch that follow the one furthest behind may carry their lists
# further (up to that run's position), so that all apply together.
FOLLOW_WORK = 4 * PENDING_WORK


# Restarts whose M one pass over the pairs builds together (see build_ms), and the
# classes of points with one label in each of them that the pass may sum apart, per
# cluster. The starts of benchmarks/bench_tail.py --part restarts --seeds 0,1,2
# (20,000 overlapping points, 10 k-means++ starts of k = 10) make 340-397 classes:
# the class pass took 0.18-0.25 s, the pass feeding each start's sums 0.37-0.49 s
# (both timed in one process); with 587 classes (starts perturbed at random) 0.27-0.48 s
# against 0.46 s. End to end that part took 0.48-0.69 s against 0.65-0.77 s with the
# former cap of 32 (benchmarks/results/bench_tail_restarts_ab.txt).
MULTI_STARTS = 10
SIGNATURES_PER_CLUSTER = 64


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
        self.nrm = np.empty(n)
        _mf.sq_norms(self.XT, 0, n, self.nrm)
        self.w = w
        self.diag = np.zeros(n)
        self.semimetric = semimetric
        self.params = dict(params)
        self._args = kernel_args(semimetric, params)
        self._runs = {}  # bounds of the runs in progress (see sweep, sweep_batch)

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
        accumulator per worker (worker 0's is its sorted result) and ``M`` (k x n
        each); weights, labels, the sort order and the best restart's labels, the
        squared norms and the sweeps' four bounds (n each).
        Restarts: r starts' k x n sums per worker and the r results (see
        :meth:`build_stacks`, which sums classes of points instead only when those
        sums fit in the memory free at the time, and groups fewer starts when
        these do not), and, as the r runs sweep together (:meth:`sweep_batch`),
        their labels and four bounds (n each).
        """
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        t = numba.get_num_threads()
        r = min(int(n_init), MULTI_STARTS) if n_init > 1 else 0
        return 8 * n * (4 * d + 11 + (1 + t) * k + (1 + t) * r * k + 5 * r)

    def build_m(self, labels, k):
        """``M`` (k x n) in one pass over the n (n - 1) / 2 pairs: O(n^2 D) time, O(nk) memory."""
        Ms, order = self._build_sorted(labels, k)
        M = np.empty_like(Ms)
        M[:, order] = Ms
        return M

    def _build_sorted(self, labels, k):
        """``(Ms, order)``: :meth:`build_m`'s sums with the columns in the order
        ``order`` (the points sorted by label, as the pass computes them)."""
        labels = np.asarray(labels, dtype=np.int64)
        order = np.argsort(labels, kind="stable")
        labs = np.ascontiguousarray(labels[order])
        bounds = np.searchsorted(labs, np.arange(k + 1)).astype(np.int64)
        XTs = np.ascontiguousarray(self.XT[:, order])
        n = labels.shape[0]
        # work: n^2 / 2 pairs
        fn = pick(_mf.build_m_sym_serial, _mf.build_m_sym, n * n // 2)
        n_threads = 1 if fn is _mf.build_m_sym_serial else numba.get_num_threads()
        acc = _mf.accumulators(n_threads, k, n)
        return fn(XTs, self.w[order], labs, bounds, acc, *self._args), order

    def build_ms(self, starts, k):
        """``M`` for every start, in the order of ``starts`` (a generator): the rows
        of :meth:`build_stacks`."""
        for Ms in self.build_stacks(starts, k):
            yield from Ms

    def build_stacks(self, starts, k):
        """``M`` for every start, one pass over the pairs per group of up to
        :data:`MULTI_STARTS` starts: a generator of arrays (starts of the group x
        k x n), groups in the order of ``starts``.

        Restarts seeded by k-means++ share most of their labels: the points with
        one label in every start of the group form a few classes (at 20k
        overlapping points, 10 starts of k = 10 make 220 to 470, by seed). Then one pass
        sums each class (:meth:`build_m` on the class labels,
        ``S[c, i] = sum_{y in class c} B[i, y]``) and a start's ``M[l]`` adds the
        rows of ``S`` whose class has label ``l`` in it, O(G n) for G classes:
        ten starts cost about two builds. Starts that share little (random
        labels) make up to n classes; above :data:`SIGNATURES_PER_CLUSTER` k of
        them, or when those sums do not fit in memory, the pass feeds each
        start's own cluster sums instead (:func:`build_m_multi`: each pair's rho
        once, one addition per start). Both are exact: only the order of the
        additions differs from one :meth:`build_m` per start.
        """
        if len(starts) == 1:
            yield self.build_m(starts[0], k)[None]
            return
        n = len(starts[0])
        n_threads = numba.get_num_threads()
        group = min(len(starts), MULTI_STARTS)
        while group > 1 and not fits(8 * n * group * (k * (1 + n_threads) + 5)):
            group //= 2
        for g0 in range(0, len(starts), group):
            chunk = starts[g0:g0 + group]
            if len(chunk) == 1:
                yield self.build_m(chunk[0], k)[None]
                continue
            labs = np.ascontiguousarray(np.stack([np.asarray(l, dtype=np.int64) for l in chunk]))
            sig, classes = class_signatures(labs, k)
            G = classes.shape[0]
            # the pass's G x n sums per worker, the group's M and one start's sorted M
            if G <= SIGNATURES_PER_CLUSTER * k and fits(
                    8 * n * (G * n_threads + (len(chunk) + 1) * k)):
                S, order = self._build_sorted(sig, G)
                Ms = np.empty((len(chunk), k, n))
                for r in range(len(chunk)):
                    Ms[r] = sum_classes(S, classes[:, r], k, order)
                yield Ms
                continue
            fn = pick(_mf.build_m_multi_serial, _mf.build_m_multi, n * n)
            acc = _mf.accumulators(1 if fn is _mf.build_m_multi_serial else n_threads,
                                   len(chunk) * k, n)
            Ms = fn(self.XT, self.w, labs, k, acc, *self._args)
            yield Ms.reshape(len(chunk), k, n)

    def sweep(self, labels, M, s, q, cnt):
        """One Hartigan sweep in place; moves are applied to ``M`` in batches.

        For a semimetric of negative type, points that a bound proves cannot
        move are skipped (see :func:`~kgroups._engine.matrix_free.decide_mf`):
        the same moves as the sweep without bounds, at a cost of decisions that
        falls with the number of points still near a boundary. Each sweep starts
        from exact bounds computed from ``M`` (O(n k),
        :func:`~kgroups._engine._bounds.refresh_bounds`);
        within the sweep they widen with each move. The bound arrays belong to
        the run that owns ``M``.
        """
        st = self._bounds(M, None, labels, M, s, q)
        pend = np.empty(BATCH, dtype=np.int64)
        old = np.empty(BATCH, dtype=np.int64)
        new = np.empty(BATCH, dtype=np.int64)
        n = labels.shape[0]
        i, total = 0, 0
        while i < n:
            i, n_pend, moves = self._decide(st, labels, M, s, q, cnt, i, n, pend, old, new,
                                            PENDING_WORK)
            total += moves
            if n_pend:
                self._apply_one(pend, old, new, n_pend, M)
        return total

    def sweep_batch(self, runs, Ms):
        """One sweep of each of several runs, in lockstep: ``runs`` lists
        ``(r, labels, s, q, cnt)`` of the runs still moving, ``Ms[r]`` their ``M``
        (restarts; see :func:`kgroups._kgroups.kgroups_batch`). Returns each run's
        number of moves.

        Every run makes exactly the decisions of :meth:`sweep` (same bounds, same
        columns; only when the pending moves are applied differs, which no
        decision sees). The runs advance through the points together: the run
        furthest behind decides as :meth:`sweep` does, the others catch up with it,
        and one :func:`~kgroups._engine.matrix_free.apply_moves` applies all
        their pending moves, computing each mover's kernel row once however many
        runs moved it. From random starts most points move in the first sweeps of
        every run, so the runs share most of the O(n D) cost of a move.
        """
        R = len(runs)
        n = Ms.shape[2]
        states = [self._bounds(Ms, r, labels, Ms[r], s, q) for r, labels, s, q, _ in runs]
        pend = np.empty((Ms.shape[0], BATCH), dtype=np.int64)
        old = np.empty_like(pend)
        new = np.empty_like(pend)
        n_pend = np.zeros(Ms.shape[0], dtype=np.int64)
        pos = [0] * R
        total = [0] * R
        while min(pos) < n:
            lead = pos.index(min(pos))
            target = n
            for u in [lead] + [u for u in range(R) if u != lead]:
                if pos[u] >= target:
                    continue
                r, labels, s, q, cnt = runs[u]
                pos[u], n_pend[r], moves = self._decide(
                    states[u], labels, Ms[r], s, q, cnt, pos[u], target, pend[r], old[r],
                    new[r], PENDING_WORK if u == lead else FOLLOW_WORK)
                total[u] += moves
                if u == lead:
                    target = pos[u]
            if n_pend.any():
                self._apply(pend, old, new, n_pend, Ms)
                n_pend[:] = 0
        return total

    def _bounds(self, owner, r, labels, M, s, q):
        """The bound arrays of the run whose ``M`` is ``owner`` (``owner[r]`` for a
        run of :meth:`sweep_batch`), made exact from ``M`` (no move is pending)."""
        key = (id(owner), r)
        st = self._runs.get(key)
        n, k = labels.shape[0], M.shape[0]
        if st is None or st["owner"] is not owner:
            st = self._runs[key] = {"owner": owner, "up": np.full(n, np.inf),
                                    "lo": np.zeros(n), "own": np.zeros(n),
                                    "all": np.zeros(n), "drift": np.zeros(k + 1)}
        st["bounded"] = self.semimetric in NEGATIVE_TYPE
        if st["bounded"]:  # exact bounds for every point, from M:
            # d_l^2 = K_ii + q_l / s_l^2 - 2 M[l, i] / (w_i s_l), K_ii = 0 (self.diag,
            # B_ii = w_i^2 K_ii, is all zeros: the base terms)
            e = q / np.where(s > 0, s, 1.0) ** 2
            fn = pick(refresh_bounds_serial, refresh_bounds, n * k)
            fn(M, labels, self.w, s, self.diag, self.diag, e, np.abs(e), st["up"], st["lo"],
               st["own"], st["all"], st["drift"])
        return st

    def _decide(self, st, labels, M, s, q, cnt, start, stop, pend, old, new, budget):
        return _mf.decide_mf(
            self.X, self.w, labels, M, s, q, cnt, start, stop, pend, old, new, 0, budget,
            st["bounded"], st["up"], st["lo"], st["own"], st["all"], st["drift"], *self._args)

    def sync(self, labels, M):
        """End of a run: forget its bounds (``M`` is always up to date)."""
        st = self._runs.get((id(M), None))
        if st is not None and st["owner"] is M:
            del self._runs[(id(M), None)]

    def sync_batch(self, Ms):
        """End of the runs of :meth:`sweep_batch` on ``Ms``: forget their bounds."""
        for key in [key for key, st in self._runs.items() if st["owner"] is Ms]:
            del self._runs[key]

    def move_rows(self, points, old, new, M):
        """Apply a batch of moves to ``M`` (kernel k-means)."""
        points = np.ascontiguousarray(points, dtype=np.int64)
        self._apply_one(points, np.ascontiguousarray(old, dtype=np.int64),
                        np.ascontiguousarray(new, dtype=np.int64), points.shape[0], M)

    def _apply(self, pend, old, new, n_pend, Ms):
        """Pending moves applied to ``Ms`` (R x k x n; R x cap lists, ``n_pend`` (R,))."""
        # work: the moves' kernel rows, n entries each
        fn = pick(_mf.apply_moves_serial, _mf.apply_moves, int(n_pend.sum()) * Ms.shape[2])
        fn(self.X, self.XT, self.w, self.nrm, pend, old, new, n_pend, Ms, *self._args)

    def _apply_one(self, pend, old, new, n_pend, M):
        """Pending moves of one run applied to its ``M``."""
        self._apply(pend[None], old[None], new[None], np.array([n_pend], dtype=np.int64),
                    M[None])

    def column(self, c):
        """Column ``c`` of the unweighted kernel ``K = -rho/2``."""
        fn = pick(_mf.kernel_column_mf_serial, _mf.kernel_column_mf, self.X.shape[0])
        return fn(self.X, self.XT, self.w, int(c), *self._args)

    def gram(self):
        """Dense ``K = -rho/2`` (small problems only; checked against free memory)."""
        n = self.X.shape[0]
        check_fits(8 * n * n, f"the dense Gram matrix for n={n} (spectral init)",
                   "init='k-means++'")
        return pairwise_unchecked(self.X, None, self.semimetric, scale=-0.5, **self.params)
