r"""Trimmed runs: kernel k-groups and kernel k-means with whole points set aside, on any
engine that gives ``M`` from labels (``build_ms``), a batch of moves (``move_rows``),
kernel columns (``column``), ``diag``, ``w`` and ``predictor``.

Trimmed kernel k-groups (DESIGN, "Trimmed kernel k-groups"): with a budget ``h``,
set aside whole points of total weight at most ``h`` and minimise the within energy of
the kept points over which points are kept and over the partitions of the kept
points into ``k`` non-empty clusters,

.. math:: W = \sum_{i \text{ kept}} w_i K_{ii} - \sum_{l=1}^k \frac{q_l}{s_l},

the maximised objective being ``F = -W`` (for ``K = -rho/2`` the first term is 0;
a Gram matrix or the low-rank engine's features have a diagonal). Whole points
only: with weights, the weight set aside is at most ``h``, and weights equal
repeated rows where the optimum does not split the copies of a point.

:class:`TrimmedRuns` gives an engine's runs this rule through the driver's run
interface (``start``, ``sweep``, ``finish``): the set-aside points carry label ``k``
and ``M`` has ``k + 1`` rows (the last sums the set-aside points), so the engine's
own ``build_ms`` and ``move_rows`` serve unchanged. Each run is

1. **concentration steps** (the kernel form of trimmed k-means' C-step,
   Cuesta-Albertos, Gordaliza & Matrán 1997): every point to its nearest kept mean,
   the points farthest from their mean set aside within the budget
   (:func:`kgroups._kernels.trimmed.concentrate`), the changes applied with
   ``move_rows``, an emptied cluster refilled; a step is kept while it raises ``F``
   (for a kernel of negative type every step does, as in trimmed k-means), which
   from the same first step is R's ``trimcluster::trimkmeans``;
2. (rule ``"trimmed"``) **trimmed Hartigan sweeps** until no improving move is
   left: Hartigan's moves between kept clusters (TPAMI eq. 50), swaps of a kept and
   a set-aside point, setting aside one more point while the budget has room
   (:func:`kgroups._kernels.trimmed.next_move` finds each, :func:`~kgroups._kernels.
   trimmed.best_swap` settles a swap from the column of the point set aside), each
   applied here from the engine's kernel columns. ``F`` rises at every move, so the
   search ends. A point alone in its cluster, which no move can set aside, is then
   tried set aside with its cluster re-seeded (:meth:`TrimmedRuns._reseed`); the
   end the sweeps reach from there is kept only when ``F`` is higher.

Rule ``"concentration"`` (kernel k-means with ``noise``) stops after step 1.

References: J. A. Cuesta-Albertos, A. Gordaliza, C. Matrán, Ann. Statist. 25(2),
553-576, 1997; L. A. García-Escudero, A. Gordaliza, C. Matrán, A. Mayo-Iscar, Ann.
Statist. 36(3), 1324-1345, 2008; G. França, M. L. Rizzo, J. T. Vogelstein, TPAMI
43(12), 2021, eq. 50.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import trimmed as _tk
from .._kernels.gain import RTOL, cluster_stats
from .._memory import check_fits
from .engine import TRIMMED_RULES, RunResult, RunState  # noqa: F401  (TRIMMED_RULES: here too)
# The counts of the matrix-free engine's certified float32 pass, which the trimmed runs
# do not take (kgroups._engines.matrix_free.MatrixFreeEngine.counters).
F32_COUNTS = ("pass_dtype", "float64_decisions", "exact_q", "float64_groups", "pairs_left_out")
# The weight a budget may be exceeded by, relative to it: ``s * sum(w)`` computed in
# floating point may fall just below the whole number it stands for (0.29 * 100).
BUDGET_RTOL = 1e-9


def budget_of(share, w):
    """The weight a share ``s`` of the total weight ``sum(w)`` lets set aside, with
    :data:`BUDGET_RTOL` against the rounding of ``s * sum(w)``; with whole-number
    weights the points set aside weigh at most ``floor(s * sum(w))`` (R's
    ``trimkmeans`` keeps ``ceil(n (1 - s))`` of n points).

    >>> budget_of(0.1, np.ones(25)) >= 2.0, budget_of(0.29, np.ones(100)) >= 29.0
    (True, True)
    """
    return float(share) * float(np.sum(w)) * (1.0 + BUDGET_RTOL)


@dataclass
class TrimmedRunState(RunState):
    """Runs with points set aside: ``labels`` in ``[0, k]`` (``k``: set aside), ``M``
    (R x (k + 1) x n); ``s``, ``q``, ``cnt`` are the kept clusters' columns of
    ``full`` (R x (k + 1) each, the last the set-aside points'); ``concentrating[r]``:
    run ``r`` still takes concentration steps; ``trace`` (n,): ``B_ii / w_i``;
    ``saved[r]``: the end of run ``r`` before a trial of :meth:`TrimmedRuns._reseed`
    (``F``, labels, ``M``, ``s``, ``q``, ``cnt``), ``tried[r]``: the points tried so."""

    full: tuple = None
    concentrating: np.ndarray = None
    trace: np.ndarray = None
    saved: list = None
    tried: list = None

    def objective(self, r):
        """``F = -W`` of run ``r``'s kept points now."""
        k = self.s.shape[1]
        return float(_objective(self.full[0][r], self.full[1][r], self.labels[r],
                                self.trace, k))


@dataclass
class TrimmedRunResult(RunResult):
    """A trimmed run: ``labels`` with -1 for the points set aside, ``objective`` ``F =
    -W`` of the kept points, ``s`` and ``q`` of the kept clusters, ``threshold`` (the
    smallest cost of bringing back a set-aside point, :func:`~kgroups._kernels.
    trimmed.noise_threshold`) and ``noise_weight`` (the weight set aside)."""

    threshold: float = np.inf
    noise_weight: float = 0.0
    trimmed = True  # its objective is -W already (no diagonal term to subtract)


def _objective(s, q, labels, trace, k):
    """``F = sum_{l < k} q_l / s_l - sum_{kept} B_ii / w_i``."""
    kept = s[:k] > 0
    return np.sum(q[:k][kept] / s[:k][kept]) - np.sum(trace[labels < k])


class KeptClusters:
    """``predict``'s sums of new rows against the kept clusters only: the engine's
    predictor of the partition with the set-aside points as cluster ``k``, its last
    column dropped."""

    def __init__(self, inner, k):
        self.inner, self.k = inner, int(k)
        self.block_rows, self.device_rows = inner.block_rows, inner.device_rows
        self.center = inner.center

    def cross_sums(self, Xb):
        m, kxx = self.inner.cross_sums(Xb)
        return m[:, :self.k], kxx


class TrimmedRuns:
    """The runs of ``engine`` under a trimmed rule (module docstring), with ``budget``
    the weight that may be set aside (the engine's units). Everything else is the
    engine's (its name, weights, diagonal, columns, counters)."""

    def __init__(self, engine, budget):
        self.engine = engine
        self.budget = float(budget)
        self.kernel_max = engine.kernel_max
        self.hilbert = bool(engine.negative_type)
        self._kmax = np.inf if engine.kernel_max is None else float(engine.kernel_max)
        self._trace = engine.diag / engine.w

    def __getattr__(self, name):
        if name == "engine":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.engine, name)

    def counters(self):
        """The engine's counts, less those of the certified float32 pass (the matrix-free
        engine's): the trimmed runs read float64 sums and columns only."""
        out = dict(self.engine.counters())
        if "pass_dtype" in out:
            out = {k: v for k, v in out.items() if k not in F32_COUNTS}
            out["pass_dtype"] = "float64 (the trimmed search, noise)"
        return out

    def report(self):
        """The engine's words at the end of a fit, none of the float32 pass's."""
        return None if "pass_dtype" in self.engine.counters() else self.engine.report()

    def group_size(self, starts, k):
        """The engine's group of restarts for ``k + 1`` rows of ``M``."""
        return self.engine.group_size(starts, k + 1)

    def fingerprint(self, state, r):
        """A key of run ``r``'s labels, the set-aside points' included."""
        return state.labels[r].tobytes()

    # -- start -------------------------------------------------------------------------
    def start(self, starts, k, rule):
        """The runs from ``starts`` (labels in ``[0, k]`` or -1, both meaning set aside):
        ``M`` with ``k + 1`` rows from the engine, empty kept clusters refilled."""
        labels = np.array(starts, dtype=np.int64)
        labels[labels < 0] = k
        R, n = labels.shape
        # a copy of M per run: a concentration step's, or the end a trial may go back to
        check_fits(8 * (k + 1) * n * R, f"the trimmed runs' copies of M (n={n}, k={k}, "
                   f"{R} runs)", "fewer clusters or a smaller sample")
        M = self.engine.build_ms(labels, k + 1)
        s, q = np.empty((R, k + 1)), np.empty((R, k + 1))
        cnt = np.empty((R, k + 1), dtype=np.int64)
        for r in range(R):
            self._refill(labels[r], M[r], k)
            s[r], q[r], cnt[r] = cluster_stats(M[r], labels[r], self.engine.w)
        return TrimmedRunState(labels, M, s[:, :k], q[:, :k], cnt[:, :k], rule,
                               full=(s, q, cnt), concentrating=np.ones(R, dtype=bool),
                               trace=self._trace, saved=[None] * R,
                               tried=[set() for _ in range(R)])

    def _donor(self, labels, M, s, q, cnt, k):
        """The kept point (of a cluster of two or more) whose setting aside gains most,
        ``A_j(i) + B_ii / w_i`` (the weighted farthest from its mean), or None."""
        w, b = self.engine.w, self.engine.diag
        idx = np.flatnonzero((labels < k) & (cnt[np.minimum(labels, k)] >= 2))
        if not idx.size:
            return None
        jj, wd, bd = labels[idx], w[idx], b[idx]
        gain = (wd * q[jj] / s[jj] - 2.0 * M[jj, idx] + bd) / (s[jj] - wd) + bd / wd
        return int(idx[np.argmax(gain)])

    def _refill(self, labels, M, k):
        """Give every empty kept cluster a point, as the engines' ``fill_empty``: the
        :meth:`_donor`, else the first set-aside point."""
        w = self.engine.w
        s, q, cnt = cluster_stats(M, labels, w)
        for l in np.flatnonzero(cnt[:k] == 0):
            i = self._donor(labels, M, s, q, cnt, k)
            i = int(np.flatnonzero(labels == k)[0]) if i is None else i
            self.engine.move_rows(np.array([i]), np.array([labels[i]]), np.array([l]), M)
            labels[i] = l
            s, q, cnt = cluster_stats(M, labels, w)

    # -- sweeps ------------------------------------------------------------------------
    def sweep(self, state):
        """One step of every active run: a concentration step while it raises ``F``,
        then (rule ``"trimmed"``) trimmed Hartigan sweeps. Returns each run's moves (0:
        the run converged)."""
        moves = np.zeros(state.n_runs, dtype=np.int64)
        for r in map(int, np.flatnonzero(state.active)):
            if state.concentrating[r]:
                moves[r] = self._concentrate(state, r)
                if moves[r]:
                    continue
                state.concentrating[r] = False
                if state.rule != "trimmed":
                    continue
            moves[r] = self._hartigan(state, r) or self._reseed(state, r)
        return moves

    def _concentrate(self, state, r):
        """One concentration step of run ``r``, kept when it raises ``F`` by more than
        rounding (else undone); the number of labels it changed (0: not taken)."""
        eng, k = self.engine, state.s.shape[1]
        labels, M = state.labels[r], state.M[r]
        s, q, cnt = (a[r] for a in state.full)
        new = np.empty_like(labels)
        _tk.concentrate(M, eng.w, eng.diag, s, q, k, self.budget, new)
        pts = np.flatnonzero(new != labels)
        if not pts.size:
            return 0
        before = (labels.copy(), M.copy(), s.copy(), q.copy(), cnt.copy())
        f0 = state.objective(r)
        eng.move_rows(pts, labels[pts], new[pts], M)
        labels[:] = new
        self._refill(labels, M, k)
        s[:], q[:], cnt[:] = cluster_stats(M, labels, eng.w)
        f1 = state.objective(r)
        if f1 - f0 > RTOL * (abs(f0) + abs(f1)):
            return int(np.count_nonzero(labels != before[0]))
        for a, v in zip((labels, M, s, q, cnt), before):
            a[...] = v
        return 0

    def _hartigan(self, state, r):
        """One trimmed Hartigan sweep of run ``r`` (module docstring): the points in
        order, each moved by its best improving move; the number of moves."""
        eng, k = self.engine, state.s.shape[1]
        labels, M = state.labels[r], state.M[r]
        s, q, cnt = (a[r] for a in state.full)
        summary = _Summary(k)
        summary.refresh(self, M, labels, s, q, k)
        pos, moves = 0, 0
        while True:
            room = self.budget - s[k]
            i, kind, l, t, gain, check = _tk.next_move(
                M, labels, eng.w, eng.diag, s, q, cnt, k, room, pos, *summary.arrays(),
                *summary.bounds, self.hilbert, self._kmax)
            if i < 0:
                return moves
            pos = i + 1
            col = self._column(i)
            if check:
                t2, l2, g2 = _tk.best_swap(M, labels, eng.w, eng.diag, s, q, k, room,
                                           summary.noise, summary.n_noise, i, col)
                if t2 >= 0 and g2 > gain:
                    kind, l, t = _tk.SWAP, l2, t2
            if kind == _tk.NONE:
                continue
            j = labels[i]
            self._apply(state, r, i, k if kind == _tk.SWAP else l, col)
            if kind == _tk.SWAP:
                self._apply(state, r, t, l, self._column(t))
            moves += 1
            summary.refresh(self, M, labels, s, q, k, (j, l) if kind == _tk.MOVE else None)

    def _reseed(self, state, r):
        """At the end of run ``r``'s sweeps, a point alone in its cluster (a far stray
        that a start took for a seed, which no single move can set aside: Hartigan's
        moves never empty a cluster) is tried set aside: its cluster re-seeded with the
        :meth:`_donor`, the cheapest set-aside points brought back while the budget is
        exceeded, and the sweeps go on from there; the end they reach is kept when its
        W is lower, else the run goes back to the end before (:meth:`_settle`). Each
        such point is tried once per end kept. Returns the trial's moves (0: none
        left to try)."""
        self._settle(state, r)
        k, labels = state.s.shape[1], state.labels[r]
        s, q, cnt = (a[r] for a in state.full)
        w = self.engine.w
        for j in np.flatnonzero(cnt[:k] == 1):
            i = int(np.flatnonzero(labels == j)[0])
            if i in state.tried[r] or w[i] > self.budget or not (cnt[:k] >= 2).any():
                continue
            state.tried[r].add(i)
            state.saved[r] = (state.objective(r), labels.copy(), state.M[r].copy(), s.copy(),
                              q.copy(), cnt.copy())
            self._apply(state, r, i, k, self._column(i))
            p = self._donor(labels, state.M[r], s, q, cnt, k)
            self._apply(state, r, p, j, self._column(p))
            moves = 2
            while s[k] > self.budget:
                t, l = self._cheapest(state, r, exclude=i)
                self._apply(state, r, t, l, self._column(t))
                moves += 1
            return moves
        return 0

    def _cheapest(self, state, r, exclude):
        """``(t, l)``: the set-aside point (not ``exclude``) and kept cluster where
        bringing it back costs least, ``C_l(t)``."""
        k, labels, M = state.s.shape[1], state.labels[r], state.M[r]
        s, q = state.full[0][r][:k], state.full[1][r][:k]
        t = np.flatnonzero(labels == k)
        t = t[t != exclude]
        w, b = self.engine.w[t][:, None], self.engine.diag[t][:, None]
        cost = (w * q / s - 2.0 * M[:k, t].T - b) / (s + w) + b / w
        a, l = np.unravel_index(int(np.argmin(cost)), cost.shape)
        return int(t[a]), int(l)

    def _settle(self, state, r):
        """Judge run ``r``'s pending trial (:meth:`_reseed`): its end kept when ``F`` is
        higher by more than rounding (the points tried forgotten), else the end before
        it restored."""
        saved = state.saved[r]
        if saved is None:
            return
        state.saved[r] = None
        f0, f1 = saved[0], state.objective(r)
        if f1 - f0 > RTOL * (abs(f0) + abs(f1)):
            state.tried[r] = set()
            return
        for a, v in zip((state.labels[r], state.M[r], *(x[r] for x in state.full)), saved[1:]):
            a[...] = v

    def _column(self, c):
        """``B[:, c] = w K[:, c] w_c`` from the engine's unweighted column."""
        w = self.engine.w
        return w * self.engine.column(int(c)) * w[c]

    def _apply(self, state, r, p, b, col):
        """Move point ``p`` to cluster ``b`` in run ``r`` (``col``: ``B[:, p]``): ``q``,
        ``s``, ``cnt`` updated as TPAMI Algorithm 2 does, then the two rows of ``M``."""
        M, labels = state.M[r], state.labels[r]
        s, q, cnt = (x[r] for x in state.full)
        a, wp, bpp = labels[p], self.engine.w[p], self.engine.diag[p]
        q[a] += -2.0 * M[a, p] + bpp
        q[b] += 2.0 * M[b, p] + bpp
        s[a] -= wp
        s[b] += wp
        cnt[a] -= 1
        cnt[b] += 1
        M[a] -= col
        M[b] += col
        labels[p] = b

    # -- finish, predict -------------------------------------------------------------
    def sync(self, state):
        """Nothing deferred: every move updated ``M``."""

    def finish(self, state):
        """One :class:`TrimmedRunResult` per run, ``F`` from sums recomputed from ``M``."""
        eng, k = self.engine, state.s.shape[1]
        per_weight = state.rule == "trimmed"
        out = []
        for r in range(state.n_runs):
            self._settle(state, r)  # a trial cut short by max_iter: the better end
            labels, M = state.labels[r], state.M[r]
            s, q, _ = cluster_stats(M, labels, eng.w)
            noise = np.flatnonzero(labels == k)
            thr = _tk.noise_threshold(M, eng.w, eng.diag, s, q, k, noise, noise.size,
                                      per_weight)
            lab = np.where(labels == k, -1, labels)
            out.append(TrimmedRunResult(
                lab, float(_objective(s, q, labels, self._trace, k)), len(state.n_moves[r]),
                list(state.n_moves[r]), bool(state.converged[r]), s[:k].copy(),
                q[:k].copy(), threshold=float(thr), noise_weight=float(s[k])))
        return out

    def predictor(self, X_fit, result):
        """The engine's predictor of the kept clusters (:class:`KeptClusters`)."""
        k = result.s.shape[0]
        labels = np.where(np.asarray(result.labels) < 0, k, result.labels)
        full = RunResult(labels, result.objective, result.n_iter, result.n_moves,
                         result.converged, np.append(result.s, result.noise_weight),
                         np.append(result.q, 0.0))
        return KeptClusters(self.engine.predictor(X_fit, full), k)

    def count_improving_moves(self, labels, k):
        """Points of ``labels`` (-1: set aside) with an improving move of the trimmed
        search (a move, a swap, a point set aside or brought back); 0 where the
        trimmed Hartigan sweeps stop."""
        state = self.start([labels], k, "trimmed")
        eng, M, lab = self.engine, state.M[0], state.labels[0]
        s, q, cnt = (a[0] for a in state.full)
        summary = _Summary(k)
        summary.refresh(self, M, lab, s, q, k)
        pos, total, room = 0, 0, self.budget - s[k]
        while True:
            i, kind, _, _, _, check = _tk.next_move(
                M, lab, eng.w, eng.diag, s, q, cnt, k, room, pos, *summary.arrays(),
                *summary.bounds, self.hilbert, self._kmax)
            if i < 0:
                return total
            pos = i + 1
            if kind == _tk.NONE:
                t, _, _ = _tk.best_swap(M, lab, eng.w, eng.diag, s, q, k, room, summary.noise,
                                        summary.n_noise, i, self._column(i))
                kind = _tk.SWAP if t >= 0 else _tk.NONE
            total += kind != _tk.NONE


