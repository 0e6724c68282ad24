"""Matrix-free backend: exact kernel k-groups without the n x n kernel.

Holds the centred data and the weights; every kernel entry
``B[i, y] = -w_i w_y rho(x_i, x_y) / 2`` is computed when needed. Memory is
O(n (k + D)); building ``M`` costs O(n^2 D) (blocked, multi-threaded) and a move
O(n D), applied in batches of pending moves (see :mod:`kgroups._kernels.pairs_on_the_fly`).

With ``dtype="float32"`` (or ``"auto"`` where it pays) Hartigan runs start from the
certified float32 pass (:mod:`kgroups._kernels.pairs_mixed`): ``M~``, whose entries of
a point's own start cluster are float64 sums and the others within a proven bound
(float32 sums, or, for the pairs of two clusters the pass leaves out, bounds from the
clusters' means, :mod:`kgroups._kernels.centroid`); every decision is certified
against that bound and made again from exact float64 values where it cannot be
(:mod:`kgroups._kernels.certify`), so the runs make the float64 runs' moves, and
their ``q`` (hence W) is made exact before it is reported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import centroid as _centroid
from .._kernels import certify as _cert
from .._kernels.certify import Certificate
from .._kernels import pairs_mixed as _mixed
from .._kernels import pairs_on_the_fly as _mf
from .._kernels.bounds import refresh_bounds, refresh_bounds_margin
from .._kernels.gain import class_signatures, cluster_stats, sum_classes
from .._kernels.jit import kernel_array, num_threads
from .._kernels.parallel import workers
from .._kernels.semimetric import NAMES, NEGATIVE_TYPE, kernel_args
from .._semimetrics import (centred_sq_norm_max, check_semimetric_range, diameter_sq,
                            pairwise_unchecked, rho_max, robust_center)
from .engine import Bounds, Capabilities, Engine, RunState, is_auto
from .._memory import check_fits, fits

# Pending moves applied to M at once (each decision pays O(D) per pending move), at
# most BATCH, and applied as soon as the decisions have paid PENDING_WORK such
# corrections since the first of them (about the fixed cost of one parallel apply).
BATCH = 256
PENDING_WORK = 4096
# The runs swept in lockstep that follow the one furthest behind may carry their
# lists further (up to that run's position), so that all apply together: this many
# times the leading run's work.
FOLLOW_SHARE = 4


# decide_mf's bounds of the errors of q: none (the matrix-free engine's sums are exact)
NO_ERRORS = np.zeros(0)
# decide_certified's cache of exact columns, before any was computed
NO_DELTA = np.zeros((1, 0))
NO_KNOWN = np.zeros(0, dtype=bool)
# decide_certified's per-entry error bounds where none were made (eps T_l for all)
NO_ENTRY_ERRORS = np.zeros((1, 0))

# Restarts run at once (their M built by one pass over the pairs, see build_ms), and
# the classes of points with one label in each of them that the pass sums apart, per
# cluster: beyond that many classes the pass feeds each start's sums directly
# (benchmarks/bench_tail.py --part restarts compares the two).
MULTI_STARTS = 10
SIGNATURES_PER_CLUSTER = 64

# The certified float32 pass (dtype="float32", or "auto" where it pays): the weights'
# spread it takes (larger spreads run in float64), the classes of a group of starts it
# sums at most (their G x G table of the pairs summed in float64), and what
# dtype="auto" asks before taking it (benchmarks/bench_dtype.py): enough points and
# features for the pass to be most of the fit (below, the sweeps are, and the
# decisions made again cost more than the pass saves), one start (restarts summed as
# classes compute in float64 the pairs that share a cluster in any start), and the
# energy distance with alpha in [1, 2] (where the pass can leave pairs out).
FLOAT32_WEIGHT_SPREAD = 2.0 ** 40
FLOAT32_MAX_CLASSES = 2048
AUTO_FLOAT32_MIN_N = 40_000
AUTO_FLOAT32_MIN_FEATURES = 8
# ... and, at the start, the clusters apart enough that the pass leaves out at least
# this share of the pairs of two clusters (their sums bounded from the means, alpha in
# [1, 2]): where they overlap more, many points move, and each move of the certified
# runs costs more than a float64 run's (its point's exact column, the certificate).
AUTO_MIN_LEFT_OUT = 0.5

# The certified pass of one start leaves out the pairs of two start clusters whose sums
# the clusters' means bound (kgroups._kernels.centroid; the energy distance with alpha
# in [1, 2]) where that costs less than it saves: leaving out clusters a and b saves
# their n_a n_b pairs, and each point whose decision the bounds may not certify costs
# its exact column, n float64 entries, about FALLBACK_COST pairs of the pass each
# (the float64 loop's time per entry over the float32 pass's per pair,
# benchmarks/bench_roofline.py).
FALLBACK_COST = 2.0


@dataclass
class MatrixFreeRunState(RunState):
    """A run state with the certificate of the mixed pass (None: float64 sums)."""

    cert: Certificate | None = None


@dataclass
class Pending:
    """The pending moves of R runs in a sweep (R x BATCH lists, their rows, counts)."""

    pend: np.ndarray
    old: np.ndarray
    new: np.ndarray
    rows: np.ndarray
    n_pend: np.ndarray

    @classmethod
    def empty(cls, R, d, batch=BATCH):
        pend = np.empty((R, batch), dtype=np.int64)
        return cls(pend, np.empty_like(pend), np.empty_like(pend), np.empty((R, batch, d)),
                   np.zeros(R, dtype=np.int64))


class MatrixFreeEngine(Engine):
    """Exact engine that never stores the kernel (named semimetrics on raw data).

    Same decisions as :class:`~kgroups._engines.dense.DenseEngine` from the same
    start (up to floating-point ties): ``M`` is exact and each decision sees the
    column the move-at-a-time algorithm would see. With ``float32`` (``True`` or
    ``"auto"``) the Hartigan runs start from the certified float32 pass
    (:meth:`start`): the same decisions, each certified or made again in float64.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    w : ndarray of shape (n_samples,)
    semimetric : str
        One of :data:`kgroups.SEMIMETRICS`.
    params : dict
        ``alpha``, ``sigma``, ``theta``.
    float32 : bool or "auto", default=False
        Use the certified float32 pass where the data allow it (float64 otherwise,
        ``engine_stats_["pass_dtype"]`` says why).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]])
    >>> eng = MatrixFreeEngine.from_semimetric(X, np.ones(4), "energy", {}, n_clusters=2)
    >>> eng.build_m(np.array([0, 0, 1, 1]), 2).round(2).tolist()
    [[-0.5, -0.5, -4.5, -5.5], [-5.5, -4.5, -0.5, -0.5]]
    """

    name = "matrix-free"
    state_class = MatrixFreeRunState
    # The certified float32 pass (None: float64 sums only), see _float32_data; the
    # counts of its fall-backs (engine_stats_).
    _f32 = None
    _f32_counts = None
    _candidates = None  # the runs whose q finish makes exact (None: all)
    capabilities = Capabilities(
        exact=True, inputs=("raw data",), semimetrics="named",
        memory="the data and the cluster sums, O(n (k + D)); the kernel computed on the fly")
    # The cost model of engine="auto", as DenseEngine's (fitted together by
    # benchmarks/bench_auto.py --fit). Below MIN_N_MODELLED points the dense engine is
    # preferred whenever it fits: a fit there takes well under a second with either
    # engine, and the dense engine's few kernels compile in seconds on the first fit
    # after an install, where this engine's pass over the pairs and its moves take a
    # quarter of a minute (benchmarks/bench_startup.py --first-fits).
    COST_CONSTANTS = (3.19e-11, 4.98e-11, 0.0, 2.01e-06)
    MIN_N_MODELLED = 5000

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

    def __init__(self, X, w, semimetric, params, float32=False):
        if semimetric not in NAMES:
            raise ValueError(
                f"engine='matrix-free' needs a named semimetric (one of {NAMES}), "
                f"got semimetric={semimetric!r}; use engine='dense' or engine='low-rank'")
        X = np.asarray(X, dtype=np.float64)
        n = X.shape[0]
        w = kernel_array(w, np.float64)
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
        self._auto32 = isinstance(float32, str)  # "auto": float64 where it would not pay
        if float32:
            self._float32_data()

    def _float32_data(self):
        """The certified float32 pass: the data centred on their box's midpoint in
        float32, the weights in float32 and the pass's error bounds
        (:func:`~kgroups._kernels.certify.pass_errors`). Where the data's spread or the
        weights' is beyond what it certifies, the fit runs in float64 (the same labels
        and W) and ``engine_stats_["pass_dtype"]`` says why."""
        XT32, half = _cert.float32_rows(self.X)
        eps, eps64 = _cert.pass_errors(self.semimetric, self.params, half, self.kernel_max,
                                       self.n_samples)
        w = self.w
        spread = float(np.max(w) / np.min(w)) if w.size else 1.0
        why = None
        if not np.isfinite(eps):
            why = (f"the data's half-spread {float(np.sqrt(np.sum(half * half))):.3g} is "
                   "outside what float32 passes evaluate with a certified error ([1e-15, "
                   "1e15])")
        elif not spread <= FLOAT32_WEIGHT_SPREAD or not 2.0 ** -60 < np.max(w) < 2.0 ** 60:
            why = (f"sample_weight spans {spread:.3g} (float32 sums take at most "
                   f"{FLOAT32_WEIGHT_SPREAD:.3g}, weights between 2**-60 and 2**60)")
        if why is not None:
            self._f32_counts = {"why": f"float32 not certifiable: {why}"}
            return
        self._f32 = {"XT32": XT32, "eps": eps, "eps64": eps64}
        self._f32_counts = {"uncertain": 0, "exact_q": 0, "float64_groups": 0}

    @classmethod
    def resolve_dtype(cls, dtype, n_samples, n_features, *, n_clusters, n_init, semimetric,
                      params):
        """What this engine's constructor gets for ``dtype``: float64 or float32 as
        asked; for ``"auto"``, ``"auto"`` where the certified pass may pay: at least
        :data:`AUTO_FLOAT32_MIN_N` points and :data:`AUTO_FLOAT32_MIN_FEATURES`
        features, one start, the energy distance with ``1 <= alpha <= 2`` (where the
        pass can leave pairs out); float64 otherwise. With ``"auto"`` the start then
        decides (:meth:`_build_certified`): the certified pass where it leaves out at
        least :data:`AUTO_MIN_LEFT_OUT` of the pairs of two clusters, float64 where
        the clusters overlap more, or where the data cannot be certified
        (``benchmarks/bench_dtype.py`` has the study)."""
        if not is_auto(dtype):
            return np.dtype(dtype)
        if cls.from_semimetric.__func__ is not MatrixFreeEngine.from_semimetric.__func__:
            return np.dtype(np.float64)  # a subclass whose constructor has its own dtypes
        alpha = float(params.get("alpha", 1.0))
        if (n_samples >= AUTO_FLOAT32_MIN_N and n_features >= AUTO_FLOAT32_MIN_FEATURES
                and n_init == 1 and semimetric == "energy" and 1.0 <= alpha <= 2.0):
            return "auto"
        return np.dtype(np.float64)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """From raw data. ``dtype="float32"``: the certified float32 pass over the pairs
        for kernel k-groups (:meth:`start`), an error where the data cannot be
        certified; ``"auto"`` (from :meth:`resolve_dtype`): the same, in float64 where
        they cannot; float64: every sum and value in float64."""
        n, d = X.shape
        alternative = "engine='low-rank' (approximate, O(n m) memory) or fewer clusters"
        float32 = "auto" if is_auto(dtype) else np.dtype(dtype) == np.float32
        cls.check_memory(n, d, n_clusters=n_clusters, n_init=n_init,
                         dtype=np.float32 if float32 is True else np.float64,
                         alternative=alternative)
        if float32 == "auto" and not fits(cls.memory_bytes(
                n, d, n_clusters=n_clusters, n_init=n_init, dtype="auto")):
            float32 = False  # the certified pass's data do not fit: float64
        return cls(X, w, semimetric, params, float32=float32)

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
        (:meth:`sweep`), their labels and four bounds (n each). The certified
        float32 pass (``dtype`` float32 or ``"auto"``): the data in float32 twice (one
        label-sorted copy), the runs' start labels and, once a decision is made again
        from exact values, a k x n cache of exact columns per run; one start, the k x
        n error bounds of the entries whose pairs the pass left out.
        """
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        t = num_threads()
        r = min(int(n_init), MULTI_STARTS) if n_init > 1 else 0
        # the certified float32 pass: the data in float32 twice (one sorted copy), the
        # weights in float32 and the runs' start labels
        f32 = (n * (d + 1 + max(r, 1) * (1 + k) + (k if r == 0 else 0))
               if is_auto(dtype) or np.dtype(dtype) != np.float64 else 0)
        return 8 * n * (4 * d + 10 + (1 + t) * k + (1 + t) * r * k + 5 * r) + 8 * f32

    # -- the certified float32 pass ------------------------------------------------------
    def start(self, starts, k, rule):
        """The runs from ``starts``; with the certified float32 pass (``dtype`` float32 or
        ``"auto"``), Hartigan's rule and starts without an empty cluster, ``M~`` of
        each start from the mixed pass (:meth:`_build_certified`) and the certificate
        its decisions are checked against (:mod:`kgroups._kernels.certify`); else as
        every engine (float64 sums)."""
        labels = np.array(starts, dtype=np.int64)
        R = labels.shape[0]
        full = all(np.bincount(lab, minlength=k).min() > 0 for lab in labels)
        built, E, unsure = (self._build_certified(labels, k) if self._f32 is not None
                            and rule == "hartigan" and full else (None, None, None))
        if built is None:
            if self._f32 is not None and self._auto32:  # auto: float64 from now on
                self._f32_counts["why"] = ("dtype='auto': " + (
                    "kernel k-means (Lloyd's rule)" if rule != "hartigan"
                    else "a start with an empty cluster"))
                self._f32 = None
            elif self._f32 is not None:
                self._f32_counts["float64_groups"] += 1
            return super().start(starts, k, rule)
        s, q, cnt = np.empty((R, k)), np.empty((R, k)), np.empty((R, k), dtype=np.int64)
        for r in range(R):
            s[r], q[r], cnt[r] = cluster_stats(built[r], labels[r], self.w)
        cert = Certificate(labels.copy(), s.copy(), s.copy(), self._f32["eps64"] * s * s)
        if E is not None:  # pairs left out: the points they may not settle made known
            cert.E = [E]
            if unsure.size:
                delta, known = cert.cache(0, k)
                delta[:, unsure] = built[0][:, unsure] - self._exact_cols(labels[0], unsure, k)
                known[unsure] = True
        state = self.state_class(labels, built, s, q, cnt, rule, cert=cert)
        self.begin(state)
        return state

    def _build_certified(self, labels, k):
        """``(M~, E, unsure)``: ``M~`` of the starts ``labels`` (R x k x n) from one mixed
        pass over the pairs (:func:`~kgroups._kernels.pairs_mixed.build_m_mixed`): the pairs
        that share a cluster in some start in float64, the others in float32. Several
        starts are summed as classes of points (:meth:`build_ms`); ``M~`` None when
        they make more classes than :data:`FLOAT32_MAX_CLASSES` or their sums do not
        fit (those groups run in float64). One start may leave out the pairs of some
        clusters (:meth:`_left_out`): their entries are the midpoints of the bounds
        from the means, ``E`` (k x n, else None) the entries' error bounds and
        ``unsure`` the points whose decisions those bounds may not settle."""
        R, n = labels.shape
        if R == 1:
            sig, classes = labels[0], np.arange(k)[:, None]
        else:
            sig, classes = class_signatures(labels, k)
        G = classes.shape[0]
        n_threads = num_threads()
        if G > min(FLOAT32_MAX_CLASSES, SIGNATURES_PER_CLUSTER * k) or not fits(
                8 * n * (G * n_threads + (R + 1) * k) + G * G):
            return None, None, None
        share = (classes[:, None, :] == classes[None, :, :]).any(axis=2)
        bounds = self._left_out(labels[0], k) if R == 1 else None
        counts = np.bincount(labels[0], minlength=k).astype(np.float64)
        left = 0.0 if bounds is None else float(np.sum(np.outer(counts, counts)[bounds[0]]))
        if self._auto32:
            cross = float(n) * n - float(np.dot(counts, counts))
            if R != 1 or not left >= AUTO_MIN_LEFT_OUT * cross:
                self._f32_counts["why"] = (
                    f"dtype='auto': the start's clusters overlap, the pass would leave out "
                    f"{100 * left / max(cross, 1.0):.0f} % of their pairs, below "
                    f"{100 * AUTO_MIN_LEFT_OUT:.0f} %")
                self._f32 = None  # every later start of this engine in float64 too
                return None, None, None
            self._auto32 = False  # decided: the certified pass
        skip = bounds[0] if bounds is not None else np.zeros((G, G), dtype=bool)
        S, order = self._sorted_pass(sig, G, share, True, skip)
        Ms = np.empty((R, k, n))
        for r in range(R):
            Ms[r] = sum_classes(S, kernel_array(classes[:, r]), k, order)
        if bounds is None:
            return Ms, None, None
        self._f32_counts["left_out"] = left / (float(n) * n)
        return Ms, self._bounded_entries(Ms[0], labels[0], *bounds[:3]), bounds[3]

    def _left_out(self, labels, k):
        """:func:`~kgroups._kernels.centroid.left_out` for the start ``labels``, at
        :data:`FALLBACK_COST`; None for another semimetric or where it does not fit."""
        alpha = float(self.params.get("alpha", 1.0))
        n = self.n_samples
        if (self.semimetric != "energy" or not 1.0 <= alpha <= 2.0 or k < 2
                or not fits(8 * n * (6 * k + 2))):
            return None
        return _centroid.left_out(self.X, self.w, labels, k, alpha, FALLBACK_COST)

    def _bounded_entries(self, M, labels, skip, low, high):
        """The entries of the pairs left out set from their bounds
        (:func:`~kgroups._kernels.centroid.bounded_entries`); returns every entry's
        error bound per unit of ``w_i``, ``E`` (k x n)."""
        T = np.bincount(labels, weights=self.w, minlength=M.shape[0])
        return _centroid.bounded_entries(M, self.w, labels, skip, low, high,
                                         self._f32["eps"] * T)

    def _sorted_pass(self, labels, G, share, cross, skip=None):
        """``(Ms, order)``: the mixed pass's sums of the classes ``labels`` (G of them)
        with the columns sorted by class; ``cross`` False: only the pairs of classes
        that ``share`` marks (float64); the pairs of classes ``skip`` marks left out."""
        order = np.argsort(labels, kind="stable")
        labs = np.ascontiguousarray(labels[order], dtype=np.int64)
        bounds = np.searchsorted(labs, np.arange(G + 1)).astype(np.int64)
        XTs = np.ascontiguousarray(self.XT[:, order])
        XTs32 = (np.ascontiguousarray(self._f32["XT32"][:, order]) if cross
                 else np.empty((XTs.shape[0], 0), dtype=np.float32))
        n = labels.shape[0]
        acc = _mf.accumulators(workers(n * n // 2), G, n)
        w = self.w[order]
        skip = np.zeros((G, G), dtype=bool) if skip is None else skip
        Ms = _mixed.build_m_mixed(XTs, XTs32, w, w.astype(np.float32), labs, bounds,
                                  np.ascontiguousarray(share), np.ascontiguousarray(skip),
                                  acc, cross, *self._args)
        return Ms, order

    def _exact_q(self, state, r):
        """Run ``r``'s ``q`` made exact (``M~`` in step with its labels: no move pending):
        the own entries of ``M~`` (exact for the points still in their start cluster)
        and, for the others, ``M~ - delta`` (the exact columns of those not known yet
        computed, :func:`~kgroups._kernels.certify.exact_columns`); or, when those
        columns would cost more than one pass over each cluster's own pairs, that pass
        (float64)."""
        labels, cert = state.labels[r], state.cert
        k, n = state.M.shape[1], self.n_samples
        movers = np.flatnonzero(labels != cert.ls[r])
        delta, known = cert.cache(r, k)
        new = movers[~known[movers]]
        counts = np.bincount(labels, minlength=k).astype(np.float64)
        M = state.M[r]
        if new.size * float(n) <= 0.5 * float(np.dot(counts, counts)):
            if new.size:
                delta[:, new] = M[:, new] - self._exact_cols(labels, new, k)
                known[new] = True
            q = _cert.own_q(M, labels, self.w, movers,
                             kernel_array(M[:, movers] - delta[:, movers]))
        else:
            Ms, order = self._sorted_pass(labels, k, np.eye(k, dtype=bool), False)
            q = np.zeros(k)
            np.add.at(q, labels[order], Ms[labels[order], np.arange(n)])
        self._f32_counts["exact_q"] += 1
        state.q[r] = q
        cert.qerr[r] = self._f32["eps64"] * state.s[r] * state.s[r]

    def _exact_cols(self, labels, pts, k):
        """The exact columns ``M[:, p]`` (k x len(pts)) of the points ``pts`` for
        ``labels``, float64 kernel rows (:func:`~kgroups._kernels.certify.exact_columns`)."""
        pts = np.ascontiguousarray(pts, dtype=np.int64)
        n = self.n_samples
        acc = np.zeros((workers(n * max(1, pts.size)), pts.size, k))
        return _cert.exact_columns(self.X, self.XT, self.w, labels, pts, acc, *self._args)

    def finish(self, state):
        """The runs' results. After the mixed pass, ``q`` is made exact
        (:meth:`_exact_q`) for the runs that could be the best: those whose objective
        ``Q = sum_l q_l / s_l``, within its bound ``sum_l qerr_l / s_l``, could come
        within twice the driver's tie tolerance of the best run's lowest; the others,
        provably worse, report ``Q`` from their current sums (the driver never keeps
        them)."""
        cert = getattr(state, "cert", None)
        if cert is None:
            return super().finish(state)
        s = np.where(state.s > 0, state.s, 1.0)
        Q = np.sum(np.where(state.s > 0, state.q / s, 0.0), axis=1)
        err = np.sum(cert.qerr / s, axis=1)
        low = np.max(Q - err)
        self._candidates = Q + err + 4e-12 * np.abs(Q) >= low - 4e-12 * abs(low)
        try:
            return super().finish(state)
        finally:
            self._candidates = None

    def final_sums(self, state, r):
        """``(s, q)`` of run ``r``: from ``M``, or, after the mixed pass, with ``q`` made
        exact (:meth:`_exact_q`) where :meth:`finish` asks for it."""
        if getattr(state, "cert", None) is None:
            return super().final_sums(state, r)
        if self._candidates is None or self._candidates[r]:
            self._exact_q(state, r)
        return state.s[r].copy(), state.q[r].copy()

    def counters(self):
        """With the certified float32 pass: the dtype of the pass and its fall-backs
        (decisions made again from exact values, ``q`` made exact, groups of starts
        run in float64), for ``engine_stats_``."""
        c = self._f32_counts
        if c is None:
            return {}
        if "why" in c:
            return {"pass_dtype": f"float64 ({c['why']})"}
        if self._auto32:  # before the start decides
            return {"pass_dtype": "float32 (certified) if the start's clusters are apart, "
                    "else float64 (dtype='auto')"}
        return {"pass_dtype": "float32 (certified)", "float64_decisions": c["uncertain"],
                "exact_q": c["exact_q"], "float64_groups": c["float64_groups"],
                "pairs_left_out": c.get("left_out", 0.0)}

    def report(self):
        """With the certified float32 pass, its fall-backs to float64 in words."""
        c = self.counters()
        if "pass_dtype" not in c:
            return None
        if "float64_decisions" not in c:
            return f"pass over the pairs in {c['pass_dtype']}"
        out = (f", {100 * c['pairs_left_out']:.1f} % of the pairs left out (their sums "
               "bounded from the clusters' means)" if c["pairs_left_out"] else "")
        return (f"pass over the pairs in {c['pass_dtype']}: {c['float64_decisions']} "
                f"decisions made again from exact float64 values, the cluster sums made "
                f"exact {c['exact_q']} times, {c['float64_groups']} groups of starts in "
                f"float64{out}")

    def build_m(self, labels, k):
        """``M`` (k x n) in one pass over the n (n - 1) / 2 pairs: O(n^2 D) time, O(nk) memory."""
        Ms, order = self._build_sorted(labels, k)
        M = np.empty_like(Ms)
        M[:, order] = Ms
        return M

    def _build_sorted(self, labels, k):
        """``(Ms, order)``: :meth:`build_m`'s sums with the columns in the order
        ``order`` (the points sorted by label, as the pass computes them)."""
        return _mf.sorted_class_sums(self.XT, self.w, labels, k, self._args)

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
                Ms[r] = sum_classes(S, kernel_array(classes[:, r]), k, order)
            return Ms
        return self._build_multi(labs, k)

    def _build_multi(self, labs, k):
        """``M`` of the R starts ``labs`` (R x n) from one pass over the pairs that
        feeds each start's sums (:func:`~kgroups._kernels.pairs_on_the_fly.build_m_multi`)."""
        R, n = labs.shape
        acc = _mf.accumulators(workers(n * n), R * k, n)
        return _mf.build_m_multi(self.XT, self.w, labs, k, acc, *self._args).reshape(R, k, n)

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
        together, which no decision sees: the trajectories are the same. On the
        certified float32 pass every decision is certified, and one that is not is
        made again from exact values (:meth:`_decide_run`).
        """
        if state.rule != "hartigan":
            return super().sweep(state)
        return self._sweep_lockstep(state, Pending.empty(state.n_runs, self.X.shape[1]),
                                    PENDING_WORK)

    def _sweep_lockstep(self, state, P, lead_work):
        """The Hartigan sweep of :meth:`sweep` with the pending lists ``P``: the run
        furthest behind decides until its corrections reach ``lead_work``, the others
        until ``FOLLOW_SHARE`` times that, then :meth:`_apply_pending`. Each run's
        moves."""
        follow_work = FOLLOW_SHARE * lead_work
        runs = [int(r) for r in np.flatnonzero(state.active)]
        R, n = state.n_runs, self.n_samples
        for r in runs:
            self._refresh_bounds(state, r)
        pos = [0] * len(runs)
        total = np.zeros(R, dtype=np.int64)
        while min(pos) < n:
            lead = pos.index(min(pos))
            target = n
            for u in [lead] + [u for u in range(len(runs)) if u != lead]:
                if pos[u] >= target:
                    continue
                r = runs[u]
                pos[u], moves = self._decide_run(state, r, pos[u], target, P,
                                                 lead_work if u == lead else follow_work)
                total[r] += moves
                if u == lead:
                    target = pos[u]
            self._apply_pending(P, state)
        return total

    def _apply_pending(self, P, state):
        """Every run's pending moves applied to its ``M``; the lists emptied. On the
        certified pass the moves are also made exact (:meth:`_apply_exact`)."""
        if not P.n_pend.any():
            return
        if getattr(state, "cert", None) is None:
            self._apply(P.pend, P.old, P.new, P.n_pend, state.M)
        else:
            self._apply_exact(P, state)
        P.n_pend[:] = 0

    def _apply_exact(self, P, state):
        """The pending moves applied, and each mover whose ``delta`` is not known made
        known from the same kernel rows
        (:func:`~kgroups._kernels.certify.apply_moves_exact`): ``delta = M~[:, p] -
        M[:, p]`` (``M~`` now in step with the labels), so that its later decisions
        and moves are exact, and the error its decision added to ``q`` is undone
        (``q_j += 2 delta_j``, ``q_l -= 2 delta_l`` for its move ``j -> l``) and the
        bound of that error leaves ``qerr`` (less a rounding margin). ``q`` so stays
        within float64 rounding of exact however many points move."""
        Ms, cert = state.M, state.cert
        R, k, n = Ms.shape
        cap = P.pend.shape[1]
        need = np.zeros((R, cap), dtype=bool)
        for r in range(R):
            m = int(P.n_pend[r])
            need[r, :m] = ~cert.cache(r, k)[1][P.pend[r, :m]]
        acc = np.zeros((workers(int(P.n_pend.sum()) * n), R * cap, 4, k))
        _cert.apply_moves_exact(self.XT, self.w, state.labels, P.pend, P.old, P.new, P.n_pend,
                                need, Ms, acc, *self._args)
        cols = acc.sum(axis=(0, 2))
        f = self._f32
        for r in range(R):
            t = np.flatnonzero(need[r])
            if not t.size:
                continue
            p = P.pend[r, t]
            delta, known = cert.cache(r, k)
            first = np.unique(p, return_index=True)[1]  # a point moved twice: once
            delta[:, p[first]] = Ms[r][:, p[first]] - cols[r * cap + t[first]].T
            known[p] = True
            start = (f["eps"] * cert.T[r][:, None] if cert.E is None else cert.E[r])
            _cert.undo_move_errors(state.q[r], cert.qerr[r], delta, start, self.w, p,
                                   P.old[r, t], P.new[r, t], cert.ls[r][p],
                                   f["eps64"] * cert.mass[r])

    def _decide_run(self, state, r, start, stop, P, budget):
        """Run ``r``'s decisions from ``start`` (:meth:`_decide`) until ``stop``, a full
        list or the budget. On the certified float32 pass, a decision the certificate
        cannot certify is made again: its point's exact column is computed (and its
        ``delta`` kept), and if ``q`` is still too uncertain, ``q`` is made exact first
        (every run's pending moves applied) and the point decided from exact values.
        Returns ``(next point, moves)``."""
        total, mode = 0, 0
        ccol = np.empty(state.M.shape[1])
        while True:
            pos, P.n_pend[r], moves, status = self._decide(state, r, start, stop, P, budget,
                                                           mode, ccol)
            total += moves
            if status == 0:
                return pos, total
            if status == 1:  # its exact column: from now on the point is known
                self._f32_counts["uncertain"] += 1
                k = state.M.shape[1]
                delta, known = state.cert.cache(r, k)
                delta[:, pos] = ccol - self._exact_cols(state.labels[r], [pos], k)[:, 0]
                known[pos] = True
                mode = 0
            else:  # q too uncertain: made exact, with M in step with the labels
                self._apply_pending(P, state)
                self._exact_q(state, r)
                mode = 2
            start = pos

    def _refresh_bounds(self, state, r):
        """Run ``r``'s bounds made exact from its ``M`` (no move is pending); on the
        certified pass widened by the errors of ``M~`` and ``q`` (each cluster's, the
        largest over the points)."""
        if self.semimetric not in NEGATIVE_TYPE:
            return
        # d_l^2 = K_ii + q_l / s_l^2 - 2 M[l, i] / (w_i s_l), K_ii = 0 (self.diag,
        # B_ii = w_i^2 K_ii, is all zeros: the base terms)
        s, q, b = state.s[r], state.q[r], state.bounds
        sp = np.where(s > 0, s, 1.0)
        e = q / sp ** 2
        cert = getattr(state, "cert", None)
        args = (state.M[r], state.labels[r], self.w, s, self.diag, self.diag, e, np.abs(e))
        tail = (b.up[r], b.lo[r], b.own[r], b.all[r], b.drift[r])
        if cert is None:
            refresh_bounds(*args, *tail, workers(self.n_samples * s.shape[0]))
            return
        f = self._f32
        if cert.E is None:  # eps T_l per cluster
            start, entry = f["eps"] * cert.T[r], NO_ENTRY_ERRORS
        else:  # each entry's own bound
            start, entry = 0.0, cert.E[r]
        margin = (cert.qerr[r] / sp + 2.0 * (start + f["eps64"] * cert.mass[r])) / sp
        refresh_bounds_margin(*args, margin, entry, *tail,
                              workers(self.n_samples * s.shape[0]))

    def _decide(self, state, r, start, stop, P, budget, mode=0, ccol=None):
        b = state.bounds
        common = (state.labels[r], state.M[r], state.s[r], state.q[r], state.cnt[r], start,
                  stop, P.pend[r], P.old[r], P.new[r], P.rows[r])
        bounded = self.semimetric in NEGATIVE_TYPE
        tail = (b.up[r], b.lo[r], b.own[r], b.all[r], b.drift[r])
        cert = getattr(state, "cert", None)
        if cert is None:
            return _mf.decide_mf(self.decision_rows(), 0, self.w, *common, int(P.n_pend[r]),
                                 budget, bounded, *tail, 0.0, NO_ERRORS, *self._args)
        f = self._f32
        delta, known = cert.delta[r], cert.known[r]
        if delta is None:
            delta, known = NO_DELTA, NO_KNOWN
        E = NO_ENTRY_ERRORS if cert.E is None else cert.E[r]
        return _cert.decide_certified(
            self.X, self.w, *common, int(P.n_pend[r]), budget, bounded, *tail, cert.ls[r],
            cert.T[r], E, cert.mass[r], cert.qerr[r], delta, known, f["eps"], f["eps64"], mode,
            ccol, *self._args)

    def decision_rows(self):
        """The rows of the data the sweeps' decisions read (all of them, n x D)."""
        return self.X

    def move_rows(self, points, old, new, M):
        """Apply a batch of moves to ``M`` (kernel k-means)."""
        points = np.ascontiguousarray(points, dtype=np.int64)
        self._apply_one(points, np.ascontiguousarray(old, dtype=np.int64),
                        np.ascontiguousarray(new, dtype=np.int64), points.shape[0], M)

    def _apply(self, pend, old, new, n_pend, Ms):
        """Pending moves applied to ``Ms`` (R x k x n; R x cap lists, ``n_pend`` (R,))."""
        # work: the moves' kernel rows, n entries each
        _mf.apply_moves(self.XT, self.w, pend, old, new, n_pend, Ms, *self._args,
                        workers(int(n_pend.sum()) * Ms.shape[2]))

    def _apply_one(self, pend, old, new, n_pend, M):
        """Pending moves of one run applied to its ``M``."""
        self._apply(pend[None], old[None], new[None], np.array([n_pend], dtype=np.int64),
                    M[None])

    def column(self, c):
        """Column ``c`` of the unweighted kernel ``K = -rho/2``."""
        return _mf.kernel_column_mf(self.X, self.XT, self.w, int(c), *self._args,
                                    workers(self.X.shape[0]))

    def gram(self):
        """Dense ``K = -rho/2`` (small problems only; checked against free memory)."""
        n = self.X.shape[0]
        check_fits(8 * n * n, f"the dense Gram matrix for n={n} (spectral init)",
                   "init='k-means++'")
        return pairwise_unchecked(self.X, None, self.semimetric, scale=-0.5, **self.params)
