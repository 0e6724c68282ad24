"""The one interface every engine shares: construction, the run interface the driver
speaks, starting partitions, and what ``predict`` gets from it.

An engine holds ``B = diag(w) K diag(w)`` in some form (an n x n array, CSR, the
raw data with ``B`` computed on the fly, or features of a low-rank approximation),
declares what it can take in :class:`Capabilities` and offers

* **construction**: ``from_semimetric(X, w, semimetric, params, *, dtype, n_clusters,
  n_init, options)`` (raw data; ``dtype`` as ``resolve_dtype`` makes it of the
  estimator's, ``"auto"`` included) and ``from_matrix(A, w, *, is_gram, dtype,
  n_clusters, n_init)`` (a precomputed semimetric, ``K = -A/2``, or Gram matrix,
  ``K = A``), after ``memory_bytes(...)`` was checked against the memory free;
* **runs** (:mod:`kgroups._driver` drives them): ``group_size(starts, k)`` (how many
  restarts run at once), ``start(starts, k, rule) -> RunState`` (each start's ``M``,
  empty clusters filled, the cluster statistics), ``sweep(state)`` (one sweep of
  every active run, Hartigan's or Lloyd's rule, returning the moves of each run),
  ``finish(state) -> [RunResult]`` and ``fingerprint(state, r)`` (a key of run
  ``r``'s partition: Lloyd's method detects cycles with it); ``counters()`` and
  ``report()``, what ``engine_stats_`` and ``verbose`` say of the engine;
* **starts** (:mod:`kgroups._init` asks for them): ``random_start``,
  ``kmeanspp_start`` (kernel k-means++ on the engine's columns), ``given_starts``,
  ``column(c)``, ``gram()``, and for large data the sample start
  (``sample_start``, ``extend``);
* **predict**: ``predictor(X_fit, result)``, whose ``cross_sums(X_block)`` gives new
  rows' cluster sums and ``K(x, x)``, and whose ``center`` is the point from which new
  rows' distances to the training rows are bounded (the training rows' robust centre,
  or on a device the midpoint of their ranges; None where new rows are not rows of
  data).

The base class declares every method the driver (:mod:`kgroups._driver`), the starts
(:mod:`kgroups._init`) and the estimators call, each with its docstring, and gives
every engine a correct default for what it does not do specially: one Hartigan sweep
per run in turn (``sweep_run``), Lloyd's assignment from ``M`` (``lloyd_run``),
restarts one after another (``group_size`` 1), kernel k-means++ from ``column``. A
method without a default raises :class:`NotImplementedError` naming the engine; an
engine whose runs keep more than ``M`` and the cluster statistics extends
:class:`RunState` (and :class:`RunResult`) with typed fields of its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass

import numpy as np

from .._kernels import held_dense as _dense
from .._kernels import seeding as _seeding
from .._kernels.gain import (class_signatures, cluster_stats, count_improving_moves,
                             lloyd_assign, objective, sum_classes)
from .._kernels.jit import kernel_array
from .._kernels.parallel import workers
from .._kernels.pairs_on_the_fly import cross_cluster_sums
from .._kernels.semimetric import NAMES, NEGATIVE_TYPE, kernel_args
from .._semimetrics import DATA_BUILT, pairwise_unchecked, robust_center
from .._sparse import issparse
from .._validation import check_init_starts
from .._memory import check_fits, fits

# Rows of new data scored at once by ``predict``: bounds its scratch memory.
PREDICT_BLOCK_BYTES = 64 * 2**20
# Pairs of new and training rows per block of predict's sums taken pair by pair: enough
# work that a block's fixed costs (a range check, the workers' start, a progress bar's
# update) stay small beside it.
PREDICT_BLOCK_PAIRS = 1 << 24
# Columns from which predict's sums come from blocks of values (a BLAS product, 2 D
# flops a pair at the product's rate) rather than pair by pair (3 D flops a pair in
# vectorised loops): where the product's rate outweighs the block's pass over its
# values (benchmarks/bench_predict.py --dims).
PREDICT_BLAS_MIN_D = 80
# The move rules a run may follow: Hartigan's (kernel k-groups, one point at a time,
# paper Algorithm 2) and Lloyd's (kernel k-means, all points against fixed means,
# Algorithm 1), and their trimmed forms with points set aside (``noise``,
# kgroups._engines.trimmed): concentration steps then trimmed Hartigan sweeps, or the
# concentration steps alone.
RULES = ("hartigan", "lloyd", "trimmed", "concentration")
# The trimmed form of each rule: Hartigan's searches on after the concentration steps,
# Lloyd's is the concentration steps alone.
TRIMMED_RULES = {"hartigan": "trimmed", "lloyd": "concentration"}


@dataclass
class Bounds:
    """Per run ``r`` and point ``i``: ``up[r, i] >= d_own`` and ``lo[r, i] <= min_{l !=
    own} d_l`` (feature-space distances to the means, :mod:`kgroups._kernels.bounds`),
    the drifts they were taken at (``own``, ``all``) and each mean's drift so far
    (``drift[r]``, length k + 1: the last entry is the largest)."""

    up: np.ndarray
    lo: np.ndarray
    own: np.ndarray
    all: np.ndarray
    drift: np.ndarray

    @classmethod
    def unknown(cls, R, n, k):
        """Bounds that prove nothing (``up = inf``): every point is evaluated."""
        return cls(np.full((R, n), np.inf), np.zeros((R, n)), np.zeros((R, n)),
                   np.zeros((R, n)), np.zeros((R, k + 1)))


@dataclass
class RunState:
    """R runs (restarts) at once: what a sweep reads and writes.

    ``labels[r]``, ``M[r]`` (k x n), ``s[r]``, ``q[r]``, ``cnt[r]`` (k) are run ``r``'s
    labels, cluster sums of ``B``, cluster weights, self-sums and sizes. An engine
    that keeps more (the low-rank engine's feature sums, Dask's row blocks) extends
    this class with typed fields. ``bounds`` are the skip bounds of engines that use
    them; ``active``, ``n_moves`` and ``converged`` are the driver's counters.
    """

    labels: np.ndarray
    M: np.ndarray | None
    s: np.ndarray
    q: np.ndarray
    cnt: np.ndarray
    rule: str
    bounds: Bounds | None = None
    active: np.ndarray = None
    n_moves: list = None
    converged: np.ndarray = None

    def __post_init__(self):
        R = self.s.shape[0]
        self.active = np.ones(R, dtype=bool) if self.active is None else self.active
        self.n_moves = [[] for _ in range(R)] if self.n_moves is None else self.n_moves
        self.converged = np.zeros(R, dtype=bool) if self.converged is None else self.converged

    @property
    def n_runs(self):
        return self.s.shape[0]

    def objective(self, r):
        """``Q = sum_l q_l / s_l`` of run ``r`` now."""
        return float(objective(self.s[r], self.q[r]))


@dataclass
class RunResult:
    """One finished run: its labels (an engine's own array type: a dask array for
    Dask), ``Q`` from fresh sums, the sweeps, and ``s``/``q`` of the final partition
    (``predict`` needs them). An engine whose predictor needs more extends it."""

    labels: object
    objective: float
    n_iter: int
    n_moves: list
    converged: bool
    s: np.ndarray
    q: np.ndarray

    # Whether ``objective`` is already ``-W`` of the points kept (a trimmed run,
    # kgroups._engines.trimmed), with no diagonal term left to subtract.
    trimmed = False


def is_auto(dtype):
    """Whether ``dtype`` is the string ``"auto"`` (the engine chooses the precision)."""
    return isinstance(dtype, str) and dtype == "auto"


def abs_max(A):
    """``max |A_ij|`` of a dense or sparse matrix, without an array of ``|A|``."""
    data = A.data if issparse(A) else A
    if data.size == 0:
        return 0.0
    return float(max(np.max(data), -np.min(data)))


def cluster_sums_rows(K, w, labels, k):
    """``m[i, l] = sum_{y in C_l} w_y K[i, y]`` for a float64 block ``K`` (b x n); ``w`` and
    ``labels`` may be a fitted model's, read-only where it was unpickled from a memory map."""
    return _dense.cluster_sums_rows(kernel_array(K, np.float64), kernel_array(w, np.float64),
                                    kernel_array(labels, np.int64), k, workers(K.size))


