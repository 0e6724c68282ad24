"""Dask backend: low-rank kernel k-groups over the row blocks of a dask array.

The points live in row blocks on the workers (or in the threads of Dask's local
scheduler); the driver holds only what is k x m: the cluster sums in feature
space. With a feature map ``phi(x) = r(x) T`` (Nystrom: ``r(x) = K0(x, L)``,
``T = U Lambda^{-1/2}``; random Fourier features: ``r = phi``, ``T = I``, see
:mod:`kgroups._engines.lowrank`) and, as in the low-rank engine, the kernel
``Kt(x, y) = phi(x) . phi(y) - a(x) - a(y)`` with ``a = K(x, x) / 2``:

* **setup** (once per fit): each block keeps its rows of X, the weights,
  ``a`` and ``B_ii = w^2 (||phi||^2 - 2 a)`` (one projection of every row, the
  fit's largest single cost: O(n m m')). The features themselves are never
  kept: a pass recomputes the raw features ``r`` of the rows it evaluates,
  O(m D) per row and no projection, so a worker holds O(n_b (D + 3)) floats per
  block and 10^7 x 256 features (20 GB) never exist at once;
* **sums** (one pass): ``S_l = (sum_{i in C_l} w_i r_i) T``, ``A_l``, ``s_l``,
  the cluster sizes, reduced on the driver (k x m per block);
* **sweep** (one pass): the driver sends ``P = S T^T`` (k x m), ``A, s, q``
  and the sizes; every block computes ``M[l, i] = w_i (r_i . P_l - a_i s_l -
  A_l)`` for its rows with one matrix product and proposes each point's best
  move under those sums (paper eq. 50, :func:`~kgroups._kernels.feature_space.best_moves`),
  sending back the proposers' projected features ``phi_i``. Points that a
  bound proves still (Hamerly-style bounds kept with the block's labels, see
  :func:`propose_block`) are skipped before their features are computed, so a
  sweep late in the run costs O(n_b) per block plus the few rows near a
  boundary. The driver takes
  the blocks in order and the proposals one at a time, recomputing each gain
  exactly from the *current* sums (O(k m)) and moving the point only when that
  gain is positive (:func:`~kgroups._kernels.feature_space.sweep_lowrank` on the
  proposals). Every accepted move raises Q; a sweep that accepts no move
  leaves a partition where no point has an improving move under the final
  sums: a Hartigan local optimum in feature space.

A sweep costs one round trip: ``k m + 4 k`` floats to each block, back
``(m' + 5)`` floats per proposal; the accepted moves go back to their blocks as
(index, label) pairs, which the next sweep's tasks apply. Data moved per sweep
is O(blocks k m + proposals m), never O(n m). Proposals are streamed: the driver
holds one block's at a time.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels import feature_space as _lr
from .._config import carried
from .._kernels.bounds import fresh_bounds_rows
from .._kernels.jit import kernel_array
from .._validation import InvalidParameterError, as_seed, label_array
from .engine import Capabilities, Engine, RunResult, RunState
from .._memory import check_fits
from .lowrank import LANDMARKS, FeatureSums, check_landmarks, fourier_map, nystroem_map

# Row blocks are cut so that one block's raw features (rows x m float64) take at
# most this much: a task's scratch is a few times that.
MAX_BLOCK_BYTES = 128 * 2**20


# --------------------------------------------------------------------------- tasks
# Module-level functions: the workers import them by reference.
@dataclass
class Block:
    """One row block on a worker: data, weights, ``a`` and ``B_ii``."""

    X: np.ndarray
    w: np.ndarray
    a: np.ndarray
    diag: np.ndarray

    def raw(self, fmap, rows=None):
        """The raw features ``r`` of the block's rows (or of ``rows`` of them)."""
        return fmap.raw(self.X if rows is None else self.X[rows])


def setup_block(Xb, wb, fmap):
    """A block's data, ``a`` and ``B_ii``."""
    Xb = np.asarray(Xb, dtype=np.float64)
    wb = np.asarray(wb, dtype=np.float64)
    R = fmap.raw(Xb)
    a = 0.5 * np.asarray(fmap.kdiag(Xb), dtype=np.float64)
    F = fmap.project(R)
    diag = wb * wb * (np.einsum("ij,ij->i", F, F) - 2.0 * a)
    return Block(Xb, wb, a, diag)


