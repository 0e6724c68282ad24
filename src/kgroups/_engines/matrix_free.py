"""Matrix-free backend: exact kernel k-groups without the n x n kernel.

Holds the centred data and the weights; every kernel entry
``B[i, y] = -w_i w_y rho(x_i, x_y) / 2`` is computed when needed. Memory is
O(n (k + D)); building ``M`` costs O(n^2 D) (blocked, multi-threaded) and a move
O(n D), applied in batches of pending moves (see :mod:`kgroups._kernels.pairs_on_the_fly`).
"""

from __future__ import annotations

import numpy as np

from .._kernels import pairs_on_the_fly as _mf
from .._kernels.bounds import refresh_bounds, refresh_bounds_serial
from .._kernels.gain import class_signatures, sum_classes
from .._kernels.jit import num_threads
from .._kernels.parallel import pick
from .._kernels.semimetric import NAMES, NEGATIVE_TYPE, kernel_args
from .._semimetrics import (centred_sq_norm_max, check_semimetric_range, diameter_sq,
                            pairwise_unchecked, rho_max, robust_center)
from .engine import Bounds, Capabilities, Engine
from .._memory import check_fits, fits

# Pending moves applied to M at once (each decision pays O(D) per pending move), at
# most BATCH, and applied as soon as the decisions have paid PENDING_WORK such
# corrections since the first of them (about the fixed cost of one parallel apply).
BATCH = 256
PENDING_WORK = 4096
# The runs swept in lockstep that follow the one furthest behind may carry their
# lists further (up to that run's position), so that all apply together.
FOLLOW_WORK = 4 * PENDING_WORK


# decide_mf's bounds of the errors of q: none (the matrix-free engine's sums are exact)
NO_ERRORS = np.zeros(0)

# Restarts run at once (their M built by one pass over the pairs, see build_ms), and
# the classes of points with one label in each of them that the pass sums apart, per
# cluster: beyond that many classes the pass feeds each start's sums directly
# (benchmarks/bench_tail.py --part restarts compares the two).
MULTI_STARTS = 10
SIGNATURES_PER_CLUSTER = 64