def signatures(starts, k):
    """Each point's class among the points with one label in every start, and
    ``classes[c, g]``, the label of class ``c`` in start ``g`` (G x len(starts))."""
    labs = np.ascontiguousarray(starts, dtype=np.int64)  # R x n
    return class_signatures(labs, int(k))


# What an engine's input can be (Capabilities.inputs): raw data with a semimetric, a
# precomputed matrix, or "feature columns": the m columns F whose Gram F F^T is the
# kernel, made by a semimetric built from the data (kgroups._semimetrics.neighbors).
INPUTS = ("raw data", "dense matrix", "sparse matrix", "feature columns")
# Which semimetrics an engine on raw data takes (Capabilities.semimetrics): any
# (named or callable), named ones only, or those of negative type (an approximation
# of the kernel K = -rho/2 that needs it positive semidefinite: the named ones of
# negative type, and callables, which the user vouches for).
SEMIMETRIC_KINDS = ("any", "named", "negative type")


@dataclass(frozen=True)
class Capabilities:
    """What an engine can do, declared on its class; the registry
    (:mod:`kgroups._engines.registry`), ``engine="auto"``, the checks of an input
    against an engine, the command line and the documentation read it.

    ``exact``: the same partitions as move-at-a-time Hartigan on the exact kernel
    (approximate engines work on a low-rank kernel); ``exact_on``: the inputs on
    which an approximate engine is exact (feature columns are the kernel itself);
    ``inputs``: of :data:`INPUTS`;
    ``semimetrics``: of :data:`SEMIMETRIC_KINDS`; ``array_kinds``: the kinds of array
    ``X`` it takes (``"numpy"`` for in-memory data, ``"dask"``, ``"cuda"`` for arrays
    on a CUDA device), the first the one it makes of in-memory data; ``device``: where
    the pair passes run; ``memory``: what it holds, in words; ``rules``: the move
    rules it runs (``"hartigan"`` for kernel k-groups, ``"lloyd"`` for kernel
    k-means, ``"trimmed"`` and ``"concentration"`` for them with points set aside,
    :mod:`kgroups._engines.trimmed`, which runs on ``build_ms``, ``move_rows``,
    ``column``, ``diag`` and ``predictor``).
    """

    exact: bool
    inputs: tuple
    semimetrics: str
    memory: str
    device: str = "CPU"
    array_kinds: tuple = ("numpy",)
    rules: tuple = RULES
    exact_on: tuple = ()

    def exact_for(self, matrix):
        """Whether the engine is exact on an input of kind ``matrix`` (of :data:`INPUTS`)."""
        return self.exact or matrix in self.exact_on

    @property
    def array_kind(self):
        """The kind of array the engine makes of in-memory data (the first it takes)."""
        return self.array_kinds[0]

    def takes(self, matrix, semimetric):
        """Whether an input of kind ``matrix`` (one of :data:`INPUTS`) with
        ``semimetric`` (a name, ``"precomputed"`` or a callable) is for this engine."""
        if matrix not in self.inputs:
            return False
        if matrix != "raw data":
            return True
        if semimetric in DATA_BUILT:  # taken as feature columns, not as raw data
            return False
        if not isinstance(semimetric, str):
            return self.semimetrics != "named"
        return (self.semimetrics != "negative type" or semimetric in NEGATIVE_TYPE
                or semimetric not in NAMES)


