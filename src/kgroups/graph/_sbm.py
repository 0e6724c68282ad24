r"""Sparse stochastic block models in the parametrisation of TPAMI section 5.2.

Nodes fall into ``k`` classes (``n_clusters``); an edge joins two nodes of the same class with
probability :math:`p_{in} = a/n` and of different classes with
:math:`p_{out} = b/n` (paper eq. 60). The mean degree is
:math:`d = (a + (k-1) b)/k` (eq. 61) and the signal-to-noise ratio
:math:`\lambda = (a - b)/(k\sqrt d)` (eq. 62; communities are detectable in
polynomial time only when :math:`\lambda > 1`, Decelle et al. 2011). Given
``(k, d, lambda)``,

.. math:: a = d + \lambda (k - 1)\sqrt d, \qquad b = d - \lambda \sqrt d ,

so :math:`0 \le \lambda \le \sqrt d`. The generator draws, for each pair of
blocks, the number of edges from its binomial law and then that many distinct
node pairs uniformly, so the graph has exactly the law of independent Bernoulli
edges, in O(n + edges) time and memory (never O(n^2)).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from .._validation import InvalidParameterError, validated
from ._bethe import as_rng
from ._renamed import renamed

# Below this many candidate pairs a block pair is drawn pair by pair (exact and
# cheap); above it, by sampling distinct pairs.
_DIRECT_PAIRS = 1 << 20


def sbm_parameters(k, d, lam, owner="stochastic_block_model"):
    """``(a, b)`` of paper eq. (60) for ``k`` classes, mean degree ``d`` and ratio ``lam``.

    ``k``, ``d`` and ``lam`` are checked by the caller's row of the constraint
    table; this checks the range of ``lam`` that depends on ``d``.

    Examples
    --------
    >>> a, b = sbm_parameters(4, 16, 2.0)
    >>> print(a, b)
    40.0 8.0
    """
    if not lam <= np.sqrt(d) * (1 + 1e-12):
        raise InvalidParameterError(
            f"{owner}: lam={lam!r} should be in [0, sqrt(d)] = [0, {np.sqrt(d):.4g}] "
            "(else b = d - lam sqrt(d) < 0)")
    root = float(np.sqrt(d))
    return float(d + lam * (k - 1) * root), float(max(d - lam * root, 0.0))


@renamed(k="n_clusters")
@validated
def stochastic_block_model(n, n_clusters, d, lam, *, balanced=False, random_state=None):
    """Sample a sparse SBM with ``n_clusters`` classes, mean degree ``d`` and ratio ``lam``.

    Parameters
    ----------
    n : int
        Number of nodes.
    n_clusters : int
        Number of classes k (>= 2).
    d : float
        Expected mean degree (paper eq. 61).
    lam : float
        Signal-to-noise ratio ``(a - b) / (k sqrt(d))`` (paper eq. 62), in
        ``[0, sqrt(d)]``.
    balanced : bool, default=False
        ``False``: each node picks its class uniformly at random (the paper's
        model); ``True``: classes of sizes ``n // k`` or ``n // k + 1``, assigned
        to nodes in random order.
    random_state : int, numpy Generator or None
        Seeds the classes and the edges.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (n, n)
        Symmetric 0/1, no self-loops.
    labels : ndarray of shape (n,), int64
        The planted class of each node, in ``0..k-1``.

    See Also
    --------
    girvan_newman_benchmark : The SBM with n = 128, k = 4, degree 16.
    detect_communities : Recover the classes.

    References
    ----------
    .. [1] P. W. Holland, K. B. Laskey, S. Leinhardt, "Stochastic blockmodels:
       first steps", Social Networks 5(2), 109-137, 1983.
    .. [2] A. Decelle, F. Krzakala, C. Moore, L. Zdeborová, "Asymptotic analysis of
       the stochastic block model for modular networks and its algorithmic
       applications", Phys. Rev. E 84, 066106, 2011.
    .. [3] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, section 5.2, equations
       60-62.

    Examples
    --------
    >>> A, y = stochastic_block_model(2000, 2, 10.0, 2.0, random_state=0)
    >>> print(round(A.sum() / 2000, 1))
    9.9
    """
    k = int(n_clusters)
    a, b = sbm_parameters(k, d, lam)
    n = int(n)
    if n < k:
        raise InvalidParameterError(
            f"stochastic_block_model: n={n} should be >= n_clusters={k}")
    if max(a, b) > n:
        raise InvalidParameterError(
            f"stochastic_block_model: n={n} is too small for a={a:.4g}: p_in = a/n would "
            "exceed 1; expected n >= a = d + lam (k - 1) sqrt(d)")
    rng = as_rng(random_state)
    if balanced:
        labels = rng.permutation(np.arange(n) % k).astype(np.int64)
    else:
        labels = rng.integers(0, k, size=n).astype(np.int64)
    members = [np.flatnonzero(labels == c) for c in range(k)]
    rows, cols = [], []
    for r in range(k):
        for s in range(r, k):
            p = (a if r == s else b) / n
            i, j = _block_edges(members[r], members[s] if s != r else None, p, rng)
            rows.append(i)
            cols.append(j)
    i = np.concatenate(rows)
    j = np.concatenate(cols)
    A = sp.csr_matrix((np.ones(2 * i.size), (np.concatenate([i, j]), np.concatenate([j, i]))),
                      shape=(n, n))
    A.sort_indices()
    return A, labels


def _block_edges(u, v, p, rng):
    """Edges between node sets ``u`` and ``v`` (``v=None``: within ``u``), each w.p. ``p``."""
    nu = u.size
    n_pairs = nu * (nu - 1) // 2 if v is None else nu * v.size
    if n_pairs == 0 or p <= 0:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    if n_pairs <= _DIRECT_PAIRS:
        if v is None:
            a, b = np.triu_indices(nu, 1)
        else:
            a, b = np.divmod(np.arange(n_pairs), v.size)
        keep = rng.random(n_pairs) < p
        return u[a[keep]], (u if v is None else v)[b[keep]]
    m = int(rng.binomial(n_pairs, p))
    codes = _distinct_pairs(nu, nu if v is None else v.size, m, v is None, rng)
    a, b = np.divmod(codes, nu if v is None else v.size)
    return u[a], (u if v is None else v)[b]


def _distinct_pairs(nu, nv, m, within, rng):
    """``m`` distinct uniform pairs, coded ``a * nv + b`` (``a < b`` when ``within``)."""
    codes = np.empty(0, np.int64)
    while codes.size < m:
        extra = int((m - codes.size) * 1.05) + 16
        a = rng.integers(0, nu, size=extra)
        b = rng.integers(0, nv, size=extra)
        if within:
            ok = a != b
            a, b = np.minimum(a[ok], b[ok]), np.maximum(a[ok], b[ok])
        codes = np.unique(np.concatenate([codes, a * nv + b]))
    return rng.permutation(codes)[:m]


@validated
def girvan_newman_benchmark(lam, *, balanced=True, random_state=None):
    """The Girvan-Newman benchmark (n = 128, k = 4, mean degree 16) at ratio ``lam``.

    Girvan & Newman (PNAS 2002) use 4 classes of 32 nodes (``balanced=True``);
    the experiments of TPAMI Table I drew classes at random (``balanced=False``).

    Parameters
    ----------
    lam : float
        Signal-to-noise ratio (paper eq. 62), in ``[0, 4]`` (``4 = sqrt(16)``: no
        edges between classes).
    balanced : bool, default=True
        ``True``: 4 classes of 32 nodes; ``False``: each node picks its class
        uniformly at random.
    random_state : int, numpy Generator or None
        Seeds the classes and the edges.

    Returns
    -------
    adjacency : scipy.sparse.csr_matrix of shape (128, 128)
        Symmetric 0/1, no self-loops.
    labels : ndarray of shape (128,), int64
        The planted class of each node, in ``0..3``.

    See Also
    --------
    stochastic_block_model : Any size, number of classes and degree.

    References
    ----------
    .. [1] M. Girvan, M. E. J. Newman, "Community structure in social and
       biological networks", PNAS 99(12), 7821-7826, 2002.
    .. [2] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, Figure 4 and Table I.

    Examples
    --------
    >>> A, y = girvan_newman_benchmark(2.0, random_state=0)
    >>> A.shape, [int(c) for c in np.bincount(y)]
    ((128, 128), [32, 32, 32, 32])
    """
    if not lam <= 4.0:
        raise InvalidParameterError(
            f"girvan_newman_benchmark: lam={lam!r} should be in [0, 4] = [0, sqrt(16)]")
    return stochastic_block_model(128, 4, 16.0, lam, balanced=balanced, random_state=random_state)