def block_sums(block, state, fmap, k):
    """``(sum_{i in C_l} w_i r_i, A_l, s_l, sizes)`` of one block."""
    return _partial_sums(block, block.raw(fmap), state.labels, k)


def _partial_sums(block, R, labels, k):
    """:func:`block_sums` from the block's raw features ``R`` already computed."""
    SR, A = _lr.cluster_sums_lr(R, block.a, kernel_array(block.w, np.float64), labels, k)
    return (SR, A, np.bincount(labels, weights=block.w, minlength=k),
            np.bincount(labels, minlength=k))


def _m_columns(block, fmap, sums, rows=None):
    """``C[i, l] = M[l, i]`` for the block's rows (or ``rows`` of them) and the raw
    features used."""
    P, A, s = sums[0], sums[1], sums[2]
    R = block.raw(fmap, rows)
    a, w = (block.a, block.w) if rows is None else (block.a[rows], block.w[rows])
    C = R @ P.T
    C -= a[:, None] * s[None, :]
    C -= A[None, :]
    C *= w[:, None]
    return C, R


@dataclass
class BlockState:
    """A block's part of a run: labels and, per point, bounds ``up >= d_j`` on the
    feature distance to its own cluster mean and ``lo <= min_{l != j} d_l`` to the
    others, valid for the means of the last sweep (``up = inf``: not known)."""

    labels: np.ndarray
    up: np.ndarray
    lo: np.ndarray


def new_state(labels):
    """A block state with no bounds known."""
    n = labels.shape[0]
    return BlockState(labels, np.full(n, np.inf), np.zeros(n))


def block_labels(state):
    """The labels of a block state."""
    return state.labels


def fresh_bounds(d2, labels, scale):
    """``(up, lo)`` from exact squared distances ``d2`` (rows x k) to the means:
    ``up >= d_own``, ``lo <= min_{l != own} d_l``, widened by ``BOUND_SLACK`` times
    ``scale`` (the size of the terms the distances come from, per row) so that
    rounding never makes a bound wrong (the sweeps' rule,
    :func:`kgroups._kernels.bounds.fresh_bounds`)."""
    n = d2.shape[0]
    return fresh_bounds_rows(np.ascontiguousarray(d2, dtype=np.float64),
                             np.ascontiguousarray(labels, dtype=np.int64),
                             np.broadcast_to(np.asarray(scale, dtype=np.float64), (n,)).copy())


def propose_block(block, state, fmap, sums, drift):
    """The block's improving moves under ``sums = (P, A, s, q, cnt, sn2)``, and its
    state with updated bounds.

    ``drift[l]`` is how far mean ``l`` moved since the bounds were taken
    (``drift[k]`` the largest): ``up + drift[j]`` and ``lo - drift[k]`` still bound
    the distances (triangle inequality, as Hamerly 2010 does for Lloyd's
    k-means), and a point with ``s_j / (s_j - w) U^2 < min_l s_l / (s_l + w) L^2``
    has no improving move (its gain, ``w s_j / (s_j - w) d_j^2 - w s_l / (s_l + w)
    d_l^2`` in feature space, is negative): it is skipped and its features are
    not even computed. The others get exact gains and fresh bounds.
    Returns ``(proposals, state)``; proposals are ``(indices, labels, phi, a, w,
    B_ii)`` of the points with a move of positive gain.
    """
    s, q, cnt, sn2 = sums[2], sums[3], sums[4], sums[5]
    k = s.shape[0]
    j, w = state.labels, block.w
    up = state.up + drift[j]
    lo = state.lo - drift[k]
    s_min = s.min()
    sj = s[j]
    with np.errstate(invalid="ignore", divide="ignore"):
        still = (lo > 0.0) & (sj / (sj - w) * up * up < s_min / (s_min + w) * lo * lo)
    rows = np.flatnonzero(~still & (cnt[j] > 1))
    C, R = _m_columns(block, fmap, sums, rows)
    jr, wr, ar = j[rows], w[rows], block.a[rows]
    target = _lr.best_moves(C, jr, wr, block.diag[rows], s, q, cnt)
    # distances to every mean for the fresh bounds: ||phi||^2 - 2 phi.S_l / s_l + ||S_l||^2 / s_l^2
    f2 = block.diag[rows] / (wr * wr) + 2.0 * ar
    with np.errstate(invalid="ignore", divide="ignore"):
        dot = C / wr[:, None] + ar[:, None] * s[None, :] + sums[1][None, :]
        d2 = f2[:, None] - 2.0 * dot / s[None, :] + (sn2 / (s * s))[None, :]
    d2[:, s <= 0] = np.inf
    up[rows], lo[rows] = fresh_bounds(
        d2, jr, np.maximum(f2, np.max(np.where(s > 0, sn2 / np.where(s > 0, s * s, 1.0), 0.0))))
    moving = target >= 0
    idx = rows[moving]
    props = (idx, j[idx].copy(), np.ascontiguousarray(fmap.project(R[moving])),
             block.a[idx], w[idx], block.diag[idx])
    return props, BlockState(j, up, lo)


