"""Exact energy statistics of dask arrays: the all-pairs sums as a blocked reduction.

For row blocks ``Z_a`` of the data (with label codes and weights), one task per
pair of blocks ``a <= b`` returns the k x k matrix

    ``P_ab[i, j] = sum_{x in Z_a, code i} sum_{y in Z_b, code j} w_x w_y rho(x, y)``,

computed by sub-blocks of rows (memory O(sub-block x block), never n^2); the
driver adds ``P_aa`` and ``P_ab + P_ab^T``. That is O(n^2 D) work spread over
the workers and O(n / blocks) data per task, and it gives the same sums as the
in-memory functions of :mod:`kgroups._energy` up to the order of floating-point
additions (relative differences near 1e-15).
"""

from __future__ import annotations

import numpy as np

from ._backends._dask_io import as_dask_rows, dask_weights, stream, summaries, summary_block
from ._validation import is_dask_collection
from ._energy import _finite
from ._semimetrics import pairwise_unchecked
from ._validation import InvalidParameterError, encode_labels, pow2_scale

__all__ = ["energy_distance_dask", "energy_test_dask", "within_energy_dask"]

# semimetric values computed at once inside a task (32 MiB of float64)
_SUB_ELEMENTS = 1 << 22


def _onehot(codes, w, k):
    H = np.zeros((codes.shape[0], k))
    H[np.arange(codes.shape[0]), codes] = w
    return H