class MatrixFreeEngine(Engine):
    """Exact engine that never stores the kernel (named semimetrics on raw data).

    Same decisions as :class:`~kgroups._engines.dense.DenseEngine` from the same
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
    capabilities = Capabilities(
        exact=True, inputs=("raw data",), semimetrics="named",
        memory="the data and the cluster sums, O(n (k + D)); the kernel computed on the fly")
    # The cost model of engine="auto", as DenseEngine's (fitted together by
    # benchmarks/bench_auto.py --fit); below MIN_N_MODELLED points (where the
    # calibration grid starts, and a fit is quick with either engine) the dense engine
    # is preferred whenever it fits.
    COST_CONSTANTS = (3.19e-11, 4.98e-11, 0.0, 2.01e-06)
    MIN_N_MODELLED = 2000

    @classmethod
    def cost_features(cls, n_samples, n_features, n_init):
        """The work of a fit of n points, D columns and r starts: n^2 D ceil(r /
        MULTI_STARTS) (one pass over the pairs per group of starts), r n^2 (each
        start's sums in that pass), r n^2 D (moves cost O(n D)) and r n (as dense)."""
        n, d, r = float(n_samples), float(max(n_features, 1)), float(max(n_init, 1))
        passes = float(-(-int(r) // MULTI_STARTS))
        return (n * n * d * passes, r * n * n, r * n * n * d, r * n)

    @classmethod
    def predicted_seconds(cls, n_samples, n_features, *, n_clusters, n_init):
        if n_samples < cls.MIN_N_MODELLED:
            return float("inf")
        feats = cls.cost_features(n_samples, n_features, n_init)
        return float(sum(c * f for c, f in zip(cls.COST_CONSTANTS, feats)))

    def __init__(self, X, w, semimetric, params):
        if semimetric not in NAMES:
            raise ValueError(
                f"engine='matrix-free' needs a named semimetric (one of {NAMES}), "
                f"got semimetric={semimetric!r}; use engine='dense' or engine='low-rank'")
        X = np.asarray(X, dtype=np.float64)
        n = X.shape[0]
        w = np.asarray(w, dtype=np.float64)
        # the entries of B, and the sums of up to n^2 of them in M and q, stay finite
        center = robust_center(X)
        check_semimetric_range(centred_sq_norm_max(X, center), semimetric, params,
                               float(n) * n * np.max(w, initial=0.0) ** 2,
                               owner="engine='matrix-free'")
        self.X = np.ascontiguousarray(X - center)
        self.kernel_max = 0.5 * rho_max(semimetric, params, diameter_sq(self.X))
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
        accumulator per worker (worker 0's is its sorted result) and ``M`` (k x n
        each); weights, labels, the sort order and the best restart's labels and
        the sweeps' four bounds (n each).
        Restarts: r starts' k x n sums per worker and the r results (see
        :meth:`build_ms`, which sums classes of points instead only when those
        sums fit in the memory free at the time; :meth:`group_size` runs fewer
        starts at once when these do not), and, as the r runs sweep together
        (:meth:`sweep`), their labels and four bounds (n each).
        """
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        t = num_threads()
        r = min(int(n_init), MULTI_STARTS) if n_init > 1 else 0
        return 8 * n * (4 * d + 10 + (1 + t) * k + (1 + t) * r * k + 5 * r)

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
        n_threads = 1 if fn is _mf.build_m_sym_serial else num_threads()
        acc = _mf.accumulators(n_threads, k, n)
        return fn(XTs, self.w[order], labs, bounds, acc, *self._args), order

    def group_size(self, starts, k):
        """Restarts run at once: up to :data:`MULTI_STARTS`, fewer when their sums
        (one set per worker in the pass that builds them) do not fit."""
        n = self.n_samples
        n_threads = num_threads()
        group = min(len(starts), MULTI_STARTS)
        while group > 1 and not fits(8 * n * group * (k * (1 + n_threads) + 5)):
            group //= 2
        return group

    def build_ms(self, starts, k):
        """``M`` of each start (R x k x n) in one pass over the pairs.

        Restarts seeded by k-means++ share most of their labels: the points with one
        label in every start form a few classes. Then one pass sums each class
        (:meth:`build_m` on the class labels, ``S[c, i] = sum_{y in class c} B[i,
        y]``) and a start's ``M[l]`` adds the rows of ``S`` whose class has label
        ``l`` in it, O(G n) for G classes. Starts that share little (random labels)
        make up to n classes; above :data:`SIGNATURES_PER_CLUSTER` k of them, or
        when those sums do not fit in memory, the pass feeds each start's own
        cluster sums instead (:func:`~kgroups._kernels.pairs_on_the_fly.build_m_multi`:
        each pair's rho once, one addition per start). Both are exact: only the
        order of the additions differs from one :meth:`build_m` per start.
        """
        if len(starts) == 1:
            return self.build_m(starts[0], k)[None]
        n, R = len(starts[0]), len(starts)
        n_threads = num_threads()
        labs = np.ascontiguousarray(starts, dtype=np.int64)
        sig, classes = class_signatures(labs, k)
        G = classes.shape[0]
        # the pass's G x n sums per worker, the group's M and one start's sorted M
        if G <= SIGNATURES_PER_CLUSTER * k and fits(8 * n * (G * n_threads + (R + 1) * k)):
            S, order = self._build_sorted(sig, G)
            Ms = np.empty((R, k, n))
            for r in range(R):
                Ms[r] = sum_classes(S, classes[:, r], k, order)
            return Ms
        return self._build_multi(labs, k)

    def _build_multi(self, labs, k):
        """``M`` of the R starts ``labs`` (R x n) from one pass over the pairs that
        feeds each start's sums (:func:`~kgroups._kernels.pairs_on_the_fly.build_m_multi`)."""
        R, n = labs.shape
        fn = pick(_mf.build_m_multi_serial, _mf.build_m_multi, n * n)
        acc = _mf.accumulators(1 if fn is _mf.build_m_multi_serial else num_threads(),
                               R * k, n)
        return fn(self.XT, self.w, labs, k, acc, *self._args).reshape(R, k, n)

    def begin(self, state):
        """Hartigan runs get skip bounds (used for a semimetric of negative type)."""
        if state.rule == "hartigan":
            state.bounds = Bounds.unknown(state.n_runs, self.n_samples, state.s.shape[1])

    def sweep(self, state):
        """One Hartigan sweep of every active run, the runs in lockstep (Lloyd's rule:
        the base class's iteration, run after run). Returns each run's moves.

        Each run makes the sequential decisions of paper Algorithm 2
        (:func:`~kgroups._kernels.pairs_on_the_fly.decide_mf`): moves are pending, and the
        column ``M[:, i]`` a decision reads is corrected for the pending movers, so
        every decision is the one the move-at-a-time algorithm makes. For a
        semimetric of negative type, points that a bound proves cannot move are
        skipped: each sweep starts from exact bounds computed from ``M`` (O(n k),
        :func:`~kgroups._kernels.bounds.refresh_bounds`), which widen with each
        move. The runs advance through the points together: the run furthest
        behind decides, the others catch up with it, and one
        :func:`~kgroups._kernels.pairs_on_the_fly.apply_moves` applies all their pending
        moves, computing each mover's kernel row once however many runs moved it
        (from random starts most points move in the first sweeps of every run).
        Only when pending moves are applied differs between runs swept alone and
        together, which no decision sees: the trajectories are the same.
        """
        if state.rule != "hartigan":
            return super().sweep(state)
        runs = [int(r) for r in np.flatnonzero(state.active)]
        R, n = state.n_runs, self.n_samples
        for r in runs:
            self._refresh_bounds(state, r)
        pend = np.empty((R, BATCH), dtype=np.int64)
        old = np.empty_like(pend)
        new = np.empty_like(pend)
        rows = np.empty((R, BATCH, self.X.shape[1]))  # the pending movers' rows
        n_pend = np.zeros(R, dtype=np.int64)
        pos = [0] * len(runs)
        total = np.zeros(R, dtype=np.int64)
        while min(pos) < n:
            lead = pos.index(min(pos))
            target = n
            for u in [lead] + [u for u in range(len(runs)) if u != lead]:
                if pos[u] >= target:
                    continue
                r = runs[u]
                pos[u], n_pend[r], moves, _ = self._decide(
                    state, r, pos[u], target, pend[r], old[r], new[r], rows[r],
                    PENDING_WORK if u == lead else FOLLOW_WORK)
                total[r] += moves
                if u == lead:
                    target = pos[u]
            if n_pend.any():
                self._apply(pend, old, new, n_pend, state.M)
                n_pend[:] = 0
        return total

    def _refresh_bounds(self, state, r):
        """Run ``r``'s bounds made exact from its ``M`` (no move is pending)."""
        if self.semimetric not in NEGATIVE_TYPE:
            return
        # d_l^2 = K_ii + q_l / s_l^2 - 2 M[l, i] / (w_i s_l), K_ii = 0 (self.diag,
        # B_ii = w_i^2 K_ii, is all zeros: the base terms)
        s, q, b = state.s[r], state.q[r], state.bounds
        e = q / np.where(s > 0, s, 1.0) ** 2
        fn = pick(refresh_bounds_serial, refresh_bounds, self.n_samples * s.shape[0])
        fn(state.M[r], state.labels[r], self.w, s, self.diag, self.diag, e, np.abs(e),
           b.up[r], b.lo[r], b.own[r], b.all[r], b.drift[r])

    def _decide(self, state, r, start, stop, pend, old, new, rows, budget):
        b = state.bounds
        return _mf.decide_mf(
            self.X, 0, self.w, state.labels[r], state.M[r], state.s[r], state.q[r],
            state.cnt[r], start, stop, pend, old, new, rows, 0, budget,
            self.semimetric in NEGATIVE_TYPE, b.up[r], b.lo[r], b.own[r], b.all[r],
            b.drift[r], 0.0, NO_ERRORS, *self._args)

    def move_rows(self, points, old, new, M):
        """Apply a batch of moves to ``M`` (kernel k-means)."""
        points = np.ascontiguousarray(points, dtype=np.int64)
        self._apply_one(points, np.ascontiguousarray(old, dtype=np.int64),
                        np.ascontiguousarray(new, dtype=np.int64), points.shape[0], M)

    def _apply(self, pend, old, new, n_pend, Ms):
        """Pending moves applied to ``Ms`` (R x k x n; R x cap lists, ``n_pend`` (R,))."""
        # work: the moves' kernel rows, n entries each
        fn = pick(_mf.apply_moves_serial, _mf.apply_moves, int(n_pend.sum()) * Ms.shape[2])
        fn(self.XT, self.w, pend, old, new, n_pend, Ms, *self._args)

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
