"""Spectral relaxation of weighted energy clustering (baseline and initialiser).

França, Rizzo & Vogelstein, "Kernel k-Groups via Hartigan's Method" (TPAMI 2020),
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

import numbers
from typing import Literal

import numpy as np
import scipy.linalg
import scipy.sparse
import scipy.sparse.linalg
from sklearn.cluster import KMeans
from sklearn.utils import check_random_state

__all__ = ["spectral_kgroups", "spectral_embedding", "kernel_from_semimetric_x0"]

_DENSE_MAX_N = 4000  # above this, "auto" uses ARPACK even for dense input


def _check_gram(G):
    """Validate a square, finite, symmetric Gram matrix; return it symmetrised."""
    sparse = scipy.sparse.issparse(G)
    G = scipy.sparse.csr_array(G, dtype=np.float64) if sparse else np.asarray(G, dtype=np.float64)
    if G.ndim != 2 or G.shape[0] != G.shape[1]:
        raise ValueError(f"G should be a square matrix of shape (n, n), got shape {G.shape}")
    values = G.data if sparse else G
    if not np.all(np.isfinite(values)):
        raise ValueError("G should contain only finite values, got NaN or inf")
    asym = abs(G - G.T).max() if sparse else np.max(np.abs(G - G.T), initial=0.0)
    scale = abs(G).max() if sparse else np.max(np.abs(G), initial=0.0)
    if asym > 1e-8 * max(scale, np.finfo(np.float64).tiny):
        raise ValueError(
            f"G should be symmetric, got max|G - G.T|={float(asym):.3g} "
            f"with max|G|={float(scale):.3g}"
        )
    return (G + G.T) / 2


def _check_weights(sample_weight, n):
    """Return ``sqrt(w)`` for positive finite weights of length ``n`` (None -> None)."""
    if sample_weight is None:
        return None
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.shape != (n,):
        raise ValueError(f"sample_weight should have shape ({n},), got shape {w.shape}")
    ok = np.isfinite(w) & (w > 0)
    if not ok.all():
        bad = int(np.flatnonzero(~ok)[0])
        raise ValueError(
            f"sample_weight should be finite and > 0, got sample_weight[{bad}]={float(w[bad])!r}"
        )
    return np.sqrt(w)


def _top_eigenvectors(Gt, k, solver, random_state):
    """Eigenvectors of the ``k`` largest eigenvalues of the symmetric ``Gt``."""
    n = Gt.shape[0]
    if solver == "arpack" and k < n - 1:
        v0 = check_random_state(random_state).uniform(-1.0, 1.0, n)
        _, vecs = scipy.sparse.linalg.eigsh(Gt, k=k, which="LA", v0=v0)
        return vecs
    dense = Gt.toarray() if scipy.sparse.issparse(Gt) else Gt
    _, vecs = scipy.linalg.eigh(dense, subset_by_index=[n - k, n - 1])
    return vecs


def spectral_embedding(G, n_clusters, *, sample_weight=None, eigen_solver="auto",
                       random_state=None):
    """Row-normalised top-``k`` eigenvectors of ``W^1/2 G W^1/2`` (paper eq. 29).

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
        ``n > 4000``, dense otherwise.
    random_state : int, RandomState instance or None, default=None
        Seeds the ARPACK starting vector.

    Returns
    -------
    embedding : ndarray of shape (n_samples, n_clusters)
        Unit-length rows (rows that are exactly zero stay zero).
    """
    G = _check_gram(G)
    n = G.shape[0]
    if not isinstance(n_clusters, numbers.Integral) or not 1 <= n_clusters <= n:
        raise ValueError(f"n_clusters={n_clusters!r} should be an integer in [1, n_samples={n}]")
    if eigen_solver not in ("auto", "dense", "arpack"):
        raise ValueError(
            f"eigen_solver={eigen_solver!r} should be one of 'auto', 'dense', 'arpack'"
        )
    sqrt_w = _check_weights(sample_weight, n)
    if sqrt_w is not None:
        if scipy.sparse.issparse(G):
            G = scipy.sparse.csr_array(G.multiply(sqrt_w[:, None]).multiply(sqrt_w[None, :]))
        else:
            G = sqrt_w[:, None] * G * sqrt_w[None, :]
    if eigen_solver == "auto":
        eigen_solver = "arpack" if scipy.sparse.issparse(G) or n > _DENSE_MAX_N else "dense"
    U = _top_eigenvectors(G, int(n_clusters), eigen_solver, random_state)
    norms = np.linalg.norm(U, axis=1, keepdims=True)
    return U / np.where(norms > 0, norms, 1.0)


def spectral_kgroups(G, n_clusters, *, sample_weight=None, random_state=None, n_init=10,
                     eigen_solver: Literal["auto", "dense", "arpack"] = "auto"):
    """Spectral clustering of a Gram matrix, the relaxation of paper eq. (29).

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
    random_state : int, RandomState instance or None, default=None
        Seeds k-means (and the ARPACK starting vector).
    n_init : int, default=10
        Number of k-means restarts on the embedded rows.
    eigen_solver : {"auto", "dense", "arpack"}, default="auto"
        See :func:`spectral_embedding`.

    Returns
    -------
    labels : ndarray of shape (n_samples,)
        Cluster labels in ``0..k-1``.

    Raises
    ------
    ValueError
        If ``G`` is not square, symmetric and finite, ``n_clusters`` not in
        ``[1, n_samples]``, or the weights are invalid.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.spatial.distance import cdist
    >>> from kgroups._spectral import spectral_kgroups, kernel_from_semimetric_x0
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [0.0, 0.1], [5.0, 5.0], [5.1, 5.0], [5.0, 5.1]])
    >>> G = kernel_from_semimetric_x0(cdist(X, X), np.linalg.norm(X, axis=1))
    >>> labels = spectral_kgroups(G, 2, random_state=0)
    >>> print(len(set(labels[:3])), len(set(labels[3:])), labels[0] != labels[3])
    1 1 True
    """
    if not isinstance(n_init, numbers.Integral) or n_init < 1:
        raise ValueError(f"n_init={n_init!r} should be an integer >= 1")
    rng = check_random_state(random_state)
    U = spectral_embedding(G, n_clusters, sample_weight=sample_weight,
                           eigen_solver=eigen_solver, random_state=rng)
    km = KMeans(n_clusters=int(n_clusters), n_init=int(n_init), random_state=rng)
    weight = None if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    return km.fit(U, sample_weight=weight).labels_


def kernel_from_semimetric_x0(rho_matrix, rho_to_x0):
    """Kernel ``K(x, y) = (rho(x, x0) + rho(y, x0) - rho(x, y)) / 2`` (paper eq. 7).

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

    Examples
    --------
    >>> import numpy as np
    >>> from kgroups._spectral import kernel_from_semimetric_x0
    >>> x = np.array([1.0, 3.0])
    >>> K = kernel_from_semimetric_x0(np.abs(x[:, None] - x[None, :]), np.abs(x))
    >>> print(K.tolist())
    [[1.0, 1.0], [1.0, 3.0]]
    """
    if scipy.sparse.issparse(rho_matrix):
        rho_matrix = rho_matrix.toarray()
    rho = np.asarray(rho_matrix, dtype=np.float64)
    r0 = np.asarray(rho_to_x0, dtype=np.float64)
    if rho.ndim != 2 or rho.shape[0] != rho.shape[1]:
        raise ValueError(
            f"rho_matrix should be a square matrix of shape (n, n), got shape {rho.shape}"
        )
    if r0.shape != (rho.shape[0],):
        raise ValueError(
            f"rho_to_x0 should have shape ({rho.shape[0]},), got shape {r0.shape}"
        )
    if not (np.all(np.isfinite(rho)) and np.all(np.isfinite(r0))):
        raise ValueError("rho_matrix and rho_to_x0 should be finite, got NaN or inf")
    return 0.5 * (r0[:, None] + r0[None, :] - rho)
