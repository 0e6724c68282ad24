"""Spectral relaxation of weighted energy clustering (baseline and initialiser).

França, Rizzo & Vogelstein, "Kernel k-Groups via Hartigan's Method" (TPAMI 43(12), 2021),
Section 3, eq. (29). Relaxing the label matrix :math:`H = \\mathcal{W}^{1/2} Z
(Z^\\top \\mathcal{W} Z)^{-1/2}` to any :math:`n \\times k` matrix with orthonormal
columns turns the clustering problem into

.. math::

    \\max_H \\operatorname{Tr}\\big[H^\\top \\tilde G H\\big]
    \\quad \\text{s.t.} \\quad H^\\top H = I,
    \\qquad \\tilde G = \\mathcal{W}^{1/2} G\\, \\mathcal{W}^{1/2},

solved by the eigenvectors of the :math:`k` largest eigenvalues of
:math:`\\tilde G`. As in Ng, Jordan & Weiss (2001), the rows of that
:math:`n \\times k` matrix are normalised to unit length and clustered by k-means.

Unlike kernel k-groups, this relaxation depends on the base point :math:`x_0` of
the kernel :math:`K(x, y) = \\tfrac12(\\rho(x, x_0) + \\rho(y, x_0) - \\rho(x, y))`
(paper eq. 7); the paper takes :math:`x_0 = 0`. :func:`kernel_from_semimetric_x0`
builds that kernel.

Cost: :math:`O(n^3)` for a dense eigendecomposition (LAPACK ``syevr`` restricted
to the top :math:`k` eigenpairs), or ARPACK (``eigsh``) iterations of
:math:`O(\\mathrm{nnz})` each for sparse or large inputs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg

from ._reprs import short_repr
from ._validation import (
    InvalidParameterError,
    as_random_state,
    check_data,
    check_n_clusters,
    check_precomputed,
    check_sample_weight,
    validated,
)

# above this, "auto" uses ARPACK even for dense input: the same labels as the dense
# solver, and the faster of the two (benchmarks/bench_spectral.py)
_DENSE_MAX_N = 1000


@dataclass(frozen=True)
class SpectralResult:
    """Result of :func:`spectral_kgroups`.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Cluster labels in ``0..k-1``; every cluster is non-empty.
    eigenvalues : ndarray of shape (n_clusters,)
        The ``k`` largest eigenvalues of :math:`\\mathcal{W}^{1/2} G
        \\mathcal{W}^{1/2}`, in increasing order (the order of the columns of
        ``embedding``); their sum is the optimum of the relaxed problem (eq. 29).
    embedding : ndarray of shape (n_samples, n_clusters)
        The row-normalised eigenvectors that k-means clustered
        (:func:`spectral_embedding`).

    See Also
    --------
    spectral_kgroups : The function that returns it.
    spectral_embedding : The embedding alone.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 29.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from kgroups import kernel_from_semimetric_x0, spectral_kgroups
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0],
    ...               [8.0, 8.0], [8.0, 9.0], [9.0, 8.0]])
    >>> G = kernel_from_semimetric_x0(cdist(X, X), np.linalg.norm(X, axis=1))
    >>> res = spectral_kgroups(G, 2, random_state=0)
    >>> res  # doctest: +ELLIPSIS
    SpectralResult(n_samples=6, n_clusters=2, eigenvalues=[...])
    >>> res.embedding.shape
    (6, 2)
    """

    labels: np.ndarray
    eigenvalues: np.ndarray
    embedding: np.ndarray

    def __repr__(self):
        return short_repr(self, n_samples=len(self.labels), n_clusters=len(self.eigenvalues),
                          eigenvalues=self.eigenvalues)


def _check_gram(G, owner):
    """Square, finite, symmetric Gram matrix (one tolerance), symmetrised exactly."""
    G = check_precomputed(G, "gram", owner, "G")
    if scipy.sparse.issparse(G):
        G = scipy.sparse.csr_array(G)
    return (G + G.T) / 2


def _top_eigenpairs(Gt, k, solver, random_state):
    """Eigenpairs of the ``k`` largest eigenvalues of the symmetric ``Gt`` (increasing)."""
    n = Gt.shape[0]
    if solver == "arpack" and k < n - 1:
        v0 = random_state.uniform(-1.0, 1.0, n)
        return scipy.sparse.linalg.eigsh(Gt, k=k, which="LA", v0=v0)
    dense = Gt.toarray() if scipy.sparse.issparse(Gt) else Gt
    return scipy.linalg.eigh(dense, subset_by_index=[n - k, n - 1])


def _embed(G, n_clusters, sample_weight, eigen_solver, random_state, owner):
    """Checked inputs -> (row-normalised embedding, eigenvalues, weights or None)."""
    G = _check_gram(G, owner)
    n = G.shape[0]
    k = check_n_clusters(n_clusters, n, owner)
    w = None
    if sample_weight is not None:
        w = check_sample_weight(sample_weight, n, owner)
        sqrt_w = np.sqrt(w)
        if scipy.sparse.issparse(G):
            G = scipy.sparse.csr_array(G.multiply(sqrt_w[:, None]).multiply(sqrt_w[None, :]))
        else:
            G = sqrt_w[:, None] * G * sqrt_w[None, :]
    if eigen_solver == "auto":
        eigen_solver = "arpack" if scipy.sparse.issparse(G) or n > _DENSE_MAX_N else "dense"
    vals, U = _top_eigenpairs(G, k, eigen_solver, random_state)
    norms = np.linalg.norm(U, axis=1, keepdims=True)
    return U / np.where(norms > 0, norms, 1.0), np.asarray(vals, dtype=np.float64), w


def _as_seed_state(random_state):
    """RandomState for scikit-learn's KMeans (a Generator seeds a new RandomState)."""
    rs = as_random_state(random_state)
    if isinstance(rs, np.random.Generator):
        return np.random.RandomState(int(rs.integers(0, 2**32)))
    return rs