class Engine(ABC):
    """Base class of the engines: the constructors' contract, the run interface with
    its defaults (see the module docstring), starts and ``predictor``.

    Subclasses set ``name`` and ``capabilities``, implement :meth:`memory_bytes`,
    :meth:`build_m`, :meth:`move_rows` and :meth:`sweep_run` (or :meth:`sweep`), and
    override what they do specially; ``semimetric``/``params`` (raw data) or
    ``is_gram`` (precomputed matrix) record what the kernel was built from.
    """

    name = "engine"
    capabilities = Capabilities(exact=True, inputs=INPUTS, semimetrics="any",
                                memory="n^2")
    # The RunState class of this engine's runs (an engine that keeps more extends it).
    state_class = RunState
    semimetric = None
    params = None
    is_gram = None
    # When a "k-means++" or "kernel-k-means++" start is the sample start (an exact fit
    # of a sample, extended to every point by ``extend``): None never, "large" past
    # kgroups._init.SAMPLE_ROWS points, "always" (kgroups._init.uses_sample_start).
    sample_start = None
    # At most this many starts for n_init="auto" (None: the rule of kgroups._init).
    max_auto_starts = None
    # Named starts this engine cannot make.
    unavailable_inits = ()
    # An upper bound of |K(x, y)| over all pairs (the unweighted kernel), set by the
    # exact engines: the driver bounds the rounding that a run's moves leave in its M
    # with it (kgroups._driver.drift). None: M is not rebuilt (approximate engines).
    kernel_max = None

    # -- choice ---------------------------------------------------------------
    @classmethod
    def available(cls):
        """Whether this machine can run the engine now (a device, an installed extra)."""
        return True

    @classmethod
    def predicted_seconds(cls, n_samples, n_features, *, n_clusters, n_init):
        """Seconds a fit of this size is predicted to take, for ``engine="auto"``
        (None: no cost model; ``inf``: never chosen for this size unless nothing
        else can run it)."""
        return None

    @classmethod
    def check_input(cls, *, semimetric, kernel, sparse_input, landmarks, what, owner):
        """Refuse, with a message of its own, an input or an option this engine cannot
        take (called first by :func:`kgroups._engines.select.check_engine_input`, whose
        checks from :attr:`capabilities` follow); ``what`` describes the input."""

    # -- construction ---------------------------------------------------------
    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        raise ValueError(f"engine={cls.name!r} cannot be built from raw data")

    @classmethod
    def from_matrix(cls, A, w, *, is_gram, dtype=np.float64, n_clusters, n_init=1):
        raise ValueError(f"engine={cls.name!r} needs raw data, not a precomputed matrix; "
                         "use engine='dense' or engine='sparse'")

    @classmethod
    def from_features(cls, F, w, feature_map, *, n_clusters, n_init=1):
        """The engine of the kernel ``F F^T`` (feature columns ``F``, n x m), whose
        ``feature_map(X_new)`` gives new rows' features for ``predict``."""
        raise ValueError(f"engine={cls.name!r} does not take feature columns")

    @classmethod
    @abstractmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        """Bytes the engine allocates for a fit of this size (checked against the memory
        free before anything is allocated)."""

    @classmethod
    def check_memory(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None, alternative):
        """Refuse, before allocating, a fit whose :meth:`memory_bytes` do not fit."""
        need = cls.memory_bytes(n_samples, n_features, n_clusters=n_clusters, n_init=n_init,
                                dtype=dtype, options=options)
        check_fits(need, f"engine={cls.name!r} for n_samples={n_samples}, "
                   f"n_features={n_features}, n_clusters={n_clusters}", alternative)

    @classmethod
    def resolve_dtype(cls, dtype, n_samples, n_features, *, n_clusters, n_init, semimetric,
                      params):
        """What :meth:`from_semimetric` gets for the estimator's ``dtype``: the dtype
        asked for, float64 for ``"auto"`` (an engine whose constructor chooses for
        itself returns ``"auto"`` where it does)."""
        return np.dtype(np.float64 if is_auto(dtype) else dtype)

    @classmethod
    def layout(cls, X, w, *, n_clusters, options=None):
        """The data and weights laid out as the engine reads them (as given)."""
        return X, w

    @property
    def n_samples(self):
        """The number of points."""
        return self.w.shape[0]

    @property
    def negative_type(self):
        """Whether the kernel is that of a semimetric of negative type (an inner product
        of feature vectors up to shifts, so that kernel-space distances obey the
        triangle inequality): a named semimetric of negative type on raw data."""
        return isinstance(self.semimetric, str) and self.semimetric in NEGATIVE_TYPE

    # -- the kernel, as the runs and the starts read it -----------------------
    def build_m(self, labels, k):
        """``M[l, i] = sum_{y in C_l} B[i, y]`` of the partition ``labels``, shape (k, n)."""
        raise NotImplementedError(f"engine={self.name!r} does not build M from labels")

    def move_rows(self, points, old, new, M):
        """Apply the moves of ``points`` from clusters ``old`` to ``new`` to ``M`` in
        place (each adds ``B[:, i]`` to one row and subtracts it from another)."""
        raise NotImplementedError(f"engine={self.name!r} does not move rows of M")

    def column(self, c):
        """Column ``c`` of the unweighted kernel ``K`` (length n): kernel k-means++
        seeding reads it."""
        raise NotImplementedError(f"engine={self.name!r} does not give kernel columns")

    def gram(self):
        """The dense unweighted kernel ``K`` (n x n), for the spectral start of small
        problems."""
        raise NotImplementedError(f"engine={self.name!r} does not hold the n x n kernel")

    def extend(self, idx, Xs, ws, labels, k):
        """The sample start (:mod:`kgroups._init`): labels of every point from an exact
        fit of the sample ``Xs`` (rows ``idx``, weights ``ws``) that ended in
        ``labels``."""
        raise NotImplementedError(f"engine={self.name!r} does not extend a sample's fit")

    # -- runs -----------------------------------------------------------------
    def group_size(self, starts, k):
        """How many of ``starts`` (the first ones) run at once: one, restarts one after
        another."""
        return 1

    def build_ms(self, starts, k):
        """``M`` of each start (R x k x n): one :meth:`build_m` each."""
        Ms = np.empty((len(starts), k, self.n_samples))
        for r, labels in enumerate(starts):
            Ms[r] = self.build_m(labels, k)
        return Ms

    def start(self, starts, k, rule):
        """The runs from ``starts`` (label arrays): ``M`` built (:meth:`build_ms`),
        every empty cluster filled (:meth:`fill_empty`), ``s``, ``q``, ``cnt``."""
        labels = np.array(starts, dtype=np.int64)  # R x n, the runs' own copy
        M = self.build_ms(labels, k)
        R = labels.shape[0]
        s, q, cnt = np.empty((R, k)), np.empty((R, k)), np.empty((R, k), dtype=np.int64)
        for r in range(R):
            self.fill_empty(labels[r], M[r])
            s[r], q[r], cnt[r] = cluster_stats(M[r], labels[r], self.w)
        state = self.state_class(labels, M, s, q, cnt, rule)
        self.begin(state)
        return state

    def begin(self, state):
        """What a subclass's sweeps need besides ``M`` (bounds, sums), set on ``state``."""

    def sweep(self, state):
        """One sweep of every active run (moves per run, length R): run after run,
        :meth:`sweep_run` (Hartigan) or :meth:`lloyd_run` (Lloyd)."""
        moves = np.zeros(state.n_runs, dtype=np.int64)
        step = self.sweep_run if state.rule == "hartigan" else self.lloyd_run
        for r in np.flatnonzero(state.active):
            moves[r] = step(state, r)
        return moves

    def sweep_run(self, state, r):
        """One Hartigan sweep of run ``r`` in place (paper Algorithm 2); its moves."""
        raise NotImplementedError(f"engine={self.name!r} sweeps all its runs at once")

    def lloyd_run(self, state, r):
        """One kernel k-means iteration of run ``r`` (paper Algorithm 1, batch form):
        every point to ``argmin_l q_l / s_l^2 - 2 M[l, i] / (w_i s_l)`` against fixed
        means, the changes applied to ``M`` at once (:meth:`move_rows`), an emptied
        cluster refilled (:meth:`fill_empty`). Returns the number of labels changed."""
        labels, M = state.labels[r], state.M[r]
        new = labels.copy()
        if not lloyd_assign(M, state.s[r], state.q[r], self.w, new):
            return 0
        pts = np.flatnonzero(new != labels)
        self.move_rows(pts, labels[pts], new[pts], M)
        self.fill_empty(new, M)
        changed = int(np.count_nonzero(new != labels))
        labels[:] = new
        state.s[r], state.q[r], state.cnt[r] = cluster_stats(M, labels, self.w)
        return changed

    def sync(self, state):
        """Bring every run's ``M`` up to date (engines that defer its updates)."""

    def finish(self, state):
        """One :class:`RunResult` per run, from sums recomputed from ``M``."""
        self.sync(state)
        out = []
        for r in range(state.n_runs):
            s, q = self.final_sums(state, r)
            out.append(RunResult(state.labels[r].copy(), float(objective(s, q)),
                                 len(state.n_moves[r]), list(state.n_moves[r]),
                                 bool(state.converged[r]), s, q))
        return out

    def final_sums(self, state, r):
        """``(s, q)`` of run ``r``'s partition for its result: from ``M``."""
        s, q, _ = cluster_stats(state.M[r], state.labels[r], self.w)
        return s, q

    def fingerprint(self, state, r):
        """A key of run ``r``'s partition (equal keys: equal partitions)."""
        return state.labels[r].tobytes()

    def fill_empty(self, labels, M):
        """Give every empty cluster the point whose move there raises Q most; in place.

        Moving point ``i`` from cluster ``j`` (of two points or more) to an empty
        cluster changes Q by ``A_j(i) + B_ii / w_i`` (paper eq. 50 with an empty
        target), which for a positive semidefinite kernel is
        ``w_i s_j / (s_j - w_i) ||phi(x_i) - m_j||^2 >= 0``: the (weighted)
        farthest point from its cluster mean, as scikit-learn's k-means relocates.
        With ``n_samples >= n_clusters`` a donor always exists, so the partition
        has ``n_clusters`` non-empty clusters (identical points included).
        """
        s, q, cnt = cluster_stats(M, labels, self.w)
        idx = np.arange(labels.shape[0])
        for l in np.flatnonzero(cnt == 0):
            w, b, j = self.w, self.diag, labels
            gain = (w * q[j] / s[j] - 2.0 * M[j, idx] + b) / np.maximum(s[j] - w, 1e-300) + b / w
            gain[cnt[j] < 2] = -np.inf
            i = int(np.argmax(gain))
            self.move_rows(np.array([i]), np.array([labels[i]]), np.array([l]), M)
            labels[i] = l
            s, q, cnt = cluster_stats(M, labels, self.w)

    def count_improving_moves(self, labels, k):
        """Points of the partition ``labels`` with a single move that raises Q."""
        M = self.build_m(labels, k)
        s, q, cnt = cluster_stats(M, labels, self.w)
        return int(count_improving_moves(M, labels, self.w, self.diag, s, q, cnt))

    def counters(self):
        """Engine-specific counts for ``engine_stats_`` (none by default)."""
        return {}

    def report(self):
        """What ``verbose`` says of the engine at the end of a fit (None: nothing)."""
        return None

    # -- starts ---------------------------------------------------------------
    def given_starts(self, init, k, owner):
        """Given labels, one start or one per row, checked (a list of label arrays)."""
        return check_init_starts(init, self.n_samples, k, owner)

    def random_start(self, k, rng):
        """Uniform random labels; every cluster gets at least one point."""
        n = self.n_samples
        labels = rng.integers(0, k, size=n).astype(np.int64)
        if np.unique(labels).size < k:
            labels[rng.choice(n, size=k, replace=False)] = np.arange(k)
        return labels

    def kmeanspp_start(self, k, rng):
        """Labels of the nearest seed of a weighted D^2 seeding in feature space
        (:mod:`kgroups._kernels.seeding`): the ``1 + (k - 1) n_trials`` uniforms drawn
        first, then :meth:`kmeanspp_labels`."""
        n_trials = 2 + int(np.log(k))
        u = rng.random(1 + (k - 1) * n_trials)
        return self.kmeanspp_labels(k, u, n_trials)

    def kmeanspp_labels(self, k, u, n_trials):
        """The seeding of :meth:`kmeanspp_start` from the engine's kernel columns."""
        w = self.w
        kdiag = self.diag / (w * w)

        def dist_to(c):
            return np.maximum(kdiag + kdiag[c] - 2.0 * self.column(c), 0.0)

        closest = dist_to(_seeding.draw(w, u[0]))
        labels = np.zeros(w.shape[0], dtype=np.int64)
        for c in range(1, k):
            pot = w * closest
            best = None
            for t in range(n_trials):
                dc = dist_to(_seeding.draw(pot, u[1 + (c - 1) * n_trials + t]))
                score = _seeding.trial_score(w, closest, dc)
                if best is None or score < best[0]:
                    best = (score, dc)
            _seeding.take_seed(c, closest, best[1], labels)
        return labels

    # -- predict --------------------------------------------------------------
    def predictor(self, X_fit, result):
        """What ``predict`` needs after a fit on ``X_fit`` that ended in ``result``."""
        k = result.s.shape[0]
        if self.semimetric is not None:
            return RawDataPredictor(X_fit, self.w, result.labels, k, self.semimetric,
                                    self.params)
        return MatrixPredictor(self.w, result.labels, k, bool(self.is_gram))


