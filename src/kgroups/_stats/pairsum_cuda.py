"""Pair sums of device arrays: the energy statistics on a CUDA device.

Input with ``__cuda_array_interface__`` (CuPy, PyTorch or numba device arrays) stays
on the device: the parts are checked there (:func:`kgroups._kernels.cuda.scan_rows`:
finite, the largest ``|x|`` for the power-of-two rescaling), pooled and transposed
once, and the k x k group sums

    ``P[i, j] = sum_{x in C_i} sum_{y in C_j} w_x w_y rho(x, y)``

come from the GPU engine's pass (:func:`kgroups._kernels.cuda.build_sorted`: rows
sorted by group, each row's sums per group, float64, never an n x n matrix),
``P[c, l] = -2 sum_{i in C_c} Ms[l, i]``. A permutation test builds the pooled n x n
matrix on the device (its size checked against the free device memory) and reduces
each batch of relabellings there: the matrix times their one-hot codes (but the
largest group's: :func:`kgroups._stats.dispatch.relabelled`), tiled as a matrix
product (:func:`kgroups._kernels.cuda.relabelled_columns`), summed by group
(:func:`~kgroups._kernels.cuda.relabelled_reduce`), only the (B, k, k) sums back;
the relabellings are drawn on the host from the caller's random state, as for
in-memory data, so both give the same permutations. Labels and weights (n numbers)
are read on the host. Named semimetrics only.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._validation import InvalidParameterError, is_device_array
from .._kernels.device import (as_device, device_free_memory, host_values, numba_cuda,
                               scan_device)
from .pairsum import (
    PairSums,
    Prepared,
    check_which,
    magnitude_scale,
    part_codes,
    part_weights,
    pooled_groups,
    same_features,
)


# Blocks a grid has at most along y (CUDA's limit): the tiles of columns of a launch.
MAX_GRID_Y = 65535


class CudaPairSums(PairSums):
    """Pair sums of device arrays, computed on the device (see the module docstring)."""

    kind = "cuda"
    has_pooled = True
    # a batch's product is B k x n float64 on the device (256 MiB): a batch of many
    # relabellings fills the tiles of columns and reads the pooled matrix fewer times
    relabel_elements = 1 << 25

    def prepare(self, parts, spec, owner):
        from .._kernels import cuda as kernels

        if spec["semimetric"] == "precomputed" or callable(spec["semimetric"]):
            raise InvalidParameterError(
                f"{owner}: device arrays take a named semimetric on raw data, got "
                f"semimetric={spec['semimetric']!r}; pass NumPy arrays for a precomputed "
                "matrix or a callable")
        datas = [_device_rows(p.data, p.name, owner) for p in parts]
        same_features([p.name for p in parts], [X.shape[1] for X in datas], owner)
        big = max(scan_device(X, p.name, owner) for X, p in zip(datas, parts))
        c, factor = magnitude_scale(big, spec)
        # labels and weights (n numbers each) are read on the host, as in memory
        host = [replace(p, labels=host_values(p.labels), weights=host_values(p.weights))
                for p in parts]
        codes, values, k = part_codes(host, datas, owner)
        weights, scales = part_weights(host, datas, owner)
        codes, w, groups = pooled_groups(host, codes, weights, k)
        ZT = _pooled_transposed(datas, 1.0 / c, kernels)
        return Prepared(self, owner, spec, codes.shape[0], k, *groups, np.array(scales), factor,
                        values, codes, (ZT, w))

    def group_sums(self, prep, which="all"):
        check_which(which)
        cuda = numba_cuda()
        from .._kernels import cuda as kernels
        from .._kernels.semimetric import kernel_args

        ZT, w = prep.payload
        dim, n = ZT.shape
        order = np.argsort(prep.codes, kind="stable")
        labs = np.ascontiguousarray(prep.codes[order])
        ZTs = cuda.device_array((dim, n))
        kernels.take_rows_transposed[kernels.blocks(n), kernels.THREADS](
            _transposed_view(ZT), cuda.to_device(order), 1.0, ZTs, 0)
        Ms = cuda.to_device(np.zeros((prep.k, n)))
        kern, grid, threads, tile, shared = kernels.rows_pass(dim, n)
        args = kernel_args(prep.spec["semimetric"], prep.spec)
        ws = cuda.to_device(w[order])
        kern[grid, threads, 0, shared](
            ZTs, ws, ZTs, ws, cuda.to_device(labs), Ms, tile, *args)
        starts = np.searchsorted(labs, np.arange(prep.k))
        P = -2.0 * np.add.reduceat(Ms.copy_to_host(), starts, axis=1).T
        P = 0.5 * (P + P.T)  # the sums of i-rows over j and of j-rows over i, averaged
        if which == "within":
            return np.diag(np.diag(P))
        if which == "between":
            return P - np.diag(np.diag(P))
        return P

    def pooled(self, prep):
        cuda = numba_cuda()
        from .._kernels import cuda as kernels
        from .._kernels.semimetric import kernel_args

        n = prep.n
        need, free = 8.0 * n * n, device_free_memory()
        if need > 0.9 * free:
            raise InvalidParameterError(
                f"{prep.owner}: the pooled {n} x {n} semimetric matrix of a permutation test "
                f"needs {need / 2**30:.2f} GiB of device memory but {free / 2**30:.2f} GiB are "
                "free; pass n_permutations=0 for the statistic, or test a subsample")
        ZT = prep.payload[0]
        D = cuda.device_array((n, n))
        grid = (kernels.blocks(n, 32), kernels.blocks(n, 8))
        kernels.pooled_matrix[grid, (32, 8)](ZT, D, *kernel_args(prep.spec["semimetric"],
                                                                 prep.spec))
        return D

    def relabelled_sums(self, pooled, codes, k, skip):
        cuda = numba_cuda()
        from .._kernels import cuda as kernels

        B, n, k, skip = int(codes.shape[0]), int(codes.shape[1]), int(k), int(skip)
        if k == 1:
            return np.zeros((B, 1, 1))
        most = MAX_GRID_Y * kernels.PERM_TILE // (k - 1)  # relabellings of one grid
        if B > most:
            return np.concatenate([self.relabelled_sums(pooled, codes[b:b + most], k, skip)
                                   for b in range(0, B, most)])
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        cols = B * (k - 1)
        need, free = 8.0 * cols * n + 8.0 * B * n, device_free_memory()
        if need > 0.9 * free:
            raise InvalidParameterError(
                f"permutations: the sums of a batch of {B} relabellings of {n} points need "
                f"{need / 2**30:.2f} GiB of device memory but {free / 2**30:.2f} GiB are free "
                "beside the pooled matrix; pass fewer n_permutations, or test a subsample")
        ET = cuda.device_array((cols, n))
        grid = (kernels.blocks(n, kernels.PERM_TILE), kernels.blocks(cols, kernels.PERM_TILE))
        kernels.relabelled_columns[grid, (kernels.PERM_THREADS, kernels.PERM_THREADS)](
            pooled, cuda.to_device(np.ascontiguousarray(codes.T)), k, skip, ET)
        out = cuda.to_device(np.zeros((B, k, k)))
        kernels.relabelled_reduce[cols, kernels.THREADS, 0, 8 * k](
            ET, cuda.to_device(codes), k, skip, out)
        return out.copy_to_host()

    def row_sums(self, pooled):
        from .._kernels import cuda as kernels

        n = int(pooled.shape[0])
        out = numba_cuda().device_array(n)
        kernels.row_sums[kernels.blocks(n), kernels.THREADS](pooled, out)
        return out.copy_to_host()


def _device_rows(X, name, owner):
    """A part as a 2-D float64 device array (1-D: one feature), used in place when it
    is float64 already."""
    cuda = numba_cuda()
    if not is_device_array(X):
        from .._validation import check_data

        return cuda.to_device(check_data(X, name, owner, allow_1d=True))
    d = as_device(X)
    if d.ndim == 1:
        d = d.reshape(d.shape[0], 1)
    if d.ndim != 2 or d.shape[0] < 1 or d.shape[1] < 1:
        raise InvalidParameterError(
            f"{owner}: {name} should be a 1-D or 2-D (n_samples, n_features) array with at "
            f"least one row and one column, got shape {d.shape}")
    if d.dtype.kind not in "biuf":
        raise InvalidParameterError(f"{owner}: {name} has dtype {d.dtype}; expected numbers")
    if d.dtype != np.float64:  # converted on the device; float64 arrays stay in place
        from .._kernels import cuda as kernels

        out = cuda.device_array(d.shape)
        kernels.rows_as_float64[kernels.blocks(d.shape[0]), kernels.THREADS](d, out)
        d = out
    return d


def _pooled_transposed(datas, scale, kernels):
    """The parts stacked and transposed on the device (D, n), times ``scale``."""
    cuda = numba_cuda()
    n = sum(X.shape[0] for X in datas)
    ZT = cuda.device_array((datas[0].shape[1], n))
    at = 0
    for X in datas:
        rows = cuda.to_device(np.arange(X.shape[0]))
        kernels.take_rows_transposed[kernels.blocks(X.shape[0]), kernels.THREADS](
            X, rows, scale, ZT, at)
        at += X.shape[0]
    return ZT


def _transposed_view(ZT):
    """``ZT`` (D, n) read as rows (n, D) by :func:`take_rows_transposed`."""
    return ZT.T
