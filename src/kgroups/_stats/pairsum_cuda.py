"""Pair sums of device arrays: the energy statistics on a CUDA device.

Input with ``__cuda_array_interface__`` (CuPy, PyTorch or numba device arrays) stays
on the device: the parts are checked there (:func:`kgroups._kernels.cuda.scan_rows`:
finite, the largest ``|x|`` for the power-of-two rescaling), pooled and transposed
once, and the k x k group sums

    ``P[i, j] = sum_{x in C_i} sum_{y in C_j} w_x w_y rho(x, y)``

come from the GPU engine's pass (:func:`kgroups._kernels.cuda.build_sorted`: rows
sorted by group, each row's sums per group, float64, never an n x n matrix),
``P[c, l] = -2 sum_{i in C_c} Ms[l, i]``. Labels and weights (n numbers) are read on
the host. Named semimetrics only.

A permutation test never forms the pooled n x n matrix either: :meth:`CudaPairSums.pooled`
returns the pooled points (:class:`PooledPoints`), and each batch of relabellings
(drawn on the host from the caller's random state, as for in-memory data, so both
see the same permutations) is summed from the pairs' ``rho``, computed tile by tile
on the device, each unordered pair once
(:func:`kgroups._kernels.cuda_permute.relabelled_pairs`). The host sends each
relabelling's indicators of the groups but the largest, ``L``, as bits (``k - 1``
columns of ``n / 8`` bytes), and gets back ``S_b[g, j]``, the sums over the pairs
``i <= y`` (``i = y`` halved) of ``rho`` with ``i`` in group ``g`` and ``y`` in group
``j``, both other than ``L``: ``P_b[g, j] = S_b[g, j] + S_b[j, g]``, and ``L``'s row
from the row sums ``r = rho 1`` (the GPU engine's pass, one group),
``P_b[L, j] = sum_{y in C_j} r_y - sum_{g != L} P_b[g, j]``;
:func:`kgroups._stats.dispatch.relabelled` completes ``L``'s column and ``P_b[L, L]``
as for the pooled matrix. Every sum is float64, and the same on every run (no
atomics: each block's partial sums are added in order).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from .._validation import InvalidParameterError, is_device_array
from .._kernels.device import (as_device, check_device_fits, host_values, numba_cuda,
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
# Bytes of the blocks' partial sums of a batch of relabellings at most (blocks x
# (k - 1)^2 x relabellings float64): past it, fewer blocks, each taking more strips.
PART_BYTES = 1 << 28


class CudaPairSums(PairSums):
    """Pair sums of device arrays, computed on the device (see the module docstring)."""

    kind = "cuda"
    has_pooled = True
    # a batch of B relabellings of n points in k groups: B x n keys and codes on the
    # host, B (k - 1) n / 8 bytes of indicators on the device; each batch goes once
    # through the pairs, computing their rho again
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
        """The pooled points on the device (:class:`PooledPoints`): no n x n matrix."""
        from .._kernels.semimetric import kernel_args

        return PooledPoints(prep.payload[0], kernel_args(prep.spec["semimetric"], prep.spec))

    def relabelled_sums(self, pooled, codes, k, skip):
        """``P`` of each relabelling but its column ``skip`` (see the module docstring):
        one launch over the pairs of ``pooled``'s points for the batch (a grid's tiles
        of columns at most: more relabellings, more launches)."""
        from .._kernels import cuda as kernels
        from .._kernels import cuda_permute as kp

        cuda = numba_cuda()
        B, n, k, skip = int(codes.shape[0]), int(codes.shape[1]), int(k), int(skip)
        if k == 1:
            return np.zeros((B, 1, 1))
        groups = k - 1
        most = MAX_GRID_Y * kp.BLOCK_COLUMNS // groups  # relabellings of one grid
        if B > most:
            return np.concatenate([self.relabelled_sums(pooled, codes[b:b + most], k, skip)
                                   for b in range(0, B, most)])
        cols, words = B * groups, -(-n // kp.WORD)
        blocks = int(min(kp.strip_pairs(n), max(1, PART_BYTES // (8 * groups * cols))))
        check_device_fits(4.0 * words * cols + 8.0 * (blocks + 1) * groups * cols,
                          f"permutations: a batch of {B} relabellings of {n} points",
                          advice="pass fewer n_permutations, or test a subsample")
        others = np.delete(np.arange(k), skip)
        onehot = codes[:, None, :] == others[None, :, None]  # (B, k - 1, n)
        bits = cuda.to_device(_indicator_words(onehot, words))
        part = cuda.device_array((blocks, groups, cols))
        warps, tiles = kp.launch_shape(cols)
        kp.relabelled_pairs[(blocks, tiles), warps * kp.LANES](
            pooled.ZT, bits, groups, part, *pooled.args)
        out = cuda.device_array((groups, cols))
        kp.sum_parts[kernels.blocks(groups * cols), kernels.THREADS](part, out)
        S = out.copy_to_host().reshape(groups, B, groups).transpose(1, 0, 2)  # S[b, g, j]
        S = S + S.transpose(0, 2, 1)  # each unordered pair was summed once
        P = np.zeros((B, k, k))
        P[:, others[:, None], others[None, :]] = S
        # the largest group's row: each column's sum of row sums, less the other rows
        P[:, skip, others] = (np.einsum("bgn,n->bg", onehot, self.row_sums(pooled))
                              - S.sum(axis=1))
        return P

    def row_sums(self, pooled):
        """``r[i] = sum_y rho(x_i, x_y)`` (host, n), by the GPU engine's pass with one
        group, computed once for ``pooled``."""
        if pooled.rows is None:
            from .._kernels import cuda as kernels

            cuda = numba_cuda()
            dim, n = pooled.ZT.shape
            check_device_fits(24.0 * n, f"permutations: the table of row sums of {n} points",
                              advice="pass n_permutations=0 for the statistic, or test a "
                              "subsample")
            ones = cuda.to_device(np.ones(n))
            Ms = cuda.to_device(np.zeros((1, n)))
            kern, grid, threads, tile, shared = kernels.rows_pass(dim, n)
            kern[grid, threads, 0, shared](pooled.ZT, ones, pooled.ZT, ones,
                                           cuda.to_device(np.zeros(n, dtype=np.int64)), Ms,
                                           tile, *pooled.args)
            pooled.rows = -2.0 * Ms.copy_to_host()[0]
        return pooled.rows


class PooledPoints:
    """What a permutation test on device arrays holds in place of the pooled n x n
    matrix: the pooled points (``ZT`` (D, n) on the device, rescaled), the
    semimetric's kernel arguments and, once computed, the row sums
    ``rows[i] = sum_y rho(x_i, x_y)`` (host, n). ``shape`` is the matrix's; the
    permutation machinery (:func:`kgroups._stats.dispatch.permutation_statistics`)
    is given :class:`CudaPairSums`, which computes every sum from the points."""

    def __init__(self, ZT, args):
        self.ZT, self.args, self.rows = ZT, tuple(args), None
        self.shape = (int(ZT.shape[1]), int(ZT.shape[1]))


def _indicator_words(onehot, words):
    """The indicators ``onehot`` (B, g, n) as the kernel's words (``words``, B g)
    uint32: word ``w`` of column ``c = b g + j`` holds points ``32 w ... 32 w + 31`` of
    ``onehot[b, j]``, least significant bit first, zeros past ``n``."""
    B, g, n = onehot.shape
    packed = np.zeros((B, g, 4 * words), dtype=np.uint8)
    packed[:, :, :-(-n // 8)] = np.packbits(onehot, axis=2, bitorder="little")
    return np.ascontiguousarray(
        packed.view(np.dtype("<u4")).reshape(B * g, words).T.astype(np.uint32))


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
