"""The host's side of the GPU engine's batched Hartigan sweeps.

The decisions stay on the host, sequential and exact (paper Algorithm 2, eq. 50).
:class:`Sweep` is the state of one sweep of a group of runs; :class:`HostSweeps`, a
base of :class:`~kgroups._engines.gpu.GpuEngine`, decides a run's points from the
columns of ``M`` it holds, corrected for its pending moves (:meth:`HostSweeps.
_decide_from`), takes in what the device sends back (a window of columns with those
points' rows of the data, :meth:`HostSweeps._window`; the windows of a batch once it
is applied, :meth:`HostSweeps._collect`), has pending moves applied at once
(:meth:`HostSweeps._apply`) and, when a decision of the float32 passes cannot be
certified, goes on with float64 sums (:meth:`HostSweeps._to_float64`).

The device's side of the same sweeps, sized by its windows and batches, is the
engine's own (:mod:`kgroups._engines.gpu`): it provides the buffers (``_buffers``),
the prefetch of a window (``_prefetch``), the launch that applies a batch
(``_send``) and the builds of ``M`` (``_build_runs``).
"""

from __future__ import annotations

import numpy as np

from .._kernels import pairs_on_the_fly as _mf
from .._kernels.gain import cluster_stats
from .._kernels.semimetric import NEGATIVE_TYPE
from .matrix_free import NO_ERRORS


class HostSweeps:
    """The host's side of the engine's sweeps (module docstring)."""

    def _hold_rows(self, r, lo, window):
        """Run ``r`` holds the rows of points ``lo, lo + 1, ...`` from the data rows of
        a window (D x b, transposed here)."""
        b = self._buffers
        width = window.shape[1]
        b["rows"][r][:width] = window.T
        b["first"][r] = lo

    def _decide_from(self, state, r, start, stop, n_pend, budget):
        """Run ``r``'s decisions from ``start`` (:func:`~kgroups._kernels.
        pairs_on_the_fly.decide_mf`), its first ``n_pend`` pending moves already in its
        list (those in flight and those not yet sent); ``(next point, n_pend, moves,
        uncertain)``."""
        b, buf = state.bounds, self._buffers
        pend, old, new = buf["pend"][r]
        # the skip bounds hold for exact sums only: the float32 mode decides every point
        return _mf.decide_mf(
            buf["rows"][r], int(buf["first"][r]), self.w, state.labels[r], state.M[r],
            state.s[r], state.q[r], state.cnt[r], start, stop, pend, old, new,
            buf["moved"][r], int(n_pend), budget,
            self.semimetric in NEGATIVE_TYPE and self._eps == 0.0, b.up[r], b.lo[r],
            b.own[r], b.all[r], b.drift[r], self._eps,
            self._qerr[r] if self._eps else NO_ERRORS, *self._args)

    def _window(self, r, dM, M, lo, ahead):
        """Columns ``lo:hi`` of the device's ``M`` into run ``r``'s host ``M`` and those
        points' rows held (from the prefetch ``ahead`` when it holds them), and the
        next window prefetched; ``(hi, ahead)``."""
        n, t, buf = self.n_samples, self.tally, self._buffers
        if ahead is None or ahead[0] != lo:
            ahead = self._prefetch(r, dM, lo, 0)
        t.sync()
        t.count("windows")
        _, hi, slot = ahead
        k = M.shape[0]
        M[:, lo:hi] = buf["hwin"][r, slot][:k, :hi - lo]
        self._hold_rows(r, lo, buf["hwin"][r, slot][k:, :hi - lo])
        nxt = self._prefetch(r, dM, hi, 1 - slot) if hi < n else None
        return hi, nxt

    def _collect(self, sw, Ms):
        """Wait for the batch in flight, if any: each run's window into its host ``M``
        (columns ``lo:hi``, current with every sent move), its moves off the head of
        its list, its columns (and their points' rows) held up to ``hi``."""
        if not sw.flying.any():
            return
        t, buf = self.tally, self._buffers
        t.sync()
        t.count("batches")
        lo, hi = sw.window
        k = Ms.shape[1]
        for r in sw.pos:
            if hi[r] > lo[r]:
                Ms[r][:, lo[r]:hi[r]] = buf["hruns"][r][:k, :hi[r] - lo[r]]
                self._hold_rows(r, lo[r], buf["hruns"][r][k:, :hi[r] - lo[r]])
            f, p = int(sw.flying[r]), int(sw.n_pend[r])
            if f:
                pend, moved = buf["pend"][r], buf["moved"][r]
                pend[:, :p - f] = pend[:, f:p].copy()
                moved[:p - f] = moved[f:p].copy()
            sw.n_pend[r] = p - f
            sw.fresh[r] = int(hi[r])
        sw.flying[:] = 0

    def _apply(self, dM, Ms, n_pend, pos):
        """The runs' pending moves (``n_pend[r]`` of run ``r``, in the buffer ``pend``)
        applied on the device and each run of ``pos`` (run -> first column) given its
        next window; ``{run: end of its window}``."""
        sw = Sweep(Ms.shape[0], list(pos), self.n_samples)
        sw.pos.update(pos)
        sw.n_pend[:] = n_pend
        self._send(dM, sw)
        self._collect(sw, Ms)
        return {r: sw.fresh[r] for r in pos}

    def _to_float64(self, state, sw):
        """A decision the float32 bounds cannot certify: the batch in flight collected,
        every run's ``M`` built again from its labels in float64 (its pending moves
        are in them: the lists are emptied), ``s``, ``q``, ``cnt`` and the skip bounds
        from those sums, and the group goes on with float64 passes; each run fetches
        its next window from the new sums."""
        self._collect(sw, state.M)
        self._eps = 0.0
        self.fallbacks += 1
        R, k, _ = state.M.shape
        dM = self._build_runs(state.labels, k)
        self.tally.to_host(dM[:R], state.M)
        self.tally.sync()
        for r in range(R):
            state.s[r], state.q[r], state.cnt[r] = cluster_stats(state.M[r], state.labels[r],
                                                                 self.w)
        sw.n_pend[:] = 0
        for r in sw.pos:
            self._refresh_bounds(state, r)
            sw.fresh[r], sw.ahead[r] = sw.pos[r], None


class Sweep:
    """The state of one Hartigan sweep of a group of runs on the device: each run's
    position, the end of the columns (and points' rows) it holds and its prefetched
    window (dicts by run), its pending moves (``n_pend``: those in flight first,
    ``flying`` of them), the windows of the batch in flight and whether any batch
    was sent."""

    def __init__(self, R, runs, n):
        self.pos = {r: 0 for r in runs}
        self.fresh = {r: 0 for r in runs}  # no columns held: rows come with windows
        self.ahead = {r: None for r in runs}
        self.n_pend = np.zeros(R, dtype=np.int64)
        self.flying = np.zeros(R, dtype=np.int64)
        self.moves = np.zeros(R, dtype=np.int64)
        self.window = None
        self.sent = False