def donor_block(block, state, fmap, sums):
    """The block's point whose move to an empty cluster raises Q most:
    ``(gain, index, label, phi, a, w, B_ii)``; gain ``-inf`` when none may move.

    Gain ``A_j(i) + B_ii / w_i`` (paper eq. 50 with an empty target), as
    :func:`kgroups._base.fill_empty_clusters` uses.
    """
    C, R = _m_columns(block, fmap, sums)
    s, q, cnt = sums[2], sums[3], sums[4]
    j, w, b = state.labels, block.w, block.diag
    cj = C[np.arange(j.shape[0]), j]
    gain = (w * q[j] / s[j] - 2.0 * cj + b) / np.maximum(s[j] - w, 1e-300) + b / w
    gain[cnt[j] < 2] = -np.inf
    if gain.size == 0:
        return (-np.inf, -1, -1, None, 0.0, 0.0, 0.0)
    i = int(np.argmax(gain))
    return (float(gain[i]), i, int(j[i]), fmap.project(R[i:i + 1])[0], float(block.a[i]),
            float(w[i]), float(b[i]))


def apply_moves(state, idx, new):
    """The block's state after the driver's accepted moves (their bounds forgotten)."""
    if idx.size == 0:
        return state
    labels, up = state.labels.copy(), state.up.copy()
    labels[idx] = new
    up[idx] = np.inf
    return BlockState(labels, up, state.lo)


@dataclass
class NearestMeans:
    """A start: every point joins the nearest of these means in feature space
    (``P``: their duals, ``P_l . r(x) = mu_l . phi(x)``; ``sn2 = ||mu_l||^2``)."""

    P: np.ndarray
    sn2: np.ndarray
    means: np.ndarray


def start_block(block, labels, fmap, start, k):
    """A block's first state and its sums, from one computation of its raw features.

    ``labels`` given (``start`` None): they start, with no bounds known. Else each
    point joins the nearest mean of ``start`` and keeps bounds on its distances
    to those means, so that the first sweep can skip it too.
    """
    R = block.raw(fmap)
    if start is None:
        state = new_state(np.asarray(labels, dtype=np.int64))
    else:
        f2 = block.diag / (block.w * block.w) + 2.0 * block.a  # ||phi||^2
        d2 = f2[:, None] - 2.0 * (R @ start.P.T) + start.sn2[None, :]
        lab = np.argmin(d2, axis=1).astype(np.int64)
        state = BlockState(lab, *fresh_bounds(d2, lab, np.maximum(f2, start.sn2.max())))
    return _partial_sums(block, R, state.labels, k), state


def random_block(n_rows, k, seed):
    """Uniform random labels for a block."""
    return np.random.default_rng(seed).integers(0, k, size=n_rows).astype(np.int64)


def check_labels_block(lb, k, start, owner):
    """Given starting labels of a block as int64 in ``[0, k)``."""
    from .._validation import check_init_labels

    lb = np.asarray(lb)
    try:
        return check_init_labels(lb, lb.shape[0], k, owner)
    except ValueError as exc:
        raise type(exc)(f"{exc} (in init[{start}:{start + lb.shape[0]}])") from None


# --------------------------------------------------------------------------- engine
@dataclass
class DaskRunState(RunState):
    """Runs of the Dask engine: ``labels[r]`` is the list of run ``r``'s per-block
    states (persisted on the workers) and there is no ``M``; the driver holds each
    run's cluster feature sums ``S[r]`` (k x m) and ``A[r]`` (k), and ``means[r]``,
    the means its last sweep started from (None before the first)."""

    labels: list
    S: list = None
    A: list = None
    means: list = None


