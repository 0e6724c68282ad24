r"""The pair-sum layer under the energy statistics: weighted pair sums per pair of groups.

Every energy statistic of :mod:`kgroups._stats.energy` and :mod:`kgroups._stats.disco` is a
function of one k x k matrix. For rows :math:`x_1, \dots, x_n` in groups
:math:`C_1, \dots, C_k` with weights :math:`w_x > 0` and a semimetric
:math:`\rho`,

.. math:: P_{ij} = \sum_{x \in C_i} \sum_{y \in C_j} w_x w_y \rho(x, y),
          \qquad s_j = \sum_{x \in C_j} w_x,

so that :math:`g(C_i, C_j) = P_{ij} / (s_i s_j)` (França, Rizzo & Vogelstein,
TPAMI 43(12), 2021, eq. 13) and W, S, T (eqs. 15, 16, 18), the energy distance and the
k-sample statistics follow from :math:`P` and :math:`s` alone.

One implementation per array kind computes them behind one interface
(:class:`PairSums`):

* ``prepare(parts, spec, owner)`` checks the inputs (data, labels, weights) and
  returns a :class:`Prepared`: label codes, group weights :math:`s_j`, group sizes,
  and the rescaling of data and weights by powers of two (exact) that keeps
  extreme magnitudes from overflowing;
* ``group_sums(prep, which)``: :math:`P` by blocks (``"all"``), or only its
  diagonal (``"within"``: within-group blocks) or only its off-diagonal part
  (``"between"``);
* ``pooled(prep)``: the n x n matrix of :math:`\rho` for permutation tests, and
  ``relabelled_sums(pooled, codes, k, skip)``: :math:`P` (unit weights) of a batch
  of relabellings but one group's column, and ``row_sums(pooled)``, from which
  :func:`kgroups._stats.dispatch.relabelled` completes it. Only in-memory
  implementations have them.

Built on the interface, for every kind, :mod:`kgroups._stats.dispatch` holds the
permutation machinery of :func:`kgroups.energy_test` and :func:`kgroups.disco` (unit
weights; the random relabellings are drawn there, from the caller's random state, and
only their sums are left to the implementation).

This module holds the interface and the in-memory implementation
(:class:`NumpyPairSums`); :mod:`kgroups._stats.dispatch` chooses the implementation
from the inputs' array kind (Dask: :mod:`kgroups._stats.pairsum_dask`, CUDA device
arrays: :mod:`kgroups._stats.pairsum_cuda`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._kernels.pairs_on_the_fly import sorted_class_sums, sorted_sums_bytes
from .._kernels.parallel import PARALLEL_MIN_WORK
from .._kernels.semimetric import NAMES, kernel_args
from .._semimetrics import (centred_sq_norm_max, check_semimetric_range, pairwise_unchecked,
                             robust_center)
from .._validation import (
    InvalidParameterError,
    check_data,
    check_in_memory,
    check_precomputed,
    check_sample_weight,
    describe,
    encode_labels,
    pow2_scale,
    pow2_weight_scale,
    uniform_sample,
)
from .._memory import check_fits
from .._progress import running

BLOCK_ELEMENTS = 1 << 22  # semimetric values per block (32 MiB of float64)
_MAX_POOLED_BYTES = 1 << 32  # the pooled n x n matrix of a permutation test: 4 GiB at most

# --------------------------------------------------------------------------- spec, scale
def semimetric_spec(owner, semimetric, alpha, sigma, theta, precomputed=False):
    """The semimetric as a dict of plain values (parameters already checked).

    ``{"semimetric": "precomputed"}`` when the input holds semimetric values,
    else ``{"semimetric", "alpha", "sigma", "theta"}``. ``precomputed=True``
    together with a semimetric other than the default ``"energy"`` (or
    ``"precomputed"``) is contradictory and an error.

    Examples
    --------
    >>> semimetric_spec("total_energy", "energy", 1.0, 1.0, 1.0, precomputed=True)
    {'semimetric': 'precomputed'}
    """
    named = isinstance(semimetric, str)
    if precomputed and not (named and semimetric in ("energy", "precomputed")):
        raise InvalidParameterError(
            f"{owner}: precomputed=True contradicts semimetric={describe(semimetric)}: a "
            "precomputed X already holds the semimetric values; drop semimetric")
    if precomputed or (named and semimetric == "precomputed"):
        return {"semimetric": "precomputed"}
    return {"semimetric": semimetric, "alpha": alpha, "sigma": sigma, "theta": theta}


def data_scale(Z, spec):
    """``(c, factor, Z')``: the scale ``c`` of the data ``Z`` (all rows), the factor
    ``c**alpha`` of the statistics, and the data to compute with.

    Only the ``"energy"`` semimetric is homogeneous, ``rho(c x, c y) = c**alpha
    rho(x, y)``, so only it is rescaled; values of the others are left as they are
    (a non-finite result is then an error, see :func:`finite`). The magnitude judged
    is that of the data after their robust centring
    (:func:`~kgroups._semimetrics.robust_center` of all rows, exact, as the semimetric
    values are computed): a constant column at 1e300 changes no distance and no scale.
    Rescaled data are those centred data divided by ``c``, so that neither step
    overflows.
    """
    if spec["semimetric"] != "energy":
        return 1.0, 1.0, Z
    Zc = Z - robust_center(Z)
    c, factor = magnitude_scale(float(np.max(np.abs(Zc), initial=0.0)), spec)
    return c, factor, (Zc / c if c != 1.0 else Z)


def magnitude_scale(big, spec):
    """:func:`data_scale` for data whose largest ``|entry|`` is ``big`` (known without
    the arrays, e.g. from the blocks of a dask array).

    Examples
    --------
    >>> magnitude_scale(3.0, {"semimetric": "energy", "alpha": 1.0})
    (1.0, 1.0)
    >>> c, factor = magnitude_scale(1e200, {"semimetric": "energy", "alpha": 0.5})
    >>> print(c == 2.0 ** 664, factor == 2.0 ** 332)
    True True
    """
    if spec["semimetric"] != "energy":
        return 1.0, 1.0
    c = pow2_scale(big)
    if c == 1.0:
        return 1.0, 1.0
    with np.errstate(over="ignore", under="ignore"):  # inf: the statistic overflows
        return c, float(np.float64(c) ** spec["alpha"])


def finite(value, owner, factor=1.0):
    """``value * factor`` as a float, or an error naming why it is not finite.

    Examples
    --------
    >>> finite(1.5, "total_energy", 4.0)
    6.0
    """
    if value == 0.0:  # also when factor overflowed: 0 * inf
        return 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        out = float(value * factor)
    if not np.isfinite(out):
        raise InvalidParameterError(
            f"{owner}: the statistic is not finite ({out!r}): the semimetric values "
            "overflow float64 or are not finite (a callable semimetric returning NaN or "
            "inf, or data too large for this semimetric); rescale the data")
    return out


# --------------------------------------------------------------------------- interface
@dataclass(frozen=True)
class Part:
    """Rows of one input of a statistic.

    Attributes
    ----------
    data : array-like of shape (n_rows, n_features) or (n_rows,)
        The rows (1-D: one feature), or an (n, n) semimetric matrix when the
        spec is ``"precomputed"`` (then the only part).
    name : str
        Its parameter name in error messages (``"X"``, ``"samples[1]"``).
    labels : array-like of shape (n_rows,) or None
        Group of each row (any sortable values); None: the part is one group.
    weights : array-like of shape (n_rows,), float or None
        Weights >= 0, some > 0 (None: 1).
    weight_name : str
        The weights' parameter name in error messages.
    """

    data: Any
    name: str = "X"
    labels: Any = None
    weights: Any = None
    weight_name: str = "sample_weight"


@dataclass(frozen=True)
class Prepared:
    """Checked inputs of a statistic, ready for :meth:`PairSums.group_sums`.

    Groups are numbered part by part: a part without labels is one group, a
    labelled part has one group per distinct label (in sorted order).

    Attributes
    ----------
    backend : PairSums
        The implementation that prepared it (and computes its sums).
    owner : str
        The public function, for error messages.
    spec : dict
        The semimetric (:func:`semimetric_spec`).
    n, k : int
        Rows of all parts; groups.
    group_weights : ndarray of shape (k,)
        :math:`s_j`, the sum of the (rescaled) weights of group j.
    group_sizes : ndarray of shape (k,)
        Rows of group j, as floats.
    weight_scales : ndarray of shape (n_parts,)
        The power of two each part's weights were divided by (1.0 mostly): a
        statistic linear in the weights is multiplied back by it.
    factor : float
        What a statistic computed on the rescaled data is multiplied by:
        ``c**alpha`` for data divided by ``c`` (``"energy"``), ``c`` for
        precomputed values divided by ``c``, else 1.
    label_values : ndarray or None
        The sorted distinct labels of the labelled part (None: no labels).
    codes : ndarray of shape (n,) or None
        Group of each row, in memory (None where the rows stay distributed).
    payload : object
        The implementation's own state (rescaled data and weights, blocks).
    """

    backend: Any
    owner: str
    spec: dict
    n: int
    k: int
    group_weights: np.ndarray
    group_sizes: np.ndarray
    weight_scales: np.ndarray
    factor: float
    label_values: np.ndarray | None = None
    codes: np.ndarray | None = None
    payload: Any = None


class PairSums:
    """The interface of a pair-sum implementation (one per array kind).

    ``has_pooled`` says whether the implementation builds the pooled n x n
    matrix of a permutation test (:meth:`pooled`, :meth:`relabelled_sums`), and
    ``relabel_elements`` how many codes (relabellings x n x k) a batch of
    :meth:`relabelled_sums` takes at most.
    """

    kind = "abstract"
    has_pooled = False
    relabel_elements = BLOCK_ELEMENTS

    def prepare(self, parts, spec, owner):
        """Check ``parts`` (a list of :class:`Part`) and return a :class:`Prepared`."""
        raise NotImplementedError

    def group_sums(self, prep, which="all"):
        """The k x k matrix ``P[i, j] = sum_{x in C_i, y in C_j} w_x w_y rho(x, y)``.

        ``which="within"`` computes only the diagonal (the rest is 0),
        ``"between"`` only the entries off the diagonal; ``"all"`` everything.
        Values are in the units of the rescaled data and weights (see
        :class:`Prepared`).
        """
        raise NotImplementedError

    def pooled(self, prep):
        """The n x n matrix of ``rho`` between all rows, in the order of ``prep.codes``."""
        raise InvalidParameterError(
            f"{prep.owner}: a permutation test needs the pooled n x n semimetric matrix, "
            f"which is not built for {self.kind} input; pass n_permutations=0 for the exact "
            "statistic, or test a subsample in memory")

    def relabelled_sums(self, pooled, codes, k, skip):
        """``P`` (unit weights) of each row of ``codes`` (shape (B, n)), shape (B, k, k),
        but its column ``skip`` (0 there): :func:`~kgroups._stats.dispatch.relabelled`
        completes it."""
        raise InvalidParameterError(
            f"relabelled sums need the pooled matrix, which is not built for {self.kind} input")

    def row_sums(self, pooled):
        """The row sums of the pooled matrix, on the host (n,)."""
        raise InvalidParameterError(
            f"row sums need the pooled matrix, which is not built for {self.kind} input")


WHICH = ("all", "within", "between")


def check_which(which):
    """Refuse a ``which`` of :meth:`PairSums.group_sums` outside :data:`WHICH`."""
    if which not in WHICH:
        raise ValueError(f"which={which!r} should be one of {WHICH}")


def same_features(names, widths, owner):
    """Refuse parts whose numbers of features differ, naming the first two."""
    for name, width in zip(names[1:], widths[1:]):
        if width != widths[0]:
            raise InvalidParameterError(
                f"{owner}: {names[0]} has {widths[0]} features but {name} has {width}; "
                "samples must have the same number of features")


def checked_label_values(values, owner):
    """Distinct label values checked like :func:`kgroups._validation.encode_labels`."""
    encode_labels(values, len(values), owner, "labels")
    return values


# --------------------------------------------------------------------------- permutations
class NumpyPairSums(PairSums):
    """In-memory pair sums: NumPy arrays, row blocks of at most ``BLOCK_ELEMENTS``
    semimetric values, each reduced by matrix products with one-hot labels."""

    kind = "numpy"
    has_pooled = True

    def prepare(self, parts, spec, owner):
        pre = spec["semimetric"] == "precomputed"
        datas = [check_precomputed(p.data, "semimetric", owner, p.name) if pre
                 else check_data(p.data, p.name, owner, allow_1d=True) for p in parts]
        if not pre:
            same_features([p.name for p in parts], [X.shape[1] for X in datas], owner)
        codes, values, k = part_codes(parts, datas, owner)
        weights, scales = part_weights(parts, datas, owner)
        Z = datas[0] if len(datas) == 1 else np.vstack(datas)
        if pre:  # statistics are linear in the semimetric values
            entries = Z.data if sp.issparse(Z) else Z
            factor = pow2_scale(float(np.max(np.abs(entries), initial=0.0)))
            Z = Z / factor if factor != 1.0 else Z
        else:
            _, factor, Z = data_scale(Z, spec)
        codes, w, groups = pooled_groups(parts, codes, weights, k)
        return Prepared(self, owner, spec, Z.shape[0], k, *groups, np.array(scales), factor,
                        values, codes, (Z, w))

    def group_sums(self, prep, which="all"):
        check_which(which)
        with running(f"{prep.owner}: summing the pairs"):  # on a terminal, its clock
            return self._group_sums(prep, which)

    @staticmethod
    def _group_sums(prep, which):
        Z, w = prep.payload
        if which == "all":
            return _cluster_sums(Z, prep.codes, prep.k, w, prep.spec, prep.owner)
        # rows of each group, in increasing order (a stable sort of the codes)
        members = np.split(np.argsort(prep.codes, kind="stable"),
                           np.cumsum(prep.group_sizes.astype(np.intp))[:-1])
        pairs = ([(j, j) for j in range(prep.k)] if which == "within" else
                 [(i, j) for i in range(prep.k) for j in range(i + 1, prep.k)])
        out = np.zeros((prep.k, prep.k))
        for i, j in pairs:
            ii, jj = members[i], members[j]
            if i == j and _takes_pair_pass(Z, ii.size, prep.spec):  # a group's own pairs
                out[i, i] = _pair_pass_sums(Z[ii], np.zeros(ii.size, dtype=np.int64), 1,
                                            w[ii], prep.spec, prep.owner)[0, 0]
            else:
                out[i, j] = out[j, i] = _weighted_block_sum(Z, ii, jj, w[ii], w[jj],
                                                            prep.spec, prep.owner)
        return out

    def pooled(self, prep):
        n = prep.n
        if 8 * n * n > _MAX_POOLED_BYTES:
            raise InvalidParameterError(
                f"{prep.owner}: needs the pooled n x n semimetric matrix: n={n} would take "
                f"{n * n * 8 / 2**30:.1f} GiB (limit {_MAX_POOLED_BYTES / 2**30:.0f} GiB); "
                "subsample the data (n_permutations=0 gives the statistic without it)")
        check_fits(8 * n * n + 8 * n * prep.k, f"{prep.owner} for n_samples={n} (the pooled "
                   "n x n semimetric matrix)", "n_permutations=0 or a subsample")
        Z = prep.payload[0]
        if prep.spec["semimetric"] == "precomputed":
            return Z.toarray() if sp.issparse(Z) else Z
        idx = np.arange(n)
        return _rho_block(Z, idx, idx, prep.spec, prep.owner)

    def relabelled_sums(self, pooled, codes, k, skip):
        B, n = codes.shape
        H = np.zeros((n, B, k))
        H[np.arange(n)[:, None], np.arange(B)[None, :], codes.T] = 1.0
        cols = np.arange(k) != skip
        DH = (pooled @ H[:, :, cols].reshape(n, B * (k - 1))).reshape(n, B, k - 1)
        P = np.zeros((B, k, k))
        P[:, :, cols] = np.einsum("nbi,nbj->bij", H, DH)
        return P

    def row_sums(self, pooled):
        return pooled.sum(axis=1)


def part_codes(parts, datas, owner):
    """Group codes of each part's rows (numbered part by part), the labelled part's
    distinct values and the number of groups."""
    codes, values, k = [], None, 0
    for p, X in zip(parts, datas):
        if p.labels is None:
            codes.append(np.full(X.shape[0], k, dtype=np.int64))
            k += 1
        else:
            c, values = label_codes(p.labels, X.shape[0], owner)
            codes.append(c + k)
            k += len(values)
    return codes, values, k


def pooled_groups(parts, codes, weights, k):
    """The parts' codes and weights pooled, and ``(group weights, group sizes)`` of
    :class:`Prepared` (group weights part by part: a one-group part's is the sum of
    its weights)."""
    s = np.concatenate([[wp.sum()] if p.labels is None else
                        np.bincount(cp - cp.min(), weights=wp)
                        for p, cp, wp in zip(parts, codes, weights)])
    codes = codes[0] if len(codes) == 1 else np.concatenate(codes)
    w = weights[0] if len(weights) == 1 else np.concatenate(weights)
    return codes, w, (s, np.bincount(codes, minlength=k).astype(np.float64))


def part_weights(parts, datas, owner):
    """Each part's checked weights divided by a power of two that keeps them and the
    products of two of them normal numbers
    (:func:`kgroups._validation.pow2_weight_scale`: weights 1 and 1e-300 together
    too), and those powers of two."""
    weights, scales = [], []
    for p, X in zip(parts, datas):
        check_in_memory(p.weights, p.weight_name, owner)
        # a zero weight counts as a removed row; a part or group of zero weight adds nothing
        w = check_sample_weight(p.weights, X.shape[0], owner, p.weight_name, allow_zero=True)
        scales.append(pow2_weight_scale(w))
        weights.append(w if scales[-1] == 1.0 else w / scales[-1])
    return weights, scales


def label_codes(labels, n, owner):
    """Codes and sorted distinct values of in-memory labels (one per sample), ragged
    sequences refused by name."""
    try:
        return encode_labels(labels, n, owner, "labels")
    except InvalidParameterError:
        raise
    except ValueError:  # numpy: ragged nested sequences
        raise InvalidParameterError(
            f"{owner}: labels={describe(labels)} should be a 1-D array of labels, one "
            "per sample") from None


def _rho_block(X, rows, cols, spec, owner, Xcols=None, center=None):
    """rho between items ``rows`` and ``cols`` of X (index arrays).

    ``Xcols`` (``X[cols]``) and ``center`` (:func:`~kgroups._semimetrics.robust_center`
    of ``X``), when the caller
    has them, are not recomputed for every block of rows.
    """
    if spec["semimetric"] == "precomputed":
        if sp.issparse(X):
            return X[rows][:, cols].toarray()
        return X[np.ix_(rows, cols)]
    params = {k: spec[k] for k in ("alpha", "sigma", "theta")}
    Xcols = X[cols] if Xcols is None else Xcols
    center = robust_center(X) if center is None else center
    # ``pairwise_unchecked`` recomputes close pairs exactly: duplicated points get rho = 0,
    # and checks a callable's values and a named semimetric's range (errors name owner)
    return pairwise_unchecked(X[rows], Xcols, spec["semimetric"], center=center, owner=owner,
                              **params)


def _gathered(X, cols, spec):
    """``(X[cols], robust_center(X))`` once for a loop over row blocks (raw data)."""
    if spec["semimetric"] == "precomputed":
        return None, None
    return X[cols], robust_center(X)


def _row_chunks(n_rows, n_cols):
    step = max(1, BLOCK_ELEMENTS // max(n_cols, 1))
    return ((a, min(a + step, n_rows)) for a in range(0, n_rows, step))


def _takes_pair_pass(X, n, spec):
    """Whether sums over ``n`` rows of ``X`` come from the pass over the pairs: raw
    data, a named semimetric, and ``PARALLEL_MIN_WORK`` pairs or more."""
    return (spec["semimetric"] in NAMES and not sp.issparse(X)
            and n * n // 2 >= PARALLEL_MIN_WORK)


def _pair_pass_sums(X, codes, k, w, spec, owner):
    """:func:`_cluster_sums` from one visit of each unordered pair on every worker
    (:func:`~kgroups._kernels.pairs_on_the_fly.sorted_class_sums`: squared distances
    from direct differences of the robustly centred data, so near-duplicates are
    exact, and no block of semimetric values): with the points sorted by group,
    ``Ms[h, c] = -w_c / 2 sum_{y in C_h} w_y rho(x_c, x_y)``, so ``Sums[h, g] = -2
    sum_{c in C_g} Ms[h, c]``, made symmetric."""
    X = X.reshape(len(X), -1)
    n, d = X.shape
    params = {p: spec[p] for p in ("alpha", "sigma", "theta")}
    center = robust_center(X)
    check_semimetric_range(centred_sq_norm_max(X, center), spec["semimetric"], params,
                           float(np.max(w, initial=0.0)) ** 2, owner)
    with np.errstate(over="ignore", invalid="ignore"):  # the check above judged them
        XT = np.ascontiguousarray((X - center).T)
    check_fits(sorted_sums_bytes(n, k) + 16 * n * d,
               f"{owner}: the sums of the pass over the pairs of {n} points",
               "fewer rows (a subsample)")
    Ms, order = sorted_class_sums(XT, w, codes, k,
                                  kernel_args(spec["semimetric"], params))
    bounds = np.searchsorted(np.asarray(codes)[order], np.arange(k + 1))
    sums = np.stack([-2.0 * Ms[:, bounds[g]:bounds[g + 1]].sum(axis=1) for g in range(k)],
                    axis=1)
    return 0.5 * (sums + sums.T)


def _weighted_block_sum(X, rows, cols, wr, wc, spec, owner):
    """``sum_{a, b} wr[a] wc[b] rho(X[rows[a]], X[cols[b]])`` by row blocks."""
    total = 0.0
    Xcols, center = _gathered(X, cols, spec)
    for a, b in _row_chunks(len(rows), len(cols)):
        R = _rho_block(X, rows[a:b], cols, spec, owner, Xcols, center)
        total += float(wr[a:b] @ (R @ wc))
    return total


def _cluster_sums(X, codes, k, w, spec, owner):
    """k x k matrix ``Sums[i, j] = sum_{x in C_i, y in C_j} w_x w_y rho(x, y)``.

    Raw data with a named semimetric and at least ``PARALLEL_MIN_WORK`` pairs
    (:func:`_takes_pair_pass`): the matrix-free engine's pass over the unordered pairs
    (:func:`_pair_pass_sums`).
    Otherwise one pass over row blocks of the n x n semimetric matrix; each block is
    reduced with two matrix products against the weighted one-hot labels.
    """
    n = len(codes)
    if _takes_pair_pass(X, n, spec):
        return _pair_pass_sums(X, codes, k, w, spec, owner)
    H = np.zeros((n, k))
    H[np.arange(n), codes] = w
    idx = np.arange(n)
    sums = np.zeros((k, k))
    Xcols, center = _gathered(X, idx, spec)
    # rho is symmetric: each row block against itself and the columns after it,
    # the pairs after it counted twice (half the semimetric values of all pairs)
    for a, b in _row_chunks(n, n):
        R = _rho_block(X, idx[a:b], idx[a:], spec, owner,
                       None if Xcols is None else Xcols[a:], center)
        sums += H[a:b].T @ (R[:, :b - a] @ H[a:b])
        off = H[a:b].T @ (R[:, b - a:] @ H[b:])
        sums += off + off.T
    return sums
