"""``predict``, ``transform`` and ``score`` of a GPU fit, on the device.

The cross sums of new rows against the fit's points,

    ``m[x, l] = -1/2 sum_{y in C_l} w_y rho(x, y)``  (``K = -rho/2``, ``K(x, x) = 0``),

come from the pass that builds ``M`` (:func:`kgroups._kernels.cuda.build_sorted`,
the fit's points sorted by label, the new rows as its rows, unit row weights): block
by block of new rows, never an n_new x n matrix. The fit's points stay on the
device, sorted by label once. New rows on the host are copied to the device a block
at a time; rows already there (the estimators' device rows: the caller's array, the
rows read and their scale) are transposed there, never copied to the host.
"""

from __future__ import annotations

import numpy as np

from .._kernels.device import check_device_fits, cuda_kernels
from .._kernels.semimetric import kernel_args


def transposed_rows(rows, what):
    """Rows (host (m, D), or device rows with ``array``/``row_index``/``scale``) as a
    float64 device array (D, m), the device memory checked first."""
    kk = cuda_kernels()
    cuda = kk.cuda
    m, d = rows.shape
    check_device_fits(8 * m * (d + 1), what)
    if isinstance(rows, np.ndarray):
        return cuda.to_device(np.ascontiguousarray(np.asarray(rows, dtype=np.float64).T))
    out = cuda.device_array((d, m))
    idx = cuda.to_device(np.ascontiguousarray(rows.row_index(), dtype=np.int64))
    kk.take_rows_transposed[kk.blocks(m), kk.THREADS](rows.array, idx, rows.scale, out, 0)
    return out


class DevicePredictor:
    """The cross sums of new rows against points kept on the device (module docstring).

    ``XT`` (D, n): the points on the device; ``w``, ``labels`` (n, host) and ``k``:
    their weights and partition; ``semimetric``/``params``: the fit's; ``center``: a
    point near them (host), from which new rows in host memory are range-checked.
    """

    # New rows per block: their transposed copy and k sums each, on the device.
    block_rows = 1 << 16
    device_rows = True  # takes rows on the device as well as in host memory

    def __init__(self, XT, w, labels, k, semimetric, params, center=None):
        kk = cuda_kernels()
        cuda = kk.cuda
        self._k = kk
        d, n = XT.shape
        labels = np.ascontiguousarray(labels, dtype=np.int64)
        order = np.argsort(labels, kind="stable")
        check_device_fits(8 * n * (d + 3), "the fit's points sorted for predict")
        self.XTs = cuda.device_array((d, n))
        self.ws = cuda.device_array(n)
        kk.take_columns[kk.blocks(n), kk.THREADS](XT, cuda.to_device(np.ascontiguousarray(w)),
                                                  cuda.to_device(order), self.XTs, self.ws)
        self.labs = cuda.to_device(np.ascontiguousarray(labels[order]))
        self.k, self.n_features = int(k), d
        self._args = kernel_args(semimetric, params)
        self.center = center  # None: no range check of new rows (score's own rows)

    @classmethod
    def from_rows(cls, rows, w, labels, k, semimetric, params):
        """The predictor of the points ``rows`` (host or device rows) with weights
        ``w`` partitioned by ``labels`` (``score``'s sums within clusters)."""
        return cls(transposed_rows(rows, "the rows scored"), w, labels, k, semimetric, params)

    def cross_sums(self, Xb):
        """``(m, 0.0)``: ``m`` (rows of ``Xb`` x k, host) and ``K(x, x) = 0``."""
        kk = self._k
        cuda = kk.cuda
        m = Xb.shape[0]
        if m == 0:
            return np.zeros((0, self.k)), 0.0
        XR = transposed_rows(Xb, "a block of new rows for predict")
        out = cuda.to_device(np.zeros((self.k, m)))
        kern, grid, threads, tile, shared = kk.rows_pass(self.n_features, m)
        kern[grid, threads, 0, shared](
            XR, cuda.to_device(np.ones(m)), self.XTs, self.ws, self.labs, out, tile,
            *self._args)
        return np.ascontiguousarray(out.copy_to_host().T), 0.0


def within_sums(rows, w, labels, k, semimetric, params):
    """``sum_{x, y in C_l} w_x w_y rho(x, y)`` for each cluster ``l`` of ``labels``
    (host, k), from the cross sums of the rows against themselves on the device:
    ``-2 sum_{x in C_l} w_x m[x, l]``."""
    pred = DevicePredictor.from_rows(rows, w, labels, k, semimetric, params)
    out = np.zeros(k)
    step = pred.block_rows
    for a in range(0, rows.shape[0], step):
        m, _ = pred.cross_sums(rows[a:a + step])
        lab = labels[a:a + step]
        np.add.at(out, lab, -2.0 * w[a:a + step] * m[np.arange(m.shape[0]), lab])
    return out