def _fill_empty(labels, U, k):
    """Give every empty cluster the point farthest from its centre in the largest one.

    k-means returns fewer than ``k`` clusters when the embedding has fewer than
    ``k`` distinct rows; a partition into ``k`` non-empty clusters still exists
    when ``n >= k``. Runs only when a cluster is empty.
    """
    labels = labels.copy()
    for j in range(k):
        if np.any(labels == j):
            continue
        big = int(np.argmax(np.bincount(labels, minlength=k)))
        members = np.flatnonzero(labels == big)
        dist = np.linalg.norm(U[members] - U[members].mean(axis=0), axis=1)
        labels[members[int(np.argmax(dist))]] = j
    return labels


@validated
def spectral_embedding(G, n_clusters, *, sample_weight=None, eigen_solver="auto",
                       random_state=None):
    """Row-normalised top-``k`` eigenvectors of ``W^1/2 G W^1/2`` (TPAMI equation 29).

    Parameters
    ----------
    G : {ndarray, sparse matrix} of shape (n_samples, n_samples)
        Symmetric Gram (kernel) matrix; need not be positive semidefinite.
    n_clusters : int
        Number of eigenvectors ``k``, ``1 <= k <= n_samples``.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights, the diagonal of :math:`\\mathcal{W}` (None: all ones).
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        ``"dense"``: :func:`scipy.linalg.eigh` with ``subset_by_index``;
        ``"arpack"``: :func:`scipy.sparse.linalg.eigsh` (``which="LA"``), falling
        back to dense when ``k >= n - 1``; ``"auto"``: ARPACK for sparse input or
        ``n > 1000``, dense otherwise.
    random_state : int, numpy RandomState or Generator, or None, default=None
        Seeds the ARPACK starting vector.

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_clusters)
        Unit-length rows (rows that are exactly zero stay zero).

    See Also
    --------
    spectral_kgroups : The k-means clustering of this embedding.
    kernel_from_semimetric_x0 : A Gram matrix from a semimetric.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equation 29.
    .. [2] A. Y. Ng, M. I. Jordan, Y. Weiss, "On spectral clustering: analysis and
       an algorithm", NeurIPS 14, 849-856, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import spectral_embedding
    >>> G = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 2.0]])
    >>> U = spectral_embedding(G, 2)
    >>> print(U.shape, np.round(np.linalg.norm(U, axis=1), 6).tolist())
    (3, 2) [1.0, 1.0, 1.0]
    """
    U, _, _ = _embed(G, n_clusters, sample_weight, eigen_solver,
                     as_random_state(random_state), "spectral_embedding")
    return U


