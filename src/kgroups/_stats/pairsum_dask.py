"""Pair sums of dask arrays: the k x k group sums as a blocked reduction over all pairs.

For row blocks ``Z_a`` of the data (with label codes and weights), one task per
pair of blocks ``a <= b`` returns the k x k matrix

    ``P_ab[i, j] = sum_{x in Z_a, code i} sum_{y in Z_b, code j} w_x w_y rho(x, y)``,

computed by sub-blocks of rows (memory O(sub-block x block), never n^2); the
calling process adds ``P_aa`` and ``P_ab + P_ab^T``. That is O(n^2 D) work spread over the
workers and O(n / blocks) data per task, and it gives the sums of
:class:`kgroups._stats.pairsum.NumpyPairSums` up to the order of floating-point
additions (relative differences near 1e-15).

Before the pairs, one pass over the blocks (:func:`summary_block`) checks the data
and the weights and gathers what the rescaling needs (largest ``|x|`` and largest
weight), the centre of the data and the group weights. Labels may be a NumPy or a
dask array (or a dask Series), weights too; data a dask array or a dask DataFrame
of numeric columns, mixed with in-memory samples. There is no pooled n x n matrix:
permutation tests are refused by :func:`kgroups._stats.pairsum.prepare`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._config import carried
from .._semimetrics import pairwise_unchecked
from .._validation import (
    InvalidParameterError,
    check_data,
    is_dask_collection,
    pow2_scale,
)
from .._dask_io import (as_dask_rows, dask_weights, median_of_medians, stream, summaries,
                       summary_block)
from .pairsum import (
    PairSums,
    Prepared,
    check_which,
    checked_label_values,
    label_codes,
    magnitude_scale,
    same_features,
)

# semimetric values computed at once inside a task (32 MiB of float64)
_SUB_ELEMENTS = 1 << 22


class DaskPairSums(PairSums):
    """Pair sums of dask collections, computed on the Dask workers (or Dask's local
    scheduler without a ``dask.distributed`` client)."""

    kind = "dask"
    has_pooled = False

    def prepare(self, parts, spec, owner):
        if spec["semimetric"] == "precomputed":
            raise InvalidParameterError(
                f"{owner}: a precomputed semimetric matrix is not supported with dask input; "
                "pass the samples (rows) as a dask array, or the matrix in memory")
        arrays = _row_arrays(parts, owner)
        same_features([p.name for p in parts], [X.shape[1] for X in arrays], owner)
        codes, consts, values, k = _codes(parts, arrays, owner)
        weights = [dask_weights(p.weights, X, owner, p.weight_name)
                   for p, X in zip(parts, arrays)]
        blocks = _blocks(arrays, codes, consts, weights)
        big, med, wscale, s, sizes = _summaries(parts, blocks, k, owner)
        c, factor = magnitude_scale(big, spec)
        n = sum(X.shape[0] for X in arrays)
        with np.errstate(over="ignore"):  # the centre only limits cancellation
            center = med / c
        tasks = [(b.x, b.w, b.codes, b.const, wscale[b.part]) for b in blocks]
        return Prepared(self, owner, spec, n, k, s, sizes, wscale, factor, values, None,
                        (tasks, center, 1.0 / c))

    def group_sums(self, prep, which="all"):
        import dask

        check_which(which)
        blocks, center, scale = prep.payload
        tasks, same = [], []
        for a in range(len(blocks)):
            for b in range(a, len(blocks)):
                ka, kb = blocks[a][3], blocks[b][3]
                if which != "all" and ka is not None and kb is not None \
                        and (ka == kb) != (which == "within"):
                    continue  # two one-group blocks whose pair falls outside ``which``
                tasks.append(dask.delayed(carried(_pair_task), pure=True)(
                    *blocks[a], *blocks[b], prep.k, prep.spec, center, scale, prep.owner))
                same.append(a == b)
        total = np.zeros((prep.k, prep.k))
        for P, diag in zip(stream(tasks), same):
            total += P if diag else P + P.T
        if which == "within":
            return np.diag(np.diag(total))
        if which == "between":
            return total - np.diag(np.diag(total))
        return total


def pair_sums(Za, Zb, ca, cb, wa, wb, k, spec, center, owner):
    """``P_ab`` (k x k) for two blocks of (rescaled) rows, codes and weights."""
    params = {p: spec[p] for p in ("alpha", "sigma", "theta")}
    Hb = _onehot(cb, wb, k)
    out = np.zeros((k, k))
    step = max(1, _SUB_ELEMENTS // max(Zb.shape[0], 1))
    for a in range(0, Za.shape[0], step):
        R = pairwise_unchecked(Za[a:a + step], Zb, spec["semimetric"], center=center,
                               owner=owner, **params)
        out += _onehot(ca[a:a + step], wa[a:a + step], k).T @ (R @ Hb)
    return out


def _onehot(codes, w, k):
    H = np.zeros((codes.shape[0], k))
    H[np.arange(codes.shape[0]), codes] = w
    return H


def _pair_task(Za, wa, ca, ka, sa, Zb, wb, cb, kb, sb, k, spec, center, scale, owner):
    """One pair of blocks: data times ``scale``, weights divided by their part's scale
    (both powers of two: exact), codes from the block or the part's one group."""
    Za = np.asarray(Za, dtype=np.float64) * scale
    Zb = np.asarray(Zb, dtype=np.float64) * scale
    ca = np.full(len(Za), ka, dtype=np.int64) if ca is None else np.asarray(ca)
    cb = np.full(len(Zb), kb, dtype=np.int64) if cb is None else np.asarray(cb)
    wa = np.asarray(wa, dtype=np.float64) / sa
    wb = np.asarray(wb, dtype=np.float64) / sb
    return pair_sums(Za, Zb, ca, cb, wa, wb, k, spec, center, owner)


