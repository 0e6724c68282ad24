"""Which implementation of the pair-sum layer (:mod:`kgroups._stats.pairsum`) a call runs on.

``IMPLEMENTATIONS`` maps an array kind to the module and class of its
implementation; :func:`array_kind` tells the kind of an input (dask when any input
is a dask collection, without importing dask), :func:`choose` returns the
implementation and :func:`prepare` chooses and prepares in one call. The Dask
(:mod:`kgroups._stats.pairsum_dask`) and CUDA (:mod:`kgroups._stats.pairsum_cuda`)
implementations are imported only when an input is of their kind; another kind adds
a row to both tables. Built on the interface, for every kind: :func:`observed_sums`,
:func:`permutation_statistics` and :func:`permutation_pvalue`, the permutation
machinery of the k-sample energy test and DISCO. The implementations import
:mod:`kgroups._stats.pairsum` (the interface and the in-memory implementation),
never this module.
"""

from __future__ import annotations

import importlib

import numpy as np

from .._kernels.permute import permuted_codes
from .._progress import counted, running
from .._validation import (InvalidParameterError, is_dask_collection, is_device_array,
                           uniform_sample)
from .pairsum import BLOCK_ELEMENTS, Part, semimetric_spec  # noqa: F401 (doctest names)

# array kind -> (module, class) of its implementation, imported on first use
IMPLEMENTATIONS = {
    "numpy": (__package__ + ".pairsum", "NumpyPairSums"),
    "dask": (__package__ + ".pairsum_dask", "DaskPairSums"),
    "cuda": (__package__ + ".pairsum_cuda", "CudaPairSums"),
}
# (kind, test) in order of precedence; an input that passes no test is "numpy"
KIND_TESTS = (("dask", is_dask_collection), ("cuda", is_device_array))



def _kind_of(value):
    for kind, test in KIND_TESTS:
        if test(value):
            return kind
    return "numpy"


def array_kind(*inputs):
    """The array kind of a call: the first kind of ``KIND_TESTS`` that any input
    has, else ``"numpy"`` (lists, NumPy and scipy.sparse arrays, None).

    Examples
    --------
    >>> import numpy as np
    >>> array_kind(np.zeros(3), [1, 2], None)
    'numpy'
    """
    kinds = {_kind_of(v) for v in inputs}
    for kind, _ in KIND_TESTS:
        if kind in kinds:
            return kind
    return "numpy"


def choose(named_inputs, owner, kinds=None):
    """The implementation for ``named_inputs`` (a mapping or pairs: parameter name, value).

    ``kinds``: the array kinds the caller runs on (None: all); an input of another
    kind is refused, naming the function and the parameter.

    Examples
    --------
    >>> import numpy as np
    >>> choose({"X": np.zeros((2, 1))}, "total_energy").kind
    'numpy'
    """
    items = list(named_inputs.items() if hasattr(named_inputs, "items") else named_inputs)
    kind = array_kind(*(v for _, v in items))
    if kinds is not None and kind not in kinds:
        name, value = next((n, v) for n, v in items if _kind_of(v) == kind)
        raise InvalidParameterError(
            f"{owner}: {name} is a {kind} {type(value).__name__}; {owner} runs on in-memory "
            f"data only: pass {name}.compute() or a subsample in memory (energy_distance, "
            "within_energy, between_energy, total_energy, energy_test and disco with "
            "n_permutations=0 run on Dask)")
    module, cls = IMPLEMENTATIONS[kind]
    return getattr(importlib.import_module(module), cls)()


def prepare(parts, spec, owner, *, n_permutations=0, kinds=None):
    """Choose the implementation for ``parts`` and prepare them (:meth:`PairSums.prepare`).

    A permutation test (``n_permutations > 0``) on a kind without the pooled
    matrix is refused here, before any pass over the data.

    Examples
    --------
    >>> import numpy as np
    >>> spec = semimetric_spec("within_energy", "energy", 1.0, 1.0, 1.0)
    >>> prep = prepare([Part(np.array([0.0, 1.0, 10.0, 12.0]), labels=[0, 0, 1, 1])],
    ...                spec, "within_energy")
    >>> print(prep.k, prep.group_weights.tolist())
    2 [2.0, 2.0]
    >>> print(prep.backend.group_sums(prep, "within").tolist())
    [[2.0, 0.0], [0.0, 4.0]]
    """
    named = [(name, value) for p in parts
             for name, value in ((p.name, p.data), ("labels", p.labels),
                                 (p.weight_name, p.weights))]
    backend = choose(named, owner, kinds)
    if n_permutations and not backend.has_pooled:
        raise InvalidParameterError(
            f"{owner}: n_permutations={n_permutations!r} with {backend.kind} input; each "
            "permutation is another pass over all pairs: pass n_permutations=0 for the exact "
            "statistic (pvalue=nan), or test a subsample in memory")
    return backend.prepare(parts, spec, owner)