@validated
def spectral_kgroups(G, n_clusters, *, sample_weight=None, random_state=None, n_init=10,
                     eigen_solver: Literal["auto", "dense", "arpack"] = "auto"):
    """Spectral clustering of a Gram matrix, the relaxation of TPAMI equation 29.

    Takes the eigenvectors :math:`U \\in \\mathbb{R}^{n \\times k}` of the
    :math:`k` largest eigenvalues of :math:`\\tilde G = \\mathcal{W}^{1/2} G
    \\mathcal{W}^{1/2}`, normalises the rows of :math:`U` to unit length and runs
    scikit-learn's :class:`~sklearn.cluster.KMeans` on them, weighting row ``i`` by
    :math:`w_i`. The row of a point with integer weight :math:`w_i` equals the rows
    of its :math:`w_i` copies in the unweighted problem (the eigenvector entries are
    :math:`w_i^{-1/2}` times smaller there, and row normalisation removes that), so
    integer weights are equivalent to repeated rows. The relaxed optimum
    is :math:`\\max \\operatorname{Tr}[H^\\top \\tilde G H] = \\sum_{i \\le k}
    \\lambda_i`. Cost :math:`O(n^3)` dense, or ARPACK on sparse / large input.

    Parameters
    ----------
    G : {ndarray, sparse matrix} of shape (n_samples, n_samples)
        Symmetric Gram matrix, e.g. from :func:`kernel_from_semimetric_x0`.
    n_clusters : int
        Number of clusters ``k``, ``1 <= k <= n_samples``.
    sample_weight : array-like of shape (n_samples,), default=None
        Positive weights (the diagonal of :math:`\\mathcal{W}`); None means ones.
    random_state : int, numpy RandomState or Generator, or None, default=None
        Seeds k-means (and the ARPACK starting vector); a Generator seeds a new
        RandomState, which scikit-learn's KMeans needs.
    n_init : int, default=10
        Number of k-means restarts on the embedded rows.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        See :func:`spectral_embedding`.

    Returns
    -------
    result : SpectralResult
        ``labels`` (in ``0..k-1``, every cluster non-empty: if k-means leaves a
        cluster empty, which happens when the embedding has fewer than ``k``
        distinct rows, it receives the point of the largest cluster farthest
        from that cluster's centre), ``eigenvalues`` (the ``k`` largest, in
        increasing order) and the ``embedding``.

    Raises
    ------
    ValueError
        If ``G`` is not square, symmetric (to 1e-10 of its largest absolute
        entry, the one tolerance kgroups uses) and finite, ``n_clusters`` not
        in ``[1, n_samples]``, or the weights are invalid; the message names the
        parameter and the value.

    See Also
    --------
    spectral_embedding : The embedding it clusters.
    kernel_from_semimetric_x0 : A Gram matrix from a semimetric.
    KernelKGroups : Kernel k-groups, which solves the unrelaxed problem.
    sklearn.cluster.SpectralClustering : The spectral clustering of scikit-learn.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 22 and 29,
       section 3.
    .. [2] A. Y. Ng, M. I. Jordan, Y. Weiss, "On spectral clustering: analysis and
       an algorithm", NeurIPS 14, 849-856, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from kgroups import kernel_from_semimetric_x0, spectral_kgroups
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1],
    ...               [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> G = kernel_from_semimetric_x0(cdist(X, X), np.linalg.norm(X, axis=1))
    >>> res = spectral_kgroups(G, 2, random_state=0)
    >>> labels = res.labels
    >>> print(len(set(labels[:3])), len(set(labels[3:])), labels[0] != labels[3])
    1 1 True
    >>> print(res.eigenvalues.shape, res.embedding.shape)
    (2,) (6, 2)
    """
    from sklearn.cluster import KMeans  # imported here: costly, and only needed now

    rng = _as_seed_state(random_state)
    U, vals, w = _embed(G, n_clusters, sample_weight, eigen_solver, rng, "spectral_kgroups")
    k = U.shape[1]
    km = KMeans(n_clusters=k, n_init=int(n_init), random_state=rng)
    labels = km.fit(U, sample_weight=w).labels_
    return SpectralResult(_fill_empty(labels, U, k), vals, U)