# --------------------------------------------------------------------------- inputs
def _row_arrays(parts, owner):
    """Each part's rows as a float64 dask array with one column chunk; in-memory parts
    are checked as in memory and cut in row blocks as large as the largest block of
    the dask parts."""
    import dask.array as da

    arrays = [None] * len(parts)
    for i, p in enumerate(parts):
        if is_dask_collection(p.data):
            X = p.data
            if getattr(X, "ndim", 2) == 1:  # a dask array or Series: one feature
                X = X.to_dask_array(lengths=True) if hasattr(X, "to_dask_array") else X
                X = X[:, None]
            arrays[i] = as_dask_rows(X, owner, p.name)[0]
    # row blocks of in-memory data: those of the dask data, else of dask labels or weights
    chunked = [X for X in arrays if X is not None] or [
        v for p in parts for v in (p.labels, p.weights) if hasattr(v, "chunks")]
    rows = max((max(v.chunks[0]) for v in chunked if v.chunks and not np.isnan(
        max(v.chunks[0]))), default=None)
    for i, p in enumerate(parts):
        if arrays[i] is None:
            X = check_data(p.data, p.name, owner, allow_1d=True)
            arrays[i] = da.from_array(X, chunks=(max(1, rows or X.shape[0]), -1))
    return arrays


def _codes(parts, arrays, owner):
    """Per part: dask array of codes chunked like its rows (None: one group), that
    group's code (None when labelled), the labelled part's distinct values and k."""
    import dask.array as da

    codes, consts, values, k = [], [], None, 0
    for p, X in zip(parts, arrays):
        if p.labels is None:
            codes.append(None)
            consts.append(k)
            k += 1
            continue
        n = X.shape[0]
        if is_dask_collection(p.labels):
            lab = p.labels.to_dask_array(lengths=True) if hasattr(p.labels, "to_dask_array") \
                else p.labels
            if any(np.isnan(c) for c in lab.chunks[0]):
                lab = lab.compute_chunk_sizes()
            if lab.ndim != 1 or lab.shape[0] != n:
                raise InvalidParameterError(
                    f"{owner}: labels has shape {lab.shape}, expected ({n},) (one label per "
                    "sample)")
            values = checked_label_values(np.unique(np.asarray(da.unique(lab).compute())),
                                          owner)
            c = lab.map_blocks(_searchsorted, values, dtype=np.int64)
        else:
            c, values = label_codes(p.labels, n, owner)
            c = da.from_array(c, chunks=(X.chunks[0],))
        codes.append(c.rechunk((X.chunks[0],)) + k)
        consts.append(None)
        k += len(values)
    return codes, consts, values, k


def _searchsorted(block, values):
    return np.searchsorted(values, block).astype(np.int64)


@dataclass(frozen=True)
class _Block:
    part: int  # index of its part
    start: int  # first row within the part
    x: Any  # delayed data, weights and codes (None: the part's one group ``const``)
    w: Any
    codes: Any
    const: int | None


def _blocks(arrays, codes, consts, weights):
    out = []
    for i, (X, c, w, const) in enumerate(zip(arrays, codes, weights, consts)):
        cblocks = c.to_delayed().ravel() if c is not None else [None] * len(X.chunks[0])
        starts = np.concatenate([[0], np.cumsum(X.chunks[0])[:-1]]).astype(int)
        for xb, wb, cb, a in zip(X.to_delayed().ravel(), w.to_delayed().ravel(), cblocks,
                                 starts):
            out.append(_Block(i, int(a), xb, wb, cb, const))
    return out


def _summaries(parts, blocks, k, owner):
    """One pass over all blocks (:func:`_block_summary`): the largest ``|x|``, the
    centre of the data (:func:`~kgroups._dask_io.median_of_medians`), each
    part's weight scale (:func:`kgroups._validation.pow2_scale`), the group weights
    divided by it, and the group sizes.

    Sums are taken block by block on rows and weights divided by a power of two
    of the block's own magnitude, then brought to the common scale (exactly):
    nothing overflows where the in-memory implementation does not.
    """
    import dask

    checks = [dask.delayed(_block_summary, pure=True)(
        b.x, b.w, b.codes, b.const, k, b.start, owner, parts[b.part].name,
        parts[b.part].weight_name) for b in blocks]
    results = summaries(checks)
    big = max(r[0] for r in results)
    med = median_of_medians([r[1] for r in results])
    wmax = np.zeros(len(parts))
    for r, b in zip(results, blocks):
        wmax[b.part] = max(wmax[b.part], r[2])
    wscale = np.array([pow2_scale(m) for m in wmax])
    s = sum(r[3] * (r[4] / wscale[b.part]) for r, b in zip(results, blocks))
    sizes = sum(r[5] for r in results)
    return big, med, wscale, s, sizes


def _block_summary(xb, wb, cb, const, k, start, owner, name, wname):
    """:func:`summary_block` of one block (its checks), then the group weights divided
    by a power of two of the block's largest weight: ``(max |x|, column medians, max
    weight, group weights, weight scale, group sizes)``."""
    with np.errstate(over="ignore"):  # the raw weight sum of huge weights: not used
        res = summary_block(xb, wb, start, owner, name, wname)
    if isinstance(res, InvalidParameterError):
        return res
    xb = np.asarray(xb, dtype=np.float64)
    wb = np.asarray(wb, dtype=np.float64)
    cb = np.full(wb.shape[0], const, dtype=np.int64) if cb is None else np.asarray(cb)
    cw = pow2_scale(res[2])
    return (res[0], res[1], res[2],
            np.bincount(cb, weights=wb / cw, minlength=k), cw,
            np.bincount(cb, minlength=k).astype(np.float64))