class HeldKernelEngine(Engine):
    """An engine that holds ``B`` (dense, sparse): :meth:`build_m` is one pass over
    the ``build_entries`` stored entries of ``B`` whatever the number of clusters,
    so restarts that share most of their labels sum classes of points."""

    build_entries = 0  # stored entries of B: what one build_m reads

    def _class_pass(self, starts, k):
        """``(sig, classes)`` when one pass summing classes of points (see
        :meth:`build_ms`) costs at most one build and its sums and the starts' ``M``
        fit in memory; None otherwise."""
        if len(starts) < 2:
            return None
        n = len(starts[0])
        sig, classes = signatures(starts, k)
        G = classes.shape[0]
        if G * n <= self.build_entries and fits(8 * n * (G + k * len(starts))):
            return sig, classes
        return None

    def group_size(self, starts, k):
        """All the starts when they share one pass over ``B`` (:meth:`build_ms`), else
        one at a time."""
        return len(starts) if self._class_pass(starts, k) is not None else 1

    def build_ms(self, starts, k):
        """``M`` of each start (R x k x n).

        Restarts share most of their labels: the points with one label in every
        start form G classes (:func:`signatures`). One pass over ``B`` sums each
        class (:meth:`build_m` with the classes as labels, ``S[c, i] = sum_{y in
        class c} B[i, y]``) and a start's ``M[l]`` adds the rows of ``S`` whose
        class has label ``l`` in it: G n additions in order, against a build's
        scattered additions over all of ``B``. Taken when the G n additions are at
        most one build's entries (always on the dense engine; on the sparse one
        only when the classes are few) and the sums fit in the memory free now;
        else one build per start. Exact: only the order of the additions differs
        from :meth:`build_m`.
        """
        shared = self._class_pass(starts, k)
        if shared is None:
            return super().build_ms(starts, k)
        sig, classes = shared
        n = len(starts[0])
        S, order = self.build_m(sig, classes.shape[0]), np.arange(n)
        Ms = np.empty((len(starts), k, n))
        for r in range(len(starts)):
            Ms[r] = sum_classes(S, kernel_array(classes[:, r]), k, order)
        return Ms