@validated
def kernel_from_semimetric_x0(rho_matrix, rho_to_x0):
    """Kernel ``K(x, y) = (rho(x, x0) + rho(y, x0) - rho(x, y)) / 2`` (TPAMI equation 7).

    The spectral relaxation depends on the base point ``x0`` (kernel k-groups does
    not); the paper uses ``x0 = 0``, i.e. ``rho_to_x0[i] = rho(x_i, 0)``.

    Parameters
    ----------
    rho_matrix : array-like or sparse matrix of shape (n_samples, n_samples)
        Symmetric semimetric matrix ``rho(x_i, x_j)`` (a sparse input is densified:
        the kernel is dense).
    rho_to_x0 : array-like of shape (n_samples,)
        ``rho(x_i, x0)``.

    Returns
    -------
    K : ndarray of shape (n_samples, n_samples)
        The symmetric Gram matrix of eq. 7 with base point ``x0`` (positive
        semidefinite when ``rho`` is of negative type).

    See Also
    --------
    pairwise : The semimetric matrix.
    rho_to_origin : The distances to the base point x0 = 0.
    spectral_kgroups : Spectral clustering of the Gram matrix.

    References
    ----------
    .. [1] G. França, M. L. Rizzo, J. T. Vogelstein, "Kernel k-Groups via
       Hartigan's Method", IEEE TPAMI 43(12), 2021, equations 7 and 19.
    .. [2] D. Sejdinovic, B. Sriperumbudur, A. Gretton, K. Fukumizu, "Equivalence
       of distance-based and RKHS-based statistics in hypothesis testing", Ann.
       Statist. 41(5), 2263-2291, 2013.

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups import kernel_from_semimetric_x0
    >>> x = np.array([1.0, 3.0])
    >>> K = kernel_from_semimetric_x0(np.abs(x[:, None] - x[None, :]), np.abs(x))
    >>> print(K.tolist())
    [[1.0, 1.0], [1.0, 3.0]]
    """
    owner = "kernel_from_semimetric_x0"
    rho = check_precomputed(rho_matrix, "semimetric", owner, "rho_matrix")
    if scipy.sparse.issparse(rho):
        rho = rho.toarray()
    n = rho.shape[0]
    if np.ndim(rho_to_x0) != 1:
        raise InvalidParameterError(
            f"{owner}: rho_to_x0 should have shape ({n},), got shape {np.shape(rho_to_x0)}")
    r0 = check_data(rho_to_x0, "rho_to_x0", owner, allow_1d=True)[:, 0]
    if r0.shape != (n,):
        raise InvalidParameterError(
            f"{owner}: rho_to_x0 should have shape ({n},), got shape {r0.shape}")
    return 0.5 * (r0[:, None] + r0[None, :] - rho)