@dataclass
class DaskRunResult(RunResult):
    """A finished Dask run: its labels are a dask array, and ``S``, ``A`` the cluster
    feature sums its predictor needs."""

    S: np.ndarray = None
    A: np.ndarray = None


class DaskEngine(Engine):
    """Approximate engine on Dask: Hartigan moves on low-rank features, proposed by the
    blocks and accepted exactly by the driver (see the module docstring).

    Built by :meth:`from_semimetric` from a dask array (rows in blocks, one column
    chunk); ``sizes`` are the blocks' row counts. A run's labels live with the blocks
    (``state.labels[r]``: the blocks' states), its feature sums ``S`` and ``A`` on the
    driver (:class:`DaskRunState`). Named starts are the sample start (an exact in-memory fit
    of a sample, extended to every block by the nearest mean) or random labels drawn
    block by block; restarts run one after another.
    """

    name = "dask"
    capabilities = Capabilities(
        exact=False, inputs=("raw data",), semimetrics="negative type",
        memory="n_components features per row of one block on each worker",
        device="a Dask cluster", array_kinds=("dask",), rules=("hartigan",))
    sample_start = "always"
    max_auto_starts = 1
    unavailable_inits = ("spectral",)

    @classmethod
    def check_input(cls, *, semimetric, kernel, sparse_input, landmarks, what, owner):
        """Random Fourier features exist for the Gaussian and Laplacian kernels only (a
        semimetric this engine does not take is refused by the generic checks)."""
        if cls.capabilities.takes("raw data", semimetric):
            check_landmarks(semimetric, landmarks, owner)

    def __init__(self, fmap, blocks, sizes, out_chunks):
        self.fmap = fmap
        self.fmap_d = None  # the map as one dask object shared by every task
        self.blocks = blocks
        self.sizes = tuple(int(b) for b in sizes)
        self.out_chunks = tuple(int(b) for b in out_chunks)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)]).astype(np.int64)
        self.rounds = 0  # round trips to the blocks (compute calls), for reports
        self.bytes_out = 0  # bytes sent to blocks by sweeps (sums), for reports
        self.bytes_in = 0  # bytes of proposals received, for reports

    @property
    def n_samples(self):
        return int(self.offsets[-1])

    # -- construction -----------------------------------------------------
    @classmethod
    def memory_bytes(cls, n_samples, n_features, *, n_clusters, n_init=1, dtype=np.float64,
                     options=None):
        """Driver memory: the landmark sample and its kernel, the map, the sums and
        one block's proposals (the blocks' own memory is the workers')."""
        from .lowrank import SEED_SAMPLE

        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        m = min(int((options or {}).get("n_components", 256)), n)
        rows = block_rows(m)
        return 8 * (min(n, SEED_SAMPLE) * (d + 2) + 3 * m * m + m * d + 6 * k * m
                    + min(rows, n) * (m + 6))

    @staticmethod
    def worker_bytes(rows, n_features, m, k):
        """Scratch of one task on a block of ``rows`` rows: raw features, their
        projection, ``M``'s columns and the data."""
        return 8 * rows * (3 * m + k + n_features + 8)

    @classmethod
    def layout(cls, X, w, *, n_clusters, options=None):
        """``X`` and ``w`` in row blocks of at most :func:`block_rows` rows, each
        block's task checked against a worker's memory."""
        from .._dask_io import client_or_none

        options = options or {}
        n, d = X.shape
        m = min(int(options.get("n_components", 256)), n)
        if max(X.chunks[0]) > block_rows(m):
            X = X.rechunk({0: block_rows(m)})
        check_block_fits(max(X.chunks[0]), d, m, n_clusters, client_or_none(),
                         options.get("owner", "KernelKGroups"))
        return X, w.rechunk((X.chunks[0],))

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """The engine for the row blocks of the dask array ``X`` (one column chunk, cut
        by :meth:`layout`) with dask weights ``w`` chunked like its rows; ``dtype`` is
        ignored.

        ``options``: ``n_components`` (m, capped at n), ``landmarks``,
        ``random_state``, ``center`` (the centre of X, from the pass that checked it)
        and ``out_chunks`` (the row chunks of the labels returned).
        """
        import dask

        from .._dask_io import persist_wait

        options = dict(options or {})
        n, d = X.shape
        m = int(options.get("n_components", 256))  # Nystrom takes at most n landmarks
        landmarks = options.get("landmarks", "k-means++")
        if landmarks not in LANDMARKS:
            raise ValueError(f"landmarks={landmarks!r} should be one of {LANDMARKS}")
        cls.check_memory(n, d, n_clusters=n_clusters, options=options,
                         alternative="a smaller n_components or fewer clusters")
        out_chunks = options.get("out_chunks") or X.chunks[0]
        rng = np.random.default_rng(as_seed(options.get("random_state")))
        if landmarks == "fourier":
            center = options.get("center")
            if center is None:
                from .._dask_io import summarize

                center = summarize(X, w, options.get("owner", "KernelKGroups"))[1]
            fmap = fourier_map(X, m, semimetric, params.get("sigma", 1.0), rng,
                               center=np.asarray(center))
        else:
            fmap = nystroem_map(X, m, semimetric, params, landmarks, rng,
                                rows=lambda idx: np.asarray(X[idx].compute(), np.float64))
        fmap_d = dask.delayed(fmap, pure=True)
        blocks = persist_wait([dask.delayed(carried(setup_block), pure=True)(xb, wb, fmap_d)
                               for xb, wb in zip(X.to_delayed().ravel(),
                                                 w.to_delayed().ravel())])
        eng = cls(fmap, blocks, X.chunks[0], out_chunks)
        eng.fmap_d = fmap_d
        return eng

    # -- runs -------------------------------------------------------------------
    def _stream(self, tasks):
        from .._dask_io import stream

        self.rounds += 1
        return stream(tasks)

    def _sums_task(self, state, r):
        import dask

        S = state.S[r]
        P = self.fmap.dual(S)
        sn2 = np.einsum("ij,ij->i", S, S)
        self.bytes_out += len(self.blocks) * (P.nbytes + 5 * sn2.nbytes)
        return dask.delayed((P, state.A[r], state.s[r], state.q[r], state.cnt[r], sn2),
                            pure=True)

    def start(self, starts, k, rule):
        """The runs from label blocks or :class:`NearestMeans` starts: each block's state
        (persisted) and the sums, in one pass per start; empty clusters filled."""
        import dask

        from .._dask_io import stream_split

        R = len(starts)
        state = DaskRunState([None] * R, None, np.zeros((R, k)), np.zeros((R, k)),
                             np.zeros((R, k), dtype=np.int64), rule,
                             S=[None] * R, A=[None] * R, means=[None] * R)
        for r, spec in enumerate(starts):
            near = spec if isinstance(spec, NearestMeans) else None
            given = [None] * len(self.blocks) if near is not None else spec
            start = dask.delayed(carried(start_block), pure=True, nout=2)
            pairs = [start(b, lb, self.fmap_d, near, k)
                     for b, lb in zip(self.blocks, given)]
            self.rounds += 1
            parts, states = stream_split([p[0] for p in pairs], [p[1] for p in pairs])
            state.labels[r] = list(states)
            self._set_sums(state, r, self._reduce(parts))
            state.means[r] = None if near is None else near.means
            self._fill_empty_run(state, r)
        return state

    def _set_sums(self, state, r, sums):
        state.S[r], state.A[r], state.s[r], state.q[r], state.cnt[r] = sums

    def _reduce(self, parts):
        """Cluster sums ``S, A, s, q, cnt`` from the blocks' partial sums."""
        SR, A, s, cnt = 0.0, 0.0, 0.0, 0
        for part in parts:
            SR, A, s, cnt = SR + part[0], A + part[1], s + part[2], cnt + part[3]
        S = np.ascontiguousarray(self.fmap.project(np.asarray(SR, dtype=np.float64)))
        A = np.asarray(A, dtype=np.float64)
        s = np.asarray(s, dtype=np.float64)
        cnt = np.asarray(cnt, dtype=np.int64)
        q = np.einsum("ij,ij->i", S, S) - 2.0 * s * A
        return S, A, s, q, cnt

    def _fill_empty_run(self, state, r):
        """Give every empty cluster of run ``r`` the point whose move there raises Q
        most (one round trip per empty cluster)."""
        import dask

        from .._dask_io import persist

        filled = 0
        for l in np.flatnonzero(state.cnt[r] == 0):
            sums = self._sums_task(state, r)
            tasks = [dask.delayed(carried(donor_block), pure=True)(b, st, self.fmap_d, sums)
                     for b, st in zip(self.blocks, state.labels[r])]
            best, where = None, -1
            for blk, cand in enumerate(self._stream(tasks)):
                if best is None or cand[0] > best[0]:
                    best, where = cand, blk
            gain, i, j, phi, a, w, _ = best
            if not np.isfinite(gain):
                break
            self._move(state, r, j, int(l), phi, a, w)
            state.labels[r][where] = dask.delayed(carried(apply_moves), pure=True)(
                state.labels[r][where], np.array([i]), np.array([l]))
            filled += 1
        if filled:
            state.labels[r] = persist(state.labels[r])

    @staticmethod
    def _move(state, r, j, l, phi, a, w):
        S, A = state.S[r], state.A[r]
        s, q, cnt = state.s[r], state.q[r], state.cnt[r]
        S[j] -= w * phi
        S[l] += w * phi
        A[j] -= w * a
        A[l] += w * a
        s[j] -= w
        s[l] += w
        cnt[j] -= 1
        cnt[l] += 1
        for t in (j, l):
            q[t] = S[t] @ S[t] - 2.0 * s[t] * A[t]

    def _drift(self, state, r):
        """How far each mean of run ``r`` moved since its last sweep (``inf`` for a
        cluster that is or was empty), and the largest, as the blocks' bounds need."""
        s = state.s[r]
        k = s.shape[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            means = state.S[r] / s[:, None]
        drift = np.full(k + 1, np.inf)
        last = state.means[r]
        if last is not None:
            d = np.sqrt(((means - last) ** 2).sum(axis=1))
            drift[:k] = np.where(np.isfinite(d), d, np.inf)
            drift[k] = drift[:k].max()
        state.means[r] = means
        return drift

    def sweep_run(self, state, r):
        """One distributed sweep of run ``r`` (see the module docstring); its moves."""
        import dask

        from .._dask_io import persist, stream_split

        sums = self._sums_task(state, r)
        drift = self._drift(state, r)
        pairs = [dask.delayed(carried(propose_block), pure=True, nout=2)(b, st, self.fmap_d, sums,
                                                                drift)
                 for b, st in zip(self.blocks, state.labels[r])]
        self.rounds += 1
        results, states = stream_split([p[0] for p in pairs], [p[1] for p in pairs])
        moves = 0
        accepted = []
        S, A = state.S[r], state.A[r]
        for (idx, lab, phi, a, w, diag) in results:
            self.bytes_in += idx.nbytes + lab.nbytes + phi.nbytes + 3 * a.nbytes
            if idx.size == 0:
                accepted.append(None)
                continue
            new = lab.copy()
            taken = _lr.sweep_lowrank(phi, a, w, diag, new, S, A, state.s[r], state.q[r],
                                      state.cnt[r])
            moved = new != lab
            accepted.append((idx[moved], new[moved]) if taken else None)
            moves += int(taken)
        states = list(states)
        for blk, acc in enumerate(accepted):
            if acc is not None:
                states[blk] = dask.delayed(carried(apply_moves), pure=True)(states[blk], *acc)
        state.labels[r] = persist(states)
        return moves

    def finish(self, state):
        """Fresh sums from each run's final labels (the driver's were updated move by
        move); the labels as a dask array chunked like X, persisted."""
        import dask

        k = state.s.shape[1]
        out = []
        for r in range(state.n_runs):
            parts = [dask.delayed(carried(block_sums), pure=True)(b, st, self.fmap_d, k)
                     for b, st in zip(self.blocks, state.labels[r])]
            self._set_sums(state, r, self._reduce(self._stream(parts)))
            labels = self._labels_array(state.labels[r]).rechunk((self.out_chunks,)).persist()
            out.append(DaskRunResult(labels, state.objective(r), len(state.n_moves[r]),
                                     list(state.n_moves[r]), bool(state.converged[r]),
                                     state.s[r].copy(), state.q[r].copy(),
                                     S=state.S[r].copy(), A=state.A[r].copy()))
        return out

    def _labels_array(self, blocks):
        """A run's labels as a dask array with the engine's row blocks."""
        import dask
        import dask.array as da

        return da.concatenate([
            da.from_delayed(dask.delayed(block_labels, pure=True)(st), shape=(n,),
                            dtype=np.int64)
            for st, n in zip(blocks, self.sizes)])

    def counters(self):
        """Blocks, round trips and bytes moved, for ``engine_stats_``."""
        return {"blocks": len(self.sizes), "round_trips": self.rounds,
                "bytes_to_blocks": self.bytes_out, "bytes_from_blocks": self.bytes_in}

    def count_improving_moves(self, labels, k):
        raise ValueError("improving_moves needs an in-memory engine; pass X.compute()")

    # -- starting partitions ---------------------------------------------------
    def given_starts(self, init, k, owner):
        """Given labels (numpy or dask; one start, or one per row): label blocks,
        each checked (:func:`check_labels_block`) when a run first reads it."""
        import dask
        import dask.array as da

        n = self.n_samples
        if isinstance(init, da.Array):
            rows = [init] if init.ndim == 1 else [init[r] for r in range(init.shape[0])]
        else:
            lab = label_array(init, owner, "init labels")
            rows = list(lab) if lab.ndim == 2 and lab.shape[1] == n else [lab]
        for lab in rows:
            if lab.ndim != 1 or lab.shape[0] != n:
                raise InvalidParameterError(
                    f"{owner}: init labels have shape {init.shape}, expected ({n},) or "
                    f"(n_starts, {n}) (one start per row)")
        starts = []
        for lab in rows:
            lab = lab.rechunk((self.sizes,)) if isinstance(lab, da.Array) \
                else da.from_array(lab, chunks=(self.sizes,))
            starts.append([dask.delayed(check_labels_block, pure=True)(lb, k, int(a), owner)
                           for lb, a in zip(lab.to_delayed().ravel(), self.offsets[:-1])])
        return starts

    def random_start(self, k, rng):
        """Uniform random labels, one seed per block from ``rng``."""
        import dask

        seeds = rng.integers(0, 2**63 - 1, size=len(self.sizes))
        return [dask.delayed(random_block, pure=True)(n, k, int(sd))
                for n, sd in zip(self.sizes, seeds)]

    def extend(self, idx, Xs, ws, labels, k):
        """A :class:`NearestMeans` start: every point joins the nearest of the means
        in feature space of the clusters ``labels`` of the sample rows ``Xs``."""
        F = self.fmap(Xs)
        S, _ = _lr.cluster_sums_lr(F, np.zeros(Xs.shape[0]), kernel_array(ws, np.float64),
                                   labels, k)
        s = np.bincount(labels, weights=ws, minlength=k)
        means = S / s[:, None]
        return NearestMeans(self.fmap.dual(means), np.einsum("ij,ij->i", means, means), means)

    # -- after the fit -----------------------------------------------------------
    def predictor(self, X_fit, result):
        """What ``predict`` needs: :class:`~kgroups._engines.lowrank.FeatureSums`."""
        return FeatureSums(self.fmap, result.S, result.A, result.s,
                           X_fit.shape[1])


def block_rows(m):
    """Rows per block so that one block's raw features take ``MAX_BLOCK_BYTES``."""
    return max(1024, MAX_BLOCK_BYTES // (8 * max(int(m), 1)))


def check_block_fits(rows, n_features, m, k, client, owner):
    """Refuse blocks whose task scratch exceeds a worker's memory limit."""
    need = DaskEngine.worker_bytes(rows, n_features, m, k)
    if client is not None:
        limits = [wk.get("memory_limit", 0) or 0
                  for wk in client.scheduler_info().get("workers", {}).values()]
        limit = min([x for x in limits if x] or [0])
        if limit and need > 0.8 * limit:
            raise ValueError(
                f"{owner}: a block of {rows} rows needs about {need / 2**20:.0f} MiB per task "
                f"with n_components={m}, more than 80% of a worker's memory limit "
                f"({limit / 2**20:.0f} MiB); rechunk X into smaller row blocks or give the "
                "workers more memory")
        return
    check_fits(need, f"a task on a block of {rows} rows", "smaller row blocks")