class RawDataPredictor:
    """``m[x, l] = -1/2 sum_{y in C_l} w_y rho(x, y)`` (``K = -rho/2``, ``K(x, x) = 0``)
    against the training rows, by blocks of new rows (exact engines on raw data). A
    named semimetric's sums are taken pair by pair on every core, the training rows
    sorted by cluster (:func:`~kgroups._kernels.pairs_on_the_fly.cross_cluster_sums`,
    the matrix-free engine's pass: no block of values is held, a copy of the training
    rows in that order is); a callable's from a block of its values, and so are a named
    semimetric's of ``PREDICT_BLAS_MIN_D`` columns or more (a BLAS product on centred
    rows) or where that copy does not fit in memory."""

    device_rows = False  # new rows in host memory only

    def __init__(self, X_fit, w, labels, k, semimetric, params):
        self.w = np.ascontiguousarray(w, dtype=np.float64)
        self.labels = np.ascontiguousarray(labels, dtype=np.int64)
        self.k = k
        self.semimetric, self.params = semimetric, dict(params)
        self.center = robust_center(X_fit)
        n = X_fit.shape[0]
        self.from_blocks = (callable(semimetric) or X_fit.shape[1] >= PREDICT_BLAS_MIN_D
                            or not fits(8 * X_fit.size))
        if self.from_blocks:
            self.X_fit = X_fit
            self.block_rows = max(1, PREDICT_BLOCK_BYTES // (8 * n))
            return
        order = np.argsort(self.labels, kind="stable")
        self.XT = np.ascontiguousarray(X_fit[order].T, dtype=np.float64)
        self.ws = self.w[order]
        self.bounds = np.searchsorted(self.labels[order], np.arange(k + 1)).astype(np.int64)
        self.args = kernel_args(semimetric, self.params)
        self.block_rows = max(1, PREDICT_BLOCK_PAIRS // n)

    def cross_sums(self, Xb):
        if self.from_blocks:
            K = pairwise_unchecked(Xb, self.X_fit, self.semimetric, center=self.center,
                                   scale=-0.5, **self.params)
            return cluster_sums_rows(K, self.w, self.labels, self.k), 0.0
        if not self.XT.flags.writeable:  # a model loaded as a memory map: copied once,
            # so that the kernel compiled for writable arrays runs (no second compilation)
            self.XT, self.ws, self.bounds = map(kernel_array, (self.XT, self.ws, self.bounds))
        m = cross_cluster_sums(kernel_array(Xb, np.float64), self.XT, self.ws, self.bounds,
                               *self.args, workers(Xb.shape[0] * self.ws.shape[0]))
        return -0.5 * m, 0.0


class MatrixPredictor:
    """The new rows are ``A(new, train)``: a Gram block (``K = A``, ``K(x, x)``
    unknown) or a semimetric block (``K = -A/2``, ``K(x, x) = 0``)."""

    device_rows = False  # new rows in host memory only
    center = None  # new rows are matrix blocks, not rows of data

    def __init__(self, w, labels, k, is_gram):
        self.w = np.ascontiguousarray(w, dtype=np.float64)
        self.labels = np.ascontiguousarray(labels, dtype=np.int64)
        self.k, self.is_gram = k, is_gram
        self.block_rows = None  # all rows at once: the caller already holds them

    def cross_sums(self, Ab):
        if issparse(Ab):
            import scipy.sparse as sp  # already loaded: Ab is one of its matrices

            Z = sp.csr_matrix((self.w, (np.arange(self.w.shape[0]), self.labels)),
                              shape=(self.w.shape[0], self.k))
            m = np.asarray((Ab @ Z).toarray(), dtype=np.float64)
        else:
            m = cluster_sums_rows(Ab, self.w, self.labels, self.k)
        if self.is_gram:
            return m, None
        return -0.5 * m, 0.0
