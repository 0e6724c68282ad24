"""The GPU engine's Hartigan sweeps decided and applied on the device.

:class:`DeviceSweeps`, a base of :class:`~kgroups._engines.gpu.GpuEngine`, runs a
sweep of every active run (paper Algorithm 2) without the host deciding anything:
the device holds each run's labels, ``M``, ``s``, ``q``, ``cnt`` and a pending list
of moves, and the host launches, in turn, the pass that decides points until the
list is full or its corrections reach their budget
(:func:`~kgroups._kernels.cuda_sweep.decide_pass`, one block per run)
and the pass that applies the list to every column of ``M``
(:func:`~kgroups._kernels.cuda_sweep.apply_pass_pending`). It does not wait between
launches: it enqueues as many pairs as the sweep is expected to need (one per full list
of the moves the previous sweep made, then as many as the pace of this sweep's
rounds so far says the rest needs), then
reads the runs' positions (and their sums) once; a pair launched after a run reached the end of
its data decides and applies nothing. A sweep in which few points move is one
round: two launches per run group and one synchronisation.

Each decision reads the column and sums the move-at-a-time algorithm reads (see
:mod:`kgroups._kernels.cuda_sweep`), so from the same start the runs make the CPU
engines' moves, up to floating-point ties, and at the end no single move lowers W.

The host gets ``s``, ``q``, ``cnt`` and the moves after each sweep (k numbers per
run: the driver's objective and its tests), the labels and ``M`` only when it
needs them (:meth:`DeviceSweeps.sync`, before the results). Its state reads the
engine's attributes: the tally ``tally``, the kernels' arguments ``_args``, the
data ``dXT`` and weights ``dw``, and the runs' ``M`` on the device
(``_device_m``).
"""

from __future__ import annotations

import numpy as np

from .._kernels.device import check_device_fits, device_free_memory

# Pairs of launches (decide, apply) enqueued at most before the host reads where the
# runs are.
MOST_PAIRS = 256


def sweep_state_bytes(n_samples, n_clusters, n_runs):
    """Device bytes of the sweeps' state: each run's labels (n), ``s``, ``q``, ``cnt``
    (k each), its pending list (3 x :data:`~kgroups._kernels.cuda_sweep.PENDING_CAP`)
    and control words."""
    from .._kernels import cuda_sweep as cs

    return 8 * int(n_runs) * (int(n_samples) + 3 * int(n_clusters) + 3 * cs.PENDING_CAP
                              + cs.CTL_WIDTH + 1)


class DeviceSweeps:
    """The sweeps decided and applied on the device (module docstring)."""

    def device_sweeps_for(self, k):
        """Whether a Hartigan sweep of ``k`` clusters runs on the device: a window of
        its decisions fits in a block's shared memory."""
        return self._ks.decide_threads(k) > 0

    def _sweep_arrays(self, R, k):
        """The device arrays of the sweeps' state for R runs of k clusters (made once
        per R and k, their size checked against the free memory first)."""
        a = self._sweeping
        if a is None or a["R"] != R or a["k"] != k:
            self._sweeping = None
            t, n, cap = self.tally, self.n_samples, self._ks.PENDING_CAP
            check_device_fits(sweep_state_bytes(n, k, R), "the GPU engine's sweeps",
                              free=device_free_memory())
            a = {"R": R, "k": k, "state": None, "pairs": 1, "threads": 0,
                 "labels": t.alloc((R, n), np.int64, what="the runs' labels"),
                 "s": t.alloc((R, k), what="the runs' cluster weights"),
                 "q": t.alloc((R, k), what="the runs' cluster sums"),
                 "cnt": t.alloc((R, k), np.int64, what="the runs' cluster sizes"),
                 "pend": t.alloc((R, cap), np.int64, what="the pending moves"),
                 "pold": t.alloc((R, cap), np.int64, what="the pending moves"),
                 "pnew": t.alloc((R, cap), np.int64, what="the pending moves"),
                 "ctl": t.alloc((R, self._ks.CTL_WIDTH), np.int64, what="the sweeps' state"),
                 "active": t.alloc((R,), np.int64, what="the active runs"),
                 "hctl": np.zeros((R, self._ks.CTL_WIDTH), dtype=np.int64)}
            self._sweeping = a
        return a

    def _hold_on_device(self, state, a):
        """The runs of ``state`` on the device (labels, ``M``, ``s``, ``q``, ``cnt``),
        sent unless the device already holds them."""
        dM = self._device_m(state)
        if a["state"] is not state:
            t = self.tally
            t.to_device(np.ascontiguousarray(state.labels), a["labels"])
            t.to_device(np.ascontiguousarray(state.s), a["s"])
            t.to_device(np.ascontiguousarray(state.q), a["q"])
            t.to_device(np.ascontiguousarray(state.cnt), a["cnt"])
            a["state"], a["pairs"] = state, 1
        return dM

    def _sweep_on_device(self, state):
        """One Hartigan sweep of every active run on the device (module docstring);
        each run's moves. ``s``, ``q``, ``cnt`` come back; the labels and ``M`` stay
        on the device until :meth:`sync`."""
        R, k, n = state.M.shape
        t, ks = self.tally, self._ks
        a = self._sweep_arrays(R, k)
        dM = self._hold_on_device(state, a)
        t.to_device(state.active.astype(np.int64), a["active"])
        t.launch(ks.start_sweep, ks.blocks(R), ks.THREADS, a["ctl"], a["active"], n)
        decide, apply = ks.decide_pass(self.n_features), ks.apply_pass_pending(self.n_features)
        threads = a["threads"] or ks.decide_threads(k)
        staged = ks.decide_staged(k, threads, self.n_features, a["pend"].shape[1])
        shared = ks.decide_shared_bytes(k, threads, staged, self.n_features)
        common = (a["pend"], a["pold"], a["pnew"], a["ctl"])
        pairs, pos = a["pairs"], 0
        hctl = a["hctl"]
        while True:
            for _ in range(pairs):
                t.launch(decide, R, threads, self.dXT, self.dw, a["labels"], dM, a["s"],
                         a["q"], a["cnt"], *common, int(ks.PENDING_WORK), staged,
                         *self._args, shared=shared)
                t.launch(apply, (ks.blocks(n), R), ks.THREADS, self.dXT, self.dw, *common,
                         dM, *self._args)
            t.to_host(a["ctl"], hctl)
            for key in ("s", "q", "cnt"):  # current if the sweep is over: one wait
                t.to_host(a[key], getattr(state, key))
            t.sync()
            t.count("batches", pairs)
            done = int(hctl[:, ks.POS].min())
            if done >= n:
                break
            # as many more pairs as the runs' progress so far says the rest needs
            pace = max(1.0, (done - pos) / pairs)
            pos = done
            pairs = int(min(MOST_PAIRS, max(1, np.ceil((n - done) / pace))))
        # the next sweep's first round: enough pairs for as many moves as this one made
        a["pairs"] = int(min(MOST_PAIRS, 1 + hctl[:, ks.MOVES].max() // a["pend"].shape[1]))
        a["threads"] = a["threads"] or ks.decide_threads(k, ks.registers(decide))
        self._stale = state
        return hctl[:, ks.MOVES].copy()

    def sync(self, state):
        """The labels and ``M`` of runs swept on the device brought back to the host."""
        if getattr(self, "_stale", None) is not state:
            return
        t, a = self.tally, self._sweeping
        t.to_host(a["labels"], state.labels)
        t.to_host(self._dM[:state.n_runs], state.M)
        t.sync()
        self._stale = None
