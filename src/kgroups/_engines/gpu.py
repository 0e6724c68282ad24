"""GPU engine: exact kernel k-groups with the pair passes on a CUDA device.

The matrix-free engine's algorithm (:mod:`kgroups._engines.matrix_free`), with its
two O(n^2 D) and O(n D)-per-move passes moved to the device
(:mod:`kgroups._kernels.cuda`): building ``M`` (one pass over the pairs, the points
sorted by label) and applying batches of moves to ``M`` (each mover's kernel row
computed on the fly). The device holds the data, the weights and a run's ``M``,
O(n (k + D)) float64, never an n x n matrix; its free memory is checked first.

The Hartigan decisions stay sequential and exact (paper Algorithm 2): the host
decides the points in order from the columns of ``M`` (fetched from the device a
window at a time), corrects each column for the moves it has decided but not yet
applied (their entries ``B[i, p]``, O(D) each, :func:`kgroups._kernels.pairs_on_the_fly.
decide_mf`), skips the points its bounds prove still, and sends a batch of decided
moves to the device, which applies them to every column in their order before the
next window is fetched. Each decision therefore sees exactly the column the
move-at-a-time algorithm sees: for the same start the engine makes the matrix-free
engine's moves (up to floating-point ties), and at the end no single move lowers W.
Kernel k-means (Lloyd's rule) runs on the host as on the matrix-free engine, from
an ``M`` the device built.

Needs numba-cuda and a CUDA device (``pip install 'kgroups[gpu]'``); under numba's
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) it runs anywhere, slowly, which is how
the tests check it without a GPU.
"""

from __future__ import annotations

import numpy as np

from .._kernels.device import cuda_kernels as _cuda, cuda_usable, device_free_memory
from .._validation import InvalidParameterError
from .matrix_free import BATCH, PENDING_WORK, MatrixFreeEngine


# Columns of M the host fetches at once for its decisions.
WINDOW = 4096