# --------------------------------------------------------------------------- permutations
def observed_sums(prep, n_permutations):
    """Group sums (unit weights) of a permutation test, and its pooled matrix.

    Without permutations: the blocked sums (:meth:`PairSums.group_sums`) and None.
    With permutations: the pooled data (:meth:`PairSums.pooled`: the n x n matrix in
    memory, the pooled points on a device, whose passes compute it tile by tile) and the
    sums of the observed labels reduced from it as each relabelling's are
    (:func:`relabelled`), so that the observed labelling and an identical
    relabelling give the same statistic.
    """
    if n_permutations == 0:
        return prep.backend.group_sums(prep), None
    with running(f"{prep.owner}: the pooled matrix"):  # on a terminal, its clock
        D = prep.backend.pooled(prep)
    rows = prep.backend.row_sums(D)
    return relabelled(prep.backend, D, prep.codes[None, :], prep.k, rows)[0], D


def relabelled(backend, pooled, codes, k, rows):
    r""":math:`P_b[g, h] = \sum_{i : c_b(i) = g} \sum_{y : c_b(y) = h} D_{iy}` of each
    relabelling ``codes[b]`` (shape (B, k, k)): the product of the pooled matrix with the
    one-hot codes of every group but the largest, :math:`L`
    (:meth:`PairSums.relabelled_sums`, ``skip=L``); :math:`L`'s column from its row by
    symmetry, and :math:`P_b[L, L] = \sum_{i : c_b(i) = L} r_i - \sum_{h \ne L}
    P_b[L, h]` from the row sums ``rows`` (:math:`r = D 1`): its rounding, about
    :math:`u \sum_{i : c_b(i) = L} r_i`, is that of the statistics themselves, which
    are differences of such sums. With two groups the product has half the columns.
    """
    skip = int(np.argmax(np.bincount(codes[0], minlength=k)))
    P = backend.relabelled_sums(pooled, codes, k, skip)
    others = np.arange(k) != skip
    P[:, others, skip] = P[:, skip, others]
    P[:, skip, skip] = (np.einsum("bn,n->b", codes == skip, rows)  # not bool @ float: slow
                        - P[:, skip, others].sum(axis=1))
    return P


def permutation_statistics(pooled, codes, sizes, n_permutations, rs, statistic,
                           owner="energy_test", backend=None):
    """``statistic(sums, sizes)`` of ``n_permutations`` random relabellings of ``codes``.

    Each batch of B relabellings draws B x n uniform keys from ``rs`` (a RandomState
    or Generator) and sorts each row (stably, the rows on every core:
    :func:`~kgroups._kernels.permute.permuted_codes`), which keeps the group sizes,
    then gets its (B, k, k) sums from the pooled matrix in one product
    (:func:`relabelled`); ``statistic`` maps sums of shape (..., k, k) and the sizes
    to shape (...). On a terminal a bar named after ``owner`` counts the permutations.
    ``backend``: the implementation that made ``pooled`` (by default the one of its
    array kind).
    """
    backend = backend or choose({"pooled": pooled}, "permutations")
    n, k = pooled.shape[0], len(sizes)
    rows = backend.row_sums(pooled)
    batch = relabel_batch(backend, n, k, n_permutations)
    out = np.empty(n_permutations)
    for start in counted(n_permutations, batch, f"{owner}: permutations", "permutation"):
        B = min(batch, n_permutations - start)
        out[start:start + B] = statistic(
            relabelled(backend, pooled, relabellings(rs, codes, B), k, rows), sizes)
    return out


def relabel_batch(backend, n, k, n_permutations):
    """Relabellings of ``n`` points in ``k`` groups summed in one product: as many as
    the array kind's ``relabel_elements`` allow, at least 1, at most ``n_permutations``."""
    return max(1, min(n_permutations, backend.relabel_elements // (n * k)))


def relabellings(rs, codes, B):
    """``B`` random relabellings of ``codes`` (shape (B, n)): B x n uniform keys from
    ``rs``, each row sorted (:func:`~kgroups._kernels.permute.permuted_codes`)."""
    return permuted_codes(uniform_sample(rs, (B, codes.shape[0])), codes)


def permutation_pvalue(observed, perm):
    """``(1 + #{b : perm_b >= observed}) / (1 + B)``, ``>=`` within 1e-12 relative.

    Counting ties makes the test valid, ``P(p <= a) <= a`` under the null, also
    on discrete data; the tolerance absorbs sums of the same numbers taken in
    another order.

    Examples
    --------
    >>> import numpy as np
    >>> print(permutation_pvalue(2.0, np.array([1.0, 2.0, 3.0])))
    0.75
    """
    count = int(np.sum(perm >= observed - 1e-12 * abs(observed)))
    return (1.0 + count) / (1.0 + len(perm))


# --------------------------------------------------------------------------- NumPy
