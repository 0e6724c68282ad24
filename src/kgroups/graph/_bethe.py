r"""The Bethe Hessian of a graph, its estimate of k and its spectral clustering.

Saade, Krzakala & Zdeborová, "Spectral clustering of graphs with the Bethe
Hessian" (NIPS 2014), used in TPAMI section 5.2 (França, Rizzo & Vogelstein):

.. math:: H_r = (r^2 - 1) I - r A + D ,

with ``A`` the adjacency and ``D`` the degree matrix. ``r`` is
``"sqrt-mean-degree"`` (:math:`r = \sqrt{\bar d}`, the paper), ``"zeta"``
(:math:`r = \sqrt{\zeta}`, :math:`\zeta = \sum_i d_i^2 / \sum_i d_i - 1`, the
mean excess degree, Saade et al.'s choice for general degree laws; for Poisson
degrees :math:`\zeta \approx \bar d`) or a positive number. The number of
negative eigenvalues of :math:`H_r` estimates the number of communities, and
k-means on the rows of the eigenvectors of its ``k`` smallest eigenvalues is the
Bethe Hessian clustering. Everything is sparse: ``H_r`` has ``nnz(A) + n``
entries and the eigenvectors come from Lanczos (``scipy.sparse.linalg.eigsh``,
``which="SA"``); only graphs of at most ``DENSE_MAX_NODES`` nodes use a dense
``eigh`` (exact, and faster there).
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import ArpackNoConvergence, eigsh
from sklearn.cluster import KMeans

__all__ = [
    "bethe_r", "bethe_hessian", "smallest_eigenpairs", "negative_eigenpairs", "estimate_k",
    "bethe_spectral", "kmeans_rows",
]

# Graphs up to this many nodes use dense eigh (below this ARPACK is slower and
# needs k < n - 1).
DENSE_MAX_NODES = 1000
# Relative accuracy asked of Lanczos: plenty for k-means on the eigenvectors.
EIGSH_TOL = 1e-6
# Lanczos restarts allowed when counting negative eigenvalues (see negative_eigenpairs).
ESTIMATE_MAXITER = 20


def _degrees(A):
    return np.asarray(A.sum(axis=1)).ravel()


def bethe_r(A, r="sqrt-mean-degree"):
    """The value of ``r`` for adjacency ``A`` (see the module docstring).

    Examples
    --------
    >>> import networkx as nx, scipy.sparse as sp
    >>> A = sp.csr_matrix(nx.to_scipy_sparse_array(nx.cycle_graph(10)))
    >>> print(bethe_r(A), bethe_r(A, "zeta"))
    1.4142135623730951 1.0
    """
    d = _degrees(A)
    if isinstance(r, str):
        if r == "sqrt-mean-degree":
            value = np.sqrt(d.mean()) if d.size else 0.0
        elif r == "zeta":
            value = np.sqrt(max((d @ d) / d.sum() - 1.0, 0.0)) if d.sum() > 0 else 0.0
        else:
            raise ValueError(f"r={r!r} should be 'sqrt-mean-degree', 'zeta' or a positive number")
    else:
        value = r
    if not (np.isscalar(value) and np.isfinite(value) and value > 0):
        raise ValueError(f"r={r!r} gives r={value!r}; r should be a positive number "
                         "(a graph without edges has no Bethe Hessian)")
    return float(value)


def bethe_hessian(A, r="sqrt-mean-degree"):
    """Sparse Bethe Hessian ``H_r = (r^2 - 1) I - r A + D`` (CSR, float64).

    Parameters
    ----------
    A : scipy.sparse matrix of shape (n, n)
        Symmetric 0/1 adjacency (see :func:`kgroups.graph.as_adjacency`).
    r : "sqrt-mean-degree", "zeta" or float

    Returns
    -------
    H : scipy.sparse.csr_matrix of shape (n, n), with ``nnz(A) + n`` entries.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> A = sp.csr_matrix([[0., 1.], [1., 0.]])
    >>> bethe_hessian(A, r=2.0).toarray().tolist()
    [[4.0, -2.0], [-2.0, 4.0]]
    """
    A = sp.csr_matrix(A, dtype=np.float64)
    rv = bethe_r(A, r)
    H = sp.diags((rv * rv - 1.0) + _degrees(A)) - rv * A
    return sp.csr_matrix(H)


def smallest_eigenpairs(H, m, random_state=None, vectors=True):
    """The ``m`` smallest eigenvalues (ascending) of the symmetric sparse ``H``.

    Dense ``eigh`` when ``n <= DENSE_MAX_NODES``; else Lanczos
    (``eigsh(which="SA")``) with a seeded start vector.

    Returns
    -------
    values : ndarray of shape (m,)
    vectors : ndarray of shape (n, m) or None
    """
    n = H.shape[0]
    m = int(min(m, n))
    if n <= DENSE_MAX_NODES or m >= n - 1:
        from scipy.linalg import eigh

        vals, vecs = eigh(H.toarray(), subset_by_index=[0, m - 1], eigvals_only=False)
        return vals, (vecs if vectors else None)
    rng = np.random.default_rng(random_state)
    v0 = rng.standard_normal(n)
    ncv = min(n, max(2 * m + 1, m + 32))
    res = eigsh(H, k=m, which="SA", v0=v0, ncv=ncv, tol=EIGSH_TOL,
                return_eigenvectors=vectors)
    if not vectors:
        return np.sort(res), None
    vals, vecs = res
    order = np.argsort(vals)
    return vals[order], vecs[:, order]


def negative_eigenpairs(H, max_k=100, random_state=None, maxiter=ESTIMATE_MAXITER):
    """The eigenpairs of the negative eigenvalues of ``H`` (at most ``max_k``).

    Small graphs: dense ``eigh``, exact. Otherwise Lanczos on the 8, 16, 32, ...
    smallest eigenvalues until one is nonnegative or ``max_k`` is reached. Each
    Lanczos call is limited to ``maxiter`` restarts: eigenvalues still
    unconverged then sit in the bulk of the spectrum (whose edge is near 0 for
    ``r = sqrt(mean degree)``) and are counted as nonnegative; converging them
    fully would take minutes on a million nodes and tell nothing about the
    communities. Warns when ``max_k`` is reached.

    Returns
    -------
    values : ndarray of shape (k,), ascending and negative
    vectors : ndarray of shape (n, k)
    """
    if not (np.isscalar(max_k) and int(max_k) == max_k and max_k >= 1):
        raise ValueError(f"max_k={max_k!r} should be an integer >= 1")
    rng = np.random.default_rng(random_state)
    n = H.shape[0]
    cap = int(min(max_k, n))
    m = min(8, cap)
    while True:
        vals, vecs = _smallest_converged(H, m, rng, maxiter)
        neg = vals < 0
        if neg.sum() < m:
            return vals[neg], vecs[:, neg]
        if m >= cap:
            break
        m = min(2 * m, cap)
    warnings.warn(
        f"the {cap} smallest eigenvalues of the Bethe Hessian are all negative, so the "
        f"estimate is k >= {cap}; using k = {cap}. Raise max_k (now {max_k}) to count further.",
        UserWarning, stacklevel=3)
    return vals, vecs


def _smallest_converged(H, m, rng, maxiter):
    """Smallest ``m`` eigenpairs, or those Lanczos converged within ``maxiter`` restarts."""
    n = H.shape[0]
    if n <= DENSE_MAX_NODES or m >= n - 1:
        return smallest_eigenpairs(H, m, rng)
    try:
        vals, vecs = eigsh(H, k=m, which="SA", v0=rng.standard_normal(n),
                           ncv=min(n, max(2 * m + 1, 20)), tol=EIGSH_TOL, maxiter=maxiter)
    except ArpackNoConvergence as exc:
        vals, vecs = exc.eigenvalues, exc.eigenvectors
    order = np.argsort(vals)
    return vals[order], vecs[:, order]


def estimate_k(A, r="sqrt-mean-degree", *, max_k=100, random_state=None):
    """Number of negative eigenvalues of ``H_r``: the Bethe Hessian estimate of k.

    See :func:`negative_eigenpairs` for how they are counted (sparse Lanczos,
    doubling the number asked for up to ``max_k``; a ``UserWarning`` when the
    cap is reached, and then ``max_k`` is returned).

    Parameters
    ----------
    A : scipy.sparse matrix of shape (n, n)
    r : "sqrt-mean-degree", "zeta" or float
    max_k : int, default=100
    random_state : int, Generator or None

    Returns
    -------
    k : int (>= 1 for a graph with edges; 0 when ``H_r`` is positive definite)

    Examples
    --------
    >>> from kgroups.graph import stochastic_block_model
    >>> A, _ = stochastic_block_model(400, 3, 8.0, 2.0, random_state=1)
    >>> estimate_k(A, random_state=0)
    3
    """
    vals, _ = negative_eigenpairs(bethe_hessian(A, r), max_k, random_state)
    return int(vals.size)


def bethe_spectral(A, n_clusters, r="sqrt-mean-degree", *, n_init=10, random_state=None):
    """Bethe Hessian clustering: k-means on the eigenvectors of the k smallest eigenvalues.

    Parameters
    ----------
    A : scipy.sparse matrix of shape (n, n)
    n_clusters : int
    r : "sqrt-mean-degree", "zeta" or float
    n_init : int, default=10
        k-means restarts (scikit-learn ``KMeans``).
    random_state : int, Generator or None

    Returns
    -------
    labels : ndarray of shape (n,), int64

    Examples
    --------
    >>> from kgroups.graph import stochastic_block_model
    >>> from kgroups.metrics import overlap
    >>> A, y = stochastic_block_model(400, 2, 10.0, 2.5, random_state=2)
    >>> print(overlap(y, bethe_spectral(A, 2, random_state=0)) > 0.8)
    True
    """
    rng = np.random.default_rng(random_state)
    _, V = smallest_eigenpairs(bethe_hessian(A, r), n_clusters, rng)
    return kmeans_rows(V, n_clusters, n_init, rng)


def kmeans_rows(V, n_clusters, n_init=10, random_state=None):
    """k-means (scikit-learn, ``n_init`` restarts) on the rows of ``V``; int64 labels."""
    rng = np.random.default_rng(random_state)
    seed = int(rng.integers(np.iinfo(np.int32).max))
    km = KMeans(n_clusters, n_init=n_init, random_state=seed).fit(V)
    return km.labels_.astype(np.int64)