class GpuEngine(MatrixFreeEngine):
    """Exact engine with its pair passes on a CUDA device (named semimetrics on raw data).

    Same decisions as :class:`~kgroups._engines.matrix_free.MatrixFreeEngine` from
    the same start (up to floating-point ties); see the module docstring.
    """

    name = "gpu"

    def __init__(self, X, w, semimetric, params):
        super().__init__(X, w, semimetric, params)
        from numba import cuda

        self._k = _cuda()
        self.dXT = cuda.to_device(self.XT)
        self.dw = cuda.to_device(self.w)

    @staticmethod
    def device_bytes(n_samples, n_features, n_clusters):
        """Device memory of a fit: the data twice (as given and sorted by label for a
        build), weights, labels and the sort (n each), a run's ``M`` and the build's
        sorted ``M`` (k x n each), a window of columns and a batch of moves."""
        n, d, k = int(n_samples), int(n_features), int(n_clusters)
        return 8 * (2 * n * d + 4 * n + 2 * k * n + k * WINDOW + 3 * BATCH)

    @classmethod
    def from_semimetric(cls, X, w, semimetric, params, *, dtype=np.float64, n_clusters,
                        n_init=1, options=None):
        """From raw data; ``dtype`` is ignored (float64 on host and device). Refuses,
        before allocating, a machine without a usable device or a fit whose host or
        device memory does not fit."""
        n, d = X.shape
        if not cuda_usable(real_device=False):
            raise InvalidParameterError(
                f"{(options or {}).get('owner', 'KernelKGroups')}: engine='gpu' needs a "
                "CUDA device and numba-cuda (pip install 'kgroups[gpu]'); none is usable "
                "here: use engine='matrix-free' (exact, every CPU core) or engine='auto'")
        cls.check_memory(n, d, n_clusters=n_clusters, n_init=n_init,
                         alternative="engine='low-rank' (approximate) or fewer clusters")
        need, free = cls.device_bytes(n, d, n_clusters), device_free_memory()
        if need > 0.9 * free:
            raise InvalidParameterError(
                f"engine='gpu' for n_samples={n}, n_features={d}, n_clusters={n_clusters} "
                f"needs {need / 2**30:.2f} GiB of device memory but {free / 2**30:.2f} GiB "
                "are free; use engine='matrix-free' (host memory) or fewer clusters")
        return cls(X, w, semimetric, params)

    # -- the pair passes on the device --------------------------------------------
    def _build_sorted(self, labels, k):
        """``(Ms, order)``: the sums of :meth:`build_m` with the columns sorted by
        label, from one device pass (:func:`kgroups._kernels.cuda.build_sorted`)."""
        from numba import cuda

        labels = np.asarray(labels, dtype=np.int64)
        order = np.argsort(labels, kind="stable")
        n, d = self.X.shape
        dXTs = cuda.to_device(np.ascontiguousarray(self.XT[:, order]))
        dMs = cuda.to_device(np.zeros((k, n)))
        tile = self._k.tile_for(d)
        self._k.build_sorted[self._k.blocks(n), self._k.THREADS, 0, 8 * tile * d](
            dXTs, cuda.to_device(self.w[order]),
            cuda.to_device(np.ascontiguousarray(labels[order])), dMs, tile, *self._args)
        return dMs.copy_to_host(), order

    def _build_multi(self, labs, k):
        """``M`` of each start of ``labs``, one device pass each."""
        return np.stack([self.build_m(lab, k) for lab in labs])

    def _apply_device(self, dM, pend, old, new, n_pend):
        """The first ``n_pend`` pending moves applied to the device's ``M``."""
        from numba import cuda

        n = self.X.shape[0]
        self._k.apply_moves[self._k.blocks(n), self._k.THREADS](
            self.dXT, self.dw, cuda.to_device(pend[:n_pend]), cuda.to_device(old[:n_pend]),
            cuda.to_device(new[:n_pend]), n_pend, dM, *self._args)

    def _fetch(self, dM, M, lo, hi):
        """Columns ``lo:hi`` of the device's ``M`` into the host's ``M``."""
        from numba import cuda

        out = cuda.device_array((M.shape[0], hi - lo))
        self._k.gather_columns[(self._k.blocks(hi - lo, 32), M.shape[0]), (32, 1)](dM, lo, out)
        M[:, lo:hi] = out.copy_to_host()

    # -- runs ---------------------------------------------------------------------
    def sweep(self, state):
        """One Hartigan sweep of every active run, one run after another (Lloyd's
        rule: the host's iteration, :class:`MatrixFreeEngine`). Returns each run's
        moves.

        A run's ``M`` goes to the device at the start of the sweep and comes back at
        its end. In between, the host decides window after window of points
        (:data:`WINDOW` columns fetched after the device applied every decided move),
        carrying the decided moves as pending corrections until a batch is worth a
        pass (:data:`~kgroups._engines.matrix_free.BATCH` moves or
        :data:`~kgroups._engines.matrix_free.PENDING_WORK` corrections), which the
        device then applies in order.
        """
        if state.rule != "hartigan":
            return super().sweep(state)
        from numba import cuda

        n = self.n_samples
        moves = np.zeros(state.n_runs, dtype=np.int64)
        pend = np.empty(BATCH, dtype=np.int64)
        old, new = np.empty_like(pend), np.empty_like(pend)
        for r in map(int, np.flatnonzero(state.active)):
            M = state.M[r]
            self._refresh_bounds(state, r)
            dM = cuda.to_device(M)
            pos, stale = 0, False
            while pos < n:
                stop = min(n, pos + WINDOW)
                if stale:
                    self._fetch(dM, M, pos, stop)
                pos, n_pend, m = self._decide(state, r, pos, stop, pend, old, new,
                                              PENDING_WORK)
                moves[r] += m
                if n_pend:
                    self._apply_device(dM, pend, old, new, n_pend)
                    stale = True
            if stale:
                state.M[r] = dM.copy_to_host()
        return moves

    def counters(self):
        """The device the engine ran on, for ``engine_stats_``."""
        from numba import config, cuda

        if config.ENABLE_CUDASIM:
            return {"device": "CUDA simulator"}
        name = cuda.get_current_device().name
        return {"device": name.decode() if isinstance(name, bytes) else str(name)}