class _Summary:
    """What :func:`~kgroups._kernels.trimmed.next_move` reads of the set-aside points:
    per kept cluster the cheapest one to bring back (``cmin``, ``cidx``) and the bounds
    ``dmin``, ``vmax``; their indices (``noise``) and the extremes of their weights and
    diagonal (``bounds``)."""

    def __init__(self, k):
        self.cmin, self.dmin, self.vmax = np.empty(k), np.empty(k), np.empty(k)
        self.cidx = np.empty(k, dtype=np.int64)
        self.noise, self.n_noise, self.bounds = None, 0, (1.0, 1.0, 0.0)

    def arrays(self):
        return self.cmin, self.cidx, self.dmin, self.vmax

    def refresh(self, runs, M, labels, s, q, k, clusters=None):
        """Recomputed for the kept clusters ``clusters`` (a move between them), or for
        all of them with the set-aside points (None: the set aside changed)."""
        w, diag = runs.engine.w, runs.engine.diag
        update = np.zeros(k, dtype=bool)
        if clusters is None:
            self.noise = np.flatnonzero(labels == k)
            self.n_noise = int(self.noise.size)
            if self.n_noise:
                wn = w[self.noise]
                self.bounds = (float(wn.min()), float(wn.max()),
                               float(np.min(diag[self.noise] / (wn * wn))))
            update[:] = True
        else:
            update[list(clusters)] = True
        _tk.noise_summary(M, w, diag, s, q, k, self.noise, self.n_noise, update, self.cmin,
                          self.cidx, self.dmin, self.vmax)
