"""The GPU engine's arrays on the device, and its kernel computed there outside the sweeps.

:class:`DeviceArrays`, a base of :class:`~kgroups._engines.gpu.GpuEngine`, puts the
data on the device once (host data copied, data already on a CUDA device transposed
there from the caller's array, never through the host), reads each feature's range
there, grows the device arrays of a build only when it needs more rows, uploads the
small arrays of a build and sorts the points by label for it. Outside the sweeps it
computes the kernel ``K = -rho/2`` on the device: a column (the starts and the
refilling of an emptied cluster, n numbers back), the dense Gram matrix (the
spectral start, checked against the free memory first), the exact within-cluster
sums ``q`` after float32 passes, and ``predict``'s cross sums
(:mod:`kgroups._engines.gpu_predictor`); it reports what the engine asked of the
device (``engine_stats_``).

It holds no state of its own: the engine's ``__init__`` sets what it reads (the
device's tally ``tally`` and kernels ``_k``, the weights ``w``, the data ``dXT``,
the sorted copies ``dXTs``, ``dws``, ``dlabs``, ``dorder``, the kernel's arguments
``_args``).
"""

from __future__ import annotations

import numpy as np

from .._memory import check_fits


class DeviceArrays:
    """The engine's arrays on the device and the kernel computed there (module docstring)."""

    def _load(self, X):
        """The data on the device as the passes read them, transposed, float64 (D, n):
        host data copied once; device data (:class:`~kgroups._input_device.DeviceRows`)
        transposed there from the caller's array (its rows read, times its scale),
        never through the host."""
        n, d = X.shape
        if isinstance(X, np.ndarray):
            return self._put(np.ascontiguousarray(np.asarray(X, dtype=np.float64).T),
                             "the data")
        t, kk = self.tally, self._k
        rows = self._put(np.ascontiguousarray(X.row_index(), dtype=np.int64), "the rows read")
        dXT = t.alloc((d, n), what="the data")
        t.launch(kk.take_rows_transposed, kk.blocks(n), kk.THREADS, X.array, rows, X.scale,
                 dXT, 0)
        t.sync()  # before the rows' device array is released
        return dXT

    def _ranges(self):
        """``(lo, hi)``: each feature's smallest and largest value, from the device."""
        t, kk, d = self.tally, self._k, self.n_features
        host = np.array([[np.inf] * d, [-np.inf] * d])
        dev = self._put(host, "the data's ranges")
        # a grid-stride scan: at most 64 blocks, and no more than the points fill
        t.launch(kk.column_ranges, min(64, kk.blocks(self.dXT.shape[1])), kk.THREADS,
                 self.dXT, dev)
        t.to_host(dev, host)
        t.sync()
        return host[0], host[1]

    def _put(self, host, what):
        dev = self.tally.alloc(host.shape, host.dtype, what=what)
        self.tally.to_device(np.ascontiguousarray(host), dev)
        return dev

    def _grow(self, attr, shape, what):
        """The device array ``attr`` with at least ``shape[0]`` rows (reallocated only
        when it has fewer); the view of ``shape[0]`` rows."""
        cur = getattr(self, attr)
        if cur is None or cur.shape[0] < shape[0] or cur.shape[1:] != tuple(shape[1:]):
            if cur is not None:
                setattr(self, attr, None)
                del cur
            setattr(self, attr, self.tally.alloc(tuple(shape), what=what))
        return getattr(self, attr)[:shape[0]]

    def _upload_temp(self, host):
        """A small array of a build (class labels, a few starts' labels) on the device."""
        dev = self.tally.alloc(host.shape, host.dtype, what="the starts' labels")
        self.tally.to_device(host, dev)
        return dev

    def _sort_points(self, labels, rows):
        """The points sorted by label on the device (labels, order, data and weights in
        ``dlabs``, ``dorder``, ``dXTs``, ``dws``) and zeroed sums for a build (rows x
        n); ``(sorted labels on the host, sums)``."""
        n, t, kk = self.n_samples, self.tally, self._k
        labels = np.asarray(labels, dtype=np.int64)
        order = np.argsort(labels, kind="stable")
        labs = np.ascontiguousarray(labels[order])
        t.to_device(labs, self.dlabs)
        t.to_device(order, self.dorder)
        t.launch(kk.take_columns, kk.blocks(n), kk.THREADS, self.dXT, self.dw, self.dorder,
                 self.dXTs, self.dws)
        dS = self._grow("_dS", (rows, n), "the sums of a build of M")
        t.launch(kk.zero_rows, kk.blocks(n), kk.THREADS, dS, rows)
        return labs, dS

    def column(self, c):
        """Column ``c`` of the unweighted kernel ``K = -rho/2`` (computed on the device,
        n numbers back)."""
        t, kk, n = self.tally, self._k, self.n_samples
        if self._dcol is None:
            self._dcol = t.alloc((n,), what="a column of the kernel")
        t.launch(kk.rho_column, kk.blocks(n), kk.THREADS, self.dXT, int(c), self._dcol,
                 *self._args)
        out = np.empty(n)
        t.to_host(self._dcol, out)
        t.sync()
        return -0.5 * out

    def move_rows(self, points, old, new, M):
        """Moves applied to the host's ``M`` (one run): ``M[old] -= B[p]``, ``M[new] +=
        B[p]`` with each mover's row ``B[p, y] = w_p w_y K(x_p, x_y)`` from
        :meth:`column` (few moves: an emptied cluster refilled)."""
        for p, a, b in zip(np.asarray(points), np.asarray(old), np.asarray(new)):
            row = self.w[p] * self.w * self.column(int(p))
            M[a] -= row
            M[b] += row

    def gram(self):
        """Dense ``K = -rho/2`` (the spectral start, small problems): computed on the
        device, both copies checked against the free memory first."""
        t, kk, n = self.tally, self._k, self.n_samples
        what = f"the dense Gram matrix for n={n} (spectral init)"
        check_fits(8 * n * n, what, "init='k-means++'")
        D = t.alloc((n, n), what=what)
        t.launch(kk.pooled_matrix, (kk.blocks(n, 32), kk.blocks(n, 8)), (32, 8), self.dXT, D,
                 *self._args)
        out = np.empty((n, n))
        t.to_host(D, out)
        t.sync()
        return -0.5 * out

    def predictor(self, X_fit, result):
        """``predict``'s cross sums against the fit's points, on the device
        (:class:`~kgroups._engines.gpu_predictor.DevicePredictor`), its ``center`` the
        midpoint of the points' ranges (new rows in host memory are range-checked
        from it, as against the points of an in-memory fit)."""
        from .gpu_predictor import DevicePredictor

        lo, hi = self._ranges()
        return DevicePredictor(self.dXT, self.w, result.labels, result.s.shape[0],
                               self.semimetric, self.params, center=0.5 * lo + 0.5 * hi)

    def _exact_q(self, labels, k):
        """``q_l = sum_{i, y in C_l} B[i, y]`` in float64: the points sorted by label,
        then one pass over each cluster's ordered pairs
        (:func:`~kgroups._kernels.cuda.build_sorted`, the cluster as rows and columns),
        ``sum_l n_l^2 D`` work in all."""
        t, kk, n, d = self.tally, self._k, self.n_samples, self.n_features
        labs, out = self._sort_points(labels, k)
        bounds = np.searchsorted(labs, np.arange(k + 1))
        for a, b in zip(bounds[:-1], bounds[1:]):
            if b > a:
                kern, grid, threads, tile, shared = kk.rows_pass(d, b - a)
                t.launch(kern, grid, threads, self.dXTs[:, a:b],
                         self.dws[a:b], self.dXTs[:, a:b], self.dws[a:b], self.dlabs[a:b],
                         out[:, a:b], tile, *self._args, shared=shared)
        host = np.empty((k, n))
        t.to_host(out, host)
        t.sync()
        return np.array([host[l, bounds[l]:bounds[l + 1]].sum() for l in range(k)])

    def counters(self):
        """The device the engine ran on and what was asked of it per phase, for
        ``engine_stats_`` (``"device_calls"``: :class:`~kgroups._kernels.device.DeviceTally`)."""
        from numba import config

        cuda = self._k.cuda
        if config.ENABLE_CUDASIM:
            name = "CUDA simulator"
        else:
            name = cuda.get_current_device().name
            name = name.decode() if isinstance(name, bytes) else str(name)
        out = {"device": name, "device_calls": self.tally.summary()}
        if self.eps32:
            out["float32"] = {"kernel_error_bound": self.eps32,
                              "groups_gone_float64": self.fallbacks}
        return out