def pair_sums(Za, Zb, ca, cb, wa, wb, k, spec, center, scale):
    """``P_ab`` (k x k) for two blocks (see the module docstring)."""
    params = {p: spec[p] for p in ("alpha", "sigma", "theta")}
    Za = np.asarray(Za, dtype=np.float64) * scale
    Zb = np.asarray(Zb, dtype=np.float64) * scale
    Hb = _onehot(cb, wb, k)
    out = np.zeros((k, k))
    step = max(1, _SUB_ELEMENTS // max(Zb.shape[0], 1))
    for a in range(0, Za.shape[0], step):
        R = pairwise_unchecked(Za[a:a + step], Zb, spec["semimetric"], center=center, **params)
        out += _onehot(ca[a:a + step], wa[a:a + step], k).T @ (R @ Hb)
    return out


def _rows(X, name, owner):
    import dask.array as da

    if is_dask_collection(X) and getattr(X, "ndim", 2) == 1:
        X = X[:, None]
    elif not is_dask_collection(X):
        X = np.asarray(X)
        X = X[:, None] if X.ndim == 1 else X
        if X.ndim == 2 and X.dtype.kind in "biuf":
            X = da.from_array(X, chunks=(max(1, X.shape[0]), -1))
    return as_dask_rows(X, owner, name)[0]


def _blocks(parts, spec, owner):
    """Checked blocks ``(Z, codes, w)`` of every part (one pass, :func:`summary_block`),
    the factor by which the data are multiplied and the statistics' unit factor (the
    power-of-two rule of :func:`kgroups._energy._data_scale`), the centre of the scaled
    data, and each part's largest weight and weight sum.

    ``parts``: ``(name, X, codes or None, w, wname)`` with X a dask array.
    """
    import dask

    from ._energy import _magnitude_scale

    checks, blocks, part_of = [], [], []
    for p, (name, X, codes, w, wname) in enumerate(parts):
        start = 0
        cchunks = codes.rechunk((X.chunks[0],)).to_delayed().ravel() if codes is not None \
            else [None] * len(X.chunks[0])
        for xb, wb, cb, nb in zip(X.to_delayed().ravel(), w.to_delayed().ravel(), cchunks,
                                  X.chunks[0]):
            checks.append(dask.delayed(summary_block, pure=True)(xb, wb, start, owner, name,
                                                                 wname))
            blocks.append((xb, wb, cb))
            part_of.append(p)
            start += nb
    big, colsum = 0.0, 0.0
    wmax, wsum = np.zeros(len(parts)), np.zeros(len(parts))
    for p, (b, cs, wm, ws) in zip(part_of, summaries(checks)):
        big, colsum = max(big, b), colsum + cs
        wmax[p], wsum[p] = max(wmax[p], wm), wsum[p] + ws
    c, factor = _magnitude_scale(big, spec)
    n = sum(X.shape[0] for _, X, _, _, _ in parts)
    center = np.asarray(colsum, dtype=np.float64) / n / c
    return blocks, 1.0 / c, factor, center, wmax, wsum


def _sum_pairs(blocks, codes_const, k, spec, center, scale, wscale):
    """``sum_{a <= b}`` of :func:`pair_sums` over all pairs, symmetrised (k x k)."""
    import dask

    def wts(i):
        return dask.delayed(np.multiply)(blocks[i][1], wscale)

    tasks, diag = [], []
    for a in range(len(blocks)):
        for b in range(a, len(blocks)):
            tasks.append(dask.delayed(_pair_task, pure=True)(
                blocks[a][0], blocks[b][0], blocks[a][2], blocks[b][2], codes_const[a],
                codes_const[b], wts(a), wts(b), k, spec, center, scale))
            diag.append(a == b)
    total = np.zeros((k, k))
    for P, same in zip(stream(tasks), diag):
        total += P if same else P + P.T
    return total


def _pair_task(Za, Zb, ca, cb, ka, kb, wa, wb, k, spec, center, scale):
    ca = np.full(len(Za), ka, dtype=np.int64) if ca is None else np.asarray(ca)
    cb = np.full(len(Zb), kb, dtype=np.int64) if cb is None else np.asarray(cb)
    return pair_sums(Za, Zb, ca, cb, np.asarray(wa), np.asarray(wb), k, spec, center, scale)


def energy_distance_dask(X, Y, spec, sample_weight_x, sample_weight_y, owner):
    """:func:`kgroups.energy_distance` of two samples, one or both dask arrays."""
    Xd, Yd = _rows(X, "X", owner), _rows(Y, "Y", owner)
    if Xd.shape[1] != Yd.shape[1]:
        raise InvalidParameterError(
            f"{owner}: X has {Xd.shape[1]} features but Y has {Yd.shape[1]}; samples must "
            "have the same number of features")
    wx = dask_weights(sample_weight_x, Xd, owner, "sample_weight_x")
    wy = dask_weights(sample_weight_y, Yd, owner, "sample_weight_y")
    blocks, scale, factor, center, wmax, wsum = _blocks(
        [("X", Xd, None, wx, "sample_weight_x"), ("Y", Yd, None, wy, "sample_weight_y")],
        spec, owner)
    codes = [0] * len(Xd.chunks[0]) + [1] * len(Yd.chunks[0])
    # weights are rescaled per sample in the in-memory function: E does not depend on them
    bw = [pow2_scale(wm) for wm in wmax]
    blocks = [(z, _scaled(w, bw[c]), cb) for (z, w, cb), c in zip(blocks, codes)]
    sums = _sum_pairs(blocks, codes, 2, spec, center, scale, 1.0)
    s = wsum / np.array(bw)
    gm = sums / np.outer(s, s)
    return _finite(2.0 * gm[0, 1] - gm[0, 0] - gm[1, 1], owner, factor)


def _scaled(w, c):
    import dask

    return w if c == 1.0 else dask.delayed(np.divide)(w, c)


def _codes(block, values):
    return np.searchsorted(values, block).astype(np.int64)


def within_energy_dask(X, labels, spec, sample_weight, owner):
    """:func:`kgroups.within_energy` of a dask array (labels numpy or dask)."""
    import dask.array as da

    Xd = _rows(X, "X", owner)
    n = Xd.shape[0]
    if is_dask_collection(labels):
        values = np.unique(np.asarray(da.unique(labels).compute()))
        if labels.ndim != 1 or labels.shape[0] != n:
            raise InvalidParameterError(
                f"{owner}: labels has shape {labels.shape}, expected ({n},)")
        codes = labels.map_blocks(_codes, values, dtype=np.int64)
    else:
        c, values = encode_labels(labels, n, owner, "labels")
        codes = da.from_array(c, chunks=(Xd.chunks[0],))
    k = len(values)
    codes = codes.rechunk((Xd.chunks[0],))
    w = dask_weights(sample_weight, Xd, owner, "sample_weight")
    blocks, scale, factor, center, wmax, _ = _blocks(
        [("X", Xd, codes, w, "sample_weight")], spec, owner)
    wscale = 1.0 / pow2_scale(wmax[0])  # W is linear in the weights (as in memory)
    sums = _sum_pairs(blocks, [0] * len(blocks), k, spec, center, scale, wscale)
    s = np.asarray(da.bincount(codes, weights=w, minlength=k).compute()) * wscale
    return _finite(np.sum(np.diag(sums) / (2.0 * s)), owner, factor / wscale)


def energy_test_dask(samples, spec, owner):
    """The k-sample statistic of :func:`kgroups.energy_test` (one or more dask samples)."""
    from ._energy import _ksample_statistic

    if len(samples) < 2:
        raise InvalidParameterError(f"{owner}: needs at least 2 samples, got {len(samples)}")
    arrs = [_rows(x, f"samples[{i}]", owner) for i, x in enumerate(samples)]
    for i, a in enumerate(arrs[1:], start=1):
        if a.shape[1] != arrs[0].shape[1]:
            raise InvalidParameterError(
                f"{owner}: samples[0] has {arrs[0].shape[1]} features but samples[{i}] has "
                f"{a.shape[1]}; samples must have the same number of features")
    parts = [(f"samples[{i}]", a, None, dask_weights(None, a, owner), "weights")
             for i, a in enumerate(arrs)]
    blocks, scale, factor, center, _, _ = _blocks(parts, spec, owner)
    codes = [i for i, a in enumerate(arrs) for _ in a.chunks[0]]
    sums = _sum_pairs(blocks, codes, len(arrs), spec, center, scale, 1.0)
    sizes = np.array([a.shape[0] for a in arrs], dtype=np.float64)
    return _finite(_ksample_statistic(sums, sizes), owner, factor)
